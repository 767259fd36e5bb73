"""pass^k, pass@k and the paired statistics of proagents_bench.stats.

Expected values are worked out by hand (in the comments) or recomputed in the test from the
formula's definition with exact fractions: enumerating trial subsets for pass^k and pass@k,
enumerating sign vectors for McNemar's test, Miller's expanded form for the clustered variance,
and an independent series (the alternating Taylor series of erf, with pi from the decimal
module's documented recipe) for the normal quantile.
"""

import itertools
import json
import math
import random
import statistics
import unittest
from decimal import Context, Decimal, localcontext
from fractions import Fraction as F

from proagents_bench.stats import exact
from proagents_bench.stats.exact import normal_quantile, sqrt_float, to_float
from proagents_bench.stats.exact_tests import (exact_test_summary, mcnemar_exact_p,
                                               randomization_p, sign_test_p, sign_test_p_float,
                                               sign_test_rejects)
from proagents_bench.stats.paired import (clustered_standard_error, clustered_variance,
                                          minimum_detectable_effect, normal_interval,
                                          outcome_correlation, paired_counts,
                                          paired_standard_error, paired_summary)
from proagents_bench.stats.student import student_t_quantile, two_sided_t
from proagents_bench.stats.passk import (mean_pass_at_k, mean_pass_hat_k, pass_at_k, pass_hat_k,
                                         pass_k_table)


def neighbours(x):
    return math.nextafter(x, -math.inf), math.nextafter(x, math.inf)


def decimal_pi():
    """pi by the recipe in the decimal module's documentation (in the current context)."""
    three = Decimal(3)
    lasts, t, s, n, na, d, da = 0, three, 3, 1, 0, 0, 24
    while s != lasts:
        lasts = s
        n, na = n + na, na + 8
        d, da = d + da, da + 32
        t = (t * n) / d
        s += t
    return +s


def reference_cdf(x):
    """Phi(x) = 1/2 + erf(x / sqrt 2) / 2, erf by its alternating Taylor series, 90 digits."""
    with localcontext(Context(prec=90)):
        y = Decimal(x.numerator) / Decimal(x.denominator) / Decimal(2).sqrt()
        term = total = y
        square, k = y * y, 0
        while True:
            k += 1
            term = -term * square / k
            grown = total + term / (2 * k + 1)
            if grown == total:
                return Decimal(1) / 2 + total / decimal_pi().sqrt()
            total = grown


class RoundingTests(unittest.TestCase):
    def test_to_float_agrees_with_correctly_rounded_division(self):
        rng = random.Random(4)
        for _ in range(2000):
            denominator = rng.randrange(1, 10 ** rng.randrange(1, 40))
            value = F(rng.randrange(-10 ** 30, 10 ** 30), denominator)
            self.assertEqual(to_float(value), value.numerator / value.denominator)

    def test_to_float_breaks_ties_to_even(self):
        self.assertEqual(to_float(2 ** 53 + 1), float(2 ** 53))
        self.assertEqual(to_float(2 ** 53 + 3), float(2 ** 53 + 4))
        self.assertEqual(to_float(F(2 ** 54 + 1, 2)), float(2 ** 53))  # 2**53 + 1/2
        self.assertEqual(to_float(F(2 ** 54 + 3, 2)), float(2 ** 53 + 2))  # 2**53 + 3/2
        self.assertEqual(to_float(F(3 * 2 ** 53 + 4, 3)), float(2 ** 53 + 2))  # 2**53 + 4/3
        self.assertEqual(to_float(F(3 * 2 ** 53 + 2, 3)), float(2 ** 53))      # 2**53 + 2/3
        # 2**53 + 1 +- 1/(3 * 2**100): the kept bits show an exact tie and only the remainder
        # of the division (the sticky bit) says which way to go.
        scale = 3 * 2 ** 100
        self.assertEqual(to_float(F((2 ** 53 + 1) * scale + 1, scale)), float(2 ** 53 + 2))
        self.assertEqual(to_float(F((2 ** 53 + 1) * scale - 1, scale)), float(2 ** 53))
        self.assertEqual(to_float(F(-((2 ** 53 + 1) * scale + 1), scale)), -float(2 ** 53 + 2))

    def test_to_float_of_simple_values(self):
        self.assertEqual(to_float(0), 0.0)
        self.assertEqual(to_float(Decimal("0.1")), 0.1)
        self.assertEqual(to_float(F(-1, 3)), -1 / 3)
        self.assertEqual(to_float(F(1, 6)), 0.16666666666666666)

    def test_sqrt_float_agrees_with_ieee_sqrt_on_doubles(self):
        rng = random.Random(5)
        for _ in range(2000):
            x = rng.random() * 10 ** rng.randrange(-30, 30)
            self.assertEqual(sqrt_float(F(x)), math.sqrt(x))

    def test_sqrt_float_is_nearest_for_fractions(self):
        for value in (F(7, 50), F(2), F(1, 3), F(7, 36), F(10 ** 40 + 1, 3), F(1, 10 ** 40 + 7)):
            root = sqrt_float(value)
            low, high = neighbours(root)
            self.assertLess(((F(root) + F(low)) / 2) ** 2, value)
            self.assertGreater(((F(root) + F(high)) / 2) ** 2, value)

    def test_sqrt_float_of_exact_squares_and_bad_input(self):
        self.assertEqual(sqrt_float(F(9, 4)), 1.5)
        self.assertEqual(sqrt_float(0), 0.0)
        self.assertEqual(sqrt_float(2 ** 200), 2.0 ** 100)
        with self.assertRaises(ValueError):
            sqrt_float(F(-1, 4))


