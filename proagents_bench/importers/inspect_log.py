"""Inspect AI logs: ``.eval`` (a zip) and ``.json``, log format version 2.

An ``.eval`` log is a zip holding ``header.json`` (the eval: task, model, configuration,
packages, stats; ``_journal/start.json`` while the eval runs) and one
``samples/<id>_epoch_<n>.json`` per sample and epoch. Its samples are read one entry at a
time, so a large log never sits in memory whole: memory is one sample plus the records.
Stored, deflated and zstd-compressed entries are read straight from the file (zstd, Inspect's
default, by :mod:`.zstd`: the standard library's ``compression.zstd`` from Python 3.14, the
``zstandard`` package where installed, else its pure-Python decoder), with zipfile's own
checks, CRC-32 included; any other compression goes through zipfile. A
``.json`` log is the same header with a ``samples`` array, read whole (its format has no
smaller unit).

Each sample becomes one trial (none is dropped): ``id`` is the case id, ``epoch`` the trial
id; the status comes from its ``error`` (``error``) and ``limit`` (``time`` and ``working``
limits: ``timeout``; any other limit: ``error``), a sample without a score is ``unknown``,
else ``success``; ``tools_used`` are the functions of its tool events (of its assistant
messages' tool calls when it has no events); ``side_effects`` the tools the mapping names as
side-effecting (every tool called, by default) and the store keys it names whose value the
sample changed; ``final_state`` from a score's answer (default) or value, or a store key;
``latency_ms`` from ``working_time`` (``total_time`` when absent); ``cost_units`` from the
sample's model usage. Keys the importer does not read are ignored: logs grow.
"""

from __future__ import annotations

import struct
import zipfile
import zlib
from typing import BinaryIO, Generator, List, Optional, Set, Tuple, Union, cast

from ..contract.harnesses import (INSPECT_AI, INSPECT_EVAL, INSPECT_JSON, SCORE_ANSWER,
                                  SCORE_VALUE, TOTAL_TOKENS, ZIP_MAGIC)
from ..contract.shapes import type_name
from ..contract.vocabulary import ERROR, SUCCESS, TIMEOUT, UNKNOWN
from ..errors import ContractErrors, Path
from ..jsonio import JSON, JSONObject
from ..jsonio.gcpause import CollectorPaused
from ..jsonio.load import MAX_SAFE_INTEGER
from ..text import quote
from . import zstd
from .settings import Settings
from .source import LogError, LogSource, decode_json
from .trial import LogRun, Trial, Trials
from .values import (MAX_LOG_NUMBER, array_trials, items, log_number, milliseconds, optional,
                     require, scaled, state_text)

# The log format versions read (Inspect's ``version``; 2 since 2024). A newer major version
# may have moved what the importer reads, so it is refused rather than misread.
SUPPORTED_VERSIONS = (2,)
HEADER_ENTRY = "header.json"
JOURNAL_START_ENTRY = "_journal/start.json"
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
TIMEOUT_LIMITS = ("time", "working")
# Inspect's value of a correct answer (``CORRECT``), the expected final state of a case built
# from a log whose final state is the score's value.
CORRECT_VALUE = "C"
# Inspect's status of a run that finished.
RUN_SUCCESS = "success"
EVERY_TOOL_RULE = ("every tool called is a side effect (Inspect AI's default: the mapping "
                   "names no side_effect_tools)")
MAPPED_TOOL_RULE = "a tool the mapping's side_effect_tools names"
# How an Inspect eval records the protocol's limits, said when its log has none.
UNRECORDED_LIMITS = {
    "max_steps": "Inspect AI records it when the eval runs with a message limit, "
                 "--message-limit or the task's message_limit",
    "timeout_seconds": "Inspect AI records it when the eval runs with a time or working "
                       "limit, --time-limit or --working-limit or the task's time_limit or "
                       "working_limit",
}
STORE_KEY_RULE = "a store key the mapping's side_effect_store_keys names, changed by a store event"


