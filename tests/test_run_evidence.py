"""On real output, the decision separates the agent's failures from the infrastructure's and
says INCOMPARABLE where the run is not evidence: Harbor jobs with a provider's RuntimeError
before the agent ran and AgentTimeoutError trials, SWE-bench runs with 9 of 10 instances in
error, an Inspect run with errored samples (the fixtures written by the harnesses' own code:
``tests/importers/make_harbor_jobs.py``, ``make_swebench_runs.py``, ``make_inspect_runs.py``),
each imported with ``--failure-origins`` (results v6) and decided under a spec v6."""

import os
import unittest

from proagents_bench.contract.vocabulary import RESULTS_V3, RESULTS_V6
from tests.importers.support import fixture, load_json
from tests.support import ROOT, TempDir, run_cli

HARBOR = ("--baseline", fixture("harbor_infra_baseline_job"), "--candidate",
          fixture("harbor_infra_candidate_job"), "--mapping",
          fixture("harbor_reference_mapping.json"), "--cases", fixture("harbor_cases.json"))
SWEBENCH = ("--baseline", fixture("swebench_errors_baseline_run1.json"), "--baseline",
            fixture("swebench_errors_baseline_run2.json"), "--candidate",
            fixture("swebench_errors_candidate_run1.json"), "--candidate",
            fixture("swebench_errors_candidate_run2.json"), "--mapping",
            fixture("swebench_mapping.json"), "--baseline-id", "acme/agent-v1",
            "--candidate-id", "acme/agent-v2")
INSPECT = ("--baseline", fixture("test_only_baseline.eval"), "--candidate",
           fixture("errored_candidate.eval"), "--baseline-id", "baseline-v1",
           "--candidate-id", "candidate-v2")


class Imported:
    """A run imported into a folder of its own: the results (and the cases it wrote)."""

    def __init__(self, test, arguments, origins=True):
        folder = TempDir(test)
        self.folder = folder
        self.results = os.path.join(folder.path, "results.json")
        self.cases = os.path.join(folder.path, "cases.json")
        extra = [] if "--cases" in arguments else ["--write-cases", self.cases]
        run = run_cli(["import", *arguments, "--output", self.results, *extra]
                      + (["--failure-origins"] if origins else []))
        test.assertEqual(run.status, 0, run.stderr)
        if "--cases" in arguments:
            self.cases = arguments[arguments.index("--cases") + 1]
        self.written = load_json(self.results)

    def gate(self, spec):
        return run_cli(["--spec", spec, "--cases", self.cases, "--results", self.results])

    def spec_with(self, source, **validity):
        """``source`` (a spec v6 fixture) with its validity object changed."""
        spec = load_json(source)
        if validity.pop("none", False):
            spec["validity"] = None
        else:
            spec["validity"].update(validity)
        return self.folder.write_json("spec.json", spec)


def origins_of(written, role):
    system = next(item for item in written["systems"] if item["role"] == role)
    found = {}
    for record in system["records"]:
        key = (record["status"], record["failure_origin"])
        found[key] = found.get(key, 0) + 1
    return found


