"""The comparison beyond the contract's bootstrap: spec v2's family unit, pass^k in the
document, the paired statistics and the minimum-detectable-effect note (never a gate)."""

import unittest
from fractions import Fraction

from proagents_bench.stats.bootstrap import family_clusters, paired_interval, task_clusters
from devtools.synthetic import make_package
from tests import oracles
from tests.support import example_package, example_path, gate_findings, run_cli, run_package


def as_v2(spec, unit):
    spec["schema_version"] = "agent-benchmark-spec-v2"
    spec["bootstrap"]["unit"] = unit
    return spec


class SpecV2Tests(unittest.TestCase):
    def run_package(self, spec, cases, results):
        run = run_package(self, spec, cases, results)
        self.assertIn(run.status, (0, 1), run.stderr)
        return run.document

    def test_family_unit_equals_task_unit_when_every_family_has_one_task(self):
        v1 = self.run_package(*example_package())
        spec, cases, results = example_package()
        task = self.run_package(as_v2(spec, "task"), cases, results)
        spec, cases, results = example_package()
        family = self.run_package(as_v2(spec, "family"), cases, results)
        self.assertEqual(family["comparison"]["bootstrap_unit"], "family")
        self.assertEqual(v1["comparison"]["bootstrap_unit"], "task")
        for document in (task, family):
            self.assertEqual(document["comparison"]["paired_bootstrap_interval"],
                             v1["comparison"]["paired_bootstrap_interval"])
            self.assertEqual(document["action"], v1["action"])

    def test_family_unit_differs_when_families_hold_several_tasks(self):
        spec, cases, results = make_package(60, trial_count=3, seed=11, candidate_skill=0.75)
        task = self.run_package(as_v2(spec, "task"), cases, results)
        spec["bootstrap"]["unit"] = "family"
        family = self.run_package(spec, cases, results)
        self.assertNotEqual(family["comparison"]["paired_bootstrap_interval"],
                            task["comparison"]["paired_bootstrap_interval"])

    def test_v2_requires_the_unit_and_v1_refuses_it(self):
        spec, cases, results = example_package()
        spec["schema_version"] = "agent-benchmark-spec-v2"
        run = run_package(self, spec, cases, results)
        self.assertEqual([(e["code"], e["path"]) for e in run.document["errors"]],
                         [("schema.missing_key", "$.bootstrap.unit")])
        spec, cases, results = example_package()
        spec["bootstrap"]["unit"] = "task"
        run = run_package(self, spec, cases, results)
        self.assertEqual([(e["code"], e["path"]) for e in run.document["errors"]],
                         [("schema.unknown_key", "$.bootstrap.unit")])
        spec, cases, results = example_package()
        as_v2(spec, "cluster")
        run = run_package(self, spec, cases, results)
        self.assertEqual([(e["code"], e["path"]) for e in run.document["errors"]],
                         [("schema.enum", "$.bootstrap.unit")])


class ClusterTests(unittest.TestCase):
    def test_family_clusters_sum_differences_in_first_appearance_order(self):
        self.assertEqual(family_clusters([1, 0, -1, 1, 1], ["b", "a", "b", "c", "a"]),
                         [(0, 2), (1, 2), (1, 1)])

    def test_singleton_families_make_the_same_draws_as_tasks(self):
        differences = [1, 0, -1, 1, 0, 0, 1]
        families = ["f%d" % index for index in range(len(differences))]
        by_task = paired_interval(task_clusters(differences), 500, 3, Fraction(9, 10))
        by_family = paired_interval(family_clusters(differences, families), 500, 3,
                                    Fraction(9, 10))
        self.assertEqual(oracles.means(by_task), oracles.means(by_family))

    def test_a_family_sample_mean_is_drawn_sums_over_drawn_tasks(self):
        # Two families: (2 tasks, sum 2) and (1 task, sum -1). Any resample's mean is one of
        # (2a - b) / (2a + b) for a + b = 2 draws: 1, 1/3 or -1.
        interval = paired_interval([(2, 2), (-1, 1)], 200, 5, Fraction(95, 100))
        self.assertLessEqual(set(oracles.means(interval)),
                             {Fraction(1), Fraction(1, 3), Fraction(-1)})
        self.assertEqual(sum(count for _, count in interval.distribution()), 200)


