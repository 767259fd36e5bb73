"""The sequential design's rule held to the gate itself: on random runs, the gate, judging
each look with its ledger as the command line does, stops where the boundary's first
crossing on the discordant path says, in the state it says. The exact false pass and cost
tables (docs/statistics.md) are computed from that same rule, path by path; this is the
check that the gate follows the rule the tables were computed from, not a model of it."""

import random
import unittest

from proagents_bench.contract.sequential import design_of
from proagents_bench.stats.sequential_looks import closing_boundaries
from tests.sequential_support import Design, controlled_run
from tests.support import TempDir

LOOKS = [(10, 3), (20, 3), (30, 3), (40, 3)]


def random_outcome(seed, discordance, win):
    """A task's trials all pass or all fail, per system: discordant with chance
    ``discordance``, the candidate's win with chance ``win`` then; fixed by ``seed``."""
    draws = random.Random(seed)
    kinds = {}

    def outcome(role, position, trial):
        if position not in kinds:
            if draws.random() >= discordance:
                kinds[position] = "both" if draws.random() < 0.5 else "neither"
            else:
                kinds[position] = "candidate" if draws.random() < win else "baseline"
        kind = kinds[position]
        return kind == "both" or kind == role
    return outcome, kinds


def expected_stop(spec, kinds):
    """(look, state, decided_at) the rule gives: the first crossing of the pass or the
    futility boundary by the discordant units, in pool order, of the looks so far; at the
    last look undecided, its closing threshold."""
    boundary = design_of(spec).boundary()
    closing = closing_boundaries(boundary)
    limit = len(boundary.passing) - 1
    units = [kinds[position] == "candidate" for position in range(len(kinds))
             if kinds[position] in ("candidate", "baseline")]
    n = wins = 0
    looks = spec["sequential"]["looks"]
    for number, look in enumerate(looks, 1):
        available = [kinds[position] in ("candidate", "baseline")
                     for position in range(look["tasks"])].count(True)
        while n < min(available, limit):
            wins += units[n]
            n += 1
            if wins >= boundary.passing[n]:
                return number, "pass", n
            if wins <= boundary.futile[n]:
                return number, "futility", n
    return len(looks), "pass" if wins >= closing[n] else "exhausted", None


class RuleAgainstTheGateTests(unittest.TestCase):
    def test_the_gate_stops_where_the_rule_says(self):
        for seed in range(12):
            discordance = (0.4, 0.7, 1.0)[seed % 3]
            win = (0.5, 0.75, 0.3, 0.9)[seed % 4]
            with self.subTest(seed=seed, discordance=discordance, win=win):
                outcome, kinds = random_outcome(seed, discordance, win)
                cases, run = controlled_run(40, 3, outcome)  # every position's kind drawn
                design = Design(TempDir(self).path, cases, run, looks=LOOKS)
                look, state, decided_at = expected_stop(design.spec, kinds)
                for number in range(1, len(LOOKS) + 1):
                    sequential = design.judge(number).document["sequential"]
                    if sequential["closed"]:
                        break
                self.assertEqual((number, sequential["state"]), (look, state))
                if decided_at is not None:
                    self.assertEqual(sequential["decided_at"], decided_at)


if __name__ == "__main__":
    unittest.main()
