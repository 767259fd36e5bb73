"""The release command: the manifest's contract, the release's priority across tiers, one
contract error stopping the whole release, each benchmark's decision byte for byte its solo
gate's (files and imports, forked or not), the release's fingerprint, its reports and its
document's shape."""

import hashlib
import json
import os
import re
import shutil
import unittest
import xml.etree.ElementTree as ElementTree
from unittest import mock

from proagents_bench.cli import parallel, release_command
from proagents_bench.contract import publish
from proagents_bench.contract.release import RELEASE_OUTPUT
from proagents_bench.contract.release import MAX_BENCHMARKS, manifest_errors
from proagents_bench.jsonio import load
from proagents_bench.render import release as render_release
from proagents_bench.reports.release_html import section_body
from proagents_bench.reports.release_junit import section_suites
from proagents_bench.reports import release_markdown
from proagents_bench.reports.release_markdown import section_text
from tests.schema_check import schema_errors
from tests.support import EXAMPLES, ROOT, TempDir, run_cli, run_subprocess

FIXTURES = os.path.join(ROOT, "tests", "importers", "fixtures")
EXAMPLE_FILES = ("benchmark_spec.json", "benchmark_cases.json", "benchmark_results_pass.json",
                 "benchmark_results_regression.json", "benchmark_spec_protocol_mismatch.json",
                 "exercise_results_p95_review.json", "benchmark_cases_contract_error.json",
                 "benchmark_spec_v2_family.json")
FIXTURE_FILES = ("test_only_spec.json", "test_only_baseline.eval", "test_only_candidate.eval",
                 "tau2_spec.json", "tau2_baseline.json", "tau2_candidate.json",
                 "tau2_mapping.json", "baseline.eval", "candidate.eval", "inspect_mapping.json")


def files_entry(name, tier, results="benchmark_results_pass.json",
                spec="benchmark_spec.json", cases="benchmark_cases.json", **more):
    return dict(name=name, tier=tier, spec=spec, cases=cases, results=results, **more)


def inspect_entry(name="orders-inspect", tier="critical"):
    return {"name": name, "tier": tier, "spec": "logs/test_only_spec.json",
            "import": {"baseline": "logs/test_only_baseline.eval",
                       "candidate": "logs/test_only_candidate.eval",
                       "baseline_id": "baseline-v1", "candidate_id": "candidate-v2"}}


def inspect_with_cases_entry(name="orders-inspect-cases", tier="supporting"):
    return {"name": name, "tier": tier, "spec": "benchmark_spec.json",
            "cases": "benchmark_cases.json",
            "import": {"baseline": "logs/baseline.eval", "candidate": "logs/candidate.eval",
                       "mapping": "logs/inspect_mapping.json", "baseline_id": "baseline-v1",
                       "candidate_id": "candidate-v2"}}


def tau2_entry(name="tau2-retail", tier="supporting"):
    return {"name": name, "tier": tier, "spec": "logs/tau2_spec.json",
            "import": {"baseline": "logs/tau2_baseline.json",
                       "candidate": "logs/tau2_candidate.json",
                       "mapping": "logs/tau2_mapping.json"}}


class Workspace:
    """A folder holding copies of the example files, the import fixtures under ``logs/``,
    and the manifests the tests write."""

    def __init__(self, test):
        self.path = TempDir(test).path
        for name in EXAMPLE_FILES:
            shutil.copy(os.path.join(EXAMPLES, name), self.path)
        os.mkdir(os.path.join(self.path, "logs"))
        for name in FIXTURE_FILES:
            shutil.copy(os.path.join(FIXTURES, name), os.path.join(self.path, "logs"))

    def file(self, name):
        return os.path.join(self.path, name)

    def manifest(self, benchmarks, name="release.json", level=0.05, release_id="r-1"):
        value = {"schema_version": "proagents-bench-release-v1", "release_id": release_id,
                 "family_wise_level": level, "benchmarks": benchmarks}
        path = self.file(name)
        with open(path, "w", encoding="utf-8") as handle:
            json.dump(value, handle, indent=2)
        return path

    def release(self, benchmarks, *arguments, **more):
        return run_cli(["release", "--manifest", self.manifest(benchmarks, **more)]
                       + list(arguments))


