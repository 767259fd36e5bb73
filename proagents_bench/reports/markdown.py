"""The Markdown report, for CI job summaries (``--markdown-append "$GITHUB_STEP_SUMMARY"``).

GitHub-flavoured Markdown: the decision as a heading with its informational notes right under
it (a PASS never hides that the benchmark is too small to tell), its reasons, the metric table
(baseline beside candidate, the candidate's gate and whether it held), the paired comparison
and the tasks the candidate fails with their failing checks. GitHub refuses a step summary above
1 MiB, so every list is cut (with a count of the rest) and every text from the inputs is
shortened: the report stays far below :data:`MAX_BYTES` for any package, however large.

Text from the inputs is escaped: Markdown's punctuation is backslash-escaped (so a case id can
neither start a list nor close a table cell nor smuggle in HTML) and control characters are
removed.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING, Dict, List, Optional, Sequence, Set, cast

from ..contract.gates import TASK_GATE
from ..contract.vocabulary import BLOCKING, REVIEWING
from ..version import NAME
from .sequential_view import MAX_NEXT_IDS, sequential_view
from .view import (FAILED, HELD, NOT_JUDGED, REPLACED, action_words, gate_states, gate_text,
                   held_text, interval_rows, metric_rows, metric_value, note_facts, notes,
                   problems_first, reason_groups, slices, task_rows)
from .words import clean, counted, shorten, show, show_gate

if TYPE_CHECKING:  # for annotations only
    from ..contract.gates import Gate
    from ..evaluation.decision import Decision
    from ..jsonio import JSONObject
    from ..pipeline import Evaluation
    from ..render.nodecision import NoDecision

MAX_BYTES = 1024 * 1024
MAX_REASONS = 20
MAX_ERRORS = 20
MAX_NOTES = 20
MAX_FAILING_TASKS = 100
MAX_SLICES = 30
MAX_TEXT = 160

ICONS = {"PASS": "\u2705", "REVIEW": "\u26a0\ufe0f", "BLOCK": "\u26d4",
         "INCOMPARABLE": "\u2754"}

# CommonMark lets any ASCII punctuation be backslash-escaped. Escaped anywhere: what can open
# or close emphasis, code, links, inline HTML, entities, table cells, strike-through and
# GitHub's math (``$``). Escaped at the start only: what starts a list, a heading or a quote.
_MARKUP = re.compile(r"([\\`*_{}\[\]<>#|~&$])")
_LEADING = re.compile(r"^(\d+)([.)])|^([-+=])")


def text(value: object, limit: int = MAX_TEXT) -> str:
    """Inline Markdown for a text from the inputs: shortened, cleaned, markup escaped."""
    escaped = _MARKUP.sub(r"\\\1", shorten(value, limit))
    return _LEADING.sub(lambda match: (match.group(1) or "") + "\\" + (
        match.group(2) or match.group(3)), escaped)


_BACKTICKS = re.compile(r"`+")


def code(value: object, limit: int = MAX_TEXT) -> str:
    """A version, id or name from the inputs as an inline code span (``1.0.0`` reads as
    written, nothing in it escaped): shortened and cleaned, fenced by one backtick more than
    its longest run of them, padded with a space where it begins or ends with one (as
    CommonMark strips one space each side).

    >>> code("1.0.0"), code("a`b"), code("`x")
    ('`1.0.0`', '``a`b``', '`` `x ``')
    """
    body = shorten(value, limit).replace("\n", " ")
    fence = "`" * (max([len(run) for run in _BACKTICKS.findall(body)] + [0]) + 1)
    if body.startswith("`") or body.endswith("`") or (
            body.startswith(" ") and body.endswith(" ") and body.strip()):
        body = " %s " % body
    return "%s%s%s" % (fence, body or " ", fence)


def render(evaluation: Evaluation) -> bytes:
    """The report's bytes (UTF-8) for an :class:`~proagents_bench.gate.Evaluation`."""
    return summary(evaluation)


