"""Inline SVG charts for the HTML report: histograms with marked values, and paired bars.

Plain SVG elements only (``rect``, ``line``, ``polygon``, ``text``), styled by the report's
stylesheet through class names, so the charts need no script, no font file and no network, and
print like the rest of the page. Every text placed in a chart is escaped here.

The layout rules, each tested from the coordinates written:

- a histogram's axis is scaled to its data: a marker far from the data (the gate, most
  often) is not allowed to squeeze the data into a corner; it is drawn as an off-scale arrow
  at the edge it lies beyond (:func:`axis_around`);
- marker labels are placed in rows so that no two overlap and none leaves the chart: each
  takes the first row where it fits beside its line, to the right or else to the left
  (:func:`place_labels`); text widths are estimated on the wide side (:func:`text_width`);
- tick labels use thousands separators (``12,500``) and never overlap;
- a bar's name and value stay inside the chart's width (shortened to fit, the full text in a
  tooltip; a value that does not fit beside its bar is written inside it).

Every loop is bounded by the number of bars, ticks or markers, never by the data's values, so
each chart ends for any finite input (latencies near the largest double included).
"""

from __future__ import annotations

import math
import unicodedata
from fractions import Fraction
from html import escape
from typing import Dict, Iterator, List, Optional, Sequence, SupportsFloat, Tuple, Union

from .words import clean, show

# A value on a chart's axis: exact (the bootstrap's means) or a double (latencies).
Real = Union[Fraction, float]
# A bar: (left, right, count), its edges in data units.
Bar = Tuple[Real, Real, int]

