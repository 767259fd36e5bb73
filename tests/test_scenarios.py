"""The seed's four scenarios and its exercises, end to end."""

import json
import os
import shlex
import shutil
import subprocess
import sys
import tempfile
import unittest

from test_run_benchmark import MODES
from tests.support import (EXAMPLES, ROOT, RUN_BENCHMARK, Run, TempDir, codes, gate_findings,
                           run_cli, run_subprocess)


def results(name):
    return ["--results", os.path.join(EXAMPLES, name)]


class ScenarioTests(unittest.TestCase):
    def test_pass_scenario(self):
        run = run_cli([])
        self.assertEqual(run.status, 0, run.stderr)
        document = run.document
        self.assertEqual(document["action"], "PASS")
        self.assertTrue(document["comparable"])
        self.assertEqual(document["candidate_metrics"]["primary_task_success_rate"], 1.0)
        self.assertEqual(document["baseline_metrics"]["primary_task_success_rate"], 0.6)
        self.assertEqual(len(document["candidate_metrics"]["trial_results"]), 15)
        self.assertTrue(document["evidence_fingerprint"].startswith("sha256:"))
        self.assertEqual(len(document["evidence_fingerprint"]), len("sha256:") + 64)
        self.assertEqual(gate_findings(document), [])
        self.assertEqual(run.stderr, "")

    def test_regression_blocks_on_the_critical_task_despite_a_better_mean(self):
        run = run_cli(results("benchmark_results_regression.json")
                      + ["--candidate", "candidate-regression"])
        self.assertEqual(run.status, 1)
        document = run.document
        self.assertEqual(document["action"], "BLOCK")
        self.assertIn("test-safety", document["primary_reason"])
        self.assertEqual(document["primary_reason"], document["reasons"][0])
        candidate = document["candidate_metrics"]
        baseline = document["baseline_metrics"]
        self.assertEqual(candidate["primary_task_success_rate"], 0.8)
        self.assertGreater(candidate["primary_task_success_rate"],
                           baseline["primary_task_success_rate"])
        self.assertEqual(candidate["critical_failures"], ["test-safety"])
        safety = [trial for trial in candidate["trial_results"]
                  if trial["case_id"] == "test-safety"]
        self.assertEqual(len(safety), 3)
        self.assertTrue(all(not trial["checks"]["side_effects_safe"] for trial in safety))
        severities = [finding["severity"] for finding in gate_findings(document)]
        # Block reasons first, then review reasons.
        self.assertEqual(severities, sorted(severities, key=["block", "review"].index))
        self.assertIn("review", severities)
        self.assertTrue(document["reasons"][-1].startswith("soft gate"))

    def test_protocol_mismatch_is_incomparable_without_metrics(self):
        run = run_cli(["--spec", os.path.join(EXAMPLES, "benchmark_spec_protocol_mismatch.json")])
        self.assertEqual(run.status, 1)
        document = run.document
        self.assertEqual(document["action"], "INCOMPARABLE")
        self.assertFalse(document["comparable"])
        self.assertIsNone(document["baseline_metrics"])
        self.assertIsNone(document["candidate_metrics"])
        self.assertEqual(document["comparison"], {"protocol_mismatches": [
            "baseline-v1.max_steps: expected=9, actual=8",
            "candidate-pass.max_steps: expected=9, actual=8"]})
        self.assertIn("max_steps", document["primary_reason"])

    def test_contaminated_cases_are_a_contract_error(self):
        run = run_cli(["--cases", os.path.join(EXAMPLES, "benchmark_cases_contract_error.json")])
        self.assertEqual(run.status, 2)
        self.assertEqual(run.document["action"], "CONTRACT_ERROR")
        self.assertIn("split contamination", run.stderr)
        self.assertIn("family-leaked-status", run.stderr)
        self.assertIn('split contamination: family_id="family-leaked-status" appears in '
                      "train and test", run.stderr)
        self.assertEqual(codes(run), [("cases.split_contamination", "$.cases[6].family_id")])


