"""tau2-bench results, in both of the layouts ``Results.save`` of tau2's
``data_model/simulation.py`` writes: the monolithic ``results.json`` (``timestamp``,
``info``, ``tasks``, ``simulations``; tau2-bench's default for text runs) and the results
folder (``format="dir"``, its default for voice runs and leaderboard submissions): a
``results.json`` without ``simulations`` (with a ``simulation_index``) beside a
``simulations/`` folder of one ``<simulation id>.json`` file per simulation, read one file
at a time.

Each simulation becomes one trial (none is dropped): ``task_id`` is the case id, ``trial``
(counted from 0) plus 1 the trial id; the status comes from ``termination_reason``
(``user_stop`` and ``agent_stop``: ``success``; ``timeout``: ``timeout``;
``infrastructure_error``, and a reason this importer does not know: ``unknown``; every other
reason, ``max_steps`` included: ``error``), and whose a failure is from the same reason (the
rows of :mod:`proagents_bench.contract.origins`: ``infrastructure_error`` and the user
simulator's ``user_error`` are the infrastructure's); ``final_state`` from the database check of
``reward_info`` (``db_match``, ``db_mismatch``, or ``env_assertion_failed`` when the database
matches but an environment assertion is not met; null without a check), or from the reward;
``tools_used`` from the assistant's tool calls; ``side_effects`` from its calls to write tools:
the mapping's ``side_effect_tools``, or by default the write tools of the log's domain as
tau2-bench's own source types them (``@is_tool(ToolType.WRITE)``, :mod:`.tau2_tools`, with
the tau2 commit they were read from). A domain the importer does not know, or a domain whose
log offers tools that list does not know (a newer tau2), needs ``side_effect_tools`` in the
mapping (a contract error asks for it), and so does a log whose own action checks mark
``write`` a tool that list does not (every tool of the domain counts as offered, called or
not, when the mapping's ``side_effect_tools`` is checked against the logs); ``latency_ms`` from ``duration``; ``cost_units`` from
``agent_cost`` (null, unmeasured, when the run has none: tau2 voice runs leave it null). The
protocol comes from ``info`` (``num_trials``, ``max_steps``, the domain and the user
simulator's model in the ids; the agent's model names the system). Keys the importer does
not read are ignored: logs grow.
"""

from __future__ import annotations

import os
from typing import Dict, List, Optional, Tuple

from ..contract.harnesses import DB_CHECK, TAU2_BENCH, TAU2_DIR, TAU2_JSON, expected_formats
from ..contract.origins import TAU2_ROWS, origin_of
from ..contract.shapes import type_name
from ..contract.vocabulary import ERROR, SUCCESS, TIMEOUT, UNKNOWN
from ..errors import ContractErrors, Path
from ..jsonio import JSONObject
from ..jsonio.gcpause import CollectorPaused
from ..text import quote
from ..jsonio.load import MAX_SAFE_INTEGER
from .settings import Settings
from .source import LogError, LogSource, measure_folder, read_entry
from .tau2_tools import DOMAIN_TOOLS, TAU2_COMMIT
from .trial import Locator, LogRun, Trial, Trials
from .values import (MAX_LOG_NUMBER, array_trials, items, log_number, measured, milliseconds,
                     optional, require, scaled)

SUCCESS_REASONS = ("user_stop", "agent_stop")
TIMEOUT_REASONS = ("timeout",)
ERROR_REASONS = ("max_steps", "too_many_errors", "agent_error", "user_error",
                 "context_window_exceeded", "unexpected_error")
DB_MATCH = "db_match"
DB_MISMATCH = "db_mismatch"
ENV_ASSERTION_FAILED = "env_assertion_failed"
FULL_REWARD = "full_reward"
PARTIAL_REWARD = "partial_reward"
NO_REWARD = "no_reward"
WRITE_TOOL = "write"
# tau2-bench writes no format version (its loaders drop a ``format_version`` key): a log
# that has one of another value is of a format this importer does not know.
SUPPORTED_FORMAT_VERSIONS = (None, 1)
# The results folder: its metadata file, and the folder of simulation files beside it.
FOLDER_RESULTS = "results.json"
FOLDER_SIMULATIONS = "simulations"
SIMULATION_SUFFIX = ".json"


def read_results(source: LogSource, log: JSONObject,
                 settings: Settings) -> Tuple[LogRun, Trials]:
    """A ``results.json``, decoded whole: its run, and its trials."""
    try:
        run, tasks, tool_names = _header(log, settings)
        simulations = require(log, "simulations", list, (), "holds the runs")
    except LogError as failure:
        raise ContractErrors([source.placed(failure)])
    reader = SimulationReader(settings, run, tasks, tool_names)
    return run, array_trials(simulations, "simulations", "simulation", source, reader.trial)


