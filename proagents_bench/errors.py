"""Contract errors: the one error type of every stage upstream of the decision.

A contract error is plain data: the file, the JSON path of the offending element, its line
and column, a stable code and a message. Checks *yield* them, so that every independent error
of a file is reported in one run; a stage that cannot go on raises :class:`ContractErrors`
carrying all it found. Paths are tuples of keys and indexes while errors travel (a parent
prefixes its key on the way up, without string concatenation) and are formatted only for
output, as a JSON path that starts at ``$`` (``$.cases[6].family_id``).
"""

from __future__ import annotations

import re
from typing import Iterable, Optional, Sequence, Tuple, TypedDict, Union

from .codes import USAGE_CODES
from .text import display_name, quote

PathStep = Union[str, int]

# The most errors one run reports (each placed at a line, which costs a walk of its file);
# the rest are counted (``omitted``).
MAX_REPORTED_ERRORS = 100
# The most ids (cases, (case, trial) pairs) one error's message lists; then a count of the rest.
MAX_LISTED_IDS = 20
Path = Tuple[PathStep, ...]

# A key that can be written after a dot without ambiguity; others are written ["key"].
_PLAIN_KEY = re.compile(r"[A-Za-z_][A-Za-z0-9_]*\Z")


def format_path(path: Sequence[PathStep]) -> str:
    """A path tuple as a JSON path from the root ``$``, as jsonschema's ``json_path`` writes
    it; a key that is not an identifier is quoted in brackets.

    >>> format_path(("systems", 1, "records", 7, "latency_ms"))
    '$.systems[1].records[7].latency_ms'
    >>> format_path(("$schema",)), format_path(())
    ('$["$schema"]', '$')
    """
    parts = ["$"]
    for step in path:
        if isinstance(step, int):
            parts.append("[%d]" % step)
        elif _PLAIN_KEY.match(step):
            parts.append("." + step)
        else:
            parts.append("[%s]" % quote(step))
    return "".join(parts)


class ErrorEntry(TypedDict):
    """A contract error as the output documents write it."""
    file: Optional[str]
    path: str
    line: Optional[int]
    column: Optional[int]
    code: str
    message: str


class ContractError:
    """One contract error. ``path`` is a tuple; ``line``/``column`` are 1-based or None; the
    file is shown as valid Unicode (see :func:`~proagents_bench.text.display_name`)."""

    __slots__ = ("file", "path", "line", "column", "code", "message")

    def __init__(self, code: str, message: str, path: Iterable[PathStep] = (),
                 file: Optional[str] = None, line: Optional[int] = None,
                 column: Optional[int] = None) -> None:
        self.code = code
        self.message = message
        self.path = tuple(path)
        self.file = None if file is None else display_name(file)
        self.line = line
        self.column = column

    def at(self, file: Optional[str], line: Optional[int] = None,
           column: Optional[int] = None) -> "ContractError":
        """A copy placed in ``file`` at ``line``/``column``."""
        return ContractError(self.code, self.message, self.path, file, line, column)

    def prefixed(self, prefix: Iterable[PathStep]) -> "ContractError":
        """A copy whose path is ``prefix`` + this path (paths grow on the way up)."""
        return ContractError(self.code, self.message, tuple(prefix) + self.path,
                             self.file, self.line, self.column)

    def as_dict(self) -> ErrorEntry:
        return {
            "file": self.file,
            "path": format_path(self.path),
            "line": self.line,
            "column": self.column,
            "code": self.code,
            "message": self.message,
        }

    def location(self) -> str:
        """``FILE:LINE:COLUMN: PATH`` (an unknown line or column is ``?``); a usage error's
        is its file, or ``command line``."""
        if self.code in USAGE_CODES:
            return self.file or "command line"
        line = "?" if self.line is None else self.line
        column = "?" if self.column is None else self.column
        return "%s:%s:%s: %s" % (self.file if self.file is not None else "<command line>",
                                 line, column, format_path(self.path))

    def stderr_line(self) -> str:
        """``ERROR: FILE:LINE:COLUMN: PATH: MESSAGE`` (an unknown line or column is ``?``);
        a usage error (:data:`~proagents_bench.codes.USAGE_CODES`) ``ERROR: usage: [FILE:]
        MESSAGE``."""
        if self.code in USAGE_CODES:
            return "ERROR: usage: %s%s" % (self.file + ": " if self.file else "", self.message)
        return "ERROR: %s: %s" % (self.location(), self.message)

    def _key(self) -> Tuple[Optional[str], Path, Optional[int], Optional[int], str, str]:
        return (self.file, self.path, self.line, self.column, self.code, self.message)

    def __eq__(self, other: object) -> bool:
        return isinstance(other, ContractError) and self._key() == other._key()

    def __hash__(self) -> int:
        return hash(self._key())

    def __repr__(self) -> str:
        return "ContractError(%r, %r, path=%r, file=%r, line=%r, column=%r)" % (
            self.code, self.message, format_path(self.path), self.file, self.line,
            self.column)


class ContractErrors(ValueError):
    """Raised by a stage that found contract errors and cannot go on; carries all of them,
    and how many more were found but not reported (``omitted``: the list is capped)."""

    def __init__(self, errors: Iterable[ContractError], omitted: int = 0) -> None:
        self.errors = list(errors)
        self.omitted = omitted
        super().__init__("%d contract error(s)" % (len(self.errors) + omitted))

    @classmethod
    def capped(cls, errors: Sequence[ContractError], omitted: int = 0) -> "ContractErrors":
        """The first :data:`MAX_REPORTED_ERRORS` of ``errors``; the rest, and ``omitted``
        more found before, counted."""
        return cls(errors[:MAX_REPORTED_ERRORS],
                   omitted + max(len(errors) - MAX_REPORTED_ERRORS, 0))
