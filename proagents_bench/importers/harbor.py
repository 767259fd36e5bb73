"""Harbor job folders (``jobs/<job>/``, Harbor 0.26 and before; the harness of
Terminal-Bench 2.x): the job's ``config.json`` (``JobConfig``: ``n_attempts``, the agents,
the datasets, the retry and environment settings), its ``result.json`` (``JobResult``:
``id``, ``started_at``, ``finished_at``, ``n_total_trials``), its ``lock.json`` where Harbor
wrote one (``JobLock``: one entry per trial it planned, with the task's name) and one folder
per trial with its own ``result.json`` (``TrialResult``: ``task_name``, ``task_checksum``,
``agent_info``, ``verifier_result.rewards``, ``exception_info``, the timings and the agent's
tokens and cost) and the agent's ATIF trajectory, ``agent/trajectory.json``.

The folder is read one trial folder at a time, in name order, after a first pass over the
trials' small ``result.json`` files for what the protocol needs: the tasks' checksums and
the dataset. Each trial becomes one trial (none is dropped): ``task_name`` is the case id;
Harbor names no attempt, so a task's trials are its attempts 1 to ``n_attempts`` in the
order of their folders' names. The status comes from ``exception_info`` by its type, as
Harbor's own error policy classes them (``models/trial/error_policy.py``): an agent timeout
is ``timeout``; the agent's own failures (a non-zero exit, a context window exceeded, a
refusal) are ``error``; every other exception (the environment, the model provider, the
verifier, a cancelled trial, a type this importer does not know) is ``unknown``, a failed
trial that says it is not the agent's failure. The final state is the verifier's reward as
a number in text (``1``, ``0``, ``0.5``), so a case expecting ``1`` passes on a full reward;
the tools are the ATIF trajectory's tool calls.

The protocol carries what makes two runs comparable: the dataset's name and version (or a
package dataset's ``ref``) and a digest of every task's ``task_checksum``, so a run on other
versions of the tasks is another protocol (the gate says INCOMPARABLE), and so is a job of
another ``timeout_multiplier``. The planned trials are ``lock.json``'s (each task
``n_attempts`` times); without one, the tasks config.json names one by one and the trial
folders hold (a running trial's folder: its config.json), when they make up
``n_total_trials``; else only that number.

Harbor before 0.26 writes config.json without the values that are its defaults: an absent
``n_attempts`` is 1, absent ``agents`` the ``oracle`` agent, an absent ``environment``
Harbor's default (the environment is then the one the trials' own config ran). A custom agent
is named by its import path in the configs and by a name of its own in each trial's
``agent_info``: a trial is of the job's agent when its own config's agent is the job's and
its ``agent_info`` names the agent and model the job's other trials do. A trial folder copied
within the job (the same trial id) is a duplicate, never another attempt; a trial's
trajectory that is there in any form is read or refused, never skipped.
"""

from __future__ import annotations

import datetime
import hashlib
import os
import re
from typing import TYPE_CHECKING, Dict, List, Optional, Tuple, Union

from ..contract.harnesses import AGENT_TOKENS, HARBOR, HARBOR_JOB
from ..contract.shapes import type_name
from ..contract.vocabulary import ERROR, SUCCESS, TIMEOUT, UNKNOWN
from ..errors import ContractErrors
from ..jsonio.gcpause import CollectorPaused
from ..text import quote
from .settings import Settings
from .source import LogError, LogSource, Manifest, read_entry
from .trial import LogRun, Trial, Trials
from .values import items, log_number, milliseconds, optional, require, scaled

if TYPE_CHECKING:  # for annotations only
    from ..errors import Path
    from ..jsonio import JSONObject

