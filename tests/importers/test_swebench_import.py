"""The SWE-bench importer, on run summaries SWE-bench's own ``make_run_report`` wrote
(``make_swebench_runs.py``), and the trials of one system from several logs (one run per
log), as the import numbers them on in the order given."""

import hashlib
import json
import os
import unittest
import zipfile

from proagents_bench.contract.validate import file_errors
from tests.importers.support import changed_eval, fixture, load_json, read_bytes, records
from tests.support import TempDir, run_cli

BASELINE = [fixture("swebench_baseline_run%d.json" % number) for number in (1, 2, 3)]
CANDIDATE = [fixture("swebench_candidate_run%d.json" % number) for number in (1, 2, 3)]
MAPPING = fixture("swebench_mapping.json")
SPEC = fixture("swebench_spec.json")
INCOMPLETE = fixture("swebench_incomplete.json")


def load_eval_id(name):
    with zipfile.ZipFile(fixture(name)) as archive:
        return json.loads(archive.read("header.json").decode("utf-8"))["eval"]["eval_id"]


def logs(option, paths):
    arguments = []
    for path in paths:
        arguments += [option, path]
    return arguments


def run_swebench(test, baseline=BASELINE, candidate=CANDIDATE, *arguments):
    """``import`` of the runs (three a system by default) with the fixtures' mapping and
    ids; return (Run, written results or None, the folder)."""
    folder = TempDir(test)
    output = os.path.join(folder.path, "results.json")
    run = run_cli(["import"] + logs("--baseline", baseline) + logs("--candidate", candidate)
                  + ["--mapping", MAPPING, "--baseline-id", "agent-v1", "--candidate-id",
                     "agent-v2", "--output", output] + list(arguments))
    written = load_json(output) if run.status == 0 else None
    return run, written, folder


