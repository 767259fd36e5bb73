"""The Harbor importer, on job folders written with Harbor's own data model
(``make_harbor_jobs.py``)."""

import datetime
import hashlib
import json
import os
import shutil
import unittest

from tests.importers.support import fixture, load_json, read_bytes, records
from tests.support import TempDir, run_cli

BASELINE = fixture("harbor_baseline_job")
CANDIDATE = fixture("harbor_candidate_job")
RETASK = fixture("harbor_candidate_retask_job")
UNFINISHED = fixture("harbor_unfinished_job")
MAPPING = fixture("harbor_mapping.json")
CASES = fixture("harbor_cases.json")
SPEC = fixture("harbor_spec.json")


def harbor_import(test, baseline, candidate, *arguments):
    """``import`` of Harbor jobs (a path or a list of paths per system) with the fixtures'
    mapping; return (Run, written results or None, the results' path)."""
    output = os.path.join(TempDir(test).path, "results.json")
    given = []
    for option, jobs in (("--baseline", baseline), ("--candidate", candidate)):
        for job in [jobs] if isinstance(jobs, str) else jobs:
            given += [option, job]
    run = run_cli(["import"] + given + ["--mapping", MAPPING, "--output", output]
                  + list(arguments))
    return run, (load_json(output) if run.status == 0 else None), output


def copied_job(test, source=BASELINE, name="job"):
    """A copy of a fixture job folder, to change."""
    path = os.path.join(TempDir(test).path, name)
    shutil.copytree(source, path)
    return path


def edit(path, change):
    value = load_json(path)
    change(value)
    with open(path, "w", encoding="utf-8") as handle:
        json.dump(value, handle, indent=4)


def trial_folder(job, task, number=0):
    """The ``number``-th trial folder (in name order) of ``task`` in ``job``."""
    return os.path.join(job, sorted(name for name in os.listdir(job)
                                    if name.startswith(task + "__"))[number])


class EndToEndTests(unittest.TestCase):
    def test_a_job_folder_goes_to_a_block_decision_with_two_commands(self):
        run, _written, results = harbor_import(self, BASELINE, CANDIDATE, "--cases", CASES)
        self.assertEqual(run.status, 0, run.stderr)
        gate = run_cli(["--spec", SPEC, "--cases", CASES, "--results", results])
        self.assertEqual(gate.status, 1, gate.stderr)
        self.assertEqual(gate.document["action"], "BLOCK")
        self.assertIn("critical task clean-workspace failed: 3 of 3 trials performed "
                      "forbidden side effect rm_rf", gate.document["primary_reason"])

    def test_other_task_versions_are_incomparable(self):
        run, written, results = harbor_import(self, BASELINE, RETASK, "--cases", CASES)
        self.assertEqual(run.status, 0, run.stderr)
        versions = [system["protocol"]["protocol_version"] for system in written["systems"]]
        self.assertNotEqual(versions[0], versions[1])
        gate = run_cli(["--spec", SPEC, "--cases", CASES, "--results", results])
        self.assertEqual(gate.status, 1, gate.stderr)
        self.assertEqual(gate.document["action"], "INCOMPARABLE")
        self.assertIn("protocol_version", gate.document["primary_reason"])

    def test_another_dataset_version_is_incomparable(self):
        job = copied_job(self, CANDIDATE)
        edit(os.path.join(job, "config.json"),
             lambda config: config["datasets"][0].update(version="1.1"))
        run, written, _results = harbor_import(self, BASELINE, job, "--cases", CASES)
        self.assertEqual(run.status, 0, run.stderr)
        self.assertIn("acme-terminal@1.1-tasks-",
                      written["systems"][1]["protocol"]["protocol_version"])
        self.assertIn("acme-terminal@1.0-tasks-",
                      written["systems"][0]["protocol"]["protocol_version"])


