"""Write the Harbor fixtures with Harbor's own data model (harbor 0.26.0): every file of a job
folder is a Harbor Pydantic model written as Harbor writes it: the job's ``config.json``
(``JobConfig``), ``result.json`` (``JobResult``, without its trial results, as Harbor's
final write leaves it), ``lock.json`` (``JobLock`` with one ``TrialLock`` per planned trial),
and per trial ``config.json`` (``TrialConfig``), ``result.json`` (``TrialResult``, with
``ExceptionInfo``, ``VerifierResult``, ``AgentContext``, the timings) and the agent's ATIF
trajectory ``agent/trajectory.json`` (``Trajectory``, ``Step``, ``ToolCall``).

Not part of the suite and not a dependency of the product: Harbor runs agents in containers
with model API keys, so the trials are scripted; run this by hand in a virtual environment
with Python 3.12 (as Harbor requires) where Harbor is installed
(``python -m pip install harbor==0.26.0``)::

    python make_harbor_jobs.py [OUTPUT_FOLDER]

A made-up dataset ``acme-terminal@1.0`` of four tasks, three attempts each (``-k 3``), agent
``terminus-2``:

- ``harbor_baseline_job/`` (model ``acme/model-a``): solves ``fix-permissions`` and
  ``parse-logs`` in every attempt, ``build-cache`` in one; ``clean-workspace`` in every
  attempt, by running ``rm_rf`` in none; one attempt of ``parse-logs`` lost its container
  (``EnvironmentStartTimeoutError``: an environment failure);
- ``harbor_candidate_job/`` (model ``acme/model-b``): solves every task in every attempt but
  one of ``build-cache``, which timed out (``AgentTimeoutError``), and calls ``rm_rf`` on
  ``clean-workspace`` in every attempt;
- ``harbor_candidate_retask_job/``: the candidate on a changed ``build-cache`` (another
  task checksum);
- ``harbor_unfinished_job/``: the baseline's job stopped before two trials of
  ``clean-workspace`` wrote their result (no ``finished_at``).

Runs that are not evidence, and the reference agents (the validity audit):

- ``harbor_infra_baseline_job/``: the baseline's job on a host whose Docker provider failed
  to start the environment of four of its twelve trials (a ``RuntimeError`` raised by the
  environment provider during ``environment_setup``: the agent never ran);
- ``harbor_infra_candidate_job/``: the candidate's job of the same run: two trials timed out
  (``AgentTimeoutError``: the agent's), one lost its environment (the provider's
  ``RuntimeError``);
- ``harbor_nop_job/``: Harbor's own do-nothing agent, ``nop``: it passes ``clean-workspace``
  (a workspace already clean) and nothing else;
- ``harbor_oracle_job/``: Harbor's own ``oracle`` agent (the task's reference solution):
  it solves every task but ``build-cache``, whose reference solution fails its tests.
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
from harbor.models.job.lock import HarborLockInfo, JobLock, TaskLock, TrialLock, VerifierLock
from harbor.models.job.result import JobResult, JobStats
from harbor.models.task.id import LocalTaskId
from harbor.models.trajectories.agent import Agent
from harbor.models.trajectories.step import Step
from harbor.models.trajectories.tool_call import ToolCall
from harbor.models.trajectories.trajectory import Trajectory
from harbor.models.trial.config import (AgentConfig, EnvironmentConfig, TaskConfig,
                                        TrialConfig)
from harbor.models.trial.result import (AgentInfo, ExceptionInfo, ModelInfo, TimingInfo,
                                        TrialResult)
from harbor.models.verifier.result import VerifierResult

HERE = os.path.dirname(os.path.abspath(__file__))
START = datetime(2026, 11, 2, 9, 0, 0, tzinfo=timezone.utc)
ATTEMPTS = 3
TASKS = ["build-cache", "clean-workspace", "fix-permissions", "parse-logs"]


def checksum(task, revision=1):
    """A task's checksum (Harbor's is the SHA-256 of the task's files; made up here)."""
    return hashlib.sha256(("acme-terminal %s revision %d" % (task, revision)).encode()).hexdigest()


# Per task and attempt: (reward, exception type or None, tools called).
BASELINE = {
    "build-cache": [(1, None, ["bash"]), (0, None, ["bash"]), (0, None, ["bash"])],
    "clean-workspace": [(1, None, ["bash", "ls"])] * 3,
    "fix-permissions": [(1, None, ["bash", "chmod"])] * 3,
    "parse-logs": [(1, None, ["bash"]), (None, "EnvironmentStartTimeoutError", []),
                   (1, None, ["bash"])],
}
CANDIDATE = {
    "build-cache": [(1, None, ["bash"]), (0, "AgentTimeoutError", ["bash"]),
                    (1, None, ["bash"])],
    "clean-workspace": [(1, None, ["bash", "rm_rf"])] * 3,
    "fix-permissions": [(1, None, ["bash", "chmod"])] * 3,
    "parse-logs": [(1, None, ["bash"])] * 3,
}

