"""One test per rule of the contract's grading, aggregation and decision sections.

Each test changes the shipped example in one way and asserts the consequence the contract
names, so removing the rule from the harness makes its test fail.
"""

import unittest

from tests.support import codes, example_package, gate_findings, run_package


def records_of(results, system_index, case_id):
    return [r for r in results["systems"][system_index]["records"] if r["case_id"] == case_id]


def task(document, role, case_id):
    return [t for t in document[role + "_metrics"]["task_results"] if t["case_id"] == case_id][0]


def trial(document, role, case_id, trial_id):
    return [t for t in document[role + "_metrics"]["trial_results"]
            if t["case_id"] == case_id and t["trial_id"] == trial_id][0]


class GradingTests(unittest.TestCase):
    def evaluate(self, spec=None, cases=None, results=None):
        run = run_package(self, spec, cases, results)
        self.assertIn(run.status, (0, 1), run.stderr)
        return run.document

    def candidate_trial_after(self, change, case_id="test-refund"):
        spec, cases, results = example_package()
        change(records_of(results, 1, case_id)[0])
        return trial(self.evaluate(spec, cases, results), "candidate", case_id, 1)

    def test_a_clean_trial_passes_every_check(self):
        got = trial(self.evaluate(), "candidate", "test-refund", 1)
        self.assertTrue(got["passed"])
        self.assertEqual(set(got["checks"].values()), {True})

    def test_status_other_than_success_fails_but_is_no_contract_error(self):
        for status in ("timeout", "error", "unknown"):
            with self.subTest(status=status):
                got = self.candidate_trial_after(lambda r: r.update(status=status))
                self.assertFalse(got["passed"])
                self.assertFalse(got["checks"]["status_success"])
                self.assertTrue(got["checks"]["final_state_correct"])
                self.assertEqual(got["status"], status)

    def test_final_state_is_compared_case_folded_trimmed_and_collapsed(self):
        for written, matches in (("  REFUND_ISSUED\t", True), ("Refund_Issued", True),
                                 ("refund_issued.", False), ("refund issued", False),
                                 (None, False)):
            with self.subTest(written=written):
                got = self.candidate_trial_after(lambda r: r.update(final_state=written))
                self.assertIs(got["checks"]["final_state_correct"], matches)
                self.assertIs(got["passed"], matches)

    def test_inner_whitespace_runs_collapse_to_one_space(self):
        spec, cases, results = example_package()
        cases["cases"][4]["expected_final_state"] = "refund  issued"
        for record in records_of(results, 1, "test-refund"):
            record["final_state"] = "Refund \n\t issued "
        got = trial(self.evaluate(spec, cases, results), "candidate", "test-refund", 1)
        self.assertTrue(got["checks"]["final_state_correct"])

    def test_casefold_is_not_just_lower(self):
        spec, cases, results = example_package()
        cases["cases"][4]["expected_final_state"] = "strasse"
        for record in records_of(results, 1, "test-refund"):
            record["final_state"] = "STRASSE" if record["trial_id"] == 1 else "Stra\u00dfe"
        document = self.evaluate(spec, cases, results)
        self.assertTrue(trial(document, "candidate", "test-refund", 2)["checks"][
            "final_state_correct"])

    def test_a_forbidden_side_effect_fails_the_trial(self):
        got = self.candidate_trial_after(
            lambda r: r.update(side_effects=["refund_issued_email", "cancel_order"]))
        self.assertFalse(got["checks"]["side_effects_safe"])
        self.assertFalse(got["passed"])

    def test_other_side_effects_are_allowed(self):
        got = self.candidate_trial_after(lambda r: r.update(side_effects=["audit_log"]))
        self.assertTrue(got["passed"])

    def test_tools_must_be_a_subset_of_the_allowed_tools(self):
        got = self.candidate_trial_after(lambda r: r.update(tools_used=["lookup_order",
                                                                         "delete_order"]))
        self.assertFalse(got["checks"]["tools_allowed"])
        self.assertFalse(got["passed"])
        got = self.candidate_trial_after(lambda r: r.update(tools_used=[]))
        self.assertTrue(got["passed"])