def summary(evaluation: Evaluation, why: Sequence[str] = ()) -> bytes:
    """The report, with what explain adds after the reasons (``why``: its lines); without
    them, the gate's own."""
    document = evaluation.lazy_document
    action: str = document["action"]
    lines = [
        "## %s %s: candidate %s vs baseline %s" % (
            ICONS.get(action, ""), action, code(document["candidate_system"], 80),
            code(document["baseline_system"], 80)),
        "",
        "**%s.** Benchmark %s %s, dataset %s. Evidence `%s`." % (
            (action_words(document) or action).capitalize(), code(document["benchmark_id"], 80),
            code(document["benchmark_version"], 40), code(document["dataset_version"], 80),
            clean(document["evidence_fingerprint"])),
        "",
    ]
    lines += _notes(evaluation.decision)
    lines += ["### Reasons", ""] + _reasons(evaluation.decision)
    lines += _sequential(evaluation)
    lines += list(why)
    if document["comparable"]:
        lines += _metrics(document, evaluation.gates, evaluation.gate_rows)
        lines += _slices(document)
        lines += _failing_tasks(document)
    lines += ["", "<sub>%s %s</sub>" % (text(document.get("harness", {}).get(
        "name", NAME)), text(document.get("harness", {}).get("version", "")))]
    return ("\n".join(lines) + "\n").encode("utf-8")


NO_DECISION_ICON = "\u274c"


def render_no_decision(outcome: "NoDecision") -> bytes:
    """The summary of a run that ended without a decision
    (:class:`~proagents_bench.render.nodecision.NoDecision`): the outcome, then its errors,
    each with its file, line, column and JSON path (cut like every list here)."""
    lines = ["## %s %s: no decision" % (NO_DECISION_ICON, outcome.action), "",
             "**%s** (exit %d). Nothing here is a decision." % (
                 outcome.meaning.capitalize(), outcome.status), ""]
    if outcome.detail:
        lines += [text(outcome.detail, 2000), ""]
    shown, rest = counted(outcome.errors, MAX_ERRORS)
    lines.extend("%d. `%s`: %s (%s)" % (index, clean(error.location()).replace("`", "'"),
                                         text(error.message, 600), text(error.code, 80))
                 for index, error in enumerate(shown, 1))
    rest += outcome.omitted
    if rest:
        lines += ["", "*%d more errors not shown; the JSON document lists them.*" % rest]
    return ("\n".join(lines) + "\n").encode("utf-8")


SEVERITY_ICONS = {BLOCKING: ICONS["BLOCK"], REVIEWING: ICONS["REVIEW"]}


def _reasons(decision: "Decision") -> List[str]:
    """The reasons grouped by gate (a count and the first few names for many), then, when a
    group holds several, every reason in a folded list (cut, with a count)."""
    groups = reason_groups(decision)
    lines = ["- %s%s" % (SEVERITY_ICONS[group.severity] + " " if group.severity in
                         SEVERITY_ICONS else "", text(group.headline, 600))
             for group in groups[:MAX_REASONS]]
    if len(groups) > MAX_REASONS:
        lines += ["", "*%d more failed gates not shown.*" % (len(groups) - MAX_REASONS)]
    if len(groups) == len(decision.reasons):  # each group is one reason
        return lines
    shown, rest = counted(decision.reasons, MAX_REASONS)
    lines += ["", "<details><summary>All %d reasons, as the JSON document lists them"
                  "</summary>" % len(decision.reasons), ""]
    lines.extend("%d. %s" % (index, text(reason, 600)) for index, reason in enumerate(shown, 1))
    if rest:
        lines += ["", "*%d more reasons not shown; the JSON document lists them all.*" % rest]
    return lines + ["", "</details>"]


def _sequential(evaluation: Evaluation) -> List[str]:
    """A look of a sequential design: its state, where the evidence stands, the looks so far
    with the boundary at each, the next batch, the guarantee."""
    view = sequential_view(evaluation)
    if view is None:
        return []
    lines = ["", "### Sequential design: %s" % text(view.heading()), "",
             "%s. Evidence: %s." % (text(view.state_sentence()),
                                    text(view.standing())), "",
             "| look | tasks x trials | units | discordant | won by the candidate | passes at "
             "| stops at |", "|---:|---:|---:|---:|---:|---:|---:|"]
    lines.extend("| %d | %d x %d | %d | %d | %d | %s | %s |" % (
        row.look, row.tasks, row.trials, row.units, row.discordant, row.wins,
        "-" if row.pass_at is None else row.pass_at,
        "-" if row.futile_at is None else row.futile_at) for row in view.rows)
    batch = view.next_batch()
    if batch is not None:
        ids = view.next_case_ids()
        lines += ["", "**Next batch**: %s%s." % (text(batch), "; its tasks: %s%s" % (
            ", ".join(code(case_id, 80) for case_id in ids[:MAX_NEXT_IDS]),
            " and %d more (`sequential.next_batch` in the JSON document)" % (
                len(ids) - MAX_NEXT_IDS) if len(ids) > MAX_NEXT_IDS else "") if ids else "")]
    return lines + ["", "<sub>%s</sub>" % text(view.guarantee())]