class NormalQuantileTests(unittest.TestCase):
    PROBABILITIES = [F(975, 1000), F(4, 5), F(9995, 10000), F(1, 10), F(999999, 1000000),
                     F(51, 100), F(19, 20), F(3, 4), F(1, 40)]

    def test_pi_constant_matches_the_decimal_recipe(self):
        with localcontext(Context(prec=80)):
            reference = decimal_pi()
        with localcontext(Context(prec=70)):
            self.assertEqual(+exact._PI, +reference)

    def test_quantile_is_the_double_nearest_the_exact_quantile(self):
        # The double z is correct when p lies between Phi at the midpoints to its neighbours.
        for p in self.PROBABILITIES:
            z = normal_quantile(p)
            low, high = neighbours(z)
            target = Decimal(p.numerator) / Decimal(p.denominator)
            self.assertLess(reference_cdf((F(z) + F(low)) / 2), target, p)
            self.assertGreater(reference_cdf((F(z) + F(high)) / 2), target, p)

    def test_known_values(self):
        # z_0.975 = 1.95996398454005423552..., z_0.8 = 0.84162123357291431...
        self.assertEqual(normal_quantile(F(39, 40)), 1.9599639845400543)
        self.assertEqual(normal_quantile(Decimal("0.8")), 0.8416212335729142)
        self.assertEqual(normal_quantile(F(1, 2)), 0.0)

    def test_agrees_with_statistics_inv_cdf(self):
        for p in self.PROBABILITIES:
            self.assertAlmostEqual(normal_quantile(p), statistics.NormalDist().inv_cdf(float(p)),
                                   delta=1e-11)

    def test_symmetry(self):
        for p in self.PROBABILITIES:
            self.assertEqual(normal_quantile(1 - p), -normal_quantile(p))

    def test_callers_decimal_context_does_not_matter(self):
        expected = normal_quantile(F(39, 40))
        with localcontext() as context:
            context.prec = 3
            self.assertEqual(normal_quantile(F(39, 40)), expected)

    def test_out_of_range(self):
        for p in (0, 1, F(-1, 2), F(3, 2)):
            with self.assertRaises(ValueError):
                normal_quantile(p)

    def test_the_far_tails(self):
        # Beyond 1e-20 of 0 or 1 the quantile is solved on the tail itself. Where the series
        # about 0 still holds (at 90 digits, tails to 1e-30), the double is the nearest.
        for exponent in (21, 25, 30):
            p = F(1, 10 ** exponent)
            z = normal_quantile(p)
            low, high = neighbours(z)
            self.assertGreater(reference_cdf((F(z) + F(low)) / 2), 0, exponent)
            self.assertLess(reference_cdf((F(z) + F(low)) / 2), p, exponent)
            self.assertGreater(reference_cdf((F(z) + F(high)) / 2), p, exponent)
            self.assertEqual(normal_quantile(1 - p), -z)
        # Further out, Q(t) = phi(t) R(t) with twice the continued fraction's levels and 120
        # digits brackets the tail between the double's neighbours.
        for exponent in (40, 100, 1000):
            q = F(1, 10 ** exponent)
            t = normal_quantile(1 - q)
            self.assertEqual(normal_quantile(q), -t)
            with localcontext(Context(prec=120)):
                def tail(x):
                    x = Decimal(x.numerator) / Decimal(x.denominator)
                    return ((-x * x / 2).exp() / (2 * decimal_pi()).sqrt()
                            * exact.mills_ratio(x, 2 * exact.MILLS_LEVELS))
                target = Decimal(q.numerator) / Decimal(q.denominator)
                low, high = neighbours(t)
                self.assertGreater(tail((F(t) + F(low)) / 2), target, exponent)
                self.assertLess(tail((F(t) + F(high)) / 2), target, exponent)
        self.assertEqual(normal_quantile(F(1, 10 ** 100)), -21.273453560965326)


def subsets_all_pass(outcomes, k):
    """pass^k by definition: the share of k-subsets of the trials that all pass."""
    subsets = list(itertools.combinations(outcomes, k))
    return F(sum(all(s) for s in subsets), len(subsets))


