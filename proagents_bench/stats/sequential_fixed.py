"""What a sequential design (:mod:`.sequential`) is compared with: the fixed design of the
same power (the exact one-sided binomial test, McNemar's for theta0 = 1/2, on a fixed number
of discordant units, or on a fixed number of units run), the chance that such a fixed rule,
looked at again after every batch, ever passes, and the design's operating characteristics.

**Repeated looks at a fixed rule.** :func:`repeated_look_false_pass` gives the exact chance
that McNemar's fixed one-sided test at alpha rejects at some look of a nested chain of looks
(Armitage, McPherson and Rowe 1969, "Repeated significance tests on accumulating data", J. R.
Stat. Soc. A 132:235-244, showed how fast it grows): what a gate run again after every batch
really has.
"""

from __future__ import annotations

from bisect import bisect_right
from fractions import Fraction
from itertools import accumulate
from math import comb
from operator import add, mul
from typing import Iterable, List, NamedTuple, Sequence, Tuple

from .discordant_paths import HALF, MAX_DISCORDANT, chances, crossings, ever_crossing, step
from .exact import to_float
from .sequential import Boundary, check_design
from .sequential_looks import discordance_weights

# How near its target a screened double must be for the exact sum to decide
# (:func:`fixed_units`).
SCREEN_MARGIN = 1e-9


class Characteristics(NamedTuple):
    """A boundary's operating characteristics, every figure exact (:func:`characteristics`):

    - ``false_pass``: P(ever crossing the pass boundary | theta0), futility ignored: the
      guarantee, at most alpha;
    - ``false_pass_obeyed``: the same when futility stops are obeyed (smaller);
    - ``power``: P(PASS | theta1), futility obeyed;
    - ``expected_null``, ``expected_alternative``: expected discordant units to a decision
      at theta0 and at theta1; ``largest_expected`` and ``largest_expected_at``: the largest
      expected sample over the grid of chances :func:`characteristics` was given, and where;
    - ``max_discordant``: the worst case, N;
    - ``fixed_size`` and ``fixed_critical``: the fixed design of the same power, the least n
      whose exact one-sided binomial test at alpha (pass when wins >= ``fixed_critical``)
      has at least ``power`` at theta1, and ``fixed_power``, its power.
    """
    false_pass: Fraction
    false_pass_obeyed: Fraction
    power: Fraction
    expected_null: Fraction
    expected_alternative: Fraction
    largest_expected: Fraction
    largest_expected_at: Fraction
    max_discordant: int
    fixed_size: int
    fixed_critical: int
    fixed_power: Fraction



# The fixed design it is compared with, and repeated looks at a fixed rule.

def critical_value(size: int, alpha: Fraction, theta0: Fraction = HALF) -> int:
    """The least c with P(Binomial(size, theta0) >= c) <= alpha: the exact one-sided
    binomial test at alpha passes with c wins of ``size`` or more (size + 1: it cannot pass;
    McNemar's exact one-sided test for theta0 = 1/2).

    >>> critical_value(6, Fraction(1, 40)), critical_value(5, Fraction(1, 40))
    (6, 6)
    """
    win, loss, base = chances(Fraction(theta0))
    row = [comb(size, wins) * win ** wins * loss ** (size - wins) for wins in range(size + 1)]
    return _least_tail(row, Fraction(alpha) * base ** size)


def fixed_design(alpha: Fraction, theta0: Fraction, theta1: Fraction, power: Fraction,
                 limit: int = MAX_DISCORDANT) -> Tuple[int, int, Fraction]:
    """(n, c, its power): the least n of discordant units whose exact one-sided binomial
    test at alpha (pass with c wins or more) has power at least ``power`` at theta1; the
    fixed design with the same power. Exact pmf rows, O(n^2) integer steps.

    >>> fixed_design(Fraction(1, 40), HALF, Fraction(4, 5), Fraction(4, 5))[:2]
    (20, 15)
    """
    win0, loss0, base0 = chances(Fraction(theta0))
    win1, loss1, base1 = chances(Fraction(theta1))
    alpha, power = Fraction(alpha), Fraction(power)
    null, alternative = [1], [1]
    for size in range(1, limit + 1):
        null = step(null, win0, loss0)
        alternative = step(alternative, win1, loss1)
        critical = _least_tail(null, alpha * base0 ** size)
        reached = Fraction(sum(alternative[critical:]), base1 ** size)
        if reached >= power:
            return size, critical, reached
    raise ValueError("no fixed design of at most %d units reaches that power" % limit)


def repeated_look_false_pass(sizes: Sequence[int], alpha: Fraction,
                             theta0: Fraction = HALF) -> Fraction:
    """The exact chance that the fixed exact one-sided binomial test at alpha (McNemar's,
    for theta0 = 1/2) passes at one look or more of a nested chain of looks at ``sizes``
    discordant units (increasing), each a fair coin under the null: the false pass of a
    fixed gate run again after every batch (Armitage, McPherson and Rowe 1969).

    >>> round(float(repeated_look_false_pass([20, 40, 60, 80, 100], Fraction(1, 40))), 4)
    0.0528
    """
    sizes = list(sizes)
    if not sizes or sizes != sorted(set(sizes)) or sizes[0] < 1:
        raise ValueError("look sizes must be increasing positive ints")
    passing = [n + 1 for n in range(sizes[-1] + 1)]
    for size in sizes:
        passing[size] = critical_value(size, alpha, theta0)
    return ever_crossing(passing, Fraction(theta0))


