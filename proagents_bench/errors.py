"""Contract errors: what every stage upstream of the decision may report.

A contract error is plain data (file, JSON path, line, column, stable code, message). Checks
*yield* them so that every independent error of a file is reported in one run; a stage that
cannot go on raises :class:`ContractErrors` carrying all it found. Paths are tuples of keys
and indexes while errors travel, and are formatted only for output, so that a check can build
its path on the way up without string concatenation.
"""

import json
import re

# A key that can be written after a dot without ambiguity; others are written ["key"].
_PLAIN_KEY = re.compile(r"[A-Za-z_][A-Za-z0-9_]*\Z")

# A value quoted into a message shows at most this many characters (a 10 MB id must not
# become a 10 MB line of stderr); the message then says how long the value is.
MAX_QUOTED_CHARS = 200


def quote(value):
    r"""``value``, a text from the input, as an ASCII JSON string literal for a message: control
    characters, non-ASCII and quotes escaped (so no input can end a line, clear a screen or
    forge a message), cut to MAX_QUOTED_CHARS characters.

    >>> print(quote("family\nERROR: \x1b[2J"))
    "family\nERROR: \u001b[2J"
    >>> print(quote("x" * 205))  # doctest: +ELLIPSIS
    "xxx...xxx"... (205 characters)
    """
    text = value if isinstance(value, str) else str(value)
    if len(text) <= MAX_QUOTED_CHARS:
        return json.dumps(text, ensure_ascii=True)
    return "%s... (%d characters)" % (json.dumps(text[:MAX_QUOTED_CHARS], ensure_ascii=True),
                                      len(text))


def display_name(path):
    r"""A file name as valid Unicode text. A name that is not valid UTF-8 reaches Python with
    lone surrogates in it (which no JSON document may carry): those bytes become ``\xNN``.

    >>> display_name("caf\udce9.json")
    'caf\\xe9.json'
    """
    if isinstance(path, bytes):
        data = path
    else:
        try:
            path.encode("utf-8")
            return path
        except UnicodeEncodeError:
            try:
                data = path.encode("utf-8", "surrogateescape")
            except UnicodeEncodeError:  # Windows: a lone UTF-16 surrogate in the name
                data = path.encode("utf-8", "surrogatepass")
    return data.decode("utf-8", "backslashreplace")


def format_path(path):
    """Format a path tuple as ``systems[1].records[7].latency_ms``; the root is ``$``."""
    parts = []
    for step in path:
        if isinstance(step, int):
            parts.append("[%d]" % step)
        elif _PLAIN_KEY.match(step):
            parts.append("." + step if parts else step)
        else:
            parts.append("[%s]" % quote(step))
    return "".join(parts) if parts else "$"


class ContractError:
    """One contract error. ``path`` is a tuple; ``line``/``column`` are 1-based or None."""

    __slots__ = ("file", "path", "line", "column", "code", "message")

    def __init__(self, code, message, path=(), file=None, line=None, column=None):
        self.code = code
        self.message = message
        self.path = tuple(path)
        self.file = None if file is None else display_name(file)
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
