"""What the attacks of :mod:`.attack_bench` share: the benchmark they attack (each test case
one of two expected final states, drawn from the seed; a submission one state per case, so
its task passes are a random 0/1 vector), real ``serve`` processes on loopback with their
maintainer's commands, and the boards read back. Nothing here is a test.
"""

from __future__ import annotations

import json
import math
import os
import random
import subprocess
import threading
from fractions import Fraction
from typing import Callable, Dict, List, Optional, Tuple

from proagents_bench.jsonio import JSONObject
from proagents_bench.service import client, database

from . import ROOT
from .service_bench import ServeChild, write_files

STATES = ("state-a", "state-b")
TRIALS = 2
BOOTSTRAP_SAMPLES = 200
PHASE_NAME = "attack"
TRUTH = Fraction(1, 2)


def make_benchmark(cases: int, seed: int, near_threshold: Optional[str]
                   ) -> Tuple[JSONObject, JSONObject, JSONObject, Dict[str, str]]:
    """(spec, cases, baseline package, the expected state of each test case): every gate
    passes any submission, but for ``near_threshold`` (a decimal) on the primary rate."""
    draw = random.Random(seed)
    expected = {"test-%04d" % index: draw.choice(STATES) for index in range(cases)}
    protocol = {"protocol_version": "attack-1", "environment_id": "attack-env",
                "toolset_id": "attack-tools", "reset_policy": "fresh", "max_steps": 1,
                "timeout_seconds": 1, "retry_limit": 0, "trial_count": TRIALS}
    spec: JSONObject = {
        "schema_version": "agent-benchmark-spec-v1", "benchmark_id": "boosting-attack",
        "benchmark_version": "1.0.0", "claim": "A benchmark to attack.",
        "target_population": "Random binary answers.", "baseline_system_id": "baseline",
        "private_test_frozen": True, "primary_metric": "task_success_rate",
        "protocol": protocol,
        "gates": {"task_min_trial_success_rate": 0.5,
                  "critical_task_min_trial_success_rate": 0.5,
                  "min_primary_task_success_rate": 0, "min_final_state_trial_rate": 0,
                  "min_side_effect_free_trial_rate": 0, "min_trial_stability_rate": 0,
                  "max_slice_task_success_gap": 1, "max_mean_latency_ms": 1000000,
                  "max_p95_latency_ms": 1000000, "max_mean_cost_units": 1000000,
                  "min_paired_delta_ci_low": -1},
        "bootstrap": {"samples": BOOTSTRAP_SAMPLES, "seed": 1, "confidence": 0.95}}
    if near_threshold is not None:
        spec["gates"]["min_primary_task_success_rate"] = float(near_threshold)
    listed = [_case("train-0", "train", "family-train", "state-a"),
              _case("dev-0", "development", "family-dev", "state-a")]
    listed += [_case(case_id, "test", "family-" + case_id, state)
               for case_id, state in expected.items()]
    cases_file = {"schema_version": "agent-benchmark-cases-v1",
                  "benchmark_id": "boosting-attack", "benchmark_version": "1.0.0",
                  "dataset_version": "attack-%d" % seed, "cases": listed}
    baseline = {"schema_version": "agent-benchmark-results-v1",
                "benchmark_id": "boosting-attack", "benchmark_version": "1.0.0",
                "dataset_version": cases_file["dataset_version"], "result_set_version": "1",
                "systems": [_system("baseline", "baseline", protocol, expected),
                            _system("candidate", "candidate", protocol, expected)]}
    return spec, cases_file, baseline, expected


def _case(case_id: str, split: str, family: str, state: str) -> JSONObject:
    return {"id": case_id, "family_id": family, "split": split, "slice": "all",
            "critical": False, "task_type": "binary", "is_private": split == "test",
            "initial_state": "a choice", "expected_final_state": state,
            "allowed_tools": ["choose"], "forbidden_side_effects": ["harm"]}


def _system(system_id: str, role: str, protocol: JSONObject,
            answers: Dict[str, str]) -> JSONObject:
    return {"system_id": system_id, "role": role, "protocol": protocol, "records": [
        {"case_id": case_id, "trial_id": trial, "status": "success", "final_state": state,
         "side_effects": [], "tools_used": ["choose"], "latency_ms": 1, "cost_units": 0}
        for case_id, state in answers.items() for trial in range(1, TRIALS + 1)]}


