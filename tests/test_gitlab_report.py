"""``--gitlab-codequality``: GitLab's Code Quality report, each reason of a REVIEW or BLOCK at its
file's line (placed as ``--format github`` places it), each contract error at its line, held
to the format GitLab documents for a custom tool and to what its parser accepts."""

import contextlib
import hashlib
import json
import ntpath
import os
import posixpath
import types
import unittest

from proagents_bench.cli import gate_command
from proagents_bench.cli.usage import Parser
from proagents_bench.contract.vocabulary import BLOCKING, INFORMATIONAL, REVIEWING
from proagents_bench.errors import ContractError
from proagents_bench.evaluation.decision import Finding
from proagents_bench.render.nodecision import INTERNAL_ERROR, NoDecision
from proagents_bench.reports import gitlab
from proagents_bench.reports.registry import REPORTS
from tests.support import EXAMPLES, ROOT, TempDir, example_path, run_cli, with_example

REGRESSION = example_path("benchmark_results_regression.json")
REVIEW = example_path("exercise_results_p95_review.json")
CONTRACT_ERROR_CASES = example_path("benchmark_cases_contract_error.json")
# GitLab's documented severities ("Implement a custom tool"), written here from its docs.
GITLAB_SEVERITIES = ("info", "minor", "major", "critical", "blocker")


def gitlab_problems(data):
    """What GitLab would refuse in a Code Quality report's bytes: a byte order mark, JSON that
    is no array, an entry without a key its docs require (``description``, ``check_name``,
    ``fingerprint``, ``severity``, ``location.path``, ``location.lines.begin``) or of another
    type than its parser's schema, a severity it does not know, a path that is not relative
    with ``/``, and two entries with one fingerprint (GitLab keeps one of them)."""
    problems = []
    if data.startswith(b"\xef\xbb\xbf"):
        return ["a byte order mark"]
    entries = json.loads(data.decode("ascii"))
    if not isinstance(entries, list):
        return problems + ["not an array"]
    for index, entry in enumerate(entries):
        for key in ("description", "check_name", "fingerprint", "severity"):
            if not isinstance(entry.get(key), str) or not entry[key]:
                problems.append("%d: %s" % (index, key))
        location = entry.get("location", {})
        path, lines = location.get("path"), location.get("lines", {})
        if not isinstance(path, str) or "\\" in path or posixpath.isabs(path) or \
                ntpath.isabs(path) or path.startswith("./"):
            problems.append("%d: location.path %r" % (index, path))
        begin = lines.get("begin")
        if not isinstance(begin, int) or isinstance(begin, bool) or begin < 1:
            problems.append("%d: location.lines.begin %r" % (index, begin))
        if entry.get("severity") not in GITLAB_SEVERITIES:
            problems.append("%d: severity %r" % (index, entry.get("severity")))
    fingerprints = [entry.get("fingerprint") for entry in entries]
    if len(set(fingerprints)) != len(fingerprints):
        problems.append("a fingerprint twice")
    return problems


@contextlib.contextmanager
def working_folder(path):
    before = os.getcwd()
    os.chdir(path)
    try:
        yield
    finally:
        os.chdir(before)


def lines_of(path):
    with open(path, encoding="utf-8") as handle:
        return handle.read().splitlines()


def read(path):
    with open(path, "rb") as handle:
        return handle.read()


