"""Strict JSON loading for the three contract files (CONTRACT.md, "Loading").

Every file must be UTF-8 (a leading BOM is ignored), standard JSON with an object at the top,
no duplicate keys, no lone surrogate escapes, I-JSON numbers (RFC 7493), nesting of at most
MAX_DEPTH levels and number literals of at most MAX_NUMBER_LITERAL_CHARS characters. Any
violation raises ContractErrors with file, path, line and column; nothing else escapes for bad
input. Integer literals load as int, literals with a fraction or exponent as exact Decimal.

A syntax error, or nesting deeper than MAX_DEPTH, ends parsing and is reported alone.
Otherwise every duplicate key (at its later occurrence), bad number, lone surrogate and
non-standard constant is reported, in file order. Lines and columns are 1-based; columns
count code points, after any BOM.

There are two paths, because a valid 200 MB file must load about as fast as json.loads:

* Fast path (valid files): byte-level prescans at C speed (nesting depth, surrogate escapes),
  then the stdlib C scanner with hooks that raise at the first suspicious object or number.
  Nothing walks the parsed value in Python.
* Slow path (only when something is wrong): a walker that tracks positions, skips clean
  containers with the C scanner and descends only where the hooks or prescans point, so that
  every independent error is reported, each with its path, line and column.
"""

from __future__ import annotations

import codecs
import hashlib
import json
import os
import re
import select
import stat
from bisect import bisect_left
from decimal import Decimal
from json.decoder import JSONDecodeError
from json.scanner import NUMBER_RE
from typing import (TYPE_CHECKING, Callable, Dict, Iterable, List, NoReturn, Optional, Sequence,
                    Set, Tuple)

from ..errors import ContractError, ContractErrors, Path, PathStep
from ..text import quote
from . import JSON, JSONObject
from .gcpause import CollectorPaused

if TYPE_CHECKING:  # json.decoder's stub leaves scanstring out; it is _json's (or its twin)
    from _json import scanstring
else:
    from json.decoder import scanstring

# What the walker found: (offset, code, message, JSON path).
_Found = Tuple[int, str, str, Path]
# The paths to locate, as a tree: {step: the steps below it}.
_Tree = Dict[PathStep, "_Tree"]

MAX_FILE_BYTES = 1024 * 1024 * 1024
MAX_DEPTH = 64  # the root object or array is at depth 1
MAX_NUMBER_LITERAL_CHARS = 100
# An input that is a pipe (a FIFO, /dev/stdin, a shell's <(...)) must deliver data within
# this long, and never pause longer: a FIFO without a writer would otherwise block forever.
PIPE_WAIT_SECONDS = 60
MAX_SAFE_INTEGER = 2 ** 53 - 1  # I-JSON: integers beyond this are not exact in a double
# The exponent written after e/E. Exact arithmetic on 1e-999999999 would build 10**999999999
# (the run would never end); every finite double, 4.9e-324 to 1.8e308, is writable within
# this bound, and with at most MAX_NUMBER_LITERAL_CHARS digits any number then costs
# microseconds, as CPython bounds its int-to-str conversion (CVE-2020-10735).
MAX_NUMBER_EXPONENT = 400

_RESAVE = "re-save it as UTF-8"
_WS = re.compile(r"[ \t\n\r]*")
_COLON = re.compile(r"[ \t\n\r]*:[ \t\n\r]*")
_AFTER = re.compile(r"[ \t\n\r]*([,}\]])[ \t\n\r]*")  # what may follow a member or element
_SURROGATE_CHAR = re.compile(r"[\ud800-\udfff]")
_SURROGATE_ESCAPE = re.compile(r"\\u[dD][89a-fA-F][0-9a-fA-F]{2}")
_HIGH = rb"\\u[dD][89abAB][0-9a-fA-F]{2}"
_LOW = rb"\\u[dD][c-fC-F][0-9a-fA-F]{2}"
_HIGH_RE, _LOW_RE, _PAIR_RE = re.compile(_HIGH), re.compile(_LOW), re.compile(_HIGH + _LOW)
# Keep only brackets and quotes, with both kinds of bracket mapped to one (see nesting_ok).
_BRACKETS = bytes.maketrans(b"{}", b"[]")
_NOT_STRUCTURE = bytes(b for b in range(256) if b not in b'[]{}"')
_INF = float("inf")


class _Suspicious(Exception):
    """A hook saw a contract violation; the walker is to find out what and where."""


class _Syntax(Exception):
    """The walker's text stops being JSON at offset ``args[0]``."""