def read_header(header: JSONObject, log_format: str, entry: Optional[str]) -> LogRun:
    """The run from a log's header (an .eval's ``header.json``, a .json log's root; the
    ``_journal/start.json`` of an .eval whose run never wrote its header: a run that did not
    finish)."""
    version = header.get("version")
    if not isinstance(version, int) or isinstance(version, bool):
        raise LogError("import.format_version", "the log has no integer \"version\" (got %s): "
                       "not an Inspect AI log this importer reads" % type_name(version),
                       ("version",), entry)
    if version not in SUPPORTED_VERSIONS:
        raise LogError("import.format_version", "Inspect AI log format version %d is %s; this "
                       "importer reads version %s" % (
                           version, "newer than it knows" if version > max(SUPPORTED_VERSIONS)
                           else "not supported", " and ".join(map(str, SUPPORTED_VERSIONS))),
                       ("version",), entry)
    run = LogRun(log_format, INSPECT_AI.name)
    run.format_version = str(version)
    evaluation = require(header, "eval", dict, (), "every Inspect AI log has", entry)
    where = ("eval",)
    task = require(evaluation, "task", str, where, "names the benchmark", entry)
    config = optional(evaluation, "config", dict, where, entry) or {}
    packages = optional(evaluation, "packages", dict, where, entry) or {}
    stats = optional(header, "stats", dict, (), entry) or {}
    dataset = optional(evaluation, "dataset", dict, where, entry) or {}
    run.harness_version = _text(packages.get("inspect_ai"))
    run.run_id = _text(evaluation.get("eval_id"))
    run.run_started = _text(stats.get("started_at")) or _text(evaluation.get("created"))
    run.model = _text(evaluation.get("model"))
    task_version = evaluation.get("task_version")
    config_path = "eval.config."
    for key, protocol_key in (("epochs", "trial_count"), ("message_limit", "max_steps"),
                              ("time_limit", "timeout_seconds"),
                              ("working_limit", "timeout_seconds"),
                              ("retry_on_error", "retry_limit")):
        value = config.get(key)
        if protocol_key in run.protocol or value is None:
            continue
        if not log_number(value):
            raise LogError("import.field_type", "%s must be a number from 0 to %d, got %s" % (
                quote(key), MAX_LOG_NUMBER,
                type_name(value) if not isinstance(value, (int, float)) or
                isinstance(value, bool) else value), ("eval", "config", key), entry)
        run.protocol[protocol_key] = (value, config_path + key)
        run.protocol_where[protocol_key] = (entry, ("eval", "config", key))
    run.protocol.setdefault("retry_limit", (0, "eval.config.retry_on_error (absent: none)"))
    # No limit in the config: the eval's own (--message-limit, --time-limit), unless its
    # solver limits itself in code, which the log cannot show; never filled by the import.
    run.protocol_unrecorded = {key: why for key, why in UNRECORDED_LIMITS.items()
                               if key not in run.protocol}
    # Inspect runs one epoch unless told otherwise (which the contract refuses: 2 at least).
    run.protocol.setdefault("trial_count", (1, "eval.config.epochs (absent: Inspect's "
                                               "default, 1)"))
    run.status = _text(header.get("status")) or (
        "started" if entry == JOURNAL_START_ENTRY else None)
    run.finished = run.status == RUN_SUCCESS
    _expected(run, evaluation, header, config)
    if config.get("log_samples") is False:
        run.unlogged = ("the run was made with log_samples=False (eval.config.log_samples), "
                        "so its log keeps no sample: run it again with samples logged (the "
                        "default)")
    version_text = _text(task_version) or "0"
    run.defaults = {
        "benchmark_id": task,
        "benchmark_version": version_text,
        "dataset_version": _text(dataset.get("name")) or "%s-samples" % task,
        "protocol_version": "inspect-%s-v%s" % (task, version_text),
        "environment_id": task,
        "toolset_id": "%s-tools" % task,
        "reset_policy": "fresh-sample-state",
    }
    return run


def _expected(run: LogRun, evaluation: JSONObject, header: JSONObject,
              config: JSONObject) -> None:
    """What the run was to hold: ``eval.dataset.sample_ids`` (the samples run, after any
    ``limit`` or ``sample_id``) times the epochs; without ids, ``results.total_samples``."""
    dataset = evaluation.get("dataset")
    ids = dataset.get("sample_ids") if isinstance(dataset, dict) else None
    epochs = run.protocol["trial_count"][0]
    if isinstance(epochs, int) and not isinstance(epochs, bool) and epochs >= 1:
        run.expected_trials = epochs
    if isinstance(ids, list) and all(
            isinstance(item, (str, int)) and not isinstance(item, bool) for item in ids):
        run.expected_ids = list(dict.fromkeys(str(item) for item in ids))
        return
    results = header.get("results")
    total = results.get("total_samples") if isinstance(results, dict) else None
    if isinstance(total, int) and not isinstance(total, bool) and total > 0:
        run.expected_count = total


