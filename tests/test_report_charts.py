"""The HTML report's SVG charts, checked from the coordinates they are written with.

No browser: each chart is parsed with ``xml.etree`` and its geometry read from its attributes.
A text's box is its anchor point, its anchor and a width estimated on the wide side (at least
0.6 em a character, as the chart module's own estimate must be), eleven pixels high, nine of
them above the baseline.
"""

import math
import re
import unittest
import xml.etree.ElementTree as ElementTree
from fractions import Fraction

from proagents_bench.reports import html as report_html
from proagents_bench.reports import html_charts
from proagents_bench.reports import charts as report_charts
from proagents_bench.reports import svg
from devtools import synthetic
from tests.support import evaluate_arguments, evaluate_package, example_package
from tests.test_reports import SCENARIOS

SVG = "{http://www.w3.org/2000/svg}"
FONT = 11
ABOVE, BELOW = 9, 3  # a text's extent around its baseline, in pixels


def charts(page, width="wide"):
    """The charts of an HTML page drawn ``width`` wide (each chart is drawn twice, "wide"
    and "narrow"; None: both): {section id: [svg elements]}."""
    found = {}
    for section, body in re.findall(r'<section id="([^"]+)">(.*?)</section>', page, re.S):
        found[section] = [chart for chart in (ElementTree.fromstring(text) for text in
                                              re.findall(r"<svg .*?</svg>", body, re.S))
                          if width is None or width in chart.get("class").split()]
    return found


def render(evaluation, width="wide"):
    return charts(report_html.render(evaluation).decode("utf-8"), width)


def own_text(element):
    """A text element's own characters (a <title> inside it is its tooltip, not drawn)."""
    return (element.text or "") + "".join(child.tail or "" for child in element)


class Box:
    def __init__(self, element):
        self.text = own_text(element)
        self.kind = element.get("class", "")
        bold = "gate" in self.kind.split() and "marker-label" in self.kind
        width = svg.text_width(self.text, bold=bold)
        x = float(element.get("x"))
        anchor = element.get("text-anchor", "start")
        self.left = {"start": x, "middle": x - width / 2, "end": x - width}[anchor]
        self.right = self.left + width
        baseline = float(element.get("y"))
        self.top, self.bottom = baseline - ABOVE, baseline + BELOW

    def overlaps(self, other):
        return (self.left < other.right and other.left < self.right
                and self.top < other.bottom and other.top < self.bottom)

    def __repr__(self):
        return "%r [%.1f, %.1f] x [%.1f, %.1f]" % (self.text, self.left, self.right, self.top,
                                                   self.bottom)


def boxes(chart, kinds=None):
    found = [Box(element) for element in chart.iter(SVG + "text")]
    if kinds:
        found = [box for box in found if set(box.kind.split()) & set(kinds)]
    return found


def view_box(chart):
    _x, _y, width, height = (float(part) for part in chart.get("viewBox").split())
    return width, height


def rects(chart, html_class):
    return [element for element in chart.iter(SVG + "rect")
            if html_class in element.get("class", "").split()]


def lines(chart, html_class):
    return [element for element in chart.iter(SVG + "line")
            if html_class in element.get("class", "").split()]


def data_to_x(chart):
    """The map from a data value to x, read from two tick labels and their positions."""
    ticks = [(float(own_text(element).replace(",", "")), float(element.get("x")))
             for element in chart.iter(SVG + "text")
             if element.get("class") == "tick-label"]
    (v0, x0), (v1, x1) = ticks[0], ticks[-1]
    scale = (x1 - x0) / (v1 - v0)
    return lambda value: x0 + (float(value) - v0) * scale


def axis_values(chart):
    """The data values at the two ends of the axis line."""
    to_x = data_to_x(chart)
    (axis,) = lines(chart, "axis")
    zero, one = to_x(0.0), to_x(1.0)
    return [(float(axis.get(name)) - zero) / (one - zero) for name in ("x1", "x2")]


