"""Item analysis, exact: how well a test task separates the systems that take it, and which
tasks lie far from the others (a benchmark's health, :mod:`proagents_bench.maintenance`).

**The discrimination index** is classical test theory's corrected item-total correlation
(the *item-rest* correlation; Crocker & Algina 1986, *Introduction to Classical and Modern
Test Theory*, ch. 14; Ebel & Frisbie 1991, *Essentials of Educational Measurement*, ch. 13):
the Pearson correlation, over the systems, between a system's score on the task and its
score on every *other* task. With a score that is 0 or 1 it is the point-biserial
correlation; here a system's score on a task is its trial success rate (passing trials over
trials), the item-rest correlation of a partial-credit item. The task's own score is left
out of the total so that a task never correlates with itself. Positive: the systems that do
better elsewhere do better on this task. Near 0: it tells nothing about who is better.
Negative: the better systems fail it more often (a wrong answer key, an ambiguous task).

It is computed from integer scores (every rate scaled to a common denominator, which a
correlation does not see), so the sums of squares are integers and the index is exact:
r = N / sqrt(Vx Vr) with N = S Sxr - Sx Sr, Vx = S Sxx - Sx^2, Vr = S Srr - Sr^2 over the S
systems. It is **not estimable** (never 0) with fewer than :data:`MIN_SYSTEMS` systems (with
two, any task that varies correlates +-1), when the systems' total scores are all equal,
and for a task every system scores the same on (Vx = 0: it separates nobody) or whose rest
scores are all equal (Vr = 0). Comparisons with a threshold are exact (r >= t: N > 0 and
N^2 >= t^2 Vx Vr); the value shown is r rounded half away from zero to :data:`PLACES`
decimal places, by integer square roots.

**Outliers** are Tukey's (1977, *Exploratory Data Analysis*): a value beyond the fences
Q1 - k IQR and Q3 + k IQR, k = 3/2, with Q1 and Q3 the nearest-rank quartiles (the
ceil(n/4)-th and ceil(3n/4)-th smallest, as the contract's p95 is the ceil(0.95 n)-th), at
least :data:`MIN_FENCE_VALUES` values.
"""

from __future__ import annotations

from fractions import Fraction
from math import isqrt
from typing import Optional, Sequence, Tuple

from .exact import Exact
from .quantiles import nearest_rank

MIN_SYSTEMS = 3
PLACES = 4
MIN_FENCE_VALUES = 4
TUKEY_K = Fraction(3, 2)
Q1, Q3 = Fraction(1, 4), Fraction(3, 4)


class Correlation:
    """An exact correlation r = numerator / sqrt(variances), the variances' product > 0."""

    __slots__ = ("numerator", "variances")

    def __init__(self, numerator: int, variances: int) -> None:
        self.numerator = numerator
        self.variances = variances

    def at_least(self, threshold: Fraction) -> bool:
        """r >= threshold, for threshold > 0, exactly.

        >>> Correlation(1, 4).at_least(Fraction(1, 2)), Correlation(1, 5).at_least(Fraction(1, 2))
        (True, False)
        """
        return self.numerator > 0 and (
            self.numerator * self.numerator * threshold.denominator ** 2
            >= threshold.numerator ** 2 * self.variances)

    def at_most(self, threshold: Fraction) -> bool:
        """r <= threshold, for threshold < 0, exactly.

        >>> Correlation(-1, 4).at_most(Fraction(-1, 2)), Correlation(-1, 5).at_most(Fraction(-1, 2))
        (True, False)
        """
        return self.numerator < 0 and (
            self.numerator * self.numerator * threshold.denominator ** 2
            >= threshold.numerator ** 2 * self.variances)

    def rounded(self, places: int = PLACES) -> Fraction:
        """r rounded half away from zero to ``places`` decimal places, exactly.

        >>> Correlation(1, 3).rounded(), Correlation(-2, 4).rounded()
        (Fraction(2887, 5000), Fraction(-1, 1))
        """
        scale = 10 ** places
        # floor(2 scale |r|) = isqrt(floor(4 scale^2 N^2 / V)); then half up.
        twice = isqrt(4 * scale * scale * self.numerator * self.numerator // self.variances)
        magnitude = Fraction((twice + 1) // 2, scale)
        return -magnitude if self.numerator < 0 else magnitude


class ItemAnalysis:
    """The item-rest correlations of tasks taken by the same systems.

    ``totals`` are the systems' total integer scores over every task (the same scale as the
    item scores later given to :meth:`correlation`). ``estimable`` is False, with ``reason``
    saying why, when no task's index can be estimated.

    >>> analysis = ItemAnalysis([3, 2, 1])
    >>> analysis.correlation([1, 1, 0]).rounded(), analysis.correlation([1, 0, 1]).rounded()
    (Fraction(1, 2), Fraction(-1, 2))
    >>> analysis.correlation([1, 1, 1]) is None
    True
    >>> ItemAnalysis([2, 2, 2]).reason
    'every system has the same total score'
    """

    def __init__(self, totals: Sequence[int]) -> None:
        self.count = len(totals)
        self.totals = list(totals)
        self.total = sum(self.totals)
        self.total_squares = sum(value * value for value in self.totals)
        if self.count < MIN_SYSTEMS:
            self.reason = "%d system%s: a discrimination index needs at least %d" % (
                self.count, "" if self.count == 1 else "s", MIN_SYSTEMS)
        elif len(set(self.totals)) == 1:
            self.reason = "every system has the same total score"
        else:
            self.reason = ""

    @property
    def estimable(self) -> bool:
        return not self.reason

    def correlation(self, scores: Sequence[int]) -> Optional[Correlation]:
        """The item-rest correlation of one task's integer ``scores`` (one per system, in the
        order of ``totals``); None when it is not estimable."""
        if self.reason:
            return None
        count = self.count
        sum_x = sum(scores)
        sum_xx = sum(value * value for value in scores)
        vx = count * sum_xx - sum_x * sum_x
        if vx == 0:
            return None
        sum_tx = sum(total * value for total, value in zip(self.totals, scores))
        sum_r = self.total - sum_x
        sum_rr = self.total_squares - 2 * sum_tx + sum_xx
        sum_xr = sum_tx - sum_xx
        vr = count * sum_rr - sum_r * sum_r
        if vr == 0:
            return None
        return Correlation(count * sum_xr - sum_x * sum_r, vx * vr)

    def why_not(self, scores: Sequence[int]) -> str:
        """Why :meth:`correlation` is None for ``scores``."""
        if self.reason:
            return self.reason
        if len(set(scores)) == 1:
            return "every system scores the same on this task"
        return "every system scores the same on the other tasks"


def tukey_fences(values: Sequence[Exact],
                 k: Fraction = TUKEY_K) -> Optional[Tuple[Fraction, Fraction]]:
    """(low, high) fences of exact ``values``: Q1 - k IQR and Q3 + k IQR with nearest-rank
    quartiles; None for fewer than :data:`MIN_FENCE_VALUES` values.

    >>> tukey_fences([1, 2, 3, 4, 5, 6, 7, 100])
    (Fraction(-4, 1), Fraction(12, 1))
    >>> tukey_fences([1, 2, 3]) is None
    True
    """
    if len(values) < MIN_FENCE_VALUES:
        return None
    ordered = sorted(values)  # ints, Decimals and Fractions compare exactly with each other
    low, high = Fraction(nearest_rank(ordered, Q1)), Fraction(nearest_rank(ordered, Q3))
    spread = high - low
    return low - k * spread, high + k * spread