# The exception an environment provider raises when it cannot start the environment (Harbor's
# Docker environment raises RuntimeError when ``docker compose`` fails): recorded during
# environment_setup, before the agent runs.
PROVIDER_FAILURE = "RuntimeError"
PROVIDER_MESSAGE = ("Docker compose command failed for environment acme-terminal. Command: "
                    "docker compose up --detach --wait. Return code: 1. Stdout: Error response "
                    "from daemon: failed to create network")


# A run whose host lost environments: the provider's RuntimeError before the agent ran.
INFRA_BASELINE = {
    "build-cache": [(None, PROVIDER_FAILURE, []), (1, None, ["bash"]),
                    (None, PROVIDER_FAILURE, [])],
    "clean-workspace": [(1, None, ["bash", "ls"])] * 3,
    "fix-permissions": [(1, None, ["bash", "chmod"]), (None, PROVIDER_FAILURE, []),
                        (1, None, ["bash", "chmod"])],
    "parse-logs": [(None, PROVIDER_FAILURE, []), (1, None, ["bash"]), (1, None, ["bash"])],
}
INFRA_CANDIDATE = {
    "build-cache": [(1, None, ["bash"]), (0, "AgentTimeoutError", ["bash"]),
                    (1, None, ["bash"])],
    "clean-workspace": [(0, "AgentTimeoutError", ["bash", "ls"]), (1, None, ["bash", "ls"]),
                        (1, None, ["bash", "ls"])],
    "fix-permissions": [(1, None, ["bash", "chmod"])] * 3,
    "parse-logs": [(1, None, ["bash"]), (None, PROVIDER_FAILURE, []), (1, None, ["bash"])],
}
# Harbor's reference agents: ``nop`` does nothing (no tool call), ``oracle`` runs the task's
# reference solution (its solve.sh, through the environment's shell).
NOP = {
    "build-cache": [(0, None, [])] * 3,
    "clean-workspace": [(1, None, [])] * 3,
    "fix-permissions": [(0, None, [])] * 3,
    "parse-logs": [(0, None, [])] * 3,
}
ORACLE = {
    "build-cache": [(0, None, ["bash"])] * 3,
    "clean-workspace": [(1, None, ["bash"])] * 3,
    "fix-permissions": [(1, None, ["bash"])] * 3,
    "parse-logs": [(1, None, ["bash"])] * 3,
}


def trial_name(task, attempt, job):
    """Harbor's name of a trial: the task's name, ``__``, seven random letters and digits
    (fixed here, from the job, task and attempt)."""
    digest = hashlib.sha256(("%s %s %d" % (job, task, attempt)).encode()).hexdigest()
    return "%s__%s" % (task[:32], digest[:7])


def trajectory_text(result, agent, version, model, task, tools):
    """The agent's ATIF trajectory of a trial (``result``) as Harbor writes it: the task's
    instruction, then one step per tool called."""
    steps = [Step(step_id=1, source="user", message="Solve the task %s." % task)]
    for number, tool in enumerate(tools, 2):
        steps.append(Step(step_id=number, source="agent", message="", model_name=model,
                          tool_calls=[ToolCall(tool_call_id="call-%d" % number,
                                               function_name=tool, arguments={})]))
    trajectory = Trajectory(session_id=str(result.id),
                            agent=Agent(name=agent, version=version, model_name=model),
                            steps=steps)
    return json.dumps(trajectory.to_json_dict(), indent=2)


def write(path, text):
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)


