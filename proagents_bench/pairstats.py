"""Pass^k, pass@k and paired-comparison statistics, in exact arithmetic where it can be.

Pure functions, no I/O. Everything that can be exact is a :class:`fractions.Fraction`
(pass^k, pass@k, McNemar's p-value, means and variances). A float appears only where a square
root or a normal quantile is unavoidable, and every float is the correctly rounded value of an
exact quantity, so it is the same bit for bit under CPython and PyPy on any platform:

- square roots and Fraction-to-float conversions are done here with integer arithmetic
  (:func:`math.isqrt`) and one round-half-even step (:func:`sqrt_float`, :func:`to_float`);
- the normal quantile is computed in :mod:`decimal` at 60 significant digits, whose operations
  (including ``exp`` and ``sqrt``) are specified exactly and correctly rounded, then rounded
  once to a float (:func:`normal_quantile`). It agrees with
  ``statistics.NormalDist().inv_cdf`` to within a few units in the last place, but that one
  uses the platform's ``log`` and, in CPython 3.10+, C code the compiler may contract into
  fused multiply-adds, so its last bit is not promised across platforms;
- sums of floats never happen: floats are turned into exact fractions, combined exactly and
  rounded once.

Outcomes are 0/1 task passes; differences are d_i = candidate_i - baseline_i.
"""

import math
from decimal import (Context, Decimal, DivisionByZero, InvalidOperation, Overflow,
                     ROUND_HALF_EVEN, localcontext)
from fractions import Fraction

DEFAULT_POWER = Fraction(4, 5)

# -- correctly rounded floats ------------------------------------------------------------


def _round_scaled(mantissa, exponent, inexact):
    """The double nearest (mantissa + e) * 2**exponent, e in (0, 1) when ``inexact`` else 0.

    ``mantissa`` has at least 55 bits, so the discarded part is at least two bits wide and
    ``inexact`` acts as the sticky bit: round half to even, exactly as IEEE 754 does (for
    results in the normal range, as all of this module's are; a subnormal would round twice).
    """
    drop = mantissa.bit_length() - 53
    top = mantissa >> drop
    rest = mantissa - (top << drop)
    half = 1 << (drop - 1)
    if rest > half or (rest == half and (inexact or top & 1)):
        top += 1
    return math.ldexp(float(top), exponent + drop)  # top <= 2**53: both steps exact


def to_float(value):
    """``value`` (int, Fraction or Decimal) as the nearest double, by integer arithmetic."""
    value = Fraction(value)
    if value == 0:
        return 0.0
    numerator, denominator = abs(value.numerator), value.denominator
    shift = 55 - (numerator.bit_length() - denominator.bit_length())
    if shift >= 0:
        quotient, remainder = divmod(numerator << shift, denominator)
    else:
        quotient, remainder = divmod(numerator, denominator << -shift)
    result = _round_scaled(quotient, -shift, remainder != 0)
    return result if value > 0 else -result


def sqrt_float(value):
    """The double nearest sqrt(value) for a non-negative int, Fraction or Decimal.

    With value = p/q scaled by 4**k so that N = floor(p 4**k / q) >= 2**108, m = isqrt(N)
    satisfies m <= sqrt(value) 2**k < m + 1 and has at least 55 bits; the root is exact only
    when both the division and the isqrt are.
    """
    value = Fraction(value)
    if value < 0:
        raise ValueError("square root of a negative number")
    if value == 0:
        return 0.0
    numerator, denominator = value.numerator, value.denominator
    half_shift = (110 - (numerator.bit_length() - denominator.bit_length())) // 2 + 1
    if half_shift >= 0:
        scaled, remainder = divmod(numerator << (2 * half_shift), denominator)
    else:
        scaled, remainder = divmod(numerator, denominator << (-2 * half_shift))
    root = math.isqrt(scaled)
    return _round_scaled(root, -half_shift, remainder != 0 or root * root != scaled)


# -- the normal quantile, in decimal ---------------------------------------------------

_PI = Decimal("3.14159265358979323846264338327950288419716939937510582097494459230781640629")
_PRECISION = 60


def _context():
    """A private decimal context, so the caller's context never changes a result."""
    return Context(prec=_PRECISION, rounding=ROUND_HALF_EVEN, Emin=-999999, Emax=999999,
                   capitals=1, clamp=0, flags=[],
                   traps=[InvalidOperation, DivisionByZero, Overflow])