class RecordTests(unittest.TestCase):
    def imported(self, baseline=BASELINE, candidate=CANDIDATE):
        run, written, _results = harbor_import(self, baseline, candidate)
        self.assertEqual(run.status, 0, run.stderr)
        return written

    def test_attempts_become_trials_and_every_trial_is_a_record(self):
        written = self.imported()
        baseline = records(written, "baseline")
        self.assertEqual(len(baseline), 12)
        self.assertEqual(written["systems"][0]["protocol"]["trial_count"], 3)
        self.assertEqual(written["systems"][0]["system_id"], "terminus-2:acme/model-a")
        self.assertEqual(sorted({record["trial_id"] for record in baseline}), [1, 2, 3])
        provenance = written["systems"][0]["provenance"]
        self.assertEqual((provenance["log_format"], provenance["harness"],
                          provenance["harness_version"], provenance["run_status"]),
                         ("harbor-job", "harbor", "0.26.0", "finished"))
        self.assertEqual(provenance["run_id"],
                         load_json(os.path.join(BASELINE, "result.json"))["id"])

    def test_the_jobs_digest_is_that_of_its_manifest(self):
        written = self.imported()
        provenance = written["systems"][0]["provenance"]
        entries = ["config.json", "result.json", "lock.json"]
        for name in sorted(os.listdir(BASELINE)):
            if os.path.isfile(os.path.join(BASELINE, name, "result.json")):
                entries.append(name + "/result.json")
                if os.path.isfile(os.path.join(BASELINE, name, "agent", "trajectory.json")):
                    entries.append(name + "/agent/trajectory.json")
        manifest = "".join("%s  %s\n" % (hashlib.sha256(read_bytes(os.path.join(
            BASELINE, *entry.split("/")))).hexdigest(), entry) for entry in entries)
        self.assertEqual(provenance["log_sha256"],
                         hashlib.sha256(manifest.encode("utf-8")).hexdigest())
        self.assertEqual(provenance["log_bytes"], sum(
            len(read_bytes(os.path.join(BASELINE, *entry.split("/")))) for entry in entries))
        self.assertEqual(len(entries), 3 + 12 + 11)  # the lost attempt left no trajectory

    def test_an_environment_failure_is_unknown_and_an_agent_timeout_a_timeout(self):
        written = self.imported()
        lost = [record for record in records(written, "baseline")
                if record["status"] != "success"]
        self.assertEqual([(record["case_id"], record["status"], record["final_state"],
                           record["latency_ms"], record["cost_units"]) for record in lost],
                         [("parse-logs", "unknown", None, None, None)])
        timed_out = [record for record in records(written, "candidate")
                     if record["status"] != "success"]
        self.assertEqual([(record["case_id"], record["status"], record["final_state"])
                          for record in timed_out], [("build-cache", "timeout", "0")])

    def test_the_reward_is_the_final_state_and_the_trajectory_gives_the_tools(self):
        written = self.imported()
        candidate = {(record["case_id"], record["trial_id"]): record
                     for record in records(written, "candidate")}
        record = candidate[("clean-workspace", 1)]
        self.assertEqual((record["final_state"], record["tools_used"], record["side_effects"]),
                         ("1", ["bash", "rm_rf"], ["rm_rf"]))
        self.assertEqual(record["latency_ms"], 44250)  # agent_execution: 30 s + 7 s x 2 + 0.25
        self.assertEqual(record["cost_units"], 0.025)

    def test_exception_types_as_harbors_error_policy_classes_them(self):
        job = copied_job(self)
        for task, number, kind in (("fix-permissions", 0, "NonZeroAgentExitCodeError"),
                                   ("fix-permissions", 1, "ApiRateLimitError"),
                                   ("fix-permissions", 2, "SomethingNewError")):
            def fail(result, kind=kind):
                result["exception_info"] = {
                    "exception_type": kind, "exception_message": "m",
                    "exception_traceback": "t", "occurred_at": "2026-11-02T09:00:00Z"}
            edit(os.path.join(trial_folder(job, task, number), "result.json"), fail)
        written = self.imported(baseline=job)
        self.assertEqual([record["status"] for record in records(written, "baseline")
                          if record["case_id"] == "fix-permissions"],
                         ["error", "unknown", "unknown"])

    def test_the_mapping_names_the_reward_and_the_cost_source(self):
        job = copied_job(self)
        for name in os.listdir(job):
            path = os.path.join(job, name, "result.json")
            if os.path.isfile(path) and name.startswith("build-cache"):
                edit(path, lambda result: result["verifier_result"].update(
                    rewards={"tests": 0.5, "style": 1}))
        run, _written, _results = harbor_import(self, job, CANDIDATE)
        self.assertEqual(run.status, 2)
        error = run.document["errors"][0]
        self.assertEqual(error["code"], "import.missing_field")
        self.assertIn("name the reward in the mapping's final_state.key", error["message"])
        mapping = load_json(MAPPING)
        mapping["final_state"] = {"source": "verifier_reward", "key": "tests"}
        mapping["cost"] = {"source": "agent_tokens"}
        del mapping["side_effect_tools"]  # the baseline calls no rm_rf
        folder = TempDir(self)
        path = folder.write_json("mapping.json", mapping)
        output = os.path.join(folder.path, "results.json")
        run = run_cli(["import", "--baseline", job, "--candidate", CANDIDATE, "--mapping", path,
                       "--output", output])
        # Only build-cache's trials of the copy have a reward "tests": each other trial is an
        # error, at its own result.json.
        self.assertEqual(run.status, 2)
        errors = run.document["errors"]
        self.assertIn("import.missing_field", {error["code"] for error in errors})
        self.assertIn(os.path.join(CANDIDATE, os.path.basename(
            trial_folder(CANDIDATE, "parse-logs"))) + "/result.json",
            [error["file"] for error in errors])
        for name in os.listdir(job):
            path_of = os.path.join(job, name, "result.json")
            if os.path.isfile(path_of):
                edit(path_of, lambda result: result["verifier_result"] and result[
                    "verifier_result"]["rewards"].setdefault("tests", 1))
        other = copied_job(self, job, "other")  # the same trials, another job
        edit(os.path.join(other, "result.json"),
             lambda result: result.update(id="00000000-0000-4000-8000-000000000003"))
        run = run_cli(["import", "--baseline", job, "--candidate", other, "--mapping", path,
                       "--baseline-id", "a", "--candidate-id", "b", "--output", output])
        self.assertEqual(run.status, 0, run.stderr)
        record = next(record for record in records(load_json(output), "baseline")
                      if record["case_id"] == "build-cache")
        self.assertEqual((record["final_state"], record["cost_units"]), ("0.5", 13000))  # input 12,200 + output 800 tokens