class EndToEndTests(unittest.TestCase):
    def test_three_runs_a_system_go_to_a_decision_with_two_commands(self):
        cases = os.path.join(TempDir(self).path, "cases.json")
        run, written, folder = run_swebench(self, BASELINE, CANDIDATE, "--write-cases", cases)
        self.assertEqual(run.status, 0, run.stderr)
        self.assertEqual(written["schema_version"], "agent-benchmark-results-v4")
        self.assertEqual(file_errors("results", written), [])
        gate = run_cli(["--spec", SPEC, "--cases", cases, "--results",
                        os.path.join(folder.path, "results.json")])
        self.assertEqual(gate.status, 1, gate.stderr)
        self.assertEqual(gate.document["action"], "REVIEW")
        # SWE-bench records no time or cost: the latency and cost gates cannot be judged.
        self.assertIn("latency_ms is unmeasured (null) in 15 of 15 trials",
                      gate.document["primary_reason"])
        paired = gate.document["comparison"]["paired_statistics"]
        self.assertEqual((paired["candidate_only"], paired["baseline_only"]), (2, 0))
        self.assertEqual(gate.document["candidate_metrics"]["unknown_trial_count"], 1)

    def test_each_run_is_one_trial_numbered_in_the_order_given(self):
        run, written, _folder = run_swebench(self)
        self.assertEqual(run.status, 0, run.stderr)
        baseline = records(written, "baseline")
        self.assertEqual(len(baseline), 15)
        self.assertEqual(written["systems"][0]["protocol"]["trial_count"], 3)
        outcome = {(record["case_id"][-3:], record["trial_id"]):
                   (record["status"], record["final_state"]) for record in baseline}
        # 103 resolved in run 1 only; 105 had no patch in run 1.
        self.assertEqual([outcome[("103", trial)][1] for trial in (1, 2, 3)],
                         ["resolved", "unresolved", "unresolved"])
        self.assertEqual(outcome[("105", 1)], ("success", "empty_patch"))
        # Given in another order, run 3 is trial 1.
        run, reordered, _folder = run_swebench(self, BASELINE[::-1])
        self.assertEqual(run.status, 0, run.stderr)
        outcome = {(record["case_id"][-3:], record["trial_id"]): record["final_state"]
                   for record in records(reordered, "baseline")}
        self.assertEqual([outcome[("103", trial)] for trial in (1, 2, 3)],
                         ["unresolved", "unresolved", "resolved"])

    def test_an_environment_failure_is_unknown_never_the_agents(self):
        run, written, _folder = run_swebench(self)
        self.assertEqual(run.status, 0, run.stderr)
        failed = [(record["case_id"], record["trial_id"], record["status"],
                   record["final_state"]) for record in records(written, "candidate")
                  if record["status"] != "success"]
        self.assertEqual(failed, [("acme__widgets-105", 2, "unknown", None)])

    def test_an_error_is_an_error_record(self):
        folder = TempDir(self)
        summary = load_json(CANDIDATE[1])
        summary["infra_failure_ids"] = []
        path = folder.write_json("agent-v2.run2.json", summary)
        run, written, _folder = run_swebench(self, BASELINE, [CANDIDATE[0], path, CANDIDATE[2]])
        self.assertEqual(run.status, 0, run.stderr)
        record = next(record for record in records(written, "candidate")
                      if record["status"] != "success")
        self.assertEqual((record["case_id"], record["trial_id"], record["status"],
                          record["final_state"]), ("acme__widgets-105", 2, "error", None))

    def test_an_ambiguous_failure_is_unknown_never_the_agents(self):
        # SWE-bench lists a failure it cannot tell the environment's or the agent's in
        # ambiguous_failure_ids, beside its unresolved_ids entry.
        folder = TempDir(self)
        summary = load_json(CANDIDATE[0])
        summary["resolved_ids"].remove("acme__widgets-104")
        summary["unresolved_ids"] = ["acme__widgets-104"]
        summary["ambiguous_failure_ids"] = ["acme__widgets-104"]
        path = folder.write_json("agent-v2.run1.json", summary)
        run, written, _folder = run_swebench(self, BASELINE, [path] + CANDIDATE[1:])
        self.assertEqual(run.status, 0, run.stderr)
        record = next(record for record in records(written, "candidate")
                      if record["case_id"] == "acme__widgets-104" and record["trial_id"] == 1)
        self.assertEqual((record["status"], record["final_state"]), ("unknown", None))

    def test_an_instance_under_two_outcomes_is_refused(self):
        folder = TempDir(self)
        for key in ("unresolved_ids", "resolved_ids", "error_ids"):
            with self.subTest(also_in=key):
                summary = load_json(CANDIDATE[0])
                summary[key] = summary[key] + ["acme__widgets-101"]
                path = folder.write_json("agent-v2.run1.json", summary)
                run, written, _folder = run_swebench(self, BASELINE, [path] + CANDIDATE[1:])
                self.assertIsNone(written)
                error = run.document["errors"][0]
                self.assertEqual(error["code"], "import.sample_id")
                self.assertIn("acme__widgets-101", error["message"])
                self.assertIn(key, error["path"] + error["message"])

    def test_each_logs_provenance_is_kept_with_its_trial_ids(self):
        run, written, _folder = run_swebench(self)
        self.assertEqual(run.status, 0, run.stderr)
        provenance = written["systems"][1]["provenance"]
        self.assertEqual([(log["log_file"], log["first_trial_id"], log["trial_count"],
                           log["log_format"], log["log_format_version"])
                          for log in provenance["logs"]],
                         [(os.path.basename(path), number, 1, "swebench-summary", "2")
                          for number, path in enumerate(CANDIDATE, 1)])
        self.assertEqual(provenance["logs"][0]["log_sha256"],
                         hashlib.sha256(read_bytes(CANDIDATE[0])).hexdigest())
        self.assertEqual(provenance["recorded_unknown"], [])
        self.assertEqual(run.document["systems"][1]["logs"], CANDIDATE)
        self.assertIn("log 2 \"swebench_candidate_run2.json\": trials 2 to 2", run.stderr)

    def test_one_run_alone_is_refused_as_one_trial(self):
        run, _written, _folder = run_swebench(self, BASELINE[:1], CANDIDATE)
        self.assertEqual(run.status, 2)
        error = run.document["errors"][0]
        self.assertEqual(error["code"], "import.protocol")
        self.assertIn("trial_count would be 1", error["message"])

    def test_two_runs_make_two_trials(self):
        run, written, _folder = run_swebench(self, BASELINE[:2], CANDIDATE[1:])
        self.assertEqual(run.status, 0, run.stderr)
        self.assertEqual([system["protocol"]["trial_count"] for system in written["systems"]],
                         [2, 2])


