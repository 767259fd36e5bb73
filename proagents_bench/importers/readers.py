"""The harness readers, a row per log format: the format (its name in the harness rows of
:mod:`~proagents_bench.contract.harnesses`) and the function of its harness's module that
reads it, held here itself. The contract imports no importer, so the link from a format to
its reader is made here, as an import the type checker and the layer test follow;
:mod:`.formats` tells a log's format from its bytes and calls the reader of its row.

A reader is called as ``read(source, value, settings)`` with the log's
:class:`~.source.LogSource`, its decoded JSON object (a format told by its keys; else None)
and the mapping's :class:`~.settings.Settings`; it returns the run and its trials
(:mod:`.trial`). Every log format of the harness rows has exactly one row here, and every row
is of such a format: checked when this module is imported.
"""

from __future__ import annotations

from typing import Any, Callable, Dict, List, NamedTuple, Sequence, Tuple

from ..contract.harnesses import (HARBOR_JOB, INSPECT_EVAL, INSPECT_JSON, JSONL, LOG_FORMATS,
                                  PROMPTFOO_JSON, SWEBENCH_SUMMARY, TAU2_DIR, TAU2_JSON)
from . import harbor, inspect_eval, inspect_log, jsonl, promptfoo, swebench, tau2
from .settings import Settings
from .source import LogSource
from .trial import LogRun, Trials

# A format's reader. Its second argument is ``Any`` because which of two types it is depends
# on the row, not on anything the checker sees: the decoded object (``JSONObject``) for a
# format told by its keys, whose reader takes one, None for the others (a zip, a folder,
# JSON lines), whose readers take ``Optional[JSONObject]``.
Reader = Callable[[LogSource, Any, Settings], Tuple[LogRun, Trials]]


class FormatReader(NamedTuple):
    """One log format and the function that reads it."""

    log_format: str  # a log format's name (``LogFormat.name``)
    read: Reader


READERS: Tuple[FormatReader, ...] = (
    FormatReader(INSPECT_EVAL, inspect_eval.read_eval),
    FormatReader(INSPECT_JSON, inspect_log.read_json_log),
    FormatReader(TAU2_JSON, tau2.read_results),
    FormatReader(TAU2_DIR, tau2.read_folder),
    FormatReader(SWEBENCH_SUMMARY, swebench.read_summary),
    FormatReader(HARBOR_JOB, harbor.read_job),
    FormatReader(PROMPTFOO_JSON, promptfoo.read_results),
    FormatReader(JSONL, jsonl.read_lines),
)


def reader_problems(readers: Sequence[FormatReader], log_formats: Sequence[str]) -> List[str]:
    """What keeps ``readers`` from being the readers of ``log_formats``, one each: a format
    without a reader, one with two, a reader of a format the rows do not declare."""
    named = [row.log_format for row in readers]
    return (["the log format %s has no reader" % name for name in log_formats
             if name not in named]
            + ["the log format %s has %d readers" % (name, named.count(name))
               for name in sorted(set(named)) if named.count(name) > 1]
            + ["a reader of %s, which no harness row declares" % name
               for name in named if name not in log_formats])


READER_OF: Dict[str, Reader] = {row.log_format: row.read for row in READERS}
_PROBLEMS = reader_problems(READERS, LOG_FORMATS)
if _PROBLEMS:
    raise RuntimeError("importers/readers.py: " + "; ".join(_PROBLEMS))