def subsets_any_pass(outcomes, k):
    subsets = list(itertools.combinations(outcomes, k))
    return F(sum(any(s) for s in subsets), len(subsets))


class PassKTests(unittest.TestCase):
    def test_hand_values(self):
        # c = 3 of n = 5, k = 2: C(3,2)/C(5,2) = 3/10; 1 - C(2,2)/C(5,2) = 9/10.
        self.assertEqual(pass_hat_k(3, 5, 2), F(3, 10))
        self.assertEqual(pass_at_k(3, 5, 2), F(9, 10))
        # k = 3: C(3,3)/C(5,3) = 1/10; C(2,3) = 0, so pass@3 = 1.
        self.assertEqual(pass_hat_k(3, 5, 3), F(1, 10))
        self.assertEqual(pass_at_k(3, 5, 3), 1)

    def test_against_enumeration_of_trial_subsets(self):
        for trials in range(1, 7):
            for passing in range(trials + 1):
                outcomes = [1] * passing + [0] * (trials - passing)
                for k in range(1, trials + 1):
                    self.assertEqual(pass_hat_k(passing, trials, k),
                                     subsets_all_pass(outcomes, k))
                    self.assertEqual(pass_at_k(passing, trials, k),
                                     subsets_any_pass(outcomes, k))

    def test_edges(self):
        self.assertEqual(pass_hat_k(0, 4, 1), 0)
        self.assertEqual(pass_at_k(0, 4, 4), 0)
        self.assertEqual(pass_hat_k(4, 4, 4), 1)
        self.assertEqual(pass_at_k(4, 4, 1), 1)
        self.assertEqual(pass_hat_k(2, 4, 3), 0)  # k > c
        self.assertEqual(pass_at_k(1, 4, 4), 1)   # k > n - c
        self.assertEqual(pass_hat_k(2, 7, 1), pass_at_k(2, 7, 1))
        self.assertEqual(pass_hat_k(2, 7, 1), F(2, 7))

    def test_bad_input(self):
        for args in ((6, 5, 1), (-1, 5, 1), (3, 5, 0), (3, 5, 6)):
            with self.assertRaises(ValueError):
                pass_hat_k(*args)
            with self.assertRaises(ValueError):
                pass_at_k(*args)
        for args in ((True, 5, 1), (3.0, 5, 1)):
            with self.assertRaises(TypeError):
                pass_hat_k(*args)
        with self.assertRaises(ValueError):
            mean_pass_hat_k([], 1)
        for mean in (mean_pass_hat_k, mean_pass_at_k):  # pairs given as a generator too
            with self.assertRaises(TypeError):
                mean((pair for pair in [(1, 5), (True, 5)]), 1)

    def test_means_and_table(self):
        pairs = [(3, 5), (5, 5), (0, 5)]
        # k = 2: pass^2 = (3/10 + 1 + 0)/3 = 13/30; pass@2 = (9/10 + 1 + 0)/3 = 19/30.
        self.assertEqual(mean_pass_hat_k(pairs, 2), F(13, 30))
        self.assertEqual(mean_pass_at_k(pairs, 2), F(19, 30))
        table = pass_k_table(pairs, 5)
        self.assertEqual(list(table), ["pass_hat_k", "pass_at_k"])
        self.assertEqual(list(table["pass_hat_k"]), ["1", "2", "3", "4", "5"])
        # k = 1: both are the trial success rate, 8/15; k = 5: 1/3 and (1 + 1 + 0)/3.
        self.assertEqual(table["pass_hat_k"]["1"], F(8, 15))
        self.assertEqual(table["pass_at_k"]["1"], F(8, 15))
        self.assertEqual(table["pass_hat_k"]["2"], F(13, 30))
        self.assertEqual(table["pass_hat_k"]["5"], F(1, 3))
        self.assertEqual(table["pass_at_k"]["5"], F(2, 3))
        hats = [table["pass_hat_k"][str(k)] for k in range(1, 6)]
        ats = [table["pass_at_k"][str(k)] for k in range(1, 6)]
        self.assertEqual(hats, sorted(hats, reverse=True))
        self.assertEqual(ats, sorted(ats))
        text = json.dumps({kind: {k: float(v) for k, v in row.items()}
                           for kind, row in table.items()}, sort_keys=True)
        self.assertIn('"pass_hat_k": {"1": 0.5333333333333333', text)

    def test_table_rejects_k_beyond_a_tasks_trials(self):
        with self.assertRaises(ValueError):
            pass_k_table([(1, 2), (2, 3)], 3)
        with self.assertRaises(ValueError):
            pass_k_table([(1, 2)], 0)


BASELINE = [1, 1, 0, 0, 1]
CANDIDATE = [1, 0, 0, 1, 1]