class DocumentStatisticsTests(unittest.TestCase):
    def test_pass_k_per_system_and_slice(self):
        spec, cases, results = example_package()
        records = [r for r in results["systems"][1]["records"] if r["case_id"] == "test-status"]
        records[0]["status"] = "error"  # test-status: 2 of 3 trials pass
        document = run_package(self, spec, cases, results).document
        pass_k = document["candidate_metrics"]["pass_k"]
        # pass^k: mean over 5 tasks of C(c,k)/C(3,k); four tasks with c=3, one with c=2.
        self.assertEqual(pass_k["pass_hat_k"], {"1": float(Fraction(14, 15)),
                                                "2": float(Fraction(4 + Fraction(1, 3), 5)),
                                                "3": 0.8})
        self.assertEqual(pass_k["pass_at_k"], {"1": float(Fraction(14, 15)), "2": 1.0,
                                               "3": 1.0})
        orders = document["candidate_metrics"]["by_slice"]["orders"]["pass_k"]
        self.assertEqual(orders["pass_hat_k"]["3"], 0.5)

    def test_paired_statistics_of_the_example(self):
        document = run_cli([]).document
        statistics = document["comparison"]["paired_statistics"]
        self.assertEqual((statistics["candidate_only"], statistics["baseline_only"],
                          statistics["both"], statistics["neither"]), (2, 0, 3, 0))
        self.assertEqual(statistics["mcnemar_exact_p"], 0.5)  # 2 * (1/2)^2
        self.assertEqual(statistics["mean_difference"], 0.4)
        # d = [0, 1, 0, 0, 1]: sum of squared deviations 6/5, over n(n-1) = 20.
        self.assertAlmostEqual(statistics["standard_error"] ** 2, 0.06, places=15)

    def test_below_mde_is_an_informational_finding_never_a_reason(self):
        document = run_cli([]).document
        self.assertTrue(document["comparison"]["paired_statistics"]["observed_below_mde"])
        notes = [f for f in document["findings"] if f["severity"] == "info"]
        self.assertIn("below_minimum_detectable_effect", [f["code"] for f in notes])
        self.assertEqual(gate_findings(document), [])
        self.assertEqual(document["action"], "PASS")
        self.assertFalse(any("detectable" in reason for reason in document["reasons"]))

    def test_no_note_when_the_difference_is_detectable(self):
        spec, cases, results = make_package(400, trial_count=2, seed=4, baseline_skill=0.3,
                                            candidate_skill=0.95)
        document = run_package(self, spec, cases, results).document
        self.assertFalse(document["comparison"]["paired_statistics"]["observed_below_mde"])
        self.assertNotIn("below_minimum_detectable_effect",
                         [f["code"] for f in document["findings"]])


if __name__ == "__main__":
    unittest.main()


