"""The HTML report's chart of a sequential design's look (:mod:`.sequential_view`): the
candidate's wins against the discordant units, the pass boundary and the futility boundary as
step lines, the path walked so far, a dashed line at the end of each look, and the point that
decided (or where the path stands now).

The horizontal axis runs from 0 to a little past the path (or the first point where a pass
is possible, when the path is shorter), never past the largest sample N: a design of N = 299
looked at after 20 units would otherwise draw its path in a corner. The vertical axis is
scaled to the highest boundary point or win shown. Every loop runs over the units shown.
"""

from __future__ import annotations

import math
from typing import List, Optional, Sequence, Tuple

from .svg import (EDGE, MARGIN_RIGHT, WIDTH, chart_class, coordinate, nice_ticks, position,
                  svg_text, text_width, tick_labels, x_tick_marks)
from .sequential_view import SequentialView

PLOT_HEIGHT = 220
TOP = 26
# How far past the path the axis runs (a share of it), and the least units it shows.
PAST_THE_PATH = 1.3
MIN_UNITS_SHOWN = 8


def shown_units(view: SequentialView) -> int:
    """The last discordant unit the chart shows (see the module docstring)."""
    size = len(view.passing) - 1
    first_pass = next((n for n in range(1, size + 1) if view.passing[n] <= n), size)
    reached = max(len(view.wins) - 1, view.decided_at or 0)
    return min(size, max(MIN_UNITS_SHOWN, int(math.ceil(max(reached, first_pass)
                                                       * PAST_THE_PATH))))


def _steps(values: Sequence[Optional[int]], x_of: "Scale", y_of: "Scale") -> List[str]:
    """SVG path data of a step line: at height values[n] over (n - 1, n] for each n with a
    value, broken where a value is None."""
    parts: List[str] = []
    previous: Optional[int] = None
    for n in range(1, len(values)):
        value = values[n]
        if value is None:
            previous = None
            continue
        if previous is None:
            parts.append("M%s %s" % (coordinate(x_of(n - 1)), coordinate(y_of(value))))
        else:
            parts.append("V%s" % coordinate(y_of(value)))
        parts.append("H%s" % coordinate(x_of(n)))
        previous = value
    return parts


class Scale:
    """A data value to a coordinate on one axis."""

    def __init__(self, low: float, high: float, start: float, length: float,
                 upward: bool = False) -> None:
        self.low, self.high, self.start, self.length, self.upward = (low, high, start, length,
                                                                     upward)

    def __call__(self, value: float) -> float:
        share = position(value, self.low, self.high)
        return self.start - share * self.length if self.upward else self.start + \
            share * self.length


