"""A harness log as the importer sees it: its bytes' digest and size, its format, and the
contract errors that name the log, the entry inside a zip and the JSON path.

The format is told from the bytes, never from the file name, by the harness rows
(``importers/formats.py``).
"""

from __future__ import annotations

import hashlib
import json
import os
import platform
import stat
from typing import BinaryIO, Dict, Iterable, List, Optional, Tuple, Union

from ..contract.shapes import type_name
from ..errors import ContractError, ContractErrors, PathStep
from ..jsonio import JSON, JSONObject
from ..jsonio.gcpause import CollectorPaused
from ..jsonio.load import MAX_FILE_BYTES, MAX_NUMBER_LITERAL_CHARS, nesting_ok
from ..jsonio.paths import near_file

READ_CHUNK_BYTES = 1 << 20
# The longest line of a log of JSON lines (one trial), as an .eval log's largest sample entry.
MAX_LINE_BYTES = 512 * 1024 * 1024
# The deepest nesting of a value the importer writes again (a final state), and, on PyPy, of
# a log's JSON: PyPy's JIT can abort the whole process (a fatal RPython error, no exception)
# when its JSON decoder reaches the recursion limit, so there a deeper log is refused before
# it is decoded. Far deeper than any harness log.
MAX_LOG_DEPTH = 200
ON_PYPY = platform.python_implementation() == "PyPy"


class LogError(Exception):
    """One contract error of a log, raised where it is found (a log that cannot be read
    further); :meth:`error` places it."""

    def __init__(self, code: str, message: str, path: Iterable[PathStep] = (),
                 entry: Optional[str] = None, line: Optional[int] = None,
                 column: Optional[int] = None) -> None:
        super().__init__(message)
        self.code = code
        self.message = message
        self.path = tuple(path)
        self.entry = entry
        self.line = line
        self.column = column


class LogSource:
    """One log: the ``path`` to open, the name shown in messages (``shown``, the path as
    given), and, once :meth:`measure` has run, its SHA-256 and size."""

    def __init__(self, path: str, shown: Optional[str] = None) -> None:
        self.path = path
        self.shown = shown if shown is not None else path
        self.sha256 = ""
        self.size = 0
        # Between the log and a file inside it, as errors name it: a zip's entry
        # (``baseline.eval:header.json``) or a results folder's file (``run/results.json``).
        self.entry_separator = ":"

    @property
    def file_name(self) -> str:
        """The log's file name without its folder (the provenance's ``log_file``)."""
        return os.path.basename(os.path.normpath(self.path)) or self.path

    def where(self, entry: Optional[str] = None) -> str:
        """The file as errors name it: ``baseline.eval:samples/3_epoch_1.json`` inside a zip,
        ``run/simulations/sim-1.json`` inside a folder."""
        if entry is None:
            return self.shown
        if self.entry_separator == "/":
            return "%s/%s" % (self.shown.rstrip("/\\") or self.shown, entry)
        return "%s%s%s" % (self.shown, self.entry_separator, entry)

    def error(self, code: str, message: str, path: Iterable[PathStep] = (),
              entry: Optional[str] = None, line: Optional[int] = None,
              column: Optional[int] = None) -> ContractError:
        return ContractError(code, message, path, self.where(entry), line, column)

    def placed(self, failure: LogError) -> ContractError:
        return self.error(failure.code, failure.message, failure.path, failure.entry,
                          failure.line, failure.column)

    def fail(self, code: str, message: str, path: Iterable[PathStep] = (),
             entry: Optional[str] = None) -> None:
        raise ContractErrors([self.error(code, message, path, entry)])

    def openable(self, folder: bool) -> bool:
        """False when the log is there and is neither a regular file nor (``folder``) a
        folder: a FIFO or a device would block the open or never end. A log that is not
        there is openable here: the open says why it cannot be read."""
        try:
            mode = os.stat(self.path).st_mode
        except (OSError, ValueError):
            return True
        return stat.S_ISREG(mode) or (folder and stat.S_ISDIR(mode))

    def measure(self) -> bytes:
        """Hash the whole file in chunks (a large .eval log is never read whole here); return
        its first bytes, which tell its format."""
        digest = hashlib.sha256()
        size = 0
        head = b""
        if not self.openable(folder=False):
            self.fail("import.unreadable", "cannot read the log: it is not a regular file")
        try:
            with open(self.path, "rb") as stream:
                while True:
                    chunk = stream.read(READ_CHUNK_BYTES)
                    if not chunk:
                        break
                    if not head:
                        head = chunk[:16]
                    digest.update(chunk)
                    size += len(chunk)
        except OSError as problem:
            reason = {FileNotFoundError: "no such file", PermissionError: "permission denied",
                      IsADirectoryError: "it is a directory"}.get(type(problem))
            if isinstance(problem, FileNotFoundError):
                reason = "no such file" + near_file(self.path, self.shown)
            self.fail("import.unreadable", "cannot read the log: %s" % (
                reason or problem.strerror or problem))
        except ValueError as problem:  # an embedded NUL in the path
            self.fail("import.unreadable", "cannot read the log: %s" % problem)
        self.sha256 = digest.hexdigest()
        self.size = size
        if size == 0:
            self.fail("import.format", "the log is empty")
        return head

    def first_line(self) -> object:
        """The log's first line, whole (up to :data:`MAX_LINE_BYTES`, the longest line a log
        of JSON lines may have), decoded as JSON; None when it is not JSON or longer: how a
        log of JSON lines is told (``importers/formats.py``)."""
        with open(self.path, "rb") as stream:
            line = stream.readline(MAX_LINE_BYTES + 1)
        if len(line) > MAX_LINE_BYTES or not nesting_ok(line, MAX_LOG_DEPTH):
            return None
        try:
            return json.loads(line.decode("utf-8-sig"))
        except (ValueError, RecursionError):  # not UTF-8 (UnicodeDecodeError), not JSON
            return None

    def has_second_line(self) -> bool:
        """Whether anything but whitespace follows the log's first line (a file of JSON lines,
        not one JSON object on one line); the first line is skipped whole, however long."""
        with open(self.path, "rb") as stream:
            while True:  # a line longer than a chunk is read a chunk at a time
                chunk = stream.readline(READ_CHUNK_BYTES)
                if not chunk or chunk.endswith(b"\n"):
                    break
            while True:
                chunk = stream.read(READ_CHUNK_BYTES)
                if not chunk:
                    return False
                if chunk.strip():
                    return True

    def read_json(self) -> JSONObject:
        """The whole log as one JSON object (a ``.json`` log: its format has no smaller unit)."""
        if self.size > MAX_FILE_BYTES:
            self.fail("import.too_large", "the log is %d bytes, more than the limit of %d "
                      "bytes for a JSON log" % (self.size, MAX_FILE_BYTES))
        with open(self.path, "rb") as stream:
            data = stream.read()
        return decode_json(data, self, None)


