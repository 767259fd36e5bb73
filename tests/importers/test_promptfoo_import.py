"""The promptfoo importer, on results files promptfoo itself wrote
(``make_promptfoo_results.py``: ``promptfoo eval --output results.json`` with a local
provider, each test repeated 3 times), and on damaged copies of them."""

import json
import os
import unittest

from tests.importers.support import fixture, load_json, records, run_import
from tests.support import TempDir, run_cli

BASELINE = fixture("promptfoo_baseline.json")
CANDIDATE = fixture("promptfoo_candidate.json")
SPEC = fixture("promptfoo_spec.json")


def changed(test, change, source=BASELINE, name="changed.json"):
    """A copy of a fixture with ``change(log)`` applied, written to a temporary folder."""
    log = load_json(source)
    change(log)
    return TempDir(test).write_bytes(name, json.dumps(log, indent=2).encode("utf-8"))


def results_of(log):
    return log["results"]["results"]


def errors_of(run):
    return [(error["code"], error.get("path"), error["message"])
            for error in run.document["errors"]]


class EndToEndTests(unittest.TestCase):
    def test_a_promptfoo_results_file_goes_to_a_block_decision_with_two_commands(self):
        folder = TempDir(self)
        results = os.path.join(folder.path, "results.json")
        cases = os.path.join(folder.path, "cases.json")
        run = run_cli(["import", "--baseline", BASELINE, "--candidate", CANDIDATE,
                       "--write-cases", cases, "--output", results])
        self.assertEqual(run.status, 0, run.stderr)
        self.assertEqual([system["records_by_status"]["error"]
                          for system in run.document["systems"]], [1, 0])
        gate = run_cli(["--spec", SPEC, "--cases", cases, "--results", results])
        self.assertEqual(gate.status, 1, gate.stderr)
        self.assertEqual(gate.document["action"], "BLOCK")
        self.assertTrue(gate.document["primary_reason"].startswith(
            "critical task test-refund failed: 1 of 3 trials ended in a wrong final state "
            "(failed)"), gate.document["primary_reason"])

    def test_every_result_is_a_record_grouped_by_test_in_file_order(self):
        run, written = run_import(self, BASELINE, CANDIDATE)
        self.assertEqual(run.status, 0, run.stderr)
        self.assertEqual([(record["case_id"], record["trial_id"], record["status"],
                           record["final_state"]) for record in records(written, "baseline")],
                         [("test-cancel", 1, "success", "passed"),
                          ("test-cancel", 2, "success", "passed"),
                          ("test-cancel", 3, "success", "failed"),
                          ("test-refund", 1, "success", "passed"),
                          ("test-refund", 2, "success", "passed"),
                          ("test-refund", 3, "success", "passed"),
                          ("test-status", 1, "success", "passed"),
                          ("test-status", 2, "error", None),
                          ("test-status", 3, "success", "passed")])
        first = records(written, "baseline")[0]
        self.assertEqual((first["tools_used"], first["side_effects"], first["latency_ms"],
                          first["cost_units"]), ([], [], 2, 16))

    def test_repetitions_are_numbered_in_file_order_whatever_the_order(self):
        def interleave(log):
            # The repetitions of two tests interleaved, the second repetition of test-status
            # (its provider error) now first.
            items = results_of(log)
            log["results"]["results"] = [items[4], items[0], items[3], items[1], items[5],
                                         items[2]] + items[6:]
        run, written = run_import(self, changed(self, interleave), CANDIDATE)
        self.assertEqual(run.status, 0, run.stderr)
        status = [(record["trial_id"], record["status"]) for record in
                  records(written, "baseline") if record["case_id"] == "test-status"]
        self.assertEqual(status, [(1, "error"), (2, "success"), (3, "success")])

    def test_protocol_ids_and_provenance_come_from_the_file(self):
        run, written = run_import(self, BASELINE, CANDIDATE)
        self.assertEqual(run.status, 0, run.stderr)
        system = written["systems"][0]
        self.assertEqual(system["system_id"], "baseline-v1")
        self.assertEqual((system["protocol"]["trial_count"], system["protocol"]["max_steps"],
                          system["protocol"]["timeout_seconds"],
                          system["protocol"]["retry_limit"]), (3, 1, 30, 0))
        self.assertTrue(system["protocol"]["protocol_version"].startswith("promptfoo-"))
        provenance = system["provenance"]
        self.assertEqual((provenance["log_format"], provenance["log_format_version"],
                          provenance["harness"], provenance["harness_version"]),
                         ("promptfoo-results-json", "3", "promptfoo", "0.123.1"))
        self.assertEqual(provenance["run_id"], load_json(BASELINE)["evalId"])

    def test_other_tests_are_another_protocol(self):
        def other_vars(log):
            for result in results_of(log):
                if result["testCase"]["description"] == "test-status":
                    result["testCase"]["vars"]["request"] = "where is order 18"
        folder = TempDir(self)
        results = os.path.join(folder.path, "results.json")
        cases = os.path.join(folder.path, "cases.json")
        run = run_cli(["import", "--baseline", BASELINE, "--candidate",
                       changed(self, other_vars, CANDIDATE), "--write-cases", cases,
                       "--output", results])
        self.assertEqual(run.status, 0, run.stderr)
        gate = run_cli(["--spec", SPEC, "--cases", cases, "--results", results])
        self.assertEqual(gate.document["action"], "INCOMPARABLE")

    def test_the_mapping_chooses_the_output_and_the_cost(self):
        folder = TempDir(self)
        mapping = folder.write_json("mapping.json", {
            "schema_version": "proagents-bench-import-mapping-v1",
            "final_state": {"source": "output"}, "cost": {"source": "cost", "scale": 1000000}})
        run, written = run_import(self, BASELINE, CANDIDATE, "--mapping", mapping)
        self.assertEqual(run.status, 0, run.stderr)
        by_trial = {(record["case_id"], record["trial_id"]): record
                    for record in records(written, "baseline")}
        self.assertEqual(by_trial["test-cancel", 3]["final_state"], "please call the shop")
        self.assertEqual(by_trial["test-cancel", 3]["cost_units"], 16)
        self.assertEqual(by_trial["test-status", 2]["cost_units"], 0)
        self.assertIsNone(by_trial["test-status", 2]["final_state"])

    def test_a_source_of_another_harness_is_refused(self):
        folder = TempDir(self)
        mapping = folder.write_json("mapping.json", {
            "schema_version": "proagents-bench-import-mapping-v1",
            "final_state": {"source": "db_check"}})
        run, _written = run_import(self, BASELINE, CANDIDATE, "--mapping", mapping)
        self.assertEqual(run.status, 2)
        self.assertEqual({error[0] for error in errors_of(run)}, {"mapping.final_state_source"})