def _header(log: JSONObject, settings: Settings,
            log_format: str = TAU2_JSON) -> Tuple[LogRun, Dict[str, JSONObject], List[str]]:
    version = log.get("format_version")
    if version not in SUPPORTED_FORMAT_VERSIONS:
        raise LogError("import.format_version", "tau2-bench results format_version %s is not "
                       "one this importer reads (tau2-bench writes none; 1 is read too)"
                       % quote(str(version)), ("format_version",))
    run = LogRun(log_format, TAU2_BENCH.name)
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
            run.protocol_where[protocol_key] = (None, ("info", key))
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
    tasks: Dict[str, JSONObject] = {}
    for index, task in enumerate(items(optional(log, "tasks", list, ()))):
        if isinstance(task, dict) and isinstance(task.get("id"), (str, int)) and not (
                isinstance(task.get("id"), bool)):
            tasks.setdefault(str(task["id"]), task)
    tool_defs = environment.get("tool_defs")
    tool_names = sorted(tool_defs) if isinstance(tool_defs, dict) else []
    run.tools_seen.update(tool_names)
    # The domain's own tools are offered whether or not this run's log lists them (real runs
    # write no tool_defs) or called them: a mapping naming a write tool no simulation of this
    # run happened to call is right, and must stay as it is for the run that does call it.
    for tools in DOMAIN_TOOLS.get(domain, {}).values():
        run.tools_seen.update(tools)
    run.expected_ids = list(tasks)
    trials = run.protocol.get("trial_count")
    run.expected_trials = trials[0] if trials is not None and trials[0] >= 1 else None
    _side_effect_rule(run, domain, tool_names, settings)
    return run, tasks, tool_names


def _side_effect_rule(run: LogRun, domain: str, tool_names: List[str],
                      settings: Settings) -> None:
    """The write tools of the run (``run.write_tools``) and the rule that chose them; an
    unknown domain, or tools of the log the shipped list does not know, without
    ``side_effect_tools`` in the mapping is a problem of the header."""
    if settings.side_effect_tools is not None:
        run.write_tools = settings.side_effect_tools
        run.side_effect_rule = "a tool the mapping's side_effect_tools names"
        run.write_tools_shipped = False
        return
    run.write_tools_shipped = True
    known = DOMAIN_TOOLS.get(domain)
    path = ("info", "environment_info", "domain_name")
    if known is None:
        run.write_tools = frozenset()
        run.problems.append((
            "import.side_effect_tools", "the tau2-bench domain %s is not one whose write "
            "tools this importer ships (%s, from tau2-bench commit %s): name its write tools "
            "in the mapping's side_effect_tools, or every side effect would go unrecorded" % (
                quote(domain), ", ".join(sorted(DOMAIN_TOOLS)), TAU2_COMMIT[:7]), path, None))
        return
    run.write_tools = frozenset(known.get(WRITE_TOOL, ()))
    run.side_effect_rule = ("a write tool of tau2-bench's %s domain (@is_tool(ToolType.WRITE) "
                            "in tau2-bench's source, commit %s)" % (domain, TAU2_COMMIT[:7]))
    everything = {tool for tools in known.values() for tool in tools}
    unknown = [name for name in tool_names if name not in everything]
    if unknown:
        run.problems.append((
            "import.side_effect_tools", "the log's %s domain offers tool%s %s, which the "
            "domain's tools of tau2-bench commit %s do not include (a newer tau2-bench?): name "
            "the domain's write tools in the mapping's side_effect_tools" % (
                domain, "s" if len(unknown) > 1 else "", ", ".join(map(quote, unknown)),
                TAU2_COMMIT[:7]), ("info", "environment_info", "tool_defs"), None))