class _Fatal(Exception):
    """The walker cannot go on (too deep); ``args[0]`` is the one error found."""


def _number_problem(literal: str) -> Optional[Tuple[str, str]]:
    """(code, message) if a JSON number literal breaks the contract, else None."""
    if len(literal) > MAX_NUMBER_LITERAL_CHARS:
        return ("json.number_too_long", "a number literal of %d characters (%s...); at most %d "
                "are allowed" % (len(literal), literal[:20], MAX_NUMBER_LITERAL_CHARS))
    if "e" in literal or "E" in literal:
        exponent = int(literal.lower().partition("e")[2])
        if abs(exponent) > MAX_NUMBER_EXPONENT:
            return ("json.exponent_too_large", "the number %s has the exponent %d; exponents "
                    "lie within -%d..%d, which writes every finite IEEE double"
                    % (literal, exponent, MAX_NUMBER_EXPONENT, MAX_NUMBER_EXPONENT))
        if abs(float(literal)) == _INF:  # float() rounds correctly: inf iff the nearest is
            return ("json.number_out_of_range", "the number %s is not finite as an IEEE double "
                    "(I-JSON, RFC 7493)" % literal)
    elif len(literal) > 15 and "." not in literal and abs(int(literal)) > MAX_SAFE_INTEGER:
        return ("json.number_out_of_range", "the integer %s lies outside +/-(2**53 - 1) = "
                "+/-%d (I-JSON, RFC 7493)" % (literal, MAX_SAFE_INTEGER))
    return None


def _pairs_hook(pairs: List[Tuple[str, JSON]]) -> JSONObject:
    result = dict(pairs)
    if len(result) != len(pairs):
        raise _Suspicious()
    return result


# The checks are repeated inline in the hooks: a nested call per number costs 5%. The cheap
# tests come first: int() of a huge literal is quadratic (or refused beyond 4300 digits), and
# without an exponent a literal of <= 100 characters cannot overflow a double.
def _int_hook(literal: str) -> int:
    if len(literal) > 15 and _number_problem(literal):
        raise _Suspicious()
    return int(literal)


def _check_int(literal: str) -> None:
    if len(literal) > 15 and _number_problem(literal):
        raise _Suspicious()


def _check_float(literal: str) -> None:
    if (len(literal) > MAX_NUMBER_LITERAL_CHARS or "e" in literal or "E" in literal) \
            and _number_problem(literal):
        raise _Suspicious()


def _check_pairs(pairs: List[Tuple[str, object]]) -> None:
    if len(dict(pairs)) != len(pairs):
        raise _Suspicious()


def _constant_hook(name: str) -> NoReturn:
    raise _Suspicious()


def _recording_decoder(decimals: List[Decimal]) -> json.JSONDecoder:
    """The decoder of valid files, with the hooks above, that also appends every Decimal it
    makes to ``decimals``: the evidence fingerprint needs them all, and finding them afterwards
    means walking the whole value again (half a second per 100,000 records), where appending
    here is nearly free. One per parse, so that parses never share a list."""
    append = decimals.append

    def parse_float(literal: str) -> Decimal:  # the checks inline, as above
        if (len(literal) > MAX_NUMBER_LITERAL_CHARS or "e" in literal or "E" in literal) \
                and _number_problem(literal):
            raise _Suspicious()
        value = Decimal(literal)
        append(value)
        return value

    return json.JSONDecoder(object_pairs_hook=_pairs_hook, parse_int=_int_hook,
                            parse_float=parse_float, parse_constant=_constant_hook)


# The walker's skipper: the same checks, without building values it would throw away.
_CHECKER = json.JSONDecoder(object_pairs_hook=_check_pairs, parse_int=_check_int,
                            parse_float=_check_float, parse_constant=_constant_hook)
# Builds nothing (every hook is the C builtin len): for skipping values and for syntax errors.
_SKIPPER = json.JSONDecoder(object_pairs_hook=len, parse_int=len, parse_float=len,
                            parse_constant=len)


def _scanner(decoder: json.JSONDecoder) -> Callable[[str, int], Tuple[object, int]]:
    """The decoder's ``scan_once(text, i) -> (value, end)``, which every JSONDecoder has
    (its stub does not say so)."""
    scan: Callable[[str, int], Tuple[object, int]] = getattr(decoder, "scan_once")
    return scan


_check_once, _skip_once = _scanner(_CHECKER), _scanner(_SKIPPER)


