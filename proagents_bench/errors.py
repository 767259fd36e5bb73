"""Contract errors: what every stage upstream of the decision may report.

A contract error is plain data (file, JSON path, line, column, stable code, message). Checks
*yield* them so that every independent error of a file is reported in one run; a stage that
cannot go on raises :class:`ContractErrors` carrying all it found. Paths are tuples of keys
and indexes while errors travel, and are formatted only for output, so that a check can build
its path on the way up without string concatenation.
"""

import re

# A key that can be written after a dot without ambiguity; others are written ["key"].
_PLAIN_KEY = re.compile(r"[A-Za-z_][A-Za-z0-9_]*\Z")


def format_path(path):
    """Format a path tuple as ``systems[1].records[7].latency_ms``; the root is ``$``."""
    parts = []
    for step in path:
        if isinstance(step, int):
            parts.append("[%d]" % step)
        elif _PLAIN_KEY.match(step):
            parts.append("." + step if parts else step)
        else:
            parts.append("[%s]" % _quote(step))
    return "".join(parts) if parts else "$"


def _quote(key):
    out = ['"']
    for char in key:
        if char in '"\\':
            out.append("\\" + char)
        elif " " <= char <= "~":
            out.append(char)
        else:
            out.append("\\u%04x" % ord(char) if ord(char) < 0x10000 else char.encode(
                "ascii", "backslashreplace").decode("ascii"))
    out.append('"')
    return "".join(out)


class ContractError:
    """One contract error. ``path`` is a tuple; ``line``/``column`` are 1-based or None."""

    __slots__ = ("file", "path", "line", "column", "code", "message")

    def __init__(self, code, message, path=(), file=None, line=None, column=None):
        self.code = code
        self.message = message
        self.path = tuple(path)
        self.file = file
        self.line = line
        self.column = column

    def at(self, file, line=None, column=None):
        """Return a copy placed in ``file`` at ``line``/``column``."""
        return ContractError(self.code, self.message, self.path, file, line, column)

    def prefixed(self, prefix):
        """Return a copy whose path is ``prefix`` + this path (paths grow on the way up)."""
        return ContractError(self.code, self.message, tuple(prefix) + self.path,
                             self.file, self.line, self.column)

    def as_dict(self):
        return {
            "file": self.file,
            "path": format_path(self.path),
            "line": self.line,
            "column": self.column,
            "code": self.code,
            "message": self.message,
        }

    def stderr_line(self):
        """``ERROR: FILE:LINE:COLUMN: PATH: MESSAGE`` (an unknown line or column is ``?``)."""
        line = "?" if self.line is None else self.line
        column = "?" if self.column is None else self.column
        return "ERROR: %s:%s:%s: %s: %s" % (
            self.file if self.file is not None else "<command line>",
            line, column, format_path(self.path), self.message)

    def _key(self):
        return (self.file, self.path, self.line, self.column, self.code, self.message)

    def __eq__(self, other):
        return isinstance(other, ContractError) and self._key() == other._key()

    def __hash__(self):
        return hash(self._key())

    def __repr__(self):
        return "ContractError(%r, %r, path=%r, file=%r, line=%r, column=%r)" % (
            self.code, self.message, format_path(self.path), self.file, self.line,
            self.column)


class ContractErrors(Exception):
    """Raised by a stage that found contract errors and cannot go on; carries all of them."""

    def __init__(self, errors, omitted=0):
        self.errors = list(errors)
        self.omitted = omitted  # further errors found but not reported (the list is capped)
        super().__init__("%d contract error(s)" % (len(self.errors) + omitted))