def _normal_quantile_decimal(probability):
    """z with Phi(z) = probability (0 < probability < 1, a Fraction), at 60 digits.

    Phi(z) = 1/2 + phi(z) * sum_{j>=0} z**(2j+1) / (1*3*5*...*(2j+1)), phi(z) =
    exp(-z**2/2) / sqrt(2 pi): the positive-term series of Marsaglia (2004, "Evaluating the
    Normal Distribution", J. Stat. Softw. 11(4)), with no cancellation. Newton's method
    z <- z + (p - Phi(z)) / phi(z) starts at 0; for p > 1/2 Phi is concave on [0, inf), so the
    iterates rise monotonically to the root. p < 1/2 uses z(p) = -z(1 - p).
    """
    if probability == Fraction(1, 2):
        return Decimal(0)
    if probability < Fraction(1, 2):
        return -_normal_quantile_decimal(1 - probability)
    with localcontext(_context()):
        target = Decimal(probability.numerator) / Decimal(probability.denominator)
        root_two_pi = (2 * _PI).sqrt()
        half = Decimal(1) / 2
        tolerance = Decimal(10) ** (10 - _PRECISION)
        z = Decimal(0)
        for _ in range(200):
            square = z * z
            term = total = z
            odd = 1
            while True:
                odd += 2
                term = term * square / odd
                grown = total + term
                if grown == total:
                    break
                total = grown
            density = (-square / 2).exp() / root_two_pi
            step = (target - (half + density * total)) / density
            z += step
            if abs(step) < tolerance:
                break
        return +z


def normal_quantile(probability):
    """The standard normal quantile z_p = Phi^-1(p) as the double nearest its exact value.

    ``probability`` is exact (Fraction, Decimal or int ratio); 0 < p < 1.
    """
    probability = Fraction(probability)
    if not 0 < probability < 1:
        raise ValueError("a normal quantile needs 0 < p < 1")
    return to_float(_normal_quantile_decimal(probability))


def _two_sided_z(confidence):
    """z_{1 - alpha/2} for alpha = 1 - confidence."""
    confidence = Fraction(confidence)
    if not 0 < confidence < 1:
        raise ValueError("confidence must lie strictly between 0 and 1")
    return normal_quantile(1 - (1 - confidence) / 2)


# -- pass^k and pass@k -------------------------------------------------------------------


def _check_task(passing, trials, k):
    for name, number in (("passing", passing), ("trials", trials), ("k", k)):
        if isinstance(number, bool) or not isinstance(number, int):
            raise TypeError("%s must be an int" % name)
    if not 0 <= passing <= trials:
        raise ValueError("passing must lie in 0..trials")
    if not 1 <= k <= trials:
        raise ValueError("k must lie in 1..trials")


def pass_hat_k(passing, trials, k):
    """pass^k of one task: C(c, k) / C(n, k), c passing trials of n.

    The unbiased estimate of the chance that k trials drawn without replacement all pass
    (Yao et al. 2024, "tau-bench", section 5.1). C(c, k) = 0 when k > c.
    """
    _check_task(passing, trials, k)
    return Fraction(math.comb(passing, k), math.comb(trials, k))


def pass_at_k(passing, trials, k):
    """pass@k of one task: 1 - C(n - c, k) / C(n, k).

    The unbiased estimate of the chance that at least one of k trials passes (Chen et al.
    2021, "Evaluating Large Language Models Trained on Code", equation 1).
    """
    _check_task(passing, trials, k)
    return 1 - Fraction(math.comb(trials - passing, k), math.comb(trials, k))


def _tally(pairs):
    """{(passing, trials): how many tasks} and the number of tasks.

    Tasks with equal counts have equal pass^k and pass@k, so a mean over ten thousand tasks
    costs one exact term per distinct pair (at most trial_count + 1 of them per system), and
    it is the same Fraction as the sum over tasks. Pairs of any type but int are checked one
    by one, so that a Boolean is refused as before even where it equals an int key.
    """
    tally = {}
    kinds = set()
    for passing, trials in pairs:
        kinds.add(type(passing))
        kinds.add(type(trials))
        key = (passing, trials)
        tally[key] = tally.get(key, 0) + 1
    if kinds - {int}:
        for passing, trials in pairs:
            _check_task(passing, trials, 1)
    return tally, sum(tally.values())


