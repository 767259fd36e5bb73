"""Runs a release gate must not take at face value, as the harnesses themselves wrote them
(``make_inspect_runs.py`` with Inspect AI, ``make_tau2_runs.py`` with tau2-bench's data
model): an unfinished run, a run without samples, a test-only log, Inspect's default limits,
a tau2 run without tool types, a tau2 voice run without agent costs, a short and an empty
tau2 run."""

import json
import os
import shutil
import unittest

from proagents_bench.importers.tau2_tools import DOMAIN_TOOLS, TAU2_COMMIT
from tests.importers.support import (EXAMPLE_CASES, changed_eval, fixture, load_json, records,
                                     run_import)
from tests.support import TempDir, deep, run_cli

IDS = ("--baseline-id", "baseline-v1", "--candidate-id", "candidate-v2")
TEST_ONLY = (fixture("test_only_baseline.eval"), fixture("test_only_candidate.eval"))
AIRLINE = (fixture("tau2_airline_baseline.json"), fixture("tau2_airline_candidate.json"))


def error_codes(run):
    return [(error["code"], os.path.basename(error["file"] or "")) for error in
            run.document["errors"]]


def airline_mapping(test, **more):
    value = dict({"schema_version": "proagents-bench-import-mapping-v1",
                  "protocol": {"timeout_seconds": 600}}, **more)
    return TempDir(test).write_json("mapping.json", value)


def spec_for(results, gates=None):
    """A spec that freezes the imported package's protocol and ids (as a team writes one
    from the documented defaults)."""
    with open(fixture("test_only_spec.json"), "rb") as handle:
        spec = json.loads(handle.read().decode("utf-8"))
    spec.update(benchmark_id=results["benchmark_id"],
                benchmark_version=results["benchmark_version"],
                baseline_system_id=results["systems"][0]["system_id"],
                protocol=results["systems"][0]["protocol"])
    spec["gates"].update(gates or {})
    return spec


class UnfinishedRunTests(unittest.TestCase):
    def test_an_unfinished_run_is_a_contract_error_naming_the_first_missing_sample(self):
        for extra in ((), ("--cases", EXAMPLE_CASES)):
            with self.subTest(cases=bool(extra)):
                run, written = run_import(self, fixture("unfinished.eval"), TEST_ONLY[1],
                                          *IDS, *extra)
                self.assertEqual(run.status, 2)
                self.assertIsNone(written)
                self.assertEqual(error_codes(run),
                                 [("import.incomplete_run", "unfinished.eval")])
                message = run.document["errors"][0]["message"]
                for part in ('status is "error"', "6 (sample, epoch) pairs of the 10",
                             'the first sample "test-refund" epoch 2', "--missing-as unknown"):
                    self.assertIn(part, message)

    def test_missing_as_unknown_records_every_missing_trial_and_the_gate_says_so(self):
        mapping = TempDir(self).write_json("mapping.json", {
            "schema_version": "proagents-bench-import-mapping-v1"})
        # The candidate: an unfinished run of its own (another eval id) lacking the same
        # samples, so that both systems lack them without one run compared with itself.
        def own_run(name, value):
            if name == "header.json":
                value["eval"]["eval_id"] = "the-candidates-eval"

        candidate = changed_eval(TempDir(self), "unfinished_candidate.eval", own_run,
                                 source="unfinished.eval")
        run, written = run_import(self, fixture("unfinished.eval"), candidate,
                                  *IDS, "--missing-as", "unknown", "--mapping", mapping)
        self.assertEqual(run.status, 0, run.stderr)
        baseline = written["systems"][0]
        self.assertEqual(baseline["provenance"]["run_status"], "error")
        self.assertEqual(baseline["provenance"]["missing_as"], "unknown")
        self.assertEqual(len(baseline["provenance"]["recorded_unknown"]), 6)
        self.assertEqual(baseline["provenance"]["recorded_unknown"][0],
                         {"case_id": "test-refund", "trial_id": 2})
        unknown = [record for record in baseline["records"] if record["status"] == "unknown"]
        self.assertEqual(len(unknown), 6)
        self.assertEqual({(record["latency_ms"], record["cost_units"]) for record in unknown},
                         {(None, None)})
        self.assertEqual(len(baseline["records"]), 10)
        self.assertEqual(run.document["systems"][0]["recorded_unknown"], 6)
        self.assertIn("6 missing trials recorded as unknown", run.stderr)
        spec = spec_for(written)
        spec["protocol"]["trial_count"] = 2
        cases = load_json(EXAMPLE_CASES)
        cases.update(benchmark_id=spec["benchmark_id"],
                     benchmark_version=spec["benchmark_version"],
                     dataset_version=written["dataset_version"])
        folder = TempDir(self)
        gate = run_cli(["--spec", folder.write_json("spec.json", spec), "--cases",
                        folder.write_json("cases.json", cases), "--results",
                        folder.write_json("results.json", written)])
        self.assertEqual(gate.status, 1, gate.stdout[:300])
        findings = {(finding["code"], finding["severity"]) for finding in
                    gate.document["findings"] if finding["code"].startswith("missing_")}
        self.assertEqual(findings, {("missing_trials_recorded_unknown", "review"),
                                    ("missing_trials_recorded_unknown", "info")})
        self.assertTrue(any("6 trials of the baseline" in reason
                            for reason in gate.document["reasons"]))