class PairedTests(unittest.TestCase):
    def test_counts(self):
        self.assertEqual(paired_counts(BASELINE, CANDIDATE),
                         {"candidate_only": 1, "baseline_only": 1, "both": 2, "neither": 1})
        self.assertEqual(paired_counts([True, False], [False, True]),
                         {"candidate_only": 1, "baseline_only": 1, "both": 0, "neither": 0})

    def test_counts_bad_input(self):
        for baseline, candidate in (([1, 0], [1]), ([], []), ([2], [1]), ([1], [-1])):
            with self.assertRaises(ValueError):
                paired_counts(baseline, candidate)

    def test_mcnemar_hand_values(self):
        # b = 5, c = 1: m = 6, P(X <= 1) = (1 + 6)/64, p = 14/64 = 7/32.
        self.assertEqual(mcnemar_exact_p(5, 1), F(7, 32))
        self.assertEqual(mcnemar_exact_p(1, 5), F(7, 32))
        self.assertEqual(mcnemar_exact_p(5, 0), F(1, 16))    # 2 / 2**5
        self.assertEqual(mcnemar_exact_p(10, 0), F(1, 512))  # 2 / 2**10
        self.assertEqual(mcnemar_exact_p(0, 0), 1)
        self.assertEqual(mcnemar_exact_p(3, 3), 1)
        self.assertEqual(mcnemar_exact_p(2, 1), 1)  # 2 * 4/8 = 1
        with self.assertRaises(ValueError):
            mcnemar_exact_p(-1, 2)

    def test_mcnemar_against_enumeration(self):
        # p = P(min(X, m - X) <= min(b, c)) over all 2**m equally likely splits.
        for m in range(1, 11):
            splits = [sum(bits) for bits in itertools.product((0, 1), repeat=m)]
            for b in range(m + 1):
                observed = min(b, m - b)
                extreme = sum(1 for x in splits if min(x, m - x) <= observed)
                self.assertEqual(mcnemar_exact_p(b, m - b), F(extreme, 2 ** m), (b, m))

    def test_paired_standard_error_hand_value(self):
        # d = 1, 0, 0, -1, 1: mean 1/5; squared deviations (16+1+1+36+16)/25 = 14/5;
        # variance of the mean 14/5 / (5 * 4) = 7/50.
        mean, variance, se = paired_standard_error([1, 0, 0, -1, 1])
        self.assertEqual((mean, variance), (F(1, 5), F(7, 50)))
        self.assertEqual(variance, statistics.variance([F(d) for d in [1, 0, 0, -1, 1]]) / 5)
        self.assertEqual(se, sqrt_float(F(7, 50)))
        self.assertAlmostEqual(se, math.sqrt(0.14), delta=1e-16)

    def test_paired_standard_error_edges(self):
        self.assertEqual(paired_standard_error([-1]), (-1, None, None))
        self.assertEqual(paired_standard_error([1, 1, 1]), (1, 0, 0.0))
        with self.assertRaises(ValueError):
            paired_standard_error([])

    def test_normal_interval(self):
        mean, se = F(1, 5), sqrt_float(F(7, 50))
        z = normal_quantile(F(39, 40))
        expected = (float(mean - F(z) * F(se)), float(mean + F(z) * F(se)))
        self.assertEqual(normal_interval(mean, se, Decimal("0.95")), expected)
        self.assertEqual(normal_interval(mean, se, F(19, 20)), expected)
        self.assertAlmostEqual(expected[0], 0.2 - 1.959963984540054 * math.sqrt(0.14), delta=1e-15)
        self.assertIsNone(normal_interval(mean, None, Decimal("0.95")))
        self.assertEqual(normal_interval(F(1, 2), 0.0, Decimal("0.9")), (0.5, 0.5))
        for confidence in (0, 1, Decimal("1.5")):
            with self.assertRaises(ValueError):
                normal_interval(mean, se, confidence)

    def test_outcome_correlation(self):
        # a = both 2, b = baseline only 1, c = candidate only 1, d = neither 1:
        # (a d - b c) / sqrt((a+b)(c+d)(a+c)(b+d)) = (2 - 1) / sqrt(3 * 2 * 3 * 2) = 1/6.
        self.assertEqual(outcome_correlation(BASELINE, CANDIDATE), to_float(F(1, 6)))
        self.assertEqual(outcome_correlation([1, 0, 1], [1, 0, 1]), 1.0)
        self.assertEqual(outcome_correlation([1, 0, 1], [0, 1, 0]), -1.0)
        self.assertIsNone(outcome_correlation([1, 1, 1], [1, 0, 1]))
        self.assertIsNone(outcome_correlation([1, 0, 1], [0, 0, 0]))
        # (1*2 - 1*1) would be positive; here a=1, b=2, c=1, d=0: (0 - 2)/sqrt(3*1*2*2) = -1/sqrt3.
        r = outcome_correlation([1, 1, 1, 0], [1, 0, 0, 1])
        self.assertEqual(r, -sqrt_float(F(1, 3)))

    def test_outcome_correlation_agrees_with_pearson(self):
        rng = random.Random(6)
        for _ in range(50):
            x = [rng.randrange(2) for _ in range(12)]
            y = [rng.randrange(2) for _ in range(12)]
            r = outcome_correlation(x, y)
            if r is None:
                continue
            mx, my = F(sum(x), 12), F(sum(y), 12)
            sxy = sum((a - mx) * (b - my) for a, b in zip(x, y))
            sxx = sum((a - mx) ** 2 for a in x)
            syy = sum((b - my) ** 2 for b in y)
            self.assertAlmostEqual(r, float(sxy) / math.sqrt(float(sxx * syy)), delta=1e-15)
            self.assertEqual(abs(r), sqrt_float(sxy * sxy / (sxx * syy)))