class SimulationReader:
    """Turns one simulation into a :class:`Trial`, as the mapping says."""

    def __init__(self, settings: Settings, run: LogRun, tasks: Dict[str, JSONObject],
                 tool_names: List[str], digests: Optional[Dict[str, str]] = None) -> None:
        self.final_source, _key = settings.final_state(TAU2_BENCH)
        self.cost_source, self.cost_scale = settings.cost(TAU2_BENCH)
        self.tasks = tasks
        self.tool_names = tool_names
        self.write_tools = run.write_tools
        self.check_types = run.write_tools_shipped
        self.run = run
        self.domain = run.defaults["environment_id"]
        # With trace references: each simulation file's digest (a results folder's; empty for
        # a results.json, whose digest is the log's); None: no trace references.
        self.digests = (digests if digests is not None else {}) if settings.trace_refs else None

    def trial(self, simulation: JSONObject, path: Path, entry: Optional[str] = None) -> Trial:
        task_id = simulation.get("task_id")
        if isinstance(task_id, bool) or not isinstance(task_id, (str, int)) or (
                isinstance(task_id, str) and not task_id.strip()):
            raise LogError("import.sample_id", "a simulation's task_id must be a non-blank "
                           "string or an integer, got %s" % (
                               quote(task_id) if isinstance(task_id, str)
                               else type_name(task_id)), path + ("task_id",))
        trial = require(simulation, "trial", int, path, "numbers the trial")
        if not 0 <= trial < MAX_SAFE_INTEGER:
            raise LogError("import.sample_epoch", "a simulation's trial must be an integer "
                           "from 0 to 2**53 - 2, got %d" % trial, path + ("trial",))
        calls = self._calls(simulation, path)
        tools_used = sorted(set(calls))
        self.run.tools_seen.update(calls)
        if self.check_types:
            self._check_tool_types(simulation, path)
        reason = simulation.get("termination_reason")
        status = _status(reason)
        record: JSONObject = {
            "case_id": str(task_id),
            "trial_id": trial + 1,
            "status": status,
            "final_state": self._final_state(simulation, path),
            "side_effects": sorted(self.write_tools.intersection(tools_used)),
            "tools_used": tools_used,
            "latency_ms": self._latency(simulation, path),
            "cost_units": self._cost(simulation, path),
        }
        for name in record["side_effects"]:
            self.run.side_effect_rules.setdefault(name, self.run.side_effect_rule)
        locator = None
        if self.digests is not None:  # a trace reference: the simulation's id and place
            simulation_id = simulation.get("id")
            index = path[-1] if path and isinstance(path[-1], int) else None
            locator = Locator(TAU2_BENCH.trace_unit, simulation_id if isinstance(
                simulation_id, str) and simulation_id.strip() else str(index), None, index,
                entry, self.digests.get(entry) if entry is not None else None)
        return Trial(record, self._case(str(task_id)), entry, path, locator=locator,
                     origin=origin_of(TAU2_ROWS, reason))

    def _check_tool_types(self, simulation: JSONObject, path: Path) -> None:
        """The log's own action checks (tau2-bench writes a ``tool_type`` since it has one)
        must not mark ``write`` a tool the shipped list does not: a newer tau2 then knows a
        write tool this importer would not record."""
        reward = simulation.get("reward_info")
        checks = reward.get("action_checks") if isinstance(reward, dict) else None
        for index, check in enumerate(items(checks)):
            if not isinstance(check, dict) or check.get("tool_type") != WRITE_TOOL:
                continue
            action = check.get("action")
            name = action.get("name") if isinstance(action, dict) else None
            if isinstance(name, str) and name not in self.write_tools:
                raise LogError("import.side_effect_tools", "the log's action check marks %s a "
                               "write tool, which the %s domain's write tools of tau2-bench "
                               "commit %s do not include: name the write tools in the "
                               "mapping's side_effect_tools" % (
                                   quote(name), self.domain, TAU2_COMMIT[:7]),
                               path + ("reward_info", "action_checks", index, "tool_type"))

    @staticmethod
    def _calls(simulation: JSONObject, path: Path) -> List[str]:
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

    def _final_state(self, simulation: JSONObject, path: Path) -> Optional[str]:
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
    def _latency(simulation: JSONObject, path: Path) -> object:
        seconds = measured(simulation, "duration", path, "a number of seconds")
        return None if seconds is None else milliseconds(seconds)

    def _cost(self, simulation: JSONObject, path: Path) -> object:
        if simulation.get("agent_cost") is None:
            # tau2-bench makes agent_cost optional: its voice runs leave it null, and its
            # placeholder for a run its infrastructure lost (``make_infra_failure_sim``) has
            # none. Not measured: null, never 0.
            return None
        cost = require(simulation, "agent_cost", (int, float), path,
                       "the mapping's cost.source \"agent_cost\" needs")
        if not log_number(cost):
            raise LogError("import.field_type", "\"agent_cost\" must be a number from 0 to %d"
                           % MAX_LOG_NUMBER, path + ("agent_cost",))
        return scaled(cost, self.cost_scale, path + ("agent_cost",))

    def _case(self, case_id: str) -> JSONObject:
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
        return SUCCESS
    if reason in TIMEOUT_REASONS:
        return TIMEOUT
    if reason in ERROR_REASONS:
        return ERROR
    return UNKNOWN  # infrastructure_error, and reasons newer than this importer


