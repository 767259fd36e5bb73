"""Write the Harbor 0.21 fixtures with Harbor 0.21.0's own data model and its own ways of
writing each file, as a published job looks once downloaded (``harbor jobs download``
rebuilds a job the Hub holds no job archive of from its trials: Harbor 0.21's
``Downloader._reconstruct_job_from_trials``):

- the job's ``config.json``: ``JobConfig.model_dump(mode="json", exclude_defaults=True)``
  as the Hub stores it and the download writes it (``json.dumps(..., indent=4)``); what
  ``harbor run`` itself writes is the same (``model_dump_json(indent=4,
  exclude_defaults=True)``, Harbor 0.18 to 0.25). So a job of one attempt per task has no
  ``n_attempts``, a job in Harbor's default environment (docker) no ``environment``, and a
  package dataset names its ``ref`` (the content digest Harbor resolved), never a
  ``version``;
- the job's ``result.json``: the ``JobResult`` the download builds (``updated_at`` null);
  no ``lock.json`` (the download writes none; nor does Harbor before 0.7);
- per trial, what the trial itself wrote (its archive): ``config.json`` (``TrialConfig``,
  ``exclude_defaults=True``), ``lock.json`` (``TrialLock``), ``result.json``
  (``TrialResult``, whose ``config`` is the whole ``TrialConfig``: the environment the trial
  ran in) and the agent's ATIF trajectory ``agent/trajectory.json``.

Not part of the suite and not a dependency of the product: Harbor runs agents in containers
with model API keys, so the trials are scripted; run this by hand in a virtual environment
with Python 3.12 (as Harbor requires) where Harbor 0.21.0 is installed
(``python -m pip install harbor==0.21.0``)::

    python make_harbor021_jobs.py [OUTPUT_FOLDER]

A made-up package dataset ``acme/acme-terminal`` of four tasks (``acme/build-cache``, ...),
run with ``harbor run --dataset acme/acme-terminal@sha256:... --include-task-name ...`` for
each task, one attempt each (no ``-k``), by a custom agent given by its import path
(``--agent acme_agents.direct:DirectAgent``), which calls itself ``direct-agent`` in each
trial's ``agent_info``; two jobs per system, the system's attempts 1 and 2:

- ``harbor021_baseline_run1/``, ``harbor021_baseline_run2/`` (model ``acme/model-a``): solves
  ``fix-permissions`` and ``clean-workspace`` (without ``rm_rf``) in both, ``build-cache``
  in run 1, ``parse-logs`` in run 1; in run 2 ``parse-logs`` lost its container
  (``EnvironmentStartTimeoutError``);
- ``harbor021_candidate_run1/``, ``harbor021_candidate_run2/`` (model ``acme/model-b``):
  solves every task in both runs but ``build-cache`` in run 2 (``AgentTimeoutError``), and
  calls ``rm_rf`` on ``clean-workspace`` in both;
- ``harbor021_running_job/``: a baseline job of two attempts each (``-k 2``) copied while
  it ran (``finished_at`` null): ``build-cache`` and ``fix-permissions`` finished, one
  attempt of ``clean-workspace`` finished and the other running (its folder holds its
  ``config.json`` only), ``parse-logs`` not started (no folder; config.json names it).
"""

import hashlib
import json
import os
import shutil
import sys
import uuid
from datetime import datetime, timedelta, timezone
from pathlib import Path

from harbor.models.agent.context import AgentContext
from harbor.models.job.config import DatasetConfig, JobConfig
from harbor.models.job.lock import TaskLock, TrialLock, VerifierLock
from harbor.models.job.result import JobResult, JobStats
from harbor.models.task.id import PackageTaskId
from harbor.models.trial.config import AgentConfig, EnvironmentConfig, TaskConfig, TrialConfig
from harbor.models.trial.result import (AgentInfo, ExceptionInfo, ModelInfo, TimingInfo,
                                        TrialResult)