def miller_expanded_variance(differences, clusters):
    """Miller section 2.2 spelled out: sum e_i**2 / n**2 plus the within-cluster cross terms."""
    n = len(differences)
    mean = F(sum(differences), n)
    e = [d - mean for d in differences]
    total = sum(x * x for x in e)
    for i in range(n):
        for j in range(n):
            if i != j and clusters[i] == clusters[j]:
                total += e[i] * e[j]
    return total / n ** 2


class ClusteredTests(unittest.TestCase):
    DIFFERENCES = [1, 1, 0, -1, 0, 1]
    CLUSTERS = ["A", "A", "B", "B", "C", "C"]

    def test_hand_value(self):
        # mean 1/3; deviations 2/3, 2/3, -1/3, -4/3, -1/3, 2/3; family sums 4/3, -5/3, 1/3;
        # squares 16/9 + 25/9 + 1/9 = 14/3; / 36 = 7/54 (CR0); * 3/2 = 7/36 (CR1).
        self.assertEqual(clustered_variance(self.DIFFERENCES, self.CLUSTERS, False), F(7, 54))
        self.assertEqual(clustered_variance(self.DIFFERENCES, self.CLUSTERS), F(7, 36))
        self.assertEqual(clustered_standard_error(self.DIFFERENCES, self.CLUSTERS),
                         sqrt_float(F(7, 36)))
        self.assertAlmostEqual(clustered_standard_error(self.DIFFERENCES, self.CLUSTERS),
                               math.sqrt(7) / 6, delta=1e-16)

    def test_cr0_is_millers_expanded_formula(self):
        rng = random.Random(7)
        for _ in range(100):
            n = rng.randrange(2, 12)
            differences = [rng.choice((-1, 0, 0, 1)) for _ in range(n)]
            clusters = [rng.choice("abcd") for _ in range(n)]
            got = clustered_variance(differences, clusters, small_sample=False)
            if len(set(clusters)) < 2:
                self.assertIsNone(got)
            else:
                self.assertEqual(got, miller_expanded_variance(differences, clusters))

    def test_singleton_clusters_reduce_to_the_paired_standard_error(self):
        # CR1 with G = n: n/(n-1) * sum e**2 / n**2 = sum e**2 / (n (n-1)) exactly;
        # CR0 is (n - 1)/n of the paired variance.
        differences = [1, 0, 0, -1, 1]
        _mean, variance, se = paired_standard_error(differences)
        singletons = ["f%d" % i for i in range(5)]
        self.assertEqual(clustered_variance(differences, singletons), variance)
        self.assertEqual(clustered_standard_error(differences, singletons), se)
        self.assertEqual(clustered_variance(differences, singletons, False), variance * F(4, 5))

    def test_order_of_tasks_does_not_matter(self):
        expected = clustered_variance(self.DIFFERENCES, self.CLUSTERS)
        order = [5, 2, 0, 4, 1, 3]
        self.assertEqual(clustered_variance([self.DIFFERENCES[i] for i in order],
                                            [self.CLUSTERS[i] for i in order]), expected)

    def test_undefined_cases(self):
        self.assertIsNone(clustered_standard_error([1, 0, -1], ["a", "a", "a"]))
        self.assertIsNone(clustered_standard_error([1], ["a"]))
        self.assertEqual(clustered_standard_error([1, 1], ["a", "b"]), 0.0)
        with self.assertRaises(ValueError):
            clustered_variance([1, 0], ["a"])
        with self.assertRaises(ValueError):
            clustered_variance([], [])