def decode_json(data: bytes, source: LogSource, entry: Optional[str]) -> JSONObject:
    """Bytes of a log (or of an entry of one) as a JSON object; a contract error otherwise.
    Standard JSON as the harnesses write it (Python's ``json``; their logs may hold NaN)."""
    try:
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError as problem:
        line, column, byte = invalid_utf8_at(problem)
        raise ContractErrors([source.error(
            "import.json", "the log is not valid UTF-8: invalid or incomplete byte sequence "
            "starting with 0x%02X at byte offset %d" % (byte, problem.start + len(data) - len(
                problem.object)), (), entry, line, column)])
    if ON_PYPY and not nesting_ok(data, MAX_LOG_DEPTH):
        raise ContractErrors([source.error("import.json", "not valid JSON: nested more than %d "
                                           "deep" % MAX_LOG_DEPTH, (), entry)])
    try:
        with CollectorPaused():  # a large log decodes into millions of acyclic objects
            value = json.loads(text, parse_int=bounded_int)
    except json.JSONDecodeError as problem:
        raise ContractErrors([source.error("import.json", "not valid JSON: %s" % problem.msg,
                                           (), entry, problem.lineno, problem.colno)])
    except RecursionError:
        raise ContractErrors([source.error("import.json", "not valid JSON: nested too deeply",
                                           (), entry)])
    if not isinstance(value, dict):
        raise ContractErrors([source.error("import.format", "expected a JSON object at the "
                                           "top, got %s" % type_name(value), (), entry)])
    return value


def invalid_utf8_at(problem: UnicodeDecodeError) -> Tuple[int, int, int]:
    """Where bytes stop being UTF-8: the line and the column (from 1, the column counted in
    characters, as a JSON error's) of the first invalid byte, and that byte. The positions
    are in the bytes decoded (``problem.object``: after a byte-order mark), valid before it."""
    data = bytes(problem.object)
    start = problem.start
    line_start = data.rfind(b"\n", 0, start) + 1
    return (data.count(b"\n", 0, start) + 1, len(data[line_start:start].decode("utf-8")) + 1,
            data[start])