def _text(value: object) -> Optional[str]:
    """A log value as provenance text: strings as they are, integers as digits, else None."""
    if isinstance(value, str) and value.strip():
        return value
    if isinstance(value, int) and not isinstance(value, bool):
        return str(value)
    return None


class SampleReader:
    """Turns one sample (a decoded JSON object) into a :class:`Trial`, as the mapping says."""

    def __init__(self, settings: Settings, run: LogRun) -> None:
        self.side_effect_tools = settings.side_effect_tools
        self.store_keys = settings.side_effect_store_keys
        self.final_source, self.final_key = settings.final_state(INSPECT_AI)
        self.cost_source, self.cost_scale = settings.cost(INSPECT_AI)
        self.metadata_keys = [(field, settings.metadata_key(field)) for field in (
            "split", "family_id", "slice", "critical", "task_type", "allowed_tools",
            "forbidden_side_effects")]
        self.task = run.defaults["benchmark_id"]
        # A case's fields are read from its first sample only (a log has one per epoch).
        self.cases_read: Set[str] = set()
        self.run = run
        run.side_effect_rule = (EVERY_TOOL_RULE if self.side_effect_tools is None
                                else MAPPED_TOOL_RULE)
        if self.store_keys:
            run.side_effect_rule += "; " + STORE_KEY_RULE
        # What the mapping names is looked for in the log (only when it names any).
        self.watch_tools = settings.side_effect_tools is not None
        self.watch_metadata = bool(settings.get("metadata_keys"))
        self.watch_store = bool(self.store_keys)

    def trial(self, sample: JSONObject, entry: Optional[str], path: Path) -> Trial:
        sample_id = sample.get("id")
        if isinstance(sample_id, bool) or not isinstance(sample_id, (str, int)) or (
                isinstance(sample_id, str) and not sample_id.strip()):
            raise LogError("import.sample_id", "a sample id must be a non-blank string or an "
                           "integer, got %s" % (quote(sample_id) if isinstance(sample_id, str)
                                                else type_name(sample_id)),
                           path + ("id",), entry)
        epoch = sample.get("epoch")
        if isinstance(epoch, bool) or not isinstance(epoch, int) or not (
                1 <= epoch <= MAX_SAFE_INTEGER):
            found = str(epoch) if type(epoch) is int else type_name(epoch)
            raise LogError("import.sample_epoch", "a sample's epoch must be an integer from 1 "
                           "to 2**53 - 1, got %s" % found, path + ("epoch",), entry)
        calls, store_changes = self._events(sample, entry, path)
        tools_used = sorted(set(calls))
        rules = self.run.side_effect_rules
        if self.side_effect_tools is None:
            side_effects = set(tools_used)
            rule = EVERY_TOOL_RULE
        else:
            side_effects = set(self.side_effect_tools.intersection(tools_used))
            rule = MAPPED_TOOL_RULE
        for name in side_effects:
            rules.setdefault(name, rule)
        for name in self.store_keys.intersection(store_changes):
            side_effects.add(name)
            rules.setdefault(name, STORE_KEY_RULE)
        if self.watch_tools:
            self.run.tools_seen.update(calls)
        if self.watch_metadata and isinstance(sample.get("metadata"), dict):
            self.run.metadata_seen.update(sample["metadata"])
        if self.watch_store:
            self.run.store_keys_seen.update(store_changes)
            if isinstance(sample.get("store"), dict):
                self.run.store_keys_seen.update(sample["store"])
        record: JSONObject = {
            "case_id": str(sample_id),
            "trial_id": epoch,
            "status": self._status(sample),
            "final_state": self._final_state(sample, entry, path),
            "side_effects": sorted(side_effects),
            "tools_used": tools_used,
            "latency_ms": self._latency(sample, entry, path),
            "cost_units": self._cost(sample, entry, path),
        }
        case = None
        if record["case_id"] not in self.cases_read:
            self.cases_read.add(record["case_id"])
            case = self._case(sample, entry, path)
        return Trial(record, case, entry, path)

    @staticmethod
    def _status(sample: JSONObject) -> str:
        if sample.get("error"):
            return ERROR
        limit = sample.get("limit")
        if limit:
            kind = limit.get("type") if isinstance(limit, dict) else None
            return TIMEOUT if kind in TIMEOUT_LIMITS else ERROR
        if not sample.get("scores"):
            return UNKNOWN
        return SUCCESS

    def _events(self, sample: JSONObject, entry: Optional[str],
                path: Path) -> Tuple[List[str], Set[str]]:
        """The functions the sample's tools were called with, and the store keys it changed."""
        calls: List[str] = []
        changed = set()
        events = sample.get("events")
        if isinstance(events, list) and events:
            for index, event in enumerate(events):
                if not isinstance(event, dict):
                    continue
                kind = event.get("event")
                if kind == "tool":
                    calls.append(_tool_name(event.get("function"), entry,
                                            path + ("events", index, "function")))
                elif kind == "store" and self.store_keys:
                    for change in items(event.get("changes")):
                        key = _store_key(change)
                        if key is not None:
                            changed.add(key)
                elif kind == "model" and self.watch_tools:
                    for offered in items(event.get("tools")):
                        if isinstance(offered, dict) and isinstance(offered.get("name"), str):
                            self.run.tools_seen.add(offered["name"])
            return calls, changed
        for index, message in enumerate(items(sample.get("messages"))):
            if isinstance(message, dict) and message.get("role") == "assistant":
                for number, call in enumerate(items(message.get("tool_calls"))):
                    if isinstance(call, dict):
                        calls.append(_tool_name(call.get("function"), entry, path + (
                            "messages", index, "tool_calls", number, "function")))
        return calls, changed

    def _final_state(self, sample: JSONObject, entry: Optional[str],
                     path: Path) -> Optional[str]:
        if self.final_source in (SCORE_ANSWER, SCORE_VALUE):
            scores = sample.get("scores")
            if not scores or not isinstance(scores, dict):
                return None  # an unscored sample: its status says so
            if self.final_key is None:
                name = next(iter(scores))
            elif self.final_key in scores:
                name = self.final_key
            else:
                raise LogError("import.missing_field", "the sample has no score %s, which "
                               "the mapping's final_state.key names (it has %s)" % (
                                   quote(self.final_key), ", ".join(
                                       quote(key) for key in sorted(scores))),
                               path + ("scores", self.final_key), entry)
            score = scores[name]
            if not isinstance(score, dict):
                raise LogError("import.field_type", "a score must be an object, got %s" % (
                    type_name(score)), path + ("scores", name), entry)
            field = "answer" if self.final_source == SCORE_ANSWER else "value"
            return state_text(score.get(field), path + ("scores", name, field), entry)
        store = sample.get("store")
        if not isinstance(store, dict):
            raise LogError("import.missing_field", "missing \"store\", which the mapping's "
                           "final_state.source \"store\" needs", path + ("store",), entry)
        key = cast(str, self.final_key)  # a store source has its key (Settings.check_harness)
        return state_text(store.get(key), path + ("store", key), entry)

    @staticmethod
    def _latency(sample: JSONObject, entry: Optional[str],
                 path: Path) -> Optional[Union[int, float]]:
        for key in ("working_time", "total_time"):
            seconds = sample.get(key)
            if seconds is not None:
                if not log_number(seconds):
                    raise LogError("import.field_type", "%s must be a number of seconds from "
                                   "0 to %d" % (quote(key), MAX_LOG_NUMBER), path + (key,),
                                   entry)
                return milliseconds(seconds)
        return None  # neither time recorded: unmeasured (null), never 0

    def _cost(self, sample: JSONObject, entry: Optional[str],
              path: Path) -> Optional[Union[int, float]]:
        usage = sample.get("model_usage") or {}
        if not isinstance(usage, dict):
            raise LogError("import.field_type", "\"model_usage\" must be an object",
                           path + ("model_usage",), entry)
        total: Union[int, float] = 0
        field = "total_tokens" if self.cost_source == TOTAL_TOKENS else "total_cost"
        for model, counts in usage.items():
            value: JSON = counts.get(field) if isinstance(counts, dict) else None
            if log_number(value):  # the common case, without making the error's message
                total += value
                continue
            if isinstance(counts, dict) and counts.get(field) is None:
                return None  # a model without a price (total_cost null): unmeasured
            value = require(counts, field, (int, float), path + ("model_usage", model),
                            "the mapping's cost.source %s needs" % quote(self.cost_source),
                            entry)
            if not log_number(value):
                raise LogError("import.field_type", "%s must be a number from 0 to %d" % (
                    quote(field), MAX_LOG_NUMBER), path + ("model_usage", model, field), entry)
            total += value
        return scaled(total, self.cost_scale, path + ("model_usage",), entry)

    def _case(self, sample: JSONObject, entry: Optional[str], path: Path) -> JSONObject:
        metadata = sample.get("metadata")
        metadata = metadata if isinstance(metadata, dict) else {}
        case = {field: metadata.get(key) for field, key in self.metadata_keys}
        case["initial_state"] = _input_text(sample.get("input"))
        target = sample.get("target")
        target_path = path + ("target",)
        if isinstance(target, list):
            target = target[0] if target else None
            target_path += (0,)
        case["expected_final_state"] = (CORRECT_VALUE if self.final_source == SCORE_VALUE
                                        else state_text(target, target_path, entry))
        case["task"] = self.task
        case["where"] = (entry, path)
        return case


