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

import heapq
import math
import re
from fractions import Fraction
from html import escape
from typing import TYPE_CHECKING, Dict, Optional, Sequence, Set, Tuple

from ..contract.gates import P95_LATENCY_GATE, PAIRED_INTERVAL_GATE, TASK_GATE
from ..contract.vocabulary import BLOCKING, REVIEWING
from ..stats.quantiles import nearest_rank_index
from . import charts
from . import svg as report_svg
from .view import (ACTION_WORDS, FAILED, HELD, NOT_JUDGED, gate_states, gate_text, held_text,
                   interval_rows, latencies, metric_rows, metric_value, note_facts, notes,
                   problems_first, reason_groups, slices, tagged_reasons, task_rows)
from .words import clean, counted, shorten, show, show_gate

if TYPE_CHECKING:  # for annotations only
    from ..contract.gates import Gate
    from ..evaluation.decision import Decision
    from ..jsonio import JSONObject
    from ..pipeline import Evaluation
    from .nodecision import NoDecision
    from .view import SystemTask, TaskRow, TrialView

MAX_GRID_ROWS = 500
MAX_GRID_CELLS = 30000  # rows x trial columns of both systems: keeps the page light
MAX_REASONS = 200
OPEN_REASONS = 10  # more reasons than this are folded (the banner has them grouped)
MAX_NOTES = 50
MAX_SLICES = 60
MAX_TEXT = 300
HISTOGRAM_BINS = 40
BOOTSTRAP_BARS = 50
# The latency axis ends at most this many times the p95's distance from the fastest trial
# (then the slower trials are counted off scale), so that one outlier cannot squeeze every
# other trial into the first bar: at least 95% of each system's trials stay on the axis.
LATENCY_AXIS_P95_SPAN = 4
P95 = Fraction(95, 100)

