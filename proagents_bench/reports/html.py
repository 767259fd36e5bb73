"""The HTML report: one self-contained file a reviewer reads before deciding to ship.

No script, no external asset, no web font: it reads the same from a file:// URL on an
air-gapped machine and on paper (a print stylesheet keeps the colours and repeats table
headers). The decision and its reasons come first, in a colour nobody misses; then baseline
beside candidate for every metric with the candidate's gate and whether it held; the paired
bootstrap distribution with its interval and the ``min_paired_delta_ci_low`` gate; the latency
distributions with the p95 gate; per-slice success bars; and the task x trial grid of both
systems, critical tasks marked and every failed cell naming its failing checks.

Every text from the inputs is escaped (:func:`html.escape`) after control characters are
removed. Long lists are cut, with a count of the rest, so a huge package gives a file a
browser opens: the JSON document always holds everything.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Callable, Dict, Optional, Sequence

from ..contract.gates import TASK_GATE
from ..contract.vocabulary import BLOCKING, REVIEWING
from .html_charts import bootstrap_section, latency_section, sequential_section, slices_section
from .html_parts import breakable_digest, breakable_id, escaped, page_head, scrolling_table
from .view import (FAILED, HELD, NOT_JUDGED, REPLACED, action_words, gate_states, gate_text,
                   held_text, interval_rows, metric_rows, metric_value, note_facts, notes,
                   problems_first, reason_groups, tagged_reasons, task_rows)
from .words import counted, show, show_gate

if TYPE_CHECKING:  # for annotations only
    from ..contract.gates import Gate
    from ..evaluation.decision import Decision
    from ..jsonio import JSONObject
    from ..pipeline import Evaluation
    from ..render.nodecision import NoDecision
    from .view import SystemTask, TaskRow, TrialView

MAX_GRID_ROWS = 500
MAX_GRID_CELLS = 30000  # rows x trial columns of both systems: keeps the page light
MAX_REASONS = 200
OPEN_REASONS = 10  # more reasons than this are folded (the banner has them grouped)
MAX_NOTES = 50

def render_no_decision(outcome: "NoDecision") -> bytes:
    """The page of a run that ended without a decision
    (:class:`~proagents_bench.render.nodecision.NoDecision`): the outcome in its banner,
    then every error with its file, line, column and JSON path."""
    items = ['<li><span class="id">%s</span><br>%s <span class="note">(%s)</span></li>' % (
        breakable_id(error.location(), 2000), escaped(error.message, 4000), escaped(error.code))
        for error in outcome.shown_errors()]
    parts = [
        page_head("%s: no decision" % escaped(outcome.action)),
        '<header class="banner %s" id="decision">\n<p class="action">%s</p>\n'
        '<p class="meaning">%s</p>\n<p class="primary">%sexit %d. This page replaced any '
        'earlier report at this path: it is not a decision.</p>\n</header>\n' % (
            escaped(outcome.action), escaped(outcome.action), escaped(outcome.meaning),
            escaped(outcome.detail + "; ", 2000) if outcome.detail else "", outcome.status),
    ]
    if outcome.errors:
        parts.append('<section id="errors">\n<h2>Errors (file:line:column: JSON path)</h2>\n'
                     '<ol class="errors">\n%s\n</ol>\n%s</section>\n' % (
            "\n".join(items),
            '<p class="cut">%d more errors not shown.</p>\n' % outcome.left_out
            if outcome.left_out else ""))
    parts.append("</body>\n</html>\n")
    return "".join(parts).encode("utf-8")


# What explain adds to the page (reports/explain_html.py): after each reason (or group of
# reasons), the links to the tasks explained for it; and the section of those tasks.
WhyLinks = Callable[[Sequence[str]], str]


def render(evaluation: Evaluation) -> bytes:
    """The report's bytes (UTF-8) for an :class:`~proagents_bench.gate.Evaluation`."""
    return page(evaluation)