def _mean_over_tasks(per_task, tally, k):
    tally, count = tally
    if not count:
        raise ValueError("no tasks")
    return sum((per_task(passing, trials, k) * times
                for (passing, trials), times in tally.items()), Fraction(0)) / count


def mean_pass_hat_k(pairs, k):
    """The mean of :func:`pass_hat_k` over tasks given as (passing, trials) pairs."""
    return _mean_over_tasks(pass_hat_k, _tally(pairs), k)


def mean_pass_at_k(pairs, k):
    """The mean of :func:`pass_at_k` over tasks given as (passing, trials) pairs."""
    return _mean_over_tasks(pass_at_k, _tally(pairs), k)


def pass_k_table(pairs, trial_count):
    """{"pass_hat_k": {"1": ..., ...}, "pass_at_k": {...}} for k = 1..trial_count.

    Keys are strings so that the table serialises as JSON; values are Fractions. At k = 1
    both equal the mean trial success rate.
    """
    if isinstance(trial_count, bool) or not isinstance(trial_count, int) or trial_count < 1:
        raise ValueError("trial_count must be an int >= 1")
    tally = _tally(list(pairs))
    keys = [str(k) for k in range(1, trial_count + 1)]
    return {
        "pass_hat_k": {key: _mean_over_tasks(pass_hat_k, tally, int(key)) for key in keys},
        "pass_at_k": {key: _mean_over_tasks(pass_at_k, tally, int(key)) for key in keys},
    }


# -- paired task outcomes ----------------------------------------------------------------


def _check_outcomes(baseline, candidate):
    baseline, candidate = list(baseline), list(candidate)
    if len(baseline) != len(candidate):
        raise ValueError("baseline and candidate must cover the same tasks")
    if not baseline:
        raise ValueError("no tasks")
    for outcome in baseline + candidate:
        if outcome not in (0, 1):
            raise ValueError("a task outcome is 0 or 1")
    return [int(x) for x in baseline], [int(x) for x in candidate]


def paired_counts(baseline, candidate):
    """The 2x2 table of paired task outcomes: candidate_only, baseline_only, both, neither."""
    baseline, candidate = _check_outcomes(baseline, candidate)
    counts = {"candidate_only": 0, "baseline_only": 0, "both": 0, "neither": 0}
    for base, cand in zip(baseline, candidate):
        key = ("neither", "baseline_only", "candidate_only", "both")[2 * cand + base]
        counts[key] += 1
    return counts


def _check_discordant(candidate_only, baseline_only):
    for number in (candidate_only, baseline_only):
        if isinstance(number, bool) or not isinstance(number, int) or number < 0:
            raise ValueError("discordant counts are non-negative ints")


def mcnemar_exact_p(candidate_only, baseline_only):
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


def _tail_bounds(total, smaller, bits):
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


def mcnemar_exact_p_float(candidate_only, baseline_only, bits=TAIL_BITS):
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
    low, slack, exponent = _tail_bounds(discordant, min(candidate_only, baseline_only), bits)
    scale = exponent + 1 - discordant  # p = min(1, S 2**(1 - discordant))
    ends = []
    for sum_end in (low, low + slack):
        value = Fraction(sum_end << scale) if scale >= 0 else Fraction(sum_end, 1 << -scale)
        ends.append(min(1.0, to_float(value)))
    if ends[0] == ends[1]:
        return ends[0]
    return to_float(mcnemar_exact_p(candidate_only, baseline_only))


def paired_standard_error(differences):
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
    if _all_ints(values):
        # The same exact values from integer sums: sum (d - S/n)**2 = (n Q - S**2) / n.
        total = sum(values)
        mean = Fraction(total, count)
        if count == 1:
            return mean, None, None
        squares = sum(d * d for d in values)
        variance = Fraction(count * squares - total * total, count * count * (count - 1))
        return mean, variance, sqrt_float(variance)
    values = [Fraction(d) for d in values]
    mean = sum(values, Fraction(0)) / count
    if count == 1:
        return mean, None, None
    variance = sum(((d - mean) ** 2 for d in values), Fraction(0)) / (count * (count - 1))
    return mean, variance, sqrt_float(variance)


def _all_ints(values):
    """Whether every value is a plain int (the task differences always are)."""
    return set(map(type, values)) <= {int}


