"""``bench import`` runs end to end on tiny logs (nothing is timed here), and its synthetic
logs are read the same through the importer's raw entry reader and through zipfile."""

import json
import os
import time
import unittest
import zipfile
from unittest import mock

from devtools.eval_logs import read_templates, write_format_logs, write_logs, zstd_speeds
from proagents_bench.importers import zstd
from tests.devtools.support import run_devtools
from tests.importers.support import (eval_entries, fixture, load_json, read_bytes, records,
                                     run_import, write_eval)
from tests.support import TempDir


def load_json_bytes(data):
    return json.loads(data.decode("ascii"))


class ImportBenchTests(unittest.TestCase):
    def test_runs_end_to_end_on_tiny_logs(self):
        kept = os.path.join(TempDir(self).path, "kept")
        run = run_devtools(["bench", "import", "--tasks", "60", "--epochs", "2", "--keep", kept])
        text = run.stdout.decode("ascii")
        self.assertEqual(run.status, 0, text + run.stderr)
        for phrase in ("logs: 60 tasks x 2 epochs = 120 samples per log",
                       "import (both logs):", "gate on its output:", "bare read of both logs",
                       "ratio: the import takes", "floor: the bare read takes"):
            self.assertIn(phrase, text)
        decision = load_json(os.path.join(kept, "decision.json"))
        self.assertEqual(decision["action"], "BLOCK")
        self.assertIn("task-000007", decision["primary_reason"])

    def test_each_harness_format_runs_end_to_end_on_tiny_logs(self):
        for log_format, action, logs in (("harbor-job", "BLOCK", 1),
                                         ("swebench-summary", "BLOCK", 3)):
            with self.subTest(log_format):
                kept = os.path.join(TempDir(self).path, "kept")
                run = run_devtools(["bench", "import", "--format", log_format, "--tasks", "60",
                               "--epochs", "3", "--keep", kept])
                text = run.stdout.decode("ascii")
                self.assertEqual(run.status, 0, text + run.stderr)
                self.assertIn("logs (%s): 60 tasks x 3 trials = 180 trials per system in %d "
                              "log" % (log_format, logs), text)
                for phrase in ("import (both logs):", "gate on its output:",
                               "bare read of both logs:", "(json.loads of every file, on the "
                               "import's cores)", "ratio: the import takes"):
                    self.assertIn(phrase, text)
                decision = load_json(os.path.join(kept, "decision.json"))
                self.assertEqual(decision["action"], action)
                self.assertEqual(decision["baseline_metrics"]["trial_count"], 180)
        run = run_devtools(["bench", "import", "--format", "harbor-job", "--template-log",
                       fixture("baseline.eval")])
        self.assertEqual(run.status, 2)

    def test_every_format_runs_end_to_end_to_the_same_decision(self):
        for log_format, told in (("promptfoo-results-json", "json.loads of the whole log"),
                                 ("jsonl", "json.loads of every line")):
            with self.subTest(log_format):
                kept = os.path.join(TempDir(self).path, "kept")
                run = run_devtools(["bench", "import", "--tasks", "60", "--epochs", "2", "--format",
                               log_format, "--keep", kept])
                text = run.stdout.decode("ascii")
                self.assertEqual(run.status, 0, text + run.stderr)
                self.assertIn("logs: %s, 60 tasks x 2 epochs = 120 trials per log" % log_format,
                              text)
                self.assertIn("(%s, on the import's cores)" % told, text)
                imported = load_json(os.path.join(kept, "import.json"))
                self.assertEqual([system["log_format"] for system in imported["systems"]],
                                 [log_format] * 2)
                decision = load_json(os.path.join(kept, "decision.json"))
                self.assertEqual(decision["action"], "BLOCK")
                self.assertIn("task-000007", decision["primary_reason"])

    def test_the_same_arguments_write_the_same_bytes_in_every_format(self):
        folder = TempDir(self)
        for log_format in ("promptfoo-results-json", "jsonl"):
            first = write_format_logs(os.path.join(folder.path, "a" + log_format), log_format,
                                      3, 2)
            second = write_format_logs(os.path.join(folder.path, "b" + log_format), log_format,
                                       3, 2)
            for kind in ("baseline", "candidate", "mapping", "cases", "spec"):
                self.assertEqual(read_bytes(first[kind]), read_bytes(second[kind]))

    def test_arguments_out_of_bounds_are_usage_errors_before_anything_is_written(self):
        folder = TempDir(self)
        kept = os.path.join(folder.path, "kept")
        for arguments, said in (
                (["--tasks", "0"], "--tasks must be at least 8"),
                (["--tasks", "7"], "--tasks must be at least 8"),
                (["--epochs", "101"], "--epochs must be 2..100"),
                (["--epochs", "1"], "--epochs must be 2..100"),
                (["--tasks", "10001", "--epochs", "100"],
                 "--tasks times --epochs must be at most 1000000 trials per system"),
                (["--repeat", "0"], "--repeat must be 1..100"),
                (["--repeat", "101"], "--repeat must be 1..100"),
                (["--python", os.path.join(folder.path, "no-python")],
                 "is not an interpreter that can be run")):
            with self.subTest(arguments=arguments):
                run = run_devtools(["bench", "import", "--keep", kept] + arguments)
                self.assertEqual(run.status, 2, run.stderr)
                errors = load_json_bytes(run.stdout)["errors"]
                self.assertEqual([error["code"] for error in errors], ["cli.usage"])
                self.assertIn(said, errors[0]["message"])
                self.assertFalse(os.path.exists(kept))
        not_a_folder = folder.write_bytes("file", b"")
        run = run_devtools(["bench", "import", "--keep", not_a_folder])
        self.assertEqual(run.status, 2, run.stderr)
        self.assertIn("is a file, not a folder",
                      load_json_bytes(run.stdout)["errors"][0]["message"])
        self.assertEqual(read_bytes(not_a_folder), b"")

    def test_a_template_log_is_an_eval_logs(self):
        run = run_devtools(["bench", "import", "--tasks", "2", "--format", "jsonl",
                       "--template-log", fixture("baseline.eval")])
        self.assertEqual(run.status, 2)
        self.assertIn("needs --format inspect-eval", " ".join(
            error["message"] for error in load_json_bytes(run.stdout)["errors"]))

    def test_a_template_log_gives_each_task_a_real_sample(self):
        folder = TempDir(self)
        templates = sorted((info.filename, json.loads(data.decode("utf-8")))
                           for info, data in eval_entries()
                           if info.filename.startswith("samples/"))
        paths = write_logs(folder.path, 7, 2, read_templates(fixture("baseline.eval")))
        with zipfile.ZipFile(paths["candidate"]) as archive:
            names = sorted(name for name in archive.namelist() if name.startswith("samples/"))
            self.assertEqual(len(names), 14)
            sample = json.loads(archive.read("samples/task-000003_epoch_2.json"))
        self.assertEqual((sample["id"], sample["epoch"]), ("task-000003", 2))
        # Task 3 takes the fourth template (by entry name): that sample but for id and epoch.
        expected = templates[3][1]
        self.assertEqual(dict(sample, id=expected["id"], epoch=expected["epoch"]), expected)
        self.assertEqual(list(sample)[:2], ["id", "epoch"])
        arguments = ("--cases", paths["cases"], "--mapping", paths["mapping"],
                     "--baseline-id", "b", "--candidate-id", "c")
        run, results = run_import(self, paths["baseline"], paths["candidate"], *arguments)
        self.assertEqual(run.status, 0, run.stderr)
        self.assertEqual(len(records(results, "candidate")), 14)

    def test_a_zstd_log_gives_the_same_templates(self):
        # Inspect AI's default compression, read as the import reads it.
        # (The zstd fixture is a run of its own: its message ids differ, not its samples.)
        zstd, deflated = (read_templates(fixture(name)) for name in (
            "baseline-zstd.eval", "baseline.eval"))
        self.assertEqual(len(zstd), len(deflated))
        for left, right in zip(zstd, deflated):
            left, right = json.loads(b"{" + left), json.loads(b"{" + right)
            self.assertEqual((left["input"], left["scores"], sorted(left)),
                             (right["input"], right["scores"], sorted(right)))

    def test_the_same_arguments_write_the_same_bytes(self):
        folder = TempDir(self)
        first = write_logs(os.path.join(folder.path, "first"), 3, 2)
        with mock.patch("time.localtime", return_value=time.localtime(0)):
            second = write_logs(os.path.join(folder.path, "second"), 3, 2)
        for kind in ("baseline", "candidate"):
            self.assertEqual(read_bytes(first[kind]), read_bytes(second[kind]))

    def test_a_zstd_template_log_reports_every_decoders_speed_beside_the_target(self):
        lines = zstd_speeds(fixture("baseline-zstd.eval"), 1)
        self.assertTrue(lines[0].startswith("zstd entries of the template log: 34, "))
        names = [name for name, _decoder in zstd.DECODERS]
        self.assertEqual([line.split()[0] for line in lines[1:]],
                         [name.split()[0] for name in names])
        self.assertIn("(target 7.8 MB/s: ", lines[-1])
        self.assertEqual(zstd_speeds(fixture("baseline.eval"), 1), [])

    def test_a_template_log_that_is_no_log_is_a_usage_error(self):
        folder = TempDir(self)
        corrupt = [(info.filename, data) for info, data in eval_entries()]
        corrupt_path = write_eval(folder, "corrupt.eval", corrupt)
        with open(corrupt_path, "r+b") as handle:  # damage the first sample's deflated bytes
            with zipfile.ZipFile(corrupt_path) as archive:
                info = next(info for info in archive.infolist()
                            if info.filename.startswith("samples/"))
            handle.seek(info.header_offset + 30 + len(info.filename) + 10)
            handle.write(b"\xff" * 40)
        no_samples = write_eval(folder, "header-only.eval", [
            (info.filename, data) for info, data in eval_entries()
            if not info.filename.startswith("samples/")])
        for path, reason in ((fixture("baseline.json"), "not a readable zip"),
                             (os.path.join(folder.path, "absent"), "cannot read the log"),
                             (corrupt_path, "cannot be read"),
                             (no_samples, "holds no samples")):
            with self.subTest(path=os.path.basename(path)):
                run = run_devtools(["bench", "import", "--tasks", "8", "--template-log", path])
                self.assertEqual(run.status, 2, run.stderr)
                error = load_json_bytes(run.stdout)["errors"][0]
                self.assertEqual(error["code"], "cli.usage")
                self.assertIn(reason, error["message"])

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
