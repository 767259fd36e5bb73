"""The gate on whose a failure is: a spec's validity bounds make a run that the infrastructure
lost INCOMPARABLE before any metric; within them, or without them, the shares are reported
(a baseline's lost trials REVIEWed when nothing bounds them); a do-nothing floor is reported
beside each system's score; the outcome checks a PASS depends on are notes. The example
package as spec v6 and results v6 (tests/validity_support.py), decided by the gate's own
pipeline, every file checked.""" 

import json
import os
import unittest

from proagents_bench import pipeline
from proagents_bench.contract import output as output_contract
from proagents_bench.contract.vocabulary import (INCOMPARABLE, INFORMATIONAL,
                                                 INFRASTRUCTURE_NOT_MEASURED, PASS, REVIEW,
                                                 REVIEWING, SCORE_ABOVE_FLOOR,
                                                 TRIALS_LOST_TO_INFRASTRUCTURE)
from proagents_bench.reports import html, junit, markdown, terminal
from tests.test_schema import check, undeclared_keys
from tests.validity_support import bounds, results_v6, spec_v6

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
EXAMPLES = os.path.join(ROOT, "examples")


def read(name):
    with open(os.path.join(EXAMPLES, name), "rb") as handle:
        return json.loads(handle.read().decode("utf-8"))


def decide(validity=None, baseline_lost=(), candidate_lost=(), test_ids=None,
           change_cases=None, change_records=None, origins=True, change_results=None):
    """The example PASS package decided by the gate's pipeline, every file checked: the spec
    v6 with ``validity`` (None: the example's spec v1), the results v6 whose (case, trial)
    pairs of each system the infrastructure lost are ``baseline_lost`` and ``candidate_lost``
    (without ``origins``: the example's results v1); ``change_cases(cases)`` and
    ``change_records(record)`` change the files first, ``change_results(results)`` last."""
    spec = read("benchmark_spec.json")
    if validity is not None:
        spec = spec_v6(spec, validity)
    cases = read("benchmark_cases.json")
    if change_cases is not None:
        change_cases({case["id"]: case for case in cases["cases"]})
    results = read("benchmark_results_pass.json")
    for system in results["systems"]:
        for record in system["records"]:
            if change_records is not None:
                change_records(record)
    if origins:
        results = results_v6(results, (baseline_lost, candidate_lost))
    if change_results is not None:
        change_results(results)
    inputs = [pipeline.InputFile(kind, shown=kind + ".json",
                                 data=json.dumps(value).encode("ascii"))
              for kind, value in (("spec", spec), ("cases", cases), ("results", results))]
    return pipeline.check(inputs).decide(test_ids)


TASKS = ["test-refund", "test-cancel", "test-address", "test-privacy", "test-escalate"]


def pairs(count, tasks=None):
    """The first ``count`` (case, trial) pairs, task by task, three trials each."""
    found = [(task, trial) for task in (tasks or TASKS_IN_ORDER) for trial in (1, 2, 3)]
    return set(found[:count])


def _tasks_in_order():
    cases = read("benchmark_cases.json")["cases"]
    return [case["id"] for case in cases if case["split"] == "test"]


TASKS_IN_ORDER = _tasks_in_order()