def submission(protocol: JSONObject, versions: Tuple[str, str, str],
               answers: Dict[str, str]) -> bytes:
    return json.dumps({
        "schema_version": "agent-benchmark-results-v1", "benchmark_id": versions[0],
        "benchmark_version": versions[1], "dataset_version": versions[2],
        "result_set_version": "attack", "systems": [
            _system("attacker", "candidate", protocol, answers)]}).encode("utf-8")



def mean_and_error(values: List[float]) -> Tuple[float, str]:
    """The mean and its Monte Carlo standard error (as `` +- E``; none for one value)."""
    mean = sum(values) / len(values)
    if len(values) < 2:
        return mean, ""
    variance = sum((value - mean) ** 2 for value in values) / (len(values) - 1)
    return mean, " +- %.3f" % math.sqrt(variance / len(values))


class Server:
    """One ``serve`` child on its own benchmark files and data folder (a phase open on it
    when the share is above 0); ``url`` None when it did not start."""

    def __init__(self, folder: str, name: str, spec: JSONObject, cases_value: JSONObject,
                 baseline: JSONObject) -> None:
        self.where = os.path.join(folder, name)
        os.makedirs(self.where)
        self.paths = write_files(self.where, spec, cases_value, baseline)
        self.data = os.path.join(self.where, "data")
        self.database = database.open_database(self.data)
        self.child: Optional[ServeChild] = None
        self.url = ""

    def start(self, python: str) -> Optional[str]:
        """Start the server; None when it runs, else why it did not."""
        self.child = ServeChild(python, self.paths, self.data,
                                os.path.join(self.where, "serve.log"))
        if self.child.port is None:
            return self.child.failure()
        self.url = "http://127.0.0.1:%d" % self.child.port
        return None

    def maintainer(self, python: str, command: List[str]) -> Optional[str]:
        return maintainer(python, command, self.paths, self.data)

    def stop(self) -> None:
        if self.child is not None:
            self.child.stop()



class Failed(Exception):
    """A step of the benchmark that failed; the message says what it said."""


class Context:
    """What every attack of one run shares: the expected states, the parts, the seed, the
    servers' interpreter, where to say the results and the count of submissions made."""

    def __init__(self, expected: Dict[str, str], public_ids: List[str], private_ids: List[str],
                 seed: int, python: str, say: Callable[[str], None], made: List[int],
                 protocol: JSONObject, versions: Tuple[str, str, str]) -> None:
        self.expected = expected
        self.public_ids = public_ids
        self.private_ids = private_ids
        self.seed = seed
        self.python = python
        self.say = say
        self.made = made
        self.protocol = protocol
        self.versions = versions


def start_all(context: Context, started: List[Server]) -> None:
    for running in started:
        problem = running.start(context.python)
        if problem is not None:
            raise Failed(problem)


def close_and_read(context: Context, started: List[Server], split: bool) -> List[JSONObject]:
    """Close each server's phase (when there is one) and read its boards."""
    boards = []
    for running in started:
        if split:
            done = running.maintainer(context.python, ["phase", "close"])
            if done is not None:
                raise Failed(done)
        boards.append(client.request(running.url + "/v1/leaderboard").document)
    return boards



def in_threads(work: Callable[[int], None], count: int) -> None:
    """``work(0)`` .. ``work(count - 1)`` at once, each in a thread of its own (one per
    server: the servers work side by side)."""
    threads = [threading.Thread(target=work, args=(index,)) for index in range(count)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()



def maintainer(python: str, command: List[str], paths: Dict[str, str],
                data: str) -> Optional[str]:
    """Run a maintainer's command as a child process (as a maintainer would, the service
    running); None when it succeeded, else what it said."""
    arguments = [python, "-B", os.path.join(ROOT, "run_benchmark.py")] + command
    if command[0] == "phase":
        arguments += ["--spec", paths["spec"], "--cases", paths["cases"], "--baseline",
                      paths["baseline"]]
    completed = subprocess.run(arguments + ["--data", data], stdout=subprocess.PIPE,
                               stderr=subprocess.PIPE, stdin=subprocess.DEVNULL)
    if completed.returncode != 0:
        return "%s failed: %s" % (" ".join(command), completed.stderr.decode(
            "utf-8", "replace").strip())
    return None


def board_scores(document: JSONObject, kind: str) -> Dict[str, Optional[float]]:
    for board in document["boards"]:
        if board["board"] == kind:
            return {entry["team"]: entry["score"] for entry in board["entries"]}
    return {}


def right_share(answers: Dict[str, str], expected: Dict[str, str], ids: List[str]) -> float:
    return sum(answers[case_id] == expected[case_id] for case_id in ids) / len(ids)


