"""The logs of ``bench import --format FORMAT`` for the formats other than Inspect AI's
``.eval`` (:mod:`.import_bench` writes those): synthetic logs of each harness, shaped as the
harness writes them, written to a folder with the cases file, the spec and the mapping the
import and the gate then read. One row per format in :data:`WRITERS`.

- ``harbor-job``: a Harbor job folder per system, ``--tasks`` tasks ``--epochs`` attempts
  each: the job's ``config.json``, ``result.json`` and ``lock.json``, and per trial a
  ``result.json`` shaped as Harbor 0.26's ``TrialResult`` (about 3 KB) and an ATIF
  ``agent/trajectory.json`` of three tool calls;
- ``swebench-summary``: ``--epochs`` run summaries per system (a run is one attempt per
  instance), each listing ``--tasks`` instances by outcome as SWE-bench's
  ``make_run_report`` does; imported as several logs per system.

The bare read of these logs (:data:`BARE_READ_SCRIPT`) reads and decodes every JSON file of
them, nothing checked or kept, the candidate's in a forked process where the import would
fork too. Nothing here is a test.
"""

from __future__ import annotations

import hashlib
import json
import os
from typing import TYPE_CHECKING, Callable, Dict, List, Optional, Tuple

from .timing import FORKED_READ

if TYPE_CHECKING:  # for annotations only
    from proagents_bench.jsonio import JSONObject

# What a writer wrote: each system's logs (a list per role), and the cases, spec and mapping
# files (a path per kind).
Written = Tuple[Dict[str, List[str]], Dict[str, str]]

# The floor any reader of these logs pays: every JSON file read and decoded (a folder's in
# name order), nothing checked or kept; the candidate's logs in a forked process when the
# import would fork too. Arguments: the baseline's and the candidate's logs, each system's
# joined by os.pathsep, then the fork threshold.
BARE_READ_SCRIPT = (
    "import json, os, signal, sys, traceback\n"
    "def files(path):\n"
    "    if not os.path.isdir(path):\n"
    "        return [path]\n"
    "    found = []\n"
    "    for root, folders, names in os.walk(path):\n"
    "        folders.sort()\n"
    "        found.extend(os.path.join(root, name) for name in sorted(names)\n"
    "                     if name.endswith('.json'))\n"
    "    return found\n"
    "def read(logs):\n"
    "    for log in logs.split(os.pathsep):\n"
    "        for path in files(log):\n"
    "            with open(path, 'rb') as handle:\n"
    "                json.loads(handle.read())\n"
    "baseline, candidate, fork_bytes = sys.argv[1], sys.argv[2], int(sys.argv[3])\n"
    "log_bytes = sum(os.path.getsize(path) for log in baseline.split(os.pathsep)\n"
    "                for path in files(log))\n"
) + FORKED_READ
PROTOCOL = {"protocol_version": "bench-protocol-1", "environment_id": "bench-sandbox",
            "toolset_id": "bench-tools", "reset_policy": "fresh-sandbox-per-trial",
            "max_steps": 100, "timeout_seconds": 900, "retry_limit": 0}
BENCHMARK = {"benchmark_id": "bench-import", "benchmark_version": "1",
             "dataset_version": "bench-import-tasks"}
STARTED = "2026-11-02T09:00:00Z"


def _write(path: str, value: object) -> None:
    folder = os.path.dirname(path)
    if folder:
        os.makedirs(folder, exist_ok=True)
    with open(path, "w", encoding="utf-8") as handle:
        json.dump(value, handle, indent=4)


def _task(task: int) -> str:
    return "task-%06d" % task