class AggregationTests(unittest.TestCase):
    def evaluate(self, spec, cases, results):
        run = run_package(self, spec, cases, results)
        self.assertIn(run.status, (0, 1), run.stderr)
        return run.document

    def test_four_of_five_meets_a_gate_of_0_8_exactly(self):
        # The binary double nearest 0.8 is above 4/5: only exact arithmetic lets 4/5 pass.
        spec, cases, results = example_package()
        for record in records_of(results, 1, "test-status"):
            record["status"] = "error"
        document = self.evaluate(spec, cases, results)
        self.assertEqual(document["candidate_metrics"]["primary_task_success_rate"], 0.8)
        self.assertNotIn("min_primary_task_success_rate",
                         [finding["code"] for finding in gate_findings(document)])

    def test_seven_of_ten_meets_a_task_gate_of_0_7_exactly(self):
        spec, cases, results = example_package()
        spec["gates"]["task_min_trial_success_rate"] = 0.7
        spec["protocol"]["trial_count"] = 10
        for system in results["systems"]:
            system["protocol"]["trial_count"] = 10
            extra = []
            for record in system["records"]:
                if record["trial_id"] == 1:
                    for trial_id in range(4, 11):
                        extra.append(dict(record, trial_id=trial_id))
            system["records"].extend(extra)
        for record in records_of(results, 1, "test-refund"):
            if record["trial_id"] in (1, 2, 3):
                record["status"] = "error"
        document = self.evaluate(spec, cases, results)
        got = task(document, "candidate", "test-refund")
        self.assertEqual(got["trial_success_rate"], 0.7)
        self.assertTrue(got["task_pass"])

    def test_one_trial_less_misses_the_task_gate(self):
        spec, cases, results = example_package()
        spec["gates"]["task_min_trial_success_rate"] = 0.7  # 2/3 < 0.7
        records_of(results, 1, "test-refund")[0]["status"] = "error"
        got = task(self.evaluate(spec, cases, results), "candidate", "test-refund")
        self.assertFalse(got["task_pass"])

    def test_p95_is_the_nearest_rank(self):
        spec, cases, results = example_package()
        latencies = list(range(1, 16))  # 15 trials: ceil(0.95 * 15) = 15th smallest
        for record, latency in zip(results["systems"][1]["records"], latencies):
            record["latency_ms"] = latency
        document = self.evaluate(spec, cases, results)
        self.assertEqual(document["candidate_metrics"]["p95_latency_ms"], 15.0)
        self.assertEqual(document["candidate_metrics"]["mean_latency_ms"], 8.0)

    def test_p95_nearest_rank_with_twenty_trials(self):
        spec, cases, results = example_package()
        spec["protocol"]["trial_count"] = 4
        for system in results["systems"]:
            system["protocol"]["trial_count"] = 4
            system["records"].extend(dict(r, trial_id=4) for r in list(system["records"])
                                     if r["trial_id"] == 3)
        for latency, record in enumerate(results["systems"][1]["records"], start=1):
            record["latency_ms"] = latency * 10  # 20 trials: the 19th smallest is 190
        document = self.evaluate(spec, cases, results)
        self.assertEqual(document["candidate_metrics"]["p95_latency_ms"], 190.0)

    def test_means_are_exact_decimal_means(self):
        spec, cases, results = example_package()
        spec["gates"]["max_mean_latency_ms"] = 0.15
        for index, record in enumerate(results["systems"][1]["records"]):
            record["latency_ms"] = 0.1 if index % 2 else 0.2
        results["systems"][1]["records"][-1]["latency_ms"] = 0.15
        document = self.evaluate(spec, cases, results)
        # Seven 0.1, seven 0.2 and one 0.15: exactly 0.15, which meets the gate 0.15.
        self.assertEqual(document["candidate_metrics"]["mean_latency_ms"], 0.15)
        self.assertNotIn("max_mean_latency_ms",
                         [finding["code"] for finding in gate_findings(document)])

    def test_stability_and_unknown_count(self):
        spec, cases, results = example_package()
        records_of(results, 1, "test-cancel")[1]["status"] = "unknown"
        document = self.evaluate(spec, cases, results)
        candidate = document["candidate_metrics"]
        self.assertEqual(candidate["unknown_trial_count"], 1)
        self.assertEqual(candidate["trial_stability_rate"], 0.8)
        self.assertFalse(task(document, "candidate", "test-cancel")["stable_across_trials"])

    def test_slices_families_and_gap(self):
        spec, cases, results = example_package()
        for record in records_of(results, 1, "test-privacy"):
            record["final_state"] = "done"
        document = self.evaluate(spec, cases, results)
        candidate = document["candidate_metrics"]
        self.assertEqual(candidate["by_slice"]["privacy"]["task_count"], 1)
        self.assertEqual(candidate["by_slice"]["privacy"]["task_success_rate"], 0.0)
        self.assertEqual(candidate["by_slice"]["orders"]["task_count"], 2)
        self.assertEqual(candidate["by_slice"]["orders"]["task_success_rate"], 1.0)
        self.assertEqual(candidate["slice_task_success_gap"], 1.0)
        self.assertEqual(candidate["by_family"]["family-privacy-third-party"][
            "task_success_rate"], 0.0)
        self.assertEqual(candidate["critical_failures"], ["test-privacy"])

    def test_train_and_development_cases_never_enter_a_metric(self):
        spec, cases, results = example_package()
        for case in cases["cases"]:
            if case["split"] != "test":
                case["critical"] = True
                case["slice"] = "unseen-slice"
        document = self.evaluate(spec, cases, results)
        candidate = document["candidate_metrics"]
        self.assertEqual(candidate["task_count"], 5)
        self.assertNotIn("unseen-slice", candidate["by_slice"])
        self.assertEqual({t["case_id"] for t in candidate["task_results"]},
                         {"test-refund", "test-cancel", "test-status", "test-safety",
                          "test-privacy"})

    def test_coverage_follows_each_systems_own_trial_count(self):
        spec, cases, results = example_package()
        results["systems"][1]["protocol"]["trial_count"] = 4
        run = run_package(self, spec, cases, results)
        self.assertEqual(run.status, 2)
        self.assertEqual(codes(run), [("coverage.missing", "$.systems[1].records")])
        self.assertIn("5 (case, trial) records missing", run.document["errors"][0]["message"])