def page(evaluation: Evaluation, links: Optional[WhyLinks] = None, section: str = "") -> bytes:
    """The report, with what explain adds (``links`` after each reason, and ``section``
    after the reasons); without them, the gate's own report."""
    document = evaluation.lazy_document
    gates = evaluation.gates
    rows = task_rows(document)
    action = document["action"]
    parts = [
        page_head("%s: %s vs %s (%s)" % (escaped(action),
                                         escaped(document["candidate_system"], 80),
                                         escaped(document["baseline_system"], 80),
                                         escaped(document["benchmark_id"], 80))),
        _banner(document, evaluation.decision, links),
        _reasons(document, evaluation.decision, links),
        sequential_section(evaluation),
        section,
        _facts(document),
    ]
    if document["comparable"]:
        parts += [_metrics(document, gates, evaluation.gate_rows),
                  bootstrap_section(evaluation, gates), latency_section(document, gates),
                  slices_section(document), _grid(document, rows)]
    else:
        parts.append("<h2>Metrics</h2>\n<p>No metric was computed: %s.</p>\n" % (
            "the infrastructure lost more trials than the spec's validity bounds accept, so "
            "the run is not evidence (every bound exceeded is a reason above)"
            if document["comparison"].get("not_evidence") else
            "the systems did not run under the spec's protocol, so nothing is comparable "
            "(every differing key is a reason above)"))
    parts += [_inputs(document), "</body>\n</html>\n"]
    return "".join(parts).encode("utf-8")


def _banner(document: JSONObject, decision: Decision, links: Optional[WhyLinks] = None) -> str:
    """The decision, what it means, its reasons grouped by gate (a count and the first few
    names for many: the whole decision fits the first screen however many tasks failed),
    and its informational notes."""
    action = document["action"]
    groups = "\n".join("<li>%s%s%s</li>" % (_SEVERITY_TAGS.get(group.severity, ""),
                                             escaped(group.headline, 2000),
                                             links(group.reasons) if links else "")
                       for group in reason_groups(decision))
    return ('<header class="banner %s" id="decision">\n<p class="action">%s</p>\n'
            '<p class="meaning">%s</p>\n<ul class="primary">\n%s\n</ul>\n%s</header>\n' % (
                escaped(action), escaped(action), escaped(action_words(document)), groups,
                _notes(decision)))


def _notes(decision: Decision) -> str:
    """The informational findings, inside the decision's banner: a PASS must not hide that,
    say, the benchmark is too small to detect the difference it reports."""
    found = notes(decision)
    if not found:
        return ""
    shown, rest = counted(found, MAX_NOTES)
    items = ['<li><span class="sev note-tag">NOTE</span>%s <span class="facts">(%s)</span></li>'
             % (escaped(finding.reason, 2000), escaped(note_facts(finding), 2000))
             for finding in shown]
    if rest:
        items.append('<li class="cut">%d more notes not shown (the JSON document lists them '
                     'all)</li>' % rest)
    return ('<div class="notes" id="notes">\n<p class="notes-head">%d informational note%s '
            '(never a gate, never a reason)</p>\n<ul>\n%s\n</ul>\n</div>\n' % (
                len(found), "" if len(found) == 1 else "s", "\n".join(items)))


# A reason's tag by its severity (a reason that is no failed gate has none).
_SEVERITY_TAGS: Dict[Optional[str], str] = {BLOCKING: '<span class="sev block">BLOCK</span>',
                  REVIEWING: '<span class="sev review">REVIEW</span>'}


def _reasons(document: JSONObject, decision: Decision,
             links: Optional[WhyLinks] = None) -> str:
    """Every reason as the document lists it, folded away when there are many; nothing when
    the banner's groups are the reasons themselves (none holds several)."""
    if len(reason_groups(decision)) == len(decision.reasons):
        return ""
    tagged = tagged_reasons(decision)
    shown, rest = counted(tagged, MAX_REASONS)
    items = []
    for reason, severity in shown:
        items.append("<li>%s%s%s</li>" % (_SEVERITY_TAGS.get(severity, ""),
                                          escaped(reason, 2000),
                                          links([reason]) if links else ""))
    if rest:
        items.append('<li class="cut">%d more reasons not shown (the JSON document lists '
                     'them all)</li>' % rest)
    return ('<section id="reasons">\n<details%s>\n<summary><h2>Reasons (%d)</h2></summary>\n'
            '<ol class="reasons">\n%s\n</ol>\n</details>\n</section>\n' % (
                " open" if len(tagged) <= OPEN_REASONS else "", len(tagged), "\n".join(items)))