def read(path):
    with open(path, "rb") as handle:
        return handle.read()


def solo_bytes(decision):
    """A decision as the gate writes a document."""
    return (json.dumps(decision, ensure_ascii=True, sort_keys=True, indent=2) + "\n").encode(
        "ascii")


class ManifestContractTests(unittest.TestCase):
    def test_a_release_holds_at_most_max_benchmarks_and_the_contract_table_says_so(self):
        manifest = load.load_file(os.path.join(EXAMPLES, "release_manifest.json")).value
        one = manifest["benchmarks"][0]
        manifest["benchmarks"] = [dict(one, name="b%d" % index)
                                  for index in range(MAX_BENCHMARKS + 1)]
        self.assertEqual([(error.code, error.path) for error in manifest_errors(manifest)],
                         [("schema.too_many_items", ("benchmarks",))])
        manifest["benchmarks"].pop()
        self.assertEqual(manifest_errors(manifest), [])
        with open(os.path.join(ROOT, "docs", "contract.md"), "rb") as handle:
            table = handle.read().decode("utf-8").split("### Release file:")[1]
        self.assertIn("| `benchmarks` | non-empty array of Benchmark object, at most %d items |"
                      % MAX_BENCHMARKS, table)

    def test_the_shipped_manifest_is_valid_and_fits_its_schema(self):
        path = os.path.join(EXAMPLES, "release_manifest.json")
        self.assertEqual(manifest_errors(load.load_file(path).value), [])
        with open(path, "rb") as handle:
            value = json.loads(handle.read().decode("utf-8"))
        generated = publish.schema("release")
        self.assertEqual(schema_errors(value, generated, generated), [])

    def test_every_rule_is_an_error_at_its_path_line_and_column(self):
        space = Workspace(self)
        good = files_entry("a", "critical")
        cases = [
            ([dict(good, spec="sub\\benchmark_spec.json")], "release.path",
             "$.benchmarks[0].spec"),
            ([dict(good, results="/abs/results.json")], "release.path",
             "$.benchmarks[0].results"),
            ([dict(good, cases="C:/cases.json")], "release.path", "$.benchmarks[0].cases"),
            # A drive letter further in (Windows joins it as a drive), an NTFS stream, a NUL
            # (no file anywhere), a trailing slash (a folder, read as its file).
            ([dict(good, cases="a/C:/cases.json")], "release.path", "$.benchmarks[0].cases"),
            ([dict(good, cases="cases.json:stream")], "release.path",
             "$.benchmarks[0].cases"),
            ([dict(good, spec="bench\u0000mark_spec.json")], "release.path",
             "$.benchmarks[0].spec"),
            ([dict(good, results="results.json/")], "release.path",
             "$.benchmarks[0].results"),
            ([dict(inspect_entry(), **{"import": dict(inspect_entry()["import"],
                                                       train_logs=["a\\b.eval"])})],
             "release.path", "$.benchmarks[0].import.train_logs[0]"),
            ([dict(good, **{"import": inspect_entry()["import"]})], "release.evidence",
             "$.benchmarks[0].import"),
            ([{"name": "a", "tier": "critical", "spec": "benchmark_spec.json",
               "cases": "benchmark_cases.json"}], "release.evidence",
             "$.benchmarks[0].results"),
            ([{"name": "a", "tier": "critical", "spec": "benchmark_spec.json",
               "results": "benchmark_results_pass.json"}], "release.cases",
             "$.benchmarks[0].cases"),
            ([dict(inspect_entry(), cases="benchmark_cases.json",
                   **{"import": dict(inspect_entry()["import"], train_logs=["x.eval"])})],
             "release.cases", "$.benchmarks[0].import.train_logs"),
            ([good, files_entry("a", "info")], "release.duplicate_name",
             "$.benchmarks[1].name"),
            ([good, files_entry("A", "info")], "release.duplicate_name",
             "$.benchmarks[1].name"),
            ([files_entry("a", "info"), files_entry("b", "info")],
             "release.no_deciding_benchmark", "$.benchmarks"),
            ([dict(good, tier="blocking")], "schema.enum", "$.benchmarks[0].tier"),
            ([dict(good, name="no spaces")], "schema.pattern", "$.benchmarks[0].name"),
            ([dict(good, weight=2)], "schema.unknown_key", "$.benchmarks[0].weight"),
            ([], "schema.too_few_items", "$.benchmarks"),
        ]
        for benchmarks, code, path in cases:
            with self.subTest(code=code, path=path):
                run = space.release(benchmarks)
                self.assertEqual(run.status, 2, run.stderr)
                errors = run.document["errors"]
                self.assertEqual([(error["code"], error["path"]) for error in errors],
                                 [(code, path)])
                error = errors[0]
                self.assertEqual(error["file"], space.file("release.json"))
                text = read(space.file("release.json")).decode("utf-8")
                self.assertIsNotNone(error["line"])
                self.assertTrue(1 <= error["line"] <= text.count("\n") + 1)
                self.assertIn("ERROR: %s:%d:%d: %s: " % (error["file"], error["line"],
                                                         error["column"], path), run.stderr)
        run = space.release([good], level=0.6)
        self.assertEqual(run.document["errors"][0]["code"], "schema.range")

    def test_an_error_is_placed_at_the_line_and_column_of_the_value(self):
        space = Workspace(self)
        path = space.file("placed.json")
        with open(path, "w", encoding="utf-8") as handle:
            handle.write('{"schema_version": "proagents-bench-release-v1",\n'
                         ' "release_id": "r", "family_wise_level": 0.05,\n'
                         ' "benchmarks": [\n'
                         '  {"name": "a", "tier": "critical", "spec": "x\\\\spec.json",\n'
                         '   "cases": "c.json", "results": "r.json"}]}\n')
        run = run_cli(["release", "--manifest", path])
        error = run.document["errors"][0]
        self.assertEqual((error["code"], error["line"], error["column"]),
                         ("release.path", 4, 45))

    def test_a_file_of_another_kind_says_where_it_belongs(self):
        spec = os.path.join(EXAMPLES, "benchmark_spec.json")
        run = run_cli(["release", "--manifest", spec])
        self.assertEqual(run.status, 2)
        self.assertIn("this is a spec file: pass it as --spec", run.document["errors"][0][
            "message"])
        manifest = os.path.join(EXAMPLES, "release_manifest.json")
        run = run_cli(["--spec", manifest])
        self.assertIn("pass it as --manifest to the release command",
                      run.document["errors"][0]["message"])

    def test_json_errors_of_the_manifest_are_contract_errors(self):
        space = Workspace(self)
        path = space.file("dup.json")
        with open(path, "wb") as handle:
            handle.write(b'{"schema_version": "proagents-bench-release-v1",\n'
                         b' "release_id": "r", "release_id": "s"}')
        run = run_cli(["release", "--manifest", path])
        self.assertEqual((run.status, run.document["errors"][0]["code"],
                          run.document["errors"][0]["line"]), (2, "json.duplicate_key", 2))
        run = run_cli(["release", "--manifest", space.file("missing.json")])
        self.assertEqual((run.status, run.document["errors"][0]["code"]),
                         (2, "file.unreadable"))

    def test_command_line_errors(self):
        for arguments in (["--jobs", "-1"], ["--manifest", ""], ["--manifest", "-"],
                          ["--manifests", "x"], ["--fail-on", "sometimes"]):
            with self.subTest(arguments=arguments):
                run = run_cli(["release"] + arguments)
                self.assertEqual((run.status, run.document["errors"][0]["code"]),
                                 (2, "cli.usage"))


