"""The exact law of a path of discordant units under a boundary: dynamic programmes over
(n, wins), in integers over base**n for a chance of a win theta = numerator / base (2**n for
theta = 1/2), so every probability is an exact :class:`fractions.Fraction`.

A boundary is two sequences indexed by n = 0..N: pass at the first n with wins >=
``passing[n]`` (``passing[n]`` = n + 1: no pass at n), stop for futility at the first n with
wins <= ``futile[n]`` (-1: no stop at n). :func:`ever_crossing` is the chance of ever reaching
the pass boundary, futility ignored (the guarantee of :mod:`.sequential`); :func:`crossings`
the law of the path when the first boundary crossed decides. Pure functions, no I/O.
"""

from __future__ import annotations

from fractions import Fraction
from itertools import repeat
from operator import add, mul
from typing import TYPE_CHECKING, List, NamedTuple, Optional, Sequence, Tuple

from . import MAX_DISCORDANT as MAX_DISCORDANT  # the largest sample a design may have

if TYPE_CHECKING:  # for annotations only
    from typing import Protocol

    class Thresholds(Protocol):
        """A boundary's two sequences (:class:`.sequential.Boundary` is one)."""

        @property
        def passing(self) -> Sequence[int]: ...

        @property
        def futile(self) -> Sequence[int]: ...

HALF = Fraction(1, 2)


class Crossings(NamedTuple):
    """The exact law of a path under a chance ``theta`` = numerator / ``base`` of a win: for
    each n = 0..N the weight of the paths that pass at n (``passed``), stop for futility at n
    (``stopped``), are still undecided after n (``undecided``) and, of those, reach a closing
    threshold at n (``closed``; zeros unless :func:`crossings` was given them), each over
    base**n."""
    base: int
    passed: Tuple[int, ...]
    stopped: Tuple[int, ...]
    undecided: Tuple[int, ...]
    closed: Tuple[int, ...]

    def probability(self, weights: Sequence[int], upto: Optional[int] = None) -> Fraction:
        """sum over n <= ``upto`` (default N) of weights[n] / base**n, exactly."""
        last = len(weights) - 1 if upto is None else upto
        return scaled_sum(weights[:last + 1], self.base)

    def pass_probability(self) -> Fraction:
        return self.probability(self.passed)

    def futility_probability(self) -> Fraction:
        return self.probability(self.stopped)

    def expected_discordant(self) -> Fraction:
        """E[discordant units to a decision] = sum over n < N of P(undecided after n)."""
        return self.probability(self.undecided[:-1])



def chances(theta: Fraction) -> Tuple[int, int, int]:
    """(win weight, loss weight, base) with theta = win / base, 1 - theta = loss / base."""
    theta = Fraction(theta)
    if not 0 < theta < 1:
        raise ValueError("a chance must lie strictly between 0 and 1")
    return theta.numerator, theta.denominator - theta.numerator, theta.denominator


def step(row: List[int], win: int, loss: int) -> List[int]:
    """The next column's arrivals: cell s gets row[s] * loss + row[s - 1] * win."""
    if win == loss == 1:
        return list(map(add, row + [0], [0] + row))
    return list(map(add, list(map(mul, row, repeat(loss))) + [0],
                    [0] + list(map(mul, row, repeat(win)))))


def step_back(stay: List[int], rise: List[int], win: int, loss: int) -> List[int]:
    """A backward step: cell s gets stay[s] * loss + rise[s] * win."""
    if win == loss == 1:
        return list(map(add, stay, rise))
    return list(map(add, map(mul, stay, repeat(loss)), map(mul, rise, repeat(win))))


def scaled_sum(weights: Sequence[int], base: int) -> Fraction:
    """sum over n of weights[n] / base**n, exactly (Horner's rule on the integers)."""
    total = 0
    for weight in weights:
        total = total * base + weight
    return Fraction(total, base ** (len(weights) - 1)) if weights else Fraction(0)