def _facts(document: JSONObject) -> str:
    facts = [
        ("Candidate", breakable_id(document["candidate_system"])),
        ("Baseline", breakable_id(document["baseline_system"])),
        ("Benchmark", breakable_id("%s %s" % (document["benchmark_id"],
                                              document["benchmark_version"]))),
        ("Dataset", breakable_id(document["dataset_version"])),
        ("Result set", breakable_id(document.get("result_set_version", ""))),
        ("Evidence fingerprint", breakable_digest(document["evidence_fingerprint"])),
        ("Harness", breakable_id("%s %s" % (document["harness"]["name"],
                                            document["harness"]["version"])
                                 if "harness" in document else "")),
    ]
    body = "\n".join('<tr><th scope="row">%s</th><td class="id">%s</td></tr>' % (
        escaped(label), value) for label, value in facts)
    return '<section id="about">\n<h2>What was compared</h2>\n%s\n</section>\n' % scrolling_table(
        "facts", body)


# Each "Held?" state's class and mark (the words are view.held_text's).
HELD_CELLS = {HELD: ("held", "\u2713"), FAILED: ("failed", "\u2717"),
              NOT_JUDGED: ("unjudged", "?"), REPLACED: ("replaced", "\u21b7")}


def _held_cell(gate_key: Optional[str], states: Dict[str, str]) -> str:
    if gate_key is None:
        return '<td>\u2014</td>'
    css, mark = HELD_CELLS[states.get(gate_key, HELD)]
    return '<td class="%s">%s %s</td>' % (css, mark, held_text(gate_key, states))


def _metric_row(label: str, baseline: str, candidate: str, gate: str,
                gate_key: Optional[str], failed: Dict[str, str]) -> str:
    """One row of the metric table; each cell names its column (``data-label``), which a
    narrow window shows in place of the header, the row stacked."""
    return ('<tr%s><th scope="row">%s</th><td class="num" data-label="Baseline">%s</td>'
            '<td class="num" data-label="Candidate">%s</td><td data-label="Gate">%s</td>%s'
            '</tr>' % (' class="failed-row"'
                       if gate_key is not None and failed.get(gate_key) == FAILED else "",
                       escaped(label), escaped(baseline), escaped(candidate), escaped(gate),
                       _held_cell(gate_key, failed)))


def _metrics(document: JSONObject, gates: JSONObject, gate_rows: Sequence[Gate]) -> str:
    failed = gate_states(document)
    baseline, candidate = document["baseline_metrics"], document["candidate_metrics"]
    lines = ['<thead><tr><th>Metric</th><th>Baseline</th><th>Candidate</th>'
             '<th>Gate (candidate)</th><th>Held?</th></tr></thead>\n<tbody>']
    for row in metric_rows(gate_rows):
        lines.append(_metric_row(row.label, show(metric_value(baseline, row)),
                                 show(metric_value(candidate, row)), gate_text(row, gates),
                                 row.gate_key, failed))
    comparison = document["comparison"]
    lines.append(_metric_row("Paired task success delta (candidate - baseline)", "\u2014",
                             show(comparison["paired_task_success_delta"]), "\u2014", None,
                             failed))
    for interval in interval_rows(gate_rows, document):
        lines.append(_metric_row("%s (%s%% interval: %s .. %s)" % (
            interval.gate.label, show(comparison["confidence"] * 100), show(interval.low),
            show(interval.high)), "\u2014", show(interval.low),
            ">= %s" % show_gate(gates[interval.gate.key]), interval.gate.key, failed))
    lines.append("</tbody>")
    return ('<section id="metrics">\n<h2>Metrics and gates</h2>\n<p class="note">Gates judge '
            'the candidate; the baseline is shown for comparison. A task passes when its trial '
            'success rate is at least %s.</p>\n%s\n</section>\n' % (
                escaped(show_gate(gates[TASK_GATE.key])),
                scrolling_table("metrics", "\n".join(lines))))


def _trial_cell(trial: TrialView, system: str) -> str:
    """A trial's cell; ``data-label`` names it (``candidate trial 3``) in a narrow window,
    where a row is a card of its failing cells (the passing ones are hidden)."""
    if trial.passed:
        return '<td class="ok" title="trial %d passed">\u2713</td>' % trial.trial_id
    labels = trial.failure_labels(short=True)
    return '<td class="bad" data-label="%s trial %d" title="trial %d failed: %s">%s</td>' % (
        system, trial.trial_id, trial.trial_id, escaped(", ".join(trial.failed_checks)),
        "<br>".join(escaped(label) for label in labels))


