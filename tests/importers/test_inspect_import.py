"""The Inspect AI importer, on logs Inspect AI itself wrote (``make_inspect_logs.py``)."""

import hashlib
import json
import os
import unittest

from proagents_bench.importers.inspect_log import SampleReader, read_header
from proagents_bench.importers.settings import Settings, default_settings
from proagents_bench.importers.source import LogError
from tests.importers.support import (EXAMPLE_CASES, changed_eval, fixture, json_log_from_eval,
                                     load_json, read_bytes, records, run_import, sample_of,
                                     eval_entries, write_eval)
from tests.support import TempDir, run_cli, with_example

MAPPING = fixture("inspect_mapping.json")
IDS = ("--baseline-id", "baseline-v1", "--candidate-id", "candidate-v2")


def import_example(test, *extra, baseline="baseline.eval", candidate="candidate.eval"):
    return run_import(test, fixture(baseline), fixture(candidate), "--mapping", MAPPING,
                      "--cases", EXAMPLE_CASES, *(IDS + extra))


class EndToEndTests(unittest.TestCase):
    def test_an_inspect_eval_goes_to_a_block_decision_with_two_commands(self):
        folder = TempDir(self)
        results = os.path.join(folder.path, "results.json")
        run = run_cli(["import", "--baseline", fixture("baseline.eval"), "--candidate",
                       fixture("candidate.eval"), "--mapping", MAPPING, "--cases",
                       EXAMPLE_CASES, "--output", results] + list(IDS))
        self.assertEqual(run.status, 0, run.stderr)
        self.assertEqual(run.document["action"], "IMPORTED")
        gate = run_cli(with_example(["--cases", EXAMPLE_CASES, "--results", results]))
        self.assertEqual(gate.status, 1, gate.stderr)
        self.assertEqual(gate.document["action"], "BLOCK")
        self.assertIn("critical task test-safety failed", gate.document["primary_reason"])

    def test_a_built_cases_file_has_the_example_test_cases(self):
        folder = TempDir(self)
        cases_path = os.path.join(folder.path, "cases.json")
        run, written = run_import(self, fixture("baseline.eval"), fixture("candidate.eval"),
                                  "--mapping", MAPPING, "--write-cases", cases_path, *IDS)
        self.assertEqual(run.status, 0, run.stderr)
        built = {case["id"]: case for case in load_json(cases_path)["cases"]}
        example = {case["id"]: case for case in load_json(EXAMPLE_CASES)["cases"]}
        self.assertEqual(sorted(built), sorted(example))
        for case_id, case in example.items():
            with self.subTest(case=case_id):
                expected = dict(case, initial_state=built[case_id]["initial_state"],
                                allowed_tools=sorted(case["allowed_tools"]),
                                forbidden_side_effects=sorted(case["forbidden_side_effects"]))
                self.assertEqual(built[case_id], expected)
        self.assertIsNotNone(written)
        gate = run_cli(with_example(["--cases", cases_path, "--results",
                                     run.document["results"]]))
        self.assertEqual(gate.document["action"], "BLOCK")

    def test_every_test_sample_is_a_record_whatever_its_status(self):
        run, written = import_example(self)
        self.assertEqual(run.status, 0, run.stderr)
        baseline = records(written, "baseline")
        self.assertEqual(len(baseline), 15)
        failed = [record for record in baseline if record["status"] != "success"]
        self.assertEqual([(record["case_id"], record["trial_id"], record["status"])
                          for record in failed], [("test-status", 3, "error")])
        self.assertEqual(run.document["systems"][0]["samples_not_test"], 12)

    def test_the_candidate_calls_the_forbidden_tool_and_says_it_did_not(self):
        _run, written = import_example(self)
        safety = [record for record in records(written, "candidate")
                  if record["case_id"] == "test-safety"]
        self.assertEqual([record["side_effects"] for record in safety], [["refund_order"]] * 3)
        self.assertEqual({record["final_state"] for record in safety}, {"refund_denied"})

    def test_each_side_effect_rule_is_said_once_with_its_tools(self):
        run, _written = run_import(self, fixture("test_only_baseline.eval"),
                                   fixture("test_only_candidate.eval"), *IDS)
        rule = ("every tool called is a side effect (Inspect AI's default: the mapping names "
                "no side_effect_tools)")
        said = [line for line in run.stderr.splitlines() if line.startswith("  side effect")]
        self.assertEqual(said, [
            "  side effects cancel_order, check_refund_policy, issue_refund, lookup_customer, "
            "lookup_order: " + rule,
            "  side effects cancel_order, check_refund_policy, issue_refund, lookup_customer, "
            "lookup_order, refund_order: " + rule])
        # Two rules (the mapping's tools, its store key): a line each.
        mapping = TempDir(self).write_json("mapping.json", {
            "schema_version": "proagents-bench-import-mapping-v1",
            "side_effect_tools": ["issue_refund", "refund_order"],
            "side_effect_store_keys": ["side_effects"]})
        run, _written = run_import(self, fixture("test_only_baseline.eval"),
                                   fixture("test_only_candidate.eval"), *IDS, "--mapping",
                                   mapping)
        said = [line for line in run.stderr.splitlines() if line.startswith("  side effect")]
        self.assertEqual([line.split(":")[0] for line in said], [
            "  side effect issue_refund", "  side effect side_effects",
            "  side effects issue_refund, refund_order", "  side effect side_effects"])

    def test_provenance_names_the_log_and_the_mapping(self):
        _run, written = import_example(self)
        provenance = written["systems"][0]["provenance"]
        data = read_bytes(fixture("baseline.eval"))
        self.assertEqual(provenance, {
            "log_file": "baseline.eval", "log_sha256": hashlib.sha256(data).hexdigest(),
            "log_bytes": len(data), "log_format": "inspect-eval", "log_format_version": "2",
            "harness": "inspect_ai", "harness_version": "0.3.285", "harness_commit": None,
            "run_id": provenance["run_id"], "run_started": provenance["run_started"],
            "mapping_sha256": hashlib.sha256(read_bytes(MAPPING)).hexdigest(),
            "run_status": "success", "missing_as": "error", "recorded_unknown": [],
            "side_effect_rule": "a tool the mapping's side_effect_tools names"})
        self.assertTrue(provenance["run_id"])
        self.assertTrue(provenance["run_started"].startswith("20"))

    def test_the_protocol_comes_from_the_eval_and_the_mapping(self):
        _run, written = import_example(self)
        self.assertEqual(written["systems"][1]["protocol"],
                         load_json(fixture("../../../examples/benchmark_spec.json"))["protocol"])


