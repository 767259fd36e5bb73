"""The binomial sampler and the O(B m) multinomial bootstrap against exact distributions.

Every check is deterministic (fixed seeds) and its margin generous: a chi-square statistic is
held below the Wilson-Hilferty approximation of its quantile at z = 5 (a chance near 3e-7 of
a false alarm for a correct sampler, and it is fixed once the seed is), an empirical quantile
to within five standard errors of its level. Exact distributions come from enumeration with
Fractions. Pinned draws guard the stream itself: they must be the same on every Python.
"""

import math
import random
import unittest
from fractions import Fraction
from unittest import mock

from proagents_bench.stats import binomial
from proagents_bench.stats.binomial import exact_accept, sampler
from proagents_bench.stats.bootstrap import (categories, distribution_of, family_clusters,
                                             multinomial_resample, paired_interval, quantile,
                                             task_clusters)
from proagents_bench.stats.quantiles import nearest_rank_index
from tests.oracles import index_resample
from tests.oracles import means as expanded_means


def chi_square_limit(degrees, z=5.0):
    """Wilson-Hilferty: the chi-square quantile with ``degrees`` at the normal quantile z."""
    ratio = 2.0 / (9.0 * degrees)
    return degrees * (1.0 - ratio + z * math.sqrt(ratio)) ** 3


def goodness_of_fit(observed, expected_probabilities, draws):
    """(statistic, degrees of freedom), cells with expectation below 5 pooled."""
    cells = []
    pooled_observed = pooled_expected = 0.0
    for value, probability in sorted(expected_probabilities.items()):
        pooled_observed += observed.get(value, 0)
        pooled_expected += float(probability) * draws
        if pooled_expected >= 5:
            cells.append((pooled_observed, pooled_expected))
            pooled_observed = pooled_expected = 0.0
    if pooled_expected and cells:
        last_observed, last_expected = cells.pop()
        cells.append((last_observed + pooled_observed, last_expected + pooled_expected))
    unexpected = sum(count for value, count in observed.items()
                     if value not in expected_probabilities)
    if unexpected:
        raise AssertionError("values outside the support: %d" % unexpected)
    statistic = sum((o - e) ** 2 / e for o, e in cells)
    return statistic, len(cells) - 1


def binomial_pmf(n, p):
    q = 1 - p
    return {k: math.comb(n, k) * p ** k * q ** (n - k) for k in range(n + 1)}


def exact_mean_distribution(clusters):
    """The exact law of a resample's mean: {mean: probability}, by enumerating the
    multinomial category counts."""
    merged = categories(clusters)
    total = len(clusters)
    law = {}

    def visit(index, left, weight, sum_, size):
        (cluster_sum, cluster_size), multiplicity = merged[index]
        chance = Fraction(multiplicity, total)
        if index == len(merged) - 1:
            weight = weight * chance ** left / math.factorial(left)
            mean = Fraction(sum_ + left * cluster_sum, size + left * cluster_size)
            law[mean] = law.get(mean, 0) + weight * math.factorial(total)
            return
        for count in range(left + 1):
            visit(index + 1, left - count, weight * chance ** count / math.factorial(count),
                  sum_ + count * cluster_sum, size + count * cluster_size)

    visit(0, total, Fraction(1), 0, 0)
    assert sum(law.values()) == 1
    return law


def counts_of(resampled):
    """{mean: count} from a resampler's {(sum, size): count}."""
    return dict(distribution_of(resampled))