class NotEvidenceTests(unittest.TestCase):
    def test_a_candidate_whose_infrastructure_failed_beyond_the_bound_is_incomparable(self):
        evaluation = decide(bounds(), candidate_lost=pairs(9))
        document = evaluation.document
        self.assertEqual(evaluation.action, INCOMPARABLE)
        self.assertFalse(document["comparable"])
        self.assertIsNone(document["candidate_metrics"])
        self.assertIsNone(document["baseline_metrics"])
        self.assertEqual(document["comparison"]["protocol_mismatches"], [])
        self.assertEqual(document["comparison"]["not_evidence"], document["reasons"])
        self.assertEqual(document["primary_reason"], (
            "the run is not evidence: the infrastructure failed 9 of 15 trials (0.6) of "
            "candidate candidate-pass (tasks %s), above max_infrastructure_trial_rate 0.2"
            % ", ".join(TASKS_IN_ORDER[:3])))
        self.assertIn("a gap of 0.6 above max_infrastructure_rate_gap 0.1",
                      document["reasons"][1])
        validity = document["validity"]
        self.assertFalse(validity["evidence"])
        self.assertEqual(validity["infrastructure"]["candidate"]["infrastructure_failures"], 9)
        self.assertEqual(validity["infrastructure"]["candidate"]["tasks"], TASKS_IN_ORDER[:3])
        self.assertIn("not evidence of either system", document["limitations"][1])
        # the reasons name the shares; nothing else is found on a run that is not evidence
        self.assertEqual(evaluation.decision.findings, [])

    def test_every_report_says_the_run_is_not_evidence(self):
        evaluation = decide(bounds(), candidate_lost=pairs(9))
        for module in (html, markdown, junit):
            with self.subTest(report=module.__name__):
                shown = module.render(evaluation).decode("utf-8")
                self.assertIn("not evidence", shown)
                self.assertNotIn("did not both run under the spec", shown)
        self.assertIn('<testcase classname="comparability" name="validity"',
                      junit.render(evaluation).decode("utf-8"))
        shown = terminal.render(evaluation, width=200).decode("ascii")  # its line unwrapped
        self.assertIn("INCOMPARABLE  the infrastructure lost more trials than the spec's "
                      "validity bounds accept: the run is not evidence of either system", shown)

    def test_a_baseline_whose_sandbox_broke_cannot_make_a_pass(self):
        # the imbalance alone: each share within 0.2, the gap (3/15 = 0.2) above 0.1
        evaluation = decide(bounds(), baseline_lost=pairs(3))
        self.assertEqual(evaluation.action, INCOMPARABLE)
        self.assertEqual(len(evaluation.decision.reasons), 1)
        self.assertIn("3 of 15 trials (0.2) of baseline baseline-v1", evaluation.decision.reasons[0])
        self.assertIn("a gap of 0.2 above max_infrastructure_rate_gap 0.1",
                      evaluation.decision.reasons[0])

    def test_the_bounds_are_inclusive(self):
        # 3 of 15 each: both shares 0.2, the gap 0: at the bounds, evidence
        evaluation = decide(bounds(), baseline_lost=pairs(3), candidate_lost=pairs(3))
        self.assertNotEqual(evaluation.action, INCOMPARABLE)
        self.assertTrue(evaluation.document["validity"]["evidence"])

    def test_a_protocol_mismatch_comes_first(self):
        def mismatch(results):
            results["systems"][1]["protocol"]["max_steps"] = 99
        evaluation = decide(bounds(), candidate_lost=pairs(9), change_results=mismatch)
        self.assertEqual(evaluation.action, INCOMPARABLE)
        self.assertEqual(evaluation.decision.reasons,
                         ["protocol mismatch: candidate-pass.max_steps: expected=8, actual=99"])
        self.assertNotIn("validity", evaluation.document)

    def test_a_part_is_judged_on_its_own_records(self):
        lost = pairs(3)  # every trial of the first task
        whole = decide(bounds(rate="0.25", gap="1"), candidate_lost=lost)
        self.assertNotEqual(whole.action, INCOMPARABLE)  # 3 of 15
        part = decide(bounds(rate="0.25", gap="1"), candidate_lost=lost,
                      test_ids={TASKS_IN_ORDER[0], TASKS_IN_ORDER[1]})
        self.assertEqual(part.action, INCOMPARABLE)  # 3 of 6
        self.assertIn("3 of 6 trials (0.5)", part.decision.reasons[0])


