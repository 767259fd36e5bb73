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

    def test_the_service_benchmark_runs_end_to_end(self):
        run = run_cli(["bench", "service", "--requests", "4", "--concurrency", "2"])
        text = run.stdout.decode("ascii")
        self.assertEqual(run.status, 0, text + run.stderr)
        for phrase in ("requests: 4 from 2 concurrent clients", "latency: median",
                       "errors: none"):
            self.assertIn(phrase, text)


if __name__ == "__main__":
    unittest.main()
