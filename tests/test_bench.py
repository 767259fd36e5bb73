"""The benchmark command runs end to end on a tiny package (nothing is timed here)."""

import io
import json
import os
import unittest

from proagents_bench import bench, gate
from proagents_bench.synthetic import make_package
from tests.support import TempDir


class BenchCommandTests(unittest.TestCase):
    def test_runs_end_to_end_on_a_tiny_package(self):
        out = io.StringIO()
        kept = os.path.join(TempDir(self).path, "kept")
        status = bench.main(["--tasks", "4", "--trials", "2", "--samples", "100",
                             "--keep", kept], stdout=out)
        text = out.getvalue()
        self.assertEqual(status, 0, text)
        for phrase in ("package: 4 tasks x 2 trials x 2 systems = 16 records",
                       "gate (python -B -m proagents_bench):", "bare json.load",
                       "ratio: the gate takes", "bootstrap alone (4 tasks, 100 samples"):
            self.assertIn(phrase, text)
        with open(os.path.join(kept, "decision.json"), "rb") as handle:
            self.assertIn(json.load(handle)["action"], ("PASS", "REVIEW", "BLOCK"))

    def test_write_only_writes_a_valid_package(self):
        folder = os.path.join(TempDir(self).path, "package")
        out = io.StringIO()
        self.assertEqual(bench.main(["--tasks", "6", "--trials", "3", "--samples", "200",
                                     "--write", folder], stdout=out), 0)
        self.assertEqual(sorted(os.listdir(folder)),
                         ["cases.json", "results.json", "spec.json"])
        inputs = [gate.InputFile(kind, os.path.join(folder, kind + ".json"))
                  for kind in gate.KINDS]
        self.assertIn(gate.evaluate(inputs).exit_status, (0, 1))
        with open(os.path.join(folder, "results.json"), "rb") as handle:
            written = handle.read()
        # The generator is deterministic: the same arguments give the same bytes.
        self.assertEqual(written, json.dumps(make_package(6, trial_count=3, samples=200,
                                                          seed=1)[2]).encode("utf-8"))


if __name__ == "__main__":
    unittest.main()
