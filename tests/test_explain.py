"""The explanation of a decision (proagents_bench/explain/), on logs the harnesses wrote: the
tasks chosen by the stated rule, the trials compared, the two traces aligned, the first step
where the candidate left the baseline's path, the step that broke the rule, the final state
against the expected one, what is flaky said first; and what cannot be read said, never
changing the decision."""

import json
import os
import unittest

from proagents_bench import pipeline
from proagents_bench.explain.choice import FLAKY, first_failing
from proagents_bench.explain.comparing import aligned, failed_checks, final_state_rows
from proagents_bench.contract.explanation import EXPLANATION
from proagents_bench.explain import explanation
from proagents_bench.importers.source import LogSource
from tests.importers.support import (EXAMPLE_CASES, EXAMPLE_SPEC, fixture, load_json, traced_import,
                                    traces_of)
from tests.support import TempDir, example_path

EXPLAIN_LOGS = (fixture("explain_baseline.eval"), fixture("explain_candidate.eval"))
EXPLAIN_IDS = ("baseline-v1", "candidate-regression")


def explain(checked, evaluation, logs, asked=()):
    """The explanation, held to its contract (the shapes of contract/explanation.py)."""
    document = explanation.explain(checked, evaluation, logs, asked)
    errors = list(EXPLANATION.iter_errors(json.loads(json.dumps(document))))
    if errors:
        raise AssertionError("the explanation breaks its contract: %s" % errors[:3])
    return document


def decided(test, spec, cases, results):
    """The gate's check and decision on three files (written where they are values)."""
    folder = TempDir(test)
    paths = [value if isinstance(value, str) else folder.write_json(name, value)
             for name, value in (("spec.json", spec), ("cases.json", cases),
                                 ("results.json", results))]
    checked = pipeline.check([pipeline.InputFile(kind, path) for kind, path in
                              zip(("spec", "cases", "results"), paths)])
    return checked, checked.decide()


def explained(test, baseline, candidate, mapping, spec, cases=None, ids=(None, None),
              logs=True, asked=()):
    """The explanation of the decision on an import (with trace references) of two logs."""
    built = []
    results, given = traced_import(baseline, candidate, mapping, cases, ids, built)
    checked, evaluation = decided(test, spec, cases or built[0], results)
    return explain(checked, evaluation, given if logs else {"baseline": None,
                                                            "candidate": None}, asked)


def task(document, case_id):
    return next(item for item in document["tasks"] if item["case_id"] == case_id)