class NotEvidenceTests(unittest.TestCase):
    def test_harbor_a_providers_runtime_error_is_not_the_agents_timeout(self):
        imported = Imported(self, HARBOR)
        self.assertEqual(imported.written["schema_version"], RESULTS_V6)
        # the candidate's two AgentTimeoutError trials are its own; the trial the provider
        # lost before the agent ran is the infrastructure's
        self.assertEqual(origins_of(imported.written, "candidate"),
                         {("success", None): 9, ("timeout", "agent"): 2,
                          ("unknown", "infrastructure"): 1})
        gate = imported.gate(fixture("harbor_spec_v6.json"))
        self.assertEqual((gate.status, gate.document["action"]), (1, "INCOMPARABLE"))
        self.assertFalse(gate.document["comparable"])
        self.assertEqual(gate.document["reasons"], [
            "the run is not evidence: the infrastructure failed 4 of 12 trials (0.333333) of "
            "baseline terminus-2:acme/model-a (tasks build-cache, fix-permissions, "
            "parse-logs), above max_infrastructure_trial_rate 0.1",
            "the run is not evidence: the infrastructure failed 4 of 12 trials (0.333333) of "
            "baseline terminus-2:acme/model-a (tasks build-cache, fix-permissions, "
            "parse-logs) and 1 of 12 trials (0.083333) of candidate terminus-2:acme/model-b "
            "(tasks parse-logs), a gap of 0.25 above max_infrastructure_rate_gap 0.1"])
        shares = gate.document["validity"]["infrastructure"]
        self.assertEqual([(shares[role]["infrastructure_failures"],
                           shares[role]["agent_failures"]) for role in ("baseline",
                                                                        "candidate")],
                         [(4, 0), (1, 2)])

    def test_the_maintainers_page_quotes_the_reason_the_gate_gives(self):
        imported = Imported(self, HARBOR)
        reason = imported.gate(fixture("harbor_spec_v6.json")).document["reasons"][0]
        with open(os.path.join(ROOT, "docs", "maintaining.md"), "rb") as handle:
            page = " ".join(handle.read().decode("utf-8").split())
        self.assertIn("its first reason `%s`" % reason, page)

    def test_harbor_within_looser_bounds_the_agents_timeouts_count_against_it(self):
        imported = Imported(self, HARBOR)
        spec = imported.spec_with(fixture("harbor_spec_v6.json"),
                                  max_infrastructure_trial_rate=0.5,
                                  max_infrastructure_rate_gap=0.5)
        gate = imported.gate(spec)
        self.assertTrue(gate.document["comparable"])
        self.assertNotEqual(gate.document["action"], "INCOMPARABLE")
        lost = [finding for finding in gate.document["findings"]
                if finding["code"] == "trials_lost_to_infrastructure"]
        self.assertEqual([(finding["severity"], finding["case_ids"]) for finding in lost],
                         [("info", ["build-cache", "fix-permissions", "parse-logs"]),
                          ("info", ["parse-logs"])])
        # the floor of Harbor's own do-nothing agent (nop), beside each raw score
        above = gate.document["validity"]["above_floor"]
        metrics = gate.document["candidate_metrics"]["primary_task_success_rate"]
        self.assertAlmostEqual(above["candidate"], metrics - 0.25)
        self.assertIn("score_above_floor", [finding["code"]
                                            for finding in gate.document["findings"]])

    def test_swebench_nine_of_ten_instances_in_error(self):
        imported = Imported(self, SWEBENCH)
        self.assertEqual(origins_of(imported.written, "candidate"),
                         {("success", None): 11, ("error", "infrastructure"): 9})
        gate = imported.gate(fixture("swebench_errors_spec.json"))
        self.assertEqual((gate.status, gate.document["action"]), (1, "INCOMPARABLE"))
        self.assertTrue(gate.document["primary_reason"].startswith(
            "the run is not evidence: the infrastructure failed 9 of 20 trials (0.45) of "
            "candidate acme/agent-v2 (tasks acme__gadgets-202, acme__gadgets-203, "
            "acme__gadgets-204, acme__gadgets-205, acme__gadgets-206 and 4 more), above "
            "max_infrastructure_trial_rate 0.1"))

    def test_inspect_errored_samples(self):
        imported = Imported(self, INSPECT)
        self.assertEqual(origins_of(imported.written, "candidate"),
                         {("success", None): 11, ("error", "infrastructure"): 4})
        gate = imported.gate(fixture("test_only_spec_v6.json"))
        self.assertEqual((gate.status, gate.document["action"]), (1, "INCOMPARABLE"))
        self.assertIn("4 of 15 trials (0.266667) of candidate candidate-v2 (tasks "
                      "test-refund, test-status)", gate.document["primary_reason"])

    def test_with_trace_references_too_the_records_keep_both(self):
        imported = Imported(self, HARBOR + ("--trace-refs",))
        records = [record for system in imported.written["systems"]
                   for record in system["records"]]
        self.assertEqual(imported.written["schema_version"], RESULTS_V6)
        self.assertTrue(all(record["trace"]["unit"] == "trial" for record in records))
        self.assertEqual(sum(1 for record in records
                             if record["failure_origin"] == "infrastructure"), 5)
        self.assertEqual(imported.gate(fixture("harbor_spec_v6.json")).document["action"],
                         "INCOMPARABLE")


class ReportedTests(unittest.TestCase):
    def test_without_bounds_a_baselines_lost_trials_are_reviewed(self):
        # the SWE-bench baseline lost instance 210 of run 2 to an image that did not build
        imported = Imported(self, SWEBENCH)
        gate = imported.gate(imported.spec_with(fixture("swebench_errors_spec.json"),
                                                none=True))
        self.assertEqual(gate.document["validity"]["bounds"], None)
        reviewed = [finding for finding in gate.document["findings"]
                    if finding["code"] == "trials_lost_to_infrastructure"]
        self.assertEqual([(finding["severity"], finding["case_ids"]) for finding in reviewed],
                         [("review", ["acme__gadgets-210"]),
                          ("info", ["acme__gadgets-202", "acme__gadgets-203",
                                    "acme__gadgets-204", "acme__gadgets-205",
                                    "acme__gadgets-206", "acme__gadgets-207",
                                    "acme__gadgets-208", "acme__gadgets-209",
                                    "acme__gadgets-210"])])
        self.assertNotEqual(gate.document["action"], "PASS")

    def test_bounds_over_a_package_without_origins_are_not_judged(self):
        imported = Imported(self, INSPECT, origins=False)
        self.assertEqual(imported.written["schema_version"], RESULTS_V3)
        gate = imported.gate(fixture("test_only_spec_v6.json"))
        self.assertNotEqual(gate.document["action"], "PASS")
        self.assertIn("infrastructure_share_not_measured",
                      [finding["code"] for finding in gate.document["findings"]])
        self.assertIsNone(gate.document["validity"]["infrastructure"])


if __name__ == "__main__":
    unittest.main()
