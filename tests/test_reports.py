"""The reports: HTML, Markdown and JUnit XML, and how the command line writes them.

Each report is parsed with the standard library (``html.parser``, ``xml.etree``) and checked
against the decision document it was built from: the decision, every failing task, the counts.
"""

import errno
import json
import os
import stat
import tempfile
import threading
import unittest
import xml.etree.ElementTree as ElementTree
from html.parser import HTMLParser
from unittest import mock

from proagents_bench import pipeline
from proagents_bench.cli import gate_command
from proagents_bench.jsonio import atomic
from proagents_bench.reports import html as report_html
from proagents_bench.reports import html_parts
from proagents_bench.reports import junit as report_junit
from proagents_bench.reports import markdown as report_markdown
from proagents_bench.reports.view import gate_states, task_rows
from proagents_bench.reports.words import clean
from devtools import synthetic
from tests.support import (EXAMPLES, TempDir, evaluate_arguments, evaluate_package, example_package,
                           run_cli, with_example)

VOID_ELEMENTS = {"meta", "br", "link", "img", "hr", "input", "wbr"}
SCENARIOS = {
    "PASS": [],
    "BLOCK": ["--results", os.path.join(EXAMPLES, "benchmark_results_regression.json")],
    "REVIEW": ["--results", os.path.join(EXAMPLES, "exercise_results_p95_review.json")],
    "INCOMPARABLE": ["--spec", os.path.join(EXAMPLES, "benchmark_spec_protocol_mismatch.json")],
}
HOSTILE = "<script>alert('x')</script>\x01|*_`$x$ & [link](http://example.invalid)"


def hostile_package(test):
    """The example package with a hostile test case id (control character, markup) and
    slice, the case failing for the candidate."""
    spec, cases, results = example_package()
    old = "test-cancel"
    for case in cases["cases"]:
        if case["id"] == old:
            case["id"] = HOSTILE
            case["slice"] = "<b>orders\x02</b>"
    for system in results["systems"]:
        for record in system["records"]:
            if record["case_id"] == old:
                record["case_id"] = HOSTILE
                if system["role"] == "candidate":
                    record["status"] = "timeout"
    return evaluate_package(test, spec, cases, results)


class _Page(HTMLParser):
    """Collects the text, the tags (with attributes) and checks that tags balance."""

    def __init__(self):
        HTMLParser.__init__(self, convert_charrefs=True)
        self.text = []
        self.tags = []
        self.open = []
        self.errors = []
        self.glue = False  # after a <wbr>: the next text continues the same word

    def handle_starttag(self, tag, attrs):
        self.tags.append((tag, dict(attrs)))
        if tag == "wbr":
            self.glue = True
        elif tag not in VOID_ELEMENTS:
            self.open.append(tag)

    def handle_startendtag(self, tag, attrs):
        self.tags.append((tag, dict(attrs)))

    def handle_endtag(self, tag):
        if not self.open or self.open[-1] != tag:
            self.errors.append("unexpected </%s> (open: %s)" % (tag, self.open[-3:]))
        else:
            self.open.pop()

    def handle_data(self, data):
        if not (self.open and self.open[-1] in ("style", "title")):
            if self.glue and self.text:
                self.text[-1] += data
            else:
                self.text.append(data)
        self.glue = False

    def classes(self, tag):
        return [attrs.get("class", "") for name, attrs in self.tags if name == tag]


def parse_html(data):
    page = _Page()
    page.feed(data.decode("utf-8"))
    page.close()
    page.joined = " ".join(" ".join(page.text).split())
    return page


def squeeze(text):
    return " ".join(text.split())


