"""tau2-bench results: the monolithic ``results.json`` (``Results`` of tau2's
``data_model/simulation.py``: ``timestamp``, ``info``, ``tasks``, ``simulations``), as
tau2-bench 1.0 writes it.

Each simulation becomes one trial (none is dropped): ``task_id`` is the case id, ``trial``
(counted from 0) plus 1 the trial id; the status comes from ``termination_reason``
(``user_stop`` and ``agent_stop``: ``success``; ``timeout``: ``timeout``;
``infrastructure_error``, and a reason this importer does not know: ``unknown``; every other
reason, ``max_steps`` included: ``error``); ``final_state`` from the database check of
``reward_info`` (``db_match``, ``db_mismatch``, or ``env_assertion_failed`` when the database
matches but an environment assertion is not met; null without a check), or from the reward;
``tools_used`` from the assistant's tool calls; ``side_effects`` from its calls to write tools
(the mapping's ``side_effect_tools``, by default the tools the log's own action checks mark
``write``); ``latency_ms`` from ``duration``; ``cost_units`` from ``agent_cost``. The protocol
comes from ``info`` (``num_trials``, ``max_steps``, the domain and the user simulator's model
in the ids; the agent's model names the system). Keys the importer does not read are
ignored: logs grow.
"""

from __future__ import annotations

from typing import Dict, Iterator, List, Optional, Set, Tuple

from ..contract.vocabulary import DB_CHECK, TAU2_HARNESS, TAU2_JSON
from ..errors import ContractErrors
from ..jsonio.gcpause import CollectorPaused
from ..text import quote
from .inspect_log import milliseconds, scaled
from .settings import Settings
from .source import (MAX_LOG_NUMBER, LogError, LogSource, items, log_number, optional,
                     require, type_name)
from .trial import LogRun, Trial

SUCCESS_REASONS = ("user_stop", "agent_stop")
TIMEOUT_REASONS = ("timeout",)
UNKNOWN_REASONS = ("infrastructure_error",)
ERROR_REASONS = ("max_steps", "too_many_errors", "agent_error", "user_error",
                 "context_window_exceeded", "unexpected_error")
DB_MATCH = "db_match"
DB_MISMATCH = "db_mismatch"
ENV_ASSERTION_FAILED = "env_assertion_failed"
FULL_REWARD = "full_reward"
PARTIAL_REWARD = "partial_reward"
NO_REWARD = "no_reward"
WRITE_TOOL = "write"
# The dir format's results.json says its format version; the monolithic file does not.
SUPPORTED_FORMAT_VERSIONS = (None, 1)


def read_results(source: LogSource, log: dict,
                 settings: Settings) -> Tuple[LogRun, Iterator[Trial]]:
    """A ``results.json``, decoded whole: its run, and its trials."""
    try:
        run, tasks, tool_names = _header(log)
        simulations = require(log, "simulations", list, (), "holds the runs")
        write_tools = settings.side_effect_tools
        if write_tools is None:
            write_tools = frozenset(_write_tools(simulations))
    except LogError as failure:
        raise ContractErrors([source.placed(failure)])
    reader = SimulationReader(settings, run, tasks, tool_names, write_tools)
    return run, _trials(simulations, source, reader)


