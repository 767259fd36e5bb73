"""The paired comparison's statistics: McNemar's exact test (two-sided, and one-sided on the
discordant units), the one-sided sign-flip randomization test it is a case of, the paired and
the family-clustered standard errors, the normal (or t) interval, the outcome correlation and
the minimum detectable effect, in exact arithmetic where it can be (see :mod:`.exact` for the
floats).

Pure functions, no I/O. Outcomes are 0/1 task passes; differences are
d_i = candidate_i - baseline_i.
"""

from __future__ import annotations

from fractions import Fraction
from math import comb, gcd
from operator import attrgetter
from typing import (Callable, Dict, Hashable, List, Optional, Sequence, Tuple, TypedDict, Union,
                    cast)

from .exact import Exact, normal_quantile, sqrt_float, to_float, two_sided_z
from .normal import normal_cdf
from .student import student_t_quantile, two_sided_t

DEFAULT_POWER = Fraction(4, 5)


def _check_outcomes(baseline: Sequence[int],
                    candidate: Sequence[int]) -> Tuple[List[int], List[int]]:
    baseline, candidate = list(baseline), list(candidate)
    if len(baseline) != len(candidate):
        raise ValueError("baseline and candidate must cover the same tasks")
    if not baseline:
        raise ValueError("no tasks")
    for outcome in baseline + candidate:
        if outcome not in (0, 1):
            raise ValueError("a task outcome is 0 or 1")
    return [int(x) for x in baseline], [int(x) for x in candidate]


def paired_counts(baseline: Sequence[int], candidate: Sequence[int]) -> Dict[str, int]:
    """The 2x2 table of paired task outcomes: candidate_only, baseline_only, both, neither."""
    baseline, candidate = _check_outcomes(baseline, candidate)
    counts = {"candidate_only": 0, "baseline_only": 0, "both": 0, "neither": 0}
    for base, cand in zip(baseline, candidate):
        key = ("neither", "baseline_only", "candidate_only", "both")[2 * cand + base]
        counts[key] += 1
    return counts


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


def paired_standard_error(
        differences: Sequence[Exact]) -> Tuple[Fraction, Optional[Fraction], Optional[float]]:
    """(mean, variance of the mean, standard error) of the paired differences d_1..d_n.

    mean = sum d_i / n; variance of the mean = sum (d_i - mean)**2 / (n (n - 1)), the sample
    variance (n - 1 denominator) over n; se = its square root (Miller 2024, "Adding Error Bars
    to Evals", section 4.2: the paired difference's standard error is the CLT standard error
    of the d_i). With n = 1 the variance and se are None. Mean and variance are exact.
    """
    values = list(differences)
    count = len(values)
    if count == 0:
        raise ValueError("no differences")
    scaled = _integer_multiples(values)
    if scaled is not None:
        # The same exact values from integer sums: with q a common denominator, a_i = d_i q,
        # S = sum a_i and Q = sum a_i**2: sum (d - S/(n q))**2 = (n Q - S**2) / (n q**2).
        integers, denominator = scaled
        total = sum(integers)
        mean = Fraction(total, count * denominator)
        if count == 1:
            return mean, None, None
        squares = sum(d * d for d in integers)
        variance = Fraction(count * squares - total * total,
                            count * count * (count - 1) * denominator * denominator)
        return mean, variance, sqrt_float(variance)
    fractions = [Fraction(d) for d in values]
    mean = sum(fractions, Fraction(0)) / count
    if count == 1:
        return mean, None, None
    variance = sum(((d - mean) ** 2 for d in fractions), Fraction(0)) / (count * (count - 1))
    return mean, variance, sqrt_float(variance)