def _task_cell(system_task: SystemTask, system: str) -> str:
    result = system_task.result
    rate = "%d/%d" % (sum(1 for trial in system_task.trials if trial.passed),
                      len(system_task.trials))
    if system_task.critical_failure:
        css, text = "task-fail", "\u2717 %s (critical gate)" % rate
    elif result["task_pass"]:
        css, text = "task-pass", "\u2713 %s" % rate
    else:
        css, text = "task-fail", "\u2717 %s" % rate
    return '<td class="%s" data-label="%s task">%s</td>' % (css, system, escaped(text))


def _grid(document: JSONObject, rows: Sequence[TaskRow]) -> str:
    trials = max([row.candidate.trial_count for row in rows]
                 + [row.baseline.trial_count for row in rows] + [1])
    limit = min(MAX_GRID_ROWS, max(MAX_GRID_CELLS // (2 * trials), 50))
    shown, rest = counted(problems_first(rows), limit)
    head = "".join("<th>%d</th>" % number for number in range(1, trials + 1))
    # The task's slice beside it (a grid too wide for its window scrolls its last columns,
    # never these); then the candidate's columns: the gates judge it, and a narrow window
    # shows them beside the task without scrolling.
    lines = ['<thead><tr><th rowspan="2">Task</th><th rowspan="2">Slice</th><th colspan="%d">'
             'Candidate %s: trials</th><th rowspan="2">Candidate task</th><th colspan="%d">'
             'Baseline %s: trials</th><th rowspan="2">Baseline task</th></tr>\n<tr>%s%s</tr>'
             '</thead>\n<tbody>' % (trials, breakable_id(document["candidate_system"], 60), trials,
                                    breakable_id(document["baseline_system"], 60), head, head)]
    for row in shown:
        cells = ['<td><span class="id">%s</span>%s</td>' % (
            breakable_id(row.case_id, 120),
            '<span class="badge">CRITICAL</span>' if row.critical else ""),
            '<td data-label="slice">%s</td>' % breakable_id(row.slice, 60)]
        for system, system_task in (("candidate", row.candidate), ("baseline", row.baseline)):
            cells.extend(_trial_cell(trial, system) for trial in system_task.trials)
            cells.append('<td></td>' * (trials - len(system_task.trials)))
            cells.append(_task_cell(system_task, system))
        lines.append('<tr%s>%s</tr>' % (' class="critical"' if row.critical else "",
                                        "".join(cells)))
    lines.append("</tbody>")
    parts = ['<section id="tasks">\n<h2>Tasks and trials</h2>',
             '<p class="note">One row per test task, the candidate\'s trials first: tasks the '
             'candidate fails come first (critical ones leading), then tasks only the baseline '
             'fails, then the rest. A '
             'failed cell names its failing checks: the status (timeout, error, unknown), '
             '<em>final state</em> (a wrong one), <em>side effect</em> (a forbidden one) or '
             '<em>tool</em> (an unapproved one). <span class="badge">CRITICAL</span> marks a '
             'critical task. In a '
             'narrow window each task is a card of its failing trials and both verdicts.</p>',
             scrolling_table("grid", "\n".join(lines))]
    if rest:
        failing = sum(1 for row in rows if row.candidate.misses_gate)
        parts.append('<p class="cut">%d more tasks not shown (%d tasks in all, %d failing for '
                     'the candidate); the JSON document has every trial.</p>' % (
                         rest, len(rows), failing))
    parts.append("</section>\n")
    return "\n".join(parts)


def _inputs(document: JSONObject) -> str:
    lines = ['<section id="evidence">\n<h2>Inputs and limitations</h2>']
    inputs = document.get("inputs") or {}
    if inputs:
        body = ['<thead><tr><th>Input</th><th>File</th><th>Bytes</th><th>SHA-256</th></tr>'
                '</thead>\n<tbody>']
        for kind in ("spec", "cases", "results"):
            item = inputs.get(kind)
            if item:
                body.append('<tr><th scope="row">%s</th><td class="id">%s</td><td class="num">'
                            '%s</td><td class="id">%s</td></tr>' % (
                                escaped(kind), breakable_id(item["file"]),
                                escaped(show(item["bytes"])), breakable_digest(item["sha256"])))
        body.append("</tbody>")
        lines.append(scrolling_table("inputs", "\n".join(body)))
    lines.append("<ul>\n%s\n</ul>" % "\n".join(
        "<li>%s</li>" % escaped(text, 2000) for text in document.get("limitations", ())))
    lines.append("</section>\n")
    return "\n".join(lines)
