"""The output contract: the documents, stderr lines, exit statuses, error cap, fingerprint."""

import hashlib
import io
import json
import os
import re
import unittest
from unittest import mock

from proagents_bench import cli, pipeline
from proagents_bench.jsonio import load as jsonload
from proagents_bench.jsonio.canonical import canonical_json, evidence_fingerprint
from tests.support import (ROOT, TempDir, codes, example_package, example_path, run_cli,
                           run_package, with_example)

DECISION_KEYS = {"action", "primary_reason", "reasons", "comparable", "evidence_fingerprint",
                 "benchmark_id", "benchmark_version", "dataset_version", "baseline_system",
                 "candidate_system", "baseline_metrics", "candidate_metrics", "comparison",
                 "limitations"}
METRIC_KEYS = {"task_count", "trial_count", "primary_task_success_rate",
               "final_state_trial_rate", "side_effect_free_trial_rate", "trial_stability_rate",
               "unknown_trial_count", "mean_latency_ms", "p95_latency_ms", "mean_cost_units",
               "slice_task_success_gap", "by_slice", "by_family", "critical_failures",
               "task_results", "trial_results"}
STDERR_LINE = re.compile(r"^ERROR: (.+):(\d+|\?):(\d+|\?): (\S+): (.+)$")


class DecisionDocumentTests(unittest.TestCase):
    def test_contract_keys_are_present(self):
        document = run_cli([]).document
        self.assertLessEqual(DECISION_KEYS, set(document))
        self.assertLessEqual(METRIC_KEYS, set(document["candidate_metrics"]))
        self.assertLessEqual({"paired_task_success_delta", "paired_bootstrap_interval",
                              "confidence", "samples", "seed", "protocol_mismatches"},
                             set(document["comparison"]))
        task = document["candidate_metrics"]["task_results"][0]
        self.assertEqual(set(task), {"case_id", "family_id", "slice", "critical",
                                     "trial_success_rate", "task_pass",
                                     "stable_across_trials"})
        trial = document["candidate_metrics"]["trial_results"][0]
        self.assertLessEqual({"case_id", "trial_id", "passed", "status", "checks"}, set(trial))
        self.assertEqual(set(trial["checks"]), {"status_success", "final_state_correct",
                                                "side_effects_safe", "tools_allowed"})
        self.assertEqual(document["harness"]["name"], "proagents-bench")
        self.assertEqual(document["limitations"], list(document["limitations"]))
        self.assertTrue(document["limitations"])

    def test_stdout_is_sorted_ascii_json(self):
        spec, cases, results = example_package()
        spec["claim"] = "Kandidat l\u00f6st \u2014 \U0001F4E6"
        run = run_package(self, spec, cases, results)
        run.stdout.decode("ascii")
        document = json.loads(run.stdout)
        self.assertEqual(run.stdout, (json.dumps(document, sort_keys=True, indent=2,
                                                 ensure_ascii=True) + "\n").encode("ascii"))

    def test_inputs_carry_raw_sha256_and_size(self):
        document = run_cli([]).document
        with open(example_path("benchmark_results_pass.json"), "rb") as handle:
            data = handle.read()
        self.assertEqual(document["inputs"]["results"], {
            "file": "examples/benchmark_results_pass.json",
            "sha256": hashlib.sha256(data).hexdigest(), "bytes": len(data)})

    def test_fingerprint_is_sha256_of_the_canonical_inputs_and_candidate(self):
        document = run_cli([]).document
        values = [jsonload.load_file(example_path(name)).value for name in (
            "benchmark_spec.json", "benchmark_cases.json", "benchmark_results_pass.json")]
        expected = "sha256:" + hashlib.sha256(canonical_json(values + ["candidate-pass"])
                                              ).hexdigest()
        self.assertEqual(document["evidence_fingerprint"], expected)
        self.assertEqual(evidence_fingerprint(*values, "candidate-pass"), expected)

    def test_fingerprint_ignores_formatting_but_not_content(self):
        spec, cases, results = example_package()
        temp = TempDir(self)
        first = run_cli(temp.package(spec, cases, results)).document["evidence_fingerprint"]
        compact = temp.write_bytes("compact.json", json.dumps(spec).encode("utf-8"))
        args = temp.package(spec, cases, results)
        args[1] = compact
        self.assertEqual(run_cli(args).document["evidence_fingerprint"], first)
        spec["$schema"] = "https://example.org/spec.schema.json"
        self.assertNotEqual(run_cli(temp.package(spec, cases, results)).document[
            "evidence_fingerprint"], first)


