"""Harbor job folders (``jobs/<job>/``, Harbor 0.26 and before; the harness of
Terminal-Bench 2.x): the job's ``config.json`` (``JobConfig``: ``n_attempts``, the agents,
the datasets, the retry and environment settings), its ``result.json`` (``JobResult``:
``id``, ``started_at``, ``finished_at``, ``n_total_trials``), its ``lock.json`` where Harbor
wrote one (``JobLock``: one entry per trial it planned, with the task's name) and one folder
per trial, each read as :mod:`.harbor_trials` says.

The folder is read one trial folder at a time, in name order, after a first pass over the
trials' small ``result.json`` files for what the protocol needs: the tasks' checksums and
the dataset.

The protocol carries what makes two runs comparable: the dataset's name and version (or a
package dataset's ``ref``) and a digest of every task's ``task_checksum``, so a run on other
versions of the tasks is another protocol (the gate says INCOMPARABLE), and so is a job of
another ``timeout_multiplier``. The planned trials are ``lock.json``'s (each task
``n_attempts`` times); without one, the tasks config.json names one by one and the trial
folders hold (a running trial's folder: its config.json), when they make up
``n_total_trials``; else only that number.

Harbor before 0.26 writes config.json without the values that are its defaults: an absent
``n_attempts`` is 1, absent ``agents`` the ``oracle`` agent, an absent ``environment``
Harbor's default (the environment is then the one the trials' own config ran).
"""

from __future__ import annotations

import hashlib
import os
import re
from typing import TYPE_CHECKING, Dict, List, Optional, Tuple

from ..contract.harnesses import HARBOR, HARBOR_JOB
from ..errors import ContractErrors
from .harbor_trials import (LOCK, RESULT, TRAJECTORY, TrialFolder, TrialReader, agent_of,
                            document_version)
from .settings import Settings
from .source import LogError, LogSource, Manifest, read_entry
from .trial import LogRun, Trials
from .values import items, nonblank, optional, require

if TYPE_CHECKING:  # for annotations only
    from ..jsonio import JSONObject

# What Harbor takes when config.json does not say (Harbor before 0.26 writes no default):
# the agent ``oracle`` (the tasks' reference solutions) and the environment ``docker``.
DEFAULT_AGENT = "oracle"
DEFAULT_ENVIRONMENT = "docker"
CONFIG = "config.json"
DIGEST_PREFIX = "sha256:"


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


def _header(source: LogSource, config: JSONObject, result: JSONObject,
            lock: Optional[JSONObject],
            folders: List[TrialFolder], settings: Settings) -> Tuple[LogRun, Dict[str, str]]:
    """The job's run, and its tasks' checksums as ``lock.json`` plans them (empty without
    one: the trials' own are then read in a first pass)."""
    run = LogRun(HARBOR_JOB, HARBOR.name)
    run.format_version = str(document_version(config, CONFIG))
    document_version(result, RESULT)
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
    name, import_path, model = agent_of(_job_agent(config))
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
    run.run_id = nonblank(result.get("id"))
    run.run_started = nonblank(result.get("started_at"))
    run.finished = nonblank(result.get("finished_at")) is not None
    run.status = "finished" if run.finished else "unfinished"
    # Each task's checksum: lock.json's (the digest Harbor resolved before the run), else the
    # trials' own; the environment the trials ran in likewise.
    checksums: Dict[str, str] = {}
    environments: List[str] = []
    if lock is not None:
        harbor = lock.get("harbor")
        run.harness_version = nonblank(harbor.get("version")) if isinstance(harbor, dict) else None
        run.harness_commit = (nonblank(harbor.get("git_commit_hash")) if isinstance(harbor, dict)
                              else None)
        planned: Dict[str, int] = {}
        for index, trial in enumerate(require(lock, "trials", list, (), "lists the planned "
                                              "trials", LOCK)):
            task = trial.get("task") if isinstance(trial, dict) else None
            name = nonblank(task.get("name")) if isinstance(task, dict) else None
            if name is None or not isinstance(task, dict):  # (a name comes from a dict)
                raise LogError("import.missing_field", "a planned trial names no task",
                               ("trials", index, "task", "name"), LOCK)
            planned[name] = planned.get(name, 0) + 1
            digest = nonblank(task.get("digest")) or "-"
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
    return nonblank(environment.get("type")) or nonblank(environment.get("import_path")) or ""


def _dataset(config: JSONObject) -> Tuple[Optional[str], Optional[str], str]:
    """The job's dataset: its name, its version, and both as the ids show them
    (``terminal-bench@2.0``; ``local`` for tasks given by path; several joined by ``+``)."""
    shown = []
    name = version = None
    for index, dataset in enumerate(items(config.get("datasets"))):
        if not isinstance(dataset, dict):
            continue
        label = nonblank(dataset.get("name"))
        # A registry dataset's version (terminal-bench@2.0), else a package dataset's ref
        # (org/name@sha256:..., the content digest Harbor resolved; 12 hex digits shown).
        given = nonblank(dataset.get("version")) or _short_ref(nonblank(dataset.get("ref")))
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
    path = nonblank(task.get("path"))
    return nonblank(task.get("name")) or (re.split(r"[\\/]", path.rstrip("/\\"))[-1] or None
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
        name = nonblank(document.get("task_name"))
        if name is None:
            continue
        trial_config = document.get("config")
        found.environments.append(_environment(trial_config))
        key = _task_key(trial_config.get("task")) if isinstance(trial_config, dict) else None
        if key is not None:
            found.names.setdefault(key, name)
        found.checksums.setdefault(name, nonblank(document.get("task_checksum")) or "-")
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
        keys.extend(nonblank(name) for name in items(dataset.get("task_names"))
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