class ExerciseTests(unittest.TestCase):
    def test_a_deleted_candidate_trial_is_a_contract_error_not_a_smaller_denominator(self):
        run = run_cli(results("exercise_results_missing_trial.json"))
        self.assertEqual(run.status, 2)
        self.assertEqual(codes(run), [("coverage.missing", "$.systems[1].records")])
        self.assertIn("\"test-status\" trial 2", run.document["errors"][0]["message"])

    def test_a_p95_breach_alone_is_review(self):
        run = run_cli(results("exercise_results_p95_review.json"))
        self.assertEqual(run.status, 1)
        document = run.document
        self.assertEqual(document["action"], "REVIEW")
        self.assertEqual([finding["code"] for finding in gate_findings(document)],
                         ["max_p95_latency_ms"])
        self.assertEqual(gate_findings(document)[0]["case_ids"], ["test-status"])
        self.assertEqual(document["candidate_metrics"]["p95_latency_ms"], 4000.0)
        self.assertLess(document["candidate_metrics"]["mean_latency_ms"], 2000)

    def test_pass_pass_fail_passes_the_task_gate_but_is_unstable(self):
        run = run_cli(results("exercise_results_unstable_task.json"))
        document = run.document
        candidate = document["candidate_metrics"]
        status_task = [task for task in candidate["task_results"]
                       if task["case_id"] == "test-status"][0]
        self.assertAlmostEqual(status_task["trial_success_rate"], 2 / 3)
        self.assertTrue(status_task["task_pass"])
        self.assertFalse(status_task["stable_across_trials"])
        self.assertEqual(candidate["primary_task_success_rate"], 1.0)
        # 4 of 5 stable tasks meets the 0.8 stability gate exactly.
        self.assertEqual(candidate["trial_stability_rate"], 0.8)
        self.assertEqual(candidate["unknown_trial_count"], 1)
        self.assertEqual(document["action"], "PASS")
        self.assertEqual(run.status, 0)

    def test_a_failing_critical_privacy_task_blocks_a_perfect_mean(self):
        run = run_cli(results("exercise_results_critical_privacy.json"))
        document = run.document
        self.assertEqual(run.status, 1)
        self.assertEqual(document["action"], "BLOCK")
        self.assertEqual(document["candidate_metrics"]["primary_task_success_rate"], 1.0)
        self.assertIn("test-privacy", document["primary_reason"])
        self.assertEqual([finding["code"] for finding in gate_findings(document)],
                         ["critical_task_min_trial_success_rate"])


class ArgumentTests(unittest.TestCase):
    """Arguments the gate refuses."""

    def test_candidate_must_name_the_candidate(self):
        run = run_cli(["--candidate", "someone-else"])
        self.assertEqual(run.status, 2)
        self.assertEqual(codes(run), [("cli.unknown_candidate", "$.systems[1].system_id")])

    def test_bad_arguments_are_exit_2_with_a_document(self):
        run = run_cli(["--no-such-option"])
        self.assertEqual(run.status, 2)
        self.assertEqual(codes(run), [("cli.usage", "$")])
        self.assertIn("--no-such-option", run.stderr)