# What Harbor takes when config.json does not say (Harbor before 0.26 writes no default):
# the agent ``oracle`` (the tasks' reference solutions) and the environment ``docker``.
DEFAULT_AGENT = "oracle"
DEFAULT_ENVIRONMENT = "docker"
# The document versions read (Harbor's ``schema_version``; a document without one is 1).
SUPPORTED_VERSIONS = (1,)
CONFIG = "config.json"
RESULT = "result.json"
LOCK = "lock.json"
TRAJECTORY = "agent/trajectory.json"
DEFAULT_REWARD = "reward"
DIGEST_PREFIX = "sha256:"
# Harbor's error policy (models/trial/error_policy.py, Harbor 0.26): the exceptions after
# which the reward is still valid are the agent's own doing; of them, the timeout.
AGENT_TIMEOUTS = ("AgentTimeoutError",)
AGENT_FAILURES = ("NonZeroAgentExitCodeError", "ContextWindowExceededError",
                  "OutputTokenExceededError", "ContextLengthExceededError",
                  "OutputLengthExceededError", "AgentSafetyRefusalError",
                  "ContentPolicyViolationError")


def read_job(source: LogSource, value: Optional[JSONObject],
             settings: Settings) -> Tuple[LogRun, Trials]:
    """A job folder (``value`` is None): its run from ``config.json``, ``result.json``,
    ``lock.json`` and the trials' results, and its trials, one trial folder at a time."""
    for name, what in ((CONFIG, "the job's JobConfig, written when it starts"),
                       (RESULT, "the job's JobResult, written when it starts and as each "
                                "trial ends")):
        if not os.path.lexists(os.path.join(source.path, name)):
            source.fail("import.format", "a Harbor job folder holds %s (%s), and this folder "
                        "has none: pass the folder Harbor wrote for the job (jobs/JOB_NAME/)"
                        % (name, what))
    folders = _trial_folders(source)
    # The digest is taken as the files are read, each once: the job's own files here (so
    # that the header already tells one job given twice), its trials' as they are read.
    manifest = Manifest()
    config = read_entry(source, CONFIG, manifest)
    if "task" in config and "trial_name" in config:  # a TrialConfig: a trial's folder
        source.fail("import.format", "a folder of one trial of a Harbor job (its config.json "
                    "is a trial's): pass the job's folder, which holds it")
    result = read_entry(source, RESULT, manifest)
    has_lock = os.path.isfile(os.path.join(source.path, LOCK))
    lock = read_entry(source, LOCK, manifest) if has_lock else None
    manifest.seal(source)
    try:
        run, checksums = _header(source, config, result, lock, folders, settings)
    except LogError as failure:
        raise ContractErrors([source.placed(failure)])
    reader = TrialReader(source, settings, run, _job_agent(config), checksums)
    return run, reader.trials(folders, manifest)


def _job_agent(config: JSONObject) -> JSONObject:
    """The job's agent: ``agents[0]`` of its config.json (``{}`` when that is no agent);
    without ``agents``, Harbor's default agent."""
    agents = config.get("agents", [{"name": DEFAULT_AGENT}])
    return agents[0] if isinstance(agents, list) and agents and isinstance(
        agents[0], dict) else {}


def _agent_of(agent: JSONObject) -> Tuple[Optional[str], Optional[str], Optional[str]]:
    """An agent config's (name, import_path, model_name): a built-in agent by its name
    (``terminus-2``), a custom one by its import path (``module:Class``, given as the name by
    ``harbor run --agent`` or as ``import_path``)."""
    return (_text(agent.get("name")), _text(agent.get("import_path")),
            _text(agent.get("model_name")))


class TrialFolder:
    """A trial folder of the job: its name, and which of the files the import reads it has
    (its ``result.json``, absent when the trial never finished, and its trajectory)."""

    __slots__ = ("name", "has_result", "has_trajectory")

    def __init__(self, name: str, has_result: bool, has_trajectory: bool) -> None:
        self.name = name
        self.has_result = has_result
        self.has_trajectory = has_trajectory


