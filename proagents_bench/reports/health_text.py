"""The health at a terminal (``health --format text``, the default when stdout is a
terminal), in the gate's text mode's manner (:mod:`.terminal`): a few dozen lines however
many tasks, ASCII only, every text from the inputs cleaned, colour only where the command
line says the terminal takes it, and the conclusion last, where a terminal keeps it in view:
the effective size and the tasks to audit first."""

from __future__ import annotations

from typing import List, Sequence

from ..maintenance.health_document import system_documents
from ..maintenance.health_figures import AUDIT_REASONS, HEALTH, Health, describe_reason
from ..maintenance.validity import DO_NOTHING, ORACLE, Validity
from .terminal import BOLD, DIM, ELLIPSIS, RED, YELLOW, Painter, _plain, _wrap
from .words import counted, named, show

MAX_AUDIT = 10
MAX_SYSTEMS = 10
REASON_COLOURS = {"never_passed": RED, "negative_discrimination": RED,
                  "unknown_trials": YELLOW, "flaky": YELLOW}


def render(health: Health, width: int = 100, colour: bool = False,
           hints: Sequence[str] = ()) -> bytes:
    """The text mode's bytes (ASCII)."""
    paint = Painter(colour)
    lines: List[str] = []
    systems = system_documents(health)
    shown, rest = counted(systems, MAX_SYSTEMS)
    table = [("Systems (%d)" % len(systems), "Mean pass rate", "Task success rate",
              "Flaky tasks", "Runs")] + [
        (_plain(system["name"], 60), show(system["mean_pass_rate"]),
         show(system["task_success_rate"]), show(system["flaky_tasks"]),
         show(len(system["runs"]))) for system in shown]
    widths = [max(len(row[column]) for row in table) for column in range(5)]
    for position, row in enumerate(table):
        line = "  ".join([row[0].ljust(widths[0])] + [cell.rjust(width) for cell, width in
                                                       zip(row[1:], widths[1:])])
        lines.append(paint(line, BOLD) if position == 0 else line)
    if rest:
        lines.append("  %d more (the JSON document lists them)" % rest)
    lines.append("")
    audit = health.audit()
    lines.append(paint("Tasks to audit first: %d of %d" % (len(audit), len(health.tasks)),
                       BOLD))
    first, more = counted(audit, MAX_AUDIT)
    count = len(health.systems)
    for task in first:
        reasons = "; ".join(describe_reason(task, reason, count) for reason in task.reasons)
        wrapped = _wrap("%s  %s" % (_plain(task.case_id, 80), _plain(reasons, 600)), width, 4)
        code = REASON_COLOURS.get(task.reasons[0])
        lines.append("  " + (paint(wrapped[0], code) if code else wrapped[0]))
        lines.extend("    " + line for line in wrapped[1:])
    if more:
        lines.append("  %d more (the JSON document and the HTML report have them)" % more)
    lines.append("")
    if health.validity is not None:
        lines += _validity(health.validity, paint, width) + [""]
    cases = health.cases
    lines.append(paint("%s %s, dataset %s: %d test tasks, %d systems, %d trials per task" % (
        _plain(cases["benchmark_id"], 80), _plain(cases["benchmark_version"], 40),
        _plain(cases["dataset_version"], 80), len(health.tasks), count,
        health.trials_per_task), DIM))
    lines += [paint(hint, DIM) for hint in hints] + [""]
    effective = health.effective_size
    lines.append("%s  effective size %s" % (paint(HEALTH, BOLD), "%d of %d test tasks" % (
        effective, len(health.tasks)) if effective is not None else "not estimable: " +
        _plain(health.analysis.reason, 200)))
    for reason in AUDIT_REASONS:
        ids = [task.case_id for task in audit if reason in task.reasons]
        if ids:
            wrapped = _wrap("%d %s: %s" % (len(ids), reason.replace("_", " "),
                                           _plain(named(ids, ellipsis=ELLIPSIS), 2000)),
                            width, 8)
            lines.append("        " + wrapped[0])
            lines.extend("        " + line for line in wrapped[1:])
    return ("\n".join(lines) + "\n").encode("ascii", "backslashreplace")


def _validity(validity: Validity, paint: Painter, width: int) -> List[str]:
    """The validity audit: the score range between the references given, and each
    finding's tasks."""
    ends = []
    for word, kind in (("floor", DO_NOTHING), ("ceiling", ORACLE)):
        found = validity.references[kind]
        ends.append("%s %s" % (word, "not given" if found is None else "%s (%s)" % (
            show(float(found[1])), _plain(found[0].name, 60))))
    lines = [paint("Validity: %s" % ", ".join(ends), BOLD)]
    for finding in validity.findings:
        ids = [case_id for case_id, _why in finding.tasks]
        wrapped = _wrap("%s (%d): %s" % (finding.check.code, len(ids),
                                         _plain(named(ids, ellipsis=ELLIPSIS), 2000)),
                        width, 4)
        lines.append("  " + wrapped[0])
        lines.extend("    " + line for line in wrapped[1:])
    return lines
