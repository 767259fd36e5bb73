"""The loader's slow path (only when something is wrong) and the finding of values in a
file's text: a walker that tracks positions, skips clean containers with the C scanner and
descends only where the hooks or prescans of :mod:`.checks` point, so that every independent
error is reported, each with its path, line and column; and the offsets of values by path
(the places of the contract's errors, the spans the private-test service cuts out).

Imported only when needed: a valid file never comes here.
"""

from __future__ import annotations

import re
from bisect import bisect_left
from json.decoder import JSONDecodeError
from json.scanner import NUMBER_RE
from typing import TYPE_CHECKING, Dict, Iterable, List, Optional, Sequence, Set, Tuple

from ..errors import ContractError, Path, PathStep
from ..text import quote
from .checks import (MAX_DEPTH, SKIPPER, Suspicious, check_once, nesting_ok, number_problem,
                     skip_once)
from .gcpause import CollectorPaused

if TYPE_CHECKING:  # json.decoder's stub leaves scanstring out; it is _json's (or its twin)
    from _json import scanstring
else:
    from json.decoder import scanstring

# What the walker found: (offset, code, message, JSON path).
_Found = Tuple[int, str, str, Path]
# The paths to locate, as a tree: {step: the steps below it}.
_Tree = Dict[PathStep, "_Tree"]

_WS = re.compile(r"[ \t\n\r]*")
_COLON = re.compile(r"[ \t\n\r]*:[ \t\n\r]*")
_AFTER = re.compile(r"[ \t\n\r]*([,}\]])[ \t\n\r]*")  # what may follow a member or element
_SURROGATE_CHAR = re.compile(r"[\ud800-\udfff]")
_SURROGATE_ESCAPE = re.compile(r"\\u[dD][89a-fA-F][0-9a-fA-F]{2}")


class _Syntax(Exception):
    """The walker's text stops being JSON at offset ``args[0]``."""


class _Fatal(Exception):
    """The walker cannot go on (too deep); ``args[0]`` is the one error found."""


def space_end(text: str, i: int = 0) -> int:
    """The offset of the first character at or after ``i`` that is not JSON whitespace."""
    space = _WS.match(text, i)
    return space.end() if space else i  # always a match, perhaps an empty one


def line_cols(text: str, offsets: Iterable[int]) -> Dict[int, Tuple[int, int]]:
    """{offset: (line, column)}, 1-based, columns in code points, in one pass over text."""
    result: Dict[int, Tuple[int, int]] = {}
    line, line_start, previous = 1, 0, 0
    for offset in sorted(set(offsets)):
        newlines = text.count("\n", previous, offset)
        if newlines:
            line += newlines
            line_start = text.rfind("\n", previous, offset) + 1
        result[offset] = (line, offset - line_start + 1)
        previous = offset
    return result


def syntax_error(text: str, error: JSONDecodeError, source: Optional[str]) -> ContractError:
    if not text.strip(" \t\n\r"):
        message = "the file contains no JSON value"
    elif text.startswith("/", error.pos):
        message = "invalid JSON: comments are not allowed"
    elif error.msg == "Extra data":
        message = "invalid JSON: unexpected data after the top-level value"
    elif error.pos < len(text) and text[error.pos] < " ":
        message = ("invalid JSON: the control character U+%04X%s where a value or key must "
                   "start; control characters may appear only escaped inside strings" % (
                       ord(text[error.pos]), " (a NUL byte)" if text[error.pos] == "\0" else ""))
    else:
        message = "invalid JSON: %s" % error.msg
    return ContractError("json.syntax", message, (), source, error.lineno, error.colno)