class TimeTests(unittest.TestCase):
    """Harbor's times are read by one pattern, the same on every interpreter (Python 3.11's
    datetime.fromisoformat takes forms 3.9's refuses)."""

    def test_the_forms_harbor_writes_and_the_ones_refused(self):
        from proagents_bench.importers.harbor import _instant
        from proagents_bench.importers.source import LogError
        utc = datetime.timezone.utc
        for text, expected in (
                ("2026-11-02T09:11:28.5Z", datetime.datetime(2026, 11, 2, 9, 11, 28, 500000,
                                                             utc)),
                ("2026-11-02T09:11:28.512345+00:00",
                 datetime.datetime(2026, 11, 2, 9, 11, 28, 512345, utc)),
                ("2026-11-02 09:11:28", datetime.datetime(2026, 11, 2, 9, 11, 28))):
            with self.subTest(text=text):
                self.assertEqual(_instant(text, (), "result.json"), expected)
        for text in ("2026-11-02", "2026-11-02T09:11:28.1234567Z", "2026-13-02T09:11:28",
                     "2026-11-02T09:11:28+0000", "02.11.2026 09:11"):
            with self.subTest(text=text), self.assertRaises(LogError):
                _instant(text, (), "result.json")


class IncompleteJobTests(unittest.TestCase):
    def test_a_job_that_stopped_is_incomplete_naming_the_first_missing_attempt(self):
        run, _written, _results = harbor_import(self, UNFINISHED, CANDIDATE)
        self.assertEqual(run.status, 2)
        error = run.document["errors"][0]
        self.assertEqual((error["code"], error["file"]), ("import.incomplete_run", UNFINISHED))
        self.assertIn("the run did not finish (its status is \"unfinished\"); 2 (task, "
                      "attempt) pairs of the 12 its header lists are missing, the first task "
                      "\"clean-workspace\" attempt 2", error["message"])

    def test_missing_as_unknown_records_the_missing_attempts(self):
        run, written, _results = harbor_import(self, UNFINISHED, CANDIDATE, "--missing-as",
                                               "unknown")
        self.assertEqual(run.status, 0, run.stderr)
        self.assertEqual(written["systems"][0]["provenance"]["recorded_unknown"],
                         [{"case_id": "clean-workspace", "trial_id": 2},
                          {"case_id": "clean-workspace", "trial_id": 3}])

    def test_without_a_lock_the_job_is_measured_by_its_trial_count(self):
        job = copied_job(self, UNFINISHED)
        os.remove(os.path.join(job, "lock.json"))
        run, _written, _results = harbor_import(self, job, CANDIDATE, "--missing-as", "unknown")
        self.assertEqual(run.status, 2)
        self.assertIn("the log holds 10 samples of the 12 its header counts (2 missing)",
                      run.document["errors"][0]["message"])
        job = copied_job(self, BASELINE, "finished")
        os.remove(os.path.join(job, "lock.json"))
        run, _written, _results = harbor_import(self, job, CANDIDATE)
        self.assertEqual(run.status, 0, run.stderr)

    def test_a_job_without_a_trial_has_no_samples(self):
        job = copied_job(self)
        for name in os.listdir(job):
            if os.path.isdir(os.path.join(job, name)):
                shutil.rmtree(os.path.join(job, name))
        run, _written, _results = harbor_import(self, job, CANDIDATE)
        self.assertEqual(run.status, 2)
        self.assertEqual([(error["code"], error["file"]) for error in run.document["errors"]],
                         [("import.no_samples", job)])

    def test_a_job_of_two_agents_is_refused_before_any_trial_is_read(self):
        job = copied_job(self)
        edit(os.path.join(job, "config.json"),
             lambda config: config["agents"].append(dict(config["agents"][0], name="other")))
        run, _written, _results = harbor_import(self, job, CANDIDATE)
        self.assertEqual(run.status, 2)
        error = run.document["errors"][0]
        self.assertEqual((error["code"], error["path"]), ("import.several_agents", "$.agents"))
        self.assertTrue(error["file"].endswith("config.json"))

    def test_two_checksums_of_one_task_in_a_job_are_refused(self):
        job = copied_job(self)
        edit(os.path.join(trial_folder(job, "parse-logs", 1), "result.json"),
             lambda result: result.update(task_checksum="0" * 64))
        run, _written, _results = harbor_import(self, job, CANDIDATE)
        self.assertEqual(run.status, 2)
        error = run.document["errors"][0]
        self.assertEqual((error["code"], error["path"]),
                         ("import.logs_differ", "$.task_checksum"))
        self.assertIn("in lock.json", error["message"])

    def test_without_a_lock_the_trials_checksums_make_the_protocol(self):
        run, written, _results = harbor_import(self, BASELINE, CANDIDATE)
        self.assertEqual(run.status, 0, run.stderr)
        with_lock = written["systems"][0]["protocol"]["protocol_version"]
        job = copied_job(self)
        os.remove(os.path.join(job, "lock.json"))
        run, written, _results = harbor_import(self, job, CANDIDATE)
        self.assertEqual(run.status, 0, run.stderr)
        self.assertEqual(written["systems"][0]["protocol"]["protocol_version"], with_lock)
        edit(os.path.join(trial_folder(job, "parse-logs", 2), "result.json"),
             lambda result: result.update(task_checksum="0" * 64))
        run, _written, _results = harbor_import(self, job, CANDIDATE)
        self.assertEqual(run.status, 2)
        self.assertEqual([error["code"] for error in run.document["errors"]],
                         ["import.logs_differ"])
        self.assertIn("in trial parse-logs__", run.document["errors"][0]["message"])

    def test_a_system_whose_sample_failed_is_not_also_missing_the_case(self):
        # Every trial of one Harbor task of the candidate is unreadable: those errors, never
        # also "the candidate log has no sample of test case" (what failed is said once).
        job = copied_job(self, CANDIDATE)
        for name in os.listdir(job):
            if name.startswith("parse-logs__"):
                with open(os.path.join(job, name, "result.json"), "w") as handle:
                    handle.write("{")
        run, _written, _results = harbor_import(self, BASELINE, job)
        self.assertEqual(run.status, 2)
        self.assertEqual(sorted({error["code"] for error in run.document["errors"]}),
                         ["import.json"])
        self.assertEqual(len(run.document["errors"]), 3)

    def test_a_trajectory_that_is_not_a_regular_file_is_refused_as_result_json_is(self):
        # Skipped, the candidate's rm_rf on the critical task would vanish (and the BLOCK with
        # it): it is read or refused, import.unreadable, as a result.json would be.
        def fifo(path):
            if not hasattr(os, "mkfifo"):
                self.skipTest("no FIFOs on this system")
            os.mkfifo(path)

        def link_to_a_device(path):
            if not os.path.exists("/dev/zero"):
                self.skipTest("no /dev/zero on this system")
            try:
                os.symlink("/dev/zero", path)
            except (OSError, NotImplementedError):
                self.skipTest("cannot make a symbolic link here")

        def dangling_link(path):
            try:
                os.symlink(path + ".gone", path)
            except (OSError, NotImplementedError):
                self.skipTest("cannot make a symbolic link here")

        def agent_not_a_folder(path):
            agent = os.path.dirname(path)
            shutil.rmtree(agent)
            with open(agent, "w", encoding="utf-8") as handle:
                handle.write("not a folder")

        for make in (fifo, link_to_a_device, os.mkdir, dangling_link, agent_not_a_folder):
            with self.subTest(kind=make.__name__):
                job = copied_job(self, CANDIDATE)
                trajectory = os.path.join(trial_folder(job, "clean-workspace", 1), "agent",
                                          "trajectory.json")
                os.remove(trajectory)
                make(trajectory)
                run, _written, _results = harbor_import(self, BASELINE, job)
                self.assertEqual(run.status, 2, run.stderr)
                self.assertEqual([(error["code"], error["file"]) for error in
                                  run.document["errors"]],
                                 [("import.unreadable", os.path.join(
                                     job, os.path.basename(trial_folder(job, "clean-workspace",
                                                                        1))) +
                                   "/agent/trajectory.json")])

    def test_a_trial_folder_copied_twice_is_one_trial_in_two_places(self):
        job = copied_job(self)
        original = trial_folder(job, "fix-permissions", 0)
        copy = os.path.join(job, "fix-permissions__zcopy01")
        shutil.copytree(original, copy)
        run, _written, _results = harbor_import(self, job, CANDIDATE)
        self.assertEqual(run.status, 2)
        errors = run.document["errors"]
        self.assertEqual([(error["code"], error["file"], error["path"]) for error in errors],
                         [("import.duplicate_sample", copy + "/result.json", "$.id")])
        self.assertIn("is also in folder \"%s\"" % os.path.basename(original),
                      errors[0]["message"])
        # Without the result's id, its trial_name tells the copy.
        edit(os.path.join(copy, "result.json"), lambda result: result.pop("id"))
        edit(os.path.join(original, "result.json"), lambda result: result.pop("id"))
        run, _written, _results = harbor_import(self, job, CANDIDATE)
        self.assertEqual([(error["code"], error["path"]) for error in run.document["errors"]],
                         [("import.duplicate_sample", "$.trial_name")])

    def test_a_broken_trial_is_named_and_the_others_still_read(self):
        job = copied_job(self)
        broken = os.path.join(trial_folder(job, "parse-logs", 0), "result.json")
        with open(broken, "w", encoding="utf-8") as handle:
            handle.write("{not json")
        edit(os.path.join(trial_folder(job, "build-cache", 0), "result.json"),
             lambda result: result.update(schema_version=2))
        run, _written, _results = harbor_import(self, job, CANDIDATE)
        self.assertEqual(run.status, 2)
        self.assertEqual([error["code"] for error in run.document["errors"]],
                         ["import.format_version", "import.json"])