class RegressionExampleTests(unittest.TestCase):
    """The shipped regression example as the Inspect AI runs that made it."""

    def setUp(self):
        self.document = explained(self, *EXPLAIN_LOGS, fixture("explain_mapping.json"),
                                  EXAMPLE_SPEC, EXAMPLE_CASES, EXPLAIN_IDS)

    def test_only_the_task_that_regressed_is_explained(self):
        self.assertEqual(self.document["decision"]["action"], "BLOCK")
        self.assertEqual([item["case_id"] for item in self.document["tasks"]], ["test-safety"])
        safety = task(self.document, "test-safety")
        self.assertEqual(safety["verdict"], "regression")
        self.assertEqual(safety["reasons"], [0, 1])  # the critical task, the side-effect gate
        self.assertEqual(safety["why"], [
            "the candidate fails the task (0 of 3 trials pass) and the baseline passes it "
            "(3 of 3)",
            "the hard gate critical_task_min_trial_success_rate names it",
            "the hard gate min_side_effect_free_trial_rate names it",
            "3 of 3 candidate trials performed a forbidden side effect",
            "3 of 3 candidate trials called a tool outside the allowed set"])
        self.assertEqual(self.document["problems"], [])

    def test_the_first_divergence_is_the_forbidden_call_after_the_same_three_calls(self):
        safety = task(self.document, "test-safety")
        self.assertEqual(safety["compared"], {"baseline": 1, "candidate": 1})
        first = safety["first_divergence"]
        self.assertEqual((first["op"], first["same_before"], first["baseline"]),
                         ("candidate_only", 3, None))
        self.assertEqual((first["candidate"]["name"], first["candidate"]["position"]),
                         ("refund_order", "messages[7].tool_calls[0]"))
        self.assertEqual([row["op"] for row in safety["alignment"]],
                         ["same", "same", "same", "candidate_only"])

    def test_the_step_that_broke_the_rule_and_the_final_state(self):
        safety = task(self.document, "test-safety")
        broken = {item["rule"]: item["step"]["position"] for item in safety["rules_broken"]}
        self.assertEqual(broken, {"forbidden side effect refund_order":
                                  "messages[7].tool_calls[0]",
                                  "tool refund_order outside the allowed set":
                                  "messages[7].tool_calls[0]"})
        self.assertEqual(safety["final_state"], [{"key": None, "expected": "refund_denied",
                                                  "actual": "refund_issued", "equal": False}])
        self.assertEqual([check["check"] for check in safety["failed_checks"]],
                         ["final_state_correct", "side_effects_safe", "tools_allowed"])
        self.assertIn("the candidate left the baseline's path after 3 same calls",
                      safety["summary"])
        self.assertIn("forbidden side effect refund_order at messages[7].tool_calls[0]",
                      safety["summary"])

    def test_another_path_to_the_same_final_state_is_nothing_to_explain(self):
        # test-refund: the candidate skips the policy check and replies, and still passes
        self.assertNotIn("test-refund", [item["case_id"] for item in self.document["tasks"]])
        results, logs = traced_import(*EXPLAIN_LOGS, fixture("explain_mapping.json"),
                                      EXAMPLE_CASES, EXPLAIN_IDS)
        rows, first = aligned(traces_of(results, logs, "baseline")[("test-refund", 1)],
                              traces_of(results, logs, "candidate")[("test-refund", 1)])
        self.assertEqual([(row["op"], (row["baseline"] or row["candidate"])["name"])
                          for row in rows],
                         [("same", "lookup_order"), ("baseline_only", "check_refund_policy"),
                          ("same", "issue_refund"), ("candidate_only", "reply_customer")])
        self.assertEqual(first["same_before"], 1)
        case = next(item for item in load_json(EXAMPLE_CASES)["cases"]
                    if item["id"] == "test-refund")
        record = next(item for item in results["systems"][1]["records"]
                      if item["case_id"] == "test-refund")
        self.assertEqual(failed_checks(case, record), [])

    def test_a_task_asked_for_shows_its_other_path_and_no_failed_check(self):
        document = explained(self, *EXPLAIN_LOGS, fixture("explain_mapping.json"),
                             EXAMPLE_SPEC, EXAMPLE_CASES, EXPLAIN_IDS, asked=["test-refund"])
        refund = task(document, "test-refund")
        self.assertEqual((refund["why"], refund["verdict"], refund["failed_checks"],
                          refund["rules_broken"]), (["asked for"], "passes_in_both", [], []))
        self.assertEqual(refund["first_divergence"]["baseline"]["name"], "check_refund_policy")
        self.assertEqual([item["case_id"] for item in document["tasks"]],
                         ["test-refund", "test-safety"])

    def test_the_same_files_explain_the_same_way(self):
        again = explained(self, *EXPLAIN_LOGS, fixture("explain_mapping.json"), EXAMPLE_SPEC,
                          EXAMPLE_CASES, EXPLAIN_IDS)
        self.assertEqual(json.dumps(again["tasks"], sort_keys=True).replace(
            self._testMethodName, ""), json.dumps(self.document["tasks"], sort_keys=True))


class OtherHarnessTests(unittest.TestCase):
    def test_tau2_the_write_tool_after_the_same_two_calls(self):
        document = explained(self, fixture("tau2_baseline.json"), fixture("tau2_candidate_dir"),
                             fixture("tau2_mapping.json"), fixture("tau2_spec.json"))
        critical = task(document, "3")
        first = critical["first_divergence"]
        self.assertEqual((first["same_before"], first["candidate"]["name"]),
                         (2, "cancel_pending_order"))
        self.assertEqual(critical["final_state"][0]["actual"], "db_mismatch")

    def test_harbor_the_forbidden_tool_in_place_of_the_baseline_s(self):
        document = explained(self, fixture("harbor_baseline_job"),
                             fixture("harbor_candidate_job"), fixture("harbor_mapping.json"),
                             fixture("harbor_spec.json"), fixture("harbor_cases.json"))
        # a task only a failed gate names (its trials disagree: flaky, said first)
        build = task(document, "build-cache")
        self.assertEqual((build["verdict"], build["why"]), (
            "flaky", ["the hard gate min_trial_stability_rate names it"]))
        clean = task(document, "clean-workspace")
        first = clean["first_divergence"]
        self.assertEqual((first["op"], first["baseline"]["name"], first["candidate"]["name"]),
                         ("changed", "ls", "rm_rf"))
        self.assertEqual(clean["rules_broken"][0]["step"]["position"], "steps[2].tool_calls[0]")

    def test_promptfoo_a_task_whose_trials_disagree_is_flaky_first(self):
        document = explained(self, fixture("promptfoo_baseline.json"),
                             fixture("promptfoo_candidate.json"), None,
                             fixture("promptfoo_spec.json"))
        refund = task(document, "test-refund")
        self.assertEqual(refund["verdict"], FLAKY)
        self.assertTrue(refund["summary"].startswith(
            "test-refund (critical): flaky, its trials disagree: not called a regression"))
        self.assertEqual(refund["compared"], {"baseline": 1, "candidate": 2})
        self.assertEqual(refund["harness_checks"][0]["position"],
                         "gradingResult.componentResults[0]")

    def test_swebench_the_tests_the_patch_failed(self):
        folder = fixture("swebench_explain/")
        document = explained(
            self, [folder + "acme__agent-v1.baseline-run1.json",
                   folder + "acme__agent-v1.baseline-run2.json"],
            [folder + "acme__agent-v2.candidate-run1.json",
             folder + "acme__agent-v2.candidate-run2.json"], fixture("swebench_mapping.json"),
            _swebench_spec(self), ids=("agent-v1", "agent-v2"))
        widget = task(document, "acme__widgets-201")
        self.assertEqual(widget["verdict"], "regression")
        self.assertEqual([check["name"] for check in widget["harness_checks"]],
                         ["tests/test_widgets.py::test_resize_keeps_ratio"])
        self.assertEqual(widget["final_state"][0]["actual"], "unresolved")