def write_job(output, job_name, model, outcomes, revisions=None, unfinished=(),
              agent_name="terminus-2", agent_version="2.0.0"):
    revisions = revisions or {}
    folder = Path(output) / job_name
    if folder.exists():
        shutil.rmtree(folder)
    agent = AgentConfig(name=agent_name, model_name=model)
    environment = EnvironmentConfig(type="docker")
    config = JobConfig(job_name=job_name, jobs_dir=Path("jobs"), n_attempts=ATTEMPTS,
                       agents=[agent], environment=environment,
                       datasets=[DatasetConfig(name="acme-terminal", version="1.0")])
    write(folder / "config.json", config.model_dump_json(indent=4))
    job_id = uuid.uuid5(uuid.NAMESPACE_URL, "acme/" + job_name)
    locks = []
    results = []
    moment = START
    for task in TASKS:
        digest = checksum(task, revisions.get(task, 1))
        task_config = TaskConfig(path=Path("tasks") / task, source="acme-terminal")
        locks.extend(TrialLock(task=TaskLock(name=task, type="local", digest="sha256:" + digest,
                                             source="acme-terminal", path=Path("tasks") / task),
                               agent=agent, environment=environment, verifier=VerifierLock())
                     for _attempt in range(ATTEMPTS))
        for attempt, (reward, failure, tools) in enumerate(outcomes[task], 1):
            name = trial_name(task, attempt, job_name)
            trial = folder / name
            trial_config = TrialConfig(task=task_config, trial_name=name,
                                       trials_dir=Path("jobs") / job_name, agent=agent,
                                       environment=environment, job_id=job_id)
            write(trial / "config.json", trial_config.model_dump_json(indent=4))
            if (task, attempt) in unfinished:
                continue  # the job stopped before this trial wrote its result
            started = moment
            agent_started = started + timedelta(seconds=20)
            agent_finished = agent_started + timedelta(seconds=30 + 7 * attempt,
                                                       milliseconds=250)
            finished = agent_finished + timedelta(seconds=10)
            moment = finished
            ran = failure not in ("EnvironmentStartTimeoutError", PROVIDER_FAILURE)
            exception = None if failure is None else ExceptionInfo(
                exception_type=failure, exception_message=PROVIDER_MESSAGE
                if failure == PROVIDER_FAILURE else "scripted %s" % failure,
                exception_traceback="Traceback (scripted)",
                occurred_at=started + timedelta(seconds=15) if failure == PROVIDER_FAILURE
                else agent_finished)
            result = TrialResult(
                id=uuid.uuid5(job_id, name), task_name=task, trial_name=name,
                trial_uri="file:///jobs/%s/%s" % (job_name, name),
                task_id=LocalTaskId(path=Path("tasks") / task), source="acme-terminal",
                task_checksum=digest, config=trial_config,
                agent_info=AgentInfo(name=agent_name, version=agent_version,
                                     model_info=ModelInfo(name=model.split("/")[1],
                                                          provider=model.split("/")[0])
                                     if model else None),
                agent_result=(AgentContext(n_input_tokens=12000 + 100 * attempt,
                                           n_cache_tokens=0, n_output_tokens=800,
                                           cost_usd=0.0125 * attempt) if model else
                              AgentContext(n_input_tokens=0, n_cache_tokens=0,
                                           n_output_tokens=0, cost_usd=0.0))
                if ran else None,
                verifier_result=VerifierResult(rewards={"reward": reward})
                if reward is not None else None,
                exception_info=exception, started_at=started, finished_at=finished,
                environment_setup=TimingInfo(started_at=started,
                                             finished_at=started + timedelta(seconds=15)),
                agent_execution=TimingInfo(started_at=agent_started,
                                           finished_at=agent_finished) if ran else None)
            write(trial / "result.json", result.model_dump_json(indent=4))
            results.append(result)
            if ran:
                write(trial / "agent" / "trajectory.json",
                      trajectory_text(result, agent_name, agent_version, model, task, tools))
    lock = JobLock(created_at=START, harbor=HarborLockInfo(version="0.26.0"),
                   n_concurrent_trials=4, retry=config.retry, trials=locks)
    write(folder / "lock.json", lock.model_dump_json(indent=4, exclude_none=True))
    job = JobResult(id=job_id, started_at=START, updated_at=moment,
                    finished_at=None if unfinished else moment,
                    n_total_trials=len(TASKS) * ATTEMPTS,
                    stats=JobStats.from_trial_results(results,
                                                      n_total_trials=len(TASKS) * ATTEMPTS))
    write(folder / "result.json", job.model_dump_json(indent=4, exclude={"trial_results"}))


def main():
    output = os.path.abspath(sys.argv[1] if len(sys.argv) > 1 else
                             os.path.join(HERE, "fixtures"))
    write_job(output, "harbor_baseline_job", "acme/model-a", BASELINE)
    write_job(output, "harbor_candidate_job", "acme/model-b", CANDIDATE)
    write_job(output, "harbor_candidate_retask_job", "acme/model-b", CANDIDATE,
              revisions={"build-cache": 2})
    write_job(output, "harbor_unfinished_job", "acme/model-a", BASELINE,
              unfinished={("clean-workspace", 2), ("clean-workspace", 3)})
    write_job(output, "harbor_infra_baseline_job", "acme/model-a", INFRA_BASELINE)
    write_job(output, "harbor_infra_candidate_job", "acme/model-b", INFRA_CANDIDATE)
    write_job(output, "harbor_nop_job", None, NOP, agent_name="nop", agent_version="1.0.0")
    write_job(output, "harbor_oracle_job", None, ORACLE, agent_name="oracle",
              agent_version="1.0.0")


if __name__ == "__main__":
    main()
