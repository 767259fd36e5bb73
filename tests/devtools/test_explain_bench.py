"""``bench explain`` runs end to end on tiny logs (nothing is timed here): the package it
writes is the one an import of its logs with trace references would be, and explain reads the
grown sample it shows."""

import json
import os
import unittest

from devtools import explain_bench
from proagents_bench import pipeline
from proagents_bench.explain.explanation import explain
from proagents_bench.importers.source import LogSource
from tests.devtools.support import run_devtools
from tests.support import TempDir


class ExplainBenchTests(unittest.TestCase):
    def test_runs_end_to_end_on_tiny_logs(self):
        folder = os.path.join(TempDir(self).path, "kept")
        run = run_devtools(["bench", "explain", "--tasks", "8", "--epochs", "2",
                            "--sample-mb", "1", "--keep", folder])
        self.assertEqual(run.status, 0, run.stdout.decode("ascii", "replace") + run.stderr)
        lines = run.stdout.decode("ascii").splitlines()
        self.assertTrue(lines[-3].startswith("explain:"), lines)
        self.assertIn("the gate's time", lines[-3])
        with open(os.path.join(folder, "explained.json"), "rb") as handle:
            document = json.loads(handle.read().decode("utf-8"))
        self.assertEqual(document["problems"], [])
        self.assertEqual([task["case_id"] for task in document["tasks"]], ["task-000007"])

    def test_the_grown_sample_keeps_its_records_and_gets_its_digest(self):
        folder = TempDir(self).path
        baseline, candidate, spec, cases, results = explain_bench.write(folder, 8, 2, 1)
        self.assertGreater(os.path.getsize(candidate), 0)
        checked = pipeline.check([pipeline.InputFile(kind, path) for kind, path in
                                  (("spec", spec), ("cases", cases), ("results", results))])
        document = explain(checked, checked.decide(), {"baseline": [LogSource(baseline)],
                                                       "candidate": [LogSource(candidate)]})
        trace = document["tasks"][0]["traces"]["candidate"]
        self.assertEqual(trace["where"], candidate + ":samples/task-000007_epoch_1.json")
        self.assertEqual([step["name"] for step in trace["steps"] if step["kind"] ==
                          "tool_call"], ["lookup_order", "refund_order"])


if __name__ == "__main__":
    unittest.main()