class Walker:
    """Finds every contract error of a document the fast path refused, with its offset."""

    def __init__(self, text: str, check_depth: bool, check_surrogates: bool) -> None:
        self.text = text
        self.check_depth = check_depth
        self.check_surrogates = check_surrogates
        self.candidates = ([m.start() for m in _SURROGATE_ESCAPE.finditer(text)]
                           if check_surrogates else [])
        self.found: List[_Found] = []

    def run(self, source: Optional[str]) -> List[ContractError]:
        text = self.text
        start = space_end(text)
        try:
            end = space_end(text, self.value(start, (), 1))
            if end != len(text):
                raise _Syntax(end)
        except _Syntax as exc:
            return [self.syntax(exc.args[0], source)]
        except JSONDecodeError as exc:
            return [self.syntax(exc.pos, source)]
        except _Fatal as exc:
            self.found = [exc.args[0]]
        else:
            if not text.startswith("{", start):
                self.found.append((start, "json.root_not_object", root_message(text[start]),
                                   ()))
        places = line_cols(text, [f[0] for f in self.found])
        return [ContractError(code, message, path, source, *places[offset])
                for offset, code, message, path in sorted(self.found, key=lambda f: f[0])]

    def syntax(self, pos: int, source: Optional[str]) -> ContractError:
        # Report exactly what the fast path would: json's own message for the first error.
        try:
            SKIPPER.decode(self.text)
        except JSONDecodeError as error:
            return syntax_error(self.text, error, source)
        except (ValueError, RecursionError, TypeError):
            # PyPy's pure-Python scanstring can raise a plain ValueError; and PyPy may turn a
            # RecursionError into "TypeError: couldn't record exception context".
            pass
        line, column = line_cols(self.text, [pos])[pos]
        return ContractError("json.syntax", "invalid JSON", (), source, line, column)

    def string(self, i: int) -> Tuple[str, int]:
        """json's scanstring for the string opening at i: (string, end)."""
        try:
            return scanstring(self.text, i + 1)
        except JSONDecodeError:
            raise
        except ValueError:  # PyPy: chr() of a malformed escape such as \u-001
            raise _Syntax(i)

    def value(self, i: int, path: Path, depth: int) -> int:
        """Check the value at offset i (depth: its depth if a container); return its end."""
        text = self.text
        char = text[i:i + 1]
        if char == "{" or char == "[":
            if depth > MAX_DEPTH:
                raise _Fatal((i, "json.too_deep", "nesting deeper than %d levels" % MAX_DEPTH,
                              path))
            end = self.skip(i, depth)
            if end is not None:
                return end
            return (self.object if char == "{" else self.array)(i, path, depth)
        if char == '"':
            string, end = self.string(i)
            if self.check_surrogates and _SURROGATE_CHAR.search(string):
                self.lone_surrogate(i, path, "string")
            return end
        match = NUMBER_RE.match(text, i)
        if match:
            problem = number_problem(match.group())
            if problem:
                self.found.append((i, problem[0], problem[1], path))
            return match.end()
        for name in ("true", "false", "null", "NaN", "Infinity", "-Infinity"):
            if text.startswith(name, i):
                if name not in ("true", "false", "null"):
                    self.found.append((i, "json.non_standard_constant", "%s is not standard "
                                       "JSON (numbers must be finite)" % name, path))
                return i + len(name)
        raise _Syntax(i)

    def skip(self, i: int, depth: int) -> Optional[int]:
        """End of the container at i if the C scanner finds nothing wrong in it, else None."""
        if depth == 1:
            return None
        try:
            end = check_once(self.text, i)[1]
        except (Suspicious, ValueError, RecursionError, StopIteration, TypeError):
            # TypeError: PyPy's "couldn't record exception context" for a RecursionError
            # deep in its pure-Python scanner (hostile nesting); the walker descends itself.
            return None
        here = bisect_left(self.candidates, i)
        if here < len(self.candidates) and self.candidates[here] < end:
            return None
        if self.check_depth and not nesting_ok(self.text[i:end].encode("utf-8"),
                                                MAX_DEPTH - depth + 1):
            return None
        return end

    def lone_surrogate(self, i: int, path: Path, what: str) -> None:
        self.found.append((i, "json.lone_surrogate", "the %s contains a lone surrogate escape "
                           "such as \\ud800, which is no Unicode character; use a valid pair or "
                           "write the character itself, in UTF-8" % what, path))

    def object(self, i: int, path: Path, depth: int) -> int:
        text = self.text
        i = space_end(text, i + 1)
        if text.startswith("}", i):
            return i + 1
        seen: Set[str] = set()
        while True:
            if not text.startswith('"', i):
                raise _Syntax(i)
            key, end = self.string(i)
            member = path + (key,)
            if key in seen:
                self.found.append((i, "json.duplicate_key", "duplicate key %s in this object"
                                   % quote(key), member))
            seen.add(key)
            if self.check_surrogates and _SURROGATE_CHAR.search(key):
                self.lone_surrogate(i, member, "key")
            colon = _COLON.match(text, end)
            if not colon:
                raise _Syntax(end)
            i = self.value(colon.end(), member, depth + 1)
            after = _AFTER.match(text, i)
            if not after or after.group(1) == "]":
                raise _Syntax(i)
            if after.group(1) == "}":
                return after.start(1) + 1
            i = after.end()

    def array(self, i: int, path: Path, depth: int) -> int:
        text = self.text
        i = space_end(text, i + 1)
        if text.startswith("]", i):
            return i + 1
        index = 0
        while True:
            i = self.value(i, path + (index,), depth + 1)
            after = _AFTER.match(text, i)
            if not after or after.group(1) == "}":
                raise _Syntax(i)
            if after.group(1) == "]":
                return after.start(1) + 1
            i, index = after.end(), index + 1


