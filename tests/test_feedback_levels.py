"""The feedback levels are one table (service/feedback.py's LEVEL_TABLE): each row answers
for its level, the team command, the service's public description and the docs' tables
(docs/service.md, written by publish) list its rows, and a level the table lacks is
refused everywhere, never answered as another level."""

import json
import unittest

from proagents_bench.cli.commands import COMMAND_BY_NAME
from proagents_bench.cli.usage import UsageError
from proagents_bench.jsonio.dump import document_bytes
from proagents_bench.service import feedback, leaderboard, teams
from tests.support import evaluate_arguments, example_path

# The members each level adds to the verdict (a new row needs its own here).
ADDED = {feedback.VERDICT: set(), feedback.ROUNDED: {"rounded"},
         feedback.LADDER: {"ladder"}, feedback.FULL: {"decision"}}


def decision(results="benchmark_results_pass.json"):
    """The gate's decision document on the example package, as plain JSON data."""
    evaluation = evaluate_arguments(["--results", example_path(results)])
    return json.loads(document_bytes(evaluation.document).decode("ascii"))


class LevelTableTests(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.document = decision()

    def asked(self, best=None):
        return feedback.Asked(self.document, None, lambda: best)

    def test_every_level_is_a_row_with_an_answer(self):
        self.assertEqual(feedback.LEVELS, tuple(row.name for row in feedback.LEVEL_TABLE))
        self.assertEqual(sorted(ADDED), sorted(feedback.LEVELS))
        verdict = set(feedback.verdict(self.document))
        for name in feedback.LEVELS:
            with self.subTest(name):
                shown = feedback.answer(name, self.asked())
                self.assertEqual(set(shown.answer) - verdict, ADDED[name])
                self.assertEqual(shown.released, feedback.level(name).precision is not None)

    def test_an_unknown_level_is_refused_and_never_answered_as_another(self):
        for name in ("", "Ladder", "ladder ", "exact", "verdicts"):
            with self.subTest(name):
                with self.assertRaises(feedback.UnknownLevel):
                    feedback.answer(name, self.asked())
                with self.assertRaises(feedback.UnknownLevel):
                    leaderboard.released_result(name, 0.5, None, 0.0, "0" * 64)
                with self.assertRaises(teams.TeamError):
                    teams.check_level(name)

    def test_an_incomparable_decision_gets_the_verdict_at_every_level(self):
        incomparable = decision()
        incomparable["candidate_metrics"] = None
        for name in feedback.LEVELS:
            shown = feedback.answer(name, feedback.Asked(incomparable, None, lambda: None))
            self.assertEqual(shown.answer, feedback.verdict(incomparable))
            self.assertFalse(shown.released)

    def test_the_ladder_repeats_its_best_release_when_nothing_beats_it(self):
        passes = feedback.task_passes(self.document)
        best = feedback.Released(7, 0.9, passes, {"action": "REVIEW", "reasons": ["r"],
                                                  "failed_gates": [],
                                                  "protocol_mismatches": []})
        shown = feedback.answer(feedback.LADDER, self.asked(best))
        self.assertFalse(shown.released)
        self.assertEqual((shown.answer["action"], shown.answer["ladder"]["score"],
                          shown.answer["ladder"]["verdict_of_submission"]), ("REVIEW", 0.9, 7))

    def test_the_team_command_and_the_docs_list_every_level(self):
        parser = COMMAND_BY_NAME["team"].parser("run_benchmark.py")
        for name in feedback.LEVELS:
            options = parser.parse_args(["add", "t", "--data", "d", "--level", name])
            self.assertEqual(options.level, name)
        with self.assertRaises(UsageError):
            parser.parse_args(["add", "t", "--data", "d", "--level", "exact"])
        for row in feedback.LEVEL_TABLE:
            self.assertIn("| `%s` | %s |" % (row.name, row.releases), feedback.levels_table())
            self.assertIn("| `%s` | %s |" % (row.name, row.bits), feedback.leaks_table())

    def test_a_stepped_level_is_the_one_whose_answer_is_rounded(self):
        for row in feedback.LEVEL_TABLE:
            shown = row.answer(self.asked())
            self.assertEqual(row.stepped, shown.step is not None)


if __name__ == "__main__":
    unittest.main()
