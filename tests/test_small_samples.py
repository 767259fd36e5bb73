"""Spec v3 on: a PASS only where the evidence backs it (issue "A PASS only where the evidence
backs it"), and spec v4's trial-level gate.

Each scenario is a package whose tasks have given numbers of passing trials (tests.support.
outcome_package): the interval gates pass by their bound, and the small-sample rules must
still hold them, or let clear evidence through. v1 and v2 decide every one as before.
"""

import unittest
from fractions import Fraction

from proagents_bench.contract.gates import (deciding_gates, gates_object, gates_of,
                                            interval_gates)
from proagents_bench.contract.inputs import FILE_KINDS
from proagents_bench.contract.vocabulary import (BLOCKING, REVIEWING, SPEC_V1, SPEC_V2, SPEC_V3,
                                                 SPEC_V4, SPEC_VERSIONS)
from proagents_bench.evaluation.decision import claims_improvement
from proagents_bench.stats.exact_tests import randomization_p
from proagents_bench.stats.paired import MIN_FAMILIES
from proagents_bench.stats.student import two_sided_t
from tests.test_schema import check
from proagents_bench.reports import html, junit, markdown, terminal
from tests.support import (evaluate_arguments, example_package, example_path, outcome_package,
                           run_package)


def gains(count, ties=0, losses=0, trials=2):
    """(baseline, candidate) passing trials: ``count`` tasks the candidate wins, ``ties``
    both pass, ``losses`` the baseline wins."""
    return ([0] * count + [trials] * ties + [trials] * losses,
            [trials] * count + [trials] * ties + [0] * losses)


class EvidenceTests(unittest.TestCase):
    def decide(self, baseline, candidate, **options):
        run = run_package(self, *outcome_package(baseline, candidate, **options))
        self.assertIn(run.status, (0, 1), run.stderr)
        return run.document

    def assert_review(self, document, *phrases):
        self.assertEqual(document["action"], "REVIEW", document["reasons"])
        self.assertIn("min_paired_delta_ci_low", document["primary_reason"])
        for phrase in phrases:
            self.assertIn(phrase, document["primary_reason"])

    def test_one_improving_task_is_not_evidence(self):
        document = self.decide([0], [2])
        self.assertEqual(document["comparison"]["paired_bootstrap_interval"], [1.0, 1.0])
        self.assert_review(document, "is above 0", "not estimable", "one test task")
        (finding,) = [f for f in document["findings"] if f["code"] == "min_paired_delta_ci_low"]
        self.assertEqual((finding["severity"], finding["observed"]), ("review", 1.0))
        self.assertEqual(self.decide([0], [2], version=2)["action"], "PASS")

    def test_two_to_five_equal_gains_are_not_evidence(self):
        for count in range(2, 6):
            with self.subTest(count=count):
                document = self.decide(*gains(count))
                self.assert_review(document, "not estimable", "every task has the same")
                self.assertEqual(document["comparison"]["paired_statistics"]["exact_test"][
                    "p_one_sided"], 2.0 ** -count)
                self.assertEqual(self.decide(*gains(count), version=2)["action"], "PASS")

    def test_gains_and_a_tie_need_the_exact_test(self):
        for count, p in ((3, "0.125"), (4, "0.0625"), (5, "0.03125")):
            with self.subTest(count=count):
                document = self.decide(*gains(count, ties=1))
                self.assertGreater(document["comparison"]["paired_bootstrap_interval"][0], 0)
                self.assert_review(document, "McNemar's exact one-sided test on the %d tasks"
                                   % count, "gives p = %s, above 0.025" % p)
                (finding,) = [f for f in document["findings"]
                              if f["code"] == "min_paired_delta_ci_low"]
                self.assertEqual((finding["metric"], finding["threshold"]),
                                 ("task_exact_test_p", 0.025))
                self.assertEqual(self.decide(*gains(count, ties=1), version=2)["action"],
                                 "PASS")

    def test_six_gains_are_the_least_that_pass_at_95_percent(self):
        self.assertEqual(self.decide(*gains(5, ties=5))["action"], "REVIEW")
        self.assertEqual(self.decide(*gains(6, ties=4))["action"], "PASS")

    def test_clear_evidence_still_passes(self):
        document = self.decide(*gains(12, ties=18))
        self.assertEqual(document["action"], "PASS", document["reasons"])
        test = document["comparison"]["paired_statistics"]["exact_test"]
        self.assertEqual((test["gains"], test["losses"], test["rejects"]), (12, 0, True))
        self.assertEqual(test["p_one_sided"], 2.0 ** -12)

    def test_losses_count_against_the_gains(self):
        # 7 gains and 1 loss: p = 9/256 > 0.025, although 7 gains alone would pass.
        document = self.decide(*gains(7, ties=22, losses=1))
        self.assertGreater(document["comparison"]["paired_bootstrap_interval"][0], 0)
        self.assert_review(document, "(7 better, 1 worse)", "p = 0.0351562")
        self.assertEqual(self.decide(*gains(7, ties=23))["action"], "PASS")

    def test_the_exact_test_guards_only_a_claim_of_improvement(self):
        # A gate below 0 ("no worse than -0.5") or an inclusive gate at 0 does not say the
        # candidate is better: three gains and a tie pass it.
        for options in ({"gate": -0.5}, {"gate": 0.0, "lower_bound": "inclusive"}):
            with self.subTest(options=options):
                self.assertEqual(self.decide(*gains(3, ties=1), **options)["action"], "PASS")
        # An inclusive gate above 0 does say it.
        document = self.decide(*gains(3, ties=1), gate=0.1, lower_bound="inclusive")
        self.assert_review(document, "meets 0.1", "McNemar's exact one-sided test")
        self.assertTrue(claims_improvement(Fraction(1, 10), strictly=False))
        self.assertTrue(claims_improvement(0, strictly=True))
        self.assertFalse(claims_improvement(0, strictly=False))
        self.assertFalse(claims_improvement(Fraction(-1, 20), strictly=True))

    def test_not_estimable_holds_any_interval_gate(self):
        # Even "no worse than -0.5", inclusive, is no evidence from one task.
        document = self.decide([0], [2], gate=-0.5, lower_bound="inclusive")
        self.assert_review(document, "meets -0.5", "not estimable")


