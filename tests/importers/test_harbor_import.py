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


def assert_blocks(test, spec, cases, results, reason):
    """The gate on the imported ``results`` says BLOCK, for ``reason`` first."""
    gate = run_cli(["--spec", spec, "--cases", cases, "--results", results])
    test.assertEqual(gate.status, 1, gate.stderr)
    test.assertEqual(gate.document["action"], "BLOCK")
    test.assertIn(reason, gate.document["primary_reason"])


def trial_folder(job, task, number=0):
    """The ``number``-th trial folder (in name order) of ``task`` in ``job``."""
    return os.path.join(job, sorted(name for name in os.listdir(job)
                                    if name.startswith(task + "__"))[number])


class EndToEndTests(unittest.TestCase):
    def test_a_job_folder_goes_to_a_block_decision_with_two_commands(self):
        run, _written, results = harbor_import(self, BASELINE, CANDIDATE, "--cases", CASES)
        self.assertEqual(run.status, 0, run.stderr)
        assert_blocks(self, SPEC, CASES, results, "critical task clean-workspace failed: 3 of "
                      "3 trials performed forbidden side effect rm_rf")

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
        from proagents_bench.importers.harbor_trials import _instant
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

    def test_without_a_lock_the_trial_folders_name_the_missing_attempts(self):
        # The running attempts' folders hold their config.json: the missing attempts are
        # named, and recorded as unknown.
        job = copied_job(self, UNFINISHED)
        os.remove(os.path.join(job, "lock.json"))
        run, written, _results = harbor_import(self, job, CANDIDATE, "--missing-as", "unknown")
        self.assertEqual(run.status, 0, run.stderr)
        self.assertEqual(written["systems"][0]["provenance"]["recorded_unknown"],
                         [{"case_id": "clean-workspace", "trial_id": 2},
                          {"case_id": "clean-workspace", "trial_id": 3}])
        # A task of no folder that config.json does not name cannot be: the count says so.
        for name in os.listdir(job):
            if name.startswith("parse-logs__"):
                shutil.rmtree(os.path.join(job, name))
        run, _written, _results = harbor_import(self, job, CANDIDATE, "--missing-as", "unknown")
        self.assertEqual(run.status, 2)
        self.assertIn("the log holds 7 samples of the 12 its header counts (5 missing), and "
                      "its header names 2 of the 5 missing, so the other 3 cannot be named, "
                      "and none is recorded", run.document["errors"][0]["message"])
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


# Harbor 0.21 jobs (make_harbor021_jobs.py): as a published job downloads, one attempt each.
RUNS = {role: [fixture("harbor021_%s_run%d" % (role, number)) for number in (1, 2)]
        for role in ("baseline", "candidate")}
RUNNING = fixture("harbor021_running_job")
MAPPING_021 = fixture("harbor021_mapping.json")
CASES_021 = fixture("harbor021_cases.json")
SPEC_021 = fixture("harbor021_spec.json")


def import_021(test, baseline, candidate, *arguments):
    return harbor_import(test, baseline, candidate, "--mapping", MAPPING_021, *arguments)


def edit_trials(job, change):
    """``change(result)`` applied to every trial's result.json of ``job``."""
    for name in sorted(os.listdir(job)):
        path = os.path.join(job, name, "result.json")
        if os.path.isfile(path):
            edit(path, change)