WIDTH = 720
MARGIN_RIGHT = 24
FONT_SIZE = 11  # px, as the stylesheet's ``.chart text``
# A chart is never drawn narrower than this (the report's stylesheet says so, and a narrow
# window scrolls the chart instead), so that its text never falls below MIN_TEXT_PX.
MIN_TEXT_PX = 9
MIN_DISPLAY_WIDTH = -(-WIDTH * MIN_TEXT_PX // FONT_SIZE)
ROW_HEIGHT = 14  # one row of marker labels
LABEL_GAP = 4  # between a marker's line and its label
EDGE = 2  # what a text keeps from the chart's left and right edges


def _e(text: object) -> str:
    return escape(clean(text), quote=True)


def _n(value: float) -> str:
    """A coordinate: two decimals at most, so the file stays small and stable."""
    text = "%.2f" % value
    return text.rstrip("0").rstrip(".") if "." in text else text


def text_width(text: str, size: float = FONT_SIZE, bold: bool = False) -> float:
    """A width at least that of ``text`` in the report's sans-serif font (measured in
    DejaVu Sans, the widest of the fonts the stylesheet names): 0.64 em for most characters,
    1 em for capitals and the widest letters and signs, 1.1 em for East Asian wide ones; bold
    adds a tenth.

    >>> text_width("0.25"), text_width("MW")
    (28.16, 22.0)
    """
    ems = 0.0
    for char in text:
        if char in "mwMW@%" or "A" <= char <= "Z":
            ems += 1.0
        elif char < "\u0100":
            ems += 0.64
        elif unicodedata.east_asian_width(char) in "WF":
            ems += 1.1
        else:
            ems += 1.0
    return round(ems * size * (1.1 if bold else 1.0), 2)


def fit_text(text: str, width: float, size: float = FONT_SIZE) -> str:
    """``text`` cut (with an ellipsis) so that :func:`text_width` is at most ``width``.

    >>> fit_text("refunds-and-returns", 60)
    'refund\u2026'
    """
    text = clean(text)
    if text_width(text, size) <= width:
        return text
    used = text_width("\u2026", size)
    for index, char in enumerate(text):
        used += text_width(char, size)
        if used > width:
            return text[:index] + "\u2026"
    return text  # not reached: the whole text was too wide


def group_digits(value: float, decimals: int = 0) -> str:
    """A number with thousands separators, or in exponent notation beyond 1e15.

    >>> group_digits(12500), group_digits(0.25, 2), group_digits(1.7976931348623157e308)
    ('12,500', '0.25', '1.79769e+308')
    """
    value = float(value)
    if value == 0:
        value = 0.0  # never "-0"
    if abs(value) >= 1e15:
        return show(value)
    return "{:,.{}f}".format(value, decimals)


class Marker:
    """A vertical line at ``x`` (a data value) with a label; ``kind`` is its CSS class
    (``gate``, ``observed``, ``bound``); ``bold`` as the stylesheet draws that kind."""

    def __init__(self, x: Real, label: str, kind: str, bold: bool = False) -> None:
        self.x = x
        self.label = label
        self.kind = kind
        self.bold = bold


class Label:
    """A placed text: its anchor point, ``anchor`` (start or end) and its box."""

    __slots__ = ("x", "row", "anchor", "left", "right")

    def __init__(self, x: float, row: int, anchor: str, width: float) -> None:
        self.x = x
        self.row = row
        self.anchor = anchor
        self.left = x if anchor == "start" else x - width
        self.right = self.left + width


def position(value: SupportsFloat, low: float, high: float) -> float:
    """Where ``value`` lies on [low, high], as a share 0..1 (clamped): finite for any finite
    doubles, even where ``high - low`` would overflow (halves are subtracted instead)."""
    span = high / 2 - low / 2
    if not span > 0:
        return 0.0
    share = (float(value) / 2 - low / 2) / span
    return min(max(share, 0.0), 1.0) if share == share else 0.0


def nice_ticks(low: float, high: float, count: int = 6) -> List[float]:
    """Round tick values covering [low, high]: steps of 1, 2 or 5 times a power of ten; at
    most ``count + 2`` of them for any finite bounds (the loop is bounded, not the data).

    >>> nice_ticks(0.0, 1.0)
    [0.0, 0.2, 0.4, 0.6, 0.8, 1.0]
    >>> len(nice_ticks(0.0, 1.7976931348623157e308)) <= 8
    True
    """
    raw = high / count - low / count
    if not raw > 0 or raw == math.inf:
        return [low]
    exponent = math.floor(math.log10(raw))
    step = next(factor * 10.0 ** exponent for factor in (1, 2, 5, 10)
                if factor * 10.0 ** exponent >= raw)
    first = math.ceil(low / step - 1e-9)
    ticks = []
    for index in range(first, first + count + 2):
        value = index * step
        if value - abs(high) * 1e-9 > high:  # also ends at an overflow to infinity
            break
        ticks.append(round(value, 10) if abs(value) < 1e15 else value)
    return ticks or [low]


def tick_labels(ticks: Sequence[float]) -> List[str]:
    """The ticks' texts, with thousands separators and as many decimals as their step needs.

    >>> tick_labels([0.0, 0.05, 0.1]), tick_labels([0.0, 2500.0, 5000.0])
    (['0.00', '0.05', '0.10'], ['0', '2,500', '5,000'])
    >>> tick_labels([1e-07, 2e-07])
    ['1e-07', '2e-07']
    """
    decimals = 0
    if len(ticks) > 1:
        step = ticks[1] - ticks[0]
        if 0 < step < 1e-4:
            return [show(tick) for tick in ticks]  # 1e-07, 1.2e-07: fixed decimals would not do
        if 0 < step < 1:
            decimals = -math.floor(math.log10(step) + 1e-9)
    return [group_digits(tick, decimals) for tick in ticks]


# A value beyond the data widens the axis only while the data keep a third of its width.
AXIS_WIDENING = 3


def axis_around(low: float, high: float, value: float) -> Tuple[float, float, bool]:
    """The axis [low, high] of the data, widened to take in ``value`` when that still leaves
    the data a third of it (:data:`AXIS_WIDENING`); else unchanged, and ``value`` is off
    scale. Returns (low, high, whether ``value`` is on the axis).

    >>> axis_around(0.1, 0.2, 0.0), axis_around(0.1, 0.2, -0.5)
    ((0.0, 0.2, True), (0.1, 0.2, False))
    """
    value = float(value)
    if low <= value <= high:
        return low, high, True
    span = high / 2 - low / 2  # halves: finite for any finite bounds
    if value < low and high / 2 - value / 2 <= AXIS_WIDENING * span:
        return value, high, True
    if value > high and value / 2 - low / 2 <= AXIS_WIDENING * span:
        return low, value, True
    return low, high, False


def place_labels(items: Sequence[Tuple[float, float]], left_bound: float,
                 right_bound: float, gap: float = 6.0) -> List[Label]:
    """Rows and anchors for labels of ``width`` at lines ``x``, given as (x, width) in order
    of importance: each goes into the first row where it overlaps no other label (``gap``
    apart), crosses no line of a label placed above it and has no line of its own cross a
    label below it; beside its line (to the right, else to the left) within [left_bound,
    right_bound], or moved along the row to fit when it fits beside its line on neither side.
    Row 0 is the top. A marker's line runs from its label's row down to the axis; a row below
    every label is always free of labels, so placing ends after at most one row per label."""
    placed: List[Label] = []

    def candidates(x: float, width: float) -> Iterator[Tuple[float, str]]:
        for label in (Label(x + LABEL_GAP, 0, "start", width),
                      Label(x - LABEL_GAP, 0, "end", width)):
            if label.left >= left_bound and label.right <= right_bound:
                yield label.x, label.anchor
        if x > (left_bound + right_bound) / 2 and width < right_bound - left_bound:
            yield right_bound, "end"
        else:
            yield left_bound, "start"

    def crosses(x: float, label: Label) -> bool:
        return label.left - 1 <= x <= label.right + 1

    def free(label: Label, line_x: float) -> bool:
        for other, other_x in zip(placed, lines):
            if other.row == label.row and label.left < other.right + gap and (
                    other.left < label.right + gap):
                return False
            if other.row < label.row and crosses(other_x, label):
                return False
            if other.row > label.row and crosses(line_x, other):
                return False
        return True

    lines: List[float] = []
    for line_x, width in items:
        row = 0
        chosen = None
        while chosen is None:
            options = [Label(x, row, anchor, width) for x, anchor in candidates(line_x, width)]
            chosen = next((label for label in options if free(label, line_x)), None)
            if chosen is None and row > max([label.row for label in placed] + [-1]):
                chosen = options[0]  # no label in this row or below: only lines cross it
            row += 1
        placed.append(chosen)
        lines.append(line_x)
    return placed


def lattice_step(values: Sequence[Fraction], limit: int = 10 ** 9) -> Optional[Fraction]:
    """The largest step that every difference of ``values`` is a whole multiple of (the
    spacing of their support: 1/n for the mean differences of n tasks), or None when there
    is none finer than 1/``limit`` (or fewer than two values).

    >>> lattice_step([Fraction(-1, 5), Fraction(0), Fraction(2, 5)])
    Fraction(1, 5)
    """
    step = Fraction(0)
    first = values[0] if values else Fraction(0)
    for value in values[1:]:
        difference = Fraction(value) - first
        numerator = math.gcd(step.numerator * difference.denominator,
                             difference.numerator * step.denominator)
        step = Fraction(numerator, step.denominator * difference.denominator)
        if step.denominator > limit:
            return None
    return step if step > 0 else None


def support_bins(distribution: Sequence[Tuple[Fraction, int]], max_bars: int,
                 fallback_cell: Fraction) -> Tuple[List[Bar], Fraction, bool]:
    """Bars (left, right, count) for sorted (value, count) pairs of exact values, centred on
    their support: when the values lie on a lattice (:func:`lattice_step`), one bar per point,
    or per an odd number of neighbouring points when there are more than ``max_bars``, so a
    value never falls on a bar's edge and a bar straddles every value it counts. Without a
    lattice, ``max_bars`` equal bars centred on multiples of their width. Returns the bars, the
    lattice's cell (``fallback_cell`` for a single value; the bar width without a lattice) and
    whether the values lie on a lattice.

    >>> bars, cell, lattice = support_bins([(Fraction(0), 3), (Fraction(1, 5), 1)], 50, 1)
    >>> [(float(left), float(right), count) for left, right, count in bars], cell, lattice
    ([(-0.1, 0.1, 3), (0.1, 0.3, 1)], Fraction(1, 5), True)
    """
    values = [Fraction(value) for value, _count in distribution]
    cell = lattice_step(values) if values else None
    lattice = cell is not None or len(values) == 1
    if cell is None:
        span = values[-1] - values[0] if values else Fraction(0)
        cell = span / max_bars if span > 0 else Fraction(fallback_cell)
    origin = values[0] % cell if values else Fraction(0)  # a point of the lattice
    points = (values[-1] - values[0]) / cell + 1 if values else 1
    group = max(-(-points // max_bars), 1)
    if group % 2 == 0:
        group += 1  # odd: a bar's edges lie halfway between two points, never on one
    width = cell * group
    counts: Dict[int, int] = {}
    for value, count in distribution:
        index = math.floor((Fraction(value) - origin) / width + Fraction(1, 2))
        counts[index] = counts.get(index, 0) + count
    bars: List[Bar] = [(origin + (index - Fraction(1, 2)) * width,
                        origin + (index + Fraction(1, 2)) * width, counts[index])
                       for index in sorted(counts)]
    return bars, cell, lattice


def even_bins(values: Sequence[float], low: float, high: float,
              bins: int) -> Tuple[List[Bar], int]:
    """``bins`` equal bars (left, right, count) over [low, high], and how many values lie
    above ``high`` (off scale); values below ``low`` count in the first bar. :func:`position`
    is inlined, and the values above are counted and set aside first, in C: this runs once
    per trial."""
    counts = [0] * bins
    above = sum(map(float(high).__lt__, values))
    if above:
        values = [value for value in values if not value > high]
    half_low = low / 2
    span = high / 2 - half_low
    scale = bins / span if span > 0 else 0.0
    last = bins - 1
    for value in values:
        index = int((value / 2 - half_low) * scale) if value == value else 0
        counts[0 if index < 0 else last if index > last else index] += 1
    half_step = span / bins  # edges from halves: finite even when high - low is not
    bars: List[Bar] = [((half_low + index * half_step) * 2,
             (half_low + (index + 1) * half_step) * 2 if index < last else high, count)
            for index, count in enumerate(counts)]
    return bars, above


def histogram(title: str, bars: Sequence[Bar], axis: Tuple[Real, Real],
              markers: Sequence[Marker] = (), band: Optional[Tuple[Real, Real]] = None,
              x_label: str = "", plot_height: int = 130,
              off_scale: Optional[Tuple[int, str]] = None, unit: str = "") -> str:
    """An SVG histogram: ``bars`` (left, right, count) in data units on the axis
    (low, high); ``markers`` (those beyond the axis drawn as off-scale arrows at its edge);
    ``band`` (low, high) shades an interval; ``off_scale`` (count, text) is a last bar, right
    of the axis, for values beyond it; ``unit`` names what a bar counts, in its tooltip."""
    low, high = float(axis[0]), float(axis[1])
    tallest = max([count for _left, _right, count in bars] + [off_scale[0] if off_scale else 0,
                                                                1])
    tallest_text = group_digits(tallest)
    margin_left = max(48, int(text_width(tallest_text) + 12))
    off_scale_text = "> " + group_digits(high) if off_scale else ""
    off_scale_width = int(max(40, text_width(off_scale_text) + 8)) if off_scale else 0
    plot_right = WIDTH - MARGIN_RIGHT - off_scale_width
    plot_width = plot_right - margin_left

    def x_of(value: SupportsFloat) -> float:
        return margin_left + position(value, low, high) * plot_width

    # The markers' labels first: their rows decide the chart's height.
    lines: List[Tuple[Marker, float, Optional[str]]] = []
    for marker in markers:
        value = float(marker.x)
        if value < low:
            lines.append((marker, margin_left, "left"))
        elif value > high:
            lines.append((marker, plot_right, "right"))
        else:
            lines.append((marker, x_of(value), None))
    texts = []
    for marker, _x, side in lines:
        text = clean(marker.label)
        if side == "left":
            text = "\u2190 %s (off scale)" % text
        elif side == "right":
            text = "%s (off scale) \u2192" % text
        texts.append(text)
    labels = place_labels([(x, text_width(text, bold=marker.bold))
                           for (marker, x, _side), text in zip(lines, texts)],
                          EDGE, WIDTH - EDGE)
    rows = max([label.row + 1 for label in labels] + [1])
    top = 6 + ROW_HEIGHT * rows + 4
    axis_y = top + plot_height
    height = axis_y + 40
    out = ['<svg class="chart" viewBox="0 0 %d %d" role="img" aria-label="%s" '
           'xmlns="http://www.w3.org/2000/svg">' % (WIDTH, height, _e(title)),
           "<title>%s</title>" % _e(title)]
    if band is not None:
        left, right = x_of(band[0]), x_of(band[1])
        out.append('<rect class="band" x="%s" y="%d" width="%s" height="%d"/>' % (
            _n(left), top, _n(max(right - left, 1.5)), plot_height))
    for left_value, right_value, count in bars:
        if not count:
            continue
        left, right = x_of(left_value), x_of(right_value)
        inset = 0.5 if right - left > 3 else 0.0  # a hairline between wide bars
        bar_height = count / float(tallest) * plot_height
        what = show(left_value) + " .. " + show(right_value)
        out.append('<rect class="bar" x="%s" y="%s" width="%s" height="%s"><title>%s: %s%s'
                   '</title></rect>' % (
                       _n(left + inset), _n(axis_y - bar_height),
                       _n(max(right - left - 2 * inset, 0.75)), _n(bar_height), _e(what),
                       group_digits(count), _e(unit)))
    blocked = math.inf  # where the off-scale bar's label starts: ticks stay left of it
    if off_scale:
        count, text = off_scale
        bar_height = count / float(tallest) * plot_height
        centre = plot_right + off_scale_width / 2 + MARGIN_RIGHT / 2
        out.append('<rect class="bar off-scale" x="%s" y="%s" width="%d" height="%s"><title>%s'
                   '</title></rect>' % (_n(centre - 7), _n(axis_y - bar_height), 14,
                                        _n(bar_height), _e(text)))
        out.append('<text class="tick-label off-scale" x="%s" y="%d" text-anchor="middle">'
                   '%s</text>' % (_n(centre), axis_y + 16, _e(off_scale_text)))
        blocked = centre - text_width(off_scale_text) / 2
    out.append('<line class="axis" x1="%d" y1="%d" x2="%d" y2="%d"/>' % (
        margin_left, axis_y, plot_right, axis_y))
    ticks = nice_ticks(low, high)
    tick_texts = tick_labels(ticks)
    previous_right = -math.inf
    for tick, text in zip(ticks, tick_texts):
        x = x_of(tick)
        half = text_width(text) / 2
        # Keep every tick label inside the chart and clear of its neighbour.
        if (x - half < max(previous_right + 4, EDGE) or x + half > WIDTH - EDGE
                or x + half + 4 > blocked):
            continue
        previous_right = x + half
        out.append('<line class="tick" x1="%s" y1="%d" x2="%s" y2="%d"/>' % (
            _n(x), axis_y, _n(x), axis_y + 4))
        out.append('<text class="tick-label" x="%s" y="%d" text-anchor="middle">%s</text>' % (
            _n(x), axis_y + 16, _e(text)))
    if x_label:
        out.append('<text class="axis-label" x="%d" y="%d" text-anchor="middle">%s</text>' % (
            margin_left + plot_width // 2, height - 6, _e(x_label)))
    out.append('<text class="axis-label" x="%d" y="%d" text-anchor="end">%s</text>' % (
        margin_left - 4, top + 4, tallest_text))
    out.append('<text class="axis-label" x="%d" y="%d" text-anchor="end">0</text>' % (
        margin_left - 4, axis_y))
    out.append('<text class="axis-label" x="%d" y="%d">count</text>' % (
        EDGE, top + plot_height // 2))
    for (marker, x, side), text, label in zip(lines, texts, labels):
        label_y = 6 + ROW_HEIGHT * (label.row + 1) - 3
        off = " off-scale" if side else ""
        out.append('<line class="marker %s%s" x1="%s" y1="%d" x2="%s" y2="%d"/>' % (
            marker.kind, off, _n(x), label_y + 3, _n(x), axis_y))
        if side:
            tip = x - 7 if side == "left" else x + 7
            out.append('<polygon class="marker-arrow %s" points="%s,%d %s,%d %s,%d"/>' % (
                marker.kind, _n(x), axis_y - plot_height // 2 - 6, _n(tip),
                axis_y - plot_height // 2, _n(x), axis_y - plot_height // 2 + 6))
        out.append('<text class="marker-label %s%s" x="%s" y="%d" text-anchor="%s">%s</text>' % (
            marker.kind, off, _n(label.x), label_y, label.anchor, _e(text)))
    out.append("</svg>")
    return "".join(out)


def paired_bars(title: str, rows: Sequence[Tuple[str, Optional[float], Optional[float]]],
                labels: Tuple[str, str] = ("baseline", "candidate"),
                row_height: int = 34) -> str:
    """Horizontal bars from 0 to 1: for each (name, first, second) row two bars, the values
    being rates in [0, 1] or None (the system has no task in that group). A name is cut to
    fit left of the bars (the whole name is its tooltip); a value label that would run past
    the chart's right edge is written inside its bar."""
    label_width = 200
    plot_width = WIDTH - label_width - 70
    height = 30 + row_height * len(rows)
    out = ['<svg class="chart" viewBox="0 0 %d %d" role="img" aria-label="%s" '
           'xmlns="http://www.w3.org/2000/svg">' % (WIDTH, height, _e(title)),
           "<title>%s</title>" % _e(title)]
    for tick in (0, 0.25, 0.5, 0.75, 1):
        x = label_width + tick * plot_width
        out.append('<line class="grid" x1="%s" y1="14" x2="%s" y2="%d"/>' % (
            _n(x), _n(x), height - 4))
        out.append('<text class="tick-label" x="%s" y="11" text-anchor="middle">%s</text>' % (
            _n(x), show(tick)))
    for index, (name, first, second) in enumerate(rows):
        y = 18 + index * row_height
        out.append('<text class="bar-name" x="%d" y="%d" text-anchor="end"><title>%s</title>'
                   '%s</text>' % (label_width - 8, y + row_height // 2 + 2, _e(name),
                                  _e(fit_text(name, label_width - 8 - EDGE))))
        for offset, (system, value) in enumerate(zip(labels, (first, second))):
            bar_y = y + 2 + offset * (row_height // 2 - 2)
            if value is None:
                out.append('<text class="bar-value" x="%d" y="%d">%s: no tasks</text>' % (
                    label_width + 4, bar_y + 11, _e(system)))
                continue
            bar_width = max(float(value) * plot_width, 1)
            out.append('<rect class="bar %s" x="%d" y="%d" width="%s" height="%d"><title>%s '
                       '%s</title></rect>' % (system, label_width, bar_y, _n(bar_width),
                                              row_height // 2 - 4, _e(system), show(value)))
            text = "%s %s" % (system, show(value))
            outside = label_width + bar_width + 4
            if outside + text_width(text) <= WIDTH - EDGE:
                out.append('<text class="bar-value" x="%s" y="%d">%s</text>' % (
                    _n(outside), bar_y + 11, _e(text)))
            else:
                out.append('<text class="bar-value inside" x="%s" y="%d" text-anchor="end">'
                           '%s</text>' % (_n(label_width + bar_width - 4), bar_y + 11,
                                          _e(text)))
    out.append("</svg>")
    return "".join(out)
