"""Runs that are not evidence, written by the harnesses' own code (``make_harbor_jobs.py``,
``make_swebench_runs.py``, ``make_inspect_runs.py``): each importer separates the agent's
failures from the infrastructure's, trial by trial, as its harness says."""

import collections
import unittest

from proagents_bench.contract.origins import AGENT, INFRASTRUCTURE
from tests.importers.support import fixture, run_import
from tests.importers.test_inspect_import import import_example
from tests.importers.test_failure_origins import read_trials


def origins(path):
    """{(status, origin): number of trials} of the log at ``path``, and the trials."""
    trials = read_trials(path)
    return collections.Counter((trial.record["status"], trial.origin) for trial in trials), trials


class HarborTests(unittest.TestCase):
    def test_a_providers_runtime_error_before_the_agent_ran_is_the_infrastructures(self):
        counted, trials = origins(fixture("harbor_infra_baseline_job"))
        self.assertEqual(counted, {("success", None): 8, ("unknown", INFRASTRUCTURE): 4})
        broken = sorted(trial.record["case_id"] for trial in trials
                        if trial.origin == INFRASTRUCTURE)
        self.assertEqual(broken, ["build-cache", "build-cache", "fix-permissions",
                                  "parse-logs"])
        # The agent never ran: no time, no cost, no final state.
        for trial in trials:
            if trial.origin == INFRASTRUCTURE:
                self.assertEqual((trial.record["latency_ms"], trial.record["cost_units"],
                                  trial.record["final_state"]), (None, None, None))

    def test_an_agent_timeout_is_the_agents_and_the_runtime_error_the_infrastructures(self):
        counted, _trials = origins(fixture("harbor_infra_candidate_job"))
        self.assertEqual(counted, {("success", None): 9, ("timeout", AGENT): 2,
                                   ("unknown", INFRASTRUCTURE): 1})

    def test_harbors_reference_agents_import_as_systems(self):
        for job, passed in (("harbor_nop_job", {"clean-workspace"}),
                            ("harbor_oracle_job", {"clean-workspace", "fix-permissions",
                                                   "parse-logs"})):
            with self.subTest(job=job):
                trials = read_trials(fixture(job))
                self.assertEqual({trial.record["case_id"] for trial in trials
                                  if trial.record["final_state"] == "1"}, passed)
                self.assertEqual({trial.origin for trial in trials}, {None})


class SweBenchTests(unittest.TestCase):
    def test_nine_of_ten_instances_in_error_are_the_infrastructures(self):
        counted, trials = origins(fixture("swebench_errors_candidate_run1.json"))
        self.assertEqual(counted, {("success", None): 1, ("error", INFRASTRUCTURE): 9})
        self.assertEqual([trial.record["case_id"] for trial in trials
                          if trial.origin is None], ["acme__gadgets-201"])

    def test_an_empty_patch_is_the_agents(self):
        counted, _trials = origins(fixture("swebench_empty_run1.json"))
        self.assertEqual(counted, {("success", AGENT): 10})

    def test_the_gold_patches_fail_one_instance(self):
        trials = read_trials(fixture("swebench_gold_run1.json"))
        self.assertEqual([trial.record["case_id"] for trial in trials
                          if trial.record["final_state"] != "resolved"], ["acme__gadgets-207"])


class InspectTests(unittest.TestCase):
    def test_errored_samples_are_the_infrastructures(self):
        counted, trials = origins(fixture("errored_candidate.eval"))
        self.assertEqual(counted, {("success", None): 11, ("error", INFRASTRUCTURE): 4})
        self.assertEqual(sorted((trial.record["case_id"], trial.record["trial_id"])
                                for trial in trials if trial.origin == INFRASTRUCTURE),
                         [("test-refund", 1), ("test-refund", 2), ("test-status", 1),
                          ("test-status", 2)])


class ImportSummaryTests(unittest.TestCase):
    """Whatever the results version it writes, the import says how many trials each system
    lost to its infrastructure (never silently the agent's)."""

    def test_the_import_counts_each_origin_per_system(self):
        run, written = run_import(
            self, fixture("harbor_infra_baseline_job"), fixture("harbor_infra_candidate_job"),
            "--mapping", fixture("harbor_reference_mapping.json"), "--cases",
            fixture("harbor_cases.json"))
        self.assertEqual(run.status, 0, run.stderr)
        self.assertEqual([system["failure_origins"] for system in run.document["systems"]],
                         [{AGENT: 0, INFRASTRUCTURE: 4}, {AGENT: 2, INFRASTRUCTURE: 1}])
        self.assertIn("  4 of 12 trials lost to the infrastructure, as the harness says "
                      "(failure origin; each a failed trial)", run.stderr)
        self.assertIn("  1 of 12 trials lost to the infrastructure", run.stderr)
        # results v3 has no failure origin: the records keep only their status
        self.assertFalse(any("failure_origin" in record for system in written["systems"]
                             for record in system["records"]))

    def test_a_system_without_such_trials_says_nothing_of_them(self):
        # the Inspect example: the baseline's test-status trial 3 errored, the candidate's none
        run, _written = import_example(self)
        self.assertEqual(run.status, 0, run.stderr)
        self.assertEqual([system["failure_origins"] for system in run.document["systems"]],
                         [{AGENT: 0, INFRASTRUCTURE: 1}, {AGENT: 0, INFRASTRUCTURE: 0}])
        candidate = run.stderr[run.stderr.index("imported candidate"):]
        self.assertIn("1 of 15 trials lost to the infrastructure", run.stderr)
        self.assertNotIn("lost to the infrastructure", candidate)

if __name__ == "__main__":
    unittest.main()
