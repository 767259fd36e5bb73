"""Exact tests on the paired units' differences: McNemar's exact test (two-sided, and
one-sided on the discordant units: the sign test) and the one-sided sign-flip randomization
test it is a case of, with that test's normal limit for large samples; each p-value exact, or
the double nearest it, and each decision at a level taken exactly.

Pure functions, no I/O. A unit's difference is candidate minus baseline: a task's is -1, 0 or
1, a family's the sum over its tasks.
"""

from __future__ import annotations

from fractions import Fraction
from math import comb, gcd
from typing import Callable, Dict, Sequence, Tuple, TypedDict

from .exact import Exact, sqrt_float, to_float
from .normal import normal_cdf

def _check_discordant(candidate_only: int, baseline_only: int) -> None:
    for number in (candidate_only, baseline_only):
        if isinstance(number, bool) or not isinstance(number, int) or number < 0:
            raise ValueError("discordant counts are non-negative ints")


def mcnemar_exact_p(candidate_only: int, baseline_only: int) -> Fraction:
    """McNemar's exact two-sided p-value on the discordant pairs b and c, as a Fraction.

    Under H0 each discordant task favours either system with chance 1/2, so
    X ~ Binomial(b + c, 1/2) and p = min(1, 2 P(X <= min(b, c))) =
    min(1, 2 sum_{i <= min(b,c)} C(b+c, i) / 2**(b+c)) (McNemar 1947; the exact form as in
    Fagerland, Lydersen and Laake 2013, BMC Med. Res. Methodol. 13:91). p = 1 without
    discordant pairs. Exact, and quadratic in b + c (each term is a (b+c)-bit integer):
    the document uses :func:`mcnemar_exact_p_float`, which is linear.

    >>> mcnemar_exact_p(5, 1)
    Fraction(7, 32)
    """
    _check_discordant(candidate_only, baseline_only)
    discordant = candidate_only + baseline_only
    if discordant == 0:
        return Fraction(1)
    # C(D, i+1) = C(D, i) (D - i) / (i + 1), exactly.
    term = tail = 1
    for i in range(min(candidate_only, baseline_only)):
        term = term * (discordant - i) // (i + 1)
        tail += term
    return min(Fraction(1), Fraction(2 * tail, 2 ** discordant))


# Working precision, in bits, of the tail sum in :func:`mcnemar_exact_p_float`: so far
# beyond a double's 53 that its error bound straddles a rounding boundary about once in
# 2**70 cases (then the exact sum decides).
TAIL_BITS = 128


def _tail_bounds(total: int, smaller: int, bits: int) -> Tuple[int, int, int]:
    """(low, slack, exponent) with low 2**exponent <= sum_{i <= smaller} C(total, i) <=
    (low + slack) 2**exponent, for smaller <= total / 2, in O(smaller) steps on integers of
    about ``bits`` bits.

    The terms t_i = C(total, i) grow with i up to total / 2 (t_{i+1} / t_i =
    (total - i) / (i + 1) > 1), and are carried as a (bits + 1)-bit integer times a common
    power of two, every division and shift rounding down. Each of the at most 2 smaller
    roundings of a term loses less than 2**-bits of it, and each shift of the running sum
    less than 2**-bits of the final sum, so low >= S (1 - 3 smaller 2**-bits) and the true
    sum S is at most low / (1 - 3 smaller 2**-bits) <= low + slack.
    """
    term = 1 << bits
    low = term
    exponent = -bits
    for i in range(smaller):
        term = term * (total - i) // (i + 1)
        excess = term.bit_length() - bits - 1
        if excess > 0:
            term >>= excess
            low >>= excess
            exponent += excess
        low += term
    slack = (6 * smaller * low >> bits) + 1
    return low, slack, exponent


