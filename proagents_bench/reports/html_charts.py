"""The HTML report's sections drawn as charts (:mod:`.charts`): the paired bootstrap
distribution with its interval and the ``min_paired_delta_ci_low`` gate, the latency
distributions with the p95 gate, the per-slice success bars, and a sequential design's path
against its boundary (:mod:`.sequential_chart`)."""

from __future__ import annotations

import heapq
import math
from fractions import Fraction
from typing import TYPE_CHECKING, Optional, Sequence, Tuple

from ..contract.gates import P95_LATENCY_GATE, PAIRED_INTERVAL_GATE
from ..stats.quantiles import nearest_rank_index
from . import charts, sequential_chart
from . import svg as report_svg
from .html_parts import escaped, scrolling_chart
from .sequential_view import MAX_NEXT_IDS, sequential_view
from .view import latencies, slices
from .words import clean, counted, show, show_gate

if TYPE_CHECKING:  # for annotations only
    from ..jsonio import JSONObject
    from ..pipeline import Evaluation

MAX_SLICES = 60
HISTOGRAM_BINS = 40
BOOTSTRAP_BARS = 50
# The latency axis ends at most this many times the p95's distance from the fastest trial
# (then the slower trials are counted off scale), so that one outlier cannot squeeze every
# other trial into the first bar: at least 95% of each system's trials stay on the axis.
LATENCY_AXIS_P95_SPAN = 4
P95 = Fraction(95, 100)


def bootstrap_section(evaluation: Evaluation, gates: JSONObject) -> str:
    """The paired bootstrap's resampled mean differences as a histogram, with the interval
    shaded, its ends, the observed difference and the gate its low end must reach."""
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
    chart = scrolling_chart(lambda width: charts.histogram(
        title, bars, (axis_low - pad, axis_high + pad), markers,
        band=(low - half_cell, high + half_cell),
        x_label="mean task success difference, candidate - baseline", unit=" samples",
        width=width))
    gate_words = ("the dashed red line is the gate its low end must reach" if gate_on_axis
                  else "the gate its low end must reach (%s) lies far from every resampled "
                       "mean: an arrow at the edge points to it" % escaped(show(gate)))
    per_bar = round(float(bars[0][1] - bars[0][0]) / float(cell)) if bars else 1
    if not lattice:
        bar_words = "Each bar counts the differences within its width"
    elif per_bar == 1:
        bar_words = ("The differences are %s apart; each bar is centred on one of them"
                     % escaped(show(cell)))
    else:
        bar_words = ("The differences are %s apart; each bar is centred on the middle one of "
                     "the %d it counts" % (escaped(show(cell)), per_bar))
    return ('<section id="bootstrap">\n<h2>Paired bootstrap distribution</h2>\n<p class="note">'
            '%s. %s; the shaded band is the %s%% interval; %s.</p>\n%s\n</section>\n' % (
                escaped(title), bar_words, escaped(show(comparison["confidence"] * 100)),
                gate_words, chart))


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


