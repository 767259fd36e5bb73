"""The command line's options beyond the contract: the human summary, --output, standard
input, no abbreviations, -V, --markdown-append, the program's name in its help."""

import io
import json
import os
import subprocess
import sys
import unittest
from unittest import mock

from proagents_bench import cli
from tests.support import (RUN_BENCHMARK, TempDir, example_path, run_cli, run_subprocess,
                           with_example)
from tests.test_reports import report_text


class Terminal(io.StringIO):
    def isatty(self):
        return True


class SummaryTests(unittest.TestCase):
    def test_a_terminal_gets_a_short_summary_and_stdout_stays_the_document(self):
        out, err = io.BytesIO(), Terminal()
        status = cli.main(["--results", example_path("benchmark_results_regression.json")],
                          stdout=out, stderr=err)
        self.assertEqual(status, 1)
        self.assertEqual(json.loads(out.getvalue())["action"], "BLOCK")
        lines = err.getvalue().splitlines()
        self.assertTrue(lines[0].startswith("proagents-bench: BLOCK: critical task test-safety"))
        self.assertTrue(lines[1].startswith("  block: hard gate min_side_effect_free_trial_rate"))
        self.assertTrue(lines[2].startswith("  review: soft gate min_paired_delta_ci_low"))
        self.assertIn("task success rate: candidate candidate-regression 0.8, baseline "
                      "baseline-v1 0.6", lines[3])
        self.assertIn("95% bootstrap interval", lines[3])
        self.assertTrue(any(line.startswith("  note: ") for line in lines))
        self.assertLess(len(lines), 12)

    def test_no_summary_in_a_pipe_unless_asked(self):
        self.assertEqual(run_cli([]).stderr, "")
        run = run_cli(["--summary"])
        self.assertTrue(run.stderr.startswith("proagents-bench: PASS: every hard and soft gate"))
        self.assertEqual(run.document["action"], "PASS")


class OutputOptionTests(unittest.TestCase):
    def test_the_document_goes_to_the_file_and_stdout_stays_empty(self):
        folder = TempDir(self).path
        path = os.path.join(folder, "decision.json")
        run = run_cli(["--output", path])
        self.assertEqual((run.status, run.stdout), (0, b""))
        with open(path, "rb") as handle:
            self.assertEqual(handle.read(), run_cli([]).stdout)
        self.assertEqual(os.listdir(folder), ["decision.json"])

    def test_a_contract_error_document_goes_to_the_file_too(self):
        path = os.path.join(TempDir(self).path, "decision.json")
        run = run_cli(["--cases", example_path("benchmark_cases_contract_error.json"),
                       "--output", path])
        self.assertEqual((run.status, run.stdout), (2, b""))
        self.assertIn("split contamination", run.stderr)
        with open(path, "rb") as handle:
            self.assertEqual(json.loads(handle.read())["action"], "CONTRACT_ERROR")

    def test_the_output_may_not_overwrite_an_input(self):
        run = run_cli(["--output", example_path("benchmark_spec.json")])
        self.assertEqual(run.status, 2)
        self.assertEqual(run.document["errors"][0]["code"], "cli.report_path")


class StandardInputTests(unittest.TestCase):
    def test_only_one_input_can_be_standard_input(self):
        run = run_cli(["--spec", "-", "--results", "-"])
        self.assertEqual((run.status, run.document["errors"][0]["code"]), (2, "cli.usage"))

    def test_a_report_to_a_dash_is_refused(self):
        run = run_cli(["--html", "-"])
        self.assertEqual(run.status, 2)
        error = run.document["errors"][0]
        self.assertEqual(error["code"], "cli.report_path")
        self.assertIn("stdout (-)", error["message"])
        self.assertFalse(os.path.exists("-"))


class OptionTests(unittest.TestCase):
    def test_no_abbreviated_long_options(self):
        run = run_cli(["--result", example_path("benchmark_results_pass.json")])
        self.assertEqual((run.status, run.document["errors"][0]["code"]), (2, "cli.usage"))

    def test_an_installed_script_is_named_by_its_file_name(self):
        self.assertEqual(cli.program_name("/usr/local/bin/proagents-bench"), "proagents-bench")


class ProcessTests(unittest.TestCase):
    """The command line as a process: standard input, -V, --help."""

    ONCE_PER_INTERPRETER = "child processes only, in plain mode"

    def test_a_dash_reads_standard_input(self):
        with open(example_path("benchmark_results_regression.json"), "rb") as handle:
            data = handle.read()
        completed = subprocess.run(
            [sys.executable, "-B", RUN_BENCHMARK] + with_example(["--results", "-"]),
            input=data, stdout=subprocess.PIPE, stderr=subprocess.PIPE, timeout=60)
        self.assertEqual(completed.returncode, 1, completed.stderr)
        document = json.loads(completed.stdout)
        self.assertEqual(document["action"], "BLOCK")
        self.assertEqual(document["inputs"]["results"]["file"], "<stdin>")

    def test_version_both_ways(self):
        for flag in ("-V", "--version"):
            run = run_subprocess([flag])
            self.assertEqual(run.status, 0)
            self.assertTrue(run.stdout.decode("ascii").startswith("proagents-bench "))

    def test_the_help_names_the_program_it_was_invoked_as(self):
        run = run_subprocess(["--help"])
        self.assertTrue(run.stdout.decode("ascii").startswith("usage: run_benchmark.py"))
        completed = subprocess.run([sys.executable, "-B", "-m", "proagents_bench", "--help"],
                                   cwd=os.path.dirname(RUN_BENCHMARK), stdout=subprocess.PIPE,
                                   timeout=60)
        self.assertTrue(completed.stdout.startswith(b"usage: python -m proagents_bench"))