class DeterminismTests(unittest.TestCase):
    def test_the_same_logs_give_the_same_bytes(self):
        first, second = TempDir(self), TempDir(self)
        outputs = []
        for folder in (first, second):
            path = os.path.join(folder.path, "results.json")
            run = run_cli(["import", "--baseline", fixture("baseline.eval"), "--candidate",
                           fixture("candidate.eval"), "--output", path] + list(IDS))
            self.assertEqual(run.status, 0, run.stderr)
            outputs.append(read_bytes(path))
        self.assertEqual(outputs[0], outputs[1])

    def test_the_order_of_the_zip_entries_does_not_matter(self):
        folder = TempDir(self)
        reversed_log = write_eval(folder, "reversed.eval", [
            (info.filename, data) for info, data in reversed(eval_entries())])
        _run, original = run_import(self, fixture("baseline.eval"), fixture("candidate.eval"),
                                    *IDS)
        _run, shuffled = run_import(self, reversed_log, fixture("candidate.eval"), *IDS)
        self.assertEqual(records(original, "baseline"), records(shuffled, "baseline"))

    def test_a_json_log_gives_the_records_of_the_same_eval_log(self):
        folder = TempDir(self)
        converted = json_log_from_eval(folder, "baseline.json")
        _run, from_eval = run_import(self, fixture("baseline.eval"), fixture("candidate.eval"),
                                     *IDS)
        run, from_json = run_import(self, converted, fixture("candidate.eval"), *IDS)
        self.assertEqual(run.status, 0, run.stderr)
        self.assertEqual(records(from_eval, "baseline"), records(from_json, "baseline"))
        self.assertEqual(from_json["systems"][0]["provenance"]["log_format"], "inspect-json")

    def test_the_json_logs_inspect_wrote_import(self):
        run, written = run_import(self, fixture("baseline.json"), fixture("candidate.json"),
                                  *IDS)
        self.assertEqual(run.status, 0, run.stderr)
        self.assertEqual([(record["case_id"], record["trial_id"])
                          for record in records(written, "candidate")],
                         [("test-safety", 1), ("test-safety", 2)])
        self.assertEqual(written["systems"][1]["protocol"]["trial_count"], 2)

    def test_a_log_still_running_is_read_from_its_journal_and_is_an_unfinished_run(self):
        def without_header(name, value):
            if name == "header.json":
                return []
        folder = TempDir(self)
        running = changed_eval(folder, "running.eval", without_header)
        _run, finished = run_import(self, fixture("baseline.eval"), fixture("candidate.eval"),
                                    *IDS)
        run, imported = run_import(self, running, fixture("candidate.eval"), *IDS)
        self.assertEqual([error["code"] for error in run.document["errors"]],
                         ["import.incomplete_run"])
        self.assertIn('status is "started"', run.document["errors"][0]["message"])
        run, imported = run_import(self, running, fixture("candidate.eval"), *IDS,
                                   "--missing-as", "unknown")
        self.assertEqual(run.status, 0, run.stderr)
        self.assertEqual(imported["systems"][0]["provenance"]["run_status"], "started")
        self.assertEqual(imported["systems"][0]["provenance"]["recorded_unknown"], [])
        self.assertEqual(records(finished, "baseline"), records(imported, "baseline"))
        self.assertEqual(finished["systems"][0]["protocol"], imported["systems"][0]["protocol"])

    def test_unknown_fields_in_a_log_are_ignored(self):
        def grow(name, value):
            if isinstance(value, dict):
                value["a_field_of_a_later_inspect"] = {"anything": [1, 2]}
        folder = TempDir(self)
        grown = changed_eval(folder, "grown.eval", grow)
        _run, original = run_import(self, fixture("baseline.eval"), fixture("candidate.eval"),
                                    *IDS)
        run, imported = run_import(self, grown, fixture("candidate.eval"), *IDS)
        self.assertEqual(run.status, 0, run.stderr)
        self.assertEqual(records(original, "baseline"), records(imported, "baseline"))