STYLE = """
:root { --pass: #1a7f37; --review: #b35c00; --block: #c62828; --incomparable: #6a1b9a;
  --note: #0b5cad; --none: #424a53; }
* { box-sizing: border-box; }
body { font: 15px/1.45 system-ui, -apple-system, "Segoe UI", Roboto, Arial, sans-serif;
  color: #1b1f24; margin: 0 auto; max-width: 1180px; padding: 0 20px 40px;
  overflow-wrap: break-word; }
h1 { font-size: 1.2rem; margin: 18px 0 4px; } h2 { font-size: 1.15rem; margin: 28px 0 8px;
  border-bottom: 1px solid #d0d7de; padding-bottom: 4px; }
.banner { color: #fff; padding: 18px 24px; border-radius: 8px; margin-top: 16px; }
.banner .action { font-size: 2.6rem; font-weight: 800; letter-spacing: .04em; margin: 0; }
.banner .meaning { font-size: 1.1rem; margin: 2px 0 10px; }
.banner .primary { font-size: 1.05rem; margin: 0; font-weight: 600; list-style: none;
  padding: 0; } .banner .primary li { margin: 3px 0; }
.banner .sev.block, .banner .sev.review { background: #fff; }
.banner .sev.block { color: var(--block); } .banner .sev.review { color: var(--review); }
summary h2 { display: inline-block; border: 0; margin: 28px 0 8px; }
summary { cursor: pointer; border-bottom: 1px solid #d0d7de; }
.banner .notes { background: #fff; color: #1b1f24; border-radius: 6px; padding: 8px 12px;
  margin-top: 14px; border-left: 6px solid var(--note); }
.notes .notes-head { margin: 0 0 4px; font-weight: 700; color: var(--note); }
.notes ul { margin: 0; padding-left: 1.2em; } .notes li { margin: 2px 0; }
.notes .facts { color: #57606a; font-size: .9em; }
.PASS { background: var(--pass); } .REVIEW { background: var(--review); }
.BLOCK { background: var(--block); } .INCOMPARABLE { background: var(--incomparable); }
.CONTRACT_ERROR, .INTERNAL_ERROR, .INTERRUPTED { background: var(--none); }
.reasons li, .errors li { margin: 3px 0; } .sev { font-weight: 700; font-size: .8rem; padding: 0 5px;
  border-radius: 3px; color: #fff; margin-right: 6px; }
.sev.block { background: var(--block); } .sev.review { background: var(--review); }
.sev.note-tag { background: var(--note); }
.scroll { overflow-x: auto; max-width: 100%; margin: 6px 0; }
table { border-collapse: collapse; margin: 0; }
th, td { border: 1px solid #d0d7de; padding: 4px 8px; text-align: left; vertical-align: top; }
th { background: #f3f5f7; } td.num { text-align: right; font-variant-numeric: tabular-nums; }
.held { color: var(--pass); font-weight: 700; } .failed { color: var(--block); font-weight: 700; }
.unjudged { color: var(--review); font-weight: 700; }
td.held { white-space: nowrap; }
.facts th { width: 13em; }
code, .id { font-family: ui-monospace, Consolas, monospace; font-size: .9em; }
.chart { width: 100%; max-width: 760px; min-width: @CHART_MIN@px; height: auto;
  display: block; margin: 4px 0 12px; }
.chart .bar { fill: #5b7fa6; } .chart .bar.baseline { fill: #9aa5b1; }
.chart .bar.candidate { fill: #2f6fb3; } .chart .band { fill: #cfe3f7; }
.chart .bar.off-scale { fill: #b7c3d0; stroke: #5b7fa6; stroke-dasharray: 3 2; }
.chart .axis, .chart .tick { stroke: #57606a; } .chart .grid { stroke: #e3e7eb; }
.chart text { font: 11px system-ui, Arial, sans-serif; fill: #1b1f24; }
.chart .marker-label { paint-order: stroke; stroke: #fff; stroke-width: 3px;
  stroke-linejoin: round; }
.chart .bar-value.inside { fill: #fff; }
.chart .marker { stroke-width: 2; } .chart .marker.gate { stroke: var(--block);
  stroke-dasharray: 6 4; } .chart .marker-label.gate { fill: var(--block); font-weight: 700; }
.chart .marker-arrow.gate { fill: var(--block); } .chart .marker-arrow { fill: #1b1f24; }
.chart .marker.bound { stroke: #1f5a96; } .chart .marker.observed { stroke: #1b1f24; }
table.grid { font-size: 12px; } table.grid td, table.grid th { padding: 2px 5px; }
table.grid td.ok { background: #dcf5e3; color: #14532d; text-align: center; }
table.grid td.bad { background: #fde2e1; color: #7f1d1d; }
table.grid td.task-pass { font-weight: 700; color: var(--pass); }
table.grid td.task-fail { font-weight: 700; color: var(--block); }
table.grid tr.critical td:first-child { border-left: 5px solid var(--block); }
table.grid tbody td:first-child { position: sticky; left: 0; background: #fff;
  min-width: 9em; }
.badge { font-size: .72rem; font-weight: 700; background: var(--block); color: #fff;
  padding: 0 4px; border-radius: 3px; margin-left: 4px; }
.badge, .sev { white-space: nowrap; overflow-wrap: normal; }
.note { color: #57606a; font-size: .9rem; } .cut { font-weight: 600; color: #7f1d1d; }
table.metrics tr.failed-row th { color: var(--block); }
h3 { font-size: 1rem; margin: 14px 0 4px; }
@media (max-width: 600px) {
  body { padding: 0 10px 30px; } .banner { padding: 12px 14px; }
  table.metrics, table.metrics tbody, table.metrics tr, table.metrics th { display: block; }
  table.metrics thead { display: none; }
  table.metrics tr { border: 1px solid #d0d7de; margin: 0 0 6px; }
  table.metrics th, table.metrics td { border: 0; padding: 2px 8px; }
  table.metrics td { display: inline-block; text-align: left; }
  table.metrics td[data-label]::before { content: attr(data-label) " "; color: #57606a;
    font-size: .85em; }
  table.grid, table.grid tbody, table.grid tr { display: block; }
  table.grid thead, table.grid td.ok, table.grid td:empty { display: none; }
  table.grid tr { border: 1px solid #d0d7de; margin: 0 0 6px; }
  table.grid td { display: inline-block; border: 0; padding: 1px 6px; margin: 1px 0; }
  table.grid tbody td:first-child { display: block; position: static; }
  table.grid td[data-label]::before { content: attr(data-label) ": "; color: #57606a;
    font-weight: 400; }
  .banner .action { font-size: 2rem; } .facts th { width: auto; }
  .banner .primary { font-size: .95rem; }
  .banner.CONTRACT_ERROR .action, .banner.INTERNAL_ERROR .action { font-size: 1.5rem; }
}
@media print {
  * { -webkit-print-color-adjust: exact; print-color-adjust: exact; }
  body { font-size: 10pt; max-width: none; padding: 0; }
  h2 { break-after: avoid; }
  tr, .chart, .banner, #bootstrap, #slices { break-inside: avoid; }
  thead { display: table-header-group; } table.grid { font-size: 7.5pt; }
  .scroll { overflow: visible; }
  .id { overflow-wrap: anywhere; }
  table.grid tbody td:first-child { position: static; min-width: 0; }
  a { color: inherit; text-decoration: none; }
}
""".replace("@CHART_MIN@", str(report_svg.MIN_DISPLAY_WIDTH))