class DetectableEffectTests(unittest.TestCase):
    def test_formula(self):
        se = sqrt_float(F(7, 50))
        z_sum = F(normal_quantile(F(39, 40))) + F(normal_quantile(F(4, 5)))
        self.assertEqual(minimum_detectable_effect(se, Decimal("0.95")), float(z_sum * F(se)))
        self.assertAlmostEqual(minimum_detectable_effect(0.1, Decimal("0.95")),
                               0.28015852181129684, delta=1e-16)
        self.assertEqual(minimum_detectable_effect(0.1, F(19, 20), F(4, 5)),
                         minimum_detectable_effect(0.1, Decimal("0.95")))

    def test_power_and_edges(self):
        # power 1/2: z_power = 0, so MDE = z_0.975 * se.
        self.assertEqual(minimum_detectable_effect(1.0, Decimal("0.95"), F(1, 2)),
                         normal_quantile(F(39, 40)))
        self.assertGreater(minimum_detectable_effect(0.1, Decimal("0.95"), F(9, 10)),
                           minimum_detectable_effect(0.1, Decimal("0.95")))
        self.assertIsNone(minimum_detectable_effect(None, Decimal("0.95")))
        self.assertEqual(minimum_detectable_effect(0.0, Decimal("0.95")), 0.0)
        for power in (0, 1):
            with self.assertRaises(ValueError):
                minimum_detectable_effect(0.1, Decimal("0.95"), power)


KEYS = {"candidate_only", "baseline_only", "both", "neither", "mcnemar_exact_p",
        "mean_difference", "standard_error", "normal_interval", "outcome_correlation",
        "clustered_standard_error", "minimum_detectable_effect", "power",
        "observed_below_mde", "standard_error_unit", "normal_interval_clipped",
        "not_estimable"}