def root_message(char: str) -> str:
    return "the top level must be a JSON object, not %s" % {
        "[": "an array", '"': "a string", "t": "a Boolean", "f": "a Boolean",
        "n": "null"}.get(char, "a number")


def locate_offsets(text: str, paths: Sequence[Sequence[PathStep]]) -> List[Optional[int]]:
    """Offsets of the values at ``paths`` (or of their deepest existing element), one walk."""
    wanted: _Tree = {}
    for path in paths:
        node = wanted
        for step in path:
            node = node.setdefault(step, {})
    found: Dict[Path, int] = {}

    def next_item(i: int) -> Optional[int]:
        """Offset of the item after the value at i, or None after the container's last."""
        after = _AFTER.match(text, skip_once(text, i)[1])
        if after is None:
            raise ValueError("not JSON after all")
        return after.end() if after.group(1) == "," else None

    def visit(start: int, prefix: Path, node: _Tree) -> None:
        found[prefix] = start
        if not node or not text.startswith(("{", "["), start):
            return
        first = space_end(text, start + 1)
        if text.startswith(("}", "]"), first):
            return
        i: Optional[int] = first
        if text.startswith("[", start):
            index = 0
            # A tight loop, since a located error may sit a million elements into an array.
            for target in sorted(step for step in node if isinstance(step, int) and step >= 0):
                while index < target and i is not None:
                    i, index = next_item(i), index + 1
                if i is None:
                    return
                visit(i, prefix + (target,), node[target])
            return
        left = len(node)
        while left and i is not None:
            key, end = scanstring(text, i + 1)
            colon = _COLON.match(text, end)
            if colon is None:
                raise ValueError("not JSON after all")
            if key in node:
                visit(colon.end(), prefix + (key,), node[key])
                left -= 1
            i = next_item(colon.end())

    root = space_end(text)
    if root < len(text):
        try:
            with CollectorPaused():
                visit(root, (), wanted)
        except (ValueError, StopIteration, RecursionError, AttributeError):
            pass  # not valid JSON after all: keep the deepest element reached
    result = []
    for path in paths:
        path = tuple(path)
        while path not in found and path:
            path = path[:-1]
        result.append(found.get(path))
    return result
