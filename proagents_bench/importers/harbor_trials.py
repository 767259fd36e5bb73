"""A trial of a Harbor job folder (:mod:`.harbor` reads the job): its folder's
``result.json`` (``TrialResult``: ``task_name``, ``task_checksum``, ``agent_info``,
``verifier_result.rewards``, ``exception_info``, the timings and the agent's tokens and cost)
and the agent's ATIF trajectory, ``agent/trajectory.json``.

Each trial becomes one trial (none is dropped): ``task_name`` is the case id; Harbor names no
attempt, so a task's trials are its attempts 1 to ``n_attempts`` in the order of their
folders' names. The status comes from ``exception_info`` by its type, as Harbor's own error
policy classes them (``models/trial/error_policy.py``): an agent timeout is ``timeout``; the
agent's own failures (a non-zero exit, a context window exceeded, a refusal) are ``error``;
every other exception (the environment, the model provider, the verifier, a cancelled trial,
a type this importer does not know) is ``unknown``, a failed trial that says it is not the
agent's failure. Whose the failure is (the trial's origin) is the rows of
:mod:`proagents_bench.contract.origins`: an exception before the agent started (no
``agent_execution.started_at``) is the infrastructure's whatever its type; after, Harbor's
policy groups say it. The final state is the verifier's reward as a number in text (``1``, ``0``,
``0.5``), so a case expecting ``1`` passes on a full reward; the tools are the ATIF
trajectory's tool calls.

A trial is of the job's agent when its own config's agent is the job's and its
``agent_info`` names the agent and model the job's other trials do (a custom agent is named by
its import path in the configs and by a name of its own in ``agent_info``). A trial folder
copied within the job (the same trial id) is a duplicate, never another attempt; a trial's
trajectory that is there in any form is read or refused, never skipped.
"""

from __future__ import annotations

import datetime
import os
import re
from typing import TYPE_CHECKING, Dict, List, Optional, Tuple, Union

from ..contract.harnesses import AGENT_TOKENS, HARBOR
from ..contract.origins import (HARBOR_AGENT_FAILURES, HARBOR_AGENT_TIMEOUTS,
                                HARBOR_BEFORE_AGENT, HARBOR_ROWS, origin_of)
from ..contract.shapes import type_name
from ..contract.vocabulary import ERROR, SUCCESS, TIMEOUT, UNKNOWN
from ..errors import ContractErrors
from ..jsonio.gcpause import CollectorPaused
from ..text import quote
from .settings import Settings
from .source import LogError, LogSource, Manifest, read_entry
from .trial import Locator, LogRun, Trial, Trials
from .values import items, log_number, milliseconds, nonblank, optional, require, scaled

if TYPE_CHECKING:  # for annotations only
    from ..errors import Path
    from ..jsonio import JSONObject

# The document versions read (Harbor's ``schema_version``; a document without one is 1).
SUPPORTED_VERSIONS = (1,)
# The files read: a job's and a trial's result.json, the job's lock.json (where a task's
# checksum may come from), a trial's trajectory.
RESULT = "result.json"
LOCK = "lock.json"
TRAJECTORY = "agent/trajectory.json"
# The verifier's output, which a trial's trace shows when it has no trajectory (digested with
# its trace reference only: the job's digest is the files the import reads).
VERIFIER_OUTPUT = "verifier/test-stdout.txt"
DEFAULT_REWARD = "reward"


class TrialFolder:
    """A trial folder of the job: its name, and which of the files the import reads it has
    (its ``result.json``, absent when the trial never finished, and its trajectory)."""

    __slots__ = ("name", "has_result", "has_trajectory")

    def __init__(self, name: str, has_result: bool, has_trajectory: bool) -> None:
        self.name = name
        self.has_result = has_result
        self.has_trajectory = has_trajectory


def agent_of(agent: JSONObject) -> Tuple[Optional[str], Optional[str], Optional[str]]:
    """An agent config's (name, import_path, model_name): a built-in agent by its name
    (``terminus-2``), a custom one by its import path (``module:Class``, given as the name by
    ``harbor run --agent`` or as ``import_path``)."""
    return (nonblank(agent.get("name")), nonblank(agent.get("import_path")),
            nonblank(agent.get("model_name")))


def document_version(document: JSONObject, entry: str) -> int:
    """A Harbor document's ``schema_version`` (1 when absent); ``import.format_version``
    when this importer does not read it."""
    found = document.get("schema_version", 1)
    if isinstance(found, bool) or found not in SUPPORTED_VERSIONS:
        raise LogError("import.format_version", "Harbor %s schema_version %s is not one this "
                       "importer reads (1)" % (entry, quote(str(found))),
                       ("schema_version",), entry)
    version: int = found  # one of SUPPORTED_VERSIONS
    return version


