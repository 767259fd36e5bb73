"""The exact enumeration behind the docs' false-pass tables (devtools/falsepass.py), held to a
brute force that shares none of its shortcuts: every (gains, losses) decided one by one with
the exact bootstrap tail, the exact sign test and the real standard-error code."""

import itertools
import os
import unittest
from fractions import Fraction as F
from math import comb

from devtools import falsepass
from proagents_bench.stats.ideal_bootstrap import (bound_passes, lower_tail,
                                                   lower_tail_exact)
from proagents_bench.stats.exact_tests import sign_test_p
from proagents_bench.stats.paired import unit_standard_error
from tests.devtools.support import run_devtools
from tests.support import ROOT, evaluate_package, outcome_package

TAIL = F(1, 40)


def brute_passes(name, unit, units, gains, losses, size=1):
    """The rule decided directly: the bootstrap tail summed exactly over the multinomial,
    McNemar's one-sided p as a fraction, the standard error from the differences."""
    tasks, gained, lost = units * size, gains * size, losses * size
    if name == "v1":
        return lower_tail_exact(tasks, gained, lost, -1) < TAIL
    if lower_tail_exact(tasks, gained, lost, 0) >= TAIL:
        return False
    if name == "v3-bootstrap":
        return True
    differences = [1] * gains + [-1] * losses + [0] * (units - gains - losses)
    differences = [d for d in differences for _ in range(size)]
    if unit == "family":
        clusters = ["f%d" % (index // size) for index in range(tasks)]
        se, _ = unit_standard_error(differences, clusters, "family", falsepass.MIN_FAMILIES)
    else:
        se, _ = unit_standard_error(differences, list(range(tasks)), "task")
    counted = (gains, losses) if unit == "family" or size == 1 else (gained, lost)
    return se is not None and sign_test_p(*counted) <= TAIL


class EnumerationTests(unittest.TestCase):
    def test_conditional_rates_equal_the_brute_force(self):
        for name in falsepass.RULES:
            for units in range(1, 10):
                rule = falsepass.Rule(name, "task", F(95, 100))
                expected = [F(sum(comb(d, a) for a in range(d + 1)
                                  if brute_passes(name, "task", units, a, d - a)), 2 ** d)
                            for d in range(units + 1)]
                self.assertEqual(falsepass.conditional_rates(rule, units), expected,
                                 (name, units))

    def test_the_family_model_equals_the_brute_force(self):
        for units in (2, 4, 6, 7):
            for name, unit in (("v1", "task"), ("v3", "task"), ("v3", "family")):
                size = 2 if unit == "task" else 1
                rule = falsepass.Rule(name, unit, F(95, 100))
                expected = [F(sum(comb(d, a) for a in range(d + 1)
                                  if brute_passes(name, unit, units, a, d - a, size)), 2 ** d)
                            for d in range(units + 1)]
                # the family rule's units are the families; duplicates change nothing else
                self.assertEqual(falsepass.conditional_rates(rule, units, size), expected,
                                 (name, unit, units))

    def test_average_rate_is_the_trinomial_sum(self):
        q = falsepass.discordance(2, 2)
        self.assertEqual(q, F(2, 5))
        for units in (1, 3, 6):
            rule = falsepass.Rule("v3-bootstrap", "task", F(95, 100))
            expected = sum(F(comb(units, a) * comb(units - a, b)) * (q / 2) ** (a + b)
                           * (1 - q) ** (units - a - b)
                           for a in range(units + 1) for b in range(units - a + 1)
                           if brute_passes("v3-bootstrap", "task", units, a, b))
            self.assertEqual(falsepass.average_rate(
                falsepass.conditional_rates(rule, units), q), expected)

    def test_estimable_is_the_standard_error_codes_verdict(self):
        for units in range(1, 9):
            for gains, losses in itertools.product(range(units + 1), repeat=2):
                if gains + losses > units:
                    continue
                differences = [1] * gains + [-1] * losses + [0] * (units - gains - losses)
                for unit in ("task", "family"):
                    se, _ = unit_standard_error(differences, list(range(units)), unit,
                                                falsepass.MIN_FAMILIES)
                    self.assertEqual(falsepass.estimable(units, gains, losses, unit),
                                     se is not None, (units, gains, losses, unit))


class GuaranteeTests(unittest.TestCase):
    def test_v3_never_passes_more_than_the_tail_given_the_discordant_tasks(self):
        for units in (10, 25, 40):
            for confidence in (F(95, 100), F(9, 10)):
                rates = falsepass.conditional_rates(falsepass.Rule("v3", "task", confidence),
                                                    units)
                tail = (1 - confidence) / 2
                self.assertLessEqual(max(rates), tail, (units, confidence))

    def test_the_bootstrap_alone_passes_four_gains_one_time_in_sixteen(self):
        for units in (10, 20, 40):
            rates = falsepass.conditional_rates(
                falsepass.Rule("v3-bootstrap", "task", F(95, 100)), units)
            self.assertEqual(rates[4], F(1, 16))
            now = falsepass.conditional_rates(falsepass.Rule("v3", "task", F(95, 100)), units)
            self.assertEqual(now[:6], [0] * 6)

    def test_the_ideal_bound_against_the_exact_sum(self):
        for units, gains, losses in ((30, 6, 1), (12, 5, 0), (50, 20, 13), (7, 2, 2)):
            for limit in (-1, 0, 2):
                self.assertAlmostEqual(lower_tail(units, gains, losses, limit),
                                       float(lower_tail_exact(units, gains, losses, limit)),
                                       places=13)
        # 4 gains among 30 tasks: P*(X <= 0) = (26/30)**30, below 1/40: the bound is above 0.
        self.assertEqual(lower_tail_exact(30, 4, 0, 0), F(26, 30) ** 30)
        self.assertTrue(bound_passes(30, 4, 0, 0, True, TAIL))
        self.assertFalse(bound_passes(30, 3, 0, 0, True, TAIL))


class SeedTests(unittest.TestCase):
    """The strict gate with the gate's own B resamples, one seed at a time (bench false-pass
    --seeds): each outcome's verdict is the real gate's."""

    def test_each_verdict_is_the_decisions(self):
        units, samples = 6, 200
        for seed in (0, 1, 7):
            rates = falsepass.seed_rates(units, samples, [seed], F(95, 100), F(2), F(2))
            alone = with_rules = F(0)
            for gains, losses, chance in falsepass.outcome_chances(units, F(2, 5)):
                ties = units - gains - losses
                spec, cases, results = outcome_package(
                    [0] * gains + [2] * losses + [0] * ties,
                    [2] * gains + [0] * losses + [0] * ties, trials=2, version=3)
                spec["bootstrap"].update(samples=samples, seed=seed)
                document = evaluate_package(self, spec, cases, results).document
                if document["comparison"]["paired_bootstrap_interval"][0] > 0:
                    alone += chance
                held = any(finding["code"] == "min_paired_delta_ci_low"
                           for finding in document["findings"])
                with_rules += 0 if held else chance
            self.assertEqual((rates.bootstrap[0], rates.v3[0]), (alone, with_rules), seed)

    def test_the_resamples_move_the_bootstrap_alone_and_v3_stays_within_level(self):
        rates = falsepass.seed_rates(10, 1000, range(12), F(95, 100), F(2), F(2))
        ideal = falsepass.average_rate(falsepass.conditional_rates(
            falsepass.Rule("v3-bootstrap", "task", F(95, 100)), 10), F(2, 5))
        self.assertGreater(len(set(rates.bootstrap)), 1)  # the rate moves with the seed
        self.assertTrue(any(rate > TAIL for rate in rates.bootstrap))
        self.assertGreater(sum(rates.bootstrap) / len(rates.bootstrap), ideal)
        self.assertLessEqual(rates.v3_given, TAIL)
        self.assertLessEqual(max(rates.v3), TAIL)


class TableTests(unittest.TestCase):
    def test_the_docs_tables_are_this_codes_output(self):
        # The small rows are recomputed (the full tables take a minute: bench false-pass).
        with open(os.path.join(ROOT, "docs", "statistics.md"), "rb") as handle:
            docs = handle.read().decode("utf-8").splitlines()
        for line in falsepass.task_table([10, 20], F(95, 100), 2, 2):
            self.assertIn(line, docs)
        for line in falsepass.family_table([3, 6], 5, F(95, 100), 2, 2):
            self.assertIn(line, docs)

    def test_percent_rounds_half_to_even(self):
        self.assertEqual(falsepass.percent(F(1, 16)), "6.25%")
        self.assertEqual(falsepass.percent(F(1, 40)), "2.50%")
        self.assertEqual(falsepass.percent(F(12345, 1000000)), "1.23%")  # 1.2345 -> 1.23
        self.assertEqual(falsepass.percent(F(1)), "100.00%")

    def test_the_bench_command_prints_both_tables(self):
        run = run_devtools(["bench", "false-pass", "--tasks", "10", "--families", "6",
                       "--family-size", "2"])
        self.assertEqual(run.status, 0, run.stderr)
        lines = run.stdout.decode("ascii").splitlines()
        self.assertIn(falsepass.task_table([10], F(95, 100), 2, 2)[-1], lines)
        self.assertIn(falsepass.family_table([6], 2, F(95, 100), 2, 2)[-1], lines)
        self.assertEqual(run_devtools(["bench", "false-pass", "--beta", "2"]).status, 2)
        run = run_devtools(["bench", "false-pass", "--tasks", "6", "--families", "6", "--seeds",
                       "2", "--samples", "100"])
        self.assertEqual(run.status, 0, run.stderr)
        self.assertIn(falsepass.seed_table([6], 100, 2, F(95, 100), 2, 2)[-1],
                      run.stdout.decode("ascii").splitlines())
        self.assertEqual(run_devtools(["bench", "false-pass", "--seeds", "-1"]).status, 2)


if __name__ == "__main__":
    unittest.main()