class PriorityTests(unittest.TestCase):
    def decide(self, benchmarks, *arguments):
        run = Workspace(self).release(benchmarks, *arguments)
        self.assertIn(run.status, (0, 1), run.stderr)
        return run

    def test_every_benchmark_passing_passes(self):
        run = self.decide([files_entry("a", "critical"), files_entry("b", "supporting"),
                           files_entry("c", "info", "benchmark_results_regression.json",
                                       candidate="candidate-regression")])
        document = run.document
        self.assertEqual((run.status, document["action"]), (0, "PASS"))
        self.assertEqual([(row["action"], row["tier_effect"]) for row in
                          document["benchmarks"]],
                         [("PASS", "PASS"), ("PASS", "PASS"), ("BLOCK", "PASS")])
        self.assertTrue(document["notes"][0].startswith('info benchmark "c" is BLOCK '
                                                        '(reported only): critical task'))
        self.assertEqual(document["primary_reason"], document["reasons"][0])

    def test_a_supporting_failure_asks_for_review(self):
        run = self.decide([files_entry("a", "critical"),
                           files_entry("b", "supporting", "benchmark_results_regression.json",
                                       candidate="candidate-regression")])
        self.assertEqual((run.status, run.document["action"]), (1, "REVIEW"))
        self.assertTrue(run.document["primary_reason"].startswith(
            'supporting benchmark "b" is BLOCK (a supporting benchmark\'s failure asks for '
            'review): critical task test-safety failed'))

    def test_a_critical_review_asks_for_review(self):
        run = self.decide([files_entry("a", "critical", "exercise_results_p95_review.json")])
        self.assertEqual((run.document["action"], run.document["benchmarks"][0]["tier_effect"]),
                         ("REVIEW", "REVIEW"))

    def test_the_priority_incomparable_then_block_then_review(self):
        benchmarks = [
            files_entry("review", "supporting", "exercise_results_p95_review.json"),
            files_entry("block", "critical", "benchmark_results_regression.json"),
            files_entry("incomparable", "critical",
                        spec="benchmark_spec_protocol_mismatch.json"),
        ]
        run = self.decide(benchmarks)
        self.assertEqual((run.status, run.document["action"]), (1, "INCOMPARABLE"))
        self.assertEqual([reason.split(":")[0] for reason in run.document["reasons"]], [
            'critical benchmark "incomparable" is INCOMPARABLE',
            'critical benchmark "block" is BLOCK',
            'supporting benchmark "review" is REVIEW (a supporting benchmark\'s failure asks '
            'for review)'])
        run = self.decide(benchmarks[:2])
        self.assertEqual(run.document["action"], "BLOCK")
        self.assertEqual(len(run.document["reasons"]), 2)
        run = self.decide(benchmarks[:2], "--fail-on", "review", "--distinct-exit-codes")
        self.assertEqual((run.status, run.document["action"]), (0, "BLOCK"))
        self.assertIn("BLOCK does not fail this run", run.stderr)
        run = Workspace(self).release(benchmarks[:2], "--distinct-exit-codes")
        self.assertEqual((run.status, run.document["action"]), (11, "BLOCK"))

    def test_an_incomparable_benchmark_is_not_tested_for_multiplicity(self):
        run = self.decide([files_entry("a", "critical"),
                           files_entry("b", "info", spec="benchmark_spec_protocol_mismatch.json")])
        multiplicity = run.document["multiplicity"]
        self.assertEqual(multiplicity["hypothesis_count"], 2)
        self.assertEqual([row["result"] for row in multiplicity["benchmarks"]],
                         ["none", "not_tested"])
        self.assertEqual(run.document["action"], "PASS")


    def test_the_tests_count_the_units_the_spec_resamples(self):
        run = self.decide([files_entry("tasks", "critical"),
                           files_entry("families", "critical",
                                       spec="benchmark_spec_v2_family.json")])
        rows = run.document["multiplicity"]["benchmarks"]
        self.assertEqual([(row["unit"], row["gains"], row["losses"]) for row in rows],
                         [("task", 2, 0), ("family", 2, 0)])
        self.assertEqual(rows[0]["improvement"]["method"], "mcnemar")
        self.assertEqual(rows[0]["improvement"]["p_value"], 0.25)
        self.assertEqual(rows[0]["improvement"]["adjusted_p_value"], 1.0)  # 4 x 0.25