class CommandLineTests(unittest.TestCase):
    """The scenarios as a user runs them: a process, from another working directory, in each
    interpreter mode (the suite's other child processes run in plain mode)."""

    ONCE_PER_INTERPRETER = "child processes only, each in the mode the test names"

    def test_scenarios_exit_codes_from_another_directory(self):
        expected = [
            ([], 0, "PASS"),
            (["--results", os.path.join(EXAMPLES, "benchmark_results_regression.json"),
              "--candidate", "candidate-regression"], 1, "BLOCK"),
            (["--spec", os.path.join(EXAMPLES, "benchmark_spec_protocol_mismatch.json")], 1,
             "INCOMPARABLE"),
            (["--cases", os.path.join(EXAMPLES, "benchmark_cases_contract_error.json")], 2,
             "CONTRACT_ERROR"),
        ]
        with tempfile.TemporaryDirectory() as elsewhere:
            for (args, status, action), flags in zip(expected, MODES):
                with self.subTest(action=action, flags=flags):
                    run = run_subprocess(args, cwd=elsewhere, flags=flags)
                    self.assertEqual(run.status, status, run.stderr)
                    self.assertEqual(run.document["action"], action)

    def test_output_is_byte_identical_across_hash_seeds_directories_and_modes(self):
        outputs = set()
        with tempfile.TemporaryDirectory() as elsewhere:
            for seed, cwd, flags in zip(("0", "1", "12345", "7"), (None, elsewhere, elsewhere,
                                                                  None), MODES):
                command_env = {"PYTHONHASHSEED": seed, "PYTHONIOENCODING": "latin-1"}
                run = run_subprocess([], cwd=cwd, env=command_env, flags=flags)
                self.assertEqual(run.status, 0, run.stderr)
                outputs.add(run.stdout)
        self.assertEqual(len(outputs), 1)
        only = outputs.pop()
        only.decode("ascii")  # ASCII only
        self.assertTrue(only.endswith(b"\n"))

    def test_python_dash_m_does_the_same(self):
        completed = subprocess.run([sys.executable, "-B", "-m", "proagents_bench"],
                                   cwd=os.path.dirname(RUN_BENCHMARK), stdout=subprocess.PIPE,
                                   stderr=subprocess.PIPE, stdin=subprocess.DEVNULL, timeout=120)
        self.assertEqual(completed.returncode, 0)
        self.assertEqual(completed.stdout, run_subprocess([]).stdout)

    def test_a_closed_stdout_ends_quietly(self):
        process = subprocess.Popen([sys.executable, "-B", RUN_BENCHMARK], stdout=subprocess.PIPE,
                                   stderr=subprocess.PIPE, stdin=subprocess.DEVNULL)
        process.stdout.read(10)
        process.stdout.close()
        stderr = process.stderr.read()
        process.stderr.close()
        status = process.wait(timeout=120)
        self.assertNotIn(b"Traceback", stderr)
        self.assertIn(status, (0, 1))  # 0 when the document fit the pipe before it closed


def gate_in(folder, arguments, script=RUN_BENCHMARK, stdin=b""):
    """The gate as a process run from ``folder`` (``script`` as the user names it there)."""
    completed = subprocess.run([sys.executable, "-B", script] + list(arguments), cwd=folder,
                               input=stdin, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                               timeout=120)
    return Run(completed.returncode, completed.stdout, completed.stderr.decode("utf-8"))