class HonestEdgeTests(unittest.TestCase):
    """Statistics that say when they cannot tell (the issue "Honest at the edges")."""

    def one_task_package(self, gain):
        spec, cases, results = example_package()
        spec["gates"]["min_paired_delta_ci_low"] = 1.0
        spec["gates"]["min_primary_task_success_rate"] = 0.0
        keep = {"test-refund"}
        cases["cases"] = [case for case in cases["cases"]
                          if case["split"] != "test" or case["id"] in keep]
        for system in results["systems"]:
            system["records"] = [record for record in system["records"]
                                 if record["case_id"] in keep]
            if gain and system["role"] == "baseline":
                for record in system["records"]:
                    record["status"] = "error"
        return spec, cases, results

    def test_one_task_is_not_estimable_and_says_so(self):
        document = run_package(self, *self.one_task_package(gain=True)).document
        statistics = document["comparison"]["paired_statistics"]
        for key in ("standard_error", "normal_interval", "minimum_detectable_effect"):
            self.assertIsNone(statistics[key], key)
        self.assertIn("one test task", statistics["not_estimable"])
        codes = [finding["code"] for finding in document["findings"]]
        self.assertIn("not_estimable", codes)
        self.assertEqual(document["comparison"]["paired_bootstrap_interval"], [1.0, 1.0])
        # v1's inclusive rule still passes a zero-width interval at the gate, with the note.
        self.assertEqual(document["action"], "PASS")

    def test_the_strict_rule_refuses_a_lower_bound_on_the_gate(self):
        spec, cases, results = self.one_task_package(gain=True)
        spec["schema_version"] = "agent-benchmark-spec-v3"
        spec["bootstrap"].update(unit="task", lower_bound="strict")
        document = run_package(self, spec, cases, results).document
        self.assertEqual(document["action"], "REVIEW")
        self.assertIn("is not above 1", document["primary_reason"])

    def test_the_shipped_strict_spec_reviews_the_pass_example(self):
        run = run_cli(["--spec", example_path("benchmark_spec_v3_strict.json")])
        self.assertEqual((run.status, run.document["action"]), (1, "REVIEW"))
        inclusive = run_cli([]).document
        self.assertEqual(inclusive["comparison"]["paired_bootstrap_interval"][0], 0.0)

    def test_a_fall_from_three_of_three_to_two_of_three_shows_at_the_trial_level(self):
        spec, cases, results = example_package()
        candidate = results["systems"][1]
        for system in results["systems"]:
            for record in system["records"]:
                record.update(status="success", side_effects=[], tools_used=[])
        for record in candidate["records"]:
            if record["trial_id"] == 3:
                record["status"] = "timeout"
        for case in cases["cases"]:
            for record in [r for s in results["systems"] for r in s["records"]
                           if r["case_id"] == case["id"]]:
                record["final_state"] = case["expected_final_state"]
        spec["gates"]["min_trial_stability_rate"] = 0.0
        document = run_package(self, spec, cases, results).document
        comparison = document["comparison"]
        self.assertEqual(comparison["paired_task_success_delta"], 0.0)
        self.assertEqual(comparison["paired_bootstrap_interval"], [0.0, 0.0])
        trial_level = comparison["trial_level"]
        self.assertAlmostEqual(trial_level["mean_difference"], -1 / 3)
        self.assertAlmostEqual(trial_level["bootstrap_interval"][1], -1 / 3)
        self.assertEqual(trial_level["pass_hat_k_difference"]["3"], -1.0)
        self.assertEqual(len(trial_level["flaky_tasks"]), 5)
        self.assertIn("flaky_tasks", [finding["code"] for finding in document["findings"]])

    def test_too_few_samples_for_the_confidence_is_a_note(self):
        spec = example_package()[0]
        spec["bootstrap"].update(samples=100, confidence=0.999)
        document = run_package(self, spec).document
        (note,) = [finding for finding in document["findings"]
                   if finding["code"] == "bootstrap_samples_too_few"]
        self.assertEqual((note["observed"], note["threshold"]), (100, 20000))
        enough = run_package(self, example_package()[0]).document
        self.assertNotIn("bootstrap_samples_too_few",
                         [finding["code"] for finding in enough["findings"]])

    def test_limitations_fit_the_package(self):
        small = run_cli([]).document["limitations"]
        self.assertTrue(any("5 test tasks are a small sample" in text for text in small))
        incomparable = run_cli(["--spec", example_path(
            "benchmark_spec_protocol_mismatch.json")]).document["limitations"]
        self.assertFalse(any("interval" in text for text in incomparable))
        spec, cases, results = make_package(40, trial_count=2, seed=5)
        large = run_package(self, spec, cases, results).document["limitations"]
        self.assertFalse(any("small sample" in text for text in large))
