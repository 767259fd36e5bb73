"""``--gitlab-codequality PATH``: GitLab's Code Quality report, each reason on its file's line.

GitLab reads a job's ``artifacts:reports:codequality`` file: a JSON array in the subset of
the Code Climate format its docs give for a custom tool ("Implement a custom tool"), each
entry a ``description``, a ``check_name``, a ``fingerprint``, a ``severity`` (``info``,
``minor``, ``major``, ``critical`` or ``blocker``) and a ``location`` (``path``, relative to
the repository, and ``lines.begin``). GitLab ignores every other key, stops reading the file
at the first entry its schema refuses, and keeps one entry per fingerprint: so every entry
here has all of them, and no two share a fingerprint. It shows the entries in the merge
request (new and resolved ones, against the target branch's report, matched by fingerprint)
and, in GitLab Ultimate, on the lines of the diff.

What the report holds:

- A decision: one entry per reason of a REVIEW or BLOCK that concerns a line of a file,
  placed exactly as ``--format github`` places it (:func:`~.view.placed_reasons`): a failed
  gate at its line in the spec, a failed critical task at its case in the cases file. A
  reason that concerns no line is not in it (a finding that is no gate; an INCOMPARABLE's
  protocol mismatches; a file read from standard input): a PASS and an INCOMPARABLE write
  ``[]``. The decision itself is the job's status and the other reports'.
- A run that ended without a decision: each contract error found in a file, at its file and
  line (line 1 for an error of the whole file, which has none). An error of the command line
  or of a file the run writes (the ``cli`` codes) names no place in a file of the repository,
  and an internal error or an interruption has no error: ``[]``, never an earlier run's
  entries.

The severity of each kind of entry is :data:`SEVERITY_TABLE` (docs/ci.md shows it). A
``fingerprint`` is the SHA-256 of the check, the path and what the entry concerns (the gate's
key, the case's id, an error's JSON path), never its line or words, so GitLab follows a
finding from one pipeline to the next while the file around it changes; the same inputs give
the same bytes. A ``path`` is written as GitLab wants it (:func:`repository_path`): relative
to the working folder, which in CI is the repository's root, with ``/`` between its parts.
"""

from __future__ import annotations

import hashlib
import json
import os
import posixpath
from typing import TYPE_CHECKING, List, NamedTuple, Optional, Tuple

from ..contract.vocabulary import BLOCKING
from ..errors import format_path
from ..jsonio.dump import document_bytes
from ..version import NAME
from .view import placed_reasons

if TYPE_CHECKING:  # for annotations only
    from types import ModuleType

    from ..jsonio import JSONObject
    from ..render.evaluation import Evaluation
    from ..render.nodecision import NoDecision

# GitLab's severities, lowest first (its docs; the Code Climate format's).
SEVERITIES = ("info", "minor", "major", "critical", "blocker")

# The family (codes.Code.family) of the errors of the command line and of the files a run
# writes (a report path that cannot be written, --candidate naming no system of the
# results): the path such an error names is no place in a file of the repository.
COMMAND_LINE = "cli"

# The kinds of entry.
CONTRACT_ERROR = "contract error"
CRITICAL_TASK = "failed critical task"
BLOCKING_GATE = "failed gate that blocks"
REVIEWING_GATE = "failed gate that asks for review"


class Severity(NamedTuple):
    """A row of :data:`SEVERITY_TABLE`: a kind of entry, its GitLab severity, and why."""

    kind: str
    severity: str
    why: str


SEVERITY_TABLE: Tuple[Severity, ...] = (
    Severity(CONTRACT_ERROR, "blocker", "nothing was decided: no release passes until the "
                                        "file is fixed"),
    Severity(CRITICAL_TASK, "critical", "BLOCK: a task the cases mark critical failed, "
                                        "whatever the overall score did"),
    Severity(BLOCKING_GATE, "major", "BLOCK: a hard gate of the candidate as a whole "
                                     "failed"),
    Severity(REVIEWING_GATE, "minor", "REVIEW: a person decides before shipping"),
)
SEVERITY_OF = {row.kind: row.severity for row in SEVERITY_TABLE}


def severity_table() -> str:
    """docs/ci.md's table of the severities (Markdown)."""
    return "\n".join(["| entry | severity | why |", "|---|---|---|"] + [
        "| %s | `%s` | %s |" % row for row in SEVERITY_TABLE]) + "\n"


def repository_path(path: str, folder: str, paths: ModuleType = os.path) -> str:
    """``path`` (as the command line named it) as GitLab wants it: relative to the
    repository, ``/`` between its parts. A relative path is relative to the working folder
    ``folder`` already; an absolute path inside ``folder`` is made relative to it (``paths``:
    the platform's path rules, ``ntpath`` on Windows); an absolute path elsewhere (outside
    the folder, on another drive) is kept, which no repository holds. A backslash is a
    separator on every platform, and ``./`` and ``a/../`` are dropped, so the same file
    named either way is the same entry."""
    if paths.isabs(path):
        try:
            relative = str(paths.relpath(path, folder))
        except ValueError:  # another drive than the folder's (Windows)
            relative = path
        if relative != paths.pardir and not relative.startswith(paths.pardir + paths.sep):
            path = relative
    return posixpath.normpath(path.replace("\\", "/"))


class Entries:
    """The report's entries, in order; each fingerprint made unique by counting the earlier
    entries of the same check, path and subject (two errors at one JSON path)."""

    def __init__(self, folder: str) -> None:
        self.folder = folder
        self.entries: List[JSONObject] = []
        self.seen: List[str] = []

    def add(self, check: str, description: str, kind: str, path: str, line: int,
            subject: Tuple[str, str]) -> None:
        path = repository_path(path, self.folder)
        identity = [NAME, check, path, subject[0], subject[1]]
        base = json.dumps(identity)
        occurrence = self.seen.count(base)
        self.seen.append(base)
        text = json.dumps(identity + [occurrence] if occurrence else identity)
        self.entries.append({
            "description": description,
            "check_name": check,
            "fingerprint": hashlib.sha256(text.encode("ascii")).hexdigest(),
            "severity": SEVERITY_OF[kind],
            "location": {"path": path, "lines": {"begin": line}},
        })


def render(evaluation: Evaluation, folder: Optional[str] = None) -> bytes:
    """The report of a decision: each reason of a REVIEW or BLOCK that has a line (paths
    relative to ``folder``, by default the working folder)."""
    entries = Entries(os.getcwd() if folder is None else folder)
    for reason in placed_reasons(evaluation):
        if reason.place is None or reason.where is None:
            continue
        finding = reason.finding
        kind = CRITICAL_TASK if reason.where[0] == "case" else \
            BLOCKING_GATE if finding.severity == BLOCKING else REVIEWING_GATE
        path, line, _column = reason.place
        entries.add(finding.code, "%s %s: %s" % (NAME, evaluation.action, finding.reason),
                    kind, path, line, reason.where)
    return document_bytes(entries.entries)


def render_no_decision(outcome: NoDecision, folder: Optional[str] = None) -> bytes:
    """The report of a run without a decision: each contract error found in a file."""
    entries = Entries(os.getcwd() if folder is None else folder)
    for error in outcome.shown_errors():
        if error.file is None or error.code.partition(".")[0] == COMMAND_LINE:
            continue  # no place in a file of the repository
        where = format_path(error.path)
        entries.add(error.code, "%s %s: %s: %s" % (NAME, outcome.action, where, error.message),
                    CONTRACT_ERROR, error.file, error.line or 1, ("error", where))
    return document_bytes(entries.entries)