class ChartAssertions(unittest.TestCase):
    def assert_texts_apart_and_inside(self, chart):
        width, height = view_box(chart)
        found = boxes(chart)
        for box in found:
            self.assertGreaterEqual(box.left, 0, box)
            self.assertLessEqual(box.right, width, box)
            self.assertGreaterEqual(box.top, 0, box)
            self.assertLessEqual(box.bottom, height, box)
        for index, box in enumerate(found):
            for other in found[index + 1:]:
                self.assertFalse(box.overlaps(other), (box, other))


def example_variant(test, edit):
    spec, cases, results = example_package()
    edit(spec, cases, results)
    return evaluate_package(test, spec, cases, results)


class TextWidthTests(unittest.TestCase):
    def test_the_estimate_is_on_the_wide_side(self):
        # Measured in DejaVu Sans 11px (the widest of the fonts the stylesheet names), the
        # labels' characters are at most 0.64 em (digits); capitals and m, w up to 1 em.
        for text in ("0123456789", "gate min_paired_delta_ci_low 0.0", "1,000,000"):
            self.assertGreaterEqual(svg.text_width(text), 0.636 * FONT * len(text), text)
        self.assertGreaterEqual(svg.text_width("MWmw@%"), 0.99 * FONT * 6)
        self.assertGreaterEqual(svg.text_width("\u6f22\u5b57"), 1.0 * FONT * 2)
        self.assertGreater(svg.text_width("0123", bold=True), svg.text_width("0123"))