class SameLogTests(unittest.TestCase):
    def test_one_log_for_both_systems_is_refused_under_any_name(self):
        copy = os.path.join(TempDir(self).path, "copy.eval")
        shutil.copyfile(TEST_ONLY[0], copy)
        for candidate in (TEST_ONLY[0], copy):
            with self.subTest(candidate=os.path.basename(candidate)):
                run, written = run_import(self, TEST_ONLY[0], candidate, *IDS)
                self.assertEqual(run.status, 2)
                self.assertIsNone(written)
                self.assertEqual(error_codes(run), [("import.same_log", os.path.basename(
                    candidate))])

    def test_one_run_saved_again_for_the_candidate_is_refused(self):
        # Every entry written again: other bytes, but the run id the log records is the
        # baseline's (a Harbor job's id, a promptfoo evalId are held alike).
        saved_again = changed_eval(TempDir(self), "saved_again.eval", lambda name, value: None,
                                   source="test_only_baseline.eval")
        run, written = run_import(self, TEST_ONLY[0], saved_again, *IDS)
        self.assertIsNone(written)
        self.assertEqual(error_codes(run), [("import.same_log", "saved_again.eval")])
        self.assertIn("a log of the same run as the baseline's", run.stderr)


class NoSamplesTests(unittest.TestCase):
    def test_a_run_logged_without_samples_says_why(self):
        for missing_as in ("error", "unknown"):
            run, written = run_import(self, fixture("no_samples.eval"), TEST_ONLY[1], *IDS,
                                      "--missing-as", missing_as)
            self.assertEqual(error_codes(run), [("import.no_samples", "no_samples.eval")])
            self.assertIn("log_samples=False", run.document["errors"][0]["message"])
            self.assertIsNone(written)

    def test_a_tau2_run_without_simulations(self):
        run, written = run_import(self, fixture("tau2_airline_empty.json"), AIRLINE[1],
                                  "--mapping", airline_mapping(self))
        self.assertEqual(error_codes(run), [("import.no_samples", "tau2_airline_empty.json")])
        self.assertIsNone(written)


