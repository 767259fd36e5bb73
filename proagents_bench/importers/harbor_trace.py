"""Harbor's trace reader: a trial folder of a job, as ``harbor view`` shows a trial.

The steps are the agent's ATIF trajectory (``agent/trajectory.json``) where the agent wrote
one: each of its ``steps`` (position ``steps[N]``) as a message from its ``source`` (its
``message``), its ``tool_calls`` (``function_name`` and ``arguments``) and the results of
its ``observation``; then, from the trial's ``result.json``, the exception that ended it
(``exception_info``) as an error, and the verifier's reward with the end of its output
(``verifier/test-stdout.txt``) as a check. A trial without a trajectory is thus its
exception and its verifier's output.

The trial's digest is the manifest of its ``result.json``, ``agent/trajectory.json`` and
``verifier/test-stdout.txt`` (those there), as the import took it.
"""

from __future__ import annotations

import os
from typing import TYPE_CHECKING, List, Sequence, Union

from .json_excerpt import WHOLE, Want
from .trace import (CHECK, ERROR, FAILED, MESSAGE, OK, PASSED, TEXT_LIMIT, TOOL_RESULT, Step,
                    Trace, TraceProblem, arguments_text, call_steps, content_text, tail)
from .trace_bytes import FolderFiles, read_object

if TYPE_CHECKING:  # for annotations only
    from ..jsonio import JSON, JSONObject
    from .source import LogSource

RESULT = "result.json"
TRAJECTORY = "agent/trajectory.json"
VERIFIER_OUTPUT = "verifier/test-stdout.txt"
RESULT_WANT: Want = {key: WHOLE for key in ("task_name", "exception_info", "verifier_result")}


def trial_traces(source: LogSource, references: Sequence[JSONObject]
                 ) -> List[Union[Trace, TraceProblem]]:
    """The traces of a job's trials, each from its own folder."""
    found: List[Union[Trace, TraceProblem]] = []
    for reference in references:
        folder = reference["entry"] or reference["id"]
        where = "%s/%s" % (source.shown.rstrip("/\\"), folder)
        try:
            found.append(_trial(os.path.join(source.path, folder), reference["sha256"],
                                where))
        except TraceProblem as problem:
            found.append(problem)
    return found


def _trial(folder: str, expected: str, where: str) -> Trace:
    files = FolderFiles(folder, where)
    result, cuts = read_object(files.chunks(RESULT), RESULT_WANT, where + "/" + RESULT)
    steps: List[Step] = []
    if os.path.lexists(files.path(TRAJECTORY)):
        trajectory, more = read_object(files.chunks(TRAJECTORY), {"steps": WHOLE},
                                       where + "/" + TRAJECTORY)
        cuts += more
        steps.extend(_trajectory_steps(trajectory.get("steps")))
    exception = result.get("exception_info")
    if isinstance(exception, dict):
        steps.append(Step(ERROR, "%s:exception_info" % RESULT, "%s: %s" % (
            exception.get("exception_type"), content_text(exception.get("exception_message")))))
    output = ""
    if files.has(VERIFIER_OUTPUT):
        kept = b""
        for chunk in files.chunks(VERIFIER_OUTPUT):  # its end says what failed
            kept = (kept + chunk)[-TEXT_LIMIT * 4:]
        output = tail(kept.decode("utf-8", "replace"))
    verifier = result.get("verifier_result")
    rewards = verifier.get("rewards") if isinstance(verifier, dict) else None
    if isinstance(rewards, dict) or output:
        reward = rewards.get("reward") if isinstance(rewards, dict) else None
        steps.append(Step(CHECK, VERIFIER_OUTPUT if output else "%s:verifier_result" % RESULT,
                          output, name="verifier rewards %s" % arguments_text(rewards),
                          status=PASSED if reward == 1 else FAILED))
    files.check((RESULT, TRAJECTORY, VERIFIER_OUTPUT), expected)
    return Trace(where, steps, cuts, ["task %s" % result.get("task_name")])


def _trajectory_steps(value: JSON) -> List[Step]:
    steps: List[Step] = []
    for number, step in enumerate(value if isinstance(value, list) else []):
        if not isinstance(step, dict):
            continue
        position = "steps[%d]" % number
        text = content_text(step.get("message"))
        if text.strip():
            steps.append(Step(MESSAGE, position, text, role=str(step.get("source"))))
        steps.extend(call_steps(step.get("tool_calls"), position, "function_name"))
        observation = step.get("observation")
        results = observation.get("results") if isinstance(observation, dict) else None
        for index, result in enumerate(results if isinstance(results, list) else []):
            if isinstance(result, dict):
                steps.append(Step(TOOL_RESULT, "%s.observation.results[%d]" % (position, index),
                                  content_text(result.get("content")), status=OK))
    return steps