class ReportedTests(unittest.TestCase):
    def test_without_bounds_a_candidates_lost_trials_are_a_note(self):
        plain = decide(candidate_lost=())
        self.assertEqual(plain.action, PASS)
        evaluation = decide(candidate_lost={(TASKS_IN_ORDER[0], 1)})
        self.assertEqual(evaluation.action, PASS)  # 2 of 3 still passes the task gate 0.6
        finding = [f for f in evaluation.decision.findings
                   if f.code == TRIALS_LOST_TO_INFRASTRUCTURE]
        self.assertEqual(len(finding), 1)
        self.assertEqual((finding[0].severity, finding[0].case_ids),
                         (INFORMATIONAL, [TASKS_IN_ORDER[0]]))
        self.assertIn("1 of 15 trials (0.066667) of candidate candidate-pass",
                      finding[0].reason)
        self.assertIsNone(evaluation.document["validity"]["bounds"])

    def test_without_bounds_a_baselines_lost_trials_are_reviewed(self):
        evaluation = decide(baseline_lost={(TASKS_IN_ORDER[0], 1)})
        self.assertEqual(evaluation.action, REVIEW)
        finding = [f for f in evaluation.decision.findings
                   if f.code == TRIALS_LOST_TO_INFRASTRUCTURE][0]
        self.assertEqual(finding.severity, REVIEWING)
        self.assertIn("favour the candidate", evaluation.decision.reasons[0])

    def test_bounds_over_results_without_origins_are_not_judged(self):
        evaluation = decide(bounds(), origins=False)
        self.assertEqual(evaluation.action, REVIEW)
        found = notes(evaluation, INFRASTRUCTURE_NOT_MEASURED)
        self.assertEqual([f.severity for f in found], [REVIEWING])
        self.assertIn("agent-benchmark-results-v1 records no failure origin", found[0].reason)
        self.assertIsNone(evaluation.document["validity"]["infrastructure"])

    def test_within_bounds_the_shares_are_notes(self):
        evaluation = decide(bounds(rate="0.2", gap="0.1"),
                            baseline_lost={(TASKS_IN_ORDER[0], 1)})
        self.assertEqual(evaluation.action, PASS)
        self.assertEqual([f.severity for f in evaluation.decision.findings
                          if f.code == TRIALS_LOST_TO_INFRASTRUCTURE], [INFORMATIONAL])

    def test_no_origin_no_finding(self):
        evaluation = decide(bounds())
        self.assertEqual(evaluation.action, PASS)
        self.assertEqual(evaluation.document["validity"]["infrastructure"]["baseline"][
            "infrastructure_failures"], 0)
        self.assertFalse([f for f in evaluation.decision.findings
                          if f.code == TRIALS_LOST_TO_INFRASTRUCTURE])


class FloorTests(unittest.TestCase):
    def test_each_systems_score_above_the_floor_beside_the_raw_one(self):
        evaluation = decide(bounds(floor=0.4))
        document = evaluation.document
        self.assertEqual((document["candidate_metrics"]["primary_task_success_rate"],
                          document["baseline_metrics"]["primary_task_success_rate"]),
                         (1.0, 0.6))
        # exact differences, then the nearest doubles (0.6 - 0.4 in doubles is not 0.2)
        self.assertEqual(document["validity"]["above_floor"],
                         {"candidate": 0.6, "baseline": 0.2})
        note = [f for f in evaluation.decision.findings if f.code == SCORE_ABOVE_FLOOR]
        self.assertEqual(len(note), 1)
        self.assertEqual(note[0].severity, INFORMATIONAL)
        self.assertIn("above the do-nothing floor 0.4", note[0].reason)
        self.assertIn("candidate candidate-pass 1, 0.6 above the floor", note[0].reason)
        self.assertEqual(evaluation.action, PASS)  # never a gate

    def test_a_score_below_the_floor_says_so(self):
        evaluation = decide(bounds(floor=1.0))
        note = [f for f in evaluation.decision.findings if f.code == SCORE_ABOVE_FLOOR][0]
        self.assertIn("below the floor", note.reason)

    def test_no_floor_no_note(self):
        evaluation = decide(bounds())
        self.assertIsNone(evaluation.document["validity"]["above_floor"])
        self.assertFalse([f for f in evaluation.decision.findings
                          if f.code == SCORE_ABOVE_FLOOR])


def notes(evaluation, code):
    return [finding for finding in evaluation.decision.findings if finding.code == code]