class ContractErrorTests(unittest.TestCase):
    def test_one_benchmark_with_contract_errors_stops_the_whole_release(self):
        space = Workspace(self)
        benchmarks = [files_entry("a", "critical"),
                      files_entry("b", "supporting", cases="benchmark_cases_contract_error.json"),
                      dict(files_entry("c", "info"), spec="missing_spec.json")]
        report = space.file("report.html")
        with open(report, "w") as handle:
            handle.write("an earlier decision")
        run = space.release(benchmarks, "--html", report)
        self.assertEqual(run.status, 2)
        errors = run.document["errors"]
        first = errors[0]
        self.assertEqual((first["code"], first["path"], first["file"]),
                         ("release.benchmark_contract_error", "$.benchmarks[1]",
                          space.file("release.json")))
        self.assertIn('benchmark "b" (supporting) has 1 contract error', first["message"])
        text = read(space.file("release.json")).decode("utf-8").splitlines()
        self.assertIn('"name": "b"', text[first["line"]])  # the entry's object starts there
        solo = run_cli(["--spec", space.file("benchmark_spec.json"), "--cases",
                        space.file("benchmark_cases_contract_error.json"), "--results",
                        space.file("benchmark_results_pass.json")])
        self.assertEqual(errors[1:2], solo.document["errors"])
        self.assertEqual((errors[2]["code"], errors[2]["path"]),
                         ("release.benchmark_contract_error", "$.benchmarks[2]"))
        self.assertEqual((errors[3]["code"], errors[3]["file"]),
                         ("file.unreadable", space.file("missing_spec.json")))
        self.assertIn(b"CONTRACT_ERROR", read(report))  # no stale decision left there

    def test_an_import_error_names_its_benchmark(self):
        space = Workspace(self)
        broken = tau2_entry()
        broken["import"]["candidate"] = "logs/nothing.json"
        run = space.release([files_entry("a", "critical"), broken])
        self.assertEqual(run.status, 2)
        self.assertEqual([error["code"] for error in run.document["errors"]],
                         ["release.benchmark_contract_error", "import.unreadable"])

    def test_a_report_may_not_overwrite_any_benchmarks_input(self):
        space = Workspace(self)
        run = space.release([files_entry("a", "critical"), tau2_entry()], "--junit-xml",
                            space.file("logs/tau2_mapping.json"))
        self.assertEqual(run.status, 2)
        self.assertEqual(run.document["errors"][0]["code"], "cli.report_path")
        self.assertIn("mapping of benchmark \"tau2-retail\"",
                      run.document["errors"][0]["message"])
        with open(space.file("logs/tau2_mapping.json"), "rb") as handle:
            self.assertTrue(handle.read().startswith(b"{"))