class HtmlReportTests(unittest.TestCase):
    def test_every_scenario_parses_and_holds_the_decision_and_failing_tasks(self):
        for action, args in SCENARIOS.items():
            with self.subTest(action=action):
                evaluation = evaluate_arguments(args)
                document = evaluation.document
                self.assertEqual(document["action"], action)
                page = parse_html(report_html.render(evaluation))
                self.assertEqual((page.errors, page.open), ([], []))
                first_text = [text.strip() for text in page.text if text.strip()]
                self.assertEqual(first_text[0], action)  # the decision comes first
                for reason in document["reasons"]:
                    self.assertIn(squeeze(reason), page.joined)
                for row in task_rows(document):
                    if row.candidate.misses_gate or row.baseline.misses_gate:
                        self.assertIn(row.case_id, page.joined)
                tags = {tag for tag, _attrs in page.tags}
                self.assertNotIn("script", tags)
                self.assertFalse([attrs for _tag, attrs in page.tags
                                  if "src" in attrs or "href" in attrs])
                self.assertIn("print", html_parts.STYLE)
                if document["comparable"]:
                    self.assertEqual(page.classes("svg").count("chart wide"), 4)
                    self.assertEqual(page.classes("svg").count("chart narrow"), 4)
                    self.assertIn("marker gate", page.classes("line"))
                    self.assertIn("band", page.classes("rect"))
                    self.assertIn("min_paired_delta_ci_low", page.joined)
                    self.assertIn("max_p95_latency_ms", page.joined)
                else:
                    self.assertNotIn("svg", tags)

    def test_failed_cells_name_their_checks_and_critical_tasks_are_marked(self):
        evaluation = evaluate_arguments(SCENARIOS["BLOCK"])
        page = parse_html(report_html.render(evaluation))
        self.assertIn("wrong final state", page.joined)
        self.assertIn("forbidden side effect", page.joined)
        self.assertIn("CRITICAL", page.joined)
        self.assertIn("critical", [attrs.get("class") for tag, attrs in page.tags if tag == "tr"])
        self.assertIn("\u2717 failed (hard)", page.joined)

    def test_everything_from_the_input_is_escaped(self):
        data = report_html.render(hostile_package(self))
        page = parse_html(data)
        self.assertEqual(page.errors, [])
        self.assertNotIn("script", {tag for tag, _attrs in page.tags})
        self.assertNotIn("b", {tag for tag, _attrs in page.tags})
        self.assertIn(HOSTILE.replace("\x01", ""), " ".join(page.text))
        self.assertNotIn(b"\x01", data)
        self.assertNotIn(b"\x02", data)


class JunitReportTests(unittest.TestCase):
    def assert_counts_match(self, evaluation):
        document = evaluation.document
        root = ElementTree.fromstring(report_junit.render(evaluation))
        self.assertEqual(root.tag, "testsuites")
        suites = root.findall("testsuite")
        cases = root.findall("testsuite/testcase")
        failures = root.findall("testsuite/testcase/failure")
        self.assertEqual(int(root.get("tests")), len(cases))
        self.assertEqual(int(root.get("failures")), len(failures))
        for suite in suites:
            self.assertEqual(int(suite.get("tests")), len(suite.findall("testcase")))
            self.assertEqual(int(suite.get("failures")), len(suite.findall("testcase/failure")))
        if not document["comparable"]:
            self.assertEqual((len(cases), len(failures)), (1, 1))
            return root
        rows = task_rows(document)
        failing = [row for row in rows if row.candidate.misses_gate]
        tasks = root.find("testsuite[@name='tasks']")
        self.assertEqual([(case.get("classname"), case.get("name"))
                          for case in tasks.findall("testcase")],
                         [(clean(row.slice), clean(row.case_id)) for row in rows])
        self.assertEqual(sorted(case.get("name") for case in tasks.findall("testcase")
                                if case.find("failure") is not None),
                         sorted(clean(row.case_id) for row in failing))
        # Every failure once, where it is judged: the critical gate per critical task (in
        # suite tasks), every other gate on the whole candidate (in suite gates).
        whole_candidate = set(gate_states(document)) - {"critical_task_min_trial_success_rate"}
        gates = root.find("testsuite[@name='gates']")
        self.assertEqual(sorted(case.get("name") for case in gates.findall("testcase")
                                if case.find("failure") is not None),
                         sorted(whole_candidate))
        self.assertEqual(int(root.get("failures")), len(failing) + len(whole_candidate))
        self.assertEqual(document["action"] == "PASS", not gate_states(document))
        self.assertEqual(root.get("failures") == "0", document["action"] == "PASS")
        return root

    def test_counts_match_the_decision_in_every_scenario(self):
        for action, args in SCENARIOS.items():
            with self.subTest(action=action):
                self.assert_counts_match(evaluate_arguments(args))

    def test_a_failure_names_the_failing_checks(self):
        root = self.assert_counts_match(evaluate_arguments(SCENARIOS["BLOCK"]))
        failure = root.find("testsuite[@name='tasks']/testcase[@name='test-safety']/failure")
        self.assertIn("final_state_correct (trials 1, 2, 3)", failure.get("message"))
        self.assertIn("critical gate", failure.get("type"))

    def test_control_characters_are_stripped(self):
        evaluation = hostile_package(self)
        data = report_junit.render(evaluation)
        self.assertNotIn(b"\x01", data)
        root = self.assert_counts_match(evaluation)
        names = [case.get("name") for case in root.iter("testcase")]
        self.assertIn(HOSTILE.replace("\x01", ""), names)
        self.assertIn("<b>orders</b>", [case.get("classname") for case in root.iter("testcase")])