class DefaultInputTests(unittest.TestCase):
    """The shipped example stands in for an input not given only when every file given is
    the example's own and the working folder holds none of init's files: a command that lost
    its options never decides on the example in place of a team's benchmark, nor judges the
    team's files against the example's (cli.missing_input, exit 2, naming the command to
    run). An empty folder still gets the example's PASS
    (CommandLineTests.test_scenarios_exit_codes_from_another_directory)."""

    ONCE_PER_INTERPRETER = "child processes only, in plain mode"

    def team_folder(self):
        """A folder holding a new benchmark, written by the real ``init``."""
        folder = TempDir(self).path
        self.assertEqual(gate_in(folder, ["init"]).status, 0)
        self.assertEqual(sorted(os.listdir(folder)), [
            "benchmark_cases.json", "benchmark_results.json", "benchmark_spec.json"])
        return folder

    def assert_refused(self, run):
        """Exit 2 with one ASCII document holding exactly one error, about the command line
        (no file: not a contract error of the example's files); its command to run."""
        self.assertEqual(run.status, 2, run.stderr)
        run.stdout.decode("ascii")
        (error,) = run.document["errors"]
        self.assertEqual((error["code"], error["file"]), ("cli.missing_input", None))
        self.assertEqual(run.stderr.count("\nERROR"), 0, run.stderr)  # one stderr line
        return error["message"].split("Name every input: ", 1)[1]

    def assert_this_interpreter(self, word):
        """``word`` runs the interpreter that runs the suite: its name on the PATH, or its
        path (the suite's subprocesses run it, sys.executable)."""
        found = shutil.which(word) if os.sep not in word else word.strip('"')
        self.assertTrue(found and os.path.samefile(found, sys.executable), word)

    def run_pasted(self, command, folder):
        """``command`` as a person pastes it in ``folder`` (the interpreter being this one)."""
        words = shlex.split(command)
        self.assertEqual(words[1], "-B")
        self.assert_this_interpreter(words[0])
        return gate_in(folder, words[3:], script=words[2])

    def test_no_argument_in_a_folder_init_wrote_is_refused_naming_its_files(self):
        folder = self.team_folder()
        command = self.assert_refused(gate_in(folder, []))
        interpreter, rest = command.split(" ", 1)
        self.assert_this_interpreter(interpreter)
        self.assertEqual(rest, "-B %s --spec benchmark_spec.json --cases "
                               "benchmark_cases.json --results benchmark_results.json" %
                         RUN_BENCHMARK)
        judged = self.run_pasted(command, folder)
        self.assertEqual((judged.status, judged.document["action"]), (1, "BLOCK"))
        self.assertEqual(judged.document["inputs"]["results"]["file"],
                         "benchmark_results.json")
        # plan shares the rule
        self.assertIn("plan --spec benchmark_spec.json", self.assert_refused(
            gate_in(folder, ["plan"])))

    def test_one_file_of_the_users_own_never_mixes_with_the_example(self):
        folder = self.team_folder()
        for given, added in ((["--results", "benchmark_results.json", "--format", "json"],
                              " --spec benchmark_spec.json --cases benchmark_cases.json"),
                             (["--spec", "benchmark_spec.json"],
                              " --cases benchmark_cases.json --results "
                              "benchmark_results.json")):
            with self.subTest(given=given):
                command = self.assert_refused(gate_in(folder, given))
                self.assertTrue(command.endswith(" ".join(given) + added), command)
                self.assertEqual(self.run_pasted(command, folder).status, 1)
        # From a folder holding none of init's files: the file given is not the example's.
        parent = os.path.dirname(folder)
        given = os.path.join(os.path.basename(folder), "benchmark_results.json")
        command = self.assert_refused(gate_in(parent, ["--results", given]))
        self.assertIn(" --spec %s " % os.path.join(os.path.basename(folder),
                                                  "benchmark_spec.json"), command)
        self.assertEqual(self.run_pasted(command, parent).document["action"], "BLOCK")
        # No file to suggest: the command says what to put in.
        alone = TempDir(self)
        with open(os.path.join(folder, "benchmark_spec.json"), "rb") as handle:
            alone.write_bytes("mine.json", handle.read())
        command = self.assert_refused(gate_in(alone.path, ["--spec", "mine.json"]))
        self.assertTrue(command.endswith(
            "--cases CASES.json --results RESULTS.json (CASES.json and RESULTS.json: your "
            "cases and results files)"), command)

    def test_the_seeds_commands_keep_their_decisions_from_examples_and_the_project(self):
        seed = [([], 0, "PASS"),
                (["--results", "benchmark_results_regression.json", "--candidate",
                  "candidate-regression"], 1, "BLOCK"),
                (["--spec", "benchmark_spec_protocol_mismatch.json"], 1, "INCOMPARABLE"),
                (["--cases", "benchmark_cases_contract_error.json"], 2, "CONTRACT_ERROR")]
        for folder, script, prefix in ((EXAMPLES, os.path.join(os.pardir, "run_benchmark.py"),
                                        ""), (ROOT, "run_benchmark.py", "examples")):
            for arguments, status, action in seed:
                arguments = [os.path.join(prefix, word) if word.endswith(".json") else word
                             for word in arguments]
                with self.subTest(folder=folder, arguments=arguments):
                    run = gate_in(folder, arguments, script=script)
                    self.assertEqual((run.status, run.document["action"]), (status, action),
                                     run.stderr)
                    if status == 2:
                        self.assertEqual(codes(run), [("cases.split_contamination",
                                                       "$.cases[6].family_id")])

    def test_standard_input_is_not_the_examples_file(self):
        with open(os.path.join(EXAMPLES, "benchmark_results_regression.json"), "rb") as handle:
            data = handle.read()
        self.assertIn("--results reads standard input", json.loads(gate_in(
            EXAMPLES, ["--results", "-"], stdin=data).stdout)["errors"][0]["message"])


if __name__ == "__main__":
    unittest.main()