def timeless(xml):
    """A JUnit report's text with every ``time`` the same (a run's own, measured)."""
    return re.sub(r' time="[0-9.]+"', ' time="T"', xml)


class SoloIdentityTests(unittest.TestCase):
    """Each benchmark's decision inside the release is, byte for byte, what its gate alone
    writes on the same files (an imported one: on the files ``import`` writes)."""

    def test_files_and_imports_against_solo_runs(self):
        space = Workspace(self)
        space.manifest([files_entry("example", "critical"), inspect_entry(),
                        inspect_with_cases_entry(), tau2_entry()])
        release = run_subprocess(["release", "--manifest", "release.json"], cwd=space.path)
        self.assertEqual(release.status, 1, release.stderr)
        document = release.document
        solo = {}
        solo["example"] = ["--spec", "benchmark_spec.json", "--cases", "benchmark_cases.json",
                           "--results", "benchmark_results_pass.json"]
        logs = os.path.join("logs", "")
        imports = {
            "orders-inspect": (["--baseline", logs + "test_only_baseline.eval", "--candidate",
                                logs + "test_only_candidate.eval", "--baseline-id",
                                "baseline-v1", "--candidate-id", "candidate-v2",
                                "--write-cases", "orders-inspect.cases.json"],
                               logs + "test_only_spec.json", "orders-inspect.cases.json"),
            "orders-inspect-cases": (["--baseline", logs + "baseline.eval", "--candidate",
                                      logs + "candidate.eval", "--mapping",
                                      logs + "inspect_mapping.json", "--cases",
                                      "benchmark_cases.json", "--baseline-id", "baseline-v1",
                                      "--candidate-id", "candidate-v2"],
                                     "benchmark_spec.json", "benchmark_cases.json"),
            "tau2-retail": (["--baseline", logs + "tau2_baseline.json", "--candidate",
                             logs + "tau2_candidate.json", "--mapping",
                             logs + "tau2_mapping.json", "--write-cases",
                             "tau2-retail.cases.json"], logs + "tau2_spec.json",
                            "tau2-retail.cases.json"),
        }
        for name, (arguments, spec, cases) in imports.items():
            imported = run_subprocess(["import"] + arguments + [
                "--output", "%s.results.json" % name], cwd=space.path)
            self.assertEqual(imported.status, 0, imported.stderr)
            solo[name] = ["--spec", spec, "--cases", cases, "--results",
                          "%s.results.json" % name]
        self.assertEqual([row["name"] for row in document["benchmarks"]], list(solo))
        for row in document["benchmarks"]:
            gate = run_subprocess(solo[row["name"]], cwd=space.path)
            with self.subTest(benchmark=row["name"]):
                self.assertIn(gate.status, (0, 1))
                self.assertEqual(solo_bytes(row["decision"]), gate.stdout)
                # Spliced in as the very bytes, each line indented for its depth.
                self.assertIn(gate.stdout[:-1].replace(b"\n", b"\n      "), release.stdout)
                self.assertEqual(row["action"], gate.document["action"])
                self.assertEqual(row["evidence_fingerprint"],
                                 gate.document["evidence_fingerprint"])

    def test_forked_serial_and_in_process_releases_are_the_same_bytes(self):
        space = Workspace(self)
        benchmarks = [files_entry("a", "critical"), inspect_entry(), tau2_entry(),
                      files_entry("d", "info", "benchmark_results_regression.json")]
        forked = space.release(benchmarks)
        serial = space.release(benchmarks, "--jobs", "1")
        with mock.patch.object(release_command, "can_fork", return_value=False):
            here = space.release(benchmarks, "--jobs", "3")
        self.assertEqual(forked.status, 1)
        self.assertEqual(forked.stdout, serial.stdout)
        self.assertEqual(forked.stdout, here.stdout)

    def test_a_failed_child_is_replaced_by_deciding_here(self):
        space = Workspace(self)
        benchmarks = [files_entry("a", "critical"), files_entry("b", "supporting")]
        expected = space.release(benchmarks).stdout
        with mock.patch.object(release_command, "forked_map",
                               side_effect=lambda tasks, workers: [None, b"not a pickle"]):
            run = space.release(benchmarks)
        self.assertEqual(run.stdout, expected)

    def test_the_slow_writer_gives_the_same_bytes(self):
        # A release id that reads like the first decision's marker makes the fast writer
        # give way to the slow one: the same bytes.
        space = Workspace(self)
        benchmarks = [files_entry("a", "critical"), files_entry("b", "supporting")]
        marker_like = "\x00proagents-bench-decision-0\x00"
        fast = json.loads(space.release(benchmarks).stdout.decode("ascii"))
        run = space.release(benchmarks, release_id=marker_like)
        self.assertEqual(run.status, 0, run.stderr)
        self.assertEqual(run.document["release_id"], marker_like)
        self.assertEqual(solo_bytes(run.document), run.stdout)
        self.assertEqual(run.document["benchmarks"], fast["benchmarks"])


