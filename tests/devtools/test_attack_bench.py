"""``bench attack``: the boosting attack end to end, the attacker's reading of an answer, and
the choice attack on the final board, without any feedback (``--strategy complement``): a
team submits a random vector and its complement and chooses both. With the default single
final choice it gains nothing over one honest submission; with two choices, whose best is the
team's row, it gains about 0.8 standard errors. Real ``serve`` processes on loopback, a real
phase, real closes."""

import math
import unittest
from fractions import Fraction

from devtools.attack_bench import near_threshold, observed_above_half
from devtools.attack_choice import complement, complement_gain, independent_gain
from devtools.attack_setup import STATES
from proagents_bench.service import phases
from tests.devtools.support import run_devtools


def table(text):
    """The rows of the choice attack's table: {strategy and choices: cells}."""
    rows = {}
    for line in text.splitlines():
        cells = [cell.strip() for cell in line.strip("|").split("|")]
        if line.startswith("| ") and len(cells) == 5 and cells[0] != "strategy" and (
                "---" not in line):
            rows[(cells[0], cells[1])] = cells[2:]
    return rows


class ChoiceAttackTests(unittest.TestCase):
    def test_one_final_choice_gains_nothing_and_two_gain_about_the_exact_figure(self):
        self.assertEqual(phases.DEFAULT_CHOICES, 1)
        run = run_devtools(["bench", "attack", "--strategy", "complement", "--cases", "12",
                       "--pairs", "12", "--seed", "5"])
        text = run.stdout.decode("ascii")
        self.assertEqual(run.status, 0, text + run.stderr)
        rows = table(text)
        honest = rows[("one random submission (the honest reference)", "1")]
        first = rows[("a submission and its complement, the first chosen", "1 (the default)")]
        both = rows[("a submission and its complement, both chosen", "2")]
        # One choice: the final board is exactly the honest submission's, team for team.
        self.assertEqual(first[:2], honest[:2])
        self.assertEqual(first[2], "0")
        # Two choices: max(K, n - K) / n is never below 1/2, and above it on average.
        self.assertGreaterEqual(float(both[0]), 0.5)
        self.assertGreater(float(both[1].split()[0]), float(honest[1].split()[0]))
        self.assertEqual(both[2], "%.3f" % complement_gain(6))
        self.assertIn("6 private cases", text)

    def test_the_exact_gains(self):
        # n = 4: E[max(K, 4 - K)] = (4 + 3*4 + 2*6 + 3*4 + 4) / 16 = 11/4; the gain over 1/2
        # is 11/16 - 1/2 = 3/16, over the standard error 1/4: 0.75.
        self.assertAlmostEqual(complement_gain(4), 0.75, places=12)
        # Two independent draws, n = 1: max of two fair bits is 1 with chance 3/4.
        self.assertAlmostEqual(independent_gain(1), float(Fraction(3, 4) - Fraction(1, 2)) * 2,
                               places=12)
        # Their limits: E|Z| = sqrt(2/pi) and E[max(Z1, Z2)] = 1/sqrt(pi).
        self.assertAlmostEqual(complement_gain(4000), math.sqrt(2 / math.pi), places=2)
        self.assertAlmostEqual(independent_gain(4000), 1 / math.sqrt(math.pi), places=2)
        answers = {"a": STATES[0], "b": STATES[1]}
        self.assertEqual(complement(answers), {"a": STATES[1], "b": STATES[0]})


class AttackBenchTests(unittest.TestCase):
    def test_the_attack_runs_end_to_end_and_the_verdict_channel_is_closed(self):
        run = run_devtools(["bench", "attack", "--cases", "8", "--submissions", "4",
                       "--repetitions", "1", "--seed", "3", "--strategy", "boosting"])
        text = run.stdout.decode("ascii")
        self.assertEqual(run.status, 0, text + run.stderr)
        rows = {line.split(" | ")[0][2:]: line.split(" | ")[1:]
                for line in text.splitlines() if line.startswith("| ") and "---" not in line}
        self.assertEqual(sorted(rows), sorted(["level", "full", "rounded (step 0.5)",
                                               "ladder, every gate passing",
                                               "ladder, a gate near the team's score",
                                               "verdict, a gate near the team's score"]))
        # The same random vectors: with the verdict released only with a new score, a gate
        # near the score tells the attacker nothing more than the Ladder alone.
        self.assertEqual(rows["ladder, every gate passing"][:4],
                         rows["ladder, a gate near the team's score"][:4])
        self.assertEqual(rows["verdict, a gate near the team's score"][0], "not released")
        for values in rows.values():
            self.assertNotEqual(values[3], "no phase")

    def test_the_attackers_reading_of_an_answer(self):
        self.assertEqual([near_threshold(n) for n in (4, 5, 50, 100)],
                         ["0.625000", "0.500000", "0.510000", "0.505000"])
        fresh = {"action": "PASS", "ladder": {"score": 0.6, "new_score_released": True}}
        repeated = {"action": "PASS", "ladder": {"score": 0.6, "new_score_released": False}}
        self.assertEqual(observed_above_half(fresh, False), (True, True))
        self.assertEqual(observed_above_half(repeated, True), (False, False))
        self.assertEqual(observed_above_half({"action": "PASS"}, True), (True, False))
        self.assertEqual(observed_above_half({"action": "BLOCK"}, True), (False, False))
        self.assertEqual(observed_above_half({"action": "PASS", "rounded": {
            "primary_task_success_rate": 0.5}}, False), (False, False))


if __name__ == "__main__":
    unittest.main()