def _bracketed_float(total: int, smaller: int, value_of: Callable[[Fraction], Fraction],
                     exact: Callable[[], Fraction], bits: int) -> float:
    """The double nearest value_of(S) for S = sum_{i <= smaller} C(total, i), value_of
    monotone: S is bracketed by :func:`_tail_bounds`, and when both ends of the bracket give
    the same double that double is the answer; otherwise (a bracket straddling a rounding
    boundary) ``exact()`` is."""
    low, slack, exponent = _tail_bounds(total, smaller, bits)
    scale = Fraction(2) ** exponent
    ends = [to_float(value_of(sum_end * scale)) for sum_end in (low, low + slack)]
    if ends[0] == ends[1]:
        return ends[0]
    return to_float(exact())


def mcnemar_exact_p_float(candidate_only: int, baseline_only: int,
                          bits: int = TAIL_BITS) -> float:
    """The double nearest :func:`mcnemar_exact_p` (the very value ``to_float`` gives of the
    exact Fraction), in O(min(b, c)) steps on small integers instead of O((b + c)**2).

    The tail sum S is bracketed by :func:`_tail_bounds`; p = min(1, 2 S / 2**(b+c)) is
    monotone in S, so when both ends of the bracket round to the same double that double is
    the answer; otherwise (a bracket straddling a rounding boundary) the exact Fraction is
    computed.

    >>> mcnemar_exact_p_float(5, 1) == 7 / 32
    True
    """
    _check_discordant(candidate_only, baseline_only)
    discordant = candidate_only + baseline_only
    if discordant == 0:
        return 1.0
    whole = Fraction(1, 2 ** (discordant - 1))
    return _bracketed_float(discordant, min(candidate_only, baseline_only),
                            lambda tail: min(Fraction(1), tail * whole),
                            lambda: mcnemar_exact_p(candidate_only, baseline_only), bits)


def sign_test_p(gains: int, losses: int) -> Fraction:
    """McNemar's exact one-sided p-value on the discordant units, as a Fraction: P(X >= gains)
    for X ~ Binomial(gains + losses, 1/2), the chance of at least this many of the discordant
    units favouring the candidate were each equally likely to favour either system. This is
    the exact sign test (Dixon and Mood 1946, "The statistical sign test", J. Am. Stat. Assoc.
    41:557-566), which McNemar's test is on paired 0/1 outcomes (McNemar 1947; Fagerland,
    Lydersen and Laake 2013). Conditionally on the number of discordant units its size is at
    most the level, for every number of units: P(p <= level | gains + losses) <= level when
    each unit favours either system with chance 1/2. 1 without discordant units.

    >>> sign_test_p(5, 0), sign_test_p(3, 1), sign_test_p(12, 0), sign_test_p(1, 1)
    (Fraction(1, 32), Fraction(5, 16), Fraction(1, 4096), Fraction(3, 4))
    """
    _check_discordant(gains, losses)
    discordant = gains + losses
    if discordant == 0:
        return Fraction(1)
    # sum_{i >= gains} C(D, i) = sum_{j <= losses} C(D, j), by C(D, i) = C(D, D - i).
    term = tail = 1
    for i in range(losses):
        term = term * (discordant - i) // (i + 1)
        tail += term
    return Fraction(tail, 2 ** discordant)


def sign_test_p_float(gains: int, losses: int, bits: int = TAIL_BITS) -> float:
    """The double nearest :func:`sign_test_p`, in O(min(gains, losses)) steps (the tail is
    bracketed as in :func:`mcnemar_exact_p_float`; with more losses than gains the p-value is
    1 - P(X <= gains - 1)).

    >>> sign_test_p_float(5, 0) == 1 / 32, sign_test_p_float(0, 3)
    (True, 1.0)
    """
    _check_discordant(gains, losses)
    discordant = gains + losses
    if discordant == 0 or gains == 0:
        return 1.0
    whole = Fraction(1, 2 ** discordant)
    if losses <= gains:
        return _bracketed_float(discordant, losses, lambda tail: tail * whole,
                                lambda: sign_test_p(gains, losses), bits)
    return _bracketed_float(discordant, gains - 1, lambda tail: 1 - tail * whole,
                            lambda: sign_test_p(gains, losses), bits)