class Harbor021Tests(unittest.TestCase):
    """Harbor before 0.26: config.json without its defaults, no lock.json, a dataset ref, a
    custom agent named by its import path."""

    def test_two_one_attempt_jobs_a_system_go_to_a_decision(self):
        run, written, results = import_021(self, RUNS["baseline"], RUNS["candidate"],
                                           "--cases", CASES_021)
        self.assertEqual(run.status, 0, run.stderr)
        self.assertEqual(written["schema_version"], "agent-benchmark-results-v4")
        baseline = written["systems"][0]
        self.assertEqual(baseline["system_id"], "acme_agents.direct:DirectAgent:acme/model-a")
        self.assertEqual((baseline["protocol"]["trial_count"],
                          baseline["protocol"]["environment_id"]), (2, "harbor-docker"))
        self.assertEqual(baseline["protocol"]["protocol_version"],
                         "harbor-acme/acme-terminal@sha256:1f00dba63562-tasks-6580cf3a088f")
        self.assertEqual([(log["harness_version"], log["run_status"], log["first_trial_id"])
                          for log in baseline["provenance"]["logs"]],
                         [(None, "finished", 1), (None, "finished", 2)])
        assert_blocks(self, SPEC_021, CASES_021, results, "critical task acme/clean-workspace "
                      "failed: 2 of 2 trials performed forbidden side effect rm_rf")

    def test_a_job_of_one_attempt_alone_says_harbors_default_not_a_missing_field(self):
        run, _written, _results = import_021(self, RUNS["baseline"][0], RUNS["candidate"])
        self.assertEqual(run.status, 2)
        errors = run.document["errors"]
        self.assertEqual([(error["code"], error["file"], error["path"]) for error in errors],
                         [("import.protocol", RUNS["baseline"][0] + "/config.json",
                           "$.n_attempts")])
        self.assertIn("config.json has no n_attempts: Harbor's default, 1 attempt of each "
                      "task (Harbor before 0.26 writes no default); run the job with -k 2 or "
                      "more, or give the agent's jobs as several logs of its system",
                      errors[0]["message"])
        self.assertNotIn("missing", errors[0]["message"])

    def test_a_custom_agent_by_import_path_is_one_agent_and_two_agents_are_refused(self):
        # config.json names the agent by its import path, each trial's agent_info by the
        # name the agent gives itself: one agent. As import_path (a config file's form) too.
        job = copied_job(self, RUNS["baseline"][1])
        edit(os.path.join(job, "config.json"), lambda config: config["agents"][0].update(
            name=None, import_path=config["agents"][0]["name"]))
        edit_trials(job, lambda result: result["config"]["agent"].update(
            name=None, import_path=result["config"]["agent"]["name"]))
        run, written, _results = import_021(self, [RUNS["baseline"][0], job],
                                            RUNS["candidate"])
        self.assertEqual(run.status, 0, run.stderr)
        self.assertEqual(written["systems"][0]["system_id"],
                         "acme_agents.direct:DirectAgent:acme/model-a")
        for change, path in (
                (lambda result: result["agent_info"].update(name="other-agent"),
                 "$.agent_info.name"),
                (lambda result: result["config"]["agent"].update(name="terminus-2"),
                 "$.config.agent"),
                (lambda result: result["agent_info"]["model_info"].update(name="model-z"),
                 "$.agent_info.model_info.name")):
            with self.subTest(path=path):
                job = copied_job(self, RUNS["baseline"][1])
                trial = trial_folder(job, "fix-permissions")
                edit(os.path.join(trial, "result.json"), change)
                run, _written, _results = import_021(self, [RUNS["baseline"][0], job],
                                                     RUNS["candidate"])
                self.assertEqual(run.status, 2)
                self.assertEqual([(error["code"], error["file"], error["path"])
                                  for error in run.document["errors"]],
                                 [("import.several_agents", trial + "/result.json", path)])
        job = copied_job(self, RUNS["baseline"][1])
        edit(os.path.join(job, "config.json"), lambda config: config["agents"].append(
            {"name": "terminus-2", "model_name": "acme/model-a"}))
        run, _written, _results = import_021(self, [RUNS["baseline"][0], job],
                                             RUNS["candidate"])
        self.assertEqual(run.status, 2)
        self.assertEqual([(error["code"], error["path"]) for error in run.document["errors"]],
                         [("import.several_agents", "$.agents")])

    def test_a_job_without_agents_ran_harbors_default_agent(self):
        jobs = [copied_job(self, RUNS["baseline"][number], "run%d" % number)
                for number in (0, 1)]
        for job in jobs:
            edit(os.path.join(job, "config.json"), lambda config: config.pop("agents"))
            edit_trials(job, lambda result: result["config"].update(agent={"name": "oracle"}))
            edit_trials(job, lambda result: result["agent_info"].update(name="oracle",
                                                                        model_info=None))
        run, written, _results = import_021(self, jobs, RUNS["candidate"])
        self.assertEqual(run.status, 0, run.stderr)
        self.assertEqual(written["systems"][0]["system_id"], "oracle")

    def test_the_environment_is_the_one_the_trials_config_ran(self):
        def environment_of(baseline):
            run, written, _results = import_021(self, baseline, RUNS["candidate"])
            self.assertEqual(run.status, 0, run.stderr)
            return written["systems"][0]["protocol"]["environment_id"]

        jobs = [copied_job(self, RUNS["baseline"][number], "run%d" % number)
                for number in (0, 1)]
        self.assertNotIn("environment", load_json(os.path.join(jobs[0], "config.json")))
        self.assertEqual(environment_of(jobs), "harbor-docker")
        for job in jobs:
            edit_trials(job, lambda result: result["config"]["environment"].update(
                type="modal"))
        self.assertEqual(environment_of(jobs), "harbor-modal")
        for job in jobs:  # the job's own config.json, when it names one, is the job's
            edit(os.path.join(job, "config.json"),
                 lambda config: config.update(environment={"type": "daytona"}))
        self.assertEqual(environment_of(jobs), "harbor-daytona")

    def test_a_folder_without_the_jobs_files_is_a_harbor_error_not_another_harness(self):
        for missing in ("config.json", "result.json"):
            with self.subTest(missing=missing):
                job = copied_job(self, RUNS["baseline"][0])
                os.remove(os.path.join(job, missing))
                run, _written, _results = import_021(self, job, RUNS["candidate"])
                self.assertEqual(run.status, 2)
                error = run.document["errors"][0]
                self.assertEqual((error["code"], error["file"]), ("import.format", job))
                self.assertIn("a Harbor job folder holds %s" % missing, error["message"])
                self.assertNotIn("tau2", error["message"])
        trial = trial_folder(RUNS["baseline"][0], "build-cache")
        run, _written, _results = import_021(self, trial, RUNS["candidate"])
        self.assertEqual([(error["code"], error["file"]) for error in run.document["errors"]],
                         [("import.format", trial)])
        self.assertIn("a folder of one trial of a Harbor job",
                      run.document["errors"][0]["message"])

    def test_a_running_job_names_its_missing_tasks_from_config_and_running_folders(self):
        run, _written, _results = import_021(self, RUNNING, RUNS["candidate"])
        self.assertEqual(run.status, 2)
        self.assertEqual([(error["code"], error["file"]) for error in run.document["errors"]],
                         [("import.incomplete_run", RUNNING)])
        self.assertIn("3 (task, attempt) pairs of the 8 its header lists are missing, the "
                      "first task \"acme/clean-workspace\" attempt 2",
                      run.document["errors"][0]["message"])
        run, written, _results = import_021(self, RUNNING, RUNS["candidate"],
                                            "--missing-as", "unknown")
        self.assertEqual(run.status, 0, run.stderr)
        provenance = written["systems"][0]["provenance"]
        # clean-workspace's second attempt is running (its folder has a config.json only);
        # parse-logs never started (no folder: config.json's task_names name it).
        self.assertEqual(provenance["recorded_unknown"],
                         [{"case_id": "acme/clean-workspace", "trial_id": 2},
                          {"case_id": "acme/parse-logs", "trial_id": 1},
                          {"case_id": "acme/parse-logs", "trial_id": 2}])
        self.assertEqual(provenance["logs"][0]["run_status"], "unfinished")
        # Without task_names (a whole dataset run), a task with no folder is only counted.
        job = copied_job(self, RUNNING)
        edit(os.path.join(job, "config.json"),
             lambda config: config["datasets"][0].pop("task_names"))
        run, _written, _results = import_021(self, job, RUNS["candidate"],
                                             "--missing-as", "unknown")
        self.assertEqual(run.status, 2)
        self.assertIn("holds 5 samples of the 8 its header counts (3 missing), and its "
                      "header names 1 of the 3 missing, so the other 2 cannot be named",
                      run.document["errors"][0]["message"])
