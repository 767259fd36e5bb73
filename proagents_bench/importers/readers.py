"""The harness readers, a row per log format: the format (its name in the harness rows of
:mod:`~proagents_bench.contract.harnesses`) and the function of its harness's module that
reads it, held here itself. The contract imports no importer, so the link from a format to
its reader is made here, as an import the type checker and the layer test follow;
:mod:`.formats` tells a log's format from its bytes and calls the reader of its row.

A reader is called as ``read(source, value, settings)`` with the log's
:class:`~.source.LogSource`, its decoded JSON object (a format told by its keys; else None)
and the mapping's :class:`~.settings.Settings`; it returns the run and its trials
(:mod:`.trial`). Beside it, the format's trace reader (:data:`~.trace.TraceReader`: the log
and its records' trace references to their traces, for ``explain``), or None for a format
whose log holds no trace (JSON lines). Every log format of the harness rows has exactly one
row here, and every row is of such a format: checked when this module is imported.
"""

from __future__ import annotations

from typing import Any, Callable, Dict, List, NamedTuple, Optional, Sequence, Tuple

from ..contract.harnesses import (HARBOR_JOB, INSPECT_EVAL, INSPECT_JSON, JSONL, LOG_FORMATS,
                                  PROMPTFOO_JSON, SWEBENCH_SUMMARY, TAU2_DIR, TAU2_JSON)
from . import (harbor, harbor_trace, inspect_eval, inspect_log, inspect_trace, jsonl, promptfoo,
               promptfoo_trace, swebench, swebench_trace, tau2, tau2_trace)
from .settings import Settings
from .source import LogSource
from .trace import TraceReader
from .trial import LogRun, Trials

# A format's reader. Its second argument is ``Any`` because which of two types it is depends
# on the row, not on anything the checker sees: the decoded object (``JSONObject``) for a
# format told by its keys, whose reader takes one, None for the others (a zip, a folder,
# JSON lines), whose readers take ``Optional[JSONObject]``.
Reader = Callable[[LogSource, Any, Settings], Tuple[LogRun, Trials]]


class FormatReader(NamedTuple):
    """One log format, the function that reads it, and the function that reads its traces
    (None: its logs hold none)."""

    log_format: str  # a log format's name (``LogFormat.name``)
    read: Reader
    trace: Optional[TraceReader] = None


READERS: Tuple[FormatReader, ...] = (
    FormatReader(INSPECT_EVAL, inspect_eval.read_eval, inspect_trace.eval_traces),
    FormatReader(INSPECT_JSON, inspect_log.read_json_log, inspect_trace.json_traces),
    FormatReader(TAU2_JSON, tau2.read_results, tau2_trace.results_traces),
    FormatReader(TAU2_DIR, tau2.read_folder, tau2_trace.folder_traces),
    FormatReader(SWEBENCH_SUMMARY, swebench.read_summary, swebench_trace.instance_traces),
    FormatReader(HARBOR_JOB, harbor.read_job, harbor_trace.trial_traces),
    FormatReader(PROMPTFOO_JSON, promptfoo.read_results, promptfoo_trace.result_traces),
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
TRACE_READER_OF: Dict[str, Optional[TraceReader]] = {row.log_format: row.trace
                                                     for row in READERS}
_PROBLEMS = reader_problems(READERS, LOG_FORMATS)
if _PROBLEMS:
    raise RuntimeError("importers/readers.py: " + "; ".join(_PROBLEMS))