def _e(text: object, limit: int = MAX_TEXT) -> str:
    return escape(shorten(text, limit), quote=True)


# Where a long id may break: after a separator, never inside a word (so "test-safety" breaks
# as "test-" / "safety", not "test-saf" / "ety"); <wbr> adds no character to a copied id.
_ID_BREAKS = re.compile(r"([-_/.\\:])(?!$)")
_HEX_GROUP = re.compile(r"([0-9a-f]{16})(?=[0-9a-f])")


def _id(text: object, limit: int = MAX_TEXT) -> str:
    """An id, path or version, escaped, breakable after its separators only."""
    return _ID_BREAKS.sub(r"\1<wbr>", _e(text, limit))


def _digest(text: object) -> str:
    """A hash (``sha256:`` and 64 hex digits): breakable between groups of 16 digits."""
    return _HEX_GROUP.sub(r"\1<wbr>", _id(text))


def _chart(svg: str) -> str:
    """A chart in its own scroll container: it is never drawn narrower than
    :data:`~.svg.MIN_DISPLAY_WIDTH` (its text would fall below a readable size), so a
    narrow window scrolls it, never the page."""
    return '<div class="scroll">%s</div>' % svg


def _table(html_class: str, body: str) -> str:
    """A table in its own scroll container: on a narrow window the table scrolls, never the
    page (print shows it whole)."""
    return '<div class="scroll">\n<table class="%s">\n%s\n</table>\n</div>' % (html_class, body)


def _head(title: str) -> str:
    return ("<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
            "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n"
            "<title>%s</title>\n<style>%s</style>\n</head>\n<body>\n" % (title, STYLE))


def render_no_decision(outcome: "NoDecision") -> bytes:
    """The page of a run that ended without a decision
    (:class:`~proagents_bench.reports.nodecision.NoDecision`): the outcome in its banner,
    then every error with its file, line, column and JSON path."""
    items = ['<li><span class="id">%s</span><br>%s <span class="note">(%s)</span></li>' % (
        _id(error.location(), 2000), _e(error.message, 4000), _e(error.code))
        for error in outcome.shown_errors()]
    parts = [
        _head("%s: no decision" % _e(outcome.action)),
        '<header class="banner %s" id="decision">\n<p class="action">%s</p>\n'
        '<p class="meaning">%s</p>\n<p class="primary">%sexit %d. This page replaced any '
        'earlier report at this path: it is not a decision.</p>\n</header>\n' % (
            _e(outcome.action), _e(outcome.action), _e(outcome.meaning),
            _e(outcome.detail + "; ", 2000) if outcome.detail else "", outcome.status),
    ]
    if outcome.errors:
        parts.append('<section id="errors">\n<h2>Errors (file:line:column: JSON path)</h2>\n'
                     '<ol class="errors">\n%s\n</ol>\n%s</section>\n' % (
            "\n".join(items),
            '<p class="cut">%d more errors not shown.</p>\n' % outcome.left_out
            if outcome.left_out else ""))
    parts.append("</body>\n</html>\n")
    return "".join(parts).encode("utf-8")