class MarkerLabelTests(ChartAssertions):
    def test_no_text_overlaps_or_leaves_a_chart_in_any_scenario(self):
        for action, args in SCENARIOS.items():
            for section, found in render(evaluate_arguments(args), None).items():
                for chart in found:
                    with self.subTest(action=action, section=section,
                                      width=chart.get("class")):
                        self.assert_texts_apart_and_inside(chart)

    def test_every_chart_is_drawn_wide_and_narrow(self):
        for section, found in render(evaluate_arguments(SCENARIOS["BLOCK"]), None).items():
            with self.subTest(section=section):
                self.assertEqual([view_box(chart)[0] for chart in found],
                                 [svg.WIDTH, svg.NARROW_WIDTH] * (len(found) // 2))

    def test_crowded_markers_are_staggered(self):
        long = "gate min_paired_delta_ci_low -0.123456 with a long name"
        for x in (0.0, 0.001, 0.5, 0.999, 1.0, -5.0, 7.0):
            markers = [svg.Marker(x, long, "gate", bold=True),
                       svg.Marker(x, "interval low %s" % x, "bound"),
                       svg.Marker(x + 0.01, "interval high %s" % x, "bound"),
                       svg.Marker(x - 0.01, "observed delta %s" % x, "observed"),
                       svg.Marker(0.5, "a marker in the middle", "observed"),
                       svg.Marker(0.51, "another marker in the middle", "observed")]
            chart = ElementTree.fromstring(report_charts.histogram(
                "t", [(0.0, 0.5, 3), (0.5, 1.0, 4)], (0.0, 1.0), markers, x_label="x"))
            with self.subTest(x=x):
                self.assert_texts_apart_and_inside(chart)
                labels = boxes(chart, ["marker-label"])
                self.assertEqual(len(labels), len(markers))
                self.assertGreater(len({box.bottom for box in labels}), 1)  # staggered

    def test_a_label_is_not_crossed_by_a_line_from_a_label_above(self):
        markers = [svg.Marker(0.5, "first", "gate"), svg.Marker(0.45, "a wide second label",
                                                                "bound")]
        chart = ElementTree.fromstring(report_charts.histogram("t", [(0.0, 1.0, 1)], (0.0, 1.0),
                                                     markers))
        marker_lines = lines(chart, "marker")
        labels = boxes(chart, ["marker-label"])
        for line, label in zip(marker_lines, labels):
            start = float(line.get("y1"))
            for other in labels:
                crossed = other.left <= float(line.get("x1")) <= other.right
                if other is not label and crossed:
                    self.assertLess(other.bottom, start + 1, (line.attrib, other))


class BootstrapChartTests(ChartAssertions):
    def bootstrap(self, evaluation):
        (chart,) = render(evaluation)["bootstrap"]
        return chart

    def test_bars_are_centred_on_the_resampled_means(self):
        evaluation = evaluate_arguments(SCENARIOS["BLOCK"])
        chart = self.bootstrap(evaluation)
        to_x = data_to_x(chart)
        bars = [(float(bar.get("x")), float(bar.get("x")) + float(bar.get("width")))
                for bar in rects(chart, "bar")]
        for mean, _count in evaluation.bootstrap_distribution:
            x = to_x(mean)
            holding = [(left, right) for left, right in bars if left - 1 <= x <= right + 1]
            self.assertEqual(len(holding), 1, (float(mean), holding))
            left, right = holding[0]
            self.assertAlmostEqual((left + right) / 2, x, delta=1.0)  # centred, not at an edge
            self.assertGreater(min(x - left, right - x), (right - left) / 3)

    def test_the_zero_bar_straddles_zero_inside_the_band_and_the_gate(self):
        evaluation = evaluate_arguments(SCENARIOS["PASS"])  # interval [0, 0.8], gate 0.0
        chart = self.bootstrap(evaluation)
        zero = data_to_x(chart)(0.0)
        (band,) = rects(chart, "band")
        band_left = float(band.get("x"))
        band_right = band_left + float(band.get("width"))
        (zero_bar,) = [bar for bar in rects(chart, "bar")
                       if float(bar.get("x")) < zero < float(bar.get("x")) + float(
                           bar.get("width"))]
        self.assertGreaterEqual(float(zero_bar.get("x")), band_left - 1)
        self.assertLessEqual(float(zero_bar.get("x")) + float(zero_bar.get("width")),
                             band_right + 1)
        (gate,) = lines(chart, "gate")
        self.assertAlmostEqual(float(gate.get("x1")), zero, delta=1.0)

    def test_a_far_gate_is_an_off_scale_arrow_and_the_data_fill_the_axis(self):
        spec, cases, results = synthetic.make_package(300, trial_count=2, samples=500,
                                                      baseline_skill=0.4, candidate_skill=0.6)
        spec["gates"]["min_paired_delta_ci_low"] = -0.9
        evaluation = evaluate_package(self, spec, cases, results)
        chart = self.bootstrap(evaluation)
        (gate,) = lines(chart, "gate")
        self.assertIn("off-scale", gate.get("class"))
        low, high = axis_values(chart)
        self.assertGreater(low, -0.9)
        to_x = data_to_x(chart)
        bars = rects(chart, "bar")
        covered = (float(bars[-1].get("x")) + float(bars[-1].get("width"))
                   - float(bars[0].get("x")))
        self.assertGreater(covered, 0.5 * (to_x(high) - to_x(low)))
        (label,) = [box for box in boxes(chart, ["marker-label"]) if "gate" in box.kind]
        self.assertIn("-0.9 (off scale)", label.text)
        self.assert_texts_apart_and_inside(chart)

    def test_a_near_gate_stays_on_the_axis(self):
        chart = self.bootstrap(evaluate_arguments(SCENARIOS["BLOCK"]))
        (gate,) = lines(chart, "gate")
        self.assertNotIn("off-scale", gate.get("class"))
        low, high = axis_values(chart)
        self.assertLess(low, 0.0)
        self.assertGreater(high, 0.0)


class LatencyChartTests(ChartAssertions):
    def latency(self, evaluation):
        return render(evaluation)["latency"]

    def test_one_huge_outlier_does_not_squeeze_the_rest(self):
        def edit(spec, cases, results):
            results["systems"][1]["records"][0]["latency_ms"] = 1e15
        evaluation = example_variant(self, edit)
        baseline, candidate = self.latency(evaluation)
        for chart in (baseline, candidate):
            filled = [bar for bar in rects(chart, "bar")
                      if "off-scale" not in bar.get("class") and float(bar.get("height")) > 0]
            self.assertGreaterEqual(len(filled), 5)  # not one bar for everything
            self.assert_texts_apart_and_inside(chart)
        (off_scale,) = rects(candidate, "off-scale")
        self.assertIn("1 trial above", off_scale.find(SVG + "title").text)
        self.assertIn("1e+15", off_scale.find(SVG + "title").text)
        self.assertEqual(float(rects(baseline, "off-scale")[0].get("height")), 0)
        # Both systems share one axis.
        self.assertEqual([own_text(text) for text in baseline.iter(SVG + "text")
                          if text.get("class") == "tick-label"],
                         [own_text(text) for text in candidate.iter(SVG + "text")
                          if text.get("class") == "tick-label"])

    def test_tick_labels_have_thousands_separators(self):
        def edit(spec, cases, results):
            for system in results["systems"]:
                for index, record in enumerate(system["records"]):
                    record["latency_ms"] = 10000 + 1000 * index
            spec["gates"]["max_p95_latency_ms"] = 30000
            spec["gates"]["max_mean_latency_ms"] = 30000
        (chart, _candidate) = self.latency(example_variant(self, edit))
        ticks = [own_text(text) for text in chart.iter(SVG + "text")
                 if text.get("class") == "tick-label"]
        self.assertTrue(any(re.fullmatch(r"\d{1,3}(,\d{3})+", tick) for tick in ticks), ticks)
        self.assert_texts_apart_and_inside(chart)

    def test_a_gate_far_beyond_the_trials_is_off_scale(self):
        def edit(spec, cases, results):
            spec["gates"]["max_p95_latency_ms"] = 10 ** 9
        (chart, _candidate) = self.latency(example_variant(self, edit))
        (gate,) = lines(chart, "gate")
        self.assertIn("off-scale", gate.get("class"))
        self.assertLess(axis_values(chart)[1], 10000)
        self.assert_texts_apart_and_inside(chart)

    def test_every_trial_is_counted_once(self):
        def edit(spec, cases, results):
            results["systems"][1]["records"][3]["latency_ms"] = 1e9
        evaluation = example_variant(self, edit)
        for chart, metrics in zip(self.latency(evaluation),
                                  ("baseline_metrics", "candidate_metrics")):
            total = sum(int(bar.find(SVG + "title").text.split(": ")[1].split()[0].replace(
                ",", "")) for bar in rects(chart, "bar") if "off-scale" not in bar.get("class"))
            total += sum(int(bar.find(SVG + "title").text.split()[0])
                         for bar in rects(chart, "off-scale"))
            self.assertEqual(total, evaluation.document[metrics]["trial_count"])


class SliceChartTests(ChartAssertions):
    def test_long_names_and_values_stay_inside_the_chart(self):
        def edit(spec, cases, results):
            for index, case in enumerate(cases["cases"]):
                case["slice"] = ("W" * 150 if index % 2 else "slice-" + "x" * 300) + str(
                    index % 3)
        wide, narrow = render(example_variant(self, edit), None)["slices"]
        for chart in (wide, narrow):
            self.assert_texts_apart_and_inside(chart)
            names = [element for element in chart.iter(SVG + "text")
                     if element.get("class") == "bar-name"]
            self.assertTrue(names)
            for name in names:
                self.assertTrue(own_text(name).endswith("\u2026"))
                self.assertGreater(len(name.find(SVG + "title").text), 150)  # the whole name
        inside = [box for box in boxes(wide) if "inside" in box.kind]
        self.assertTrue(inside)  # a full bar's value is written inside it
        # The narrow chart writes the values alone, the bars' colours telling the systems.
        values = [box.text for box in boxes(narrow) if "bar-value" in box.kind]
        self.assertTrue(values)
        self.assertFalse([text for text in values if "candidate" in text or "baseline" in text])


class TickLabelTests(ChartAssertions):
    def test_long_tick_labels_are_thinned_never_overlapped(self):
        for high in (5.5e14, 9.9e14, 123456.0, 1.0):
            with self.subTest(high=high):
                chart = ElementTree.fromstring(report_charts.histogram(
                    "t", [(0.0, high, 1)], (0.0, high), off_scale=(1, "x")))
                self.assert_texts_apart_and_inside(chart)
                ticks = [box for box in boxes(chart) if box.kind == "tick-label"]
                self.assertGreaterEqual(len(ticks), 2)


class ExtremeValueTests(ChartAssertions):
    """Every chart ends, and draws finite coordinates, for any finite input."""

    def assert_finite(self, text):
        chart = ElementTree.fromstring(text)
        for element in chart.iter():
            for name in ("x", "y", "width", "height", "x1", "x2", "y1", "y2"):
                if element.get(name) is not None:
                    self.assertTrue(math.isfinite(float(element.get(name))), element.attrib)
        self.assertNotIn("inf", text.replace("information", ""))
        self.assertNotIn("nan", text)
        return chart

    def test_latencies_near_the_largest_double(self):
        largest = 1.7976931348623157e308
        values = [0.0, 1e-300, 1.0, 1e300, 1.7e308, largest]
        low, high, _clipped = html_charts.latency_axis([values, values], [1.7e308, 1e300])
        bars, above = report_charts.even_bins(values, low, high, 40)
        self.assertEqual(sum(count for _l, _r, count in bars) + above, len(values))
        markers = [svg.Marker(largest, "gate max_p95_latency_ms %r" % largest, "gate", True),
                   svg.Marker(0.0, "p95 0", "observed")]
        chart = self.assert_finite(report_charts.histogram("t", bars, (low, high), markers,
                                                 off_scale=(above, "x")))
        self.assert_texts_apart_and_inside(chart)

    def test_tiny_spans_and_single_values(self):
        for low, high in ((0.0, 5e-324), (1e15, 1e15 + 1), (0.0, 1.0), (-1.0, -1.0)):
            with self.subTest(low=low, high=high):
                ticks = svg.nice_ticks(low, high)
                self.assertLessEqual(len(ticks), 8)
                labels = svg.tick_labels(ticks)
                self.assertEqual(len(labels), len(ticks))
                bars, _above = report_charts.even_bins([low, high], low, high, 40)
                self.assert_finite(report_charts.histogram("t", bars,
                                                           (low, max(high, low + 1e-300))))

    def test_support_without_a_lattice_is_binned_evenly(self):
        distribution = [(Fraction(index, 10 ** 12 + index), 1) for index in range(1, 500)]
        bars, cell, lattice = report_charts.support_bins(distribution, 50, Fraction(1, 10))
        self.assertFalse(lattice)
        self.assertLessEqual(len(bars), 51)
        self.assertEqual(sum(count for _l, _r, count in bars), 499)

    def test_one_resampled_value_gets_one_bar_of_the_fallback_width(self):
        bars, cell, lattice = report_charts.support_bins([(Fraction(0), 100)], 50, Fraction(1, 8))
        self.assertEqual(bars, [(Fraction(-1, 16), Fraction(1, 16), 100)])
        self.assertTrue(lattice)

    def test_many_lattice_points_are_grouped_in_odd_numbers(self):
        # 500 points at most 50 bars: 10 a bar would put values on edges; 11 do not.
        distribution = [(Fraction(index, 1000), 1) for index in range(-250, 250)]
        bars, cell, _lattice = report_charts.support_bins(distribution, 50, Fraction(1, 1000))
        self.assertEqual(cell, Fraction(1, 1000))
        group = (bars[0][1] - bars[0][0]) / cell
        self.assertEqual(group % 2, 1)
        self.assertLessEqual(len(bars), 51)
        for value, _count in distribution:  # no value on an edge
            self.assertNotIn(value, {edge for bar in bars for edge in bar[:2]})
        (zero_bar,) = [bar for bar in bars if bar[0] < 0 < bar[1]]
        self.assertEqual(zero_bar[0], -zero_bar[1])  # centred on 0


if __name__ == "__main__":
    unittest.main()
