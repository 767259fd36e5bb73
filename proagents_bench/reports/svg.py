"""What the report's SVG charts (:mod:`.charts`) are laid out with: a chart's size and
text metrics, the axis, its ticks and their labels, and the placing of marker labels.

Every text placed in a chart is escaped here (:func:`svg_text`). The layout rules, each
tested from the coordinates written:

- a histogram's axis is scaled to its data: a marker far from the data (the gate, most
  often) is not allowed to squeeze the data into a corner; it is drawn as an off-scale arrow
  at the edge it lies beyond (:func:`axis_around`);
- marker labels are placed in rows so that no two overlap and none leaves the chart: each
  takes the first row where it fits beside its line, to the right or else to the left
  (:func:`place_labels`); text widths are estimated on the wide side (:func:`text_width`);
- tick labels use thousands separators (``12,500``) and never overlap (:func:`nice_ticks`,
  :func:`tick_labels`).

Every loop is bounded by the number of ticks or markers, never by the data's values.
"""

from __future__ import annotations

import math
import unicodedata
from fractions import Fraction
from html import escape
from typing import Callable, Iterator, List, Sequence, SupportsFloat, Tuple, Union

from .words import clean, show

# A value on a chart's axis: exact (the bootstrap's means) or a double (latencies).
Real = Union[Fraction, float]

# Every chart is drawn twice, at two widths of its own (its viewBox): WIDTH for a window as
# wide as a laptop's, NARROW_WIDTH for a phone's, where the wide one would be scaled below a
# readable size or cut; the stylesheet shows the one that fits (see html_parts.py).
WIDTH = 720
NARROW_WIDTH = 360
MARGIN_RIGHT = 24
FONT_SIZE = 11  # px, as the stylesheet's ``.chart text``
# A chart is never drawn narrower than this (the report's stylesheet says so: a window too
# narrow for the wide chart shows the narrow one), so that its text never falls below
# MIN_TEXT_PX.
MIN_TEXT_PX = 9
MIN_DISPLAY_WIDTH = -(-WIDTH * MIN_TEXT_PX // FONT_SIZE)
NARROW_MIN_DISPLAY_WIDTH = -(-NARROW_WIDTH * MIN_TEXT_PX // FONT_SIZE)
# The most a chart's tick labels along its axis (fewer on a narrow chart).
TICKS = {WIDTH: 6, NARROW_WIDTH: 3}
ROW_HEIGHT = 14  # one row of marker labels
LABEL_GAP = 4  # between a marker's line and its label
EDGE = 2  # what a text keeps from the chart's left and right edges


def svg_text(text: object) -> str:
    """Text from anywhere, made safe inside an SVG element or attribute."""
    return escape(clean(text), quote=True)


def chart_class(width: int) -> str:
    """The class of a chart drawn ``width`` wide: ``chart wide`` or ``chart narrow``, which
    the stylesheet shows or hides by the window's width."""
    return "chart wide" if width >= WIDTH else "chart narrow"


def coordinate(value: float) -> str:
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


def x_tick_marks(ticks: Sequence[float], x_of: Callable[[float], float], axis_y: int,
                 blocked: float = math.inf, width: int = WIDTH) -> List[str]:
    """The SVG of an x axis's ticks and their labels under the axis at ``axis_y`` of a chart
    ``width`` wide: a label that would leave the chart, overlap its left neighbour or reach
    ``blocked`` (where another label starts) is left out with its tick."""
    out: List[str] = []
    previous_right = -math.inf
    for tick, text in zip(ticks, tick_labels(ticks)):
        x = x_of(tick)
        half = text_width(text) / 2
        if (x - half < max(previous_right + 4, EDGE) or x + half > width - EDGE
                or x + half + 4 > blocked):
            continue
        previous_right = x + half
        out.append('<line class="tick" x1="%s" y1="%d" x2="%s" y2="%d"/>' % (
            coordinate(x), axis_y, coordinate(x), axis_y + 4))
        out.append('<text class="tick-label" x="%s" y="%d" text-anchor="middle">%s</text>' % (
            coordinate(x), axis_y + 16, svg_text(text)))
    return out


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
