"""No report outlives its run: a run that ends without a decision replaces every report named
on its command line (and the ``--output`` document) by a report of that outcome, so that a
CI job publishing its reports after a failed gate can never publish an earlier decision."""

import json
import os
import unittest
import xml.etree.ElementTree as ElementTree
from unittest import mock

from proagents_bench.cli import gate_command, report_files
from proagents_bench.jsonio import atomic
from proagents_bench.reports import junit as report_junit
from proagents_bench.reports import markdown as report_markdown
from proagents_bench.render.nodecision import MAX_ERRORS, NoDecision
from proagents_bench.errors import ContractError
from tests.support import EXAMPLES, TempDir, run_cli
from tests.test_report_junit import schema_errors
from tests.test_reports import report_text

CONTRACT_ERROR_RUN = ["--cases", os.path.join(EXAMPLES, "benchmark_cases_contract_error.json")]


def _read(path):
    with open(path, "rb") as handle:
        return handle.read()


class StaleReportTests(unittest.TestCase):
    def setUp(self):
        self.folder = TempDir(self).path
        self.paths = {name: os.path.join(self.folder, name)
                      for name in ("report.html", "summary.md", "junit.xml", "decision.json")}
        self.options = ["--html", self.paths["report.html"],
                        "--markdown", self.paths["summary.md"],
                        "--junit-xml", self.paths["junit.xml"],
                        "--output", self.paths["decision.json"]]
        run = run_cli(self.options)  # an earlier PASS at every path
        self.assertEqual(run.status, 0)
        self.assertIn("PASS", report_text(self.paths["report.html"]))

    def assert_no_decision(self, action, *words):
        for name in ("report.html", "summary.md", "junit.xml"):
            text = report_text(self.paths[name])
            self.assertIn(action, text, name)
            self.assertNotIn("PASS", text, name)
            for word in words:
                self.assertIn(word, text, name)

    def test_a_contract_error_replaces_every_report_and_the_output(self):
        run = run_cli(CONTRACT_ERROR_RUN + self.options)
        self.assertEqual((run.status, run.stdout), (2, b""))
        self.assert_no_decision("CONTRACT_ERROR", "split contamination",
                                "benchmark_cases_contract_error.json:124:20")
        document = json.loads(_read(self.paths["decision.json"]))
        self.assertEqual(document["action"], "CONTRACT_ERROR")

    def test_a_mistyped_option_still_replaces_the_reports_it_names(self):
        run = run_cli(["--resluts", "x.json"] + self.options)
        self.assertEqual(run.status, 2)
        self.assert_no_decision("CONTRACT_ERROR", "unrecognized arguments")
        self.assertEqual(json.loads(_read(self.paths["decision.json"]))["action"],
                         "CONTRACT_ERROR")

    def test_a_report_path_error_replaces_the_other_reports_never_an_input(self):
        spec = os.path.join(EXAMPLES, "benchmark_spec.json")
        before = _read(spec)
        run = run_cli(self.options + ["--html", spec])  # the later --html wins
        self.assertEqual(run.status, 2)
        document = json.loads(_read(self.paths["decision.json"]))
        self.assertEqual(document["errors"][0]["code"], "cli.report_path")
        self.assertEqual(_read(spec), before)
        for name in ("summary.md", "junit.xml"):
            self.assertIn("CONTRACT_ERROR", report_text(self.paths[name]))
        # report.html was not named by this run: it is not this run's to replace.
        self.assertIn("PASS", report_text(self.paths["report.html"]))

    def test_an_internal_error_replaces_the_reports_and_removes_the_output(self):
        with mock.patch.object(gate_command.pipeline, "evaluate",
                               side_effect=RuntimeError("boom")):
            run = run_cli(self.options)
        self.assertEqual((run.status, run.stdout), (3, b""))
        self.assert_no_decision("INTERNAL_ERROR", "RuntimeError: boom")
        self.assertFalse(os.path.exists(self.paths["decision.json"]))

    def test_a_report_that_cannot_be_replaced_is_one_more_error(self):
        real = atomic.write_files_atomically

        def refuse_html(files, *section):
            files = list(files)
            if files[0][0] == self.paths["report.html"]:
                raise atomic.AtomicWriteError(files[0][0], "permission denied")
            return real(files, *section)

        with mock.patch.object(report_files, "write_files_atomically", side_effect=refuse_html):
            run = run_cli(CONTRACT_ERROR_RUN + self.options[:-2])
        self.assertEqual(run.status, 2)
        last = run.document["errors"][-1]
        self.assertEqual((last["code"], last["file"]),
                         ("cli.report_unwritable", self.paths["report.html"]))
        self.assertIn("an earlier run's, not this run's", last["message"])
        self.assertIn("CONTRACT_ERROR", report_text(self.paths["summary.md"]))

    def test_an_appended_summary_gets_the_outcome_appended(self):
        path = os.path.join(self.folder, "step_summary.md")
        with open(path, "wb") as handle:
            handle.write(b"# an earlier step\n")
        self.assertEqual(run_cli(CONTRACT_ERROR_RUN + ["--markdown-append", path]).status, 2)
        text = _read(path).decode("utf-8")
        self.assertTrue(text.startswith("# an earlier step\n"))
        self.assertIn("CONTRACT_ERROR: no decision", text)

    def test_without_the_rule_the_old_page_would_survive(self):
        # The rule's own check: with write_no_decision doing nothing, the PASS page stays.
        with mock.patch.object(report_files.Targets, "write_no_decision", return_value=[]):
            run_cli(CONTRACT_ERROR_RUN + self.options)
        self.assertIn("PASS", report_text(self.paths["report.html"]))


class NoDecisionReportTests(unittest.TestCase):
    def outcome(self, count):
        return NoDecision("CONTRACT_ERROR", 2, [
            ContractError("schema.type", "expected a string <&>", ("cases", index, "id"),
                          "cases.json", index + 1, 3) for index in range(count)], omitted=4)

    def test_junit_is_one_error_that_validates(self):
        root = ElementTree.fromstring(report_junit.render_no_decision(self.outcome(3)))
        self.assertEqual(schema_errors(root), [])
        self.assertEqual((root.get("tests"), root.get("failures"), root.get("errors")),
                         ("1", "0", "1"))
        (error,) = root.iter("error")
        self.assertEqual(error.get("type"), "CONTRACT_ERROR")
        self.assertIn("cases.json:1:3: $.cases[0].id: expected a string <&>",
                      error.get("message"))
        self.assertIn("4 more errors not shown", error.text)

    def test_every_list_is_cut_with_a_count(self):
        outcome = self.outcome(MAX_ERRORS + 5)
        text = report_markdown.render_no_decision(outcome).decode("utf-8")
        self.assertEqual(text.count("expected a string"), report_markdown.MAX_ERRORS)
        self.assertIn("%d more errors not shown" % (MAX_ERRORS + 5 - report_markdown.MAX_ERRORS
                                                    + 4), text)
        self.assertIn("\\<\\&\\>", text)  # markup from the inputs is escaped


if __name__ == "__main__":
    unittest.main()
