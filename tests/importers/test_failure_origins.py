"""Whose a failed trial is: every row of ``contract/origins.py`` (the docs' table) held to what
each importer does with a log that has the row's value, read by the importer's own reader
(``open_log``) from a fixture log changed in that one field."""

import json
import os
import shutil
import unittest

from proagents_bench.contract import origins
from proagents_bench.contract.origins import AGENT, INFRASTRUCTURE, ORIGIN_ROWS, ROWS_OF
from proagents_bench.importers.formats import close_trials, open_log
from proagents_bench.importers.settings import default_settings
from proagents_bench.importers.source import LogSource
from tests.importers.support import fixture, json_log_from_eval, load_json
from tests.support import TempDir


def read_trials(path):
    """The trials the importer's reader yields for the log at ``path`` (defaults mapping)."""
    _run, trials = open_log(LogSource(path), default_settings())
    try:
        return [trial for trial in trials if not isinstance(trial, Exception)]
    finally:
        close_trials(trials)


def write_json(folder, name, value):
    return folder.write_bytes(name, json.dumps(value, indent=1).encode("utf-8"))


class Harnesses:
    """Per harness, a log whose first trial (of a known case) has a changed field, and that
    trial read back: ``outcome(folder, value)`` -> (status, origin)."""

    @staticmethod
    def inspect_ai(test, change):
        folder = TempDir(test)
        path = json_log_from_eval(folder, "log.json", "candidate.eval")
        log = load_json(path)
        sample = log["samples"][0]
        change(sample)
        trial = next(trial for trial in read_trials(write_json(folder, "changed.json", log))
                     if (trial.record["case_id"], trial.record["trial_id"]) == (
                         str(sample["id"]), sample["epoch"]))
        return trial.record["status"], trial.origin

    @staticmethod
    def tau2(test, reason):
        folder = TempDir(test)
        log = load_json(fixture("tau2_candidate.json"))
        simulation = log["simulations"][0]
        simulation["termination_reason"] = reason
        trial = next(trial for trial in read_trials(write_json(folder, "tau2.json", log))
                     if trial.record["case_id"] == str(simulation["task_id"])
                     and trial.record["trial_id"] == simulation["trial"] + 1)
        return trial.record["status"], trial.origin

    @staticmethod
    def swebench(test, outcome):
        folder = TempDir(test)
        summary = load_json(fixture("swebench_baseline_run1.json"))
        for key in ("resolved_ids", "unresolved_ids", "error_ids", "empty_patch_ids",
                    "infra_failure_ids", "ambiguous_failure_ids"):
            summary[key] = [value for value in summary[key] if value != "acme__widgets-104"]
        summary[outcome].append("acme__widgets-104")
        if outcome in ("infra_failure_ids", "ambiguous_failure_ids"):
            summary["error_ids"].append("acme__widgets-104")  # SWE-bench lists it there too
        trial = next(trial for trial in read_trials(write_json(folder, "run.json", summary))
                     if trial.record["case_id"] == "acme__widgets-104")
        return trial.record["status"], trial.origin

    @staticmethod
    def harbor(test, change):
        job = os.path.join(TempDir(test).path, "job")
        shutil.copytree(fixture("harbor_baseline_job"), job)
        folder = sorted(name for name in os.listdir(job) if name.startswith("fix-permissions"))[0]
        path = os.path.join(job, folder, "result.json")
        result = load_json(path)
        change(result)
        with open(path, "w", encoding="utf-8") as handle:
            json.dump(result, handle)
        trial = next(trial for trial in read_trials(job) if trial.entry.startswith(folder))
        return trial.record["status"], trial.origin

    @staticmethod
    def promptfoo(test, reason):
        folder = TempDir(test)
        log = load_json(fixture("promptfoo_baseline.json"))
        result = log["results"]["results"][0]
        result["failureReason"] = int(reason)
        if reason == "2":
            result["error"] = "the provider's API answered 503"
        description = result["testCase"]["description"]
        trial = next(trial for trial in read_trials(write_json(folder, "results.json", log))
                     if trial.record["case_id"] == description)
        return trial.record["status"], trial.origin