def crossing_weights(passing: Sequence[int], theta: Fraction,
                   keep: int = 0) -> Tuple[int, List[List[int]]]:
    """(W, tops): W / base**N = P(wins >= passing[n] for some n = 1..N) under ``theta``,
    futility ignored; with ``keep``, tops[n] holds the arrivals at n of the ``keep`` cells
    below passing[n] (weights over base**n of the paths reaching (n, s) without crossing
    before n), lowest first, ending at passing[n] - 1.

    Without ``keep``, a cell from which even a win at every later unit never reaches the
    boundary (s + m - n < passing[m] for every m > n) is dropped: it cannot add to W, and
    for a boundary of slope rho near 1/2 this halves the work."""
    win, loss, base = chances(theta)
    size = len(passing) - 1
    # dead[n]: cells below it at n can never cross later: min over m > n of passing[m] - m,
    # plus n (for n = N nothing follows: everything left is dead).
    dead = [0] * (size + 1)
    least = None
    for n in range(size, -1, -1):
        dead[n] = size + 2 if least is None else least + n
        least = passing[n] - n if least is None else min(least, passing[n] - n)
    row = [1]
    low = 0  # the wins of row[0]
    total = 0
    tops: List[List[int]] = [[]]
    for n in range(1, size + 1):
        arrivals = step(row, win, loss)  # wins low .. low + len(row)
        threshold = passing[n] - low
        if keep:  # (cells a lowered threshold before n left out of reach arrive with 0)
            first, last = max(0, threshold - keep), max(threshold, 0)
            kept = arrivals[first:last]
            tops.append(kept + [0] * (last - first - len(kept)))
        crossed = sum(arrivals[max(threshold, 0):])
        total = total * base + crossed
        start = max(dead[n] - low, 0) if not keep else 0
        row = arrivals[start:max(threshold, start)]
        low += start
    return total, tops


def ever_crossing(passing: Sequence[int], theta: Fraction = HALF) -> Fraction:
    """P(wins >= passing[n] for some n = 1..len(passing) - 1) when each discordant unit is a
    win with chance ``theta`` (default 1/2): the false pass of a pass boundary whatever the
    looks and futility stops, exactly.

    >>> ever_crossing([1, 2, 2, 3])  # 2 wins of 2, or 3 of 3 (which 2 of 2 already was)
    Fraction(1, 4)
    >>> ever_crossing([1, 2, 2, 2])  # 2 wins of 2, or 2 of 3: WW, WLW, LWW
    Fraction(1, 2)
    """
    total, _ = crossing_weights(passing, Fraction(theta))
    return Fraction(total, chances(Fraction(theta))[2] ** (len(passing) - 1))


def crossings(boundary: Thresholds, theta: Fraction,
              closing: Optional[Sequence[int]] = None) -> Crossings:
    """The exact law of the design's path under ``theta``, futility stops obeyed (the
    decision's own rule: the first boundary crossed decides). With ``closing`` (the closing
    thresholds, :func:`.sequential_looks.closing_boundaries`), ``closed[n]`` is the weight of
    the paths still undecided after n whose wins reach closing[n]: those a closing look at n
    passes."""
    win, loss, base = chances(Fraction(theta))
    passing, futile = boundary.passing, boundary.futile
    low = 0  # the wins of row[0]
    row = [1]
    passed, stopped, undecided, closed = [0], [0], [1], [0]
    for n in range(1, len(passing)):
        arrivals = step(row, win, loss)  # wins low .. low + len(row)
        top, bottom = passing[n] - low, futile[n] + 1 - low
        passed.append(sum(arrivals[max(top, 0):]))
        stopped.append(sum(arrivals[:max(min(bottom, len(arrivals)), 0)]))
        start = max(bottom, 0)
        row = arrivals[start:max(top, start)]
        low += start
        undecided.append(sum(row))
        closed.append(0 if closing is None else sum(row[max(closing[n] - low, 0):]))
    return Crossings(base, tuple(passed), tuple(stopped), tuple(undecided), tuple(closed))