class ContractErrorOutputTests(unittest.TestCase):
    def test_error_objects_and_stderr_lines_agree(self):
        spec, cases, results = example_package()
        results["systems"][1]["records"][7]["latency_ms"] = "slow"
        args = TempDir(self).package(spec, cases, results)
        run = run_cli(args)
        self.assertEqual(run.status, 2)
        document = run.document
        self.assertEqual(document["action"], "CONTRACT_ERROR")
        (error,) = document["errors"]
        self.assertEqual(set(error), {"file", "path", "line", "column", "code", "message"})
        self.assertEqual(error["path"], "$.systems[1].records[7].latency_ms")
        self.assertEqual(error["file"], args[5])
        lines = run.stderr.splitlines()
        self.assertEqual(len(lines), 1)
        match = STDERR_LINE.match(lines[0])
        self.assertEqual(match.groups(), (error["file"], str(error["line"]),
                                          str(error["column"]), error["path"],
                                          error["message"]))
        with open(args[5], "rb") as handle:
            text = handle.read().decode("utf-8").splitlines()
        self.assertIn('"slow"', text[error["line"] - 1][error["column"] - 1:])

    def test_every_file_is_reported_in_one_run(self):
        spec, cases, results = example_package()
        del spec["claim"]
        cases["cases"][0]["split"] = "holdout"
        results["systems"][0]["records"][0]["status"] = "fine"
        run = run_package(self, spec, cases, results)
        self.assertEqual(codes(run), [("schema.missing_key", "$.claim"),
                                      ("schema.enum", "$.cases[0].split"),
                                      ("schema.enum", "$.systems[0].records[0].status")])

    def test_error_list_is_capped_with_a_count_of_the_rest(self):
        cap = pipeline.MAX_REPORTED_ERRORS
        for broken, shown, omitted in ((cap, cap, 0), (cap + 1, cap, 1)):
            with self.subTest(broken=broken):
                spec, cases, results = example_package()
                records = results["systems"][1]["records"]
                while len(records) < broken:
                    records.append(dict(records[0]))
                for record in records[:broken]:
                    record["status"] = "bad"
                run = run_package(self, spec, cases, results)
                self.assertEqual(len(run.document["errors"]), shown)
                self.assertEqual(run.document["omitted_error_count"], omitted)
                if omitted:
                    self.assertIn("1 more error not shown", run.stderr)

    def test_missing_file_is_exit_2_naming_it(self):
        missing = os.path.join(TempDir(self).path, "nowhere.json")
        run = run_cli(with_example(["--spec", missing]))
        self.assertEqual(run.status, 2)
        self.assertEqual(run.document["errors"][0]["file"], missing)
        self.assertEqual(run.document["errors"][0]["code"], "file.unreadable")
        self.assertIn(missing, run.stderr)

    def test_a_directory_is_exit_2(self):
        run = run_cli(with_example(["--cases", TempDir(self).path]))
        self.assertEqual(run.status, 2)
        self.assertEqual(run.document["errors"][0]["code"], "file.unreadable")


class ExitStatusTests(unittest.TestCase):
    def test_a_bug_is_exit_3_with_one_line_and_no_document(self):
        with mock.patch.object(pipeline, "evaluate", side_effect=ZeroDivisionError("boom")):
            run = run_cli([])
        self.assertEqual(run.status, 3)
        self.assertEqual(run.stdout, b"")
        self.assertEqual(len(run.stderr.splitlines()), 1)
        self.assertIn("INTERNAL ERROR", run.stderr)
        self.assertIn("report", run.stderr)
        self.assertNotIn("Traceback", run.stderr)

    def test_an_interrupt_is_130_and_never_a_decision(self):
        with mock.patch.object(pipeline, "evaluate", side_effect=KeyboardInterrupt):
            run = run_cli([])
        self.assertEqual((run.status, run.stdout, run.stderr), (130, b"", "interrupted\n"))

    def test_exit_1_only_for_a_real_decision(self):
        for name, action in (("benchmark_results_regression.json", "BLOCK"),
                             ("exercise_results_p95_review.json", "REVIEW")):
            run = run_cli(["--results", example_path(name)])
            self.assertEqual((run.status, run.document["action"]), (1, action))

    def test_stderr_survives_a_console_that_cannot_encode(self):
        stream = io.TextIOWrapper(io.BytesIO(), encoding="ascii", errors="strict")
        out = io.BytesIO()
        spec, cases, results = example_package()
        del spec["claim"]
        temp = TempDir(self)
        args = temp.package(spec, cases, results)
        args[1] = temp.write_json("sp\u00e9c.json", spec)
        status = cli.main(args, stdout=out, stderr=stream)
        self.assertEqual(status, 2)
        stream.flush()
        self.assertIn(b"sp\\xe9c.json", stream.buffer.getvalue())
        json.loads(out.getvalue().decode("ascii"))


class ReportPathTests(unittest.TestCase):
    ONCE_PER_INTERPRETER = "a child process only, in plain mode"

    @unittest.skipUnless(os.path.exists("/dev/stdout"), "needs /dev/stdout")
    def test_a_report_may_not_overwrite_the_redirected_stdout(self):
        import subprocess
        import sys

        from tests.support import RUN_BENCHMARK
        target = os.path.join(TempDir(self).path, "out.json")
        with open(target, "wb") as handle:
            status = subprocess.call([sys.executable, "-B", RUN_BENCHMARK, "--html",
                                      "/dev/stdout"], stdout=handle, stderr=subprocess.DEVNULL,
                                     stdin=subprocess.DEVNULL)
        self.assertEqual(status, 2)
        with open(target, "rb") as handle:
            document = json.loads(handle.read().decode("ascii"))
        self.assertEqual(document["errors"][0]["code"], "cli.report_path")


class DocumentationTests(unittest.TestCase):
    def test_every_field_of_the_contract_is_in_the_tables(self):
        from proagents_bench.contract.inputs import FILE_KINDS
        from proagents_bench.contract.publish import contract_tables
        from proagents_bench.contract.containers import object_shapes
        generated = contract_tables()
        for versions in FILE_KINDS.values():
            for root in versions.values():
                for shape in object_shapes(root, set()):
                    for field in shape.fields:
                        self.assertIn("| `%s` | %s |" % (field.key, field.shape.describe()),
                                      generated)

    def test_the_contract_docs_list_every_exit_status(self):
        from proagents_bench.cli.status import EXIT_STATUSES
        with open(os.path.join(ROOT, "docs", "contract.md"), "rb") as handle:
            readme = handle.read().decode("utf-8")
        for status, meaning in EXIT_STATUSES:
            self.assertIn("| %d | %s |" % (status, meaning), readme)


if __name__ == "__main__":
    unittest.main()