def _harbor_trial(role: str, task: int, attempt: int, model: str) -> Dict[str, object]:
    """A trial's result.json as Harbor 0.26 writes it (the keys the importer does not read
    included, so the decoding cost is a real job's)."""
    name = _task(task)
    trial = "%s__%s" % (name, hashlib.sha256(("%s %d %d" % (role, task, attempt)).encode(
        "ascii")).hexdigest()[:7])
    solved = (task + attempt) % 4 != 0
    agent: JSONObject = {
        "name": "terminus-2", "import_path": None, "model_name": model, "base_url": None,
        "model_api_key_name": None, "model_api_format": None, "skip_model_parsing": False,
        "n_concurrent": None, "kwargs": {}, "mcp_servers": []}
    environment: JSONObject = {
        "type": "docker", "import_path": None, "force_build": False, "delete": True,
        "override_cpus": None, "override_memory_mb": None, "kwargs": {}}
    return {
        "schema_version": 1, "id": "00000000-0000-4000-8000-%012d" % (task * 100 + attempt),
        "task_name": name, "trial_name": trial, "trial_uri": "file:///jobs/%s/%s" % (role,
                                                                                     trial),
        "task_id": {"path": "tasks/" + name}, "source": "bench",
        "task_checksum": hashlib.sha256(name.encode("ascii")).hexdigest(),
        "config": {"schema_version": 1, "task": {"path": "tasks/" + name, "source": "bench"},
                   "trial_name": trial, "trials_dir": "jobs/" + role, "install_only": False,
                   "timeout_multiplier": 1.0, "agent": agent, "environment": environment,
                   "verifier": {"override_timeout_sec": None, "disable": False},
                   "artifacts": [], "job_id": "00000000-0000-4000-8000-000000000000"},
        "agent_info": {"name": "terminus-2", "version": "2.0.0",
                       "model_info": {"name": model.split("/")[1], "provider": "bench"}},
        "agent_result": {"n_input_tokens": 12000 + task % 1000, "n_cache_tokens": 0,
                         "n_output_tokens": 800, "cost_usd": 0.0125, "model_usage": None,
                         "rollout_details": None, "metadata": None},
        "verifier_result": {"rewards": {"reward": 1 if solved else 0}},
        "verifier_environment_mode": "shared", "exception_info": None,
        "started_at": "2026-11-02T09:00:00Z", "finished_at": "2026-11-02T09:01:10Z",
        "environment_setup": {"started_at": "2026-11-02T09:00:00Z",
                              "finished_at": "2026-11-02T09:00:15Z"},
        "agent_setup": {"started_at": "2026-11-02T09:00:15Z",
                        "finished_at": "2026-11-02T09:00:20Z"},
        "agent_execution": {"started_at": "2026-11-02T09:00:20Z",
                            "finished_at": "2026-11-02T09:00:%02d.250000Z" % (
                                30 + (task * 7 + attempt) % 29)},
        "verifier": {"started_at": "2026-11-02T09:01:00Z",
                     "finished_at": "2026-11-02T09:01:10Z"},
        "step_results": None, "reward_valid": True,
    }


def _trajectory(model: str, tools: List[str]) -> Dict[str, object]:
    steps: List[Dict[str, object]] = [{"step_id": 1, "source": "user",
                                       "message": "Solve the task."}]
    for number, tool in enumerate(tools, 2):
        steps.append({"step_id": number, "source": "agent", "model_name": model, "message": "",
                      "tool_calls": [{"tool_call_id": "call-%d" % number,
                                      "function_name": tool,
                                      "arguments": {"keystrokes": "make\n"}}]})
    return {"schema_version": "ATIF-v1.8", "agent": {"name": "terminus-2", "version": "2.0.0",
                                                     "model_name": model}, "steps": steps}


def write_harbor(folder: str, tasks: int, attempts: int) -> Written:
    """Two Harbor job folders and their cases, spec and mapping; the paths."""
    paths: Dict[str, List[str]] = {}
    for role, model in (("baseline", "bench/model-a"), ("candidate", "bench/model-b")):
        job = os.path.join(folder, role + "_job")
        _write(os.path.join(job, "config.json"), {
            "schema_version": 1, "job_name": role + "_job", "jobs_dir": "jobs",
            "n_attempts": attempts, "timeout_multiplier": 1.0, "n_concurrent_trials": 4,
            "retry": {"max_retries": 0}, "environment": {"type": "docker"},
            "agents": [{"name": "terminus-2", "model_name": model}],
            "datasets": [{"name": "bench", "version": "1.0"}], "tasks": []})
        _write(os.path.join(job, "result.json"), {
            "schema_version": 1, "id": "00000000-0000-4000-8000-00000000000%d" % (
                1 if role == "baseline" else 2),
            "started_at": STARTED, "updated_at": STARTED, "finished_at": STARTED,
            "n_total_trials": tasks * attempts, "stats": {}})
        _write(os.path.join(job, "lock.json"), {
            "schema_version": 3, "created_at": STARTED, "harbor": {"version": "0.26.0"},
            "n_concurrent_trials": 4, "retry": {"max_retries": 0},
            "trials": [{"task": {"name": _task(task), "type": "local", "digest": "sha256:"
                                 + hashlib.sha256(_task(task).encode("ascii")).hexdigest()}}
                       for task in range(tasks) for _attempt in range(attempts)]})
        for task in range(tasks):
            for attempt in range(1, attempts + 1):
                result = _harbor_trial(role, task, attempt, model)
                trial = os.path.join(job, str(result["trial_name"]))
                _write(os.path.join(trial, "result.json"), result)
                tools = ["bash", "bash", "rm_rf" if role == "candidate" and task % 50 == 7
                         else "ls"]
                _write(os.path.join(trial, "agent", "trajectory.json"),
                       _trajectory(model, tools))
        paths[role] = [job]
    return _documents(folder, paths, tasks, attempts, "1", ["bash", "ls", "rm_rf"],
                      ["rm_rf"], {"source": "cost_usd"})