class IncompleteRunTests(unittest.TestCase):
    def test_a_run_missing_an_instance_is_incomplete(self):
        run, _written, _folder = run_swebench(self, [BASELINE[0], INCOMPLETE])
        self.assertEqual(run.status, 2)
        error = run.document["errors"][0]
        self.assertEqual((error["code"], error["file"]), ("import.incomplete_run", INCOMPLETE))
        self.assertIn("the first instance \"acme__widgets-104\" run 1", error["message"])

    def test_missing_as_unknown_records_it_at_its_trial_of_the_system(self):
        run, written, _folder = run_swebench(self, [BASELINE[0], INCOMPLETE],
                                             CANDIDATE[:2], "--missing-as", "unknown")
        self.assertEqual(run.status, 0, run.stderr)
        provenance = written["systems"][0]["provenance"]
        self.assertEqual(provenance["recorded_unknown"],
                         [{"case_id": "acme__widgets-104", "trial_id": 2}])
        record = next(record for record in records(written, "baseline")
                      if record["status"] == "unknown")
        self.assertEqual((record["case_id"], record["trial_id"]), ("acme__widgets-104", 2))

    def test_the_gate_names_the_logs_of_the_unknown_trials(self):
        folder = TempDir(self)
        cases = os.path.join(folder.path, "cases.json")
        run, _written, imported = run_swebench(self, [BASELINE[0], INCOMPLETE, BASELINE[2]],
                                               CANDIDATE, "--missing-as", "unknown",
                                               "--write-cases", cases)
        self.assertEqual(run.status, 0, run.stderr)
        gate = run_cli(["--spec", SPEC, "--cases", cases, "--results",
                        os.path.join(imported.path, "results.json")])
        self.assertEqual(gate.status, 1, gate.stderr)
        finding = next(finding for finding in gate.document["findings"]
                       if finding["code"] == "missing_trials_recorded_unknown")
        self.assertEqual((finding["severity"], finding["case_ids"]),
                         ("review", ["acme__widgets-104"]))
        self.assertIn("1 trial of the baseline agent-v1 was missing from its logs "
                      "swebench_baseline_run1.json, swebench_incomplete.json, "
                      "swebench_baseline_run3.json and is recorded as unknown",
                      " ".join(gate.document["reasons"]))

    def test_a_summary_without_any_instance_has_no_samples(self):
        summary = load_json(BASELINE[0])
        for key in ("resolved_ids", "unresolved_ids", "error_ids", "empty_patch_ids",
                    "incomplete_ids", "infra_failure_ids"):
            summary[key] = []
        summary["total_instances"] = 0
        path = TempDir(self).write_json("agent-v1.empty.json", summary)
        run, _written, _folder = run_swebench(self, [BASELINE[0], path])
        self.assertEqual(run.status, 2)
        self.assertEqual([(error["code"], error["file"]) for error in run.document["errors"]],
                         [("import.no_samples", path)])

    def test_a_summary_counting_more_instances_than_it_names_cannot_be_completed(self):
        summary = load_json(BASELINE[1])
        summary["total_instances"] = 6
        path = TempDir(self).write_json("agent-v1.more.json", summary)
        run, _written, _folder = run_swebench(self, [BASELINE[0], path], CANDIDATE,
                                              "--missing-as", "unknown")
        self.assertEqual(run.status, 2)
        error = run.document["errors"][0]
        self.assertEqual(error["code"], "import.incomplete_run")
        self.assertIn("holds 5 samples of the 6 its header counts", error["message"])

    def test_another_schema_version_is_refused(self):
        summary = load_json(BASELINE[1])
        summary["schema_version"] = 3
        path = TempDir(self).write_json("agent-v1.v3.json", summary)
        run, _written, _folder = run_swebench(self, [BASELINE[0], path])
        self.assertEqual(run.status, 2)
        error = run.document["errors"][0]
        self.assertEqual((error["code"], error["path"]),
                         ("import.format_version", "$.schema_version"))

    def test_an_instance_id_that_is_not_a_string_is_placed(self):
        summary = load_json(BASELINE[1])
        summary["resolved_ids"][1] = 7
        path = TempDir(self).write_json("agent-v1.bad.json", summary)
        run, _written, _folder = run_swebench(self, [BASELINE[0], path])
        self.assertEqual(run.status, 2)
        error = run.document["errors"][0]
        self.assertEqual((error["code"], error["path"]),
                         ("import.sample_id", "$.resolved_ids[1]"))


    def test_an_instance_id_with_a_lone_surrogate_is_a_field_type_error(self):
        # json.loads takes "\\ud800" from a summary, but it is no Unicode character.
        for key in ("resolved_ids", "incomplete_ids"):
            with self.subTest(key=key):
                summary = load_json(BASELINE[1])
                summary[key] = summary[key] + ["acme__widgets-\ud800"]
                path = TempDir(self).write_bytes("agent-v1.bad.json", json.dumps(
                    summary).encode("ascii"))
                run, _written, _folder = run_swebench(self, [BASELINE[0], path])
                self.assertEqual(run.status, 2, run.stderr)
                self.assertEqual([(error["code"], error["path"], error["file"])
                                  for error in run.document["errors"]],
                                 [("import.field_type", "$.%s[%d]" % (key, len(summary[key]) - 1),
                                   path)])