def _trial_folders(source: LogSource) -> List[TrialFolder]:
    """The job's trial folders, in name order: its folders holding a trial's ``config.json``
    or ``result.json`` (a trial that never finished has no ``result.json``); one listing of
    each, so a job of many trials costs few system calls."""
    try:
        names = sorted(entry.name for entry in os.scandir(source.path) if entry.is_dir())
        folders = []
        for name in names:
            inside = set(os.listdir(os.path.join(source.path, name)))
            if RESULT not in inside and CONFIG not in inside:
                continue
            # A trajectory that is there in any form (a FIFO, a link, a folder; or an agent/
            # that is no folder) is read, and refused as result.json would be when it is not
            # a regular file: never skipped, which would drop the trial's tool calls.
            trajectory = os.path.join(source.path, name, *TRAJECTORY.split("/"))
            folders.append(TrialFolder(name, RESULT in inside, "agent" in inside and (
                not os.path.isdir(os.path.dirname(trajectory))
                or os.path.lexists(trajectory))))
    except OSError as problem:
        source.fail("import.unreadable", "cannot read the job folder: %s" % (
            problem.strerror or problem))
    return folders


def _version(document: JSONObject, entry: str) -> int:
    found = document.get("schema_version", 1)
    if isinstance(found, bool) or found not in SUPPORTED_VERSIONS:
        raise LogError("import.format_version", "Harbor %s schema_version %s is not one this "
                       "importer reads (1)" % (entry, quote(str(found))),
                       ("schema_version",), entry)
    version: int = found  # one of SUPPORTED_VERSIONS
    return version


def _text(value: object) -> Optional[str]:
    return value if isinstance(value, str) and value.strip() else None