def render(evaluation: Evaluation) -> bytes:
    """The report's bytes (UTF-8) for an :class:`~proagents_bench.gate.Evaluation`."""
    document = evaluation.lazy_document
    gates = evaluation.gates
    rows = task_rows(document)
    action = document["action"]
    parts = [
        _head("%s: %s vs %s (%s)" % (_e(action), _e(document["candidate_system"], 80),
                                     _e(document["baseline_system"], 80),
                                     _e(document["benchmark_id"], 80))),
        _banner(document, evaluation.decision),
        _reasons(document, evaluation.decision),
        _facts(document),
    ]
    if document["comparable"]:
        parts += [_metrics(document, gates, evaluation.gate_rows), _bootstrap(evaluation, gates),
                  _latency(document, gates), _slices(document), _grid(document, rows)]
    else:
        parts.append("<h2>Metrics</h2>\n<p>No metric was computed: the systems did not run "
                     "under the spec's protocol, so nothing is comparable (every differing key "
                     "is a reason above).</p>\n")
    parts += [_inputs(document), "</body>\n</html>\n"]
    return "".join(parts).encode("utf-8")


def _banner(document: JSONObject, decision: Decision) -> str:
    """The decision, what it means, its reasons grouped by gate (a count and the first few
    names for many: the whole decision fits the first screen however many tasks failed),
    and its informational notes."""
    action = document["action"]
    groups = "\n".join("<li>%s%s</li>" % (_SEVERITY_TAGS.get(group.severity, ""),
                                           _e(group.headline, 2000))
                       for group in reason_groups(decision))
    return ('<header class="banner %s" id="decision">\n<p class="action">%s</p>\n'
            '<p class="meaning">%s</p>\n<ul class="primary">\n%s\n</ul>\n%s</header>\n' % (
                _e(action), _e(action), _e(ACTION_WORDS.get(action, "")), groups,
                _notes(decision)))


def _notes(decision: Decision) -> str:
    """The informational findings, inside the decision's banner: a PASS must not hide that,
    say, the benchmark is too small to detect the difference it reports."""
    found = notes(decision)
    if not found:
        return ""
    shown, rest = counted(found, MAX_NOTES)
    items = ['<li><span class="sev note-tag">NOTE</span>%s <span class="facts">(%s)</span></li>' % (
        _e(finding.reason, 2000), _e(note_facts(finding), 2000)) for finding in shown]
    if rest:
        items.append('<li class="cut">%d more notes not shown (the JSON document lists them '
                     'all)</li>' % rest)
    return ('<div class="notes" id="notes">\n<p class="notes-head">%d informational note%s '
            '(never a gate, never a reason)</p>\n<ul>\n%s\n</ul>\n</div>\n' % (
                len(found), "" if len(found) == 1 else "s", "\n".join(items)))


# A reason's tag by its severity (a reason that is no failed gate has none).
_SEVERITY_TAGS: Dict[Optional[str], str] = {BLOCKING: '<span class="sev block">BLOCK</span>',
                  REVIEWING: '<span class="sev review">REVIEW</span>'}


def _reasons(document: JSONObject, decision: Decision) -> str:
    """Every reason as the document lists it, folded away when there are many; nothing when
    the banner's groups are the reasons themselves (none holds several)."""
    if len(reason_groups(decision)) == len(decision.reasons):
        return ""
    tagged = tagged_reasons(decision)
    shown, rest = counted(tagged, MAX_REASONS)
    items = []
    for reason, severity in shown:
        items.append("<li>%s%s</li>" % (_SEVERITY_TAGS.get(severity, ""), _e(reason, 2000)))
    if rest:
        items.append('<li class="cut">%d more reasons not shown (the JSON document lists '
                     'them all)</li>' % rest)
    return ('<section id="reasons">\n<details%s>\n<summary><h2>Reasons (%d)</h2></summary>\n'
            '<ol class="reasons">\n%s\n</ol>\n</details>\n</section>\n' % (
                " open" if len(tagged) <= OPEN_REASONS else "", len(tagged), "\n".join(items)))


def _facts(document: JSONObject) -> str:
    facts = [
        ("Candidate", _id(document["candidate_system"])),
        ("Baseline", _id(document["baseline_system"])),
        ("Benchmark", _id("%s %s" % (document["benchmark_id"],
                                     document["benchmark_version"]))),
        ("Dataset", _id(document["dataset_version"])),
        ("Result set", _id(document.get("result_set_version", ""))),
        ("Evidence fingerprint", _digest(document["evidence_fingerprint"])),
        ("Harness", _id("%s %s" % (document["harness"]["name"], document["harness"]["version"])
                        if "harness" in document else "")),
    ]
    body = "\n".join('<tr><th scope="row">%s</th><td class="id">%s</td></tr>' % (
        _e(label), value) for label, value in facts)
    return '<section id="about">\n<h2>What was compared</h2>\n%s\n</section>\n' % _table(
        "facts", body)