def bounded_int(literal: str) -> Union[int, float]:
    """An integer literal of the log; one longer than the gate's literals (which could take
    minutes to convert) is read as the float it approximates, infinite or huge, which the
    fields the importer reads refuse at their JSON path (:func:`.values.log_number`)."""
    if len(literal) <= MAX_NUMBER_LITERAL_CHARS:
        return int(literal)
    return float(literal)


def nested_deeper_than(value: object, limit: int) -> bool:
    """Whether ``value`` (decoded JSON) nests arrays and objects more than ``limit`` deep;
    level by level, without recursion."""
    level = [value] if isinstance(value, (dict, list)) else []
    depth = 0
    while level:
        depth += 1
        if depth > limit:
            return True
        inner: List[JSON] = []
        for item in level:
            inner.extend(item.values() if isinstance(item, dict) else item)
        level = [item for item in inner if isinstance(item, (dict, list))]
    return False


# -- folder logs (a file per trial) -------------------------------------------------------

def manifest_line(sha256: str, entry: str) -> bytes:
    """A folder log's manifest line for one file, as ``sha256sum`` writes it: ``<SHA-256>
    <file>`` (two spaces) and a newline, in UTF-8."""
    return ("%s  %s\n" % (sha256, entry)).encode("utf-8")


def measure_folder(source: LogSource, entries: List[str]) -> Dict[str, str]:
    """A folder log's digest: the SHA-256 of its manifest, one line per file of ``entries``
    (paths inside it, in the order given) as ``sha256sum`` writes it (``<SHA-256>  <file>``);
    its size, the files' bytes in all. Returns each file's own SHA-256."""
    files: Dict[str, str] = {}
    manifest = hashlib.sha256()
    size = 0
    for entry in entries:
        digest = hashlib.sha256()
        with open_entry(source, entry) as stream:
            while True:
                chunk = stream.read(READ_CHUNK_BYTES)
                if not chunk:
                    break
                digest.update(chunk)
                size += len(chunk)
        files[entry] = digest.hexdigest()
        manifest.update(manifest_line(files[entry], entry))
    source.sha256 = manifest.hexdigest()
    source.size = size
    return files


def open_entry(source: LogSource, entry: str) -> BinaryIO:
    """The file ``entry`` of a folder log (a path inside it, ``/``-separated), open; a
    contract error when it is not a regular file."""
    path = os.path.join(source.path, *entry.split("/"))
    try:
        if not stat.S_ISREG(os.stat(path).st_mode):  # a FIFO would block the open
            source.fail("import.unreadable", "cannot read it: not a regular file", (), entry)
        return open(path, "rb")
    except OSError as problem:
        source.fail("import.unreadable", "cannot read it: %s" % (problem.strerror or problem),
                    (), entry)
        raise  # not reached: fail raises


class Manifest:
    """A folder log's digest taken as its files are read, each once: the SHA-256 of its
    manifest, one line per file as ``sha256sum`` writes it (``<SHA-256>  <file>``), in the
    order read; and the files' bytes in all (as :func:`measure_folder` gives them)."""

    def __init__(self) -> None:
        self.digest = hashlib.sha256()
        self.size = 0

    def add(self, entry: str, data: bytes) -> None:
        self.digest.update(manifest_line(hashlib.sha256(data).hexdigest(), entry))
        self.size += len(data)

    def seal(self, source: LogSource) -> None:
        """The log's digest and size, as far as its files have been read."""
        source.sha256 = self.digest.hexdigest()
        source.size = self.size


def read_entry(source: LogSource, entry: str,
               manifest: Optional[Manifest] = None) -> JSONObject:
    """One file of a folder log, decoded whole (one trial's file at most in memory), and
    added to ``manifest`` when one is given."""
    with open_entry(source, entry) as stream:
        size = os.fstat(stream.fileno()).st_size
        if size > MAX_FILE_BYTES:
            source.fail("import.too_large", "the file is %d bytes, more than the limit of %d "
                        "bytes for a JSON log" % (size, MAX_FILE_BYTES), (), entry)
        # Its size as measured, plus one byte to see a file that grew: never a read of the
        # limit, for which some interpreters allocate the whole buffer.
        data = stream.read(size + 1)
    if len(data) > size:
        source.fail("import.unreadable", "the file changed while it was read", (), entry)
    if manifest is not None:
        manifest.add(entry, data)
    return decode_json(data, source, entry)