class SummaryTests(unittest.TestCase):
    def test_values(self):
        summary = paired_summary(BASELINE, CANDIDATE, ["a", "a", "b", "b", "c"], Decimal("0.95"))
        self.assertEqual(set(summary), KEYS)
        differences = [0, -1, 0, 1, 0]
        _mean, variance, se = paired_standard_error(differences)
        self.assertEqual(variance, F(1, 10))  # 2 / (5 * 4)
        mde = minimum_detectable_effect(se, Decimal("0.95"))
        self.assertEqual(summary, {
            "candidate_only": 1, "baseline_only": 1, "both": 2, "neither": 1,
            "mcnemar_exact_p": 1.0, "mean_difference": 0.0, "standard_error": se,
            "normal_interval": list(normal_interval(0, se, Decimal("0.95"))),
            "outcome_correlation": to_float(F(1, 6)),
            # families a: -1, b: 1, c: 0 -> (1 + 1 + 0) / 25 * 3/2 = 3/25
            "clustered_standard_error": sqrt_float(F(3, 25)),
            "minimum_detectable_effect": mde, "power": 0.8, "observed_below_mde": True,
            "standard_error_unit": "task", "normal_interval_clipped": False,
            "not_estimable": None,
        })

    def test_large_difference_is_not_below_the_mde(self):
        summary = paired_summary([0] * 8 + [1, 1], [1] * 10, list("abcdefghij"), F(9, 10))
        self.assertEqual(summary["candidate_only"], 8)
        self.assertEqual(summary["mcnemar_exact_p"], to_float(F(2, 256)))
        self.assertEqual(summary["mean_difference"], 0.8)
        self.assertIsNone(summary["outcome_correlation"])
        self.assertEqual(summary["clustered_standard_error"], summary["standard_error"])
        self.assertFalse(summary["observed_below_mde"])

    def test_identical_systems_are_not_estimable_not_certain(self):
        summary = paired_summary([1, 0, 1], [1, 0, 1], ["a", "b", "c"], Decimal("0.95"))
        self.assertEqual(summary["mcnemar_exact_p"], 1.0)
        self.assertEqual(summary["outcome_correlation"], 1.0)
        for key in ("standard_error", "clustered_standard_error", "normal_interval",
                    "minimum_detectable_effect", "observed_below_mde"):
            self.assertIsNone(summary[key], key)
        self.assertIn("every task has the same difference", summary["not_estimable"])

    def test_five_identical_gains_have_no_mde_of_zero(self):
        summary = paired_summary([0] * 5, [1] * 5, list("abcde"), Decimal("0.95"))
        self.assertIsNone(summary["minimum_detectable_effect"])
        self.assertIsNotNone(summary["not_estimable"])

    def test_the_mde_follows_the_family_unit(self):
        # Two families of correlated tasks: the clustered standard error is larger.
        baseline, candidate = [0, 0, 0, 1, 1, 1, 0, 1], [1, 1, 1, 1, 1, 1, 0, 0]
        families = list("aaabbbcd")
        by_task = paired_summary(baseline, candidate, families, Decimal("0.95"))
        by_family = paired_summary(baseline, candidate, families, Decimal("0.95"),
                                   unit="family")
        self.assertEqual(by_family["standard_error_unit"], "family")
        self.assertEqual(by_task["minimum_detectable_effect"],
                         minimum_detectable_effect(by_task["standard_error"], Decimal("0.95")))
        self.assertEqual(by_family["minimum_detectable_effect"],
                         minimum_detectable_effect(by_family["clustered_standard_error"],
                                                   Decimal("0.95")))
        self.assertNotEqual(by_task["minimum_detectable_effect"],
                            by_family["minimum_detectable_effect"])

    def test_one_family_under_the_family_unit_is_not_estimable(self):
        summary = paired_summary([0, 1, 0], [1, 1, 0], ["f", "f", "f"], Decimal("0.95"),
                                 unit="family")
        self.assertIsNone(summary["minimum_detectable_effect"])
        self.assertIsNone(summary["normal_interval"])
        self.assertIn("one test family", summary["not_estimable"])
        self.assertIsNotNone(summary["standard_error"])  # the task level is estimable

    def test_the_normal_interval_is_clipped_to_minus_one_one(self):
        summary = paired_summary([0, 0, 0, 1], [1, 1, 1, 0], list("abcd"), Decimal("0.95"))
        low, high = summary["normal_interval"]
        self.assertTrue(summary["normal_interval_clipped"])
        self.assertEqual(high, 1.0)
        self.assertGreaterEqual(low, -1.0)

    def test_single_task(self):
        summary = paired_summary([0], [1], ["a"], Decimal("0.95"))
        self.assertIn("one test task", summary["not_estimable"])
        for key in ("standard_error", "normal_interval", "outcome_correlation",
                    "clustered_standard_error", "minimum_detectable_effect",
                    "observed_below_mde"):
            self.assertIsNone(summary[key], key)
        self.assertEqual(summary["mean_difference"], 1.0)

    def test_json_ready_and_deterministic(self):
        rng = random.Random(8)
        baseline = [rng.randrange(2) for _ in range(40)]
        candidate = [rng.randrange(2) for _ in range(40)]
        clusters = ["family-%d" % (i // 3) for i in range(40)]
        first = json.dumps(paired_summary(baseline, candidate, clusters, Decimal("0.9")),
                           sort_keys=True, allow_nan=False)
        with localcontext() as context:
            context.prec = 4
            second = json.dumps(paired_summary(baseline, candidate, clusters, Decimal("0.9")),
                                sort_keys=True, allow_nan=False)
        self.assertEqual(first, second)


if __name__ == "__main__":
    unittest.main()


class SignTestTests(unittest.TestCase):
    """McNemar's exact one-sided test on the discordant units (the sign test)."""

    def test_against_enumeration(self):
        # p = P(X >= gains) over all 2**m equally likely splits of m discordant units.
        for m in range(0, 11):
            splits = [sum(bits) for bits in itertools.product((0, 1), repeat=m)]
            for gains in range(m + 1):
                expected = F(sum(1 for x in splits if x >= gains), 2 ** m)
                self.assertEqual(sign_test_p(gains, m - gains), expected, (gains, m))
                self.assertEqual(sign_test_p_float(gains, m - gains), float(expected))

    def test_float_and_decision_agree_with_the_exact_value(self):
        rng = random.Random(18)
        levels = [F(1, 40), F(1, 20), F(1, 2000), F(1, 4)]
        for _ in range(400):
            gains, losses = rng.randrange(0, 300), rng.randrange(0, 300)
            exact_p = sign_test_p(gains, losses)
            self.assertEqual(sign_test_p_float(gains, losses), float(exact_p))
            for level in levels + [exact_p]:
                self.assertEqual(sign_test_rejects(gains, losses, level), exact_p <= level)
        # A bracket that straddles the level falls back to the exact sum.
        self.assertTrue(sign_test_rejects(20, 3, sign_test_p(20, 3), bits=4))
        self.assertFalse(sign_test_rejects(20, 3, sign_test_p(20, 3) * F(999, 1000), bits=4))

    def test_its_size_is_at_most_the_level_given_the_discordant_units(self):
        for level in (F(1, 40), F(1, 20), F(1, 200)):
            for m in range(0, 60):
                size = sum(F(math.comb(m, gains), 2 ** m) for gains in range(m + 1)
                           if sign_test_rejects(gains, m - gains, level))
                self.assertLessEqual(size, level, (level, m))
        # At 95% confidence it first rejects with six discordant units, all gains.
        self.assertEqual([m for m in range(1, 8) if sign_test_rejects(m, 0, F(1, 40))],
                         [6, 7])
        # A large sample in milliseconds: 60,000 discordant units.
        self.assertTrue(sign_test_rejects(30300, 29700, F(1, 40)))
        self.assertFalse(sign_test_rejects(30100, 29900, F(1, 40)))


class StudentQuantileTests(unittest.TestCase):
    # The doubles nearest the roots of F(t) = p with F from the regularized incomplete beta
    # function at 50 digits (mpmath): an independent method.
    KNOWN = {
        (1, F(39, 40)): 12.706204736174705, (1, F(1999, 2000)): 636.6192487687197,
        (2, F(39, 40)): 4.302652729749464, (2, F(4, 5)): 1.0606601717798212,
        (3, F(39, 40)): 3.1824463052837095, (4, F(1999, 2000)): 8.610301581379275,
        (7, F(39, 40)): 2.3646242515927853, (29, F(39, 40)): 2.0452296421327043,
        (29, F(4, 5)): 0.8541919858818556, (100, F(1999, 2000)): 3.39049131116423,
        (1000, F(39, 40)): 1.9623390808264085, (1001, F(39, 40)): 1.96233670528088,
        (1001, F(1999, 2000)): 3.300272876066009, (5000, F(4, 5)): 0.8416931276635043,
    }

    def test_known_values(self):
        for (df, p), expected in self.KNOWN.items():
            self.assertEqual(student_t_quantile(p, df), expected, (df, p))
            self.assertEqual(student_t_quantile(1 - p, df), -expected, (df, p))

    def test_closed_forms(self):
        # nu = 1: t = tan(pi (p - 1/2)); nu = 2: t = (2p - 1) / sqrt(2 p (1 - p)).
        for p in (F(3, 5), F(9, 10), F(99, 100)):
            self.assertAlmostEqual(student_t_quantile(p, 1),
                                   math.tan(math.pi * float(p - F(1, 2))), places=10)
            self.assertAlmostEqual(student_t_quantile(p, 2), float(2 * p - 1) / math.sqrt(
                float(2 * p * (1 - p))), places=12)

    def test_tends_to_the_normal_quantile(self):
        p = F(39, 40)
        values = [two_sided_t(F(95, 100), df) for df in (1, 2, 5, 30, 999, 1000, 1001, 10 ** 7)]
        self.assertEqual(values, sorted(values, reverse=True))
        z = normal_quantile(p)
        self.assertAlmostEqual(values[-1], z + (z ** 3 + z) / 4e7, places=12)

    def test_bad_input(self):
        for p, df in ((0, 3), (1, 3), (F(1, 2), 0), (F(1, 2), True), (F(1, 2), 2.0)):
            with self.assertRaises(ValueError):
                student_t_quantile(p, df)
        self.assertEqual(student_t_quantile(F(1, 2), 4), 0.0)


class RandomizationTestTests(unittest.TestCase):
    """The one-sided sign-flip randomization test, of which McNemar's is a case."""

    def test_against_enumeration_of_sign_flips(self):
        rng = random.Random(7)
        for _ in range(300):
            values = [rng.choice([-4, -3, -2, -1, 0, 1, 2, 3, 6]) for _ in range(rng.randrange(9))]
            nonzero = [value for value in values if value]
            observed = sum(nonzero)
            extreme = sum(1 for signs in itertools.product((1, -1), repeat=len(nonzero))
                          if sum(s * abs(v) for s, v in zip(signs, nonzero)) >= observed)
            self.assertEqual(randomization_p(values), F(extreme, 2 ** len(nonzero)), values)

    def test_equal_sizes_are_mcnemars_test(self):
        for gains, losses in ((5, 0), (7, 2), (0, 3), (4, 4)):
            values = [2] * gains + [-2] * losses
            self.assertEqual(randomization_p(values), sign_test_p(gains, losses))
            summary = exact_test_summary(values, F(95, 100), "family")
            self.assertEqual(summary["method"], "mcnemar")
            self.assertEqual(summary["p_one_sided"], float(sign_test_p(gains, losses)))

    def test_its_size_is_at_most_the_level_given_the_sizes(self):
        # Every sign pattern of the sizes 1, 1, 2, 3, 3, 5, 8 is equally likely under the
        # null: the rejected patterns are at most the level's share of them.
        sizes = [1, 1, 2, 3, 3, 5, 8]
        for level in (F(1, 40), F(1, 10), F(1, 4)):
            rejected = sum(1 for signs in itertools.product((1, -1), repeat=len(sizes))
                           if randomization_p([s * v for s, v in zip(signs, sizes)]) <= level)
            self.assertLessEqual(F(rejected, 2 ** len(sizes)), level)

    def test_the_summary_counts_exactly_then_takes_the_normal_limit(self):
        values = [3, -1, 2, 2, 1, 3, -2, 1, 1, 3]
        summary = exact_test_summary(values, F(95, 100), "task")
        self.assertEqual((summary["gains"], summary["losses"], summary["method"]),
                         (8, 2, "randomization"))
        self.assertEqual(summary["p_one_sided"], float(randomization_p(values)))
        self.assertEqual(summary["rejects"], randomization_p(values) <= F(1, 40))
        large = [3, -1, 2, 1] * 400  # 1,600 units: beyond EXACT_TEST_WORK
        summary = exact_test_summary(large, F(95, 100), "task")
        self.assertEqual(summary["method"], "normal")
        self.assertTrue(summary["rejects"])
        spread = math.sqrt(sum(v * v for v in large))
        self.assertAlmostEqual(summary["p_one_sided"],
                               1 - statistics.NormalDist().cdf((sum(large) - 1) / spread),
                               places=12)
        self.assertEqual(exact_test_summary([], F(95, 100), "task")["p_one_sided"], 1.0)