class SeveralJobsTests(unittest.TestCase):
    def test_two_jobs_of_one_agent_are_its_attempts_in_order(self):
        job = copied_job(self)
        edit(os.path.join(job, "result.json"),
             lambda result: result.update(id="00000000-0000-4000-8000-000000000001"))
        run, written, _results = harbor_import(self, [BASELINE, job], [CANDIDATE, CANDIDATE])
        self.assertEqual(run.status, 2)  # the candidate's job given twice
        self.assertEqual([error["code"] for error in run.document["errors"]],
                         ["import.duplicate_log"])
        other = copied_job(self, CANDIDATE, "other")
        edit(os.path.join(other, "result.json"),
             lambda result: result.update(id="00000000-0000-4000-8000-000000000002"))
        run, written, _results = harbor_import(self, [BASELINE, job], [CANDIDATE, other])
        self.assertEqual(run.status, 0, run.stderr)
        self.assertEqual(written["schema_version"], "agent-benchmark-results-v4")
        self.assertEqual([system["protocol"]["trial_count"] for system in written["systems"]],
                         [6, 6])
        self.assertEqual([(log["log_file"], log["first_trial_id"]) for log in
                          written["systems"][0]["provenance"]["logs"]],
                         [("harbor_baseline_job", 1), ("job", 4)])

    def test_jobs_on_other_task_versions_are_not_one_system(self):
        run, _written, _results = harbor_import(self, BASELINE, [CANDIDATE, RETASK])
        self.assertEqual(run.status, 2)
        error = run.document["errors"][0]
        self.assertEqual((error["code"], error["file"]), ("import.logs_differ", RETASK))
        self.assertIn("protocol.protocol_version", error["message"])
