"""``--format github``: the decision as GitHub Actions annotations, each reason on the line of
the file it concerns, the decision a notice; a contract error at its place."""

import os
import unittest

from proagents_bench.reports.github import annotation
from tests.support import EXAMPLES, example_path, run_cli, with_example

REGRESSION = example_path("benchmark_results_regression.json")


def lines_of(path):
    with open(path, encoding="utf-8") as handle:
        return handle.read().splitlines()


def properties(line):
    """{name: value} of one annotation's properties, and its level and message."""
    head, message = line[2:].split("::", 1)
    level, _, listed = head.partition(" ")
    return level, dict(item.split("=", 1) for item in listed.split(",")), message


class GithubFormatTests(unittest.TestCase):
    def test_each_reason_on_its_files_line_and_the_decision_a_notice(self):
        run = run_cli(with_example(["--results", REGRESSION, "--format", "github"]))
        self.assertEqual(run.status, 1)
        found = [properties(line) for line in run.stdout.decode("ascii").splitlines()]
        self.assertEqual([level for level, _props, _message in found],
                         ["error", "error", "warning", "notice"])
        (critical, hard, soft, decision) = found
        cases, spec = example_path("benchmark_cases.json"), example_path("benchmark_spec.json")
        # the failed critical task: its case's object in the cases file
        self.assertEqual(critical[1]["file"], cases.replace("\\", "/"))
        at = int(critical[1]["line"])
        self.assertEqual(lines_of(cases)[at - 1].strip(), "{")
        self.assertIn('"test-safety"', "\n".join(lines_of(cases)[at:at + 3]))
        self.assertTrue(critical[2].startswith("critical task test-safety failed: "))
        # a failed gate: its line in the spec
        for (level, props, message), key in ((hard, "min_side_effect_free_trial_rate"),
                                             (soft, "min_paired_delta_ci_low")):
            self.assertEqual(props["file"], spec.replace("\\", "/"))
            self.assertIn('"%s"' % key, lines_of(spec)[int(props["line"]) - 1])
            self.assertIn("gate %s failed" % key, message)
            self.assertEqual(props["title"], "proagents-bench BLOCK%3A " + key)
        self.assertEqual(decision[1], {"title": "proagents-bench BLOCK"})
        self.assertTrue(decision[2].startswith("BLOCK: critical task test-safety failed"))

    def test_a_pass_is_one_notice_and_an_incomparable_run_has_no_place(self):
        run = run_cli(with_example(["--format", "github"]))
        self.assertEqual((run.status, run.stdout.count(b"\n")), (0, 1))
        self.assertTrue(run.stdout.startswith(b"::notice title=proagents-bench PASS::PASS: "))
        run = run_cli(with_example(["--spec", os.path.join(
            EXAMPLES, "benchmark_spec_protocol_mismatch.json"), "--format", "github"]))
        levels = [properties(line)[0] for line in run.stdout.decode("ascii").splitlines()]
        self.assertEqual(levels[-1], "notice")
        self.assertTrue(set(levels[:-1]) == {"error"} and levels[:-1])

    def test_a_contract_error_at_its_file_line_and_column(self):
        run = run_cli(with_example(["--cases", example_path(
            "benchmark_cases_contract_error.json"), "--format", "github"]))
        self.assertEqual(run.status, 2)
        level, props, message = properties(run.stdout.decode("ascii").splitlines()[0])
        error = run.stderr.splitlines()[0]  # ERROR: FILE:LINE:COLUMN: PATH: MESSAGE
        self.assertEqual(level, "error")
        self.assertEqual(error, "ERROR: %s:%s:%s: %s" % (
            props["file"], props["line"], props["col"], message))
        self.assertEqual(props["title"], "proagents-bench CONTRACT_ERROR%3A "
                                         "cases.split_contamination")

    def test_values_are_escaped_as_workflow_commands_ask(self):
        self.assertEqual(annotation("error", "50% done\r\nnext", "a: b, c",
                                    ("dir\\f,1.json", 3, 4)),
                         "::error file=dir/f%2C1.json,line=3,col=4,title=a%3A b%2C c::"
                         "50%25 done%0D%0Anext")

    def test_only_the_gate_offers_it(self):
        self.assertEqual(run_cli(["health", "--format", "github"]).status, 2)


if __name__ == "__main__":
    unittest.main()
