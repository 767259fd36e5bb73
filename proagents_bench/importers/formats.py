"""Which reader reads a log: its format told from its bytes by the harness rows
(:mod:`proagents_bench.contract.harnesses`), never from its name, and the reader of its row in
:mod:`.readers` called on it.

The import tries the formats in the rows' order within each kind of container: a folder is
read by the first folder format whose files it has, else by the first that names one
of its files (a damaged log of that format: its reader says what it lacks), else by a format
that names no file; a file is measured (hashed whole, which also refuses what is
not a regular file, or is empty), then told by its first bytes, then by its first line (a
file of JSON lines); failing that it is decoded as one JSON object and told by its keys. A
JSON object that is only a part of a log (a near miss, such as the ``results.json`` of a
tau2-bench results folder) says what to pass instead; anything else lists every format the
import reads.
"""

from __future__ import annotations

import os
from typing import TYPE_CHECKING, Callable, List, Optional, Tuple

from ..contract.harnesses import (BYTES, FOLDER, HARNESS_OF_FORMAT, JSON, LINES,
                                  LOG_FORMATS_TABLE, LogFormat, expected_formats)
from ..errors import ContractErrors
from ..text import quote
from .readers import READER_OF
from .settings import Settings
from .source import LogSource
from .trial import LogRun, Trials

if TYPE_CHECKING:  # for annotations only
    from ..jsonio import JSONObject


def close_trials(trials: Trials) -> None:
    """Close a reader's trials (a generator that holds its log open) before they are read."""
    close = getattr(trials, "close", None)
    if close is not None:
        close()


def _formats(container: str) -> Tuple[LogFormat, ...]:
    return tuple(log_format for log_format in LOG_FORMATS_TABLE
                 if log_format.recognised.container == container)


def recognise(source: LogSource,
              settings: Optional[Settings] = None) -> Tuple[LogFormat, Optional[JSONObject]]:
    """The log's format, and its decoded JSON object when the format was told by it; a
    contract error (``import.format``) when no row reads it. A format of JSON lines with no
    keys of its own (any object on the first line) is told only when the mapping
    (``settings``) gives its ``mapping_key``, after every format with keys: a file of several
    lines at once, a file of one line once no JSON format claims its object."""
    if os.path.isdir(source.path):
        # A folder format that names its files takes a folder that has them; then one that
        # has some of them (a damaged log of that format, whose reader says what it lacks);
        # one that names none takes any other folder.
        folders = sorted(_formats(FOLDER), key=lambda found: not found.recognised.keys)
        there = [[os.path.lexists(os.path.join(source.path, name))
                  for name in log_format.recognised.keys] for log_format in folders]
        tests: Tuple[Callable[[List[bool]], bool], ...] = (
            lambda found: bool(found) and all(found), any, lambda found: not found)
        for test in tests:
            for log_format, found in zip(folders, there):
                if test(found):
                    # Errors name a folder's files as paths inside it (``run/results.json``).
                    source.entry_separator = "/"
                    return log_format, None
    head = source.measure()
    for log_format in _formats(BYTES):
        if log_format.recognised.matches_head(head):
            return log_format, None
    lines = _formats(LINES)
    keyless = [log_format for log_format in lines if not log_format.recognised.keys]
    if lines:
        several = source.has_second_line()
        keyed = [log_format for log_format in lines if log_format.recognised.keys]
        # The first line (read whole, however long) is decoded only where it can tell a
        # format: a file of one line is one JSON object, decoded once below.
        first = source.first_line() if several or keyed else None
        for log_format in keyed:
            if log_format.recognised.matches_first_line(first):
                return log_format, None
        if isinstance(first, dict) and keyless and several:
            return _keyless(source, keyless, settings), None
    value = source.read_json()
    for log_format in _formats(JSON):
        if log_format.recognised.matches_value(value):
            return log_format, value
    for log_format in LOG_FORMATS_TABLE:
        if log_format.near_miss is not None and log_format.near_miss.matches_value(value):
            raise ContractErrors([source.error("import.format", log_format.near_miss_fix)])
    for log_format in keyless:  # a log of one line
        if settings is not None and settings.get(log_format.mapping_key) is not None:
            return log_format, None
    raise ContractErrors([source.error(
        "import.format", "not a log this importer reads: expected %s" % expected_formats())])


def _keyless(source: LogSource, formats: List[LogFormat],
             settings: Optional[Settings]) -> LogFormat:
    """The format of JSON lines the mapping gives the key of; a contract error
    (``import.lines_mapping``) when it gives none."""
    for log_format in formats:
        if settings is not None and settings.get(log_format.mapping_key) is not None:
            return log_format
    raise ContractErrors([source.error("import.lines_mapping", "a log of JSON lines is read "
                                       "with a mapping that says where each line gives the "
                                       "record's fields: give %s with --mapping" % " or ".join(
                                           "a v2 mapping's %s" % quote(log_format.mapping_key)
                                           for log_format in formats))])


def open_log(source: LogSource, settings: Settings) -> Tuple[LogRun, Trials]:
    """The log's run and trials, read by its format's reader; the mapping's sources are
    checked against the log's harness (contract errors placed in the mapping file)."""
    log_format, value = recognise(source, settings)
    run, trials = READER_OF[log_format.name](source, value, settings)
    try:
        settings.check_harness(HARNESS_OF_FORMAT[log_format.name])
    except ContractErrors as failure:
        close_trials(trials)
        raise ContractErrors([error.at(settings.shown, error.line, error.column)
                              for error in failure.errors])
    return run, trials