class FamilyUnitTests(unittest.TestCase):
    def decide(self, baseline, candidate, families, version=3):
        run = run_package(self, *outcome_package(baseline, candidate, families=families,
                                                 unit="family", version=version))
        self.assertIn(run.status, (0, 1), run.stderr)
        return run.document

    def test_two_families_are_too_few(self):
        baseline, candidate = gains(7, ties=3)
        families = ["a"] * 5 + ["b"] * 5  # 4 and 3 gains: every resampled mean is above 0
        document = self.decide(baseline, candidate, families)
        self.assertGreater(document["comparison"]["paired_bootstrap_interval"][0], 0)
        self.assertEqual(document["action"], "REVIEW")
        self.assertIn("2 test families, fewer than %d" % MIN_FAMILIES,
                      document["primary_reason"])
        statistics = document["comparison"]["paired_statistics"]
        self.assertIsNone(statistics["normal_interval"])
        self.assertIsNone(statistics["minimum_detectable_effect"])
        self.assertIsNone(statistics["degrees_of_freedom"])
        v2 = self.decide(baseline, candidate, families, version=2)
        self.assertEqual(v2["action"], "PASS")
        self.assertIsNotNone(v2["comparison"]["paired_statistics"]["normal_interval"])
        self.assertNotIn("degrees_of_freedom", v2["comparison"]["paired_statistics"])

    def test_equal_family_means_are_not_evidence(self):
        # Six families, each one gain and one tie: the tasks differ, the family means do not.
        baseline, candidate = [], []
        for _ in range(6):
            baseline += [0, 2]
            candidate += [2, 2]
        families = [name for name in "abcdef" for _ in range(2)]
        document = self.decide(baseline, candidate, families)
        self.assertEqual(document["comparison"]["paired_statistics"]["exact_test"]["rejects"],
                         True)
        self.assertEqual(document["action"], "REVIEW")
        self.assertIn("every family has the same difference", document["primary_reason"])
        self.assertEqual(self.decide(baseline, candidate, families, version=2)["action"],
                         "PASS")

    def test_family_intervals_use_t_with_families_less_one_degrees_of_freedom(self):
        baseline, candidate = gains(9, ties=7, losses=2)
        families = ["f%d" % (index % 8) for index in range(18)]
        statistics = self.decide(baseline, candidate, families)["comparison"][
            "paired_statistics"]
        self.assertEqual(statistics["degrees_of_freedom"], 7)
        se, mean = statistics["clustered_standard_error"], Fraction(7, 18)
        t = Fraction(two_sided_t(Fraction(95, 100), 7))
        low, high = statistics["normal_interval"]
        self.assertAlmostEqual(low, float(mean - t * Fraction(se)), places=12)
        self.assertAlmostEqual(high, min(1.0, float(mean + t * Fraction(se))), places=12)
        v2 = self.decide(baseline, candidate, families, version=2)["comparison"][
            "paired_statistics"]
        self.assertLess(v2["normal_interval"][1] - v2["normal_interval"][0], high - low)
        self.assertLess(v2["minimum_detectable_effect"], statistics["minimum_detectable_effect"])

    def test_the_exact_test_counts_families(self):
        # Five gaining families of two tasks: 10 gaining tasks, but p = 1/32 on 5 families.
        baseline, candidate = gains(10, ties=2)
        families = [name for name in "abcdef" for _ in range(2)]
        document = self.decide(baseline, candidate, families)
        self.assertIn("on the 5 families whose", document["primary_reason"])