def _instant(value: object, path: Path, entry: str) -> Optional[datetime.datetime]:
    if value is None:
        return None
    if not isinstance(value, str):
        raise LogError("import.field_type", "a time must be a string, got %s" % type_name(
            value), path, entry)
    # Read by one pattern, not datetime.fromisoformat, which Python 3.11 reads far more
    # loosely than 3.9 (a fraction of 1 digit, a "Z"): the same log imports the same way on
    # every interpreter.
    found = _ISO_TIME.match(value)
    try:
        if found is None:
            raise ValueError(value)
        (year, month, day, hour, minute, second, fraction, zone, sign, zone_hours,
         zone_minutes) = found.groups()
        offset = None
        if zone == "Z":
            offset = datetime.timezone.utc
        elif zone:
            minutes = int(zone_hours) * 60 + int(zone_minutes)
            offset = datetime.timezone(datetime.timedelta(
                minutes=-minutes if sign == "-" else minutes))
        return datetime.datetime(int(year), int(month), int(day), int(hour), int(minute),
                                 int(second), int((fraction or "").ljust(6, "0")),
                                 tzinfo=offset)
    except ValueError:
        raise LogError("import.field_type", "%s is not an ISO 8601 time" % quote(value), path,
                       entry)


def _started(timing: object) -> bool:
    """Whether a phase's timing (Harbor's ``TimingInfo``) says the phase started."""
    return isinstance(timing, dict) and timing.get("started_at") is not None


# An ISO 8601 time as Harbor's models write it: a date, T (or a space), a time to the second
# with an optional fraction of 1 to 6 digits, and an optional zone (Z or +HH:MM).
_ISO_TIME = re.compile(r"\A(\d{4})-(\d{2})-(\d{2})[T ](\d{2}):(\d{2}):(\d{2})(?:\.(\d{1,6}))?"
                       r"(Z|([+-])(\d{2}):(\d{2}))?\Z")