def _integer_multiples(values: List[Exact]) -> Optional[Tuple[List[int], int]]:
    """(the values times q, q) with q the least common denominator, when every value is an
    int or a Fraction (the task differences are ints, the trial-level rates Fractions with
    denominators dividing K); else None."""
    kinds = set(map(type, values))
    if kinds <= {int}:
        return cast("List[int]", values), 1  # every value an int (its kinds say)
    if not kinds <= {int, Fraction}:
        return None
    rationals = cast("List[Union[int, Fraction]]", values)  # no Decimal (its kinds say)
    denominator = 1
    for each in set(map(attrgetter("denominator"), rationals)):
        denominator = denominator * each // gcd(denominator, each)
    return [d.numerator * (denominator // d.denominator) for d in rationals], denominator


def two_sided_quantile(confidence: Exact, df: Optional[int] = None) -> float:
    """z_{1 - alpha/2} (``df`` None), or Student's t_{1 - alpha/2, df}."""
    return two_sided_z(confidence) if df is None else two_sided_t(confidence, df)


def normal_interval(mean: Exact, se: Optional[float], confidence: Exact,
                    df: Optional[int] = None) -> Optional[Tuple[float, float]]:
    """(mean - z se, mean + z se) with z = Phi^-1(1 - (1 - confidence)/2), or None; with
    ``df``, Student's t_{1 - alpha/2, df} in place of z.

    ``confidence`` is exact (Decimal or Fraction). z and se are the correctly rounded floats;
    each bound is computed exactly from them and rounded once. None when se is None.
    """
    if se is None:
        return None
    z = Fraction(two_sided_quantile(confidence, df))
    centre, half_width = Fraction(mean), z * Fraction(se)
    return to_float(centre - half_width), to_float(centre + half_width)


def outcome_correlation(baseline: Sequence[int], candidate: Sequence[int]) -> Optional[float]:
    """Pearson's correlation of the 0/1 outcome lists (the phi coefficient), or None.

    r = (n S_xy - S_x S_y) / sqrt((n S_xx - S_x**2)(n S_yy - S_y**2)); for 0/1 outcomes S_xx =
    S_x, so with a = both, b = baseline only, c = candidate only, d = neither this is
    (a d - b c) / sqrt((a+b)(c+d)(a+c)(b+d)). Returned as sign(num) * sqrt(num**2 / den),
    correctly rounded. None when either list is constant (zero variance).
    """
    baseline, candidate = _check_outcomes(baseline, candidate)
    count = len(baseline)
    sum_x, sum_y = sum(baseline), sum(candidate)
    sum_xy = sum(x * y for x, y in zip(baseline, candidate))
    numerator = count * sum_xy - sum_x * sum_y
    denominator = (count * sum_x - sum_x ** 2) * (count * sum_y - sum_y ** 2)
    if denominator == 0:
        return None
    magnitude = sqrt_float(Fraction(numerator * numerator, denominator))
    return magnitude if numerator >= 0 else -magnitude


def clustered_variance(differences: Sequence[Exact], clusters: Sequence[Hashable],
                       small_sample: bool = True) -> Optional[Fraction]:
    """Cluster-robust variance of the mean difference, as an exact Fraction, or None.

    With e_i = d_i - mean, n tasks and G clusters (families), in first-appearance order:

        V_CR0 = sum_c (sum_{i in c} e_i)**2 / n**2

    This is Miller 2024 section 2.2's clustered formula, SE_CLT**2 plus the within-cluster
    cross terms (1/n**2) sum_c sum_{i != j in c} e_i e_j, with SE_CLT**2 taken as the plug-in
    sum e_i**2 / n**2. With ``small_sample`` (the default) it is multiplied by G / (G - 1),
    the CR1 correction of Cameron and Miller 2015 ("A Practitioner's Guide to Cluster-Robust
    Inference", section VI.C, K = 1 regressor so (n-1)/(n-K) = 1). Why CR1: CR0 is biased
    down by (G-1)/G, and with CR1 singleton clusters (G = n) give exactly
    sum e_i**2 / (n (n-1)), the paired variance of :func:`paired_standard_error`; without the
    factor they give (n-1)/n of it. So clustering by families that each hold one task changes
    nothing, like resampling families of one task changes no bootstrap draw.

    None when n < 2 or G < 2: with one cluster sum_c (sum e_i)**2 = (sum e_i)**2 = 0 says
    nothing about the variance, and CR1 divides by G - 1 = 0.
    """
    values = list(differences)
    clusters = list(clusters)
    if len(values) != len(clusters):
        raise ValueError("differences and clusters must have the same length")
    count = len(values)
    if count == 0:
        raise ValueError("no differences")
    scaled = _integer_multiples(values)
    if scaled is not None:
        # Integer sums, the same exact value: with q a common denominator, a_i = d_i q,
        # S = sum a_i, T_c and n_c a cluster's sum and size, its deviations sum to
        # (n T_c - n_c S) / (n q).
        integers, denominator = scaled
        grand = sum(integers)
        sums: Dict[Hashable, int] = {}
        sizes: Dict[Hashable, int] = {}
        for value, cluster in zip(integers, clusters):
            sums[cluster] = sums.get(cluster, 0) + value
            sizes[cluster] = sizes.get(cluster, 0) + 1
        groups = len(sums)
        if count < 2 or groups < 2:
            return None
        variance = Fraction(sum((count * sums[cluster] - sizes[cluster] * grand) ** 2
                                for cluster in sums), count ** 4 * denominator ** 2)
    else:
        fractions = [Fraction(d) for d in values]
        mean = sum(fractions, Fraction(0)) / count
        # cluster id -> sum of deviations; dicts keep first-appearance order
        totals: Dict[Hashable, Fraction] = {}
        for fraction, cluster in zip(fractions, clusters):
            totals[cluster] = totals.get(cluster, Fraction(0)) + (fraction - mean)
        groups = len(totals)
        if count < 2 or groups < 2:
            return None
        variance = sum((total ** 2 for total in totals.values()), Fraction(0)) / count ** 2
    if small_sample:
        variance *= Fraction(groups, groups - 1)
    return variance


def clustered_standard_error(differences: Sequence[Exact], clusters: Sequence[Hashable],
                             small_sample: bool = True) -> Optional[float]:
    """sqrt of :func:`clustered_variance` as a correctly rounded float, or None."""
    variance = clustered_variance(differences, clusters, small_sample)
    return None if variance is None else sqrt_float(variance)


def minimum_detectable_effect(se: Optional[float], confidence: Exact,
                              power: Exact = DEFAULT_POWER,
                              df: Optional[int] = None) -> Optional[float]:
    """(z_{1 - alpha/2} + z_power) se, alpha = 1 - confidence; None when se is None. With
    ``df``, (t_{1 - alpha/2, df} + t_{power, df}) se: the usual small-sample form, the
    noncentral t approximated by a shifted central one.

    The smallest true difference a two-sided level-alpha test detects with the given power
    (Miller 2024, section 5, with the observed standard error in place of sqrt(omega**2 / n)).
    Computed exactly from the two correctly rounded quantiles and se, rounded once.
    """
    if se is None:
        return None
    chance = Fraction(power)
    if not 0 < chance < 1:
        raise ValueError("power must lie strictly between 0 and 1")
    power_quantile = normal_quantile(chance) if df is None else student_t_quantile(chance, df)
    z_sum = Fraction(two_sided_quantile(confidence, df)) + Fraction(power_quantile)
    return to_float(z_sum * Fraction(se))


# Why a standard error is not estimable: the reasons the document gives, by case.
ONE_TASK = "one test task: there is no spread to estimate a standard error from"
ONE_FAMILY = ("one test family, and the bootstrap resamples families: there is no spread "
              "between families to estimate a standard error from")
NO_SPREAD = ("every %s has the same difference: a standard error of 0 says nothing about how "
             "much the difference would move on other %ss")
# The fewest test families whose clustered standard error the small-sample rules (spec v3 on)
# accept under the family unit. Why 6: with G families the CR1 variance has G - 1 degrees of
# freedom, and below 5 its own relative spread, sqrt(2 / (G - 1)) for normal family means, is
# above 63% (the t reference then inflates z by more than 40%: t_{0.975, 4} = 2.78); and 6 is
# the fewest units with which McNemar's exact one-sided test can reject at the default
# confidence 0.95 at all (2**-6 <= 0.025 < 2**-5), so fewer families could never pass a gate
# that needs it (Cameron and Miller 2015, "A Practitioner's Guide to Cluster-Robust
# Inference", section VI.D, on inference with few clusters).
MIN_FAMILIES = 6
TOO_FEW_FAMILIES = ("%d test families, fewer than %d, and the bootstrap resamples families: a "
                    "standard error from so few families is too unsure to judge by")


def unit_count(clusters: Sequence[Hashable], unit: str) -> int:
    """The resampling units: the tasks (``task``), or the distinct families (``family``)."""
    return len(set(clusters)) if unit == "family" else len(clusters)


def unit_standard_error(differences: Sequence[Exact], clusters: Sequence[Hashable],
                        unit: str = "task",
                        min_families: int = 0) -> Tuple[Optional[float], Optional[str]]:
    """(standard error, None), or (None, the reason it is not estimable), for the resampling
    ``unit``: the paired (task-level) standard error for ``task``, the CR1 family-clustered
    one for ``family``. One task, one family, or no spread at all (every unit's difference
    the same, so the estimate is 0) leave the standard error not estimable: 0 would claim a
    certainty that a handful of identical outcomes cannot give. Under the family unit, fewer
    than ``min_families`` families (the small-sample rules pass :data:`MIN_FAMILIES`) are
    not estimable either.

    >>> se, reason = unit_standard_error([1, 1, 1, 1, 1], ["a", "b", "c", "d", "e"])
    >>> se, reason.startswith("every task has the same difference")
    (None, True)
    >>> unit_standard_error([1, 0, 1], ["f", "f", "f"], "family")[1] == ONE_FAMILY
    True
    >>> unit_standard_error([1, 0, 1], ["f", "g", "h"], "family", MIN_FAMILIES)[1][:26]
    '3 test families, fewer tha'
    """
    if len(differences) < 2:
        return None, ONE_TASK
    if unit == "family":
        se = clustered_standard_error(differences, clusters)
        if se is None:
            return None, ONE_FAMILY
        families = unit_count(clusters, unit)
        if families < min_families:
            return None, TOO_FEW_FAMILIES % (families, min_families)
    else:
        se = paired_standard_error(differences)[2]
    if se == 0:
        return None, NO_SPREAD % (unit, unit)
    return se, None


def unit_differences(differences: Sequence[int], clusters: Sequence[Hashable],
                     unit: str = "task") -> List[int]:
    """The resampling units' differences that are not 0: the tasks' (``task``), or each
    family's sum over its tasks (``family``), in first-appearance order."""
    if unit == "family":
        sums: Dict[Hashable, int] = {}
        for difference, cluster in zip(differences, clusters):
            sums[cluster] = sums.get(cluster, 0) + difference
        values = list(sums.values())
    else:
        values = list(differences)
    return [value for value in values if value != 0]


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


def clipped_interval(interval: Optional[Tuple[float, float]], low: float = -1.0,
                     high: float = 1.0) -> Tuple[Optional[List[float]], bool]:
    """The normal interval cut to [low, high] (a difference of rates lies in [-1, 1]), and
    whether it was cut."""
    if interval is None:
        return None, False
    clipped = [max(interval[0], low), min(interval[1], high)]
    return clipped, clipped != list(interval)


class _PairedStatistics(TypedDict):
    candidate_only: int
    baseline_only: int
    both: int
    neither: int
    mcnemar_exact_p: float
    mean_difference: float
    standard_error: Optional[float]
    clustered_standard_error: Optional[float]
    standard_error_unit: str
    normal_interval: Optional[List[float]]
    normal_interval_clipped: bool
    outcome_correlation: Optional[float]
    minimum_detectable_effect: Optional[float]
    power: float
    observed_below_mde: Optional[bool]
    not_estimable: Optional[str]


class PairedStatistics(_PairedStatistics, total=False):
    """:func:`paired_summary`'s result, JSON-ready, in its keys' order; the last two keys
    only under the small-sample rules."""
    degrees_of_freedom: Optional[int]
    exact_test: ExactTest


def paired_summary(baseline: Sequence[int], candidate: Sequence[int],
                   clusters: Sequence[Hashable], confidence: Exact,
                   power: Exact = DEFAULT_POWER, unit: str = "task",
                   small_sample_rules: bool = False) -> PairedStatistics:
    """Every paired statistic of the task outcomes as JSON-ready values (ints, floats, None).

    d_i = candidate_i - baseline_i. ``standard_error`` is the paired (task-level) one and
    ``clustered_standard_error`` the CR1 family-clustered one (it equals the paired one when
    every family holds one task); each is None when it is not estimable (see
    :func:`unit_standard_error`). ``normal_interval`` and ``minimum_detectable_effect``
    follow the resampling ``unit``'s standard error, and are None, with the reason in
    ``not_estimable``, when it is not estimable; the interval is clipped to [-1, 1]
    (``normal_interval_clipped`` says when). ``observed_below_mde`` compares |mean| with the
    MDE exactly.

    With ``small_sample_rules`` (spec v3 on) the interval and the MDE use Student's t with
    the resampling units less one degrees of freedom (``degrees_of_freedom``), fewer than
    :data:`MIN_FAMILIES` families under the family unit are not estimable, and
    ``exact_test`` holds the one-sided test on the units' differences
    (:func:`exact_test_summary`: McNemar's exact test on the discordant tasks). Without them the keys and values are exactly those of
    spec v1 and v2.
    """
    baseline, candidate = _check_outcomes(baseline, candidate)
    counts = paired_counts(baseline, candidate)
    differences = [cand - base for base, cand in zip(baseline, candidate)]
    mean = Fraction(sum(differences), len(differences))
    minimum = MIN_FAMILIES if small_sample_rules and unit == "family" else 0
    task_se, _ = unit_standard_error(differences, clusters, "task")
    family_se, _ = unit_standard_error(differences, clusters, "family", minimum)
    se, reason = unit_standard_error(differences, clusters, unit, minimum)
    df = None
    if small_sample_rules and se is not None:
        df = unit_count(clusters, unit) - 1
    interval, clipped = clipped_interval(normal_interval(mean, se, confidence, df))
    mde = minimum_detectable_effect(se, confidence, power, df)
    summary: PairedStatistics = {
        "candidate_only": counts["candidate_only"],
        "baseline_only": counts["baseline_only"],
        "both": counts["both"],
        "neither": counts["neither"],
        "mcnemar_exact_p": mcnemar_exact_p_float(counts["candidate_only"],
                                                 counts["baseline_only"]),
        "mean_difference": to_float(mean),
        "standard_error": task_se,
        "clustered_standard_error": family_se,
        "standard_error_unit": unit,
        "normal_interval": interval,
        "normal_interval_clipped": clipped,
        "outcome_correlation": outcome_correlation(baseline, candidate),
        "minimum_detectable_effect": mde,
        "power": to_float(power),
        "observed_below_mde": None if mde is None else abs(mean) < Fraction(mde),
        "not_estimable": reason,
    }
    if small_sample_rules:
        summary["degrees_of_freedom"] = df
        summary["exact_test"] = exact_test_summary(
            unit_differences(differences, clusters, unit), confidence, unit)
    return summary