from harbor.models.verifier.result import VerifierResult
from make_harbor_jobs import trajectory_text, write

HERE = os.path.dirname(os.path.abspath(__file__))
START = datetime(2026, 11, 9, 9, 0, 0, tzinfo=timezone.utc)
ORG = "acme"
DATASET = "acme/acme-terminal"
DATASET_REF = "sha256:" + hashlib.sha256(b"acme/acme-terminal 2026-11").hexdigest()
TASKS = ["build-cache", "clean-workspace", "fix-permissions", "parse-logs"]
AGENT_IMPORT_PATH = "acme_agents.direct:DirectAgent"
AGENT_SELF_NAME = "direct-agent"  # the name the agent gives itself (its name())
AGENT_VERSION = "0.3.1"

# Per task, per run: (reward, exception type or None, tools called); None: not run.
BASELINE = [
    {"build-cache": (1, None, ["bash"]), "clean-workspace": (1, None, ["bash", "ls"]),
     "fix-permissions": (1, None, ["bash", "chmod"]), "parse-logs": (1, None, ["bash"])},
    {"build-cache": (0, None, ["bash"]), "clean-workspace": (1, None, ["bash", "ls"]),
     "fix-permissions": (1, None, ["bash", "chmod"]),
     "parse-logs": (None, "EnvironmentStartTimeoutError", [])},
]
CANDIDATE = [
    {"build-cache": (1, None, ["bash"]), "clean-workspace": (1, None, ["bash", "rm_rf"]),
     "fix-permissions": (1, None, ["bash", "chmod"]), "parse-logs": (1, None, ["bash"])},
    {"build-cache": (0, "AgentTimeoutError", ["bash"]),
     "clean-workspace": (1, None, ["bash", "rm_rf"]),
     "fix-permissions": (1, None, ["bash", "chmod"]), "parse-logs": (1, None, ["bash"])},
]
# A job of two attempts copied while it ran: "running" has no result.json yet; a task of
# no attempt never started.
RUNNING = {"build-cache": [(1, None, ["bash"]), (0, None, ["bash"])],
           "clean-workspace": [(1, None, ["bash", "ls"]), "running"],
           "fix-permissions": [(1, None, ["bash", "chmod"])] * 2, "parse-logs": []}


def task_digest(task):
    """A task's content digest (Harbor's is the SHA-256 of the task's files; made up)."""
    return "sha256:" + hashlib.sha256(("acme/acme-terminal %s" % task).encode()).hexdigest()


def trial_name(task, job, attempt):
    """Harbor's name of a trial: the task's name, ``__``, seven random letters and digits
    (fixed here, from the job, the task and the attempt)."""
    return "%s__%s" % (task[:32], hashlib.sha256(("%s %s %d" % (job, task, attempt))
                                                 .encode()).hexdigest()[:7])