def _swebench_spec(test):
    spec = load_json(fixture("swebench_spec.json"))
    spec["baseline_system_id"] = "agent-v1"
    spec["protocol"]["trial_count"] = 2
    return TempDir(test).write_json("spec.json", spec)


class WithoutTracesTests(unittest.TestCase):
    def test_a_hand_written_package_is_explained_from_its_records(self):
        checked, evaluation = decided(self, EXAMPLE_SPEC, EXAMPLE_CASES,
                                      example_path("benchmark_results_regression.json"))
        document = explain(checked, evaluation, {"baseline": None, "candidate": None})
        safety = task(document, "test-safety")
        self.assertEqual(safety["verdict"], "regression")
        self.assertEqual(safety["rules_broken"], [
            {"rule": "forbidden side effect refund_order", "step": None}])
        self.assertEqual({problem["code"] for problem in document["problems"]},
                         {"trace.not_recorded"})
        self.assertIn("no trace of the baseline or the candidate", safety["summary"])

    def test_logs_not_given_are_said_once_per_log_and_change_nothing(self):
        document = explained(self, *EXPLAIN_LOGS, fixture("explain_mapping.json"),
                             EXAMPLE_SPEC, EXAMPLE_CASES, EXPLAIN_IDS, logs=False)
        self.assertEqual(document["decision"]["action"], "BLOCK")
        self.assertEqual([(problem["code"], problem["where"])
                          for problem in document["problems"]],
                         [("trace.log_missing", "explain_baseline.eval"),
                          ("trace.log_missing", "explain_candidate.eval")])
        safety = task(document, "test-safety")
        self.assertEqual(safety["failed_checks"][1]["check"], "side_effects_safe")
        self.assertIsNone(safety["first_divergence"])

    def test_an_incomparable_run_explains_no_task(self):
        checked, evaluation = decided(self, example_path("benchmark_spec_protocol_mismatch.json"),
                                      EXAMPLE_CASES,
                                      example_path("benchmark_results_regression.json"))
        document = explain(checked, evaluation, {})
        self.assertEqual((document["decision"]["action"], document["tasks"]),
                         ("INCOMPARABLE", []))


class RuleTests(unittest.TestCase):
    def test_the_candidate_trial_is_the_first_failing_the_gravest_check(self):
        status_only, wrong_state, side_effect = 0b1110, 0b1101, 0b1011
        self.assertEqual(first_failing(bytearray([wrong_state, side_effect, side_effect])), 2)
        self.assertEqual(first_failing(bytearray([status_only, wrong_state])), 2)
        self.assertEqual(first_failing(bytearray([status_only, 0b1111])), 1)

    def test_the_final_state_key_by_key(self):
        rows = final_state_rows('{"order": "2004", "refund": false}',
                                '{"order": "2004", "refund": true, "note": "done"}')
        self.assertEqual(rows, [
            {"key": "note", "expected": None, "actual": "done", "equal": False},
            {"key": "order", "expected": "2004", "actual": "2004", "equal": True},
            {"key": "refund", "expected": "false", "actual": "true", "equal": False}])
        self.assertEqual(final_state_rows("Refund_Denied", "  refund_denied ")[0]["equal"], True)
        self.assertEqual(final_state_rows("x", None)[0]["equal"], False)


if __name__ == "__main__":
    unittest.main()