def _header(source: LogSource, config: JSONObject, result: JSONObject,
            lock: Optional[JSONObject],
            folders: List[TrialFolder], settings: Settings) -> Tuple[LogRun, Dict[str, str]]:
    """The job's run, and its tasks' checksums as ``lock.json`` plans them (empty without
    one: the trials' own are then read in a first pass)."""
    run = LogRun(HARBOR_JOB, HARBOR.name)
    run.format_version = str(_version(config, CONFIG))
    _version(result, RESULT)
    # Harbor before 0.26 writes config.json without the values that are its defaults
    # (model_dump_json(exclude_defaults=True)): an absent key is Harbor's default.
    agents = optional(config, "agents", list, (), CONFIG)
    if agents is None:
        agents = [_job_agent(config)]
    if len(agents) != 1:
        run.problems.append((
            "import.several_agents", "the job ran %d agents: a system is one agent, so import "
            "each agent's trials from a job of its own (harbor run with one --agent)"
            % len(agents), ("agents",), CONFIG))
    name, import_path, model = _agent_of(_job_agent(config))
    run.model = ":".join(part for part in (name or import_path, model) if part) or None
    attempts = optional(config, "n_attempts", int, (), CONFIG)
    if attempts is None:
        run.protocol["trial_count"] = (1, "config.json has no n_attempts: Harbor's default, "
                                          "1 attempt of each task (Harbor before 0.26 writes "
                                          "no default); run the job with -k 2 or more, or give "
                                          "the agent's jobs as several logs of its system")
        attempts = 1
    else:
        run.protocol["trial_count"] = (attempts, "config.json n_attempts")
    run.protocol_where["trial_count"] = (CONFIG, ("n_attempts",))
    retry = optional(config, "retry", dict, (), CONFIG) or {}
    retries = retry.get("max_retries", 0)
    if isinstance(retries, int) and not isinstance(retries, bool):
        run.protocol["retry_limit"] = (retries, "config.json retry.max_retries")
        run.protocol_where["retry_limit"] = (CONFIG, ("retry", "max_retries"))
    run.run_id = _text(result.get("id"))
    run.run_started = _text(result.get("started_at"))
    run.finished = _text(result.get("finished_at")) is not None
    run.status = "finished" if run.finished else "unfinished"
    # Each task's checksum: lock.json's (the digest Harbor resolved before the run), else the
    # trials' own; the environment the trials ran in likewise.
    checksums: Dict[str, str] = {}
    environments: List[str] = []
    if lock is not None:
        harbor = lock.get("harbor")
        run.harness_version = _text(harbor.get("version")) if isinstance(harbor, dict) else None
        run.harness_commit = (_text(harbor.get("git_commit_hash")) if isinstance(harbor, dict)
                              else None)
        planned: Dict[str, int] = {}
        for index, trial in enumerate(require(lock, "trials", list, (), "lists the planned "
                                              "trials", LOCK)):
            task = trial.get("task") if isinstance(trial, dict) else None
            name = _text(task.get("name")) if isinstance(task, dict) else None
            if name is None or not isinstance(task, dict):  # (a name comes from a dict)
                raise LogError("import.missing_field", "a planned trial names no task",
                               ("trials", index, "task", "name"), LOCK)
            planned[name] = planned.get(name, 0) + 1
            digest = _text(task.get("digest")) or "-"
            checksums[name] = digest[len(DIGEST_PREFIX):] if digest.startswith(
                DIGEST_PREFIX) else digest
            environments.append(_environment(trial))
        run.expected_ids = list(planned)
        run.expected_trials = attempts
    else:
        found = _first_pass(source, folders)
        checksums.update(found.checksums)
        environments.extend(found.environments)
        _planned_without_lock(run, config, optional(result, "n_total_trials", int, (), RESULT),
                              found, attempts)
    dataset = _dataset(config)
    environment = _environment(config) or "+".join(sorted(set(filter(None, environments))))
    tasks = hashlib.sha256("".join(sorted("%s %s\n" % pair for pair in checksums.items()))
                           .encode("utf-8")).hexdigest()[:12]
    run.defaults = {
        "benchmark_id": dataset[0] or "harbor-tasks",
        "benchmark_version": dataset[1] or "unversioned",
        "dataset_version": "%s-tasks-%s" % (dataset[2], tasks),
        "protocol_version": "harbor-%s-tasks-%s%s" % (dataset[2], tasks, _timeout(config)),
        "environment_id": "harbor-%s" % (environment or DEFAULT_ENVIRONMENT),
        "toolset_id": "harbor-environment",
        "reset_policy": "fresh-environment-per-trial",
    }
    tools = settings.side_effect_tools
    run.write_tools = tools if tools is not None else frozenset()
    run.side_effect_rule = ("a tool the mapping's side_effect_tools names" if tools is not None
                            else "every tool called (a call of the ATIF trajectory)")
    return run, checksums if lock is not None else {}


def _environment(holder: object) -> str:
    """The environment a config (a job's, a trial's, a planned trial's) names: its
    ``environment.type`` (``docker``, ...) or the import path of a custom one; "" when it
    names none."""
    environment = holder.get("environment") if isinstance(holder, dict) else None
    if not isinstance(environment, dict):
        return ""
    return _text(environment.get("type")) or _text(environment.get("import_path")) or ""


def _dataset(config: JSONObject) -> Tuple[Optional[str], Optional[str], str]:
    """The job's dataset: its name, its version, and both as the ids show them
    (``terminal-bench@2.0``; ``local`` for tasks given by path; several joined by ``+``)."""
    shown = []
    name = version = None
    for index, dataset in enumerate(items(config.get("datasets"))):
        if not isinstance(dataset, dict):
            continue
        label = _text(dataset.get("name"))
        # A registry dataset's version (terminal-bench@2.0), else a package dataset's ref
        # (org/name@sha256:..., the content digest Harbor resolved; 12 hex digits shown).
        given = _text(dataset.get("version")) or _short_ref(_text(dataset.get("ref")))
        if index == 0:
            name, version = label, given
        if label is None:
            label = "local"
        if given:
            label += "@" + given
        shown.append(label)
    if items(config.get("tasks")):
        shown.append("tasks")
    return name, version, "+".join(shown) or "tasks"