def reader(mapping=None):
    settings = Settings(dict(mapping or {}, schema_version="x")) if mapping else (
        default_settings())
    header = json.loads(dict((info.filename, data) for info, data in eval_entries())[
        "header.json"].decode("utf-8"))
    return SampleReader(settings, read_header(header, "inspect-eval", "header.json"))


def record_of(sample, mapping=None):
    return reader(mapping).trial(sample, "samples/x.json", ()).record


class SampleTests(unittest.TestCase):
    def setUp(self):
        self.sample = sample_of("candidate.eval")

    def test_status_from_error_limit_and_scores(self):
        cases = [
            ({"error": {"message": "boom"}}, "error"),
            ({"limit": {"type": "time", "limit": 30}}, "timeout"),
            ({"limit": {"type": "working", "limit": 30}}, "timeout"),
            ({"limit": {"type": "message", "limit": 8}}, "error"),
            ({"limit": {"type": "token", "limit": 8}}, "error"),
            ({"scores": {}}, "unknown"),
            ({"scores": None}, "unknown"),
            ({}, "success"),
        ]
        for change, status in cases:
            with self.subTest(change=change):
                self.assertEqual(record_of(dict(self.sample, **change))["status"], status)

    def test_tools_come_from_tool_events_else_from_the_messages(self):
        self.assertEqual(record_of(self.sample)["tools_used"], ["lookup_order",
                                                                "refund_order"])
        without_events = dict(self.sample, events=[])
        self.assertEqual(record_of(without_events)["tools_used"], ["lookup_order",
                                                                   "refund_order"])
        neither = dict(without_events, messages=[])
        self.assertEqual(record_of(neither)["tools_used"], [])

    def test_side_effects_default_to_every_tool_called(self):
        self.assertEqual(record_of(self.sample)["side_effects"], ["lookup_order",
                                                                  "refund_order"])

    def test_side_effects_are_the_mapped_tools_and_store_keys(self):
        mapping = {"side_effect_tools": ["refund_order"]}
        self.assertEqual(record_of(self.sample, mapping)["side_effects"], ["refund_order"])
        mapping = {"side_effect_tools": [], "side_effect_store_keys": ["side_effects"]}
        self.assertEqual(record_of(self.sample, mapping)["side_effects"], ["side_effects"])
        mapping = {"side_effect_tools": [], "side_effect_store_keys": ["other"]}
        self.assertEqual(record_of(self.sample, mapping)["side_effects"], [])

    def test_final_state_sources(self):
        self.assertEqual(record_of(self.sample)["final_state"], "refund_denied")
        self.assertEqual(record_of(self.sample, {"final_state": {"source": "score_value"}})[
            "final_state"], "C")
        stored = dict(self.sample, store={"order": "refund_denied", "count": 2})
        for key, state in (("order", "refund_denied"), ("count", "2"), ("absent", None)):
            self.assertEqual(record_of(stored, {"final_state": {"source": "store", "key": key}})[
                "final_state"], state)

    def test_a_named_scorer_the_sample_lacks_is_a_missing_field(self):
        with self.assertRaises(LogError) as caught:
            record_of(self.sample, {"final_state": {"source": "score_answer", "key": "judge"}})
        self.assertEqual(caught.exception.code, "import.missing_field")
        self.assertEqual(caught.exception.path, ("scores", "judge"))

    def test_latency_from_working_time_else_total_time(self):
        self.assertEqual(record_of(dict(self.sample, working_time=0.0123))["latency_ms"], 12.3)
        self.assertEqual(record_of(dict(self.sample, working_time=None, total_time=2))[
            "latency_ms"], 2000)
        # Neither recorded: unmeasured (null in results v3), never 0.
        self.assertIsNone(record_of(dict(self.sample, working_time=None, total_time=None))[
            "latency_ms"])

    def test_cost_from_tokens_or_cost_with_the_scale(self):
        self.assertEqual(record_of(self.sample)["cost_units"], 540)
        self.assertEqual(record_of(self.sample, {"cost": {"source": "total_cost"}})[
            "cost_units"], 0.003)
        self.assertEqual(record_of(self.sample, {"cost": {"source": "total_tokens",
                                                          "scale": 0.5}})["cost_units"], 270)
        self.assertEqual(record_of(dict(self.sample, model_usage={}))["cost_units"], 0)

    def test_arrays_of_another_type_are_read_as_empty(self):
        odd = dict(self.sample, events=[{"event": "store", "changes": 5}], messages=7)
        record = record_of(odd, {"side_effect_store_keys": ["x"]})
        self.assertEqual((record["tools_used"], record["side_effects"]), ([], []))
        odd = dict(self.sample, events=None, messages=[{"role": "assistant", "tool_calls": 3}])
        self.assertEqual(record_of(odd)["tools_used"], [])

    def test_an_integer_sample_id_is_a_string_case_id(self):
        self.assertEqual(record_of(dict(self.sample, id=42))["case_id"], "42")


if __name__ == "__main__":
    unittest.main()
