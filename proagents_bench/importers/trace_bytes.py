"""The bytes a trace is read from, streamed a chunk at a time and held to the digest the
import took of them (a results v5 trace reference's ``sha256``): a file whole, a file of a
folder log, or one entry of a zip (an Inspect AI ``.eval`` log).

A zip entry is found by reading the zip's central directory a chunk at a time (never the
whole directory: a log of a million samples has a million entries) and streamed from its
local header: stored and deflated entries a chunk at a time, zstd entries (Inspect's
default) decoded whole first (the decoders here decode a frame at once) and then given a
chunk at a time. Its CRC-32 is checked as zipfile checks it. Every failure is a
:class:`~.trace.TraceProblem`: a log that is not there (``trace.log_missing``), bytes that
are not the ones imported (``trace.log_changed``), a zip that cannot be read
(``trace.log_damaged``); it is raised when found, which for a digest is at the end of the
bytes (the caller reads them to the end).
"""

from __future__ import annotations

import hashlib
import os
import struct
import zipfile
import zlib
from typing import (IO, TYPE_CHECKING, BinaryIO, Callable, Dict, Iterator, List, Sequence,
                    Tuple, Union)

from . import zstd
from .json_excerpt import ExcerptError, Want, chunks_of, excerpt, want_of
from .source import LogSource, manifest_line
from .trace import Trace, TraceProblem

if TYPE_CHECKING:  # for annotations only
    from ..jsonio import JSON, JSONObject

CHUNK_BYTES = 1 << 20
# The largest entry decoded whole (zstd): the import's own limit for one sample.
MAX_ENTRY_BYTES = 512 * 1024 * 1024
_END = struct.Struct("<4s4H2LH")                 # end of central directory
_END64_LOCATOR = struct.Struct("<4sLQL")         # zip64 end of central directory locator
_END64 = struct.Struct("<4sQ2H2L4Q")             # zip64 end of central directory
_CENTRAL = struct.Struct("<4s4B4HL2L5H2L")       # a central directory header
_LOCAL = struct.Struct("<4s2B4HL2L2H")           # a local file header
_ZIP64_EXTRA = 0x0001
_ZSTD_METHOD = 93


class EntryInfo:
    """What the central directory says of one entry: its compression, CRC-32, sizes and
    where its local header is."""

    def __init__(self, method: int, crc: int, compressed: int, size: int, offset: int,
                 flags: int) -> None:
        self.method = method
        self.crc = crc
        self.compressed = compressed
        self.size = size
        self.offset = offset
        self.flags = flags


def open_log(path: str, where: str) -> BinaryIO:
    """The file ``path`` open for reading; ``trace.log_missing`` when it cannot be."""
    try:
        return open(path, "rb")
    except OSError as problem:
        raise TraceProblem("trace.log_missing", "the log cannot be read: %s" % (
            problem.strerror or problem), where) from None


def checked(chunks: Iterator[bytes], expected: str, where: str) -> Iterator[bytes]:
    """``chunks`` given on, and their SHA-256 held to ``expected`` once they end."""
    digest = hashlib.sha256()
    for chunk in chunks:
        digest.update(chunk)
        yield chunk
    if digest.hexdigest() != expected:
        raise changed("its bytes", digest.hexdigest(), expected, where)


def changed(what: str, found: str, expected: str, where: str) -> TraceProblem:
    """``trace.log_changed``: ``what`` was read has the digest ``found``, and the import's
    was ``expected``."""
    return TraceProblem("trace.log_changed", "%s are not the ones the import read (SHA-256 "
                        "%s, the import's %s): the log changed since, or it is another log; "
                        "give the log the package was imported from, or import it again" % (
                            what, found[:12], expected[:12]), where)


def file_chunks(path: str, where: str) -> Iterator[bytes]:
    """A file's bytes, a chunk at a time."""
    with open_log(path, where) as stream:
        yield from _stream_chunks(stream)


def _stream_chunks(stream: IO[bytes]) -> Iterator[bytes]:
    """An open stream's bytes to its end, a chunk at a time."""
    return iter(lambda: stream.read(CHUNK_BYTES), b"")


def zip_entries(path: str, names: Sequence[str], where: str) -> Dict[str, EntryInfo]:
    """The central directory's record of each of ``names`` that the zip holds, read a chunk
    at a time; ``trace.log_damaged`` for a file that is not a readable zip."""
    wanted = set(names)
    found: Dict[str, EntryInfo] = {}
    with open_log(path, where) as stream:
        start, left = _directory(stream, where)
        stream.seek(start)
        data = b""
        at = 0
        while len(found) < len(wanted):
            need = _CENTRAL.size  # a header, then its name, extra field and comment
            if len(data) - at >= need:
                fields = _CENTRAL.unpack_from(data, at)
                need += sum(fields[12:15])
            if len(data) - at < need:
                if left <= 0:
                    if at < len(data):
                        raise _damaged("its central directory is cut short", where)
                    break
                chunk = stream.read(min(CHUNK_BYTES, left))
                if not chunk:
                    raise _damaged("its central directory is cut short", where)
                left -= len(chunk)
                data = data[at:] + chunk
                at = 0
                continue
            if fields[0] != b"PK\x01\x02":
                raise _damaged("a bad central directory header", where)
            name_at = at + _CENTRAL.size
            extra_at = name_at + fields[12]
            name = data[name_at:extra_at].decode("utf-8" if fields[5] & 0x800 else "cp437")
            if name in wanted:
                size, compressed, offset = _zip64(fields[11], fields[10], fields[18],
                                                  data[extra_at:extra_at + fields[13]])
                found[name] = EntryInfo(fields[6], fields[9], compressed, size, offset,
                                        fields[5])
            at += need
    return found