def _short_ref(ref: Optional[str]) -> Optional[str]:
    """A dataset's ref as the ids show it: a ``sha256:`` digest by its first 12 hex digits
    (``sha256:1c2c2ae14fe6``), a tag as it is."""
    if ref is not None and ref.startswith(DIGEST_PREFIX):
        return ref[:len(DIGEST_PREFIX) + 12]
    return ref


def _timeout(config: JSONObject) -> str:
    multiplier = config.get("timeout_multiplier", 1)
    if isinstance(multiplier, bool) or not isinstance(multiplier, (int, float)) or (
            multiplier == 1):
        return ""
    return "-timeout-x%s" % multiplier


class FirstPass:
    """What a job without ``lock.json`` says of its plan, read from its trial folders before
    the trials are: each task's checksum (its first trial's), the environments its trials
    ran in (their own config's), its tasks in the order of their folders (a running trial's,
    which has no result.json yet, from its config.json), and each task as a config names it
    (a package task's ``org/name``, a local task's folder) with the ``task_name`` its trials
    report."""

    def __init__(self) -> None:
        self.checksums: Dict[str, str] = {}
        self.environments: List[str] = []
        self.tasks: List[str] = []
        self.names: Dict[str, str] = {}


def _task_key(task: object) -> Optional[str]:
    """A task as a config names it (a ``TaskConfig``): a package task by its name, a local or
    git task by its folder's name (what Harbor's ``--include-task-name`` matches)."""
    if not isinstance(task, dict):
        return None
    path = _text(task.get("path"))
    return _text(task.get("name")) or (re.split(r"[\\/]", path.rstrip("/\\"))[-1] or None
                                       if path else None)


def _first_pass(source: LogSource, folders: List[TrialFolder]) -> FirstPass:
    """The plan a job without ``lock.json`` leaves in its trial folders; a trial the first
    pass cannot read is left to the second, which says why (a running trial's unreadable
    config.json names no task: the run's check then cannot name what it lacks), and so is a
    second checksum of a task."""
    found = FirstPass()
    order: List[Tuple[bool, str]] = []  # (finished, task_name or the config's task) by folder
    for folder in folders:
        try:
            document = read_entry(source, folder.name + "/" + (
                RESULT if folder.has_result else CONFIG))
        except ContractErrors:
            continue
        if not folder.has_result:  # running: its config.json (a TrialConfig)
            key = _task_key(document.get("task"))
            if key is not None:
                order.append((False, key))
            found.environments.append(_environment(document))
            continue
        name = _text(document.get("task_name"))
        if name is None:
            continue
        trial_config = document.get("config")
        found.environments.append(_environment(trial_config))
        key = _task_key(trial_config.get("task")) if isinstance(trial_config, dict) else None
        if key is not None:
            found.names.setdefault(key, name)
        found.checksums.setdefault(name, _text(document.get("task_checksum")) or "-")
        order.append((True, name))
    found.tasks = [name if finished else found.names.get(name, name)
                   for finished, name in order]
    return found


# What a glob of Harbor's task filters (fnmatch) may hold: a task_names entry without them
# names one task.
_GLOB = re.compile(r"[*?\[]")


def _config_tasks(config: JSONObject) -> List[str]:
    """The tasks config.json names one by one: its ``tasks`` and each dataset's literal
    ``task_names`` (``--include-task-name``; not when the dataset also excludes tasks or
    takes only ``n_tasks`` of them, which may drop a named one)."""
    keys = [_task_key(task) for task in items(config.get("tasks"))]
    for dataset in items(config.get("datasets")):
        if not isinstance(dataset, dict) or dataset.get("exclude_task_names") or (
                dataset.get("n_tasks") is not None):
            continue
        keys.extend(_text(name) for name in items(dataset.get("task_names"))
                    if isinstance(name, str) and not _GLOB.search(name))
    return [key for key in keys if key is not None]