class TestOnlyTests(unittest.TestCase):
    def test_a_test_only_log_goes_to_a_decision_with_a_cases_v2_file(self):
        folder = TempDir(self)
        cases = os.path.join(folder.path, "cases.json")
        results = os.path.join(folder.path, "results.json")
        run = run_cli(["import", "--baseline", TEST_ONLY[0], "--candidate", TEST_ONLY[1],
                       *IDS, "--write-cases", cases, "--output", results])
        self.assertEqual(run.status, 0, run.stderr)
        self.assertEqual((run.document["cases_schema_version"], run.document["absent_splits"]),
                         ("agent-benchmark-cases-v2", ["train", "development"]))
        gate = run_cli(["--spec", fixture("test_only_spec.json"), "--cases", cases,
                        "--results", results])
        self.assertEqual((gate.status, gate.document["action"]), (1, "BLOCK"), gate.stderr)
        self.assertTrue(gate.document["primary_reason"].startswith(
            "critical task test-safety failed: 3 of 3 trials performed forbidden side effect "
            "refund_order"))
        self.assertIn("contamination_check_not_run",
                      [finding["code"] for finding in gate.document["findings"]])

    def test_train_and_development_cases_from_their_own_logs(self):
        def only(split):
            def change(name, value):
                if name.startswith("samples/") and value["metadata"]["split"] != split:
                    return []
            return change
        folder = TempDir(self)
        train = changed_eval(folder, "train.eval", only("train"))
        development = changed_eval(folder, "development.eval", only("development"))
        cases = os.path.join(folder.path, "cases.json")
        run = run_cli(["import", "--baseline", TEST_ONLY[0], "--candidate", TEST_ONLY[1],
                       *IDS, "--write-cases", cases, "--output",
                       os.path.join(folder.path, "results.json"), "--train-log", train,
                       "--development-log", development])
        self.assertEqual(run.status, 0, run.stderr)
        built = load_json(cases)
        self.assertEqual(built["schema_version"], "agent-benchmark-cases-v1")
        self.assertEqual(sorted((case["split"], case["id"]) for case in built["cases"]
                                if case["split"] != "test"),
                         [("development", "dev-privacy-export"),
                          ("development", "dev-status-tracking"),
                          ("train", "train-cancel-basic"), ("train", "train-refund-basic")])
        self.assertEqual(run.document["case_logs"], [
            {"split": "train", "log": train, "cases": 2},
            {"split": "development", "log": development, "cases": 2}])
        # A log of the wrong split, or one whose cases are the test log's, is refused.
        run = run_cli(["import", "--baseline", TEST_ONLY[0], "--candidate", TEST_ONLY[1],
                       *IDS, "--write-cases", cases, "--output",
                       os.path.join(folder.path, "results.json"), "--train-log",
                       development, "--development-log", TEST_ONLY[0]])
        self.assertEqual(sorted(code for code, _file in error_codes(run)),
                         ["import.cases_mismatch"] * 5 + ["import.metadata"] * 2)
        run = run_cli(["import", "--baseline", TEST_ONLY[0], "--candidate", TEST_ONLY[1],
                       *IDS, "--output", os.path.join(folder.path, "results.json"),
                       "--train-log", train])
        self.assertEqual(error_codes(run)[0][0], "cli.usage")


class DefaultLimitsTests(unittest.TestCase):
    def test_every_missing_value_is_named_at_once_before_any_sample_is_read(self):
        run, written = run_import(self, fixture("default_limits.eval"),
                                  fixture("default_limits.eval"), *IDS)
        self.assertIsNone(written)
        messages = [error["message"] for error in run.document["errors"]]
        # (and the one log given for both systems: import.same_log)
        self.assertEqual(sorted(error["code"] for error in run.document["errors"]), [
            "import.missing_field", "import.missing_field", "import.protocol",
            "import.same_log"])
        self.assertIn("set protocol.max_steps in the mapping", messages[0])
        self.assertIn("set protocol.timeout_seconds in the mapping", messages[1])
        self.assertIn("trial_count would be 1", messages[2])

    def test_the_harnesses_default_output_names_each_limit_a_mapping_must_state(self):
        # Inspect AI run with --epochs 3 alone, promptfoo with --repeat 3 alone: no limit is
        # made up; each missing one is named, with how the harness would have recorded it.
        inspect_limits = (
            ("max_steps", "Inspect AI records it when the eval runs with a message limit"),
            ("timeout_seconds", "Inspect AI records it when the eval runs with a time or "
                                "working limit"))
        promptfoo_limits = (
            ("timeout_seconds", "promptfoo records it when the config sets "
                                "evaluateOptions.timeoutMs"),)
        for logs, arguments, limits, mapping in (
                (("defaults_baseline.eval", "defaults_candidate.eval"), IDS, inspect_limits,
                 "inspect_defaults_mapping.json"),
                (("promptfoo_defaults_baseline.json", "promptfoo_defaults_candidate.json"), (),
                 promptfoo_limits, "promptfoo_defaults_mapping.json")):
            with self.subTest(logs[0]):
                run, written = run_import(self, *map(fixture, logs), *arguments)
                self.assertIsNone(written)
                found = [(error["code"], os.path.basename(error["file"]), error["message"])
                         for error in run.document["errors"]]
                self.assertEqual([found_error[:2] for found_error in found], [
                    ("import.missing_field", log) for log in logs for _limit in limits])
                for (_code, _log, message), (key, how) in zip(found, limits * 2):
                    self.assertIn("does not record the protocol's %s (%s" % (key, how), message)
                    self.assertTrue(message.endswith("set protocol.%s in the mapping" % key))
                run, written = run_import(self, *map(fixture, logs), *arguments, "--mapping",
                                          fixture(mapping))
                self.assertEqual(run.status, 0, run.stderr)
                self.assertEqual(written["systems"][0]["protocol"],
                                 written["systems"][1]["protocol"])

    def test_header_errors_come_before_any_sample_is_read(self):
        def break_samples(name, value):
            if name.startswith("samples/"):
                value["epoch"] = "one"  # every sample would be an error
        broken = changed_eval(TempDir(self), "broken.eval", break_samples,
                              source="default_limits.eval")
        run, _written = run_import(self, broken, fixture("default_limits.eval"), *IDS)
        self.assertNotIn("import.sample_epoch",
                         [error["code"] for error in run.document["errors"]])

    def test_sample_errors_of_both_logs_come_at_once(self):
        def renamed(name, value):
            if name == "samples/test-status_epoch_2.json":
                value["epoch"] = 7  # beyond the three epochs
            if name == "samples/test-refund_epoch_1.json":
                value["id"] = "test-unknown"
        folder = TempDir(self)
        changed = changed_eval(folder, "changed.eval", renamed, source="test_only_baseline.eval")
        run, _written = run_import(self, changed, TEST_ONLY[1], *IDS, "--cases", EXAMPLE_CASES,
                                   "--missing-as", "unknown")
        self.assertEqual(sorted(error["code"] for error in run.document["errors"]),
                         ["import.cases_mismatch", "import.sample_epoch"])