# Operating characteristics.

DEFAULT_GRID = tuple(Fraction(k, 100) for k in range(5, 96, 5))


def characteristics(boundary: Boundary,
                    grid: Iterable[Fraction] = DEFAULT_GRID) -> Characteristics:
    """The boundary's exact operating characteristics (:class:`Characteristics`); the
    largest expected sample is sought over ``grid`` (chances of a win) and at theta0 and
    theta1."""
    design = check_design(boundary.design)
    null = crossings(boundary, design.theta0)
    alternative = crossings(boundary, design.theta1)
    power = alternative.pass_probability()
    expected = {design.theta0: null.expected_discordant(),
                design.theta1: alternative.expected_discordant()}
    for theta in grid:
        if Fraction(theta) not in expected:
            expected[Fraction(theta)] = crossings(boundary, Fraction(theta)).expected_discordant()
    largest_at = max(sorted(expected), key=lambda theta: expected[theta])
    size, critical, fixed_power = fixed_design(design.alpha, design.theta0, design.theta1,
                                               power)
    return Characteristics(
        false_pass=ever_crossing(boundary.passing, design.theta0),
        false_pass_obeyed=null.pass_probability(), power=power,
        expected_null=expected[design.theta0], expected_alternative=expected[design.theta1],
        largest_expected=expected[largest_at], largest_expected_at=largest_at,
        max_discordant=design.max_discordant, fixed_size=size, fixed_critical=critical,
        fixed_power=fixed_power)



def fixed_units(alpha: Fraction, theta0: Fraction, theta1: Fraction, power: Fraction,
                rate: Fraction, limit: int = 4 * MAX_DISCORDANT,
                margin: float = SCREEN_MARGIN) -> Tuple[int, float]:
    """(U, its power as a double): the least number of units U whose fixed design, the exact
    one-sided binomial test at alpha on however many of them are discordant (each with
    chance ``rate``), has power at least ``power`` at theta1: the fixed gate's cost in tasks
    or trial pairs, to set beside :func:`looks_characteristics`.

    No U below the fixed design in discordant units (:func:`fixed_design`) can reach the
    power, since every smaller number of discordant units falls short; from there each U is
    screened in doubles made with + - * only (the same bits on every platform): the law of
    the discordant count by the binomial recurrence, each count's power from the exact
    critical values. Their error is below 1e-11 at 40,000 units, far inside ``margin``
    (1e-9): a U whose screened power lies within ``margin`` of the target is decided in
    exact integers instead."""
    alpha, power, rate = Fraction(alpha), Fraction(power), Fraction(rate)
    start, _, _ = fixed_design(alpha, theta0, theta1, power, limit)
    win0, loss0, base0 = chances(Fraction(theta0))
    chance1, chance = to_float(Fraction(theta1)), to_float(rate)
    target = to_float(power)
    criticals = [critical_value(0, alpha, theta0)]
    powers = [1.0 if criticals[0] == 0 else 0.0]  # each count's power, screened
    null, alternative, law = [1], [1.0], [1.0]
    for units in range(1, limit + 1):
        null = step(null, win0, loss0)
        alternative = _floatstep(alternative, chance1)
        law = _floatstep(law, chance)
        criticals.append(_least_tail(null, alpha * base0 ** units))
        powers.append(sum(alternative[criticals[-1]:]))
        if units < start:
            continue
        screened = sum(map(mul, law, powers))
        if screened < target - margin:
            continue
        if screened > target + margin:
            return units, screened
        exact = _mixed_power(units, rate, theta1, criticals)
        if exact >= power:
            return units, to_float(exact)
    raise ValueError("no fixed design of at most %d units reaches that power" % limit)


def _floatstep(row: List[float], chance: float) -> List[float]:
    """The binomial recurrence in doubles: cell s gets row[s] (1 - chance) + row[s - 1]
    chance."""
    stay = 1.0 - chance
    return list(map(add, [cell * stay for cell in row] + [0.0],
                    [0.0] + [cell * chance for cell in row]))


def _least_tail(row: Sequence[int], allowed: Fraction) -> int:
    """The least c with sum(row[c:]) <= allowed (len(row): none), in C-level sums."""
    tails = list(accumulate(reversed(row)))  # tails[k] = sum(row[len - 1 - k:])
    count = bisect_right(tails, allowed)  # how many top cells fit (the tails increase)
    return len(row) - count


def _mixed_power(units: int, rate: Fraction, theta1: Fraction,
                 criticals: Sequence[int]) -> Fraction:
    """sum over d of P(D = d) P(Binomial(d, theta1) >= criticals[d]), D ~ Binomial(units,
    rate), exactly."""
    win1, loss1, base1 = chances(Fraction(theta1))
    weights, total = discordance_weights(units, rate)
    row = [1]
    mixed = 0
    for count, weight in enumerate(weights):
        if count:
            row = step(row, win1, loss1)
        mixed += weight * sum(row[criticals[count]:]) * base1 ** (units - count)
    return Fraction(mixed, total * base1 ** units)
