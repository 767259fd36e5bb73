"""Inspect AI's ``.eval`` logs (a zip), log format version 2, read as :mod:`.inspect_log`
reads a ``.json`` log: the same header and the same samples, one zip entry at a time.

An ``.eval`` log is a zip holding ``header.json`` (the eval: task, model, configuration,
packages, stats; ``_journal/start.json`` while the eval runs) and one
``samples/<id>_epoch_<n>.json`` per sample and epoch. Its samples are read one entry at a
time, so a large log never sits in memory whole: memory is one sample plus the records.
Stored, deflated and zstd-compressed entries are read straight from the file (zstd, Inspect's
default, by :mod:`.zstd`: the standard library's ``compression.zstd`` from Python 3.14, the
``zstandard`` package where installed, else its pure-Python decoder), with zipfile's own
checks, CRC-32 included; any other compression goes through zipfile.
"""

from __future__ import annotations

import hashlib
import struct
import zipfile
import zlib
from typing import BinaryIO, Generator, List, Optional, Tuple, Union

from ..contract.harnesses import INSPECT_EVAL, ZIP_MAGIC
from ..errors import ContractErrors
from ..jsonio import JSON, JSONObject
from ..jsonio.gcpause import CollectorPaused
from . import zstd
from .inspect_log import JOURNAL_START_ENTRY, SampleReader, read_header
from .settings import Settings
from .source import LogError, LogSource, decode_json
from .trial import LogRun, Trials

HEADER_ENTRY = "header.json"
SAMPLES_FOLDER = "samples/"
# One zip entry (a sample) is read whole: at most this many bytes once decompressed, so a
# corrupt or hostile size field cannot make the importer allocate without bound.
MAX_ENTRY_BYTES = 512 * 1024 * 1024
ZSTD_METHOD = 93
ENCRYPTED_FLAG = 0x1
ZIP_LOCAL_MAGIC = ZIP_MAGIC
# A zip entry's local header (APPNOTE 4.3.7), as zipfile's own ``structFileHeader``: its last
# two fields are the lengths of the name and the extra field that follow it.
LOCAL_HEADER = struct.Struct("<4s2B4HL2L2H")


def read_eval(source: LogSource, value: Optional[JSONObject],
              settings: Settings) -> Tuple[LogRun, Trials]:
    """An ``.eval`` log (a zip: ``value`` is None): its run, and its trials one zip entry at a
    time (the generator holds the log open until it is exhausted or closed)."""
    archive, header, header_entry, samples = _open_eval(source)
    try:
        run = read_header(header, INSPECT_EVAL, header_entry)
    except LogError as failure:
        archive.close()
        raise ContractErrors([source.placed(failure)])
    return run, _eval_trials(_decoded_samples(archive, samples, source, settings.trace_refs),
                             source, SampleReader(settings, run))


def eval_samples(source: LogSource) -> Generator[Tuple[str, JSONObject], None, None]:
    """Each sample of an ``.eval`` log, decoded, with its entry's name, in the order of their
    bytes in the file, read as the import reads them (``bench import --template-log``);
    ContractErrors for a log or an entry that cannot be read."""
    archive, _header, _header_entry, samples = _open_eval(source)
    for entry, sample, _digest in _decoded_samples(archive, samples, source):
        if isinstance(sample, ContractErrors):
            raise sample
        yield entry, sample


def _open_eval(source: LogSource) -> Tuple[zipfile.ZipFile, JSONObject, str, List[JSON]]:
    """The open zip, its header, the header's entry name, and its sample entries in the order
    of their bytes in the file (one pass from start to end)."""
    archive = _open_zip(source)
    try:
        names = archive.infolist()
        entries = {info.filename: info for info in names}
        header_entry = HEADER_ENTRY if HEADER_ENTRY in entries else JOURNAL_START_ENTRY
        if header_entry not in entries:
            raise ContractErrors([source.error(
                "import.format", "the zip holds no header.json (nor _journal/start.json): not "
                "an Inspect AI .eval log")])
        header = decode_json(_read_entry(archive, entries[header_entry], source), source,
                             header_entry)
    except BaseException:
        archive.close()
        raise
    samples = sorted((info for info in names if info.filename.startswith(SAMPLES_FOLDER)
                      and info.filename.endswith(".json")),
                     key=lambda info: info.header_offset)
    return archive, header, header_entry, samples


# A sample entry's name, its decoded sample (or the error of an entry that cannot be read),
# and the SHA-256 of its bytes when asked for (a trace reference's digest), else None.
DecodedSamples = Generator[Tuple[str, Union[JSONObject, ContractErrors], Optional[str]], None,
                           None]


def _decoded_samples(archive: zipfile.ZipFile, samples: List[JSON], source: LogSource,
                     digests: bool = False) -> DecodedSamples:
    """Each sample entry's name and its decoded sample, or the error of an entry that cannot
    be read or decoded (damaged data, a CRC mismatch, not JSON, too large): each entry is
    found by the zip's directory, so the entries after a damaged one are read as well. With
    ``digests``, each entry's bytes are hashed too (decompressed, as a trace is read)."""
    with archive, open(source.path, "rb") as stream, CollectorPaused():
        for info in samples:
            sample: Union[JSONObject, ContractErrors]
            digest = None
            try:
                data = _read_raw(stream, info, source)
                if data is None:
                    data = _read_entry(archive, info, source)
                if digests:
                    digest = hashlib.sha256(data).hexdigest()
                sample = decode_json(data, source, info.filename)
            except ContractErrors as failure:
                sample = failure
            yield info.filename, sample, digest