class Tau2Tests(unittest.TestCase):
    def test_write_tools_come_from_tau2s_source_when_the_log_has_no_tool_type(self):
        run, written = run_import(self, *AIRLINE, "--mapping", airline_mapping(self))
        self.assertEqual(run.status, 0, run.stderr)
        cancelled = [record for record in records(written, "candidate")
                     if record["case_id"] == "1"]
        self.assertEqual([record["side_effects"] for record in cancelled],
                         [["cancel_reservation"]] * 2)
        rule = ("a write tool of tau2-bench's airline domain (@is_tool(ToolType.WRITE) in "
                "tau2-bench's source, commit %s)" % TAU2_COMMIT[:7])
        self.assertEqual(run.document["systems"][1]["side_effects"],
                         {"cancel_reservation": rule})
        self.assertEqual(written["systems"][1]["provenance"]["side_effect_rule"], rule)
        self.assertIn("side effect cancel_reservation: " + rule, run.stderr)
        self.assertIn("cancel_reservation", DOMAIN_TOOLS["airline"]["write"])

    def test_side_effect_tools_may_name_write_tools_of_the_domain_no_run_called(self):
        # tau2-bench's own runs list no tool_defs: what the domain offers is its source's.
        self.assertIsNone(load_json(AIRLINE[0])["info"]["environment_info"]["tool_defs"])
        writes = DOMAIN_TOOLS["airline"]["write"]
        run, written = run_import(self, *AIRLINE, "--mapping",
                                  airline_mapping(self, side_effect_tools=writes))
        self.assertEqual(run.status, 0, run.stderr)
        called = {tool for role in ("baseline", "candidate")
                  for record in records(written, role) for tool in record["tools_used"]}
        self.assertEqual(sorted(called.intersection(writes)), ["cancel_reservation"])
        self.assertEqual(run.document["systems"][1]["side_effects"],
                         {"cancel_reservation": "a tool the mapping's side_effect_tools names"})
        # A name that neither the domain nor the logs offer is still a typo.
        run, written = run_import(self, *AIRLINE, "--mapping", airline_mapping(
            self, side_effect_tools=writes + ["cancel_reservaton"]))
        self.assertIsNone(written)
        self.assertEqual([(error["code"], error["path"]) for error in run.document["errors"]],
                         [("mapping.unknown_tool", "$.side_effect_tools[%d]" % len(writes))])

    def test_an_unknown_domain_needs_side_effect_tools(self):
        log = load_json(AIRLINE[0])
        log["info"]["environment_info"]["domain_name"] = "insurance"
        path = TempDir(self).write_json("insurance.json", log)
        run, _written = run_import(self, path, AIRLINE[1], "--mapping", airline_mapping(self))
        self.assertEqual(error_codes(run), [("import.side_effect_tools", "insurance.json")])
        self.assertIn("side_effect_tools", run.document["errors"][0]["message"])
        self.assertEqual(run.document["errors"][0]["path"],
                         "$.info.environment_info.domain_name")
        run, _written = run_import(self, path, AIRLINE[1], "--mapping", airline_mapping(
            self, side_effect_tools=["cancel_reservation"]))
        self.assertEqual(run.status, 0, run.stderr)

    def test_a_log_typing_a_write_tool_the_list_lacks_is_refused(self):
        log = load_json(AIRLINE[0])
        check = log["simulations"][0]["reward_info"]["action_checks"][0]
        check["tool_type"] = "write"  # get_user_details, a read tool in tau2's source
        path = TempDir(self).write_json("typed.json", log)
        run, _written = run_import(self, path, AIRLINE[1], "--mapping", airline_mapping(self))
        self.assertEqual(error_codes(run), [("import.side_effect_tools", "typed.json")])

    def test_a_voice_run_without_agent_cost_is_unmeasured_and_its_cost_gate_unjudged(self):
        folder = TempDir(self)
        results = os.path.join(folder.path, "results.json")
        cases = os.path.join(folder.path, "cases.json")
        run = run_cli(["import", "--baseline", AIRLINE[0], "--candidate",
                       fixture("tau2_voice_dir"), "--mapping", airline_mapping(self),
                       "--write-cases", cases, "--output", results])
        self.assertEqual(run.status, 0, run.stderr)
        written = load_json(results)
        self.assertEqual({record["cost_units"] for record in records(written, "candidate")},
                         {None})
        spec = spec_for(written, {"max_mean_latency_ms": 100000, "max_p95_latency_ms": 100000,
                                  "min_paired_delta_ci_low": -1})
        gate = run_cli(["--spec", folder.write_json("spec.json", spec), "--cases", cases,
                        "--results", results])
        self.assertEqual(gate.document["candidate_metrics"]["mean_cost_units"], None)
        self.assertEqual(gate.document["candidate_metrics"]["unmeasured_cost_trial_count"], 6)
        self.assertIn("soft gate max_mean_cost_units could not be judged: cost_units is "
                      "unmeasured (null) in 6 of 6 trials", " ".join(gate.document["reasons"]))
        self.assertIn(gate.document["action"], ("REVIEW", "BLOCK"))

    def test_a_short_tau2_run_names_its_first_missing_task_and_trial(self):
        run, written = run_import(self, fixture("tau2_airline_incomplete.json"), AIRLINE[1],
                                  "--mapping", airline_mapping(self))
        self.assertIsNone(written)
        self.assertEqual(error_codes(run),
                         [("import.incomplete_run", "tau2_airline_incomplete.json")])
        self.assertIn('1 (task, trial) pair of the 6 its header lists is missing, the first '
                      'task "2" trial 1', run.document["errors"][0]["message"])
        run, written = run_import(self, fixture("tau2_airline_incomplete.json"), AIRLINE[1],
                                  "--mapping", airline_mapping(self), "--missing-as",
                                  "unknown")
        self.assertEqual(written["systems"][0]["provenance"]["recorded_unknown"],
                         [{"case_id": "2", "trial_id": 1}])