def _space_end(text: str, i: int = 0) -> int:
    """The offset of the first character at or after ``i`` that is not JSON whitespace."""
    space = _WS.match(text, i)
    return space.end() if space else i  # always a match, perhaps an empty one


def nesting_ok(data: bytes, limit: int) -> bool:
    """Whether the JSON bytes nest at most ``limit`` deep; exact for valid JSON.

    Brackets inside strings are removed without a per-character loop: drop escaped
    backslashes and escaped quotes, keep only brackets and quotes (so all that is left of a
    string is its quotes around any brackets it holds), drop adjacent quote pairs (an empty
    string, or one string ending where the next begins), and split out what is left. Each
    ``replace(b"[]", b"")`` then removes exactly one level of innermost containers.
    """
    if b"\\" in data:
        data = data.replace(b"\\\\", b"").replace(b'\\"', b"")
    marks = data.translate(_BRACKETS, _NOT_STRUCTURE)
    del data
    if b'"' in marks:
        marks = marks.replace(b'""', b"")
        if b'"' in marks:
            marks = b"".join(marks.split(b'"')[::2])
    for _ in range(limit):
        if not marks:
            return True
        marks = marks.replace(b"[]", b"")
    return not marks


def _surrogates_ok(data: bytes) -> bool:
    """Whether no \\uXXXX escape is a lone surrogate; exact for valid JSON.

    With escaped backslashes removed every backslash starts an escape, and there is no lone
    surrogate iff every high and every low surrogate escape belongs to an adjacent pair.
    """
    if b"\\" not in data:
        return True
    data = data.replace(b"\\\\", b"")
    if b"\\ud" not in data and b"\\uD" not in data:
        return True
    pairs = len(_PAIR_RE.findall(data))
    return pairs == len(_HIGH_RE.findall(data)) == len(_LOW_RE.findall(data))


def _line_cols(text: str, offsets: Iterable[int]) -> Dict[int, Tuple[int, int]]:
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


def _syntax_error(text: str, error: JSONDecodeError, source: Optional[str]) -> ContractError:
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


class _Walker:
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
        start = _space_end(text)
        try:
            end = _space_end(text, self.value(start, (), 1))
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
                self.found.append((start, "json.root_not_object", _root_message(text[start]),
                                   ()))
        places = _line_cols(text, [f[0] for f in self.found])
        return [ContractError(code, message, path, source, *places[offset])
                for offset, code, message, path in sorted(self.found, key=lambda f: f[0])]

    def syntax(self, pos: int, source: Optional[str]) -> ContractError:
        # Report exactly what the fast path would: json's own message for the first error.
        try:
            _SKIPPER.decode(self.text)
        except JSONDecodeError as error:
            return _syntax_error(self.text, error, source)
        except (ValueError, RecursionError, TypeError):
            # PyPy's pure-Python scanstring can raise a plain ValueError; and PyPy may turn a
            # RecursionError into "TypeError: couldn't record exception context".
            pass
        line, column = _line_cols(self.text, [pos])[pos]
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
            problem = _number_problem(match.group())
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
            end = _check_once(self.text, i)[1]
        except (_Suspicious, ValueError, RecursionError, StopIteration, TypeError):
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
        i = _space_end(text, i + 1)
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
        i = _space_end(text, i + 1)
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


def _root_message(char: str) -> str:
    return "the top level must be a JSON object, not %s" % {
        "[": "an array", '"': "a string", "t": "a Boolean", "f": "a Boolean",
        "n": "null"}.get(char, "a number")


def _locate_offsets(text: str, paths: Sequence[Sequence[PathStep]]) -> List[Optional[int]]:
    """Offsets of the values at ``paths`` (or of their deepest existing element), one walk."""
    wanted: _Tree = {}
    for path in paths:
        node = wanted
        for step in path:
            node = node.setdefault(step, {})
    found: Dict[Path, int] = {}

    def next_item(i: int) -> Optional[int]:
        """Offset of the item after the value at i, or None after the container's last."""
        after = _AFTER.match(text, _skip_once(text, i)[1])
        if after is None:
            raise ValueError("not JSON after all")
        return after.end() if after.group(1) == "," else None

    def visit(start: int, prefix: Path, node: _Tree) -> None:
        found[prefix] = start
        if not node or not text.startswith(("{", "["), start):
            return
        first = _space_end(text, start + 1)
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

    root = _space_end(text)
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