def latency_section(document: JSONObject, gates: JSONObject) -> str:
    """Each system's trial latencies as a histogram on one shared axis, with its p95 and the
    p95 gate; nothing when no latency was measured."""
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
                     P95_LATENCY_GATE.key, escaped(show_gate(gates[P95_LATENCY_GATE.key])))
                 if gate_on_axis else "The gate %s %s lies far beyond the trials: an arrow at "
                 "the edge points to it" % (P95_LATENCY_GATE.key,
                                            escaped(show_gate(gates[P95_LATENCY_GATE.key]))),
                 " The axis ends at %s ms, %s times the p95's distance from the fastest trial "
                 "(the second slowest trial's, with 20 trials or fewer); the slower trials are "
                 "counted in the last bar, right of the axis." % (
                     escaped(report_svg.group_digits(high)), LATENCY_AXIS_P95_SPAN)
                 if clipped else "")]
    for (name, metrics), found, (bars, above) in zip(systems, values, binned):
        markers = [
            report_svg.Marker(gate, "gate %s %s" % (P95_LATENCY_GATE.key, show_gate(
                gates[P95_LATENCY_GATE.key])), "gate", bold=True),
        ]
        if metrics["p95_latency_ms"] is not None:
            markers.append(report_svg.Marker(metrics["p95_latency_ms"], "%s p95 %s ms" % (
                name.lower(), show(metrics["p95_latency_ms"])), "observed"))
        off_scale: Optional[Tuple[int, str]] = None
        if clipped:
            off_scale = (above, "%d trial%s above %s ms%s" % (
                above, "" if above == 1 else "s", report_svg.group_digits(high),
                ", the slowest %s ms" % show(max(found)) if above else ""))
        unmeasured = metrics["trial_count"] - len(found)
        title = "%s %s: %d trials, mean %s ms%s" % (
            name, clean(metrics.get("system_id", "")), metrics["trial_count"],
            show(metrics["mean_latency_ms"]),
            " (%d unmeasured, not drawn)" % unmeasured if unmeasured else "")
        parts.append("<h3>%s</h3>\n%s" % (escaped(title), scrolling_chart(
            lambda width: charts.histogram(title, bars, (axis_low, axis_high), markers,
                                           x_label="latency (ms)", plot_height=110,
                                           off_scale=off_scale, unit=" trials",
                                           width=width))))  # drawn here, at once
    parts.append("</section>\n")
    return "\n".join(parts)


def slices_section(document: JSONObject) -> str:
    """Each slice's task success rate, baseline beside candidate."""
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
                escaped(show(gap)),
                scrolling_chart(lambda width: charts.paired_bars(
                    "Task success rate by slice", rows, width=width)), cut))


def sequential_section(evaluation: Evaluation) -> str:
    """A look of a sequential design: where the evidence stands, the chart of the path
    against the boundary, the looks so far and the next batch ("" for a fixed design)."""
    view = sequential_view(evaluation)
    if view is None:
        return ""
    rows = "\n".join(
        "<tr><td class=\"num\">%d</td><td class=\"num\">%d x %d</td><td class=\"num\">%d</td>"
        "<td class=\"num\">%d</td><td class=\"num\">%d</td><td class=\"num\">%s</td>"
        "<td class=\"num\">%s</td></tr>" % (
            row.look, row.tasks, row.trials, row.units, row.discordant, row.wins,
            "-" if row.pass_at is None else row.pass_at,
            "-" if row.futile_at is None else row.futile_at) for row in view.rows)
    batch = view.next_batch()
    next_words = ""
    if batch is not None:
        ids = view.next_case_ids()
        next_words = "<p><strong>Next batch</strong>: %s%s.</p>\n" % (escaped(batch), (
            "; its tasks: %s" % ", ".join('<span class="id">%s</span>' % escaped(case_id, 80)
                                         for case_id in ids[:MAX_NEXT_IDS])
            + (" and %d more (sequential.next_batch in the JSON document)" % (
                len(ids) - MAX_NEXT_IDS) if len(ids) > MAX_NEXT_IDS else "")) if ids else "")
    return ('<section id="sequential">\n<h2>Sequential design: %s</h2>\n<p>%s. Evidence: %s.'
            '</p>\n<p class="note">%s. The path is walked in the frozen order at every look; '
            'the first boundary it crosses decides.</p>\n%s\n%s<div class="scroll"><table '
            'class="looks"><thead><tr><th>look</th><th>tasks x trials</th><th>units</th><th>'
            'discordant</th><th>won by the candidate</th><th>passes at</th><th>stops at</th>'
            '</tr></thead><tbody>\n%s\n</tbody></table></div>\n</section>\n' % (
                escaped(view.heading()), escaped(view.state_sentence()),
                escaped(view.standing()), escaped(view.guarantee()),
                scrolling_chart(lambda width: sequential_chart.chart(view, width)), next_words,
                rows))
