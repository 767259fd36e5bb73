"""The tau2-bench importer, on results files written from tau2's data model
(``make_tau2_results.py``)."""

import copy
import os
import unittest

from proagents_bench.importers.settings import Settings, default_settings
from proagents_bench.importers.source import LogError
from proagents_bench.importers.tau2 import SimulationReader, _header
from tests.importers.support import fixture, load_json, records, run_import
from tests.support import TempDir, run_cli

BASELINE = fixture("tau2_baseline.json")
CANDIDATE = fixture("tau2_candidate.json")
MAPPING = fixture("tau2_mapping.json")
SPEC = fixture("tau2_spec.json")


class EndToEndTests(unittest.TestCase):
    def test_a_tau2_results_file_goes_to_a_block_decision_with_two_commands(self):
        folder = TempDir(self)
        results = os.path.join(folder.path, "results.json")
        cases = os.path.join(folder.path, "cases.json")
        run = run_cli(["import", "--baseline", BASELINE, "--candidate", CANDIDATE,
                       "--mapping", MAPPING, "--write-cases", cases, "--output", results])
        self.assertEqual(run.status, 0, run.stderr)
        gate = run_cli(["--spec", SPEC, "--cases", cases, "--results", results])
        self.assertEqual(gate.status, 1, gate.stderr)
        self.assertEqual(gate.document["action"], "BLOCK")
        self.assertIn("critical task 3 failed", gate.document["primary_reason"])

    def test_built_cases_forbid_the_writes_a_task_does_not_expect(self):
        folder = TempDir(self)
        cases = os.path.join(folder.path, "cases.json")
        run, _written = run_import(self, BASELINE, CANDIDATE, "--mapping", MAPPING,
                                   "--write-cases", cases)
        self.assertEqual(run.status, 0, run.stderr)
        built = {case["id"]: case for case in load_json(cases)["cases"]}
        # The retail domain's write tools, as tau2's source types them, but those expected.
        writes = ["cancel_pending_order", "exchange_delivered_order_items",
                  "modify_pending_order_address", "modify_pending_order_items",
                  "modify_pending_order_payment", "modify_user_address",
                  "return_delivered_order_items"]
        self.assertEqual(built["0"]["forbidden_side_effects"],
                         [name for name in writes if name != "cancel_pending_order"])
        self.assertEqual(built["3"]["forbidden_side_effects"], writes)
        self.assertEqual((built["3"]["critical"], built["3"]["slice"]), (True, "cancellations"))
        self.assertEqual([built[key]["split"] for key in ("4", "5", "6")],
                         ["test", "train", "development"])
        self.assertEqual({case["expected_final_state"] for case in built.values()},
                         {"db_match"})
        self.assertEqual(built["2"]["initial_state"], "Report an order's status.")

    def test_every_simulation_of_a_test_task_is_a_record(self):
        run, written = run_import(self, BASELINE, CANDIDATE, "--mapping", MAPPING)
        self.assertEqual(run.status, 0, run.stderr)
        baseline = records(written, "baseline")
        self.assertEqual(len(baseline), 15)
        self.assertEqual([(record["case_id"], record["trial_id"], record["status"],
                           record["final_state"]) for record in baseline
                          if record["status"] != "success"], [("2", 3, "unknown", None)])
        self.assertEqual(sorted({record["trial_id"] for record in baseline}), [1, 2, 3])

    def test_a_run_the_infrastructure_lost_is_a_record_without_a_cost(self):
        # tau2-bench's placeholder (runner/controller.py, make_infra_failure_sim): no
        # messages, no reward, a zero duration and no agent_cost.
        log = load_json(BASELINE)
        lost = next(simulation for simulation in log["simulations"]
                    if simulation["termination_reason"] == "infrastructure_error")
        lost.update(messages=[], duration=0.0, agent_cost=None, reward_info=None,
                    info={"error": "worker died", "error_type": "WorkerFailure"})
        path = TempDir(self).write_json("lost.json", log)
        run, written = run_import(self, path, CANDIDATE, "--mapping", MAPPING)
        self.assertEqual(run.status, 0, run.stderr)
        record = next(record for record in records(written, "baseline")
                      if record["status"] == "unknown")
        self.assertEqual((record["case_id"], record["trial_id"], record["cost_units"],
                          record["latency_ms"], record["tools_used"]), ("2", 3, None, 0, []))
        self.assertEqual(written["schema_version"], "agent-benchmark-results-v3")

    def test_provenance_and_protocol_come_from_the_info(self):
        _run, written = run_import(self, BASELINE, CANDIDATE, "--mapping", MAPPING)
        system = written["systems"][0]
        self.assertEqual(system["system_id"], "gpt-4.1-mini")
        self.assertEqual(system["provenance"]["harness"], "tau2-bench")
        self.assertEqual(system["provenance"]["harness_commit"], "a2c0247")
        self.assertEqual(system["provenance"]["log_format"], "tau2-results-json")
        self.assertIsNone(system["provenance"]["log_format_version"])
        self.assertEqual(system["protocol"], load_json(SPEC)["protocol"])

    def test_a_candidate_that_faced_another_simulated_user_is_incomparable(self):
        log = load_json(CANDIDATE)
        log["info"]["user_info"]["llm"] = "another-user-model"
        folder = TempDir(self)
        candidate = folder.write_json("candidate.json", log)
        results = os.path.join(folder.path, "results.json")
        cases = os.path.join(folder.path, "cases.json")
        run = run_cli(["import", "--baseline", BASELINE, "--candidate", candidate,
                       "--mapping", MAPPING, "--write-cases", cases, "--output", results])
        self.assertEqual(run.status, 0, run.stderr)
        gate = run_cli(["--spec", SPEC, "--cases", cases, "--results", results])
        self.assertEqual(gate.document["action"], "INCOMPARABLE")
        self.assertEqual(gate.document["comparison"]["protocol_mismatches"], [
            'gpt-4.1.protocol_version: expected="tau2-retail-user-gpt-4.1", '
            'actual="tau2-retail-user-another-user-model"'])

    def test_without_a_timeout_in_the_mapping_the_protocol_is_incomplete(self):
        run, _written = run_import(self, BASELINE, CANDIDATE)
        self.assertEqual(run.status, 2)
        self.assertEqual({(error["code"], error["file"]) for error in run.document["errors"]},
                         {("import.missing_field", BASELINE),
                          ("import.missing_field", CANDIDATE)})
        self.assertIn("timeout_seconds", run.document["errors"][0]["message"])