class FingerprintTests(unittest.TestCase):
    def test_the_fingerprint_is_jcs_of_the_manifest_and_the_benchmarks_fingerprints(self):
        space = Workspace(self)
        benchmarks = [files_entry("a", "critical"), files_entry("b", "supporting")]
        run = space.release(benchmarks)
        with open(space.file("release.json"), "rb") as handle:
            manifest = json.loads(handle.read().decode("utf-8"))
        fingerprints = [row["evidence_fingerprint"] for row in run.document["benchmarks"]]
        # RFC 8785 for this plain ASCII content: sorted keys, no whitespace; 0.05 as 0.05.
        text = json.dumps([manifest, fingerprints], sort_keys=True, separators=(",", ":"),
                          ensure_ascii=False)
        self.assertEqual(run.document["evidence_fingerprint"],
                         "sha256:" + hashlib.sha256(text.encode("utf-8")).hexdigest())
        other = space.release([files_entry("a", "critical"), files_entry("b", "info")])
        self.assertNotEqual(other.document["evidence_fingerprint"],
                            run.document["evidence_fingerprint"])


class ReportTests(unittest.TestCase):
    def test_the_size_of_the_release_is_counted_in_words(self):
        space = Workspace(self)
        for benchmarks, words in (([files_entry("one", "critical")], "(1 benchmark)"),
                                  ([files_entry("one", "critical"),
                                    files_entry("two", "info")], "(2 benchmarks)")):
            paths = {kind: space.file("size%d.%s" % (len(benchmarks), kind))
                     for kind in ("html", "md")}
            run = space.release(benchmarks, "--html", paths["html"], "--markdown", paths["md"])
            self.assertEqual(run.status, 0, run.stderr)
            for kind, path in paths.items():
                with self.subTest(kind=kind, count=len(benchmarks)):
                    # Markdown: its first line, the heading; HTML: its title.
                    head = read(path).decode("utf-8").split("</title>")[0].splitlines()
                    self.assertIn(words, head[0 if kind == "md" else -1])

    def test_each_report_has_a_row_per_benchmark_above_each_benchmarks_own_report(self):
        space = Workspace(self)
        benchmarks = [files_entry("example", "critical"),
                      files_entry("regression", "supporting",
                              "benchmark_results_regression.json")]
        paths = {kind: space.file("release." + kind) for kind in ("html", "md", "xml")}
        run = space.release(benchmarks, "--html", paths["html"], "--markdown", paths["md"],
                            "--junit-xml", paths["xml"])
        self.assertEqual(run.status, 1, run.stderr)
        pages = {kind: read(path) for kind, path in paths.items()}
        for entry in benchmarks:
            solo_paths = {kind: space.file("%s.%s" % (entry["name"], kind))
                          for kind in ("html", "md", "xml")}
            solo = run_cli(["--spec", space.file(entry["spec"]), "--cases",
                            space.file(entry["cases"]), "--results",
                            space.file(entry["results"]), "--html", solo_paths["html"],
                            "--markdown", solo_paths["md"], "--junit-xml", solo_paths["xml"]])
            self.assertIn(solo.status, (0, 1))
            solo_pages = {kind: read(path) for kind, path in solo_paths.items()}
            anchor = "benchmark-" + entry["name"]
            html = pages["html"].decode("utf-8")
            body = section_body(solo_pages["html"], anchor)
            self.assertIn(body, html)
            # The release's rows come first, then the benchmark's section.
            self.assertLess(html.index('<section id="benchmarks">'), html.index(body))
            self.assertIn('href="#%s"' % anchor, html)
            self.assertIn('id="%s"' % anchor, html)
            self.assertIn(section_text(solo_pages["md"]), pages["md"].decode("utf-8"))
            # The same suites but for their time: each run's own, measured as it ran.
            self.assertIn(timeless(section_suites(solo_pages["xml"], entry["name"])[4]),
                          timeless(pages["xml"].decode("utf-8")))
        ids = re.findall(r' id="([^"]*)"', pages["html"].decode("utf-8"))
        self.assertEqual(len(ids), len(set(ids)))
        markdown = pages["md"].decode("utf-8")
        self.assertLess(markdown.index("### Benchmarks"), markdown.index(
            "### Benchmark example (critical)"))
        root = ElementTree.fromstring(pages["xml"])
        suites = root.findall("testsuite")
        self.assertEqual(suites[0].get("name"), "release")
        self.assertEqual(int(root.get("tests")), sum(int(suite.get("tests")) for suite in suites))
        self.assertEqual(int(root.get("failures")),
                         sum(int(suite.get("failures")) for suite in suites))
        release_cases = {case.get("name"): case for case in suites[0].findall("testcase")}
        self.assertIsNone(release_cases["example"].find("failure"))
        self.assertIsNotNone(release_cases["regression"].find("failure"))
        self.assertTrue(any(suite.get("name") == "regression: tasks" for suite in suites))

    def test_the_text_mode_and_the_summary(self):
        space = Workspace(self)
        run = space.release([files_entry("a", "critical"), files_entry(
            "b", "supporting", "benchmark_results_regression.json")], "--format", "text",
            "--summary")
        self.assertEqual(run.status, 1)
        text = run.stdout.decode("ascii")
        self.assertIn("\nREVIEW  a supporting benchmark failed", text)
        self.assertTrue(text.rstrip().splitlines()[-1].startswith(" "), text)
        self.assertIn("Holm over 4 hypotheses at family-wise level 0.05", text)
        self.assertIn("proagents-bench release r-1: REVIEW: supporting benchmark", run.stderr)

    def test_a_markdown_summary_stays_within_githubs_limit(self):
        space = Workspace(self)
        benchmarks = [files_entry("b%d" % index, "critical") for index in range(3)]
        path = space.file("summary.md")
        limit = release_markdown.RESERVE_BYTES + 6000  # room for the release and one section
        with mock.patch.object(release_markdown, "MAX_BYTES", limit):
            run = space.release(benchmarks, "--markdown", path)
        self.assertEqual(run.status, 0, run.stderr)
        text = read(path).decode("utf-8")
        self.assertIn("### Benchmark b0 (critical)\n\n#### ", text)
        self.assertIn("### Benchmark b2 (critical)\n\n*Its section is not shown", text)
        self.assertLessEqual(len(text.encode("utf-8")), limit)