class Document:
    """A loaded file: ``source`` as given by the user, decoded ``text`` and parsed ``value``;
    ``sha256`` (hex) and ``size`` describe the file's raw bytes; ``decimals`` lists every
    Decimal in ``value`` (the literals with a fraction or exponent), in file order."""

    __slots__ = ("source", "text", "value", "sha256", "size", "decimals")

    def __init__(self, source: Optional[str], text: str, value: JSONObject,
                 sha256: Optional[str] = None, size: Optional[int] = None,
                 decimals: Optional[List[Decimal]] = None) -> None:
        self.source, self.text, self.value = source, text, value
        self.sha256, self.size = sha256, size
        self.decimals = decimals

    def span(self, path: Sequence[PathStep]) -> Tuple[int, int]:
        """(start, end) offsets in ``text`` of the value at ``path``, which must exist (the
        private-test service splices the maintainer's baseline into a team's submission)."""
        return self.spans([path])[0]

    def spans(self, paths: Sequence[Sequence[PathStep]]) -> List[Tuple[int, int]]:
        """The :meth:`span` of each of ``paths``, found in one walk of the text (the
        private-test service cuts a file down to some of its test cases' entries)."""
        spans = []
        for start in _locate_offsets(self.text, [tuple(path) for path in paths]):
            if start is None:
                raise LookupError("no value at a path to cut out")
            spans.append((start, _skip_once(self.text, start)[1]))
        return spans

    def errors_at(self, errors: Iterable[ContractError]) -> List[ContractError]:
        """Copies of ``errors`` with file=source and line/column located from their path."""
        errors = list(errors)
        offsets = _locate_offsets(self.text, [error.path for error in errors])
        places = _line_cols(self.text, [offset for offset in offsets if offset is not None])
        located = []
        for error, offset in zip(errors, offsets):
            line, column = places[offset] if offset is not None else (None, None)
            located.append(error.at(self.source, line, column))
        return located


# The code of a file in each foreign encoding _foreign_encoding recognises.
_ENCODING_CODES = {"UTF-16": "encoding.utf16", "UTF-32": "encoding.utf32"}


def _foreign_encoding(data: bytes) -> Optional[str]:
    """'UTF-16' or 'UTF-32' if the bytes are evidently one of them, else None.

    A byte-order mark says so; without one, RFC 4627 section 3: JSON text starts with two
    ASCII characters, so the pattern of NUL bytes among the first four bytes tells the
    encoding (00 00 00 xx and xx 00 00 00: UTF-32; 00 xx 00 xx and xx 00 xx 00: UTF-16). Any
    other NUL is no encoding at all (``{`` followed by a stray NUL is UTF-8 with a NUL in it,
    which the JSON parser reports where it is).
    """
    if data[:4] in (b"\x00\x00\xfe\xff", b"\xff\xfe\x00\x00"):
        return "UTF-32"
    if data[:2] in (b"\xfe\xff", b"\xff\xfe"):
        return "UTF-16"
    if len(data) < 4:
        return None
    nul = [byte == 0 for byte in data[:4]]
    if nul in ([True, True, True, False], [False, True, True, True]):
        return "UTF-32"
    if nul in ([True, False, True, False], [False, True, False, True]):
        return "UTF-16"
    return None


def _fail(code: str, message: str, source: Optional[str], line: Optional[int] = None,
          column: Optional[int] = None) -> NoReturn:
    raise ContractErrors([ContractError(code, message, (), source, line, column)])


def _too_large(size: int, source: Optional[str]) -> NoReturn:
    _fail("file.too_large", "the file is %d bytes, more than the limit of %d bytes"
          % (size, MAX_FILE_BYTES), source)