def reader(mapping=None, log=None):
    settings = Settings(dict(mapping, schema_version="x")) if mapping else default_settings()
    log = log or load_json(CANDIDATE)
    run, tasks, tools = _header(log, settings)
    return SimulationReader(settings, run, tasks, tools)


def simulation(task_id="3", trial=0):
    log = load_json(CANDIDATE)
    return copy.deepcopy(next(item for item in log["simulations"]
                              if item["task_id"] == task_id and item["trial"] == trial))


class SimulationTests(unittest.TestCase):
    def record(self, changes=None, mapping=None, base=None):
        value = base or simulation()
        value.update(changes or {})
        return reader(mapping).trial(value, ("simulations", 9)).record

    def test_status_from_the_termination_reason(self):
        for reason, status in (("user_stop", "success"), ("agent_stop", "success"),
                               ("timeout", "timeout"), ("max_steps", "error"),
                               ("too_many_errors", "error"), ("agent_error", "error"),
                               ("user_error", "error"), ("context_window_exceeded", "error"),
                               ("unexpected_error", "error"),
                               ("infrastructure_error", "unknown"),
                               ("a_reason_of_a_later_tau2", "unknown")):
            with self.subTest(reason=reason):
                self.assertEqual(self.record({"termination_reason": reason})["status"],
                                 status)

    def test_final_state_from_the_database_check_and_assertions(self):
        self.assertEqual(self.record()["final_state"], "db_mismatch")
        good = simulation("0")
        self.assertEqual(self.record(base=good)["final_state"], "db_match")
        good["reward_info"]["env_assertions"] = [{"env_assertion": {}, "met": False,
                                                  "reward": 0.0}]
        self.assertEqual(self.record(base=good)["final_state"], "env_assertion_failed")
        self.assertIsNone(self.record({"reward_info": None})["final_state"])

    def test_final_state_from_the_reward(self):
        mapping = {"final_state": {"source": "reward"}}
        self.assertEqual(self.record(mapping=mapping)["final_state"], "no_reward")
        self.assertEqual(self.record(base=simulation("0"), mapping=mapping)["final_state"],
                         "full_reward")

    def test_tools_side_effects_latency_and_cost(self):
        record = self.record()
        self.assertEqual(record["tools_used"], ["cancel_pending_order",
                                                "find_user_id_by_email", "get_order_details"])
        self.assertEqual(record["side_effects"], ["cancel_pending_order"])
        self.assertEqual(record["latency_ms"], 5750)
        self.assertEqual(record["cost_units"], 0.0042)
        self.assertEqual(self.record(mapping={"cost": {"source": "agent_cost", "scale": 1000}})[
            "cost_units"], 4.2)

    def test_arrays_of_another_type_are_read_as_empty(self):
        value = simulation("0")
        value["messages"] = 5
        value["reward_info"]["env_assertions"] = "none"
        record = self.record(base=value)
        self.assertEqual((record["tools_used"], record["final_state"]), ([], "db_match"))

    def test_the_users_tool_calls_are_not_the_agents(self):
        value = simulation()
        for message in value["messages"]:
            if message["role"] == "assistant":
                message["role"] = "user"
        self.assertEqual(self.record(base=value)["tools_used"], [])

    def test_bad_simulations_are_contract_errors_at_their_path(self):
        for changes, code, path in (
                ({"duration": -1}, "import.field_type", ("simulations", 9, "duration")),
                ({"trial": None}, "import.missing_field", ("simulations", 9, "trial")),
                ({"trial": -1}, "import.sample_epoch", ("simulations", 9, "trial")),
                ({"task_id": 2.5}, "import.sample_id", ("simulations", 9, "task_id")),
                ({"agent_cost": "1"}, "import.field_type", ("simulations", 9, "agent_cost"))):
            with self.subTest(changes=changes):
                with self.assertRaises(LogError) as caught:
                    self.record(changes)
                self.assertEqual((caught.exception.code, caught.exception.path), (code, path))


