"""The traces of the trials an explanation compares, read from the logs the package was
imported from: each record's trace reference (results v5) names its log by its index in the
system's ``provenance.logs`` and the unit in it; the logs themselves are the ones given
(``--baseline`` and ``--candidate``, as the import was given them, in that order), each read
by its format's trace reader (:data:`~proagents_bench.importers.readers.TRACE_READER_OF`),
once for all its traces asked for.

Nothing here can change a decision: a trace that cannot be read is a
:class:`~proagents_bench.importers.trace.TraceProblem` said in its place.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Dict, List, Optional, Sequence, Tuple, Union

from ..importers.readers import TRACE_READER_OF
from ..importers.trace import Trace, TraceProblem

if TYPE_CHECKING:  # for annotations only
    from ..importers.source import LogSource
    from ..jsonio import JSONObject

# A trial asked for: (role, case id, trial id).
TrialKey = Tuple[str, str, int]
Found = Union[Trace, TraceProblem]


def read_traces(systems: Dict[str, JSONObject], records: Dict[TrialKey, JSONObject],
                logs: Dict[str, Optional[Sequence[LogSource]]]) -> Dict[TrialKey, Found]:
    """The trace (or why there is none) of each trial of ``records`` (its record, by key),
    ``systems`` and ``logs`` (the logs given, None: none) by role."""
    found: Dict[TrialKey, Found] = {}
    asked: Dict[Tuple[str, int], List[Tuple[TrialKey, JSONObject]]] = {}
    for key, record in records.items():
        reference = record.get("trace")
        if reference is None:
            found[key] = TraceProblem("trace.not_recorded", "the record has no trace reference "
                                      "(a package written by hand, or imported without "
                                      "--trace-refs)", "%s trial %d" % (key[1], key[2]))
            continue
        asked.setdefault((key[0], reference["log"]), []).append((key, reference))
    for (role, number), wanted in sorted(asked.items()):
        given = logs.get(role)
        provenance = systems[role]["provenance"] or {}
        listed = provenance.get("logs") or []
        if given is None or number >= len(given):
            problem = TraceProblem("trace.log_missing", "the %s's logs were not given: pass "
                                   "--%s LOG as the import was given it" % (role, role)
                                   if given is None else
                                   "the trace is in the %s's log %d of %d, and %d %s given" % (
                                       role, number + 1, len(listed), len(given),
                                       "was" if len(given) == 1 else "were"),
                                   _listed(listed, number))
            found.update((key, problem) for key, _reference in wanted)
            continue
        source = given[number]
        log_format = listed[number]["log_format"] if number < len(listed) else ""
        reader = TRACE_READER_OF.get(log_format)
        if reader is None:
            found.update((key, TraceProblem("trace.not_recorded", "a %s log records no trace "
                                            "explain reads" % log_format, source.shown))
                         for key, _reference in wanted)
            continue
        traces = reader(source, [reference for _key, reference in wanted])
        found.update(zip([key for key, _reference in wanted], traces))
    return found


def _listed(logs: Sequence[JSONObject], number: int) -> str:
    """A log of the provenance as a message names it: its file name."""
    return str(logs[number]["log_file"]) if number < len(logs) else "log %d" % (number + 1)
