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
  then the stdlib C scanner with hooks that raise at the first suspicious object or number
  (:mod:`.checks`). Nothing walks the parsed value in Python.
* Slow path (only when something is wrong): a walker that tracks positions, skips clean
  containers with the C scanner and descends only where the hooks or prescans point, so that
  every independent error is reported, each with its path, line and column (:mod:`.locate`,
  imported only then, and to place the contract's errors).
"""

from __future__ import annotations

import codecs
import hashlib
import os
import select
import stat
from decimal import Decimal
from json.decoder import JSONDecodeError
from typing import Iterable, List, NoReturn, Optional, Sequence, Tuple

from ..errors import ContractError, ContractErrors, PathStep
from . import JSONObject
# The contract's limits on a JSON file and the nesting prescan, named here too: the contract
# and the importers read them from the loader, where they apply.
from .checks import MAX_DEPTH as MAX_DEPTH
from .checks import MAX_NUMBER_EXPONENT as MAX_NUMBER_EXPONENT
from .checks import MAX_NUMBER_LITERAL_CHARS as MAX_NUMBER_LITERAL_CHARS
from .checks import MAX_SAFE_INTEGER as MAX_SAFE_INTEGER
from .checks import nesting_ok as nesting_ok
from .checks import Suspicious, recording_decoder, skip_once, surrogates_ok
from .paths import near_file
from .gcpause import CollectorPaused

MAX_FILE_BYTES = 1024 * 1024 * 1024
# An input that is a pipe (a FIFO, /dev/stdin, a shell's <(...)) must deliver data within
# this long, and never pause longer: a FIFO without a writer would otherwise block forever.
PIPE_WAIT_SECONDS = 60

_RESAVE = "re-save it as UTF-8"
# What ``_parse``'s value is until the text is parsed (a parsed value is never this object).
_NOT_PARSED: object = object()


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
        from .locate import locate_offsets
        spans = []
        for start in locate_offsets(self.text, [tuple(path) for path in paths]):
            if start is None:
                raise LookupError("no value at a path to cut out")
            spans.append((start, skip_once(self.text, start)[1]))
        return spans

    def errors_at(self, errors: Iterable[ContractError]) -> List[ContractError]:
        """Copies of ``errors`` with file=source and line/column located from their path."""
        from .locate import line_cols, locate_offsets
        errors = list(errors)
        offsets = locate_offsets(self.text, [error.path for error in errors])
        places = line_cols(self.text, [offset for offset in offsets if offset is not None])
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
    depth_ok, surrogates_free = nesting_ok(data, MAX_DEPTH), surrogates_ok(data)
    digest, size = hashlib.sha256(data).hexdigest(), len(data)
    del data  # only the text is needed from here on
    value = _NOT_PARSED
    decimals: List[Decimal] = []
    decoder = recording_decoder(decimals)
    with CollectorPaused():
        if depth_ok and surrogates_free:
            try:
                value = decoder.decode(text)
            except JSONDecodeError as exc:
                from .locate import syntax_error
                raise ContractErrors([syntax_error(text, exc, source)])
            except (Suspicious, ValueError, RecursionError):
                pass
        if value is _NOT_PARSED:
            from . import locate
            errors = locate.Walker(text, not depth_ok, not surrogates_free).run(source)
            if errors:
                raise ContractErrors(errors)
            del decimals[:]  # an abandoned first parse may have recorded some
            value = decoder.decode(text)  # the walker found the text valid
    if not isinstance(value, dict):
        from .locate import line_cols, root_message, space_end
        start = space_end(text)
        _fail("json.root_not_object", root_message(text[start]), source,
              *line_cols(text, [start])[start])
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
        if isinstance(exc, FileNotFoundError):
            reason = "no such file" + near_file(path, source)
        _fail("file.unreadable", "cannot read the file: %s" % (reason or exc), source)
    except ValueError as exc:  # e.g. an embedded NUL character in the path
        _fail("file.unreadable", "cannot read the file: %s" % exc, source)
    return _parse(box, source)
