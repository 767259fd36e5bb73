"""``bench gate``, ``health`` and ``service`` run end to end on tiny packages (nothing is timed
here)."""

import json
import os
import subprocess
import sys
import unittest

from devtools.synthetic import make_package
from proagents_bench import pipeline
from tests.devtools.support import run_devtools
from tests.support import ROOT, TempDir


class CommandLineTests(unittest.TestCase):
    """``python -B -m devtools``: the product's dispatcher with the development commands."""

    def errors(self, args):
        run = run_devtools(args)
        self.assertEqual(run.status, 2, run.stderr)
        return [error["message"] for error in run.document["errors"]]

    def test_a_command_line_naming_no_command_is_a_usage_error(self):
        self.assertIn("name a command: bench, publish", self.errors([])[0])
        self.assertIn("(did you mean the command bench?)", self.errors(["bnch"])[0])
        # the product's commands are not the development command line's, nor the gate
        self.assertIn("unrecognized arguments: serve", self.errors(["serve"])[0])
        self.assertIn("unrecognized arguments: --spec", self.errors(["--spec", "x"])[0])

    def test_a_mistyped_kind_or_option_is_suggested(self):
        self.assertIn("(did you mean gate?)", self.errors(["bench", "gat"])[0])
        self.assertIn("(did you mean --tasks?)", self.errors(["bench", "gate", "--task", "5"])[0])

    def test_every_number_out_of_its_bounds_is_said_before_anything_runs(self):
        folder = os.path.join(TempDir(self).path, "kept")
        self.assertEqual(self.errors(["bench", "gate", "--tasks", "0", "--trials", "101",
                                      "--samples", "99", "--repeat", "0", "--keep", folder]),
                         ["--tasks must be at least 1, got 0 (see --help)",
                          "--trials must be 2..100 (the protocol's trial_count), got 101 "
                          "(see --help)",
                          "--repeat must be at least 1, got 0 (see --help)",
                          "--samples must be 100..100000 (the spec's bootstrap samples), got "
                          "99 (see --help)"])
        self.assertFalse(os.path.exists(folder))
        for args, said in ((["health", "--packages", "0"], "--packages must be at least 1"),
                           (["release", "--benchmarks", "0"], "--benchmarks must be at least 1"),
                           (["service", "--concurrency", "0"], "--concurrency must be at least 1"),
                           (["attack", "--cases", "3"], "--cases must be at least 4"),
                           (["attack", "--private-share", "1.5"], "a private share is a decimal"),
                           (["plan", "--tasks", "1"], "--tasks must be at least 2"),
                           (["false-pass", "--tasks", "0,5"], "every count is at least 1"),
                           (["false-pass", "--confidence", "1"], "is not between 0 and 1"),
                           (["gate", "--python", os.path.join(folder, "none")],
                            "is not an interpreter that can be run")):
            with self.subTest(args=args):
                self.assertIn(said, " ".join(self.errors(["bench"] + args)))
        not_a_folder = os.path.join(TempDir(self).path, "file")
        with open(not_a_folder, "wb"):
            pass
        self.assertIn("--write %s is a file, not a folder" % not_a_folder,
                      self.errors(["bench", "gate", "--write", not_a_folder])[0])

    def test_the_module_runs_as_a_program_with_the_products_exit_statuses(self):
        folder = os.path.join(TempDir(self).path, "package")
        for args, status in ((["bench", "gate", "--tasks", "3", "--trials", "2", "--samples",
                               "100", "--write", folder], 0),
                             (["bench", "gate", "--tasks", "0"], 2)):
            with self.subTest(args=args):
                completed = subprocess.run([sys.executable, "-B", "-m", "devtools"] + args,
                                           cwd=ROOT, stdout=subprocess.PIPE,
                                           stderr=subprocess.PIPE, stdin=subprocess.DEVNULL,
                                           timeout=120)
                self.assertEqual(completed.returncode, status, completed.stderr)
        self.assertEqual(sorted(os.listdir(folder)), ["cases.json", "results.json", "spec.json"])
        self.assertIn(b"ERROR: usage: --tasks must be at least 1",
                      completed.stderr)
        self.assertIn(b"usage: python -B -m devtools bench gate", subprocess.run(
            [sys.executable, "-B", "-m", "devtools", "bench", "gate", "--help"], cwd=ROOT,
            stdout=subprocess.PIPE, stdin=subprocess.DEVNULL, timeout=120).stdout)


class BenchCommandTests(unittest.TestCase):
    def test_runs_end_to_end_on_a_tiny_package(self):
        kept = os.path.join(TempDir(self).path, "kept")
        run = run_devtools(["bench", "gate", "--tasks", "4", "--trials", "2", "--samples", "100",
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
        run = run_devtools(["bench", "gate", "--tasks", "6", "--trials", "3", "--samples", "200",
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
        run = run_devtools(["bench", "health", "--packages", "3", "--tasks", "5", "--trials", "2",
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

    def test_the_release_benchmark_runs_end_to_end_and_finds_each_gate_inside(self):
        kept = os.path.join(TempDir(self).path, "kept")
        run = run_devtools(["bench", "release", "--benchmarks", "2", "--tasks", "5",
                            "--trials", "2", "--samples", "100", "--keep", kept])
        text = run.stdout.decode("ascii")
        self.assertEqual(run.status, 0, text + run.stderr)
        for phrase in ("release: 2 benchmarks, each 5 tasks x 2 trials x 2 systems = 20 "
                       "records", "2 gates, one after another:",
                       "release (benchmarks in parallel):", "release --jobs 1 (one after "
                       "another):", "ratio: the release takes",
                       "each benchmark's decision inside the release is byte for byte its "
                       "gate's: yes"):
            self.assertIn(phrase, text)
        with open(os.path.join(kept, "release.json"), "rb") as handle:
            manifest = json.load(handle)
        self.assertEqual([entry["tier"] for entry in manifest["benchmarks"]],
                         ["critical", "supporting"])

    def test_the_service_benchmark_runs_end_to_end(self):
        run = run_devtools(["bench", "service", "--requests", "4", "--concurrency", "2"])
        text = run.stdout.decode("ascii")
        self.assertEqual(run.status, 0, text + run.stderr)
        for phrase in ("requests: 4 from 2 concurrent clients", "latency: median",
                       "errors: none"):
            self.assertIn(phrase, text)


if __name__ == "__main__":
    unittest.main()