class IncompleteRunTests(unittest.TestCase):
    def test_a_test_with_fewer_results_than_repeat_is_an_incomplete_run(self):
        def drop(log):
            del results_of(log)[4]
            log["results"]["stats"]["errors"] -= 1
        log = changed(self, drop)
        run, written = run_import(self, log, CANDIDATE)
        self.assertEqual(run.status, 2)
        self.assertIsNone(written)
        (code, _path, message), = errors_of(run)
        self.assertEqual(code, "import.incomplete_run")
        self.assertIn('1 (test, repetition) pair of the 9 its header lists is missing, the '
                      'first test "test-status" repetition 3', message)
        self.assertEqual(run.document["errors"][0]["file"], log)
        run, written = run_import(self, log, CANDIDATE, "--missing-as", "unknown")
        self.assertEqual(run.status, 0, run.stderr)
        unknown = [record for record in records(written, "baseline")
                   if record["status"] == "unknown"]
        self.assertEqual([(record["case_id"], record["trial_id"]) for record in unknown],
                         [("test-status", 3)])

    def test_a_test_the_config_lists_without_results_is_missing(self):
        def drop(log):
            log["results"]["results"] = [result for result in results_of(log)
                                         if result["testCase"]["description"] != "test-cancel"]
        run, _written = run_import(self, changed(self, drop), CANDIDATE)
        self.assertEqual(run.status, 2)
        self.assertIn('the first test "test-cancel" repetition 1', errors_of(run)[0][2])

    def test_a_file_its_stats_say_is_short_did_not_finish(self):
        def short(log):
            log["config"]["tests"] = "file://tests.csv"  # the tests are not listed
            del results_of(log)[8]
        run, _written = run_import(self, changed(self, short), CANDIDATE)
        self.assertEqual(run.status, 2)
        (code, _path, message), = errors_of(run)
        self.assertEqual(code, "import.incomplete_run")
        self.assertIn('the run did not finish (its status is "8 of the 9 results its stats '
                      'count")', message)

    def test_a_file_without_results_is_no_samples(self):
        def empty(log):
            log["results"]["results"] = []
            log["results"]["stats"].update(successes=0, failures=0, errors=0)
        run, _written = run_import(self, changed(self, empty), CANDIDATE,
                                   "--baseline-id", "baseline-v1", "--missing-as", "unknown")
        self.assertEqual(run.status, 2)
        self.assertEqual([error[0] for error in errors_of(run)], ["import.no_samples"])


