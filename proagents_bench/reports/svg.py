"""Inline SVG charts for the HTML report: histograms with marked values, and paired bars.

Plain SVG elements only (``rect``, ``line``, ``text``), styled by the report's stylesheet
through class names, so the charts need no script, no font file and no network, and print
like the rest of the page. Every text placed in a chart is escaped here.
"""

from __future__ import annotations

import math
from html import escape
from typing import Iterable, List, Optional, Sequence, Tuple

from .view import clean, show

WIDTH = 720
MARGIN_LEFT = 48
MARGIN_RIGHT = 24


def _e(text):
    return escape(clean(text), quote=True)


def _n(value):
    """A coordinate: two decimals at most, so the file stays small and stable."""
    text = "%.2f" % value
    return text.rstrip("0").rstrip(".") if "." in text else text


class Marker:
    """A vertical line at ``x`` (a data value) with a label; ``kind`` is its CSS class
    (``gate``, ``observed``, ``bound``, ``zero``)."""

    def __init__(self, x, label, kind):
        self.x = x
        self.label = label
        self.kind = kind


def position(value: object, low: float, high: float) -> float:
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


def bin_counts(values_with_counts: Iterable[Tuple[object, int]], low: float, high: float,
               bins: int) -> List[int]:
    """Counts of (value, count) pairs in ``bins`` equal bins over [low, high] (values
    outside go to the first or last bin); :func:`position`, inlined for a million values."""
    counts = [0] * bins
    half_low = low / 2
    span = high / 2 - half_low
    if not span > 0:
        counts[0] = sum(count for _value, count in values_with_counts)
        return counts
    scale = bins / span
    last = bins - 1
    for value, count in values_with_counts:
        index = int((float(value) / 2 - half_low) * scale) if value == value else 0
        counts[0 if index < 0 else last if index > last else index] += count
    return counts


def histogram(title: str, counts: Sequence[int], low: float, high: float,
              markers: Sequence["Marker"] = (), band: Optional[Tuple[float, float]] = None,
              x_label: str = "", height: int = 220) -> str:
    """An SVG histogram of ``counts`` (equal bins over [low, high]) with ``markers``; ``band``
    (low, high) shades an interval."""
    top, bottom = 16 + 14 * max(len(markers), 1), 40
    plot_width = WIDTH - MARGIN_LEFT - MARGIN_RIGHT
    plot_height = height - top - bottom

    def x_of(value):
        return MARGIN_LEFT + position(value, low, high) * plot_width

    tallest = max(counts) if counts and max(counts) > 0 else 1
    out = ['<svg class="chart" viewBox="0 0 %d %d" role="img" aria-label="%s" '
           'xmlns="http://www.w3.org/2000/svg">' % (WIDTH, height, _e(title)),
           "<title>%s</title>" % _e(title)]
    if band is not None:
        left, right = x_of(band[0]), x_of(band[1])
        out.append('<rect class="band" x="%s" y="%d" width="%s" height="%d"/>' % (
            _n(left), top, _n(max(right - left, 1.5)), plot_height))
    bar_width = plot_width / float(len(counts) or 1)
    for index, count in enumerate(counts):
        if count:
            bar_height = count / float(tallest) * plot_height
            out.append('<rect class="bar" x="%s" y="%s" width="%s" height="%s"><title>%d'
                       '</title></rect>' % (
                           _n(MARGIN_LEFT + index * bar_width + 0.5),
                           _n(top + plot_height - bar_height), _n(max(bar_width - 1, 0.5)),
                           _n(bar_height), count))
    axis_y = top + plot_height
    out.append('<line class="axis" x1="%d" y1="%d" x2="%d" y2="%d"/>' % (
        MARGIN_LEFT, axis_y, WIDTH - MARGIN_RIGHT, axis_y))
    for tick in nice_ticks(low, high):
        x = x_of(tick)
        out.append('<line class="tick" x1="%s" y1="%d" x2="%s" y2="%d"/>' % (
            _n(x), axis_y, _n(x), axis_y + 4))
        out.append('<text class="tick-label" x="%s" y="%d" text-anchor="middle">%s</text>' % (
            _n(x), axis_y + 16, _e(show(tick))))
    if x_label:
        out.append('<text class="axis-label" x="%d" y="%d" text-anchor="middle">%s</text>' % (
            MARGIN_LEFT + plot_width // 2, height - 4, _e(x_label)))
    out.append('<text class="axis-label" x="%d" y="%d" text-anchor="end">%d</text>' % (
        MARGIN_LEFT - 4, top + 4, tallest))
    out.append('<text class="axis-label" x="%d" y="%d" text-anchor="end">0</text>' % (
        MARGIN_LEFT - 4, axis_y))
    out.append('<text class="axis-label" x="4" y="%d">count</text>' % (
        top + plot_height // 2))
    for index, marker in enumerate(markers):
        x = x_of(marker.x)
        label_y = 14 + 14 * index
        anchor = "end" if x > WIDTH - 160 else "start"
        out.append('<line class="marker %s" x1="%s" y1="%d" x2="%s" y2="%d"/>' % (
            marker.kind, _n(x), label_y + 2, _n(x), axis_y))
        out.append('<text class="marker-label %s" x="%s" y="%d" text-anchor="%s">%s</text>' % (
            marker.kind, _n(x + (-4 if anchor == "end" else 4)), label_y, anchor,
            _e(marker.label)))
    out.append("</svg>")
    return "".join(out)


def paired_bars(title: str, rows: Sequence[tuple],
                labels: Tuple[str, str] = ("baseline", "candidate"),
                row_height: int = 34) -> str:
    """Horizontal bars from 0 to 1: for each (name, first, second) row two bars, the values
    being rates in [0, 1] or None (the system has no task in that group)."""
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
        out.append('<text class="bar-name" x="%d" y="%d" text-anchor="end">%s</text>' % (
            label_width - 8, y + row_height // 2 + 2, _e(name)))
        for offset, (system, value) in enumerate(zip(labels, (first, second))):
            bar_y = y + 2 + offset * (row_height // 2 - 2)
            if value is None:
                out.append('<text class="bar-value" x="%d" y="%d">no tasks</text>' % (
                    label_width + 4, bar_y + 11))
                continue
            bar_width = float(value) * plot_width
            out.append('<rect class="bar %s" x="%d" y="%d" width="%s" height="%d"><title>%s '
                       '%s</title></rect>' % (system, label_width, bar_y, _n(max(bar_width, 1)),
                                              row_height // 2 - 4, system, show(value)))
            out.append('<text class="bar-value" x="%s" y="%d">%s %s</text>' % (
                _n(label_width + bar_width + 4), bar_y + 11, system, show(value)))
    out.append("</svg>")
    return "".join(out)
