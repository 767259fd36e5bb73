"""A release's benchmark that is not valid evidence is INCOMPARABLE in the release's tiers:
its logs imported with their failure origins because its spec (v6) bounds them, decided
exactly as the gate decides it alone."""

import os
import shutil
import unittest

from tests.support import run_cli
from tests.test_release import FIXTURES, Workspace

ERRORED = ("test_only_spec_v6.json", "errored_candidate.eval")


def errored_entry(name="orders-errored", tier="critical", spec="logs/test_only_spec_v6.json"):
    """The Inspect run whose candidate lost 4 of 15 samples to errors, under ``spec``."""
    return {"name": name, "tier": tier, "spec": spec,
            "import": {"baseline": "logs/test_only_baseline.eval",
                       "candidate": "logs/errored_candidate.eval",
                       "baseline_id": "baseline-v1", "candidate_id": "candidate-v2"}}


class ReleaseTests(unittest.TestCase):
    def workspace(self):
        workspace = Workspace(self)
        for name in ERRORED:
            shutil.copy(os.path.join(FIXTURES, name), os.path.join(workspace.path, "logs"))
        return workspace

    def test_a_critical_benchmark_that_is_not_evidence_makes_the_release_incomparable(self):
        workspace = self.workspace()
        run = workspace.release([errored_entry()])
        self.assertEqual((run.status, run.document["action"]), (1, "INCOMPARABLE"))
        self.assertEqual(run.document["reasons"][0], (
            'critical benchmark "orders-errored" is INCOMPARABLE: the run is not evidence: the '
            "infrastructure failed 4 of 15 trials (0.266667) of candidate candidate-v2 (tasks "
            "test-refund, test-status), above max_infrastructure_trial_rate 0.1"))
        decision = run.document["benchmarks"][0]["decision"]
        self.assertFalse(decision["validity"]["evidence"])
        # decided exactly as alone: the gate on the files import --failure-origins writes
        folder = workspace.path
        results = os.path.join(folder, "alone.results.json")
        cases = os.path.join(folder, "alone.cases.json")
        imported = run_cli(["import", "--baseline", os.path.join(folder, "logs",
                                                                  "test_only_baseline.eval"),
                            "--candidate", os.path.join(folder, "logs", "errored_candidate.eval"),
                            "--baseline-id", "baseline-v1", "--candidate-id", "candidate-v2",
                            "--failure-origins", "--output", results, "--write-cases", cases])
        self.assertEqual(imported.status, 0, imported.stderr)
        alone = run_cli(["--spec", os.path.join(folder, "logs", "test_only_spec_v6.json"),
                         "--cases", cases, "--results", results]).document
        self.assertEqual((alone["reasons"], alone["validity"]),
                         (decision["reasons"], decision["validity"]))

    def test_a_supporting_one_asks_for_review(self):
        run = self.workspace().release([errored_entry(tier="supporting")])
        self.assertEqual(run.document["action"], "REVIEW")
        self.assertIn('supporting benchmark "orders-errored" is INCOMPARABLE',
                      run.document["reasons"][0])

    def test_a_spec_before_v6_imports_without_origins_and_decides_as_before(self):
        run = self.workspace().release([errored_entry(spec="logs/test_only_spec.json")])
        decision = run.document["benchmarks"][0]["decision"]
        self.assertTrue(decision["comparable"])
        self.assertNotIn("validity", decision)


if __name__ == "__main__":
    unittest.main()
