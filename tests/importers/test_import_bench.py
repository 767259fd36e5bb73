"""``bench import`` runs end to end on tiny logs (nothing is timed here), and its synthetic
logs are read the same through the importer's raw entry reader and through zipfile."""

import json
import os
import unittest
import zipfile

from proagents_bench.tools.import_bench import write_logs
from tests.importers.support import load_json, records, run_import, write_eval
from tests.support import TempDir, run_cli


class ImportBenchTests(unittest.TestCase):
    def test_runs_end_to_end_on_tiny_logs(self):
        kept = os.path.join(TempDir(self).path, "kept")
        run = run_cli(["bench", "import", "--tasks", "60", "--epochs", "2", "--keep", kept])
        text = run.stdout.decode("ascii")
        self.assertEqual(run.status, 0, text + run.stderr)
        for phrase in ("logs: 60 tasks x 2 epochs = 120 samples per log",
                       "import (both logs):", "gate on its output:", "bare read of both logs",
                       "ratio: the import takes"):
            self.assertIn(phrase, text)
        decision = load_json(os.path.join(kept, "decision.json"))
        self.assertEqual(decision["action"], "BLOCK")
        self.assertIn("task-000007", decision["primary_reason"])

    def test_stored_and_deflated_entries_import_alike(self):
        folder = TempDir(self)
        paths = write_logs(folder.path, 5, 2)
        with zipfile.ZipFile(paths["baseline"]) as archive:
            entries = [(info.filename, archive.read(info)) for info in archive.infolist()]
        stored = os.path.join(folder.path, "stored.eval")
        with zipfile.ZipFile(stored, "w", zipfile.ZIP_STORED) as archive:
            for name, data in entries:
                archive.writestr(name, data)
        deflated = write_eval(folder, "deflated.eval", entries)
        arguments = ("--cases", paths["cases"], "--mapping", paths["mapping"],
                     "--baseline-id", "b", "--candidate-id", "c")
        run, from_deflated = run_import(self, deflated, paths["candidate"], *arguments)
        self.assertEqual(run.status, 0, run.stderr)
        run, from_stored = run_import(self, stored, paths["candidate"], *arguments)
        self.assertEqual(run.status, 0, run.stderr)
        self.assertEqual(records(from_stored, "baseline"), records(from_deflated, "baseline"))
        self.assertEqual(len(records(from_stored, "baseline")), 10)
        sample = json.loads(entries[1][1].decode("utf-8"))
        self.assertEqual(sample["epoch"], 1)


if __name__ == "__main__":
    unittest.main()