def _header(log: dict) -> Tuple[LogRun, Dict[str, dict], List[str]]:
    version = log.get("format_version")
    if version not in SUPPORTED_FORMAT_VERSIONS:
        raise LogError("import.format_version", "tau2-bench results format_version %s is not "
                       "one this importer reads (the monolithic results.json has none; the "
                       "folder format's is 1)" % quote(str(version)), ("format_version",))
    run = LogRun(TAU2_JSON, TAU2_HARNESS)
    run.format_version = None if version is None else str(version)
    info = require(log, "info", dict, (), "every tau2-bench results file has")
    environment = require(info, "environment_info", dict, ("info",), "names the domain")
    domain = require(environment, "domain_name", str, ("info", "environment_info"),
                     "names the benchmark")
    agent = optional(info, "agent_info", dict, ("info",)) or {}
    commit = optional(info, "git_commit", str, ("info",))
    run.harness_commit = commit if commit and commit.strip() else None
    started = optional(log, "timestamp", str, ())
    run.run_started = started if started and started.strip() else None
    model = agent.get("llm")
    run.model = model if isinstance(model, str) and model.strip() else None
    user = optional(info, "user_info", dict, ("info",)) or {}
    user_model = user.get("llm") if isinstance(user.get("llm"), str) else None
    for key, protocol_key in (("num_trials", "trial_count"), ("max_steps", "max_steps")):
        value = optional(info, key, int, ("info",))
        if value is not None:
            run.protocol[protocol_key] = (value, "info." + key)
    run.protocol["retry_limit"] = (0, "tau2-bench does not record retries: 0 by default")
    run.defaults = {
        "benchmark_id": "tau2-%s" % domain,
        "benchmark_version": (run.harness_commit or "unversioned")[:12],
        "dataset_version": "tau2-%s-tasks" % domain,
        # The user simulator is part of the protocol: systems facing different simulated
        # users are not comparable.
        "protocol_version": "tau2-%s-user-%s" % (domain, user_model or "unknown"),
        "environment_id": domain,
        "toolset_id": "%s-tools" % domain,
        "reset_policy": "fresh-environment-per-simulation",
    }
    tasks: Dict[str, dict] = {}
    for index, task in enumerate(items(optional(log, "tasks", list, ()))):
        if isinstance(task, dict) and isinstance(task.get("id"), (str, int)) and not (
                isinstance(task.get("id"), bool)):
            tasks.setdefault(str(task["id"]), task)
    tool_defs = environment.get("tool_defs")
    tool_names = sorted(tool_defs) if isinstance(tool_defs, dict) else []
    return run, tasks, tool_names


def _write_tools(simulations: list) -> Set[str]:
    """The tools the log's own action checks mark as ``write``."""
    found = set()
    for simulation in simulations:
        reward = simulation.get("reward_info") if isinstance(simulation, dict) else None
        checks = reward.get("action_checks") if isinstance(reward, dict) else None
        for check in items(checks):
            if isinstance(check, dict) and check.get("tool_type") == WRITE_TOOL:
                action = check.get("action")
                name = action.get("name") if isinstance(action, dict) else None
                if isinstance(name, str) and name.strip():
                    found.add(name)
    return found