def sign_test_rejects(gains: int, losses: int, level: Exact, bits: int = TAIL_BITS) -> bool:
    """Whether :func:`sign_test_p` <= ``level`` (an exact Fraction or Decimal), decided
    exactly in O(min(gains, losses)) steps: the tail sum is bracketed and compared with
    level 2**D, and only a bracket that straddles it computes the exact sum.

    >>> sign_test_rejects(5, 0, Fraction(1, 40)), sign_test_rejects(6, 0, Fraction(1, 40))
    (False, True)
    """
    _check_discordant(gains, losses)
    exact_level = Fraction(level)
    discordant = gains + losses
    if exact_level >= Fraction(1, 2):
        return sign_test_p(gains, losses) <= exact_level
    if losses >= gains:  # p >= 1/2 > level
        return False
    low, slack, exponent = _tail_bounds(discordant, losses, bits)
    # p <= level iff S 2**-e <= limit
    limit = exact_level * Fraction(2) ** (discordant - exponent)
    if low + slack <= limit:
        return True
    if low > limit:
        return False
    return sign_test_p(gains, losses) <= exact_level


# How exact_test_summary computed its test: McNemar's binomial tail, the randomization test
# counted exactly, or its normal limit.
MCNEMAR, RANDOMIZATION, NORMAL_LIMIT = "mcnemar", "randomization", "normal"
EXACT_TEST_METHODS = (MCNEMAR, RANDOMIZATION, NORMAL_LIMIT)
# The exact randomization test's work (the sums its subset counts can take, times the units)
# up to which it is counted exactly; beyond, its normal limit. A few tenths of a second.
EXACT_TEST_WORK = 2000000


def _common_size(magnitudes: Sequence[int]) -> int:
    """The greatest common divisor of the magnitudes (0 for none)."""
    divisor = 0
    for magnitude in magnitudes:
        divisor = gcd(divisor, magnitude)
    return divisor


def _subset_tail(magnitudes: Sequence[int], least: int) -> int:
    """How many subsets of ``magnitudes`` (positive ints) sum to ``least`` or more: the
    counts of each sum, built one magnitude class at a time (Pascal's rows)."""
    counts = [1]
    classes: Dict[int, int] = {}
    for magnitude in magnitudes:
        classes[magnitude] = classes.get(magnitude, 0) + 1
    for magnitude, many in sorted(classes.items()):
        row = [comb(many, x) for x in range(many + 1)]
        grown = [0] * (len(counts) + magnitude * many)
        for start, count in enumerate(counts):
            if count:
                for x, ways in enumerate(row):
                    grown[start + magnitude * x] += count * ways
        counts = grown
    return sum(counts[max(least, 0):])


