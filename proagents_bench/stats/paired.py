"""The paired comparison's statistics: the 2x2 table of task outcomes, the paired and the
family-clustered standard errors, the normal (or t) interval, the outcome correlation and the
minimum detectable effect, in exact arithmetic where it can be (see :mod:`.exact` for the
floats), and :func:`paired_summary`, which gathers them with the exact tests of
:mod:`.exact_tests` (McNemar's, and the sign-flip randomization test).

Pure functions, no I/O. Outcomes are 0/1 task passes; differences are
d_i = candidate_i - baseline_i.
"""

from __future__ import annotations

from fractions import Fraction
from math import gcd
from operator import attrgetter
from typing import Dict, Hashable, List, Optional, Sequence, Tuple, TypedDict, Union, cast

from .exact import Exact, normal_quantile, sqrt_float, to_float, two_sided_z
from .exact_tests import ExactTest, exact_test_summary, mcnemar_exact_p_float
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
    scaled = _integer_sums(values)
    if scaled is not None:
        # The same exact values from integer sums: with q a common denominator, a_i = d_i q,
        # S = sum a_i and Q = sum a_i**2: sum (d - S/(n q))**2 = (n Q - S**2) / (n q**2).
        integers, denominator, total = scaled
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


def _integer_sums(values: List[Exact]) -> Optional[Tuple[List[int], int, int]]:
    """(the values times q, q, their sum) with q the least common denominator, when every
    value is an int or a Fraction (the task differences are ints, the trial-level rates
    Fractions with denominators dividing K); else None. No values at all is an error."""
    if not values:
        raise ValueError("no differences")
    kinds = set(map(type, values))
    if kinds <= {int}:
        integers = cast("List[int]", values)  # every value an int (its kinds say)
        return integers, 1, sum(integers)
    if not kinds <= {int, Fraction}:
        return None
    rationals = cast("List[Union[int, Fraction]]", values)  # no Decimal (its kinds say)
    denominator = 1
    for each in set(map(attrgetter("denominator"), rationals)):
        denominator = denominator * each // gcd(denominator, each)
    integers = [d.numerator * (denominator // d.denominator) for d in rationals]
    return integers, denominator, sum(integers)


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
    scaled = _integer_sums(values)
    if scaled is not None:
        # Integer sums, the same exact value: with q a common denominator, a_i = d_i q,
        # S = sum a_i, T_c and n_c a cluster's sum and size, its deviations sum to
        # (n T_c - n_c S) / (n q).
        integers, denominator, grand = scaled
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
