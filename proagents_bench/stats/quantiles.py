"""The nearest-rank rule, the one quantile of the contract: the p95 latency and the
bootstrap interval's bounds are both the ceil(p n)-th smallest value (at least the first).
"""

from __future__ import annotations

import heapq
from fractions import Fraction
from typing import TYPE_CHECKING, Sequence, TypeVar

if TYPE_CHECKING:  # for annotations only
    from _typeshed import SupportsRichComparisonT

_T = TypeVar("_T")


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
    ceil(fraction * n)-th smallest is the (n - that + 1)-th largest.

    >>> nearest_rank_unsorted([5, 1, 4, 2, 3], Fraction(95, 100))
    5
    """
    count = len(values)
    return heapq.nlargest(count - nearest_rank_index(fraction, count), values)[-1]