# -- the results folder ---------------------------------------------------------------------

def read_folder(source: LogSource, value: Optional[JSONObject],
                settings: Settings) -> Tuple[LogRun, Trials]:
    """A results folder (``value`` is None): ``results.json`` (its run and tasks) and its
    simulation files, read one at a time. Its digest (:func:`~.source.measure_folder`) covers every
    file read."""
    names = _simulation_files(source)
    digests = measure_folder(source, [FOLDER_RESULTS] + names)
    meta = read_entry(source, FOLDER_RESULTS)
    try:
        run, tasks, tool_names = _header(meta, settings, TAU2_DIR)
    except LogError as failure:
        failure.entry = FOLDER_RESULTS
        raise ContractErrors([source.placed(failure)])
    run.protocol_where = {key: (FOLDER_RESULTS, path)
                          for key, (_entry, path) in run.protocol_where.items()}
    run.problems = [(code, message, path, FOLDER_RESULTS)
                    for code, message, path, _entry in run.problems]
    _check_index(source, meta, names)
    reader = SimulationReader(settings, run, tasks, tool_names, digests)
    return run, _folder_trials(source, names, reader)


def _simulation_files(source: LogSource) -> List[str]:
    """The folder's files to read, as entries (``simulations/sim-0.json``), in name order
    (tau2-bench's own loading order)."""
    if not os.path.isfile(os.path.join(source.path, FOLDER_RESULTS)):
        source.fail("import.format", "a folder is read as a tau2-bench results folder (%s "
                    "beside a %s/ folder), and this one has no %s; the logs read are %s" % (
                        FOLDER_RESULTS, FOLDER_SIMULATIONS, FOLDER_RESULTS,
                        expected_formats()))
    folder = os.path.join(source.path, FOLDER_SIMULATIONS)
    if not os.path.isdir(folder):
        source.fail("import.format", "a tau2-bench results folder has a %s/ folder of "
                    "simulation files beside its %s; this one has none" % (
                        FOLDER_SIMULATIONS, FOLDER_RESULTS))
    try:
        found = os.listdir(folder)
    except OSError as problem:
        source.fail("import.unreadable", "cannot read its %s/ folder: %s" % (
            FOLDER_SIMULATIONS, problem.strerror or problem))
    return ["%s/%s" % (FOLDER_SIMULATIONS, name) for name in sorted(found)
            if name.endswith(SIMULATION_SUFFIX)]


def _check_index(source: LogSource, meta: JSONObject, names: List[str]) -> None:
    """tau2-bench's own integrity check: the ``simulation_index`` of ``results.json`` (when it
    has one) and the simulation files name the same simulations."""
    index = meta.get("simulation_index")
    if index is None:
        return
    if not isinstance(index, list):
        source.fail("import.field_type", "\"simulation_index\" must be an array, got %s"
                    % type_name(index), ("simulation_index",), FOLDER_RESULTS)
    stems = {name[len(FOLDER_SIMULATIONS) + 1:-len(SIMULATION_SUFFIX)] for name in names}
    listed = set()
    for number, item in enumerate(index):
        simulation_id = item.get("id") if isinstance(item, dict) else None
        if not isinstance(simulation_id, str):
            source.fail("import.field_type", "a simulation_index entry's \"id\" must be a "
                        "string, got %s" % type_name(simulation_id),
                        ("simulation_index", number, "id"), FOLDER_RESULTS)
        if simulation_id not in stems:
            source.fail("import.missing_field", "the simulation_index names simulation %s, "
                        "which has no file %s/%s%s" % (
                            quote(simulation_id), FOLDER_SIMULATIONS, simulation_id,
                            SIMULATION_SUFFIX), ("simulation_index", number, "id"),
                        FOLDER_RESULTS)
        listed.add(simulation_id)
    for name in names:
        if name[len(FOLDER_SIMULATIONS) + 1:-len(SIMULATION_SUFFIX)] not in listed:
            source.fail("import.format", "a simulation file that the simulation_index of %s "
                        "does not list" % FOLDER_RESULTS, (), name)


def _folder_trials(source: LogSource, names: List[str],
                   reader: SimulationReader) -> Trials:
    with CollectorPaused():
        for entry in names:
            try:
                simulation = read_entry(source, entry)
            except ContractErrors as failure:  # this file's (not JSON, say); the next are read
                yield from failure.errors
                continue
            try:
                yield reader.trial(simulation, (), entry)
            except LogError as failure:  # this simulation's error; the next ones are read too
                failure.entry = entry
                yield source.placed(failure)