def normal_interval(mean, se, confidence):
    """(mean - z se, mean + z se) with z = Phi^-1(1 - (1 - confidence)/2), or None.

    ``confidence`` is exact (Decimal or Fraction). z and se are the correctly rounded floats;
    each bound is computed exactly from them and rounded once. None when se is None.
    """
    if se is None:
        return None
    z = Fraction(_two_sided_z(confidence))
    centre, half_width = Fraction(mean), z * Fraction(se)
    return to_float(centre - half_width), to_float(centre + half_width)


def outcome_correlation(baseline, candidate):
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


def clustered_variance(differences, clusters, small_sample=True):
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
    if _all_ints(values):
        # Integer sums, the same exact value: with S = sum d, T_c and n_c a cluster's sum
        # and size, its deviations sum to (n T_c - n_c S) / n.
        grand = sum(values)
        sums, sizes = {}, {}
        for value, cluster in zip(values, clusters):
            sums[cluster] = sums.get(cluster, 0) + value
            sizes[cluster] = sizes.get(cluster, 0) + 1
        groups = len(sums)
        if count < 2 or groups < 2:
            return None
        variance = Fraction(sum((count * sums[cluster] - sizes[cluster] * grand) ** 2
                                for cluster in sums), count ** 4)
    else:
        values = [Fraction(d) for d in values]
        mean = sum(values, Fraction(0)) / count
        totals = {}  # cluster id -> sum of deviations; dicts keep first-appearance order
        for value, cluster in zip(values, clusters):
            totals[cluster] = totals.get(cluster, Fraction(0)) + (value - mean)
        groups = len(totals)
        if count < 2 or groups < 2:
            return None
        variance = sum((total ** 2 for total in totals.values()), Fraction(0)) / count ** 2
    if small_sample:
        variance *= Fraction(groups, groups - 1)
    return variance


def clustered_standard_error(differences, clusters, small_sample=True):
    """sqrt of :func:`clustered_variance` as a correctly rounded float, or None."""
    variance = clustered_variance(differences, clusters, small_sample)
    return None if variance is None else sqrt_float(variance)


def minimum_detectable_effect(se, confidence, power=DEFAULT_POWER):
    """(z_{1 - alpha/2} + z_power) se, alpha = 1 - confidence; None when se is None.

    The smallest true difference a two-sided level-alpha test detects with the given power
    (Miller 2024, section 5, with the observed standard error in place of sqrt(omega**2 / n)).
    Computed exactly from the two correctly rounded quantiles and se, rounded once.
    """
    if se is None:
        return None
    power = Fraction(power)
    if not 0 < power < 1:
        raise ValueError("power must lie strictly between 0 and 1")
    z_sum = Fraction(_two_sided_z(confidence)) + Fraction(normal_quantile(power))
    return to_float(z_sum * Fraction(se))


def paired_summary(baseline, candidate, clusters, confidence, power=DEFAULT_POWER):
    """Every paired statistic of the task outcomes as JSON-ready values (ints, floats, None).

    d_i = candidate_i - baseline_i. ``standard_error``, ``normal_interval`` and
    ``minimum_detectable_effect`` use the paired (task-level) standard error; they and
    ``observed_below_mde`` (|mean| < MDE, compared exactly) are None for a single task.
    ``clustered_standard_error`` is the CR1 family-clustered one (None with fewer than two
    families); it equals ``standard_error`` when every family holds one task.
    """
    baseline, candidate = _check_outcomes(baseline, candidate)
    counts = paired_counts(baseline, candidate)
    differences = [cand - base for base, cand in zip(baseline, candidate)]
    mean, _variance, se = paired_standard_error(differences)
    interval = normal_interval(mean, se, confidence)
    mde = minimum_detectable_effect(se, confidence, power)
    summary = dict(counts)
    summary.update({
        "mcnemar_exact_p": mcnemar_exact_p_float(counts["candidate_only"],
                                                 counts["baseline_only"]),
        "mean_difference": to_float(mean),
        "standard_error": se,
        "normal_interval": None if interval is None else list(interval),
        "outcome_correlation": outcome_correlation(baseline, candidate),
        "clustered_standard_error": clustered_standard_error(differences, clusters),
        "minimum_detectable_effect": mde,
        "power": to_float(power),
        "observed_below_mde": None if mde is None else abs(mean) < Fraction(mde),
    })
    return summary