SUBSET = {role: [fixture("swebench_subset_%s_run%d.json" % (role, number))
                 for number in (1, 2, 3)] for role in ("baseline", "candidate")}


class SubsetRunTests(unittest.TestCase):
    """Runs that submitted five instances of a dataset of twenty (``incomplete_ids``: the
    other fifteen), as SWE-bench's make_run_report wrote them."""

    def test_by_default_the_instances_without_a_prediction_are_missing_and_the_road_said(self):
        run, _written, _folder = run_swebench(self, SUBSET["baseline"], SUBSET["candidate"])
        self.assertEqual(run.status, 2)
        error = run.document["errors"][0]
        self.assertEqual((error["code"], error["file"]),
                         ("import.incomplete_run", SUBSET["baseline"][0]))
        self.assertIn("15 (instance, run) pairs of the 20 its header lists are missing",
                      error["message"])
        self.assertIn("or, for a run on part of the dataset, import it with "
                      "--swebench-instances submitted: its instances are then the 5 it "
                      "submitted, and the 15 of the dataset without a prediction "
                      "(incomplete_ids) are outside the benchmark", error["message"])

    def test_the_submitted_instances_are_the_benchmark_on_request(self):
        cases = os.path.join(TempDir(self).path, "cases.json")
        run, written, folder = run_swebench(self, SUBSET["baseline"], SUBSET["candidate"],
                                            "--swebench-instances", "submitted",
                                            "--write-cases", cases)
        self.assertEqual(run.status, 0, run.stderr)
        # The same records, ids and protocol as the runs evaluated on their five instances.
        run, whole, _folder = run_swebench(self)
        self.assertEqual(run.status, 0, run.stderr)
        for key in ("benchmark_id", "benchmark_version", "dataset_version"):
            self.assertEqual(written[key], whole[key])
        self.assertEqual([(system["protocol"], system["records"])
                          for system in written["systems"]],
                         [(system["protocol"], system["records"])
                          for system in whole["systems"]])
        self.assertEqual(len(load_json(cases)["cases"]), 5)
        gate = run_cli(["--spec", SPEC, "--cases", cases, "--results",
                        os.path.join(folder.path, "results.json")])
        self.assertEqual((gate.status, gate.document["action"]), (1, "REVIEW"))

    def test_a_summary_that_counts_more_than_it_lists_says_how_many_it_names(self):
        # SWE-bench's total_instances counts the dataset's rows; its lists hold ids: a row
        # the lists lack (here one more row) cannot be named, the others are.
        summary = load_json(SUBSET["baseline"][1])
        summary["total_instances"] = 21
        path = TempDir(self).write_json("agent-v1.rows.json", summary)
        run, _written, _folder = run_swebench(self, [SUBSET["baseline"][0], path],
                                              SUBSET["candidate"][:2], "--missing-as",
                                              "unknown")
        self.assertEqual(run.status, 2)
        messages = [error["message"] for error in run.document["errors"]
                    if error["file"] == path]
        self.assertEqual(len(messages), 1)
        self.assertIn("the log holds 5 samples of the 21 its header counts (16 missing), and "
                      "its header names 15 of the 16 missing, so the other 1 cannot be "
                      "named, and none is recorded", messages[0])
        # Its submitted instances alone are the run's, whatever the dataset counts.
        run, _written, _folder = run_swebench(self, [SUBSET["baseline"][0], path],
                                              SUBSET["candidate"][:2],
                                              "--swebench-instances", "submitted")
        self.assertEqual(run.status, 0, run.stderr)