class BinomialSamplerTests(unittest.TestCase):
    def draws(self, n, p, count, seed=1):
        draw = sampler(n, p)
        uniform = random.Random(seed).random
        return [draw(uniform) for _ in range(count)]

    def assert_follows_pmf(self, n, p, count, seed=1):
        observed = {}
        for value in self.draws(n, p, count, seed):
            observed[value] = observed.get(value, 0) + 1
        statistic, degrees = goodness_of_fit(observed, binomial_pmf(n, Fraction(p)), count)
        self.assertLess(statistic, chi_square_limit(degrees), (n, p, statistic, degrees))

    def test_exact_pmf_by_inversion(self):
        for n, p in ((1, Fraction(1, 2)), (5, Fraction(1, 3)), (12, Fraction(1, 10)),
                     (30, Fraction(3, 10)), (9, Fraction(9, 10))):
            with self.subTest(n=n, p=p):
                self.assert_follows_pmf(n, p, 20000)

    def test_exact_pmf_by_btrs(self):
        for n, p in ((40, Fraction(1, 2)), (60, Fraction(1, 4)), (200, Fraction(3, 5)),
                     (1000, Fraction(1, 100))):
            with self.subTest(n=n, p=p):
                self.assertGreaterEqual(n * min(p, 1 - p), binomial.INVERSION_LIMIT)
                self.assert_follows_pmf(n, p, 30000, seed=n)

    def test_mean_and_variance_for_large_n(self):
        for n, p in ((10000, Fraction(3, 10)), (100000, Fraction(1, 1000)),
                     (5000, Fraction(1, 2)), (20000, Fraction(7, 8))):
            with self.subTest(n=n, p=p):
                count = 20000
                values = self.draws(n, p, count, seed=3)
                mean = Fraction(sum(values), count)
                variance = Fraction(sum((v - mean) ** 2 for v in values), count - 1)
                expected_mean, expected_variance = n * p, n * p * (1 - p)
                # Five standard errors of the mean and of the sample variance (whose
                # standard error is about variance * sqrt(2 / count) near normality).
                self.assertLess(abs(float(mean - expected_mean)),
                                5 * math.sqrt(float(expected_variance) / count))
                self.assertLess(abs(float(variance / expected_variance) - 1),
                                5 * math.sqrt(2.0 / count) + 0.01)

    def test_edges_and_errors(self):
        self.assertEqual(self.draws(0, Fraction(1, 2), 5), [0] * 5)
        self.assertEqual(self.draws(9, 0, 5), [0] * 5)
        self.assertEqual(self.draws(9, 1, 5), [9] * 5)
        self.assertEqual(set(self.draws(1, Fraction(1, 2), 200)), {0, 1})
        for n, p in ((-1, 0.5), (3, Fraction(3, 2)), (3, -0.1), (True, 0.5), (2.0, 0.5)):
            with self.subTest(n=n, p=p), self.assertRaises(ValueError):
                sampler(n, p)

    def test_the_stream_is_pinned(self):
        # The same on CPython 3.9+ and PyPy, on every platform: a change here changes every
        # shipped bootstrap interval, so it must be deliberate.
        self.assertEqual(self.draws(1000, Fraction(3, 10), 8, seed=2024),
                         [299, 291, 296, 290, 315, 296, 339, 309])
        self.assertEqual(self.draws(20, Fraction(1, 4), 8, seed=2024),
                         [5, 6, 4, 7, 4, 6, 4, 4])
        self.assertEqual(self.draws(500000, Fraction(2, 3), 8, seed=1),
                         [333756, 333064, 333338, 333187, 333857, 332964, 333066, 333385])

    def test_float_acceptance_agrees_with_the_exact_test(self):
        # With an infinite tolerance every BTRS acceptance test is decided in integers; the
        # draws must not change (the float test only ever decides far from the boundary).
        for n, p in ((50, Fraction(1, 3)), (3000, Fraction(1, 2)), (800, Fraction(19, 20))):
            with self.subTest(n=n, p=p):
                usual = self.draws(n, p, 3000, seed=9)
                with mock.patch.object(binomial, "TOLERANCE", math.inf):
                    exact = self.draws(n, p, 3000, seed=9)
                self.assertEqual(usual, exact)

    def test_exact_accept_is_the_pmf_ratio(self):
        rng = random.Random(4)
        for _ in range(200):
            n = rng.randint(1, 60)
            p = Fraction(rng.randint(1, 9), 10)
            mode = (n + 1) * p.numerator // p.denominator
            k = rng.randint(0, n)
            ratio = binomial_pmf(n, p)[k] / binomial_pmf(n, p)[mode]
            below, above = float(ratio) * (1 - 1e-12), float(ratio) * (1 + 1e-12)
            self.assertTrue(exact_accept(below, n, mode, k, p.numerator, p.denominator))
            self.assertFalse(exact_accept(above, n, mode, k, p.numerator, p.denominator))
            exactly = float(ratio)
            self.assertEqual(exact_accept(exactly, n, mode, k, p.numerator, p.denominator),
                             Fraction(exactly) <= ratio)