class MarkdownReportTests(unittest.TestCase):
    def test_decision_reasons_metrics_and_failing_tasks(self):
        evaluation = evaluate_arguments(SCENARIOS["BLOCK"])
        text = report_markdown.render(evaluation).decode("utf-8")
        self.assertTrue(text.startswith("## \u26d4 BLOCK"))
        self.assertIn("### Reasons", text)
        self.assertIn("| Side-effect-free trial rate | 0.933333 | 0.8 |", text)
        self.assertIn("### Tasks the candidate fails (1)", text)
        self.assertIn("test-safety", text)

    def test_versions_and_ids_read_as_written_in_code_spans(self):
        text = report_markdown.render(evaluate_arguments(SCENARIOS["BLOCK"])).decode("utf-8")
        self.assertIn("Benchmark `order-agent-benchmark` `1.0.0`, dataset `orders-2026-07`.",
                      text)
        self.assertNotIn("1\\.0", text)
        self.assertEqual(report_markdown.code("a``b"), "```a``b```")

    def test_input_text_cannot_break_the_markup(self):
        text = report_markdown.render(hostile_package(self)).decode("utf-8")
        self.assertNotIn("<script>", text)
        self.assertNotIn("\x01", text)
        self.assertIn("\\<script\\>", text)
        for line in text.splitlines():
            if line.startswith("|"):  # every table row keeps its column count
                cells = line.replace("\\|", "").count("|")
                self.assertIn(cells, (5, 6), line)


class LargePackageTests(unittest.TestCase):
    """One package of 3,000 test tasks (and hostile, long ids), evaluated once."""

    @classmethod
    def setUpClass(cls):
        spec, cases, results = synthetic.make_package(3000, trial_count=2, samples=100,
                                                      baseline_skill=0.4, candidate_skill=0.5)
        long_id = "x" * 1000
        renamed = {}
        for index, case in enumerate(cases["cases"]):
            if case["split"] == "test" and index % 10 == 0:
                renamed[case["id"]] = long_id + case["id"]
                case["id"] = renamed[case["id"]]
                case["slice"] = "slice-%d-%s" % (index, "y" * 300)
        for system in results["systems"]:
            for record in system["records"]:
                record["case_id"] = renamed.get(record["case_id"], record["case_id"])
        with tempfile.TemporaryDirectory() as folder:
            paths = []
            for name, value in (("spec", spec), ("cases", cases), ("results", results)):
                paths.append(os.path.join(folder, name + ".json"))
                with open(paths[-1], "wb") as handle:
                    handle.write(json.dumps(value).encode("utf-8"))
            cls.evaluation = pipeline.evaluate([pipeline.InputFile(kind, path) for kind, path
                                                in zip(pipeline.KINDS, paths)])

    def test_markdown_stays_under_one_mebibyte_with_counts_of_what_is_cut(self):
        data = report_markdown.render(self.evaluation)
        self.assertLess(len(data), report_markdown.MAX_BYTES)
        self.assertLess(len(data), 200 * 1024)
        text = data.decode("utf-8")
        self.assertIn("more failing tasks not shown", text)
        self.assertIn("more slices not shown", text)

    def test_html_caps_the_grid_and_stays_reasonable(self):
        data = report_html.render(self.evaluation)
        self.assertLess(len(data), 2 * 1024 * 1024)
        page = parse_html(data)
        self.assertEqual(page.errors, [])
        self.assertIn("more tasks not shown (3000 tasks in all", page.joined)
        rows = [attrs for tag, attrs in page.tags if tag == "tr"]
        self.assertLessEqual(len(rows), report_html.MAX_GRID_ROWS + 40)

    def test_junit_lists_every_task(self):
        root = JunitReportTests.assert_counts_match(self, self.evaluation)
        self.assertEqual(len(root.findall("testsuite[@name='tasks']/testcase")), 3000)