class SeveralLogsTests(unittest.TestCase):
    def test_one_log_given_twice_is_refused(self):
        run, _written, _folder = run_swebench(self, [BASELINE[0], BASELINE[1], BASELINE[0]])
        self.assertEqual(run.status, 2)
        self.assertEqual([(error["code"], error["file"]) for error in run.document["errors"]],
                         [("import.duplicate_log", BASELINE[0])])
        self.assertIn("log 3 is the same log as its log 1", run.document["errors"][0]["message"])

    def test_a_copy_of_a_log_is_refused_but_two_runs_of_the_same_bytes_are_not(self):
        folder = TempDir(self)
        os.mkdir(os.path.join(folder.path, "copy"))
        copy = os.path.join(folder.path, "copy", os.path.basename(BASELINE[1]))
        with open(BASELINE[1], "rb") as source, open(copy, "wb") as target:
            target.write(source.read())
        run, _written, _folder = run_swebench(self, [BASELINE[1], copy])
        self.assertEqual(run.status, 2)
        self.assertEqual(run.document["errors"][0]["code"], "import.duplicate_log")
        # Runs 2 and 3 wrote the same bytes (the same outcomes): two runs, two trials.
        with open(BASELINE[1], "rb") as second, open(BASELINE[2], "rb") as third:
            self.assertEqual(second.read(), third.read())
        run, _written, _folder = run_swebench(self, BASELINE[1:])
        self.assertEqual(run.status, 0, run.stderr)

    def test_logs_of_different_cases_are_refused(self):
        summary = load_json(BASELINE[1])
        summary["unresolved_ids"].append("acme__widgets-106")
        summary["total_instances"] = 6
        path = TempDir(self).write_json("agent-v1.more.json", summary)
        run, _written, _folder = run_swebench(self, [BASELINE[0], path])
        self.assertEqual(run.status, 2)
        error = run.document["errors"][0]
        self.assertEqual((error["code"], error["file"]), ("import.cases_mismatch", path))
        self.assertIn("log 2 has samples of case \"acme__widgets-106\" that its log 1",
                      error["message"])

    def test_a_damaged_log_is_the_only_one_blamed(self):
        # The second summary cut short: its import.json error, and no error of the intact
        # first (its trial count alone would be 1, which the contract refuses).
        folder = TempDir(self)
        for role in ("baseline", "candidate"):
            with self.subTest(role=role):
                path = folder.write_bytes("%s-cut.json" % role, read_bytes(BASELINE[1])[:200])
                logs = {"baseline": [BASELINE[0], path], "candidate": [CANDIDATE[0], path]}
                run, _written, _folder = run_swebench(
                    self, logs["baseline"] if role == "baseline" else BASELINE[:2],
                    logs["candidate"] if role == "candidate" else CANDIDATE[:2])
                self.assertEqual(run.status, 2)
                self.assertEqual([(error["code"], error["file"])
                                  for error in run.document["errors"]],
                                 [("import.json", path)])

    def test_the_mappings_trial_count_is_the_systems(self):
        folder = TempDir(self)
        mapping = load_json(MAPPING)
        mapping["protocol"]["trial_count"] = 2
        path = folder.write_json("mapping.json", mapping)
        run = run_cli(["import"] + logs("--baseline", BASELINE) + logs("--candidate", CANDIDATE)
                      + ["--mapping", path, "--baseline-id", "a", "--candidate-id", "b",
                         "--output", os.path.join(folder.path, "results.json")])
        self.assertEqual(run.status, 2)
        error = run.document["errors"][0]
        self.assertEqual(error["code"], "mapping.protocol_conflict")
        self.assertIn("the baseline's 3 logs hold 3 trials of each case (1 + 1 + 1)",
                      error["message"])
        mapping["protocol"]["trial_count"] = 3
        path = folder.write_json("mapping3.json", mapping)
        run = run_cli(["import"] + logs("--baseline", BASELINE) + logs("--candidate", CANDIDATE)
                      + ["--mapping", path, "--baseline-id", "a", "--candidate-id", "b",
                         "--output", os.path.join(folder.path, "results.json")])
        self.assertEqual(run.status, 0, run.stderr)

    def test_one_log_per_system_is_still_a_results_v3_package(self):
        folder = TempDir(self)
        output = os.path.join(folder.path, "results.json")
        run = run_cli(["import", "--baseline", fixture("tau2_baseline.json"), "--candidate",
                       fixture("tau2_candidate.json"), "--mapping", fixture("tau2_mapping.json"),
                       "--output", output])
        self.assertEqual(run.status, 0, run.stderr)
        self.assertEqual(load_json(output)["schema_version"], "agent-benchmark-results-v3")

    def test_logs_of_different_task_versions_are_not_one_system(self):
        def task_version_2(name, value):
            if name == "header.json":
                value["eval"]["task_version"] = 2
                value["eval"]["eval_id"] = "another-eval"

        changed = changed_eval(TempDir(self), "baseline-v2.eval", task_version_2)
        run = run_cli(["import", "--baseline", fixture("baseline.eval"), "--baseline", changed,
                       "--candidate", fixture("candidate.eval"), "--baseline-id", "a",
                       "--candidate-id", "b", "--output",
                       os.path.join(TempDir(self).path, "results.json")])
        self.assertEqual(run.status, 2)
        self.assertEqual([(error["code"], error["file"]) for error in run.document["errors"]],
                         [("import.logs_differ", changed)])
        self.assertIn("the baseline's log 2 records protocol.protocol_version "
                      "\"inspect-order_agent-v2\", its log 1",
                      run.document["errors"][0]["message"])

    def test_two_inspect_evals_of_one_system_are_its_trials_in_order(self):
        def another_run(name, value):
            # A run of its own: the baseline's and the candidate's second evals differ (one
            # run given for both systems is import.same_log).
            if name == "header.json":
                value["eval"]["eval_id"] = "another-eval-" + value["eval"]["eval_id"]

        changed = changed_eval(TempDir(self), "baseline-again.eval", another_run)
        output = os.path.join(TempDir(self).path, "results.json")
        run = run_cli(["import", "--baseline", fixture("baseline.eval"), "--baseline", changed,
                       "--candidate", fixture("candidate.eval"), "--candidate",
                       fixture("candidate.eval"), "--mapping", fixture("inspect_mapping.json"),
                       "--baseline-id", "a", "--candidate-id", "b", "--output", output])
        # The candidate's one log given twice is refused ...
        self.assertEqual(run.status, 2)
        self.assertEqual([error["code"] for error in run.document["errors"]],
                         ["import.duplicate_log"])
        changed_candidate = changed_eval(TempDir(self), "candidate-again.eval", another_run,
                                         source="candidate.eval")
        run = run_cli(["import", "--baseline", fixture("baseline.eval"), "--baseline", changed,
                       "--candidate", fixture("candidate.eval"), "--candidate",
                       changed_candidate, "--mapping", fixture("inspect_mapping.json"),
                       "--baseline-id", "a", "--candidate-id", "b", "--output", output])
        # ... two evals of 3 epochs each are 6 trials: the second's epoch e is trial 3 + e.
        self.assertEqual(run.status, 0, run.stderr)
        written = load_json(output)
        self.assertEqual([system["protocol"]["trial_count"] for system in written["systems"]],
                         [6, 6])
        baseline = [(record["trial_id"], record["status"]) for record in
                    records(written, "baseline") if record["case_id"] == "test-status"]
        # The fixture's one error is test-status epoch 3, in both copies of the run.
        self.assertEqual(baseline, [(1, "success"), (2, "success"), (3, "error"),
                                    (4, "success"), (5, "success"), (6, "error")])
        self.assertEqual([(log["log_file"], log["first_trial_id"], log["run_id"])
                          for log in written["systems"][0]["provenance"]["logs"]],
                         [("baseline.eval", 1, load_eval_id("baseline.eval")),
                          ("baseline-again.eval", 4,
                           "another-eval-" + load_eval_id("baseline.eval"))])

    def test_a_summary_for_both_systems_is_one_log_but_equal_outcomes_are_not(self):
        # The baseline's runs 2 and 3 wrote the same bytes: as baseline and candidate runs,
        # under their own names, they are two systems' runs.
        run, _written, _folder = run_swebench(self, BASELINE[:2], BASELINE[2:] + CANDIDATE[:1])
        self.assertEqual(run.status, 0, run.stderr)
        run, _written, _folder = run_swebench(self, BASELINE[:2], [CANDIDATE[0], BASELINE[1]])
        self.assertEqual(run.status, 2)
        self.assertEqual([(error["code"], error["message"][:55]) for error in
                          run.document["errors"]],
                         [("import.same_log", "the candidate's log 2 is the baseline's log 2 "
                           "(the same")])