# Each "Held?" state's class and mark (the words are view.held_text's).
HELD_CELLS = {HELD: ("held", "\u2713"), FAILED: ("failed", "\u2717"),
              NOT_JUDGED: ("unjudged", "?")}


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
            '</tr>' % (' class="failed-row"' if gate_key is not None and failed.get(gate_key) == FAILED
                       else "", _e(label),
                       _e(baseline), _e(candidate), _e(gate), _held_cell(gate_key, failed)))


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
                _e(show_gate(gates[TASK_GATE.key])),
                _table("metrics", "\n".join(lines))))


def _bootstrap(evaluation: Evaluation, gates: JSONObject) -> str:
    document = evaluation.lazy_document
    comparison = document["comparison"]
    distribution = evaluation.bootstrap_distribution or []
    low, high = comparison["paired_bootstrap_interval"]
    gate = float(gates[PAIRED_INTERVAL_GATE.key])
    delta = comparison["paired_task_success_delta"]
    task_count = len(document["candidate_metrics"]["task_results"])
    # The resampled means lie on a lattice (multiples of 1/n for n tasks): each bar is centred
    # on the values it counts, so the bar of a zero difference straddles 0.
    bars, cell, lattice = charts.support_bins(distribution, BOOTSTRAP_BARS,
                                                  Fraction(1, max(task_count, 1)))
    half_cell = float(cell) / 2
    if bars:
        data_low, data_high = float(bars[0][0]), float(bars[-1][1])
    else:
        data_low, data_high = low - half_cell, high + half_cell
    data_low = min(data_low, float(delta) - half_cell, low - half_cell)
    data_high = max(data_high, float(delta) + half_cell, high + half_cell)
    axis_low, axis_high, gate_on_axis = report_svg.axis_around(data_low, data_high, gate)
    pad = (axis_high - axis_low) * 0.03
    markers = [
        report_svg.Marker(gate, "gate %s %s" % (PAIRED_INTERVAL_GATE.key, show_gate(
            gates[PAIRED_INTERVAL_GATE.key])), "gate", bold=True),
        report_svg.Marker(low, "interval low %s" % show(low), "bound"),
        report_svg.Marker(high, "interval high %s" % show(high), "bound"),
        report_svg.Marker(delta, "observed delta %s" % show(delta), "observed"),
    ]
    title = ("Paired bootstrap: %s resampled mean differences (unit: %s, seed %s)" % (
        comparison["samples"], comparison.get("bootstrap_unit", "task"), comparison["seed"]))
    svg = charts.histogram(
        title, bars, (axis_low - pad, axis_high + pad), markers,
        band=(low - half_cell, high + half_cell),
        x_label="mean task success difference, candidate - baseline", unit=" samples")
    gate_words = ("the dashed red line is the gate its low end must reach" if gate_on_axis
                  else "the gate its low end must reach (%s) lies far from every resampled "
                       "mean: an arrow at the edge points to it" % _e(show(gate)))
    per_bar = round(float(bars[0][1] - bars[0][0]) / float(cell)) if bars else 1
    if not lattice:
        bar_words = "Each bar counts the differences within its width"
    elif per_bar == 1:
        bar_words = ("The differences are %s apart; each bar is centred on one of them"
                     % _e(show(cell)))
    else:
        bar_words = ("The differences are %s apart; each bar is centred on the middle one of "
                     "the %d it counts" % (_e(show(cell)), per_bar))
    return ('<section id="bootstrap">\n<h2>Paired bootstrap distribution</h2>\n<p class="note">'
            '%s. %s; the shaded band is the %s%% interval; %s.</p>\n%s\n</section>\n' % (
                _e(title), bar_words, _e(show(comparison["confidence"] * 100)), gate_words,
                _chart(svg)))


def _reference_latency(values: Sequence[float], p95: float) -> float:
    """The latency the axis is scaled to: the p95, or, when the p95 is the slowest trial
    itself (20 trials or fewer), the second slowest, so one outlier never sets the scale."""
    if len(values) > 1 and nearest_rank_index(P95, len(values)) == len(values) - 1:
        return float(heapq.nlargest(2, values)[1])
    return float(p95)