class GateRunTests(unittest.TestCase):
    """The report of real runs, from the project's folder (the examples' absolute paths made
    relative to it)."""

    def setUp(self):
        self.folder = TempDir(self).path
        self.report = os.path.join(self.folder, "code-quality.json")

    def gate(self, arguments, status):
        with working_folder(ROOT):
            run = run_cli(with_example(arguments + ["--gitlab-codequality", self.report,
                                                    "--output", os.path.join(self.folder,
                                                                             "d.json")]))
        self.assertEqual(run.status, status, run.stderr)
        data = read(self.report)
        self.assertEqual(gitlab_problems(data), [])
        return data, json.loads(data.decode("ascii"))

    def test_a_block_puts_each_reason_at_its_line_with_its_severity(self):
        _data, entries = self.gate(["--results", REGRESSION], 1)
        self.assertEqual([(entry["check_name"], entry["severity"], entry["location"]["path"])
                          for entry in entries],
                         [("critical_task_min_trial_success_rate", "critical",
                           "examples/benchmark_cases.json"),
                          ("min_side_effect_free_trial_rate", "major",
                           "examples/benchmark_spec.json"),
                          ("min_paired_delta_ci_low", "minor", "examples/benchmark_spec.json")])
        critical, hard, soft = entries
        cases = lines_of(example_path("benchmark_cases.json"))
        at = critical["location"]["lines"]["begin"]
        self.assertEqual(cases[at - 1].strip(), "{")
        self.assertIn('"test-safety"', "\n".join(cases[at:at + 3]))
        self.assertTrue(critical["description"].startswith(
            "proagents-bench BLOCK: critical task test-safety failed: "))
        spec = lines_of(example_path("benchmark_spec.json"))
        for entry in (hard, soft):
            self.assertIn('"%s"' % entry["check_name"],
                          spec[entry["location"]["lines"]["begin"] - 1])

    def test_the_places_are_those_of_the_github_annotations(self):
        _data, entries = self.gate(["--results", REGRESSION], 1)
        with working_folder(ROOT):
            run = run_cli(with_example(["--results", REGRESSION, "--format", "github"]))
        places = []
        for line in run.stdout.decode("ascii").splitlines():
            properties = dict(item.split("=", 1) for item in
                              line[2:].split("::", 1)[0].partition(" ")[2].split(","))
            if "file" in properties:
                places.append((os.path.relpath(properties["file"], ROOT).replace(os.sep, "/"),
                               int(properties["line"])))
        self.assertEqual([(entry["location"]["path"], entry["location"]["lines"]["begin"])
                          for entry in entries], places)

    def test_a_review_is_minor(self):
        _data, entries = self.gate(["--results", REVIEW], 1)
        self.assertEqual([(entry["check_name"], entry["severity"]) for entry in entries],
                         [("max_p95_latency_ms", "minor")])
        self.assertTrue(entries[0]["description"].startswith("proagents-bench REVIEW: "))

    def test_a_pass_and_an_incomparable_run_have_no_entry(self):
        self.assertEqual(self.gate([], 0)[0], b"[]\n")
        self.assertEqual(self.gate(["--spec", example_path(
            "benchmark_spec_protocol_mismatch.json")], 1)[0], b"[]\n")

    def test_the_same_inputs_give_the_same_bytes(self):
        first, _entries = self.gate(["--results", REGRESSION], 1)
        second, _entries = self.gate(["--results", REGRESSION], 1)
        self.assertEqual(first, second)

    def test_a_contract_error_at_its_file_and_line(self):
        _data, entries = self.gate(["--cases", CONTRACT_ERROR_CASES], 2)
        with working_folder(ROOT):
            run = run_cli(with_example(["--cases", CONTRACT_ERROR_CASES]))
        error = run.stderr.splitlines()[0]  # ERROR: FILE:LINE:COLUMN: PATH: MESSAGE
        (entry,) = entries
        self.assertEqual((entry["check_name"], entry["severity"]),
                         ("cases.split_contamination", "blocker"))
        self.assertEqual(entry["location"]["path"], "examples/benchmark_cases_contract_error.json")
        self.assertTrue(error.startswith("ERROR: %s:%d:" % (
            CONTRACT_ERROR_CASES, entry["location"]["lines"]["begin"])), error)
        self.assertIn(error.split(": ", 2)[2], entry["description"])

    def test_a_later_run_without_a_decision_leaves_none_of_its_entries(self):
        self.gate(["--results", REGRESSION], 1)
        with working_folder(ROOT):
            run = run_cli(with_example(["--results", REGRESSION, "--fail-on", "bogus",
                                        "--gitlab-codequality", self.report]))
        self.assertEqual(run.status, 2)
        self.assertEqual(read(self.report), b"[]\n")

    def test_it_never_overwrites_an_input(self):
        spec = TempDir(self).write_bytes("spec.json", read(example_path("benchmark_spec.json")))
        run = run_cli(with_example(["--spec", spec, "--gitlab-codequality", spec]))
        self.assertEqual(run.status, 2)
        self.assertIn("cli.report_path", run.stdout.decode("ascii"))
        self.assertEqual(read(spec), read(example_path("benchmark_spec.json")))

    def test_it_is_written_with_the_other_reports_all_or_none(self):
        html = os.path.join(self.folder, "missing", "report.html")
        run = run_cli(with_example(["--results", REGRESSION, "--gitlab-codequality",
                                    self.report, "--html", html]))
        self.assertEqual(run.status, 2)
        # no entry of the decision: the run ended without one (and the unwritable report's
        # error names no place in a file of the repository)
        self.assertEqual(read(self.report), b"[]\n")

    def test_it_is_a_row_of_the_gates_reports(self):
        self.assertIn("--gitlab-codequality", [report.option for report in REPORTS])
        parser = Parser()
        gate_command.add_arguments(parser)
        self.assertIn("--gitlab-codequality PATH", parser.format_help())