class MarkdownAppendTests(unittest.TestCase):
    def test_appending_keeps_what_earlier_steps_wrote(self):
        path = os.path.join(TempDir(self).path, "step_summary.md")
        with open(path, "wb") as handle:
            handle.write(b"# an earlier step\n")
        for _ in range(2):
            self.assertEqual(run_cli(["--markdown-append", path]).status, 0)
        with open(path, "rb") as handle:
            text = handle.read().decode("utf-8")
        self.assertTrue(text.startswith("# an earlier step\n"))
        self.assertEqual(text.count("PASS: candidate `candidate-pass`"), 2)

    def test_an_append_that_cannot_happen_writes_no_decision(self):
        folder = TempDir(self).path
        html = os.path.join(folder, "report.html")
        run = run_cli(["--html", html, "--markdown-append", folder])
        self.assertEqual((run.status, run.document["errors"][0]["code"]),
                         (2, "cli.report_unwritable"))
        text = report_text(html)
        self.assertIn("CONTRACT_ERROR", text)
        self.assertNotIn("PASS", text)


@unittest.skipUnless(hasattr(os, "fork"), "POSIX fork")
class ForkedFingerprintTests(unittest.TestCase):
    """The fingerprint computed in a forked child gives the very same document."""

    def test_the_forked_fingerprint_is_the_same(self):
        from proagents_bench.cli import fork
        expected = run_cli(["--results", example_path("benchmark_results_regression.json")])
        with mock.patch.object(fork, "FORK_INPUT_BYTES", 0), \
                mock.patch.object(fork, "_start_in_child",
                                  wraps=fork._start_in_child) as started:
            forked = run_cli(["--results", example_path("benchmark_results_regression.json")])
        self.assertTrue(started.called)
        self.assertEqual((forked.status, forked.stdout), (expected.status, expected.stdout))

    def test_a_child_that_fails_leaves_the_fingerprint_to_the_parent(self):
        from proagents_bench.cli import fork
        expected = run_cli([])
        with mock.patch.object(fork, "FORK_INPUT_BYTES", 0), \
                mock.patch.object(fork, "_FINGERPRINT_CHARS", 5):
            self.assertEqual(run_cli([]).stdout, expected.stdout)
        with mock.patch.object(fork, "FORK_INPUT_BYTES", 0), \
                mock.patch.object(os, "fork", side_effect=OSError("no fork")):
            self.assertEqual(run_cli([]).stdout, expected.stdout)

    def test_the_child_starts_before_validation_and_ends_with_an_invalid_package(self):
        from proagents_bench.cli import fork
        started, original = [], fork._start_in_child

        def start(*arguments):
            result = original(*arguments)
            child = getattr(result, "child", None)
            started.append(getattr(child, "pid", None))  # the pid, not the result
            return result

        with mock.patch.object(fork, "FORK_INPUT_BYTES", 0), \
                mock.patch.object(fork, "_start_in_child", side_effect=start):
            run = run_cli(["--cases", example_path("benchmark_cases_contract_error.json")])
        self.assertEqual(run.status, 2)
        self.assertEqual(len(started), 1)  # forked once the files loaded, before the checks
        child = started[0]
        if child:  # the child was ended and reaped when the run gave up on it (at once,
            # not by a garbage collector)
            with self.assertRaises(ChildProcessError):
                os.waitpid(child, os.WNOHANG)


class InputFileTests(unittest.TestCase):
    def test_an_input_given_as_bytes_needs_a_name(self):
        # The decision document names every input file (a string): bytes without a name
        # are refused at once, not at the end of a run.
        from proagents_bench import pipeline
        with self.assertRaises(TypeError):
            pipeline.InputFile("results", data=b"{}")
        self.assertEqual(pipeline.InputFile("results", None, "r.json", data=b"{}").shown,
                         "r.json")


class FingerprintTimingTests(unittest.TestCase):
    """The in-process fingerprint is computed only when asked for, after every check."""

    def test_an_invalid_package_costs_no_fingerprint(self):
        from proagents_bench import pipeline
        from proagents_bench.jsonio import canonical as pending
        with mock.patch.object(pending, "evidence_fingerprint") as fingerprint:
            with self.assertRaises(pipeline.ContractErrors):
                pipeline.evaluate([
                    pipeline.InputFile("spec", example_path("benchmark_spec.json")),
                    pipeline.InputFile("cases",
                                       example_path("benchmark_cases_contract_error.json")),
                    pipeline.InputFile("results", example_path("benchmark_results_pass.json"))])
        self.assertFalse(fingerprint.called)

    def test_the_presumed_candidate_is_the_one_the_rules_find(self):
        from proagents_bench.pipeline import presumed_candidate_id
        systems = {"systems": [{"system_id": "b", "role": "baseline"},
                               {"system_id": "c", "role": "candidate"}]}
        self.assertEqual(presumed_candidate_id(systems, None), "c")
        self.assertEqual(presumed_candidate_id(systems, "given"), "given")
        two = {"systems": systems["systems"] + [{"system_id": "d", "role": "candidate"}]}
        for results in (two, {"systems": {}}, [], {"systems": [{"system_id": 1,
                                                                "role": "candidate"}]}):
            self.assertIsNone(presumed_candidate_id(results, None))


if __name__ == "__main__":
    unittest.main()
