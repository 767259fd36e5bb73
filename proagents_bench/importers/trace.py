"""The one trace model: what a trial did, as a sequence of steps, read from a harness's log
by that harness's trace reader (a row of :mod:`.readers`) at a results v5 record's trace
reference, for ``explain``.

A step is a message (its role and text), a tool call (the tool's name and its arguments),
a tool result (its status and an excerpt), an error, or a check the harness itself graded (a
test, an assertion, the verifier: its name, status and an excerpt). Each keeps its position
in the unit it was read from (``messages[4].tool_calls[0]``, ``steps[2]``,
``report.json:tests_status.FAIL_TO_PASS.failure[0]``), so that every line shown can be found
in the harness's own viewer. Texts are cut to :data:`TEXT_LIMIT` characters and a trace to
:data:`STEP_LIMIT` steps; a trace says what was cut.
"""

from __future__ import annotations

import json
from typing import TYPE_CHECKING, Callable, List, Optional, Sequence, Tuple, Union

from ..contract.explanation import STEP_KINDS
from .json_excerpt import CUT_MARK

if TYPE_CHECKING:  # for annotations only
    from ..jsonio import JSON, JSONObject
    from .source import LogSource

# The kinds of step, as the explanation's contract names them.
MESSAGE, TOOL_CALL, TOOL_RESULT, ERROR, CHECK = STEP_KINDS
# A tool result's status; a check's.
OK = "ok"
FAILED = "failed"
PASSED = "passed"

# The most characters of a step's text kept, and of steps kept of one trace: what a trace
# shown takes in memory, however large its log.
TEXT_LIMIT = 300
STEP_LIMIT = 1000


class Step:
    """One step of a trace (see the module docstring): its ``kind``, ``position`` in the
    unit, the message's ``role``, the tool's (or check's) ``name``, its ``text`` (a message's
    text, a call's arguments as canonical JSON, a result's or an error's excerpt) and a tool
    result's or a check's ``status``."""

    __slots__ = ("kind", "position", "role", "name", "text", "status")

    def __init__(self, kind: str, position: str, text: str = "", role: Optional[str] = None,
                 name: Optional[str] = None, status: Optional[str] = None) -> None:
        self.kind = kind
        self.position = position
        self.role = role
        self.name = name
        self.text = cut(text)
        self.status = status

    @property
    def signature(self) -> Optional[Tuple[str, str]]:
        """A tool call's (name, arguments), by which two traces are aligned; None for the
        other steps."""
        return (self.name or "", self.text) if self.kind == TOOL_CALL else None

    def document(self) -> JSONObject:
        return {"kind": self.kind, "position": self.position, "role": self.role,
                "name": self.name, "text": self.text, "status": self.status}


class Trace:
    """The steps of one trial as read from its log (``where``: the log, and the file or
    unit inside it, as messages name them), what was cut to keep it small (``cuts``), and
    what its log records besides (``notes``: the final answer, an outcome the steps do not
    show)."""

    def __init__(self, where: str, steps: Sequence[Step], cuts: Sequence[str] = (),
                 notes: Sequence[str] = ()) -> None:
        self.where = where
        self.steps = list(steps[:STEP_LIMIT])
        self.cuts = list(cuts)
        if len(steps) > STEP_LIMIT:
            self.cuts.append("%d steps, of which the first %d are kept" % (len(steps),
                                                                          STEP_LIMIT))
        self.notes = list(notes)

    def document(self) -> JSONObject:
        return {"where": self.where, "steps": [step.document() for step in self.steps],
                "cuts": self.cuts, "notes": self.notes}


class TraceProblem(Exception):
    """Why a trace cannot be shown: its ``code`` (a row of :mod:`proagents_bench.codes`:
    ``trace.log_missing``, ``trace.log_changed``, ``trace.log_damaged``,
    ``trace.not_recorded``), a message, and ``where`` (the log, and the file inside it)."""

    def __init__(self, code: str, message: str, where: str) -> None:
        super().__init__(message)
        self.code = code
        self.message = message
        self.where = where

    def document(self) -> JSONObject:
        return {"code": self.code, "message": self.message, "where": self.where}


# A harness's trace reader: a log and the trace references of its records (results v5
# ``trace`` objects), all of one log, to a trace or a problem for each, in the same order.
# One reader reads a log once for all of them (a log that is one JSON document is one pass).
TraceReader = Callable[["LogSource", Sequence["JSONObject"]],
                       List[Union[Trace, TraceProblem]]]


def cut(text: str, limit: int = TEXT_LIMIT) -> str:
    """``text`` cut to ``limit`` characters, saying how many more there were; a text the
    excerpt already cut (its length in the log said in the trace's cuts) only marked as
    cut, for how many more there were in the log is not known here."""
    if len(text) <= limit:
        return text
    if text.endswith(CUT_MARK):
        return text[:limit] + CUT_MARK
    return "%s [... %d more characters]" % (text[:limit], len(text) - limit)


def tail(text: str, limit: int = TEXT_LIMIT) -> str:
    """The end of ``text`` (where a test run's output says what failed), ``limit``
    characters in all with the words that say how many came before."""
    if len(text) <= limit:
        return text
    before = "[%d characters before ...] " % len(text)
    kept = text[-(limit - len(before)):]
    return "[%d characters before ...] %s" % (len(text) - len(kept), kept)


def arguments_text(arguments: JSON) -> str:
    """A tool call's arguments as canonical JSON (sorted keys, no spaces), so that two calls
    with the same arguments have the same text."""
    if isinstance(arguments, str):
        return arguments
    return json.dumps(arguments, sort_keys=True, separators=(",", ":"), ensure_ascii=False)


def call_steps(calls: JSON, position: str, name_key: str) -> List[Step]:
    """The tool calls of one message or step (an array of objects, each naming its tool at
    ``name_key`` with its ``arguments``), each at ``POSITION.tool_calls[N]``."""
    return [Step(TOOL_CALL, "%s.tool_calls[%d]" % (position, number),
                 arguments_text(call.get("arguments")), name=content_text(call.get(name_key)))
            for number, call in enumerate(calls if isinstance(calls, list) else [])
            if isinstance(call, dict)]


def content_text(content: JSON) -> str:
    """A message's content as text: a string as it is; a list of parts (Inspect AI's content
    types) joined, each non-text part named in brackets (``[image]``)."""
    if content is None:
        return ""
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        parts = []
        for part in content:
            if isinstance(part, dict):
                text = part.get("text", part.get("reasoning"))
                parts.append(text if isinstance(text, str) else "[%s]" % part.get("type", "?"))
            elif isinstance(part, str):
                parts.append(part)
        return "\n".join(parts)
    return arguments_text(content)
