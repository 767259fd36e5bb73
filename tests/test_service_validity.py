"""The private-test service refuses to rank a submission whose infrastructure share exceeds
the spec's validity bound, with the reason in its answer at every feedback level: a real
server on a free loopback port, a spec v6 and a results v6 baseline (the example's,
tests/validity_support.py)."""

import json
import unittest

from proagents_bench.service import feedback
from tests.service_support import Service, candidate_only
from tests.support import example_package
from tests.validity_support import bounds, results_v6, spec_v6

TASKS = ["test-refund", "test-cancel", "test-status"]
LOST = {(task, trial) for task in TASKS for trial in (1, 2, 3)}  # 9 of 15 trials


def submission(lost=frozenset()):
    return json.dumps(candidate_only(results_v6(example_package()[2], ((), lost))),
                      indent=1).encode("utf-8")


class RefusedTests(unittest.TestCase):
    def service(self):
        spec, _cases, results = example_package()
        return Service(self, spec=spec_v6(spec, bounds()), results=results_v6(results))

    def test_every_level_answers_the_reason_and_nothing_is_ranked(self):
        service = self.service()
        for level in feedback.LEVELS:
            with self.subTest(level=level):
                token = service.team("team-" + level, level=level)
                reply = service.submit(token, submission(LOST))
                self.assertEqual(reply.status, 200, reply.body)
                answer = reply.document
                self.assertEqual(answer["action"], "INCOMPARABLE")
                self.assertEqual(answer["reasons"][0], (
                    "the run is not evidence: the infrastructure failed 9 of 15 trials (0.6) "
                    "of candidate candidate-pass (tasks test-refund, test-cancel, "
                    "test-status), above max_infrastructure_trial_rate 0.2"))
                # what a level releases of a score, none of it: the run measured nothing
                for key in ("score", "rounded", "ladder"):
                    self.assertNotIn(key, answer)
        board = service.call("GET", "/v1/leaderboard").document["boards"][0]["entries"]
        self.assertEqual({(entry["decision"], entry["rank"], entry["score"])
                          for entry in board}, {("INCOMPARABLE", None, None)})

    def test_within_the_bound_a_submission_is_scored_and_ranked(self):
        service = self.service()
        token = service.team("alpha", level="full")
        answer = service.submit(token, submission({("test-refund", 1)})).document
        # 1 of 15 lost: within the bound, decided by the gates (the lost trial is a failed
        # trial: the trial-level interval's gate asks for review)
        self.assertEqual(answer["action"], "REVIEW")
        self.assertTrue(answer["decision"]["validity"]["evidence"])
        board = service.call("GET", "/v1/leaderboard").document["boards"][0]["entries"]
        self.assertEqual([(entry["decision"], entry["rank"], entry["score"])
                          for entry in board], [("REVIEW", 1, 1.0)])

if __name__ == "__main__":
    unittest.main()