def _planned_without_lock(run: LogRun, config: JSONObject, total: Optional[int],
                          found: FirstPass, attempts: int) -> None:
    """The planned trials of a job without ``lock.json``: each task that config.json names
    or a trial folder holds (finished or running), ``attempts`` times, when they make up the
    trials the job counts (``n_total_trials``); else only that count, with the tasks it
    names (the others, never started, cannot be named)."""
    named: List[str] = []
    seen = set()
    for name in [found.names.get(key, key) for key in _config_tasks(config)] + found.tasks:
        if name not in seen:
            seen.add(name)
            named.append(name)
    if total is not None and total == len(named) * attempts:
        run.expected_ids = named
        run.expected_trials = attempts
    else:
        run.expected_count = total
        run.expected_trials = attempts
        run.listed_ids = named


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
        self.agent = _agent_of(agent)
        # The name the job's agent gives itself (its trials' agent_info.name), from the first
        # trial that gives one, and that trial's folder.
        self.agent_info: Optional[Tuple[str, str]] = None
        _final, self.reward_key = settings.final_state(HARBOR)
        self.cost_source, self.cost_scale = settings.cost(HARBOR)
        self.side_effect_tools = settings.side_effect_tools
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
        self.manifest = manifest
        with CollectorPaused():
            for folder in folders:
                entry = folder.name + "/" + RESULT
                if not folder.has_result:
                    continue  # a trial that never finished: missing, as the run's check says
                try:
                    result = read_entry(self.source, entry, manifest)
                    yield self.trial(result, folder, entry)
                except ContractErrors as failure:
                    for error in failure.errors:
                        yield error
                except LogError as failure:
                    yield self.source.placed(failure)
        manifest.seal(self.source)

    def trial(self, result: JSONObject, folder: TrialFolder, entry: str) -> Trial:
        _version(result, entry)
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
        record = {
            "case_id": task,
            "trial_id": attempt,
            "status": self._status(result, entry),
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
        return Trial(record, case, entry, ())

    def _check_once(self, result: JSONObject, folder: TrialFolder, entry: str) -> None:
        """A trial is one attempt however many folders hold it: a second folder of a trial
        id already read is ``import.duplicate_sample``, naming both folders."""
        key = "id" if _text(result.get("id")) else "trial_name"
        trial_id = _text(result.get(key))
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
            ran = _agent_of(configured)
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
        called = _text(info.get("name"))
        if called is not None:
            first = self.agent_info = self.agent_info or (called, folder.name)
            if called != first[0]:
                raise LogError("import.several_agents", "the trial's agent calls itself %s "
                               "(agent_info.name), trial %s's %s: a job's trials are of its "
                               "one agent" % (quote(called), first[1], quote(first[0])),
                               ("agent_info", "name"), entry)
        details = info.get("model_info")
        model_name = _text(details.get("name")) if isinstance(details, dict) else None
        if model and model_name and not model.endswith(model_name):
            raise LogError("import.several_agents", "the trial's agent ran model %s "
                           "(agent_info.model_info.name), the job's config.json names %s"
                           % (quote(model_name), quote(model)),
                           ("agent_info", "model_info", "name"), entry)

    @staticmethod
    def _status(result: JSONObject, entry: str) -> str:
        exceptions = [result.get("exception_info")] + [
            step.get("exception_info") for step in items(result.get("step_results"))
            if isinstance(step, dict)]
        found = next((item for item in exceptions if item is not None), None)
        if found is None:
            return SUCCESS
        kind = found.get("exception_type") if isinstance(found, dict) else None
        if kind in AGENT_TIMEOUTS:
            return TIMEOUT
        if kind in AGENT_FAILURES:
            return ERROR
        return UNKNOWN  # the environment, the provider, the verifier, cancelled, unknown

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
