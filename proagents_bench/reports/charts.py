"""Inline SVG charts for the HTML reports: histograms with marked values, and paired bars,
with the bars a histogram draws (:func:`support_bins` for exact values on a lattice,
:func:`even_bins` for doubles).

Plain SVG elements only (``rect``, ``line``, ``polygon``, ``text``), styled by the report's
stylesheet through class names, so the charts need no script, no font file and no network,
and print like the rest of the page. They are laid out with :mod:`.svg`'s metrics, axes and
label placing (its docstring lists the rules); besides, a bar's name and value stay inside
the chart's width (shortened to fit, the full text in a tooltip; a value that does not fit
beside its bar is written inside it).

Every loop is bounded by the number of bars, ticks or markers, never by the data's values, so
each chart ends for any finite input (latencies near the largest double included).
"""

from __future__ import annotations

import math
from fractions import Fraction
from typing import Dict, List, Optional, Sequence, SupportsFloat, Tuple

from .svg import (EDGE, MARGIN_RIGHT, ROW_HEIGHT, TICKS, WIDTH, Marker, Real, chart_class,
                  coordinate, fit_text, group_digits, nice_ticks, place_labels, position,
                  svg_text, text_width, x_tick_marks)
from .words import clean, show

# A bar: (left, right, count), its edges in data units.
Bar = Tuple[Real, Real, int]


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
              off_scale: Optional[Tuple[int, str]] = None, unit: str = "",
              width: int = WIDTH) -> str:
    """An SVG histogram ``width`` wide (:data:`~.svg.WIDTH` or
    :data:`~.svg.NARROW_WIDTH`): ``bars`` (left, right, count) in data units on the axis
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
    plot_right = width - MARGIN_RIGHT - off_scale_width
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
                          EDGE, width - EDGE)
    rows = max([label.row + 1 for label in labels] + [1])
    top = 6 + ROW_HEIGHT * rows + 4
    axis_y = top + plot_height
    height = axis_y + 40
    out = ['<svg class="%s" viewBox="0 0 %d %d" role="img" aria-label="%s" '
           'xmlns="http://www.w3.org/2000/svg">' % (chart_class(width), width, height,
                                                     svg_text(title)),
           "<title>%s</title>" % svg_text(title)]
    if band is not None:
        left, right = x_of(band[0]), x_of(band[1])
        out.append('<rect class="band" x="%s" y="%d" width="%s" height="%d"/>' % (
            coordinate(left), top, coordinate(max(right - left, 1.5)), plot_height))
    for left_value, right_value, count in bars:
        if not count:
            continue
        left, right = x_of(left_value), x_of(right_value)
        inset = 0.5 if right - left > 3 else 0.0  # a hairline between wide bars
        bar_height = count / float(tallest) * plot_height
        what = show(left_value) + " .. " + show(right_value)
        out.append('<rect class="bar" x="%s" y="%s" width="%s" height="%s"><title>%s: %s%s'
                   '</title></rect>' % (
                       coordinate(left + inset), coordinate(axis_y - bar_height),
                       coordinate(max(right - left - 2 * inset, 0.75)), coordinate(bar_height),
                       svg_text(what), group_digits(count), svg_text(unit)))
    blocked = math.inf  # where the off-scale bar's label starts: ticks stay left of it
    if off_scale:
        count, text = off_scale
        bar_height = count / float(tallest) * plot_height
        centre = plot_right + off_scale_width / 2 + MARGIN_RIGHT / 2
        out.append('<rect class="bar off-scale" x="%s" y="%s" width="%d" height="%s"><title>%s'
                   '</title></rect>' % (coordinate(centre - 7), coordinate(axis_y - bar_height),
                                        14, coordinate(bar_height), svg_text(text)))
        out.append('<text class="tick-label off-scale" x="%s" y="%d" text-anchor="middle">'
                   '%s</text>' % (coordinate(centre), axis_y + 16, svg_text(off_scale_text)))
        blocked = centre - text_width(off_scale_text) / 2
    out.append('<line class="axis" x1="%d" y1="%d" x2="%d" y2="%d"/>' % (
        margin_left, axis_y, plot_right, axis_y))
    # Every tick label inside the chart and clear of its neighbour.
    out += x_tick_marks(nice_ticks(low, high, TICKS.get(width, TICKS[WIDTH])), x_of, axis_y,
                        blocked, width)
    if x_label:
        # Under the plot's middle, or the chart's where it is wider than half the chart's
        # width each side of the plot's middle; cut to the chart's width.
        text = fit_text(x_label, width - 2 * EDGE)
        half = text_width(text) / 2
        middle = margin_left + plot_width / 2
        if middle - half < EDGE or middle + half > width - EDGE:
            middle = width / 2
        out.append('<text class="axis-label" x="%s" y="%d" text-anchor="middle">%s</text>' % (
            coordinate(middle), height - 6, svg_text(text)))
    # The tallest bar's count beside the plot's top, below the marker labels' last row.
    out.append('<text class="axis-label" x="%d" y="%d" text-anchor="end">%s</text>' % (
        margin_left - 4, top + 9, tallest_text))
    out.append('<text class="axis-label" x="%d" y="%d" text-anchor="end">0</text>' % (
        margin_left - 4, axis_y))
    out.append('<text class="axis-label" x="%d" y="%d">count</text>' % (
        EDGE, top + plot_height // 2))
    for (marker, x, side), text, label in zip(lines, texts, labels):
        label_y = 6 + ROW_HEIGHT * (label.row + 1) - 3
        off = " off-scale" if side else ""
        out.append('<line class="marker %s%s" x1="%s" y1="%d" x2="%s" y2="%d"/>' % (
            marker.kind, off, coordinate(x), label_y + 3, coordinate(x), axis_y))
        if side:
            tip = x - 7 if side == "left" else x + 7
            out.append('<polygon class="marker-arrow %s" points="%s,%d %s,%d %s,%d"/>' % (
                marker.kind, coordinate(x), axis_y - plot_height // 2 - 6, coordinate(tip),
                axis_y - plot_height // 2, coordinate(x), axis_y - plot_height // 2 + 6))
        out.append('<text class="marker-label %s%s" x="%s" y="%d" text-anchor="%s">%s</text>' % (
            marker.kind, off, coordinate(label.x), label_y, label.anchor, svg_text(text)))
    out.append("</svg>")
    return "".join(out)


def paired_bars(title: str, rows: Sequence[Tuple[str, Optional[float], Optional[float]]],
                labels: Tuple[str, str] = ("baseline", "candidate"),
                row_height: int = 34, width: int = WIDTH) -> str:
    """Horizontal bars from 0 to 1, ``width`` wide: for each (name, first, second) row two
    bars, the values being rates in [0, 1] or None (the system has no task in that group). A
    name is cut to fit left of the bars (the whole name is its tooltip); a value label that
    would run past the chart's right edge is written inside its bar. A narrow chart names
    its rows in less room and writes the values alone (the bars' colours tell the
    systems, as the section's legend says)."""
    narrow = width < WIDTH
    label_width = 90 if narrow else 200
    plot_width = width - label_width - 70
    height = 30 + row_height * len(rows)
    out = ['<svg class="%s" viewBox="0 0 %d %d" role="img" aria-label="%s" '
           'xmlns="http://www.w3.org/2000/svg">' % (chart_class(width), width, height,
                                                     svg_text(title)),
           "<title>%s</title>" % svg_text(title)]
    for tick in (0, 0.25, 0.5, 0.75, 1):
        x = label_width + tick * plot_width
        out.append('<line class="grid" x1="%s" y1="14" x2="%s" y2="%d"/>' % (
            coordinate(x), coordinate(x), height - 4))
        out.append('<text class="tick-label" x="%s" y="11" text-anchor="middle">%s</text>' % (
            coordinate(x), show(tick)))
    for index, (name, first, second) in enumerate(rows):
        y = 18 + index * row_height
        out.append('<text class="bar-name" x="%d" y="%d" text-anchor="end"><title>%s</title>'
                   '%s</text>' % (label_width - 8, y + row_height // 2 + 2, svg_text(name),
                                  svg_text(fit_text(name, label_width - 8 - EDGE))))
        for offset, (system, value) in enumerate(zip(labels, (first, second))):
            bar_y = y + 2 + offset * (row_height // 2 - 2)
            if value is None:
                out.append('<text class="bar-value" x="%d" y="%d">%s: no tasks</text>' % (
                    label_width + 4, bar_y + 11, svg_text(system)))
                continue
            bar_width = max(float(value) * plot_width, 1)
            out.append('<rect class="bar %s" x="%d" y="%d" width="%s" height="%d"><title>%s '
                       '%s</title></rect>' % (system, label_width, bar_y, coordinate(bar_width),
                                              row_height // 2 - 4, svg_text(system), show(value)))
            text = show(value) if narrow else "%s %s" % (system, show(value))
            outside = label_width + bar_width + 4
            if outside + text_width(text) <= width - EDGE:
                out.append('<text class="bar-value" x="%s" y="%d">%s</text>' % (
                    coordinate(outside), bar_y + 11, svg_text(text)))
            else:
                out.append('<text class="bar-value inside" x="%s" y="%d" text-anchor="end">'
                           '%s</text>' % (coordinate(label_width + bar_width - 4), bar_y + 11,
                                          svg_text(text)))
    out.append("</svg>")
    return "".join(out)