class TrialGateTests(unittest.TestCase):
    def decide(self, baseline, candidate, trials=3, version=4, **options):
        run = run_package(self, *outcome_package(baseline, candidate, trials=trials,
                                                 version=version, **options))
        self.assertIn(run.status, (0, 1), run.stderr)
        return run.document

    def test_a_fall_from_three_of_three_to_two_of_three_is_held(self):
        document = self.decide([3] * 8, [2] * 8, trial_gate=-0.05, gate=0.0,
                               lower_bound="inclusive")
        self.assertEqual(document["comparison"]["paired_bootstrap_interval"], [0.0, 0.0])
        self.assertEqual(document["action"], "REVIEW")
        # Every task a tie: the task-level interval [0, 0] is not estimable, and the
        # trial-level one is below its gate.
        self.assertEqual([f["code"] for f in document["findings"] if f["severity"] == "review"],
                         ["min_paired_delta_ci_low", "min_trial_delta_ci_low"])
        self.assertIn("soft gate min_trial_delta_ci_low failed: the trial-level paired bootstrap "
                      "interval's lower bound -0.333333 is below -0.05", document["reasons"][1])
        v1 = self.decide([3] * 8, [2] * 8, trial_gate=-0.05, gate=0.0, lower_bound="inclusive",
                         version=1)
        self.assertEqual(v1["action"], "PASS")

    def test_the_trial_gate_follows_the_small_sample_rules(self):
        # Three tasks each one trial better: the interval is [1/3, 1/3], and not estimable.
        document = self.decide([1, 1, 1, 3, 3, 3], [2, 2, 2, 3, 3, 3], gate=-1.0,
                               trial_gate=0.0)
        self.assertEqual(document["action"], "REVIEW")
        self.assertIn("min_trial_delta_ci_low", document["primary_reason"])
        self.assertIn("McNemar's exact one-sided test on the 3 tasks whose trial-level "
                      "difference is not 0", document["primary_reason"])
        test = document["comparison"]["trial_level"]["exact_test"]
        self.assertEqual((test["gains"], test["losses"], test["p_one_sided"]), (3, 0, 0.125))
        self.assertEqual(self.decide([0] * 8 + [1] * 4, [2] * 8 + [1] * 4, gate=-1.0,
                                     trial_gate=0.0)["action"], "PASS")

    def test_the_trial_test_weighs_the_differences_not_only_their_signs(self):
        # 12 tasks one trial worse, 12 three trials better, 6 ties: as many better as worse
        # (a sign test's p would be 0.58), but the sum of the differences is clearly above 0.
        baseline = [3] * 12 + [0] * 12 + [3] * 6
        candidate = [2] * 12 + [3] * 12 + [3] * 6
        document = self.decide(baseline, candidate, gate=-1.0, trial_gate=0.0,
                               lower_bound="strict")
        test = document["comparison"]["trial_level"]["exact_test"]
        self.assertEqual((test["gains"], test["losses"], test["method"]),
                         (12, 12, "randomization"))
        self.assertEqual(test["p_one_sided"], float(randomization_p([-1] * 12 + [3] * 12)))
        self.assertLess(test["p_one_sided"], 0.025)
        self.assertEqual(document["action"], "PASS", document["reasons"])
        # Ten of each: p = 14697/524288 = 0.028: held, and the reason says which test.
        document = self.decide(baseline[2:22] + [3] * 10, candidate[2:22] + [3] * 10,
                               gate=-1.0, trial_gate=0.0, lower_bound="strict")
        self.assertEqual(document["action"], "REVIEW")
        self.assertIn("the exact one-sided sign-flip randomization test on the 20 tasks whose "
                      "trial-level difference is not 0 (10 better, 10 worse) gives p = "
                      "0.0280323", document["primary_reason"])

    def test_v4_requires_the_trial_gate_and_v1_to_v3_refuse_it(self):
        spec, cases, results = outcome_package([0, 1], [1, 1], version=4)
        del spec["gates"]["min_trial_delta_ci_low"]
        run = run_package(self, spec, cases, results)
        self.assertEqual([(e["code"], e["path"]) for e in run.document["errors"]],
                         [("schema.missing_key", "$.gates.min_trial_delta_ci_low")])
        for version in (1, 2, 3):
            spec, cases, results = outcome_package([0, 1], [1, 1], version=version)
            spec["gates"]["min_trial_delta_ci_low"] = 0.0
            run = run_package(self, spec, cases, results)
            self.assertEqual([(e["code"], e["path"]) for e in run.document["errors"]],
                             [("schema.unknown_key", "$.gates.min_trial_delta_ci_low")])