class OutcomeCheckTests(unittest.TestCase):
    """Under a spec v6 the gate names the tasks whose PASS means less than it says."""

    def test_an_expected_state_equal_to_the_initial_one(self):
        def unchanged(cases):
            cases["test-status"]["expected_final_state"] = "  Order 2003 in TRANSIT "

        def reached(record):
            if record["case_id"] == "test-status":
                record["final_state"] = "order 2003 in transit"
        evaluation = decide(bounds(), change_cases=unchanged, change_records=reached)
        found = notes(evaluation, "expected_equals_initial")
        self.assertEqual([(f.severity, f.case_ids) for f in found],
                         [(INFORMATIONAL, ["test-status"])])
        self.assertIn("an agent that changes nothing meets it", found[0].reason)
        self.assertEqual(evaluation.action, PASS)  # a note, never a gate
        # the same files under a spec without the validity object: no note
        self.assertFalse(notes(decide(change_cases=unchanged, change_records=reached),
                               "expected_equals_initial"))

    def test_a_case_that_expects_an_empty_patch(self):
        def empty(cases):
            cases["test-cancel"]["expected_final_state"] = "empty_patch"
        found = notes(decide(bounds(), change_cases=empty), "empty_outcome_accepted")
        self.assertEqual([f.case_ids for f in found], [["test-cancel"]])

    def test_a_task_no_system_called_an_allowed_tool_on(self):
        def without_tools(record):
            if record["case_id"] == "test-privacy":
                record["tools_used"] = []
        found = notes(decide(bounds(), change_records=without_tools),
                      "allowed_tools_never_called")
        self.assertEqual([f.case_ids for f in found], [["test-privacy"]])

        def one_system_called(record):  # the candidate's calls are enough
            if record["case_id"] == "test-privacy" and record["latency_ms"] > 1000:
                record["tools_used"] = []  # the baseline's trials (over 1000 ms)
        self.assertFalse(notes(decide(bounds(), change_records=one_system_called),
                               "allowed_tools_never_called"))

    def test_the_example_has_none(self):
        evaluation = decide(bounds())
        self.assertEqual([f.code for f in evaluation.decision.findings
                          if f.metric == "cases"], [])


class SequentialTests(unittest.TestCase):
    def test_a_look_that_is_not_evidence_is_not_judged(self):
        # the sequential example's first look as spec v6 and results v6, ten of the
        # candidate's thirty trials lost to the infrastructure
        spec = read("sequential_spec.json")
        spec.update(schema_version=spec_v6(spec, None)["schema_version"], validity=bounds())
        results = read("sequential_look1.json")
        lost = {(record["case_id"], record["trial_id"])
                for record in results["systems"][1]["records"][:10]}
        inputs = [pipeline.InputFile(kind, shown=kind + ".json",
                                     data=json.dumps(value).encode("ascii"))
                  for kind, value in (("spec", spec), ("cases", read("sequential_cases.json")),
                                      ("results", results_v6(results, ((), lost))))]
        document = pipeline.evaluate(inputs).document
        self.assertEqual(document["action"], INCOMPARABLE)
        self.assertTrue(document["reasons"][0].startswith(
            "the run is not evidence: the infrastructure failed 10 of 30 trials"))
        self.assertEqual(document["sequential"]["state"], "incomparable")


class DocumentTests(unittest.TestCase):
    def test_every_document_satisfies_the_decision_schema_and_declares_every_key(self):
        for name, evaluation in (
                ("not evidence", decide(bounds(), candidate_lost=pairs(9))),
                ("within bounds, a floor", decide(bounds(floor=0.4),
                                                  baseline_lost={(TASKS_IN_ORDER[0], 1)})),
                ("no bounds", decide(None, candidate_lost=pairs(2)))):
            with self.subTest(name):
                document = json.loads(evaluation.dumps().decode("ascii"))
                self.assertEqual(check("decision", document), [])
                self.assertEqual(list(output_contract.OUTPUT.iter_errors(document)), [])
                self.assertEqual(undeclared_keys(output_contract.OUTPUT, document), [])


if __name__ == "__main__":
    unittest.main()