def randomization_p(values: Sequence[int]) -> Fraction:
    """The one-sided sign-flip randomization test's p-value on the units' differences, as a
    Fraction: the share of the 2**N sign assignments e_u = +-1 with sum e_u |v_u| >= sum v_u
    (Fisher 1935, "The Design of Experiments", section 21; Pitman 1937, "Significance tests
    which may be applied to samples from any populations", J. R. Stat. Soc. Suppl. 4:119-130).
    Were each unit's difference as likely to favour either system (a symmetric null), its
    size given the units' |v_u| is at most the level, for every number of units. With every
    |v_u| the same it is McNemar's exact one-sided test (:func:`sign_test_p`). Exact, and
    beyond equal magnitudes O(N sum |v_u|): :func:`exact_test_summary` takes its normal
    limit for large samples.

    >>> randomization_p([2, 1, 1]), randomization_p([1, 1, 1]), randomization_p([3, 1, -1])
    (Fraction(1, 8), Fraction(1, 8), Fraction(3, 8))
    """
    values = [value for value in values if value != 0]
    if not values:
        return Fraction(1)
    magnitudes = [abs(value) for value in values]
    divisor = _common_size(magnitudes)
    if all(magnitude == divisor for magnitude in magnitudes):
        gains = sum(1 for value in values if value > 0)
        return sign_test_p(gains, len(values) - gains)
    positive = sum(value for value in values if value > 0) // divisor
    return Fraction(_subset_tail([magnitude // divisor for magnitude in magnitudes], positive),
                    2 ** len(values))


class ExactTest(TypedDict):
    """:func:`exact_test_summary`'s result, JSON-ready."""
    unit: str
    gains: int
    losses: int
    p_one_sided: float
    level: float
    rejects: bool
    method: str


def exact_test_summary(values: Sequence[int], confidence: Exact, unit: str) -> ExactTest:
    """The one-sided test on the units' non-zero differences ``values`` at level
    (1 - confidence) / 2, JSON-ready: ``unit``, ``gains`` and ``losses`` (units above and
    below 0), ``p_one_sided``, ``level``, ``rejects`` and ``method``: ``mcnemar`` when every
    unit's difference has the same size (McNemar's exact test: the binomial tail, exact and
    linear in time, :func:`sign_test_rejects`), ``randomization`` when the sign-flip test is
    counted exactly (:func:`randomization_p`, while its work is at most EXACT_TEST_WORK),
    ``normal`` beyond: the randomization distribution's normal limit (mean 0, variance
    sum v_u**2) with a continuity correction of half its lattice step."""
    level = (1 - Fraction(confidence)) / 2
    values = [value for value in values if value != 0]
    gains = sum(1 for value in values if value > 0)
    losses = len(values) - gains
    rejects: bool
    method = one_sided_method(values)
    if method == MCNEMAR:
        p_value = sign_test_p_float(gains, losses)
        rejects = sign_test_rejects(gains, losses, level)
    elif method == RANDOMIZATION:
        exact_p = randomization_p(values)
        p_value, rejects = to_float(exact_p), exact_p <= level
    else:
        p_value = normal_limit_p(values)
        rejects = p_value <= to_float(level)
    return {"unit": unit, "gains": gains, "losses": losses, "p_one_sided": p_value,
            "level": to_float(level), "rejects": rejects, "method": method}


def one_sided_method(values: Sequence[int]) -> str:
    """How the one-sided test on the units' non-zero differences ``values`` is computed:
    McNemar's exact test when every difference has the same size (tasks' always have),
    the randomization test counted exactly while its work is at most EXACT_TEST_WORK, else
    its normal limit."""
    magnitudes = [abs(value) for value in values]
    divisor = _common_size(magnitudes)
    if all(magnitude == divisor for magnitude in magnitudes):
        return MCNEMAR
    if len(values) * (sum(magnitudes) // divisor + 1) <= EXACT_TEST_WORK:
        return RANDOMIZATION
    return NORMAL_LIMIT


def normal_limit_p(values: Sequence[int]) -> float:
    """The sign-flip randomization test's one-sided p-value by its normal limit (mean 0,
    variance sum v_u**2), with a continuity correction of half its lattice step."""
    divisor = _common_size([abs(value) for value in values])
    spread = sqrt_float(sum(value * value for value in values))
    return 1.0 - normal_cdf((sum(values) - divisor) / spread)


def one_sided_p(values: Sequence[int]) -> Tuple[Fraction, str]:
    """(p-value, method) of the one-sided test that the units' differences ``values`` favour
    the candidate, computed as :func:`exact_test_summary` computes it (its method by
    :func:`one_sided_method`), the p-value exact for McNemar's and the randomization test
    (the normal limit's double, as a Fraction, beyond): what a procedure over many such
    tests (Holm's, :mod:`.multiplicity`) compares exactly.

    >>> one_sided_p([1, 1, 1, -1]), one_sided_p([2, 1, 1])
    ((Fraction(5, 16), 'mcnemar'), (Fraction(1, 8), 'randomization'))
    """
    values = [value for value in values if value != 0]
    method = one_sided_method(values)
    if method == MCNEMAR:
        gains = sum(1 for value in values if value > 0)
        return sign_test_p(gains, len(values) - gains), method
    if method == RANDOMIZATION:
        return randomization_p(values), method
    return Fraction(normal_limit_p(values)), method