class BadResultsTests(unittest.TestCase):
    def bad(self, change, code, path):
        log = load_json(BASELINE)
        change(log)
        folder = TempDir(self)
        path_given = folder.write_json("results.json", log)
        run, written = run_import(self, path_given, CANDIDATE, "--mapping", MAPPING)
        self.assertEqual(run.status, 2, run.stdout[:400])
        self.assertIsNone(written)
        self.assertIn((code, path, path_given), [(error["code"], error["path"], error["file"])
                                                  for error in run.document["errors"]])

    def test_a_newer_format_version(self):
        self.bad(lambda log: log.update(format_version=2), "import.format_version",
                 "$.format_version")

    def test_a_missing_domain(self):
        self.bad(lambda log: log["info"]["environment_info"].pop("domain_name"),
                 "import.missing_field", "$.info.environment_info.domain_name")

    def test_simulations_that_are_not_an_array(self):
        self.bad(lambda log: log.update(simulations={}), "import.field_type", "$.simulations")

    def test_a_duplicate_task_and_trial(self):
        self.bad(lambda log: log["simulations"].append(copy.deepcopy(log["simulations"][0])),
                 "import.duplicate_sample", "$.simulations[21]")

    def test_a_bad_simulation_names_its_index(self):
        self.bad(lambda log: log["simulations"][4].update(duration="4 s"), "import.field_type",
                 "$.simulations[4].duration")

    def test_unmeasured_durations_and_costs_are_null(self):
        log = load_json(BASELINE)
        log["simulations"][4].pop("duration")
        log["simulations"][5]["agent_cost"] = None
        run, written = run_import(self, TempDir(self).write_json("r.json", log), CANDIDATE,
                                  "--mapping", MAPPING)
        self.assertEqual(run.status, 0, run.stderr)
        found = [(record["case_id"], record["trial_id"], record["latency_ms"],
                  record["cost_units"]) for record in records(written, "baseline")
                 if record["latency_ms"] is None or record["cost_units"] is None]
        self.assertEqual(found, [("1", 2, None, 0.0042), ("1", 3, 5000, None)])

    def test_unknown_fields_are_ignored(self):
        log = load_json(BASELINE)
        log["a_later_field"] = 1
        for item in log["simulations"]:
            item["another_later_field"] = {"x": 1}
        folder = TempDir(self)
        grown = folder.write_json("results.json", log)
        _run, original = run_import(self, BASELINE, CANDIDATE, "--mapping", MAPPING)
        run, imported = run_import(self, grown, CANDIDATE, "--mapping", MAPPING)
        self.assertEqual(run.status, 0, run.stderr)
        self.assertEqual(records(original, "baseline"), records(imported, "baseline"))


if __name__ == "__main__":
    unittest.main()
