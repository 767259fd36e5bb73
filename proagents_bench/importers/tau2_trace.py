"""tau2-bench's trace reader: a simulation's conversation, as ``tau2 view`` shows it.

The steps are the simulation's ``messages`` in order (position ``messages[N]``, whose
``turn_idx`` tau2 shows): the user's and the assistant's text, each of the assistant's
``tool_calls`` (position ``messages[N].tool_calls[M]``: ``name`` and ``arguments``), a tool
message as its call's result (status ``error`` when tau2 marks it ``error``, else ``ok``);
then the simulation's ``termination_reason`` when it is not a normal stop, as an error. A
results folder's simulation is its own file (its digest is the file's); a ``results.json``
is read once for all the simulations asked for (its digest is the log's), keeping only
those.
"""

from __future__ import annotations

import os
from typing import TYPE_CHECKING, Dict, List, Sequence, Union

from .json_excerpt import WHOLE, Want
from .trace import (ERROR, MESSAGE, OK, TOOL_RESULT, Step, Trace, TraceProblem, call_steps,
                    content_text)
from .trace_bytes import array_traces, checked, file_chunks, streamed_trace

if TYPE_CHECKING:  # for annotations only
    from ..jsonio import JSONObject
    from .source import LogSource

SIMULATION_WANT: Want = {key: WHOLE for key in ("id", "task_id", "trial", "messages",
                                                "termination_reason")}
NORMAL_STOPS = ("user_stop", "agent_stop")


def folder_traces(source: LogSource, references: Sequence[JSONObject]
                  ) -> List[Union[Trace, TraceProblem]]:
    """The traces of a results folder's simulations, each from its own file."""
    found: List[Union[Trace, TraceProblem]] = []
    for reference in references:
        entry = reference["entry"] or ""
        where = "%s/%s" % (source.shown.rstrip("/\\"), entry)
        path = os.path.join(source.path, *entry.split("/"))
        found.append(streamed_trace(checked(file_chunks(path, where), reference["sha256"],
                                            where), SIMULATION_WANT, reference, where,
                                    simulation_trace))
    return found


def results_traces(source: LogSource, references: Sequence[JSONObject]
                   ) -> List[Union[Trace, TraceProblem]]:
    """The traces of a ``results.json``'s simulations, in one pass over the log."""
    return array_traces(source, references, ("simulations",), SIMULATION_WANT,
                        simulation_trace)


def simulation_trace(simulation: JSONObject, reference: JSONObject, where: str,
                     cuts: Sequence[str]) -> Trace:
    """A simulation's steps (see the module docstring); a simulation that is not the
    reference's (another id) is ``trace.log_changed``."""
    if simulation.get("id") != reference["id"] and str(reference["index"]) != reference["id"]:
        raise TraceProblem("trace.log_changed", "the log holds no simulation %s where it was "
                           "imported" % reference["id"], where)
    steps: List[Step] = []
    called: Dict[object, str] = {}  # a call's id: its tool (a tool message names only the id)
    messages = simulation.get("messages")
    for number, message in enumerate(messages if isinstance(messages, list) else []):
        if not isinstance(message, dict):
            continue
        position = "messages[%d]" % number
        text = content_text(message.get("content"))
        if message.get("role") == "tool":
            steps.append(Step(TOOL_RESULT, position, text, name=called.get(message.get("id")),
                              status=ERROR if message.get("error") is True else OK))
            continue
        if text.strip():
            steps.append(Step(MESSAGE, position, text, role=str(message.get("role"))))
        calls = message.get("tool_calls")
        called.update((call.get("id"), str(call.get("name"))) for call in (
            calls if isinstance(calls, list) else []) if isinstance(call, dict))
        steps.extend(call_steps(calls, position, "name"))
    reason = simulation.get("termination_reason")
    if isinstance(reason, str) and reason not in NORMAL_STOPS:
        steps.append(Step(ERROR, "termination_reason", "the simulation ended: %s" % reason))
    return Trace(where, steps, cuts, ["simulation %s: task %s, trial %s" % (
        reference["id"], simulation.get("task_id"), simulation.get("trial"))])