def _eval_trials(samples: DecodedSamples, source: LogSource, reader: SampleReader) -> Trials:
    try:
        for entry, sample, digest in samples:
            if isinstance(sample, ContractErrors):  # this entry's; the next ones are read too
                yield from sample.errors
                continue
            try:
                yield reader.trial(sample, entry, (), digest)
            except LogError as failure:  # this sample's error; the next ones are read too
                yield source.placed(failure)
    finally:  # closed early (a failed import): the log is closed now, not when collected
        samples.close()


def _read_raw(stream: BinaryIO, info: zipfile.ZipInfo, source: LogSource) -> Optional[bytes]:
    """A stored or deflated entry's bytes, read straight from the file: a third of the
    time ``ZipFile.open`` takes per entry, which counts when a log has a million of them.
    The checks are zipfile's own (local header signature, sizes, CRC-32); None for anything
    else (another compression, encryption), which ``ZipFile.open`` then reads or refuses."""
    methods = (zipfile.ZIP_STORED, zipfile.ZIP_DEFLATED, ZSTD_METHOD)
    if info.compress_type not in methods or info.flag_bits & ENCRYPTED_FLAG:
        return None
    if info.file_size > MAX_ENTRY_BYTES:
        raise ContractErrors([source.error(
            "import.too_large", "the entry is %d bytes uncompressed, more than the limit of "
            "%d bytes for one sample" % (info.file_size, MAX_ENTRY_BYTES), (), info.filename)])
    stream.seek(info.header_offset)
    header = stream.read(LOCAL_HEADER.size)
    if len(header) != LOCAL_HEADER.size or header[:4] != ZIP_LOCAL_MAGIC:
        _corrupt(source, info, "bad local file header")
    fields = LOCAL_HEADER.unpack(header)
    stream.seek(info.header_offset + LOCAL_HEADER.size + fields[-2] + fields[-1])
    raw = stream.read(info.compress_size)
    if len(raw) != info.compress_size:
        _corrupt(source, info, "the entry is truncated")
    if info.compress_type == zipfile.ZIP_STORED:
        data = raw
    elif info.compress_type == ZSTD_METHOD:
        try:
            data = zstd.decompress(raw, info.file_size)
        except zstd.ZstdError as problem:
            _corrupt(source, info, "zstd: %s" % problem)
    else:
        try:
            inflater = zlib.decompressobj(-zlib.MAX_WBITS)
            # No more than the entry says it holds (plus one byte, to see a lie): a bomb
            # that declares a small entry never takes more memory than it declares.
            data = inflater.decompress(raw, info.file_size + 1)
        except zlib.error as problem:
            _corrupt(source, info, "Error -3 while decompressing data: %s" % problem)
    if len(data) != info.file_size or zlib.crc32(data) != info.CRC:
        _corrupt(source, info, "Bad CRC-32 or size for file %r" % info.filename)
    return data


def _corrupt(source: LogSource, info: zipfile.ZipInfo, reason: str) -> None:
    raise ContractErrors([source.error("import.zip_corrupt", "the zip entry cannot be read: "
                                       "%s" % reason, (), info.filename)])


def _open_zip(source: LogSource) -> zipfile.ZipFile:
    try:
        return zipfile.ZipFile(source.path)
    except (zipfile.BadZipFile, zlib.error, EOFError, ValueError) as problem:
        raise ContractErrors([source.error("import.zip_corrupt", "the .eval log is not a "
                                           "readable zip: %s" % problem)])
    except OSError as problem:
        raise ContractErrors([source.error("import.unreadable", "cannot read the log: %s" % (
            problem.strerror or problem))])


def _read_entry(archive: zipfile.ZipFile, info: zipfile.ZipInfo, source: LogSource) -> bytes:
    with open(source.path, "rb") as stream:
        data = _read_raw(stream, info, source)
    if data is not None:
        return data
    if info.file_size > MAX_ENTRY_BYTES:
        raise ContractErrors([source.error(
            "import.too_large", "the entry is %d bytes uncompressed, more than the limit of "
            "%d bytes for one sample" % (info.file_size, MAX_ENTRY_BYTES), (), info.filename)])
    if info.flag_bits & ENCRYPTED_FLAG:
        raise ContractErrors([source.error(
            "import.zip_compression", "the entry is encrypted (Inspect AI never encrypts a "
            "log): it cannot be read", (), info.filename)])
    try:
        with archive.open(info) as stream:
            data = stream.read(MAX_ENTRY_BYTES + 1)
    except (NotImplementedError, RuntimeError) as problem:  # RuntimeError: bz2/lzma missing
        raise ContractErrors([source.error(
            "import.zip_compression", "the entry's compression (zip method %d) cannot be "
            "read: %s; convert the log with Inspect AI (`inspect log convert LOG --to json "
            "--output-dir DIR`) and import the .json log" % (info.compress_type, problem), (),
            info.filename)])
    except (zipfile.BadZipFile, zlib.error, EOFError, ValueError, OSError) as problem:
        raise ContractErrors([source.error("import.zip_corrupt", "the zip entry cannot be "
                                           "read: %s" % problem, (), info.filename)])
    if len(data) > MAX_ENTRY_BYTES:
        raise ContractErrors([source.error(
            "import.too_large", "the entry is more than the limit of %d bytes for one sample"
            % MAX_ENTRY_BYTES, (), info.filename)])
    return data