class CommandLineReportTests(unittest.TestCase):
    def report_args(self, folder):
        return ["--html", os.path.join(folder, "report.html"),
                "--markdown", os.path.join(folder, "summary.md"),
                "--junit-xml", os.path.join(folder, "junit.xml")]

    def test_reports_are_written_beside_an_unchanged_document(self):
        folder = TempDir(self).path
        for action, args in SCENARIOS.items():
            with self.subTest(action=action):
                plain = run_cli(args)
                run = run_cli(args + self.report_args(folder))
                self.assertEqual((run.status, run.stdout, run.stderr),
                                 (plain.status, plain.stdout, plain.stderr))
                self.assertEqual(sorted(os.listdir(folder)),
                                 ["junit.xml", "report.html", "summary.md"])
                with open(os.path.join(folder, "report.html"), "rb") as handle:
                    self.assertIn(action.encode("ascii"), handle.read())

    def test_a_contract_error_replaces_older_reports(self):
        folder = TempDir(self).path
        run_cli(self.report_args(folder))
        missing = os.path.join(EXAMPLES, "exercise_results_missing_trial.json")
        run = run_cli(["--results", missing] + self.report_args(folder))
        self.assertEqual((run.status, run.document["action"]), (2, "CONTRACT_ERROR"))
        self.assertEqual(sorted(os.listdir(folder)), ["junit.xml", "report.html", "summary.md"])
        for name in os.listdir(folder):
            text = report_text(os.path.join(folder, name))
            self.assertIn("CONTRACT_ERROR", text)
            self.assertNotIn("PASS", text)
            self.assertIn("test-status", text)  # the error names the missing trial

    def test_an_unwritable_report_is_exit_2_and_the_others_say_so(self):
        folder = TempDir(self).path
        html = os.path.join(folder, "report.html")
        nowhere = os.path.join(folder, "missing-folder", "summary.md")
        run = run_cli(["--html", html, "--markdown", nowhere])
        self.assertEqual(run.status, 2)
        (error,) = run.document["errors"]
        self.assertEqual((error["code"], error["file"]), ("cli.report_unwritable", nowhere))
        self.assertIn("Markdown summary", error["message"])
        self.assertIn("its folder does not exist", error["message"])
        self.assertIn(nowhere, run.stderr)
        # No report of the decision; the HTML report says CONTRACT_ERROR and why.
        self.assertEqual(os.listdir(folder), ["report.html"])
        page = parse_html(_read(html))
        self.assertEqual(page.errors, [])
        self.assertIn("CONTRACT_ERROR", page.joined)
        self.assertIn("its folder does not exist", page.joined)
        run = run_cli(["--junit-xml", folder])
        self.assertEqual((run.status, run.document["errors"][0]["code"]),
                         (2, "cli.report_unwritable"))

    def test_a_report_may_not_overwrite_an_input_or_another_report(self):
        temp = TempDir(self)
        spec, cases, results = example_package()
        args = temp.package(spec, cases, results)
        before = _read(args[3])
        run = run_cli(args + ["--html", args[3]])
        self.assertEqual((run.status, run.document["errors"][0]["code"]), (2, "cli.report_path"))
        self.assertEqual(_read(args[3]), before)
        twice = os.path.join(temp.path, "same.txt")
        run = run_cli(args + ["--html", twice, "--markdown", twice])
        self.assertEqual((run.status, run.document["errors"][0]["code"]), (2, "cli.report_path"))
        # The file the first report names gets that report's CONTRACT_ERROR page.
        self.assertTrue(_read(twice).startswith(b"<!DOCTYPE html>"))
        self.assertIn(b"CONTRACT_ERROR", _read(twice))

    def test_a_rendering_bug_is_exit_3_and_every_report_says_so(self):
        folder = TempDir(self).path
        with mock.patch.object(report_junit, "_task_cases", side_effect=KeyError("boom")):
            run = run_cli(self.report_args(folder))
        self.assertEqual((run.status, run.stdout), (3, b""))
        self.assertEqual(sorted(os.listdir(folder)), ["junit.xml", "report.html", "summary.md"])
        for name in os.listdir(folder):
            text = report_text(os.path.join(folder, name))
            self.assertIn("INTERNAL_ERROR", text)
            self.assertIn("KeyError", text)

    def test_the_installed_command_without_examples_names_the_missing_file(self):
        temp = TempDir(self)
        defaults = [pipeline.InputFile(kind, os.path.join(temp.path, kind + ".json"),
                                       "examples/" + kind + ".json")
                    for kind in ("spec", "cases", "results")]
        with mock.patch.object(gate_command, "default_inputs", return_value=defaults):
            run = run_cli([])
        self.assertEqual(run.status, 2)
        self.assertEqual([error["code"] for error in run.document["errors"]],
                         ["cli.no_example"] * 3)
        self.assertIn("pass --spec FILE", run.stderr)