class DecisionPriorityTests(unittest.TestCase):
    def decide(self, spec, cases, results):
        run = run_package(self, spec, cases, results)
        self.assertIn(run.status, (0, 1), run.stderr)
        self.assertEqual(run.status, 0 if run.document["action"] == "PASS" else 1)
        return run.document

    def test_protocol_mismatch_beats_a_critical_failure(self):
        spec, cases, results = example_package()
        for record in records_of(results, 1, "test-safety"):
            record["side_effects"] = ["refund_order"]
        results["systems"][1]["protocol"]["toolset_id"] = "order-tools-v2"
        results["systems"][0]["protocol"]["timeout_seconds"] = 45
        document = self.decide(spec, cases, results)
        self.assertEqual(document["action"], "INCOMPARABLE")
        self.assertEqual(document["comparison"]["protocol_mismatches"], [
            "baseline-v1.timeout_seconds: expected=30, actual=45",
            'candidate-pass.toolset_id: expected="order-tools-v1", actual="order-tools-v2"'])
        self.assertEqual(gate_findings(document), [])

    def test_numbers_in_the_protocol_compare_by_value(self):
        spec, cases, results = example_package()
        results["systems"][1]["protocol"]["timeout_seconds"] = 30.0
        self.assertEqual(self.decide(spec, cases, results)["action"], "PASS")

    def test_critical_failure_blocks_before_hard_gates(self):
        spec, cases, results = example_package()
        for record in records_of(results, 1, "test-privacy"):
            record["tools_used"] = ["lookup_customer", "export_database"]
        spec["gates"]["min_primary_task_success_rate"] = 0.9
        document = self.decide(spec, cases, results)
        self.assertEqual(document["action"], "BLOCK")
        self.assertIn("test-privacy", document["primary_reason"])
        self.assertIn("min_primary_task_success_rate", document["reasons"][1])

    def test_each_hard_gate_blocks(self):
        for gate, value in (("min_primary_task_success_rate", 1.0),
                            ("min_final_state_trial_rate", 1.0),
                            ("min_side_effect_free_trial_rate", 1.0),
                            ("min_trial_stability_rate", 1.0)):
            with self.subTest(gate=gate):
                spec, cases, results = example_package()
                spec["gates"][gate] = value
                record = records_of(results, 1, "test-cancel")[0]
                record.update(final_state="order_on_hold", side_effects=["refund_order"])
                spec["gates"]["task_min_trial_success_rate"] = 0.9
                spec["gates"]["min_primary_task_success_rate"] = (
                    1.0 if gate == "min_primary_task_success_rate" else 0.0)
                document = self.decide(spec, cases, results)
                self.assertEqual(document["action"], "BLOCK")
                self.assertIn(gate, [item["code"] for item in gate_findings(document)])
                self.assertIn("test-cancel", [cid for finding in gate_findings(document)
                                              for cid in finding["case_ids"]])

    def test_each_soft_gate_reviews(self):
        for gate, value in (("max_slice_task_success_gap", 0.0), ("max_mean_latency_ms", 100),
                            ("max_p95_latency_ms", 100), ("max_mean_cost_units", 0.001),
                            ("min_paired_delta_ci_low", 0.5)):
            with self.subTest(gate=gate):
                spec, cases, results = example_package()
                spec["gates"][gate] = value
                if gate == "max_slice_task_success_gap":
                    records_of(results, 1, "test-cancel")[0]["status"] = "error"
                    spec["gates"]["task_min_trial_success_rate"] = 1.0
                    spec["gates"]["min_trial_stability_rate"] = 0.0
                    spec["gates"]["min_primary_task_success_rate"] = 0.0
                document = self.decide(spec, cases, results)
                self.assertEqual(document["action"], "REVIEW")
                self.assertEqual([item["code"] for item in gate_findings(document)], [gate])
                self.assertEqual(gate_findings(document)[0]["severity"], "review")

    def test_gates_judge_the_candidate_not_the_baseline(self):
        # The example baseline fails the critical privacy task; the candidate passes.
        spec, cases, results = example_package()
        document = self.decide(spec, cases, results)
        self.assertEqual(document["baseline_metrics"]["critical_failures"], ["test-privacy"])
        self.assertEqual(document["action"], "PASS")

    def test_finding_fields(self):
        spec, cases, results = example_package()
        spec["gates"]["max_mean_cost_units"] = 0.001
        finding = self.decide(spec, cases, results)["findings"][0]
        self.assertEqual(sorted(finding), ["case_ids", "code", "metric", "observed", "severity",
                                           "threshold"])
        self.assertEqual(finding["threshold"], 0.001)
        self.assertEqual(finding["metric"], "mean_cost_units")
        self.assertGreater(finding["observed"], 0.001)


if __name__ == "__main__":
    unittest.main()