def latency_axis(value_lists: Sequence[Sequence[float]],
                 p95_values: Sequence[float]) -> Tuple[float, float, bool]:
    """(low, high, clipped) of the latency axis shared by both systems: from 0 (or from the
    fastest trial, when starting at 0 would cost more than a quarter of the width) to the
    slowest trial, or, when the slowest lie more than :data:`LATENCY_AXIS_P95_SPAN` times
    the reference latency's distance from the fastest (:func:`_reference_latency`), to that
    distance (``clipped``: the trials beyond are counted off scale). Finite for any finite
    latencies."""
    smallest = min(min(values) for values in value_lists if values)
    largest = max(max(values) for values in value_lists if values)
    reference = max(_reference_latency(values, p95)
                    for values, p95 in zip(value_lists, p95_values) if values)
    limit = smallest + LATENCY_AXIS_P95_SPAN * (reference - smallest)
    clipped = math.isfinite(limit) and smallest < limit < largest
    high = limit if clipped else float(largest)
    low = 0.0 if smallest <= (high - smallest) / 3 else float(smallest)
    if not high > low:
        low, high = 0.0, high if high > 0 else 1.0
    return low, high, clipped


def _latency(document: JSONObject, gates: JSONObject) -> str:
    gate = float(gates[P95_LATENCY_GATE.key])
    systems = [("Baseline", document["baseline_metrics"]),
               ("Candidate", document["candidate_metrics"])]
    # An unmeasured latency (a results v3 null) is no point of the chart; the title counts it.
    values = [[value for value in latencies(metrics) if value is not None]
              for _name, metrics in systems]
    if not any(values):
        return ""
    low, high, clipped = latency_axis(values, [
        metrics["p95_latency_ms"] if metrics["p95_latency_ms"] is not None else
        (max(found) if found else 0) for (_name, metrics), found in zip(systems, values)])
    axis_low, axis_high, gate_on_axis = report_svg.axis_around(low, high, gate)
    binned = [charts.even_bins(found, low, high, HISTOGRAM_BINS) for found in values]
    parts = ['<section id="latency">\n<h2>Latency per trial</h2>\n<p class="note">%s; the '
             'solid line is each system\'s observed p95.%s</p>' % (
                 "The dashed red line is the gate %s %s (it judges the candidate)" % (
                     P95_LATENCY_GATE.key, _e(show_gate(gates[P95_LATENCY_GATE.key])))
                 if gate_on_axis else "The gate %s %s lies far beyond the trials: an arrow at "
                 "the edge points to it" % (P95_LATENCY_GATE.key,
                                            _e(show_gate(gates[P95_LATENCY_GATE.key]))),
                 " The axis ends at %s ms, %s times the p95's distance from the fastest trial "
                 "(the second slowest trial's, with 20 trials or fewer); the slower trials are "
                 "counted in the last bar, right of the axis." % (
                     _e(report_svg.group_digits(high)), LATENCY_AXIS_P95_SPAN)
                 if clipped else "")]
    for (name, metrics), found, (bars, above) in zip(systems, values, binned):
        markers = [
            report_svg.Marker(gate, "gate %s %s" % (P95_LATENCY_GATE.key, show_gate(
                gates[P95_LATENCY_GATE.key])), "gate", bold=True),
        ]
        if metrics["p95_latency_ms"] is not None:
            markers.append(report_svg.Marker(metrics["p95_latency_ms"], "%s p95 %s ms" % (
                name.lower(), show(metrics["p95_latency_ms"])), "observed"))
        off_scale = None
        if clipped:
            off_scale = (above, "%d trial%s above %s ms%s" % (
                above, "" if above == 1 else "s", report_svg.group_digits(high),
                ", the slowest %s ms" % show(max(found)) if above else ""))
        unmeasured = metrics["trial_count"] - len(found)
        title = "%s %s: %d trials, mean %s ms%s" % (
            name, clean(metrics.get("system_id", "")), metrics["trial_count"],
            show(metrics["mean_latency_ms"]),
            " (%d unmeasured, not drawn)" % unmeasured if unmeasured else "")
        parts.append("<h3>%s</h3>\n%s" % (_e(title), _chart(charts.histogram(
            title, bars, (axis_low, axis_high), markers, x_label="latency (ms)",
            plot_height=110, off_scale=off_scale, unit=" trials"))))
    parts.append("</section>\n")
    return "\n".join(parts)