def _directory(stream: BinaryIO, where: str) -> Tuple[int, int]:
    """Where the central directory starts and its size (zip64 too)."""
    stream.seek(0, os.SEEK_END)
    length = stream.tell()
    back = min(length, _END.size + 65535)
    stream.seek(length - back)
    tail = stream.read(back)
    at = tail.rfind(b"PK\x05\x06")
    if at < 0 or len(tail) - at < _END.size:
        raise _damaged("no end of central directory: not a readable zip", where)
    fields = _END.unpack_from(tail, at)
    size, start = fields[5], fields[6]
    if start == 0xFFFFFFFF or size == 0xFFFFFFFF or fields[4] == 0xFFFF:
        locator = at - _END64_LOCATOR.size
        if locator < 0:
            raise _damaged("a zip64 archive without its locator", where)
        signature, _disk, end64, _disks = _END64_LOCATOR.unpack_from(tail, locator)
        if signature != b"PK\x06\x07":
            raise _damaged("a zip64 archive without its locator", where)
        stream.seek(end64)
        record = stream.read(_END64.size)
        if len(record) < _END64.size or record[:4] != b"PK\x06\x06":
            raise _damaged("a bad zip64 end of central directory", where)
        size, start = _END64.unpack(record)[8:10]
    return start, size