class AtomicWriteTests(unittest.TestCase):
    def test_replaces_a_file_keeping_its_mode_and_leaving_no_temporary_file(self):
        folder = TempDir(self).path
        path = os.path.join(folder, "report.html")
        with open(path, "wb") as handle:
            handle.write(b"old")
        os.chmod(path, 0o640)
        atomic.write_files_atomically([(path, b"new")])
        self.assertEqual(_read(path), b"new")
        self.assertEqual(os.listdir(folder), ["report.html"])
        if os.name == "posix":
            self.assertEqual(stat.S_IMODE(os.stat(path).st_mode), 0o640)

    @unittest.skipUnless(hasattr(os, "symlink") and os.name == "posix", "POSIX links")
    def test_a_symbolic_link_keeps_pointing_at_the_new_file(self):
        folder = TempDir(self).path
        target = os.path.join(folder, "target.md")
        link = os.path.join(folder, "link.md")
        with open(target, "wb") as handle:
            handle.write(b"old")
        os.symlink(target, link)
        atomic.write_files_atomically([(link, b"new")])
        self.assertTrue(os.path.islink(link))
        self.assertEqual(_read(target), b"new")

    def test_a_failed_write_removes_its_temporary_files(self):
        folder = TempDir(self).path
        first = os.path.join(folder, "first")
        with mock.patch.object(os, "fsync", side_effect=[None, OSError(28, "full")]):
            with self.assertRaises(atomic.AtomicWriteError) as caught:
                atomic.write_files_atomically([(first, b"1"), (os.path.join(folder, "2"),
                                                               b"2")])
        self.assertIn("no space left", caught.exception.reason)
        self.assertEqual(os.listdir(folder), [])

    def test_a_failed_rename_puts_every_replaced_file_back(self):
        folder = TempDir(self).path
        paths = [os.path.join(folder, name) for name in ("a.html", "b.md", "c.xml")]
        for path in paths[:2]:  # c.xml does not exist yet
            with open(path, "wb") as handle:
                handle.write(b"old " + path.encode())
        real_replace = os.replace
        calls = []

        def replace(source, destination):
            calls.append(destination)
            if len(calls) == 3:
                raise OSError(errno.ENOSPC, "full")
            return real_replace(source, destination)

        with mock.patch.object(os, "replace", side_effect=replace):
            with self.assertRaises(atomic.AtomicWriteError) as caught:
                atomic.write_files_atomically([(path, b"new") for path in paths])
        self.assertEqual(caught.exception.path, paths[2])
        self.assertEqual(caught.exception.replaced, [])
        self.assertEqual(sorted(os.listdir(folder)), ["a.html", "b.md"])
        for path in paths[:2]:
            self.assertEqual(_read(path), b"old " + path.encode())

    def test_a_name_as_long_as_the_file_system_allows_is_writable(self):
        folder = TempDir(self).path
        try:
            name_max = os.pathconf(folder, "PC_NAME_MAX")
        except (AttributeError, OSError, ValueError):
            name_max = 255
        path = os.path.join(folder, "r" * (name_max - 5) + ".html")
        atomic.write_files_atomically([(path, b"new")])
        self.assertEqual(_read(path), b"new")
        self.assertEqual(os.listdir(folder), [os.path.basename(path)])

    @unittest.skipUnless(os.path.exists("/dev/null") and hasattr(os, "mkfifo"),
                         "a device file and a FIFO")
    def test_a_device_or_a_fifo_is_written_into_a_folder_refused(self):
        folder = TempDir(self).path
        fifo, path = os.path.join(folder, "fifo"), os.path.join(folder, "report.html")
        os.mkfifo(fifo)
        received = []

        def read():
            with open(fifo, "rb") as stream:
                received.append(stream.read())

        reader = threading.Thread(target=read)
        reader.start()
        atomic.write_files_atomically([("/dev/null", b"x"), (fifo, b"doc"), (path, b"new")])
        reader.join(10)
        self.assertEqual((received, _read(path)), ([b"doc"], b"new"))
        self.assertEqual(stat.S_ISFIFO(os.stat(fifo).st_mode), True)  # never replaced
        with self.assertRaises(atomic.AtomicWriteError) as caught:
            atomic.write_files_atomically([(folder, b"x")])
        self.assertIn("folder", caught.exception.reason)
        run = run_cli(with_example(["--output", os.devnull, "--junit-xml", os.devnull]))
        self.assertEqual((run.status, run.stdout), (0, b""), run.stderr)


def _read(path):
    with open(path, "rb") as handle:
        return handle.read()


def report_text(path):
    """What a report at ``path`` says: an HTML page's text (not its stylesheet), else the
    file's text."""
    data = _read(path)
    if data.startswith(b"<!DOCTYPE html>"):
        page = parse_html(data)
        if page.errors or page.open:
            raise AssertionError("%s does not parse: %s" % (path, page.errors or page.open))
        return page.joined
    return data.decode("utf-8")


if __name__ == "__main__":
    unittest.main()