def harbor_exception(kind, agent_started=True):
    def change(result):
        result["exception_info"] = {"exception_type": kind, "exception_message": "m",
                                    "exception_traceback": "t",
                                    "occurred_at": "2026-11-02T09:00:00Z"}
        if not agent_started:
            result["agent_execution"] = None
    return change


class RowTests(unittest.TestCase):
    """Each row's every value, read by its harness's importer, gets the row's status and
    origin."""

    def check(self, row, outcome, value):
        with self.subTest(harness=row.harness.name, value=value):
            self.assertEqual(outcome, (row.status, row.origin))

    def test_every_row_with_values(self):
        readers = {
            "inspect_ai": lambda value: Harnesses.inspect_ai(
                self, lambda sample: sample.update(limit={"type": value, "limit": 1})),
            "tau2-bench": lambda value: Harnesses.tau2(self, value),
            "swebench": lambda value: Harnesses.swebench(self, value),
            "harbor": lambda value: Harnesses.harbor(self, harbor_exception(value)),
            "promptfoo": lambda value: Harnesses.promptfoo(self, value),
        }
        checked = 0
        for row in ORIGIN_ROWS:
            for value in row.values:
                self.check(row, readers[row.harness.name](value), value)
                checked += 1
        self.assertGreater(checked, 60)

    def test_the_rows_of_a_rule(self):
        inspect_rows = ROWS_OF["inspect_ai"]
        self.check(origins.INSPECT_ERROR, Harnesses.inspect_ai(
            self, lambda sample: sample.update(error={"message": "sandbox exited",
                                                      "traceback": "t",
                                                      "traceback_ansi": "t"})), "error")
        self.check(inspect_rows[4], Harnesses.inspect_ai(
            self, lambda sample: sample.update(limit={"type": "future", "limit": 1})),
            "a newer limit")
        self.check(inspect_rows[5], Harnesses.inspect_ai(
            self, lambda sample: sample.update(scores={})), "no score")
        self.check(origins.TAU2_ROWS[-1], Harnesses.tau2(self, "a_newer_reason"),
                   "a newer reason")
        # Harbor: an exception before the agent started is the infrastructure's, whatever
        # its type (an environment provider's RuntimeError, even an agent's own type);
        # after, a type Harbor's policy does not name is attributed to no one.
        self.assertEqual(Harnesses.harbor(self, harbor_exception("RuntimeError", False)),
                         ("unknown", INFRASTRUCTURE))
        self.assertEqual(Harnesses.harbor(self, harbor_exception("AgentTimeoutError", False)),
                         ("timeout", INFRASTRUCTURE))
        self.check(origins.HARBOR_ROWS[-1],
                   Harnesses.harbor(self, harbor_exception("RuntimeError")), "RuntimeError")
        self.assertEqual(Harnesses.harbor(self, lambda result: None), ("success", None))

    def test_no_infrastructure_row_is_a_success(self):
        # An infrastructure failure is a failure: a row that gave it status success could be
        # graded a pass and counted among the infrastructure's failures at once.
        for row in ORIGIN_ROWS:
            with self.subTest(harness=row.harness.name, values=row.values):
                if row.origin == INFRASTRUCTURE:
                    self.assertNotEqual(row.status, "success")

    def test_every_harness_attributes_its_agent_and_infrastructure_failures(self):
        for name, rows in ROWS_OF.items():
            with self.subTest(harness=name):
                found = {row.origin for row in rows}
                if name == "jsonl":
                    self.assertEqual(found, {None})
                elif name == "promptfoo":
                    self.assertEqual(found, {None, INFRASTRUCTURE})
                else:
                    self.assertEqual(found, {None, AGENT, INFRASTRUCTURE})


if __name__ == "__main__":
    unittest.main()