class BadResultsTests(unittest.TestCase):
    def bad(self, change, code, path=None, source=BASELINE):
        run, written = run_import(self, changed(self, change, source), CANDIDATE)
        self.assertEqual(run.status, 2, run.stdout[:300])
        self.assertIsNone(written)
        found = [(error[0], error[1]) for error in errors_of(run)]
        self.assertIn((code, path), found)
        return run

    def test_two_providers_are_two_systems(self):
        def two(log):
            results_of(log)[5]["provider"] = {"id": "file://order_agent.js:other",
                                              "label": "other-v3"}
        run = self.bad(two, "import.several_systems", "$.results.results[5].provider")
        self.assertIn('"baseline-v1", "other-v3"', errors_of(run)[0][2])

    def test_two_prompts_are_two_systems(self):
        def two(log):
            results_of(log)[2]["promptId"] = "another"
        self.bad(two, "import.several_systems", "$.results.results[2].promptId")

    def test_a_test_without_a_description(self):
        def anonymous(log):
            del results_of(log)[3]["testCase"]["description"]
        self.bad(anonymous, "import.sample_id", "$.results.results[3].testCase.description")

    def test_two_tests_of_one_description(self):
        def twins(log):
            results_of(log)[7]["testCase"]["vars"] = {"request": "cancel order 18"}
        run = self.bad(twins, "import.sample_id", "$.results.results[7].testCase.description")
        self.assertIn("$.results.results[6]", errors_of(run)[0][2])

    def test_another_results_version(self):
        def newer(log):
            log["results"]["version"] = 4
        self.bad(newer, "import.format_version", "$.results.version")

    def test_without_repeat_one_trial_is_refused(self):
        def once(log):
            del log["runtimeOptions"]["repeat"]
            del log["config"]["evaluateOptions"]["repeat"]
        run = self.bad(once, "import.protocol", "$")
        self.assertIn("trial_count would be 1", errors_of(run)[0][2])

    def test_a_negative_latency_and_a_text_cost(self):
        def broken(log):
            results_of(log)[0]["latencyMs"] = -1
            results_of(log)[1]["response"]["tokenUsage"]["total"] = "many"
        self.bad(broken, "import.field_type", "$.results.results[0].latencyMs")
        self.bad(broken, "import.field_type", "$.results.results[1].response.tokenUsage.total")

    def test_a_result_that_is_not_an_object(self):
        def broken(log):
            results_of(log)[2] = "passed"
        self.bad(broken, "import.field_type", "$.results.results[2]")

    def test_a_provider_error_without_a_failure_reason(self):
        def older(log):
            for result in results_of(log):
                result.pop("failureReason", None)
        run, written = run_import(self, changed(self, older), CANDIDATE)
        self.assertEqual(run.status, 0, run.stderr)
        self.assertEqual([record["status"] for record in records(written, "baseline")
                          if record["case_id"] == "test-status"],
                         ["success", "error", "success"])

    def test_the_file_is_told_by_its_keys_not_its_name(self):
        with open(BASELINE, "rb") as handle:
            copy_path = TempDir(self).write_bytes("log.txt", handle.read())
        run, _written = run_import(self, copy_path, CANDIDATE)
        self.assertEqual(run.status, 0, run.stderr)


if __name__ == "__main__":
    unittest.main()