class GateRowTests(unittest.TestCase):
    def test_each_version_derives_its_gates_from_the_rows(self):
        keys = {version: [gate.key for gate in gates_of(version)] for version in SPEC_VERSIONS}
        self.assertEqual(keys[SPEC_V1], keys[SPEC_V2])
        self.assertEqual(keys[SPEC_V1], keys[SPEC_V3])
        self.assertEqual(keys[SPEC_V4], keys[SPEC_V1] + ["min_trial_delta_ci_low"])
        for version in SPEC_VERSIONS:
            shape = FILE_KINDS["spec"][version]
            gates = dict((field.key, field.shape) for field in shape.fields)["gates"]
            self.assertIs(gates, gates_object(version))
            self.assertEqual([field.key for field in gates.fields], keys[version])
            self.assertEqual([gate.key for gate in deciding_gates(version)],
                             keys[version][1:])
            # A deciding gate's failure is a finding of its severity (decision.severity_of).
            for gate in deciding_gates(version):
                self.assertIn(gate.severity, (BLOCKING, REVIEWING))
        self.assertEqual([gate.interval for gate in interval_gates(SPEC_V4)], ["task", "trial"])
        self.assertIs(gates_object(SPEC_V1), gates_object(SPEC_V3))
        self.assertEqual(gates_object(SPEC_V4).title, "Gates v4")

    def test_the_reports_show_the_gates_of_the_specs_version(self):
        results = example_path("exercise_results_unstable_task.json")
        v4 = evaluate_arguments(["--spec", example_path("benchmark_spec_v4_trial.json"),
                                 "--results", results])
        v1 = evaluate_arguments(["--results", results])
        self.assertEqual([gate.key for gate in v4.gate_rows][-1], "min_trial_delta_ci_low")
        for evaluation, shown in ((v4, True), (v1, False)):
            summary = markdown.render(evaluation).decode("utf-8")
            junit_xml = junit.render(evaluation).decode("utf-8")
            self.assertEqual("| Trial-level 95% interval low (interval -0.133333 .. 0.733333)"
                             in summary, shown)
            self.assertEqual('name="min_trial_delta_ci_low"' in junit_xml, shown)
            self.assertEqual("Trial-level interval low" in html.render(evaluation).decode(
                "utf-8"), shown)
            self.assertEqual("Trial-level interval low" in terminal.render(evaluation).decode(
                "ascii"), shown)

    def test_the_schema_knows_each_versions_gates(self):
        spec = outcome_package([0, 1], [1, 1], version=4)[0]
        self.assertEqual(check("spec", spec), [])
        del spec["gates"]["min_trial_delta_ci_low"]
        self.assertTrue(check("spec", spec))
        v1 = example_package()[0]
        self.assertEqual(check("spec", v1), [])
        v1["gates"]["min_trial_delta_ci_low"] = 0.0
        self.assertTrue(check("spec", v1))


if __name__ == "__main__":
    unittest.main()