class DocumentTests(unittest.TestCase):
    def test_the_release_document_fits_its_declared_shape_and_schema(self):
        run = run_cli(["release"])
        document = json.loads(run.stdout.decode("ascii"))
        self.assertEqual(list(RELEASE_OUTPUT.iter_errors(document)), [])
        generated = publish.schema("release-decision")
        self.assertEqual(schema_errors(document, generated, generated), [])
        failed = run_cli(["release", "--manifest", os.path.join(EXAMPLES,
                                                                "benchmark_spec.json")])
        self.assertEqual(list(RELEASE_OUTPUT.iter_errors(failed.document)), [])

    def test_the_shipped_release_matches_its_golden_document(self):
        run = run_cli(["release"])
        self.assertEqual(run.status, 1, run.stderr)
        with open(os.path.join(ROOT, "tests", "golden", "release.json"), "rb") as handle:
            self.assertEqual(run.stdout, handle.read())


if __name__ == "__main__":
    unittest.main()


class ForkedMapTests(unittest.TestCase):
    """The release's forked children: each task's pieces come back whole, in order, read
    straight into one buffer of the length the child announced; a child that fails, or that
    writes other than it announced, gives None (its task is then done by the caller)."""

    def setUp(self):
        if not parallel.can_fork():
            self.skipTest("no fork on this platform")

    def test_every_task_comes_back_whole_and_in_order(self):
        tasks = [lambda size=size: [bytes([65 + size % 26]) * (size * 300000), b"|end"]
                 for size in range(5)]
        found = parallel.forked_map(tasks, 2)
        self.assertEqual([bytes(item) for item in found],
                         [bytes([65 + size % 26]) * (size * 300000) + b"|end"
                          for size in range(5)])

    def test_the_same_without_readv(self):
        # PyPy 3.9 has no os.readv: a read and a copy into the buffer give the same bytes.
        tasks = [lambda size=size: [bytes([97 + size]) * (size * 700000)] for size in range(3)]
        with mock.patch.object(parallel, "_READV", None):
            found = parallel.forked_map(tasks, 2)
        self.assertEqual([bytes(item) for item in found],
                         [bytes([97 + size]) * (size * 700000) for size in range(3)])

    def test_a_failed_child_gives_none(self):
        found = parallel.forked_map([lambda: [b"a"], lambda: [b"b" * (1 << 21), 1 // 0],
                                     lambda: [b"c"]], 3)
        self.assertEqual(found[0], bytearray(b"a"))
        self.assertIsNone(found[1])
        self.assertEqual(found[2], bytearray(b"c"))

    def read_all(self, written):
        read_end, write_end = os.pipe()
        os.write(write_end, written)
        os.close(write_end)
        state = parallel._Framed(0, None)
        try:
            while parallel._read_framed(read_end, state):
                pass
        finally:
            os.close(read_end)
        return state

    def test_a_child_that_writes_other_than_it_announced_is_not_used(self):
        state = self.read_all(parallel._LENGTH.pack(5) + b"hello")
        self.assertEqual((bytes(state.buffer), state.filled), (b"hello", 5))
        state = self.read_all(parallel._LENGTH.pack(10) + b"hello")  # fewer
        self.assertNotEqual(state.filled, len(state.buffer))
        state = self.read_all(parallel._LENGTH.pack(3) + b"hello")  # more
        self.assertIsNone(state.buffer)
        state = self.read_all(b"\x00\x00")  # not even its length
        self.assertIsNone(state.buffer)