def _parse(box: List[bytes], source: Optional[str]) -> Document:
    """Parse the bytes in ``box`` (a list, emptied so a 200 MB buffer can be freed early)."""
    data = box.pop()
    if len(data) > MAX_FILE_BYTES:
        _too_large(len(data), source)
    bom = 3 if data.startswith(codecs.BOM_UTF8) else 0
    encoding = _foreign_encoding(data[bom:bom + 4])
    if encoding:
        _fail(_ENCODING_CODES[encoding], "the file is %s encoded "
              "(as written, for example, by Windows PowerShell 5.1's '>'); %s"
              % (encoding, _RESAVE), source, 1, 1)  # the evidence is at the very start
    if len(data) == bom:
        _fail("file.empty", "the file is empty" if not bom else
              "the file contains only a UTF-8 byte-order mark", source)
    try:  # no copy of the buffer; and PyPy's str(buffer, "utf-8") lets surrogates through
        text = codecs.utf_8_decode(memoryview(data)[bom:], "strict", True)[0]
    except UnicodeDecodeError as exc:
        start = exc.start + bom
        line_start = data.rfind(b"\n", bom, start) + 1 or bom
        column = len(data[line_start:start].decode("utf-8")) + 1
        _fail("encoding.invalid_utf8", "the file is not valid UTF-8: invalid or incomplete "
              "byte sequence starting with 0x%02X at byte offset %d; %s"
              % (data[start], start, _RESAVE), source, data.count(b"\n", bom, start) + 1, column)
    depth_ok, surrogates_ok = nesting_ok(data, MAX_DEPTH), _surrogates_ok(data)
    digest, size = hashlib.sha256(data).hexdigest(), len(data)
    del data  # only the text is needed from here on
    value = _Walker  # "not parsed yet"; a parsed value is never a class
    decimals: List[Decimal] = []
    decoder = _recording_decoder(decimals)
    with CollectorPaused():
        if depth_ok and surrogates_ok:
            try:
                value = decoder.decode(text)
            except JSONDecodeError as exc:
                raise ContractErrors([_syntax_error(text, exc, source)])
            except (_Suspicious, ValueError, RecursionError):
                pass
        if value is _Walker:
            errors = _Walker(text, not depth_ok, not surrogates_ok).run(source)
            if errors:
                raise ContractErrors(errors)
            del decimals[:]  # an abandoned first parse may have recorded some
            value = decoder.decode(text)  # the walker found the text valid
    if not isinstance(value, dict):
        start = _space_end(text)
        _fail("json.root_not_object", _root_message(text[start]), source,
              *_line_cols(text, [start])[start])
    return Document(source, text, value, digest, size, decimals)


def parse_bytes(data: bytes, source: Optional[str]) -> Document:
    """Parse a file's bytes; errors name ``source``. Raises ContractErrors for bad input."""
    if not isinstance(data, bytes):
        data = bytes(data)
    return _parse([data], source)


def _read_stream(path: str, source: Optional[str]) -> bytes:
    """The bytes of a pipe, FIFO or device: its size is unknown, so reading stops just past
    MAX_FILE_BYTES; and a FIFO that nobody writes to would block forever, so each wait for
    data lasts at most PIPE_WAIT_SECONDS (where the platform can wait on it: POSIX)."""
    waits = hasattr(os, "O_NONBLOCK")
    flags = os.O_RDONLY | getattr(os, "O_BINARY", 0) | (os.O_NONBLOCK if waits else 0)
    descriptor = os.open(path, flags)  # with O_NONBLOCK, a FIFO opens even without a writer
    try:
        chunks, size = [], 0
        while size <= MAX_FILE_BYTES:
            if waits:
                ready = select.select([descriptor], [], [], PIPE_WAIT_SECONDS)[0]
                if not ready:
                    _fail("file.unreadable", "cannot read the file: it is a pipe, and nothing "
                          "arrived from it for %d seconds (is anything writing to it?)"
                          % PIPE_WAIT_SECONDS, source)
            try:
                chunk = os.read(descriptor, 1 << 20)
            except BlockingIOError:
                continue
            if not chunk:
                break
            chunks.append(chunk)
            size += len(chunk)
        return b"".join(chunks)
    finally:
        os.close(descriptor)


def load_file(path: str, source: Optional[str] = None) -> Document:
    """Read and parse the file at ``path``; errors name ``source``, by default ``path``."""
    if source is None:
        source = path if isinstance(path, str) else os.fsdecode(path)
    if not path:
        _fail("file.unreadable", "the path is empty: name a file", source)
    try:
        info = os.stat(path)
        if stat.S_ISDIR(info.st_mode):
            _fail("file.unreadable", "cannot read the file: it is a directory", source)
        if info.st_size > MAX_FILE_BYTES:
            _too_large(info.st_size, source)
        if stat.S_ISREG(info.st_mode):
            with open(path, "rb") as stream:
                box = [stream.read()]
        else:
            box = [_read_stream(path, source)]
    except ContractErrors:
        raise  # a ValueError too: not the "embedded NUL" case below
    except OSError as exc:
        reason = {FileNotFoundError: "no such file", IsADirectoryError: "it is a directory",
                  PermissionError: "permission denied"}.get(type(exc)) or exc.strerror
        _fail("file.unreadable", "cannot read the file: %s" % (reason or exc), source)
    except ValueError as exc:  # e.g. an embedded NUL character in the path
        _fail("file.unreadable", "cannot read the file: %s" % exc, source)
    return _parse(box, source)