def _slices(document: JSONObject) -> str:
    all_slices = slices(document)
    shown, rest = counted(all_slices, MAX_SLICES)
    rows = [(name, None if baseline is None else baseline["task_success_rate"],
             None if candidate is None else candidate["task_success_rate"])
            for name, baseline, candidate in shown]
    gap = document["candidate_metrics"]["slice_task_success_gap"]
    cut = ('<p class="cut">%d more slices not shown.</p>' % rest) if rest else ""
    return ('<section id="slices">\n<h2>Task success by slice</h2>\n<p class="note">Grey: '
            'baseline; blue: candidate. The candidate\'s gap between its best and worst slice '
            'is %s.</p>\n%s\n%s</section>\n' % (
                _e(show(gap)), _chart(charts.paired_bars("Task success rate by slice", rows)),
                cut))


def _trial_cell(trial: TrialView, system: str) -> str:
    """A trial's cell; ``data-label`` names it (``candidate trial 3``) in a narrow window,
    where a row is a card of its failing cells (the passing ones are hidden)."""
    if trial.passed:
        return '<td class="ok" title="trial %d passed">\u2713</td>' % trial.trial_id
    labels = trial.failure_labels()
    return '<td class="bad" data-label="%s trial %d" title="trial %d failed: %s">%s</td>' % (
        system, trial.trial_id, trial.trial_id, _e(", ".join(trial.failed_checks)),
        "<br>".join(_e(label) for label in labels))


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
    return '<td class="%s" data-label="%s task">%s</td>' % (css, system, _e(text))


def _grid(document: JSONObject, rows: Sequence[TaskRow]) -> str:
    trials = max([row.candidate.trial_count for row in rows]
                 + [row.baseline.trial_count for row in rows] + [1])
    limit = min(MAX_GRID_ROWS, max(MAX_GRID_CELLS // (2 * trials), 50))
    shown, rest = counted(problems_first(rows), limit)
    head = "".join("<th>%d</th>" % number for number in range(1, trials + 1))
    # The candidate's columns first: the gates judge it, and a narrow window shows them
    # beside the task without scrolling.
    lines = ['<thead><tr><th rowspan="2">Task</th><th colspan="%d">Candidate %s: trials</th>'
             '<th rowspan="2">Candidate task</th><th colspan="%d">Baseline %s: trials</th>'
             '<th rowspan="2">Baseline task</th><th rowspan="2">Slice</th></tr>\n<tr>%s%s</tr>'
             '</thead>\n<tbody>' % (trials, _id(document["candidate_system"], 60), trials,
                                    _id(document["baseline_system"], 60), head, head)]
    for row in shown:
        cells = ['<td><span class="id">%s</span>%s</td>' % (
            _id(row.case_id, 120), '<span class="badge">CRITICAL</span>' if row.critical else "")]
        for system, system_task in (("candidate", row.candidate), ("baseline", row.baseline)):
            cells.extend(_trial_cell(trial, system) for trial in system_task.trials)
            cells.append('<td></td>' * (trials - len(system_task.trials)))
            cells.append(_task_cell(system_task, system))
        cells.append('<td data-label="slice">%s</td>' % _id(row.slice, 60))
        lines.append('<tr%s>%s</tr>' % (' class="critical"' if row.critical else "",
                                        "".join(cells)))
    lines.append("</tbody>")
    parts = ['<section id="tasks">\n<h2>Tasks and trials</h2>',
             '<p class="note">One row per test task, the candidate\'s trials first: tasks the '
             'candidate fails come first (critical ones leading), then tasks only the baseline '
             'fails, then the rest. A '
             'failed cell names its failing checks: the status (timeout, error, unknown), '
             '<em>wrong final state</em>, <em>forbidden side effect</em> or <em>unapproved '
             'tool</em>. <span class="badge">CRITICAL</span> marks a critical task. In a '
             'narrow window each task is a card of its failing trials and both verdicts.</p>',
             _table("grid", "\n".join(lines))]
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
                                _e(kind), _id(item["file"]), _e(show(item["bytes"])),
                                _digest(item["sha256"])))
        body.append("</tbody>")
        lines.append(_table("inputs", "\n".join(body)))
    lines.append("<ul>\n%s\n</ul>" % "\n".join(
        "<li>%s</li>" % _e(text, 2000) for text in document.get("limitations", ())))
    lines.append("</section>\n")
    return "\n".join(lines)