class SimulationReader:
    """Turns one simulation into a :class:`Trial`, as the mapping says."""

    def __init__(self, settings: Settings, run: LogRun, tasks: Dict[str, dict],
                 tool_names: List[str], write_tools: frozenset) -> None:
        self.final_source, _key = settings.final_state(TAU2_HARNESS)
        self.cost_source, self.cost_scale = settings.cost(TAU2_HARNESS)
        self.tasks = tasks
        self.tool_names = tool_names
        self.write_tools = write_tools
        self.domain = run.defaults["environment_id"]

    def trial(self, simulation: dict, path: tuple) -> Trial:
        task_id = simulation.get("task_id")
        if isinstance(task_id, bool) or not isinstance(task_id, (str, int)) or (
                isinstance(task_id, str) and not task_id.strip()):
            raise LogError("import.sample_id", "a simulation's task_id must be a non-blank "
                           "string or an integer, got %s" % (
                               quote(task_id) if isinstance(task_id, str)
                               else type_name(task_id)), path + ("task_id",))
        trial = require(simulation, "trial", int, path, "numbers the trial")
        if trial < 0:
            raise LogError("import.sample_epoch", "a simulation's trial must be >= 0, got %d"
                           % trial, path + ("trial",))
        calls = self._calls(simulation, path)
        tools_used = sorted(set(calls))
        record = {
            "case_id": str(task_id),
            "trial_id": trial + 1,
            "status": _status(simulation.get("termination_reason")),
            "final_state": self._final_state(simulation, path),
            "side_effects": sorted(self.write_tools.intersection(tools_used)),
            "tools_used": tools_used,
            "latency_ms": self._latency(simulation, path),
            "cost_units": self._cost(simulation, path),
        }
        return Trial(record, self._case(str(task_id)), None, path)

    @staticmethod
    def _calls(simulation: dict, path: tuple) -> List[str]:
        calls = []
        for index, message in enumerate(items(simulation.get("messages"))):
            if not isinstance(message, dict) or message.get("role") != "assistant":
                continue
            for number, call in enumerate(items(message.get("tool_calls"))):
                name = call.get("name") if isinstance(call, dict) else None
                if not isinstance(name, str) or not name.strip():
                    raise LogError("import.field_type", "a tool call's name must be a "
                                   "non-blank string, got %s" % type_name(name),
                                   path + ("messages", index, "tool_calls", number, "name"))
                calls.append(name)
        return calls

    def _final_state(self, simulation: dict, path: tuple) -> Optional[str]:
        reward = simulation.get("reward_info")
        if not isinstance(reward, dict):
            return None  # not evaluated (an infrastructure error, say): no final state
        if self.final_source == DB_CHECK:
            check = reward.get("db_check")
            if not isinstance(check, dict) or not isinstance(check.get("db_match"), bool):
                return None
            if not check["db_match"]:
                return DB_MISMATCH
            for assertion in items(reward.get("env_assertions")):
                if isinstance(assertion, dict) and assertion.get("met") is False:
                    return ENV_ASSERTION_FAILED
            return DB_MATCH
        value = reward.get("reward")
        if isinstance(value, bool) or not isinstance(value, (int, float)):
            return None
        return FULL_REWARD if value >= 1 else PARTIAL_REWARD if value > 0 else NO_REWARD

    @staticmethod
    def _latency(simulation: dict, path: tuple) -> object:
        seconds = require(simulation, "duration", (int, float), path, "latency_ms is made from")
        if not log_number(seconds):
            raise LogError("import.field_type", "\"duration\" must be a number of seconds "
                           "from 0 to %d" % MAX_LOG_NUMBER, path + ("duration",))
        return milliseconds(seconds)

    def _cost(self, simulation: dict, path: tuple) -> object:
        cost = require(simulation, "agent_cost", (int, float), path,
                       "the mapping's cost.source \"agent_cost\" needs")
        if not log_number(cost):
            raise LogError("import.field_type", "\"agent_cost\" must be a number from 0 to %d"
                           % MAX_LOG_NUMBER, path + ("agent_cost",))
        return scaled(cost, self.cost_scale, path + ("agent_cost",))

    def _case(self, case_id: str) -> dict:
        task = self.tasks.get(case_id, {})
        criteria = task.get("evaluation_criteria")
        expected_actions = set()
        if isinstance(criteria, dict):
            for action in items(criteria.get("actions")):
                if isinstance(action, dict) and isinstance(action.get("name"), str):
                    expected_actions.add(action["name"])
        description = task.get("description")
        purpose = description.get("purpose") if isinstance(description, dict) else None
        return {
            "split": None, "family_id": None, "slice": self.domain, "critical": None,
            "task_type": self.domain,
            "allowed_tools": self.tool_names or None,
            "forbidden_side_effects": sorted(self.write_tools - expected_actions),
            "initial_state": purpose if isinstance(purpose, str) and purpose.strip() else
            "%s task %s" % (self.domain, case_id),
            "expected_final_state": DB_MATCH if self.final_source == DB_CHECK else FULL_REWARD,
            "task": self.domain,
            "where": (None, ("tasks",)),
        }


def _status(reason: object) -> str:
    if reason in SUCCESS_REASONS:
        return "success"
    if reason in TIMEOUT_REASONS:
        return "timeout"
    if reason in ERROR_REASONS:
        return "error"
    return "unknown"  # infrastructure errors, and reasons newer than this importer


def _trials(simulations: list, source: LogSource, reader: SimulationReader) -> Iterator[Trial]:
    with CollectorPaused():
        yield from _each_trial(simulations, source, reader)


def _each_trial(simulations: list, source: LogSource,
                reader: SimulationReader) -> Iterator[Trial]:
    for index, simulation in enumerate(simulations):
        path = ("simulations", index)
        try:
            if not isinstance(simulation, dict):
                raise LogError("import.field_type", "a simulation must be an object, got %s"
                               % type_name(simulation), path)
            yield reader.trial(simulation, path)
        except LogError as failure:
            raise ContractErrors([source.placed(failure)])
