"""Inspect AI's trace reader: a sample's conversation, as the Messages tab of Inspect's own
viewer shows it (``inspect view``), at each record's trace reference.

The steps are the sample's ``messages`` in order (position ``messages[N]``): a system or user
message; an assistant message's text and each of its ``tool_calls`` (position
``messages[N].tool_calls[M]``: the ``function`` and its ``arguments``); a tool message as
the result of its call (status ``error`` with the ``error``'s message when it has one, else
``ok``, and its content); then the sample's ``error`` and ``limit``, where it has them.

An ``.eval`` log's sample is its zip entry, found and streamed alone (its digest is the
entry's); a ``.json`` log is read once for all its samples asked for (its digest is the
log's). Either way only ``id``, ``epoch``, ``messages``, ``error`` and ``limit`` are kept:
the events (where Inspect repeats the conversation at every model call, and which make a
sample hundreds of megabytes) are skipped over undecoded.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, List, Sequence, Union

from .json_excerpt import WHOLE, Want
from .trace import (ERROR, MESSAGE, OK, TOOL_RESULT, Step, Trace, TraceProblem, call_steps,
                    content_text)
from .trace_bytes import array_traces, checked, entry_chunks, streamed_trace, zip_entries

if TYPE_CHECKING:  # for annotations only
    from ..jsonio import JSON, JSONObject
    from .source import LogSource

# What a trace shows of a sample: its error's message and its limit, not the traceback.
SAMPLE_WANT: Want = {"id": WHOLE, "epoch": WHOLE, "messages": WHOLE,
                     "error": {"message": WHOLE}, "limit": {"type": WHOLE, "limit": WHOLE}}
ATTACHMENT = "attachment://"


def eval_traces(source: LogSource, references: Sequence[JSONObject]
                ) -> List[Union[Trace, TraceProblem]]:
    """The traces of an ``.eval`` log's samples, each read from its own entry."""
    where = source.shown
    try:
        entries = zip_entries(source.path, [reference["entry"] or "" for reference in
                                            references], where)
    except TraceProblem as problem:
        return [problem for _reference in references]
    found: List[Union[Trace, TraceProblem]] = []
    for reference in references:
        entry = reference["entry"] or ""
        shown = "%s:%s" % (where, entry)
        info = entries.get(entry)
        if info is None:
            found.append(TraceProblem("trace.log_changed", "the log has no entry %s, which "
                                      "it had when it was imported" % entry, shown))
            continue
        found.append(streamed_trace(checked(entry_chunks(source.path, entry, info, shown),
                                            reference["sha256"], shown), SAMPLE_WANT,
                                    reference, shown, sample_trace))
    return found


def json_traces(source: LogSource, references: Sequence[JSONObject]
                ) -> List[Union[Trace, TraceProblem]]:
    """The traces of a ``.json`` log's samples, read in one pass over the log."""
    return array_traces(source, references, ("samples",), SAMPLE_WANT, sample_trace)


def sample_trace(sample: JSONObject, reference: JSONObject, where: str,
                 cuts: Sequence[str]) -> Trace:
    """A sample's steps (see the module docstring); a sample that is not the reference's
    (another id or epoch) is ``trace.log_changed``."""
    if str(sample.get("id")) != reference["id"] or sample.get("epoch") != reference["epoch"]:
        raise TraceProblem("trace.log_changed", "the log holds no sample %s epoch %s where "
                           "it was imported" % (reference["id"], reference["epoch"]), where)
    steps: List[Step] = []
    messages = sample.get("messages")
    for number, message in enumerate(messages if isinstance(messages, list) else []):
        if isinstance(message, dict):
            steps.extend(_message_steps(message, "messages[%d]" % number))
    error = sample.get("error")
    if isinstance(error, dict):
        steps.append(Step(ERROR, "error", _text(error.get("message"))))
    limit = sample.get("limit")
    if isinstance(limit, dict):
        steps.append(Step(ERROR, "limit", "the sample reached its %s limit (%s)" % (
            limit.get("type"), limit.get("limit"))))
    return Trace(where, steps, cuts)


def _message_steps(message: JSONObject, position: str) -> List[Step]:
    role = message.get("role")
    text = _text(message.get("content"))
    if role == "tool":
        error = message.get("error")
        failed = isinstance(error, dict)
        return [Step(TOOL_RESULT, position, _text(error.get("message")) if isinstance(
            error, dict) else text, name=_text(message.get("function")) or None,
            status=ERROR if failed else OK)]
    steps = [Step(MESSAGE, position, text, role=str(role))] if text.strip() else []
    return steps + call_steps(message.get("tool_calls"), position, "function")


def _text(value: JSON) -> str:
    text = content_text(value)
    if text.startswith(ATTACHMENT):  # kept apart in the sample's attachments: not read here
        return "[%s: the sample's attachments hold its text]" % text
    return text