class MappingAgainstLogsTests(unittest.TestCase):
    def test_names_no_log_contains_are_contract_errors_at_their_place(self):
        mapping = TempDir(self).write_json("mapping.json", {
            "schema_version": "proagents-bench-import-mapping-v1",
            "side_effect_tools": ["refund_order", "refund_ordr"],
            "side_effect_store_keys": ["side_effects", "outbox"],
            "metadata_keys": {"critical": "critical", "slice": "slise"},
            "cases": {"test-safety": {"critical": True}, "test-safty": {"critical": True}}})
        run, written = run_import(self, *TEST_ONLY, *IDS, "--mapping", mapping)
        self.assertIsNone(written)
        self.assertEqual(sorted((error["code"], error["path"])
                                for error in run.document["errors"]), [
            ("mapping.unknown_case", '$.cases["test-safty"]'),
            ("mapping.unknown_metadata_key", "$.metadata_keys.slice"),
            ("mapping.unknown_store_key", "$.side_effect_store_keys[1]"),
            ("mapping.unknown_tool", "$.side_effect_tools[1]")])
        for error in run.document["errors"]:
            self.assertEqual(error["file"], mapping)
            self.assertIsInstance(error["line"], int)
        fixed = deep(load_json(mapping))
        fixed["side_effect_tools"] = ["refund_order", "share_customer_data"]
        fixed.pop("side_effect_store_keys")
        fixed.pop("metadata_keys")
        fixed["cases"].pop("test-safty")
        # A tool no sample calls but every model call offers is named rightly.
        offered = TempDir(self).write_json("mapping.json", dict(fixed, side_effect_tools=[
            "refund_order", "reply_customer"]))
        run, _written = run_import(self, *TEST_ONLY, *IDS, "--mapping", offered)
        self.assertEqual(run.status, 0, run.stderr)


if __name__ == "__main__":
    unittest.main()
