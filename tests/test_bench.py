"""The benchmark command runs end to end on a tiny package (nothing is timed here)."""

import json
import os
import unittest

from proagents_bench import pipeline
from proagents_bench.tools.synthetic import make_package
from tests.support import TempDir, run_cli


class BenchCommandTests(unittest.TestCase):
    def test_runs_end_to_end_on_a_tiny_package(self):
        kept = os.path.join(TempDir(self).path, "kept")
        run = run_cli(["bench", "gate", "--tasks", "4", "--trials", "2", "--samples", "100",
                       "--keep", kept])
        text = run.stdout.decode("ascii")
        self.assertEqual(run.status, 0, text + run.stderr)
        for phrase in ("package: 4 tasks x 2 trials x 2 systems = 16 records",
                       "gate (python -B -m proagents_bench):", "bare json.load",
                       "ratio: the gate takes", "bare json.load, each value dropped",
                       "bootstrap alone (4 tasks, 100 samples"):
            self.assertIn(phrase, text)
        with open(os.path.join(kept, "decision.json"), "rb") as handle:
            self.assertIn(json.load(handle)["action"], ("PASS", "REVIEW", "BLOCK"))

    def test_write_only_writes_a_valid_package(self):
        folder = os.path.join(TempDir(self).path, "package")
        run = run_cli(["bench", "gate", "--tasks", "6", "--trials", "3", "--samples", "200",
                       "--write", folder])
        self.assertEqual(run.status, 0, run.stderr)
        self.assertEqual(sorted(os.listdir(folder)),
                         ["cases.json", "results.json", "spec.json"])
        inputs = [pipeline.InputFile(kind, os.path.join(folder, kind + ".json"))
                  for kind in pipeline.KINDS]
        self.assertIn(pipeline.evaluate(inputs).action, ("PASS", "REVIEW", "BLOCK"))
        with open(os.path.join(folder, "results.json"), "rb") as handle:
            written = handle.read()
        # The generator is deterministic: the same arguments give the same bytes.
        self.assertEqual(written, json.dumps(make_package(6, trial_count=3, samples=200,
                                                          seed=1)[2]).encode("utf-8"))

    def test_the_health_benchmark_runs_end_to_end_and_writes_the_same_bytes(self):
        kept = os.path.join(TempDir(self).path, "kept")
        run = run_cli(["bench", "health", "--packages", "3", "--tasks", "5", "--trials", "2",
                       "--repeat", "2", "--keep", kept])
        text = run.stdout.decode("ascii")
        self.assertEqual(run.status, 0, text + run.stderr)
        for phrase in ("3 packages of 5 tasks x 2 trials x 2 systems (one baseline shared): "
                       "60 records", "health (python -B -m proagents_bench health):",
                       "bare json.load of the same files, kept:", "ratio: health takes",
                       "the same bytes in every run: yes"):
            self.assertIn(phrase, text)
        with open(os.path.join(kept, "health-0.json"), "rb") as handle:
            document = json.load(handle)
        self.assertEqual((document["action"], document["system_count"]), ("HEALTH", 4))
        self.assertEqual(len(document["systems"][0]["runs"]), 1)  # the shared baseline

    def test_the_service_benchmark_runs_end_to_end(self):
        run = run_cli(["bench", "service", "--requests", "4", "--concurrency", "2"])
        text = run.stdout.decode("ascii")
        self.assertEqual(run.status, 0, text + run.stderr)
        for phrase in ("requests: 4 from 2 concurrent clients", "latency: median",
                       "errors: none"):
            self.assertIn(phrase, text)


class AttackBenchTests(unittest.TestCase):
    def test_the_attack_runs_end_to_end_and_the_verdict_channel_is_closed(self):
        run = run_cli(["bench", "attack", "--cases", "8", "--submissions", "4",
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
        from proagents_bench.tools.attack_bench import near_threshold, observed_above_half
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