def chart(view: SequentialView, width: int = WIDTH) -> str:
    """The SVG chart of ``view``, ``width`` wide (its legend two items a row when narrow)."""
    last = shown_units(view)
    passing = [view.passing[n] if n and view.passing[n] <= n else None
               for n in range(last + 1)]
    futile = [view.futile[n] if n and view.futile[n] >= 0 else None for n in range(last + 1)]
    wins = view.wins[:last + 1]
    top_value = max([value for value in passing + futile if value is not None] + wins + [4])
    y_ticks = nice_ticks(0.0, float(top_value), 5)
    y_high = max(y_ticks[-1], float(top_value))
    margin_left = int(max(text_width(label) for label in tick_labels(y_ticks)) + 30)
    plot_right = width - MARGIN_RIGHT
    axis_y = TOP + PLOT_HEIGHT
    per_row = 4 if width >= WIDTH else 2  # legend items a row
    height = axis_y + 48 + 14 * (4 // per_row)
    x_of = Scale(0.0, float(last), margin_left, plot_right - margin_left)
    y_of = Scale(0.0, y_high, axis_y, PLOT_HEIGHT, upward=True)
    one = view.several
    title = "Sequential design: the candidate's wins among the discordant %s, look %d of %d" % (
        one, view.document["look"], view.document["looks"])
    out = ['<svg class="%s sequential" viewBox="0 0 %d %d" role="img" aria-label="%s" '
           'xmlns="http://www.w3.org/2000/svg">' % (chart_class(width), width, height,
                                                    svg_text(title)),
           "<title>%s</title>" % svg_text(title)]
    for tick in y_ticks:
        y = y_of(tick)
        out.append('<line class="grid" x1="%d" y1="%s" x2="%d" y2="%s"/>' % (
            margin_left, coordinate(y), plot_right, coordinate(y)))
    out.append('<line class="axis" x1="%d" y1="%d" x2="%d" y2="%d"/>' % (
        margin_left, axis_y, plot_right, axis_y))
    out.append('<line class="axis" x1="%d" y1="%d" x2="%d" y2="%d"/>' % (
        margin_left, TOP, margin_left, axis_y))
    for tick, text in zip(y_ticks, tick_labels(y_ticks)):
        out.append('<text class="tick-label" x="%d" y="%s" text-anchor="end">%s</text>' % (
            margin_left - 6, coordinate(y_of(tick) + 4), svg_text(text)))
    out += x_tick_marks(nice_ticks(0.0, float(last), 8 if width >= WIDTH else 4), x_of,
                        axis_y, width=width)
    for row in view.rows:  # the end of each look
        if row.discordant > last:
            continue
        x = x_of(row.discordant)
        out.append('<line class="look" x1="%s" y1="%d" x2="%s" y2="%d"><title>look %d: %d '
                   'discordant %s, %d won</title></line>' % (
                       coordinate(x), TOP, coordinate(x), axis_y, row.look, row.discordant,
                       one, row.wins))
        out.append('<text class="look-label" x="%s" y="%d" text-anchor="middle">look %d</text>'
                   % (coordinate(x), TOP - 6, row.look))
    for values, kind, words in ((passing, "pass", "pass boundary: pass at this many wins"),
                                (futile, "futile", "futility boundary: stop at this many "
                                                   "wins or fewer")):
        steps = _steps(values, x_of, y_of)
        if steps:
            out.append('<path class="boundary %s" d="%s"><title>%s</title></path>' % (
                kind, " ".join(steps), svg_text(words)))
    points = " ".join("%s,%s" % (coordinate(x_of(n)), coordinate(y_of(value)))
                      for n, value in enumerate(wins))
    out.append('<polyline class="path" points="%s"><title>the path: the candidate\'s wins '
               'after each discordant %s</title></polyline>' % (points, view.one))
    out.append(_decision_point(view, wins, x_of, y_of))
    out += _legend(margin_left, height - 6 - 14 * (4 // per_row - 1), per_row)
    out.append('<text class="axis-label" x="%d" y="%d" text-anchor="middle">discordant %s, '
               'in the frozen order</text>' % ((margin_left + plot_right) // 2, axis_y + 30,
                                              svg_text(one)))
    out.append('<text class="axis-label" x="%d" y="%d">wins</text>' % (EDGE, TOP - 8))
    out.append("</svg>")
    return "".join(out)


def _decision_point(view: SequentialView, wins: Sequence[int], x_of: Scale,
                    y_of: Scale) -> str:
    """The point that decided, or the path's last point."""
    decided = view.decided_at
    n = decided if decided is not None and decided < len(wins) else len(wins) - 1
    words = ("decided here: %s" % view.state if decided is not None else
             "the evidence now: %d wins of %d" % (wins[n], n))
    kind = view.state if decided is not None else "now"
    return ('<circle class="point %s" cx="%s" cy="%s" r="5"><title>%s</title></circle>' % (
        kind, coordinate(x_of(n)), coordinate(y_of(wins[n])), svg_text(words)))


def _legend(left: int, y: int, per_row: int) -> List[str]:
    items: Tuple[Tuple[str, str], ...] = (("boundary pass", "pass boundary"),
                                          ("boundary futile", "futility boundary"),
                                          ("path", "the path"), ("look", "end of a look"))
    out = []
    x = float(left)
    for index, (kind, words) in enumerate(items):
        if index and not index % per_row:  # the next row
            x, y = float(left), y + 14
        out.append('<line class="%s" x1="%s" y1="%d" x2="%s" y2="%d"/>' % (
            kind, coordinate(x), y - 4, coordinate(x + 18), y - 4))
        out.append('<text class="legend" x="%s" y="%d">%s</text>' % (
            coordinate(x + 22), y, svg_text(words)))
        x += 22 + text_width(words) + 14
    return out