def _tool_name(name: object, entry: Optional[str], path: Path) -> str:
    if not isinstance(name, str) or not name.strip():
        raise LogError("import.field_type", "a tool call's function must be a non-blank "
                       "string, got %s" % type_name(name), path, entry)
    return name


def _store_key(change: object) -> Optional[str]:
    """The top-level store key a JSON Patch operation changes (``/key/...``)."""
    if not isinstance(change, dict) or not isinstance(change.get("path"), str):
        return None
    pointer: str = change["path"]
    parts = pointer.split("/")
    if len(parts) < 2:
        return None
    return parts[1].replace("~1", "/").replace("~0", "~")


def _input_text(value: object) -> Optional[str]:
    if isinstance(value, str):
        return value if value.strip() else None
    if isinstance(value, list):  # chat messages: the first user message's text
        for message in value:
            if isinstance(message, dict) and message.get("role") == "user":
                content = message.get("content")
                if isinstance(content, str) and content.strip():
                    return content
    return None


# -- the two formats ---------------------------------------------------------------------

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
    return run, _eval_trials(_decoded_samples(archive, samples, source), source,
                             SampleReader(settings, run))


def eval_samples(source: LogSource) -> Generator[Tuple[str, JSONObject], None, None]:
    """Each sample of an ``.eval`` log, decoded, with its entry's name, in the order of their
    bytes in the file, read as the import reads them (``bench import --template-log``);
    ContractErrors for a log or an entry that cannot be read."""
    archive, _header, _header_entry, samples = _open_eval(source)
    for entry, sample in _decoded_samples(archive, samples, source):
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