def write_job(output, job_name, model, outcomes, finished=True, attempts=1):
    """A job; ``outcomes``: per task, one outcome per attempt (a task with none never
    started)."""
    folder = Path(output) / job_name
    if folder.exists():
        shutil.rmtree(folder)
    agent = AgentConfig(name=AGENT_IMPORT_PATH, model_name=model)
    environment = EnvironmentConfig(type="docker")  # --env docker: Harbor's default
    config = JobConfig(job_name=job_name, agents=[agent], environment=environment,
                       n_attempts=attempts,
                       datasets=[DatasetConfig(name=DATASET, ref=DATASET_REF,
                                               task_names=["%s/%s" % (ORG, task)
                                                           for task in TASKS])])
    # The Hub's copy of the config, as the download writes it.
    write(folder / "config.json", json.dumps(config.model_dump(mode="json",
                                                                 exclude_defaults=True),
                                              indent=4, default=str))
    job_id = uuid.uuid5(uuid.NAMESPACE_URL, "acme/" + job_name)
    results = []
    moment = START
    for task, attempt, outcome in [(task, attempt, outcome) for task in TASKS
                                   for attempt, outcome in enumerate(outcomes[task], 1)]:
        name = trial_name(task, job_name, attempt)
        trial = folder / name
        task_config = TaskConfig(name="%s/%s" % (ORG, task), ref=task_digest(task),
                                 source=DATASET)
        trial_config = TrialConfig(task=task_config, trial_name=name,
                                   trials_dir=Path("jobs") / job_name, agent=agent,
                                   environment=environment, job_id=job_id)
        write(trial / "config.json", trial_config.model_dump_json(indent=4,
                                                                  exclude_defaults=True))
        lock = TrialLock(task=TaskLock(name="%s/%s" % (ORG, task), type="package",
                                       digest=task_digest(task), source=DATASET),
                         agent=agent, environment=environment, verifier=VerifierLock())
        write(trial / "lock.json", lock.model_dump_json(indent=4, exclude_none=True))
        if outcome == "running":
            continue  # the job was copied before this trial wrote its result
        reward, failure, tools = outcome
        started = moment
        agent_started = started + timedelta(seconds=20)
        agent_finished = agent_started + timedelta(seconds=31 + 3 * len(results),
                                                   milliseconds=500)
        finished_at = agent_finished + timedelta(seconds=10)
        moment = finished_at
        ran = failure != "EnvironmentStartTimeoutError"
        result = TrialResult(
            id=uuid.uuid5(job_id, name), task_name="%s/%s" % (ORG, task), trial_name=name,
            trial_uri="file:///jobs/%s/%s" % (job_name, name),
            task_id=PackageTaskId(org=ORG, name=task, ref=task_digest(task)), source=DATASET,
            task_checksum=task_digest(task)[len("sha256:"):], config=trial_config,
            agent_info=AgentInfo(name=AGENT_SELF_NAME, version=AGENT_VERSION,
                                 model_info=ModelInfo(name=model.split("/")[1],
                                                      provider=model.split("/")[0])),
            agent_result=AgentContext(n_input_tokens=9000 + 250 * len(results),
                                      n_cache_tokens=0, n_output_tokens=700,
                                      cost_usd=0.011 + 0.001 * len(results)) if ran else None,
            verifier_result=VerifierResult(rewards={"reward": reward})
            if reward is not None else None,
            exception_info=None if failure is None else ExceptionInfo(
                exception_type=failure, exception_message="scripted %s" % failure,
                exception_traceback="Traceback (scripted)", occurred_at=agent_finished),
            started_at=started, finished_at=finished_at,
            environment_setup=TimingInfo(started_at=started,
                                         finished_at=started + timedelta(seconds=15)),
            agent_execution=TimingInfo(started_at=agent_started,
                                       finished_at=agent_finished) if ran else None)
        write(trial / "result.json", result.model_dump_json(indent=4))
        results.append(result)
        if ran:
            write(trial / "agent" / "trajectory.json",
                  trajectory_text(result, AGENT_SELF_NAME, AGENT_VERSION, model, task, tools))
    job = JobResult(id=job_id, started_at=START, updated_at=None,
                    finished_at=moment if finished else None,
                    n_total_trials=len(TASKS) * attempts,
                    stats=JobStats.from_trial_results(results,
                                                      n_total_trials=len(TASKS) * attempts))
    write(folder / "result.json", job.model_dump_json(indent=4, exclude={"trial_results"}))


def main():
    output = os.path.abspath(sys.argv[1] if len(sys.argv) > 1 else
                             os.path.join(HERE, "fixtures"))
    for role, model, runs in (("baseline", "acme/model-a", BASELINE),
                              ("candidate", "acme/model-b", CANDIDATE)):
        for number, outcomes in enumerate(runs, 1):
            write_job(output, "harbor021_%s_run%d" % (role, number), model,
                      {task: [outcome] for task, outcome in outcomes.items()})
    write_job(output, "harbor021_running_job", "acme/model-a", RUNNING, finished=False,
              attempts=2)


if __name__ == "__main__":
    main()