def _zip64(size: int, compressed: int, offset: int, extra: bytes) -> Tuple[int, int, int]:
    """The sizes and offset, from the zip64 extra field where the header holds 0xFFFFFFFF."""
    at = 0
    while at + 4 <= len(extra):
        kind, length = struct.unpack_from("<2H", extra, at)
        if kind == _ZIP64_EXTRA:
            values = list(struct.unpack_from("<%dQ" % (length // 8), extra, at + 4))
            if size == 0xFFFFFFFF and values:
                size = values.pop(0)
            if compressed == 0xFFFFFFFF and values:
                compressed = values.pop(0)
            if offset == 0xFFFFFFFF and values:
                offset = values.pop(0)
            break
        at += 4 + length
    return size, compressed, offset


def entry_chunks(path: str, name: str, info: EntryInfo, where: str) -> Iterator[bytes]:
    """One entry's bytes, decompressed, a chunk at a time, its CRC-32 and size checked."""
    crc = 0
    total = 0
    for chunk in _decompressed(path, name, info, where):
        crc = zlib.crc32(chunk, crc)
        total += len(chunk)
        if total > info.size:
            raise _damaged("the entry is larger than it declares", where)
        yield chunk
    if total != info.size or crc != info.crc:
        raise _damaged("Bad CRC-32 or size for the entry", where)


def _decompressed(path: str, name: str, info: EntryInfo, where: str) -> Iterator[bytes]:
    if info.flags & 0x1:
        raise _damaged("the entry is encrypted", where)
    if info.method not in (zipfile.ZIP_STORED, zipfile.ZIP_DEFLATED, _ZSTD_METHOD):
        yield from _through_zipfile(path, name, where)
        return
    with open_log(path, where) as stream:
        stream.seek(info.offset)
        header = stream.read(_LOCAL.size)
        if len(header) != _LOCAL.size or header[:4] != b"PK\x03\x04":
            raise _damaged("a bad local file header", where)
        fields = _LOCAL.unpack(header)
        stream.seek(info.offset + _LOCAL.size + fields[-2] + fields[-1])
        if info.method == _ZSTD_METHOD:
            if info.size > MAX_ENTRY_BYTES:
                raise _damaged("the entry is more than %d bytes" % MAX_ENTRY_BYTES, where)
            raw = stream.read(info.compressed)
            try:
                yield from chunks_of(zstd.decompress(raw, info.size), CHUNK_BYTES)
            except zstd.ZstdError as problem:
                raise _damaged("zstd: %s" % problem, where) from None
            return
        inflater = zlib.decompressobj(-zlib.MAX_WBITS) if info.method else None
        left = info.compressed
        while left > 0:
            raw = stream.read(min(CHUNK_BYTES, left))
            if not raw:
                raise _damaged("the entry is cut short", where)
            left -= len(raw)
            if inflater is None:
                yield raw
                continue
            try:
                while raw:  # a chunk at most at a time: deflate can expand a thousandfold
                    yield inflater.decompress(raw, CHUNK_BYTES)
                    raw = inflater.unconsumed_tail
            except zlib.error as problem:
                raise _damaged("Error while decompressing data: %s" % problem, where) from None
        if inflater is not None:
            yield inflater.flush()


def _through_zipfile(path: str, name: str, where: str) -> Iterator[bytes]:
    """An entry of another compression (bzip2, lzma), as zipfile reads it."""
    try:
        with zipfile.ZipFile(path) as archive, archive.open(name) as stream:
            yield from _stream_chunks(stream)
    except (zipfile.BadZipFile, zlib.error, EOFError, ValueError, OSError, KeyError,
            NotImplementedError, RuntimeError) as problem:
        raise _damaged("the entry cannot be read: %s" % problem, where) from None


def read_object(chunks: Iterator[bytes], want: Want, where: str
                ) -> Tuple[JSONObject, List[str]]:
    """The parts of a JSON object wanted, read to the end of its bytes (their digest is
    checked then), and what was cut of them; ``trace.log_damaged`` when they are not JSON."""
    try:
        found = excerpt(chunks, want)
    except ExcerptError as problem:
        raise TraceProblem("trace.log_damaged", "not JSON: %s" % problem, where) from None
    if not isinstance(found.value, dict):
        raise TraceProblem("trace.log_damaged", "not a JSON object", where)
    return found.value, found.cuts


def cuts_of(cuts: Sequence[str], prefix: str) -> List[str]:
    """The cuts made inside the value at ``prefix`` (``$.samples[3]``), of a pass over a
    log that kept several."""
    return [text for text in cuts if text.startswith((prefix + ".", prefix + "[",
                                                      prefix + ":"))]


# What a one-pass reader makes of one unit it kept: (the unit, its reference, where it is,
# what was cut of it) to its trace (a TraceProblem raised when the unit is not the one
# imported).
UnitTrace = Callable[["JSONObject", "JSONObject", str, List[str]], Trace]


def array_traces(source: LogSource, references: Sequence[JSONObject], array: Sequence[str],
                 want: Want, trace: UnitTrace) -> List[Union[Trace, TraceProblem]]:
    """The traces of units of a log that is one JSON document, each an item of its array at
    the keys ``array`` (``("samples",)``) at its reference's ``index``, read in one pass over
    the log (whose digest every reference carries) keeping ``want`` of each unit asked for."""
    where = source.shown
    indexes: Dict[Union[str, int], Want] = {index: want for index in sorted(
        {reference["index"] for reference in references if reference["index"] is not None})}
    try:
        chunks = checked(file_chunks(source.path, where), references[0]["sha256"], where)
        log, cuts = read_object(chunks, want_of(list(array), indexes), where)
    except TraceProblem as problem:
        return [problem for _reference in references]
    units: JSON = log
    for key in array:
        units = units.get(key) if isinstance(units, dict) else None
    found: List[Union[Trace, TraceProblem]] = []
    for reference in references:
        path = "%s[%s]" % (".".join(array), reference["index"])
        unit = units.get(reference["index"]) if isinstance(units, dict) else None
        try:
            found.append(trace(unit if isinstance(unit, dict) else {}, reference,
                               "%s:%s" % (where, path), cuts_of(cuts, "$." + path)))
        except TraceProblem as problem:
            found.append(problem)
    return found


def streamed_trace(chunks: Iterator[bytes], want: Want, reference: JSONObject, where: str,
                   trace: UnitTrace) -> Union[Trace, TraceProblem]:
    """The trace of a unit that is a JSON document of its own (an ``.eval`` log's sample
    entry, a results folder's simulation file), read from its bytes ``chunks`` keeping
    ``want`` of it; or why it cannot be read."""
    try:
        unit, cuts = read_object(chunks, want, where)
        return trace(unit, reference, where, cuts)
    except TraceProblem as problem:
        return problem


class FolderFiles:
    """The files of a unit that is a folder (a Harbor trial, a SWE-bench instance's
    evaluation), each streamed and digested as it is read (:meth:`chunks`), then held to
    the import's digest: the manifest of the files read, in the order the import listed them
    (:meth:`check`)."""

    def __init__(self, folder: str, where: str) -> None:
        self.folder = folder
        self.where = where
        self.digests: Dict[str, str] = {}
        if not os.path.isdir(folder):
            raise TraceProblem("trace.log_missing", "the folder is not there", where)

    def has(self, name: str) -> bool:
        return os.path.isfile(self.path(name))

    def path(self, name: str) -> str:
        return os.path.join(self.folder, *name.split("/"))

    def chunks(self, name: str) -> Iterator[bytes]:
        digest = hashlib.sha256()
        for chunk in file_chunks(self.path(name), "%s/%s" % (self.where, name)):
            digest.update(chunk)
            yield chunk
        self.digests[name] = digest.hexdigest()

    def check(self, order: Sequence[str], expected: str) -> None:
        """``trace.log_changed`` unless the manifest of the files read, in ``order``, is
        ``expected``."""
        manifest = hashlib.sha256(b"".join(manifest_line(self.digests[name], name)
                                           for name in order if name in self.digests
                                           )).hexdigest()
        if manifest != expected:
            raise changed("its files", manifest, expected, self.where)


def _damaged(reason: str, where: str) -> TraceProblem:
    return TraceProblem("trace.log_damaged", "the log cannot be read: %s" % reason, where)