def _decoded_samples(archive: zipfile.ZipFile, samples: List[JSON], source: LogSource
                     ) -> Generator[Tuple[str, Union[JSONObject, ContractErrors]], None, None]:
    """Each sample entry's name and its decoded sample, or the error of an entry that cannot
    be read or decoded (damaged data, a CRC mismatch, not JSON, too large): each entry is
    found by the zip's directory, so the entries after a damaged one are read as well."""
    with archive, open(source.path, "rb") as stream, CollectorPaused():
        for info in samples:
            sample: Union[JSONObject, ContractErrors]
            try:
                data = _read_raw(stream, info, source)
                if data is None:
                    data = _read_entry(archive, info, source)
                sample = decode_json(data, source, info.filename)
            except ContractErrors as failure:
                sample = failure
            yield info.filename, sample


def _eval_trials(samples: Generator[Tuple[str, Union[JSONObject, ContractErrors]], None, None],
                 source: LogSource, reader: SampleReader) -> Trials:
    try:
        for entry, sample in samples:
            if isinstance(sample, ContractErrors):  # this entry's; the next ones are read too
                yield from sample.errors
                continue
            try:
                yield reader.trial(sample, entry, ())
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


def read_json_log(source: LogSource, log: JSONObject,
                  settings: Settings) -> Tuple[LogRun, Trials]:
    """A ``.json`` log, decoded whole: its run, and its trials."""
    try:
        run = read_header(log, INSPECT_JSON, None)
    except LogError as failure:
        raise ContractErrors([source.placed(failure)])
    samples = log.get("samples")
    if samples is None:
        samples = []
    if not isinstance(samples, list):
        raise ContractErrors([source.error("import.field_type", "\"samples\" must be an "
                                           "array, got %s" % type_name(samples), ("samples",))])
    reader = SampleReader(settings, run)
    return run, array_trials(samples, "samples", "sample", source,
                             lambda sample, path: reader.trial(sample, None, path))
