"""Many comparisons at once: the exact one-sided sign test and Holm's step-down procedure, and
the exact chance of a false alarm with and without it.

A release compares baseline and candidate on K benchmarks and asks of each whether the
candidate is worse (a regression) or better (an improvement): 2K one-sided hypotheses. Each
is tested exactly on the benchmark's discordant test tasks (McNemar's test, one-sided, which
on paired 0/1 outcomes is the sign test: :func:`.exact_tests.sign_test_p`), and the family is
controlled by Holm's step-down procedure, so that with no true difference anywhere the chance
of reporting any regression or improvement is at most the family-wise level, whatever the
dependence between the tests.

Everything is an exact :class:`~fractions.Fraction`. Pure functions, no I/O.
"""

from __future__ import annotations

from fractions import Fraction
from typing import TYPE_CHECKING, List, Optional, Sequence, Tuple

from .exact_tests import sign_test_p

if TYPE_CHECKING:  # for annotations only
    from .exact import Exact


def holm(p_values: Sequence[Fraction], level: Exact) -> Tuple[List[Fraction], List[bool]]:
    """Holm's step-down procedure (Holm 1979, "A simple sequentially rejective multiple test
    procedure", Scand. J. Statist. 6:65-70) on m p-values at family-wise level ``level``:
    (the adjusted p-values, whether each hypothesis is rejected), in the order given.

    With the p-values sorted, p_(1) <= ... <= p_(m), the adjusted p-value of the i-th is
    max_{j <= i} min(1, (m - j + 1) p_(j)), and a hypothesis is rejected when its adjusted
    p-value is at most the level: the step-down rule "reject H_(1), H_(2), ... while p_(j) <=
    level / (m - j + 1)". It holds the chance of rejecting any true hypothesis at or below
    the level under any dependence between the tests. Ties are sorted by position, which
    changes no adjusted value.

    >>> adjusted, rejected = holm([Fraction(1, 100), Fraction(4, 100), Fraction(3, 100)],
    ...                           Fraction(5, 100))
    >>> [str(value) for value in adjusted], rejected
    (['3/100', '3/50', '3/50'], [True, False, False])
    """
    level = Fraction(level)
    count = len(p_values)
    order = sorted(range(count), key=lambda index: (p_values[index], index))
    adjusted: List[Fraction] = [Fraction(0)] * count
    running = Fraction(0)
    for rank, index in enumerate(order):
        running = max(running, min(Fraction(1), (count - rank) * Fraction(p_values[index])))
        adjusted[index] = running
    return adjusted, [value <= level for value in adjusted]


def least_significant_count(discordant: int, level: Exact) -> Optional[int]:
    """The fewest of ``discordant`` pairs that must favour one side for the one-sided sign
    test to reach ``level`` (its p-value <= level); None when no count does.

    >>> least_significant_count(10, Fraction(1, 40)), least_significant_count(5, Fraction(1, 40))
    (9, None)
    """
    level = Fraction(level)
    limit = level * 2 ** discordant
    tail = 0
    term = 1  # C(n, n - j) for j = 0, 1, ...: the upper tail from its far end
    for j in range(discordant + 1):
        tail += term
        if tail > limit:
            return discordant - j + 1 if j else None
        term = term * (discordant - j) // (j + 1)
    return 0


def alarm_chance(discordant: int, level: Exact) -> Fraction:
    """With ``discordant`` pairs and no true difference, the exact chance that either
    one-sided sign test (regression or improvement) reaches ``level``: P(X >= c) + P(X <=
    n - c) for the least significant count c. For level < 1/2 the two events are disjoint
    (both p-values <= level would need P(X >= g) + P(X <= g) <= 2 level < 1, yet the two tails
    overlap in X = g and cover everything).

    >>> alarm_chance(10, Fraction(1, 40)), alarm_chance(5, Fraction(1, 40))
    (Fraction(11, 512), Fraction(0, 1))
    """
    level = Fraction(level)
    if not 0 < level < Fraction(1, 2):
        raise ValueError("a level for alarm_chance lies strictly between 0 and 1/2")
    least = least_significant_count(discordant, level)
    if least is None:
        return Fraction(0)
    return 2 * sign_test_p(least, discordant - least)


def false_alarm_rate(discordant: Sequence[int], level: Exact, adjusted: bool) -> Fraction:
    """The exact chance that a release of independent benchmarks with these numbers of
    discordant test tasks, and no true difference on any, reports some regression or
    improvement (a false alarm) at family-wise ``level``.

    Unadjusted, each benchmark is judged alone at ``level``: each of its two one-sided tests
    at level / 2. With Holm over the 2K hypotheses, some hypothesis is rejected exactly when
    the smallest p-value is at most level / (2K) (the procedure's first step; every later
    step needs the first), so under no true difference the chance is that of each test at
    level / (2K). Either way 1 - prod_k (1 - chance of an alarm on benchmark k).

    >>> float(false_alarm_rate([20, 20], Fraction(1, 20), adjusted=False))
    0.08106584282359108
    >>> float(false_alarm_rate([20, 20], Fraction(1, 20), adjusted=True))
    0.023496200738009065
    """
    level = Fraction(level)
    each = level / 2 if not adjusted else level / (2 * len(discordant))
    quiet = Fraction(1)
    for count in discordant:
        quiet *= 1 - alarm_chance(count, each)
    return 1 - quiet


def independent_false_alarm(level: Exact, gates: int) -> Fraction:
    """The chance that at least one of ``gates`` independent tests, each with false-alarm
    chance ``level``, alarms when nothing changed: 1 - (1 - level)**gates, exactly.

    >>> str(independent_false_alarm(Fraction(1, 20), 2))
    '39/400'
    """
    return 1 - (1 - Fraction(level)) ** gates
