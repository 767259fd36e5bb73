"""The health summary in Markdown (``health --markdown``, ``--markdown-append
"$GITHUB_STEP_SUMMARY"``), in the gate summary's style (:mod:`.markdown`: every text from the
inputs escaped and shortened, every list cut with a count of the rest, so it stays far below
GitHub's 1 MiB for any benchmark): the effective size, the tasks to audit first with their
reasons, the systems and the slices."""

from __future__ import annotations

from typing import List

from ..maintenance.health_document import group_document, system_documents
from ..maintenance.health_figures import HEALTH, Health, describe_reason
from ..maintenance.validity import DO_NOTHING, ORACLE, validity_document
from .markdown import render_no_decision as render_no_decision  # the no-result summary
from .markdown import code, text
from .words import counted, show

MAX_AUDIT = 100
MAX_SYSTEMS = 30
MAX_SLICES = 30
ICON = "\U0001fa7a"  # stethoscope


def render(health: Health) -> bytes:
    """The summary's bytes (UTF-8) for a :class:`~proagents_bench.maintenance.health.Health`."""
    cases = health.cases
    effective = health.effective_size
    lines = [
        "## %s %s: %s %s, dataset %s" % (ICON, HEALTH, code(cases["benchmark_id"], 80),
                                         code(cases["benchmark_version"], 40),
                                         code(cases["dataset_version"], 80)),
        "",
        "**Effective size: %s** (test tasks that separate the systems), %d systems, %d trials "
        "per task." % ("%d of %d" % (effective, len(health.tasks)) if effective is not None
                       else "not estimable (%s)" % text(health.analysis.reason, 200),
                       len(health.systems), health.trials_per_task),
        "",
    ]
    lines += _audit(health) + _systems(health) + _validity(health) + _slices(health)
    return ("\n".join(lines) + "\n").encode("utf-8")


def _audit(health: Health) -> List[str]:
    audit = health.audit()
    lines = ["### Tasks to audit first (%d)" % len(audit), ""]
    if not audit:
        return lines + ["None.", ""]
    shown, rest = counted(audit, MAX_AUDIT)
    lines += ["| # | Task | Why | Pass rate | Flaky in |", "|---:|---|---|---:|---:|"]
    count = len(health.systems)
    for number, task in enumerate(shown, 1):
        lines.append("| %d | %s | %s | %s | %d of %d |" % (
            number, text(task.case_id, 100), text("; ".join(
                describe_reason(task, reason, count) for reason in task.reasons), 400),
            show(float(task.pass_rate)), task.flaky_systems, count))
    if rest:
        lines += ["", "*%d more tasks to audit not shown; the JSON document lists them.*" % rest]
    return lines + [""]


def _systems(health: Health) -> List[str]:
    systems = system_documents(health)
    shown, rest = counted(systems, MAX_SYSTEMS)
    lines = ["### Systems", "", "| System | Runs | Mean pass rate | Task success rate | "
             "Flaky tasks |", "|---|---:|---:|---:|---:|"]
    for system in shown:
        lines.append("| %s | %d | %s | %s | %d |" % (
            text(system["name"], 80), len(system["runs"]), show(system["mean_pass_rate"]),
            show(system["task_success_rate"]), system["flaky_tasks"]))
    if rest:
        lines += ["", "*%d more systems not shown.*" % rest]
    return lines + [""]


def _validity(health: Health) -> List[str]:
    """The validity audit: the references' range, each system above the floor, each
    finding's tasks."""
    if health.validity is None:
        return []
    document = validity_document(health.validity)
    ends = []
    for word, kind in (("floor", DO_NOTHING), ("ceiling", ORACLE)):
        found = document["references"][kind]
        ends.append("%s %s" % (word, "not given" if found is None else "%s (%s)" % (
            show(found["task_success_rate"]), text(found["name"], 80))))
    lines = ["### Is the run evidence?", "", "Score range: %s." % ", ".join(ends), "",
             "| System | Task success rate | Above the floor | Share of the range |",
             "|---|---:|---:|---:|"]
    lines += ["| %s | %s |" % (text(system["name"], 80), " | ".join(
        show(system[key]) for key in ("task_success_rate", "above_floor", "share_of_range")))
        for system in document["systems"]]
    lines.append("")
    for finding in document["findings"]:
        shown, rest = counted([task["case_id"] for task in finding["tasks"]], MAX_AUDIT)
        lines.append("- `%s` (%d): %s%s" % (finding["code"], len(finding["tasks"]), text(
            ", ".join(shown), 2000), " and %d more" % rest if rest else ""))
    return lines + [""]


def _slices(health: Health) -> List[str]:
    shown, rest = counted(sorted(health.by_slice), MAX_SLICES)
    lines = ["### By slice", "", "| Slice | Tasks | Pass rate | Never passed | Saturated | "
             "Effective size | To audit |", "|---|---:|---:|---:|---:|---:|---:|"]
    for name in shown:
        item = group_document(health.by_slice[name], health)
        lines.append("| %s | %s |" % (text(name, 60), " | ".join(show(item[key]) for key in (
            "task_count", "pass_rate", "never_passed", "saturated", "effective_size",
            "audit_count"))))
    if rest:
        lines += ["", "*%d more slices not shown.*" % rest]
    return lines