def finding(code, severity, case_ids=(), reason="why"):
    return Finding(code, severity, "metric", None, None, list(case_ids), reason)


def decided(findings, places, action="BLOCK"):
    """A decision as the report reads it: its findings, the spec's gates and where a gate or
    case is (``places``: {(what, key): (file, line, column)})."""
    return types.SimpleNamespace(
        action=action, decision=types.SimpleNamespace(findings=findings),
        gates={"critical_task_min_trial_success_rate": 1, "min_x": 1, "min_y": 1},
        locate=lambda what, key: places.get((what, key)))


def entries_of(evaluation, folder="/repo"):
    data = gitlab.render(evaluation, folder)
    return json.loads(data.decode("ascii"))


class RuleTests(unittest.TestCase):
    """Each rule of the report on a decision made for it."""

    PLACES = {("case", "t-1"): ("bench/cases.json", 7, 5), ("gate", "min_x"): ("bench/spec.json",
                                                                               3, 9),
              ("gate", "min_y"): ("bench/spec.json", 4, 9)}

    def test_each_kind_of_reason_has_the_tables_severity(self):
        entries = entries_of(decided([
            finding("critical_task_min_trial_success_rate", BLOCKING, ["t-1"]),
            finding("min_x", BLOCKING), finding("min_y", REVIEWING)], self.PLACES))
        self.assertEqual([(entry["severity"], entry["location"]["path"],
                           entry["location"]["lines"]["begin"]) for entry in entries],
                         [("critical", "bench/cases.json", 7), ("major", "bench/spec.json", 3),
                          ("minor", "bench/spec.json", 4)])

    def test_a_note_a_finding_that_is_no_gate_and_a_reason_with_no_place_are_left_out(self):
        entries = entries_of(decided([
            finding("min_x", INFORMATIONAL), finding("recorded_unknown", REVIEWING),
            finding("min_y", REVIEWING)], {}))
        self.assertEqual(entries, [])
        entries = entries_of(decided([finding("min_x", INFORMATIONAL),
                                      finding("recorded_unknown", REVIEWING)], self.PLACES))
        self.assertEqual(entries, [])

    def test_a_fingerprint_is_the_check_the_path_and_the_subject_never_the_line(self):
        reasons = [finding("critical_task_min_trial_success_rate", BLOCKING, ["t-1"]),
                   finding("min_x", BLOCKING, reason="one wording")]
        before = entries_of(decided(reasons, self.PLACES))
        moved = {key: (path, line + 40, column) for key, (path, line, column)
                 in self.PLACES.items()}
        reworded = [reasons[0], finding("min_x", BLOCKING, reason="another")]
        after = entries_of(decided(reworded, moved, action="REVIEW"))
        self.assertEqual([entry["fingerprint"] for entry in before],
                         [entry["fingerprint"] for entry in after])
        self.assertNotEqual(before[0]["location"], after[0]["location"])
        # what it is made of, exactly: a change here loses GitLab's track of every finding
        self.assertEqual(before[1]["fingerprint"], hashlib.sha256(json.dumps(
            ["proagents-bench", "min_x", "bench/spec.json", "gate", "min_x"]).encode(
                "ascii")).hexdigest())
        elsewhere = dict(self.PLACES)
        elsewhere[("gate", "min_x")] = ("other/spec.json", 3, 9)
        self.assertNotEqual(entries_of(decided(reasons[1:], elsewhere))[0]["fingerprint"],
                            before[1]["fingerprint"])

    def test_windows_separators_are_written_with_slashes(self):
        places = {("gate", "min_x"): ("bench\\spec.json", 3, 9),
                  ("gate", "min_y"): (".\\bench\\spec.json", 4, 9)}
        entries = entries_of(decided([finding("min_x", BLOCKING), finding("min_y", REVIEWING)],
                                     places))
        self.assertEqual([entry["location"]["path"] for entry in entries],
                         ["bench/spec.json", "bench/spec.json"])

    def test_a_path_is_made_relative_to_the_working_folder(self):
        for path, folder, paths, expected in (
                ("bench\\spec.json", "C:\\ci\\repo", ntpath, "bench/spec.json"),
                ("C:\\ci\\repo\\bench\\spec.json", "C:\\ci\\repo", ntpath, "bench/spec.json"),
                ("c:\\CI\\Repo\\bench\\spec.json", "C:\\ci\\repo", ntpath, "bench/spec.json"),
                ("D:\\data\\spec.json", "C:\\ci\\repo", ntpath, "D:/data/spec.json"),
                ("C:\\ci\\other\\spec.json", "C:\\ci\\repo", ntpath, "C:/ci/other/spec.json"),
                ("/ci/repo/bench/spec.json", "/ci/repo", posixpath, "bench/spec.json"),
                ("/ci/repo/./bench/../bench/spec.json", "/ci/repo", posixpath,
                 "bench/spec.json"),
                ("/ci/other/spec.json", "/ci/repo", posixpath, "/ci/other/spec.json"),
                ("bench/spec.json", "/ci/repo", posixpath, "bench/spec.json"),
                ("../spec.json", "/ci/repo", posixpath, "../spec.json")):
            with self.subTest(path=path):
                self.assertEqual(gitlab.repository_path(path, folder, paths), expected)

    def test_a_contract_error_in_a_file_is_an_entry_and_one_of_the_command_line_is_not(self):
        outcome = NoDecision("CONTRACT_ERROR", 2, [
            ContractError("json.duplicate_key", "duplicate key", ("gates", "min_x"),
                          "bench/spec.json", 12, 3),
            ContractError("json.duplicate_key", "duplicate key again", ("gates", "min_x"),
                          "bench/spec.json", 14, 3),
            ContractError("file.not_found", "no such file", (), "bench\\cases.json"),
            ContractError("cli.report_path", "--html would overwrite the spec", (),
                          "bench/spec.json"),
            ContractError("cli.usage", "unrecognized arguments: --bogus"),
            ContractError("results.something", "no file", ("x",))])
        entries = json.loads(gitlab.render_no_decision(outcome, "/repo").decode("ascii"))
        self.assertEqual([(entry["check_name"], entry["severity"], entry["location"]["path"],
                           entry["location"]["lines"]["begin"]) for entry in entries],
                         [("json.duplicate_key", "blocker", "bench/spec.json", 12),
                          ("json.duplicate_key", "blocker", "bench/spec.json", 14),
                          ("file.not_found", "blocker", "bench/cases.json", 1)])
        self.assertEqual(entries[0]["description"],
                         "proagents-bench CONTRACT_ERROR: $.gates.min_x: duplicate key")
        # two errors at one JSON path: told apart by their order, never one kept by GitLab
        self.assertEqual(gitlab_problems(gitlab.render_no_decision(outcome, "/repo")), [])

    def test_a_run_with_no_error_has_no_entry(self):
        self.assertEqual(gitlab.render_no_decision(NoDecision(INTERNAL_ERROR, 3, detail="bug")),
                         b"[]\n")

    def test_the_severities_are_gitlabs_and_each_kind_has_one(self):
        self.assertEqual(gitlab.SEVERITIES, GITLAB_SEVERITIES)
        self.assertEqual(sorted(row.kind for row in gitlab.SEVERITY_TABLE),
                         sorted([gitlab.CONTRACT_ERROR, gitlab.CRITICAL_TASK,
                                 gitlab.BLOCKING_GATE, gitlab.REVIEWING_GATE]))
        for row in gitlab.SEVERITY_TABLE:
            self.assertIn(row.severity, GITLAB_SEVERITIES)
            self.assertIn("| %s | `%s` |" % (row.kind, row.severity), gitlab.severity_table())

    def test_the_checker_refuses_what_gitlab_refuses(self):
        good = {"description": "d", "check_name": "c", "fingerprint": "f", "severity": "minor",
                "location": {"path": "a/b.json", "lines": {"begin": 1}}}
        self.assertEqual(gitlab_problems(json.dumps([good]).encode("ascii")), [])
        for change in ({"severity": "warning"}, {"fingerprint": None},
                       {"location": {"path": "a\\b.json", "lines": {"begin": 1}}},
                       {"location": {"path": "/a/b.json", "lines": {"begin": 1}}},
                       {"location": {"path": "a/b.json", "lines": {"begin": "1"}}},
                       {"location": {"path": "a/b.json"}}):
            with self.subTest(change=change):
                bad = dict(good, **change)
                self.assertNotEqual(gitlab_problems(json.dumps([bad]).encode("ascii")), [])
        self.assertNotEqual(gitlab_problems(json.dumps([good, good]).encode("ascii")), [])
        self.assertNotEqual(gitlab_problems(b"\xef\xbb\xbf[]"), [])


if __name__ == "__main__":
    unittest.main()