class MultinomialBootstrapTests(unittest.TestCase):
    TASKS = task_clusters([1, 0, 0, -1, 1, 1, 0])
    FAMILIES = [(2, 2), (-1, 1), (0, 3), (1, 1), (1, 1), (0, 1)]

    def test_resampled_means_follow_the_exact_distribution(self):
        for clusters in (self.TASKS, self.FAMILIES):
            with self.subTest(clusters=clusters):
                draws = 40000
                observed = counts_of(multinomial_resample(clusters, draws, random.Random(11)))
                law = exact_mean_distribution(clusters)
                statistic, degrees = goodness_of_fit(observed, law, draws)
                self.assertLess(statistic, chi_square_limit(degrees), (statistic, degrees))

    def test_nearest_rank_quantiles_match_the_exact_ones(self):
        for clusters in (self.TASKS, self.FAMILIES):
            law = sorted(exact_mean_distribution(clusters).items())
            samples = 20000
            interval = paired_interval(clusters, samples, 5, Fraction(9, 10))
            for level, value in ((Fraction(1, 20), interval.low),
                                 (Fraction(19, 20), interval.high)):
                with self.subTest(clusters=clusters, level=level):
                    below = sum(p for mean, p in law if mean < value)
                    upto = below + dict(law)[value]
                    slack = 5 * math.sqrt(float(level * (1 - level)) / samples)
                    # The exact CDF jumps across the level at the empirical quantile.
                    self.assertLessEqual(float(below), float(level) + slack)
                    self.assertGreaterEqual(float(upto), float(level) - slack)

    def test_agrees_in_distribution_with_index_resampling(self):
        rng = random.Random(2)
        differences = [rng.choice((-1, 0, 0, 1)) for _ in range(12)]
        clusters = family_clusters(differences, ["f%d" % (i // 2) for i in range(12)])
        draws = 8000
        fast = counts_of(multinomial_resample(clusters, draws, random.Random(1)))
        slow = counts_of(index_resample(clusters, draws, random.Random(1)))
        # Chi-square test of homogeneity over the pooled support, sparse cells pooled.
        statistic = 0.0
        cells = 0
        pending_fast = pending_slow = 0
        for mean in sorted(set(fast) | set(slow)):
            pending_fast += fast.get(mean, 0)
            pending_slow += slow.get(mean, 0)
            if pending_fast + pending_slow >= 20:
                expected = (pending_fast + pending_slow) / 2
                statistic += ((pending_fast - expected) ** 2 + (pending_slow - expected) ** 2
                              ) / expected
                cells += 1
                pending_fast = pending_slow = 0
        self.assertGreater(cells, 5)
        self.assertLess(statistic, chi_square_limit(cells - 1))

    def test_singleton_families_give_the_task_interval(self):
        differences = [1, 0, -1, 1, 0, 0, 1, 1, -1, 0, 1]
        families = ["family-%d" % index for index in range(len(differences))]
        for resampler in (multinomial_resample, index_resample):
            by_task = paired_interval(task_clusters(differences), 700, 8, Fraction(95, 100),
                                      resampler)
            by_family = paired_interval(family_clusters(differences, families), 700, 8,
                                        Fraction(95, 100), resampler)
            self.assertEqual(by_task.distribution(), by_family.distribution())
            self.assertEqual((by_task.low, by_task.high), (by_family.low, by_family.high))

    def test_deterministic_and_pinned(self):
        clusters = task_clusters([1, 0, -1, 1, 0, 0, 1, 1, 0, -1] * 30)
        first = paired_interval(clusters, 1000, 42, Fraction(9, 10))
        second = paired_interval(clusters, 1000, 42, Fraction(9, 10))
        self.assertEqual(first.distribution(), second.distribution())
        self.assertEqual((first.low, first.high), (Fraction(2, 15), Fraction(27, 100)))
        self.assertEqual(sum(count for _, count in first.distribution()), 1000)

    def test_quantiles_from_counts_equal_those_of_the_sorted_means(self):
        rng = random.Random(6)
        for _ in range(30):
            clusters = [(rng.randint(-2, 2), rng.randint(1, 3)) for _ in range(rng.randint(1, 9))]
            samples = rng.randint(100, 400)
            confidence = Fraction(rng.randint(50, 999), 1000)
            interval = paired_interval(clusters, samples, rng.getrandbits(20), confidence)
            means = expanded_means(interval)
            self.assertEqual(means, sorted(means))
            self.assertEqual(len(means), samples)
            tail = (1 - confidence) / 2
            self.assertEqual(interval.low, means[nearest_rank_index(tail, samples)])
            self.assertEqual(interval.high, means[nearest_rank_index(1 - tail, samples)])

    def test_one_category_needs_no_draw_and_empty_is_refused(self):
        interval = paired_interval(task_clusters([1, 1, 1]), 100, 1, Fraction(95, 100))
        self.assertEqual(interval.distribution(), [(Fraction(1), 100)])
        with self.assertRaises(ValueError):
            paired_interval([], 100, 1, Fraction(95, 100))
        with self.assertRaises(IndexError):
            quantile([(Fraction(0), 3)], 3)

    def test_categories_order_puts_the_largest_last(self):
        self.assertEqual(categories([(1, 1), (0, 1), (0, 1), (-1, 1), (1, 1), (0, 1)]),
                         [((-1, 1), 1), ((1, 1), 2), ((0, 1), 3)])


if __name__ == "__main__":
    unittest.main()
