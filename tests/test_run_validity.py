"""The trials each system lost to its infrastructure, and the spec's bounds on them
(proagents_bench/evaluation/validity.py), on records built with their failure origin."""

import unittest
from decimal import Decimal
from fractions import Fraction

from proagents_bench.evaluation import validity


def records(origins):
    """Records of tasks t1, t2, ... (two trials each) whose failure origins are ``origins``
    in order (None, "agent" or "infrastructure")."""
    made = []
    for index, origin in enumerate(origins):
        made.append({"case_id": "t%d" % (index // 2 + 1), "trial_id": index % 2 + 1,
                     "status": "success" if origin is None else "error",
                     "failure_origin": origin})
    return made


def shares(baseline, candidate):
    return [validity.infrastructure_share("baseline", {"system_id": "b"}, records(baseline)),
            validity.infrastructure_share("candidate", {"system_id": "c"}, records(candidate))]


SPEC = {"validity": {"max_infrastructure_trial_rate": Decimal("0.2"),
                     "max_infrastructure_rate_gap": Decimal("0.1")}}
INFRA = "infrastructure"


class ShareTests(unittest.TestCase):
    def test_counts_and_tasks_of_the_infrastructures_failures_only(self):
        share = shares([], [INFRA, None, "agent", INFRA, None, None, INFRA, INFRA, None,
                            None])[1]
        self.assertEqual((share.lost, share.trials, share.share, share.tasks),
                         (4, 10, Fraction(2, 5), ["t1", "t2", "t4"]))

    def test_a_record_without_an_origin_lost_nothing(self):
        share = validity.infrastructure_share("baseline", {"system_id": "b"},
                                              [{"case_id": "t1", "status": "error"}])
        self.assertEqual(share.lost, 0)


class BoundTests(unittest.TestCase):
    def test_within_both_bounds_no_reason(self):
        found = shares([None] * 9 + [INFRA], [None] * 8 + [INFRA, INFRA])
        self.assertEqual(validity.bounds_exceeded(SPEC, found), [])

    def test_the_bound_is_inclusive_and_exact(self):
        # 2 of 10 is exactly 0.2: at the bound, not above it.
        found = shares([None] * 8 + [INFRA] * 2, [None] * 8 + [INFRA] * 2)
        self.assertEqual(validity.bounds_exceeded(SPEC, found), [])

    def test_nine_of_ten_lost_is_not_evidence(self):
        found = shares([None] * 10, [None] + [INFRA] * 9)
        reasons = validity.bounds_exceeded(SPEC, found)
        self.assertEqual(len(reasons), 2)
        self.assertEqual(reasons[0], "the run is not evidence: the infrastructure failed 9 of "
                         "10 trials (0.9) of candidate c (tasks t1, t2, t3, t4, t5), above "
                         "max_infrastructure_trial_rate 0.2")
        self.assertIn("a gap of 0.9 above max_infrastructure_rate_gap 0.1", reasons[1])

    def test_an_imbalance_alone(self):
        found = shares([None] * 10, [None] * 8 + [INFRA] * 2)
        reasons = validity.bounds_exceeded(SPEC, found)
        self.assertEqual(len(reasons), 1)
        self.assertIn("a gap of 0.2 above max_infrastructure_rate_gap 0.1", reasons[0])

    def test_a_spec_without_bounds_never_says_so(self):
        found = shares([None] * 10, [INFRA] * 10)
        self.assertEqual(validity.bounds_exceeded({}, found), [])
        self.assertEqual(found[1].said(), "10 of 10 trials (1) of candidate c (tasks t1, t2, "
                         "t3, t4, t5)")


if __name__ == "__main__":
    unittest.main()