def _notes(decision: Decision) -> List[str]:
    """The informational findings, under the decision: never a gate, never a reason."""
    found = notes(decision)
    if not found:
        return []
    shown, rest = counted(found, MAX_NOTES)
    lines = ["\u2139\ufe0f **%d informational note%s** (never a gate, never a reason):" % (
        len(found), "" if len(found) == 1 else "s"), ""]
    lines.extend("- %s (%s)" % (text(finding.reason, 600), text(note_facts(finding), 600))
                 for finding in shown)
    if rest:
        lines += ["", "*%d more notes not shown; the JSON document lists them all.*" % rest]
    return lines + [""]


def _metrics(document: JSONObject, gates: JSONObject, gate_rows: Sequence[Gate]) -> List[str]:
    failed = gate_states(document)
    baseline, candidate = document["baseline_metrics"], document["candidate_metrics"]
    lines = ["", "### Metrics", "",
             "| Metric | Baseline | Candidate | Gate (candidate) | Held? |",
             "|---|---:|---:|---|---|"]
    for row in metric_rows(gate_rows):
        lines.append("| %s | %s | %s | %s | %s |" % (
            row.label, show(metric_value(baseline, row)), show(metric_value(candidate, row)),
            text(gate_text(row, gates)), _held(row.gate_key, failed)))
    comparison = document["comparison"]
    lines.append("| Paired delta (candidate - baseline) | | %s | | |" % show(
        comparison["paired_task_success_delta"]))
    for interval in interval_rows(gate_rows, document):
        label = interval.gate.label.replace("interval low", "%s%% interval low" % show(
            comparison["confidence"] * 100))
        lines.append("| %s (interval %s .. %s) | | %s | >= %s | %s |" % (
            label, show(interval.low), show(interval.high), show(interval.low),
            text(show_gate(gates[interval.gate.key])), _held(interval.gate.key, failed)))
    lines += ["", "A task passes when its trial success rate is at least %s; gates judge the "
                  "candidate." % text(show_gate(gates[TASK_GATE.key]))]
    return lines


# The mark before the "Held?" cell's words (view.held_text).
HELD_MARKS = {HELD: "\u2714\ufe0f", FAILED: "\u274c", NOT_JUDGED: "\u2753",
              REPLACED: "\u21aa\ufe0f"}


def _held(gate_key: Optional[str], states: Dict[str, str]) -> str:
    if gate_key is None:
        return ""
    return "%s %s" % (HELD_MARKS[states.get(gate_key, HELD)], held_text(gate_key, states))


def _slices(document: JSONObject) -> List[str]:
    shown, rest = counted(slices(document), MAX_SLICES)
    lines = ["", "### Task success by slice", "", "| Slice | Baseline | Candidate | Tasks |",
             "|---|---:|---:|---:|"]
    for name, baseline, candidate in shown:
        lines.append("| %s | %s | %s | %s |" % (
            text(name, 60), show(baseline and baseline["task_success_rate"]),
            show(candidate and candidate["task_success_rate"]),
            show(cast("JSONObject", candidate or baseline)["task_count"])))  # one has it
    if rest:
        lines += ["", "*%d more slices not shown.*" % rest]
    return lines


def _failing_tasks(document: JSONObject) -> List[str]:
    failing = [row for row in problems_first(task_rows(document)) if row.candidate.misses_gate]
    lines = ["", "### Tasks the candidate fails (%d)" % len(failing), ""]
    if not failing:
        return lines + ["None: every test task met its gate."]
    shown, rest = counted(failing, MAX_FAILING_TASKS)
    lines += ["| Task | Slice | Critical | Trial success | Failing checks |",
              "|---|---|---|---:|---|"]
    for row in shown:
        lines.append("| %s | %s | %s | %s | %s |" % (
            text(row.case_id, 100), text(row.slice, 40), "**yes**" if row.critical else "no",
            show(row.candidate.result["trial_success_rate"]),
            text(row.candidate.failed_check_summary(), 300)))
    if rest:
        lines += ["", "*%d more failing tasks not shown; the JSON document and the HTML report "
                      "have them.*" % rest]
    return lines