def write_swebench(folder: str, tasks: int, runs: int) -> Written:
    """``runs`` SWE-bench run summaries per system and their cases, spec and mapping."""
    paths: Dict[str, List[str]] = {}
    ids = ["bench__repo-%06d" % task for task in range(tasks)]
    for role in ("baseline", "candidate"):
        logs = []
        for run in range(1, runs + 1):
            resolved = [instance for task, instance in enumerate(ids)
                        if (task + run + (role == "candidate")) % 3 != 0]
            unresolved = sorted(set(ids) - set(resolved))
            path = os.path.join(folder, "bench__%s.%s-run%d.json" % (role, role, run))
            _write(path, {
                "total_instances": tasks, "submitted_instances": tasks,
                "completed_instances": tasks, "resolved_instances": len(resolved),
                "unresolved_instances": len(unresolved), "infra_failure_instances": 0,
                "ambiguous_failure_instances": 0, "empty_patch_instances": 0,
                "error_instances": 0, "completed_ids": ids, "incomplete_ids": [],
                "empty_patch_ids": [], "submitted_ids": ids, "resolved_ids": resolved,
                "unresolved_ids": unresolved, "infra_failure_ids": [],
                "ambiguous_failure_ids": [], "failure_reasons": {}, "error_ids": [],
                "schema_version": 2})
            logs.append(path)
        paths[role] = logs
    return _documents(folder, paths, tasks, runs, "resolved", [], [], None,
                      ids=ids)


def synthetic_spec(benchmark: JSONObject, protocol: JSONObject, trials: int,
                   mean_latency_ms: int, p95_latency_ms: int) -> JSONObject:
    """The spec of a benchmark's synthetic logs (this module's and ``import_bench``'s): the
    example's gates, the latency bounds given, a 10,000-sample bootstrap."""
    return dict(benchmark_id=benchmark["benchmark_id"],
                benchmark_version=benchmark["benchmark_version"],
                schema_version="agent-benchmark-spec-v1", claim="synthetic",
                target_population="synthetic", baseline_system_id="baseline",
                private_test_frozen=True, primary_metric="task_success_rate",
                protocol=dict(protocol, trial_count=trials), gates={
                    "task_min_trial_success_rate": 0.6,
                    "critical_task_min_trial_success_rate": 1.0,
                    "min_primary_task_success_rate": 0.8, "min_final_state_trial_rate": 0.8,
                    "min_side_effect_free_trial_rate": 0.9, "min_trial_stability_rate": 0.8,
                    "max_slice_task_success_gap": 0.5, "max_mean_latency_ms": mean_latency_ms,
                    "max_p95_latency_ms": p95_latency_ms, "max_mean_cost_units": 0.05,
                    "min_paired_delta_ci_low": 0.0},
                bootstrap={"samples": 10000, "seed": 1, "confidence": 0.95})


def _documents(folder: str, logs: Dict[str, List[str]], tasks: int, trials: int,
               expected: str, allowed: List[str], forbidden: List[str],
               cost: Optional[JSONObject], ids: Optional[List[str]] = None) -> Written:
    names = ids if isinstance(ids, list) else [_task(task) for task in range(tasks)]
    cases = [{"id": name, "family_id": "family-" + name, "split": "test",
              "slice": "slice-%d" % (task % 5), "critical": task % 50 == 7,
              "task_type": "bench", "is_private": True, "initial_state": "task",
              "expected_final_state": expected, "allowed_tools": allowed,
              "forbidden_side_effects": forbidden} for task, name in enumerate(names)]
    documents = {
        "cases": dict(BENCHMARK, schema_version="agent-benchmark-cases-v2",
                      absent_splits=["train", "development"], cases=cases),
        "spec": synthetic_spec(BENCHMARK, PROTOCOL, trials, 60000, 90000),
        "mapping": dict({"schema_version": "proagents-bench-import-mapping-v1",
                         "protocol": PROTOCOL}, **({"cost": cost} if cost else {})),
    }
    paths: Dict[str, str] = {}
    for kind, value in documents.items():
        paths[kind] = os.path.join(folder, kind + ".json")
        _write(paths[kind], value)
    return logs, paths


# Each format's writer: (folder, tasks, trials) -> the paths of the logs (a list per system),
# and of the cases, the spec and the mapping.
WRITERS: Dict[str, Callable[[str, int, int], Written]] = {
    "harbor-job": write_harbor,
    "swebench-summary": write_swebench,
}
