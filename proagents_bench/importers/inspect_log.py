"""Inspect AI logs, log format version 2: the header both formats share and a sample as a
trial; a ``.json`` log (the header with a ``samples`` array) is read here, whole (its format
has no smaller unit), an ``.eval`` log (a zip) by :mod:`.inspect_eval`.

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

from typing import List, Optional, Set, Tuple, Union, cast

from ..contract.harnesses import (INSPECT_AI, INSPECT_JSON, SCORE_ANSWER, SCORE_VALUE,
                                  TOTAL_TOKENS)
from ..contract.origins import INSPECT_ERROR, INSPECT_ROWS, INSPECT_TIMEOUT_LIMITS, origin_of
from ..contract.shapes import type_name
from ..contract.vocabulary import ERROR, SUCCESS, TIMEOUT, UNKNOWN
from ..errors import ContractErrors, Path
from ..jsonio import JSON, JSONObject
from ..jsonio.load import MAX_SAFE_INTEGER
from ..text import quote
from .settings import Settings
from .source import LogError, LogSource
from .trial import Locator, LogRun, Trial, Trials
from .values import (MAX_LOG_NUMBER, array_trials, items, log_number, milliseconds, optional,
                     require, scaled, state_text)

# The log format versions read (Inspect's ``version``; 2 since 2024). A newer major version
# may have moved what the importer reads, so it is refused rather than misread.
SUPPORTED_VERSIONS = (2,)
# The header of a run that never wrote its header.json: its journal's start (a run that did
# not finish).
JOURNAL_START_ENTRY = "_journal/start.json"
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
        self.trace_refs = settings.trace_refs

    def trial(self, sample: JSONObject, entry: Optional[str], path: Path,
              digest: Optional[str] = None) -> Trial:
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
        status, origin = self._outcome(sample)
        record: JSONObject = {
            "case_id": str(sample_id),
            "trial_id": epoch,
            "status": status,
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
        locator = None
        if self.trace_refs:  # an .eval's entry and its digest; a .json log's sample index
            index = path[-1] if path and isinstance(path[-1], int) else None
            locator = Locator(INSPECT_AI.trace_unit, record["case_id"], epoch, index, entry,
                              digest)
        return Trial(record, case, entry, path, locator=locator,
                     origin=origin)

    @staticmethod
    def _outcome(sample: JSONObject) -> Tuple[str, Optional[str]]:
        """The sample's status and origin (the rows of contract/origins.py)."""
        if sample.get("error"):
            return ERROR, INSPECT_ERROR.origin
        limit = sample.get("limit")
        if limit:
            kind = limit.get("type") if isinstance(limit, dict) else None
            return TIMEOUT if kind in INSPECT_TIMEOUT_LIMITS else ERROR, origin_of(INSPECT_ROWS, kind)
        if not sample.get("scores"):
            return UNKNOWN, None
        return SUCCESS, None

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