class TrialReader:
    """Turns one trial folder into a :class:`Trial`, as the mapping says."""

    def __init__(self, source: LogSource, settings: Settings, run: LogRun,
                 agent: JSONObject, planned: Dict[str, str]) -> None:
        self.source = source
        self.run = run
        self.agent = agent_of(agent)
        # The name the job's agent gives itself (its trials' agent_info.name), from the first
        # trial that gives one, and that trial's folder.
        self.agent_info: Optional[Tuple[str, str]] = None
        _final, self.reward_key = settings.final_state(HARBOR)
        self.cost_source, self.cost_scale = settings.cost(HARBOR)
        self.side_effect_tools = settings.side_effect_tools
        self.trace_refs = settings.trace_refs
        self.attempts: Dict[str, int] = {}
        # Each trial's id (result.json ``id``, else its ``trial_name``) and the folder it was
        # read from: a folder copied within the job holds the same trial again.
        self.trial_folders: Dict[str, str] = {}
        self.manifest = Manifest()
        # The first checksum of each task met, and where: lock.json's, or a trial's.
        self.checksums: Dict[str, Tuple[str, str]] = {
            task: (checksum, LOCK) for task, checksum in planned.items()}

    def trials(self, folders: List[TrialFolder], manifest: Manifest) -> Trials:
        """The trials, a folder at a time; the log's digest (``manifest``) is complete once
        the last is read."""
        with CollectorPaused():
            for folder in folders:
                entry = folder.name + "/" + RESULT
                if not folder.has_result:
                    continue  # a trial that never finished: missing, as the run's check says
                # With trace references, the trial's own files are digested as they are read.
                self.manifest = TrialFiles(manifest, folder.name) if self.trace_refs else (
                    manifest)
                try:
                    result = read_entry(self.source, entry, self.manifest)
                    yield self.trial(result, folder, entry)
                except ContractErrors as failure:
                    for error in failure.errors:
                        yield error
                except LogError as failure:
                    yield self.source.placed(failure)
        manifest.seal(self.source)

    def trial(self, result: JSONObject, folder: TrialFolder, entry: str) -> Trial:
        document_version(result, entry)
        self._check_once(result, folder, entry)
        task = require(result, "task_name", str, (), "is the case id", entry)
        if not task.strip():
            raise LogError("import.sample_id", "a trial's task_name must be a non-blank "
                           "string", ("task_name",), entry)
        checksum = optional(result, "task_checksum", str, (), entry) or "-"
        first = self.checksums.setdefault(task, (checksum, folder.name))
        if first[0] != checksum:
            raise LogError("import.logs_differ", "task %s has checksum %s here and %s in "
                           "%s: one job's trials of a task are of one version of it" % (
                               quote(task), quote(checksum), quote(first[0]),
                               first[1] if first[1] == LOCK else "trial " + first[1]),
                           ("task_checksum",), entry)
        self._check_agent(result, folder, entry)
        attempt = self.attempts.get(task, 0) + 1
        self.attempts[task] = attempt
        tools_used = self._tools(folder)
        self.run.tools_seen.update(tools_used)
        side_effects = sorted(tools_used if self.side_effect_tools is None
                              else self.side_effect_tools.intersection(tools_used))
        for name in side_effects:
            self.run.side_effect_rules.setdefault(name, self.run.side_effect_rule)
        status, origin = self._outcome(result)
        record = {
            "case_id": task,
            "trial_id": attempt,
            "status": status,
            "final_state": self._reward(result, entry),
            "side_effects": side_effects,
            "tools_used": tools_used,
            "latency_ms": self._latency(result, entry),
            "cost_units": self._cost(result, entry),
        }
        case: JSONObject = {
            "split": None, "family_id": None, "slice": self.run.defaults["benchmark_id"],
            "critical": None, "task_type": self.run.defaults["benchmark_id"],
            "allowed_tools": None, "forbidden_side_effects": [],
            "initial_state": "%s task %s" % (self.run.defaults["benchmark_id"], task),
            "expected_final_state": "1", "task": self.run.defaults["benchmark_id"],
            "where": (entry, ()),
        }
        locator = None
        if isinstance(self.manifest, TrialFiles):
            locator = Locator(HARBOR.trace_unit, folder.name, entry=folder.name,
                              sha256=self.manifest.sealed(self.source))
        return Trial(record, case, entry, (), locator=locator,
                     origin=origin)

    def _check_once(self, result: JSONObject, folder: TrialFolder, entry: str) -> None:
        """A trial is one attempt however many folders hold it: a second folder of a trial
        id already read is ``import.duplicate_sample``, naming both folders."""
        key = "id" if nonblank(result.get("id")) else "trial_name"
        trial_id = nonblank(result.get(key))
        if trial_id is None:
            return
        first = self.trial_folders.setdefault(trial_id, folder.name)
        if first != folder.name:
            raise LogError("import.duplicate_sample", "trial %s (result.json %s) is also in "
                           "folder %s: one trial in two folders (a copy) is one attempt, "
                           "never two; remove the copy" % (quote(trial_id), key, quote(first)),
                           (key,), entry)

    def _check_agent(self, result: JSONObject, folder: TrialFolder, entry: str) -> None:
        """The trial is of the job's agent: the agent its own config ran (``config.agent``)
        is the job's, and the name the agent gives itself (``agent_info.name``) is that of the
        job's other trials. A custom agent is named by its import path in the configs
        (``module:Class``) and by a name of its own in ``agent_info``, so the two are never
        compared with each other."""
        trial_config = result.get("config")
        configured = trial_config.get("agent") if isinstance(trial_config, dict) else None
        name, import_path, model = self.agent
        if isinstance(configured, dict):
            ran = agent_of(configured)
            if ran[:2] != (name, import_path) or (ran[2] and model and ran[2] != model):
                raise LogError("import.several_agents", "the trial's config ran agent %s "
                               "(model %s), the job's config.json names %s (model %s): a "
                               "job's trials are of its one agent" % (
                                   quote(str(ran[0] or ran[1])), quote(str(ran[2])),
                                   quote(str(name or import_path)), quote(str(model))),
                               ("config", "agent"), entry)
        info = result.get("agent_info")
        if not isinstance(info, dict):
            return
        called = nonblank(info.get("name"))
        if called is not None:
            first = self.agent_info = self.agent_info or (called, folder.name)
            if called != first[0]:
                raise LogError("import.several_agents", "the trial's agent calls itself %s "
                               "(agent_info.name), trial %s's %s: a job's trials are of its "
                               "one agent" % (quote(called), first[1], quote(first[0])),
                               ("agent_info", "name"), entry)
        details = info.get("model_info")
        model_name = nonblank(details.get("name")) if isinstance(details, dict) else None
        if model and model_name and not model.endswith(model_name):
            raise LogError("import.several_agents", "the trial's agent ran model %s "
                           "(agent_info.model_info.name), the job's config.json names %s"
                           % (quote(model_name), quote(model)),
                           ("agent_info", "model_info", "name"), entry)

    @staticmethod
    def _outcome(result: JSONObject) -> Tuple[str, Optional[str]]:
        """The trial's status and origin, from its first exception (the trial's, else a
        step's, in Harbor's order: ``TrialResult.recorded_exceptions``)."""
        steps = [step for step in items(result.get("step_results")) if isinstance(step, dict)]
        exceptions = [result.get("exception_info")] + [
            step.get("exception_info") for step in steps]
        found = next((item for item in exceptions if item is not None), None)
        if found is None:
            return SUCCESS, None
        kind = found.get("exception_type") if isinstance(found, dict) else None
        status = (TIMEOUT if kind in HARBOR_AGENT_TIMEOUTS else ERROR
                  if kind in HARBOR_AGENT_FAILURES else UNKNOWN)
        if not any(_started(part.get("agent_execution")) for part in [result] + steps):
            return status, HARBOR_BEFORE_AGENT.origin  # the agent never ran
        return status, origin_of(HARBOR_ROWS, kind)

    def _reward(self, result: JSONObject, entry: str) -> Optional[str]:
        verifier = result.get("verifier_result")
        rewards = verifier.get("rewards") if isinstance(verifier, dict) else None
        if not isinstance(rewards, dict) or not rewards:
            return None  # not verified (an environment failure, say): no final state
        key = self.reward_key
        if key is None:
            key = DEFAULT_REWARD if DEFAULT_REWARD in rewards or len(rewards) != 1 else next(
                iter(rewards))
        if key not in rewards:
            raise LogError("import.missing_field", "the verifier's rewards have no %s (they "
                           "have %s): name the reward in the mapping's final_state.key" % (
                               quote(key), ", ".join(map(quote, sorted(rewards)))),
                           ("verifier_result", "rewards"), entry)
        value = rewards[key]
        if isinstance(value, bool) or not isinstance(value, (int, float)) or not (
                -1e12 <= value <= 1e12):
            raise LogError("import.field_type", "the reward must be a number, got %s"
                           % type_name(value), ("verifier_result", "rewards", key), entry)
        return str(int(value)) if value == int(value) else repr(value)

    def _latency(self, result: JSONObject, entry: str) -> object:
        """The agent's time (``agent_execution``), in ms; null when the agent never ran (an
        environment that did not start) or Harbor recorded no time."""
        timing = result.get("agent_execution")
        if not isinstance(timing, dict):
            return None  # not measured: null, never 0
        path = ("agent_execution",)
        started = _instant(timing.get("started_at"), path + ("started_at",), entry)
        finished = _instant(timing.get("finished_at"), path + ("finished_at",), entry)
        if started is None or finished is None:
            return None
        try:
            seconds = (finished - started).total_seconds()
        except TypeError:  # one with a time zone, one without
            raise LogError("import.field_type", "started_at and finished_at must both have a "
                           "time zone or neither", path + ("finished_at",), entry)
        if not log_number(seconds):
            raise LogError("import.field_type", "finished_at is before started_at",
                           path + ("finished_at",), entry)
        return milliseconds(seconds)

    def _cost(self, result: JSONObject, entry: str) -> object:
        agent = result.get("agent_result")
        if not isinstance(agent, dict):
            return None
        keys: Tuple[str, ...]
        if self.cost_source == AGENT_TOKENS:
            keys = ("n_input_tokens", "n_output_tokens")
        else:
            keys = ("cost_usd",)
        total: Union[int, float] = 0
        for key in keys:
            value = agent.get(key)
            if value is None:
                return None  # not recorded: null, never 0
            if not log_number(value):
                raise LogError("import.field_type", "%s must be a number from 0 to 10^12"
                               % quote(key), ("agent_result", key), entry)
            total += value
        return scaled(total, self.cost_scale, ("agent_result", keys[0]), entry)

    def _tools(self, folder: TrialFolder) -> List[str]:
        if not folder.has_trajectory:
            return []
        entry = folder.name + "/" + TRAJECTORY
        trajectory = read_entry(self.source, entry, self.manifest)
        calls = set()
        for index, step in enumerate(items(trajectory.get("steps"))):
            if not isinstance(step, dict):
                continue
            for number, call in enumerate(items(step.get("tool_calls"))):
                name = call.get("function_name") if isinstance(call, dict) else None
                if not isinstance(name, str) or not name.strip():
                    raise LogError("import.field_type", "a tool call's function_name must be "
                                   "a non-blank string, got %s" % type_name(name),
                                   ("steps", index, "tool_calls", number, "function_name"),
                                   entry)
                calls.add(name)
        return sorted(calls)


class TrialFiles(Manifest):
    """The files of one trial as they are read: each added to the job's manifest (``job``)
    and to the trial's own, by its path inside the trial folder (a trace reference's digest,
    :meth:`sealed`)."""

    def __init__(self, job: Manifest, folder: str) -> None:
        super().__init__()
        self.job = job
        self.folder = folder

    def add(self, entry: str, data: bytes) -> None:
        self.job.add(entry, data)
        super().add(entry[len(self.folder) + 1:], data)

    def sealed(self, source: LogSource) -> str:
        """The trial's digest: its files read, then the verifier's output where there is
        one (which the import does not read otherwise)."""
        path = os.path.join(source.path, self.folder, *VERIFIER_OUTPUT.split("/"))
        if os.path.isfile(path):
            with open(path, "rb") as handle:
                super().add(VERIFIER_OUTPUT, handle.read())
        return self.digest.hexdigest()
