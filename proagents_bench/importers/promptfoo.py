"""promptfoo results: the file ``promptfoo eval --output results.json`` writes (results
format version 3: ``evalId``, ``results`` with ``version``, ``timestamp``, ``prompts``,
``results`` and ``stats``, ``config``, ``metadata``, ``runtimeOptions``), decoded whole (its
format has no smaller unit).

One file is one system: the results of one provider and one prompt (a file of several is
``import.several_systems``: run each system to its own file). Each result becomes one trial
(none is dropped). ``repeat: N`` writes one result per repetition of each test, with no
repetition index (each repetition even has its own ``testIdx``), so the results are grouped
by test case, the test's ``description`` being the case id, and numbered in file order: the
first result of a test is trial 1, the next trial 2. Two results of one description but
other ``vars`` or ``assert`` are two tests of one name, ``import.sample_id``.

The status is ``error`` for a provider error (``failureReason`` 2, or, in files without
``failureReason``, an ``error`` without a ``gradingResult``), else ``success``: a failed
assertion is a trial that ran and failed; a provider error is the infrastructure's (the rows
of :mod:`proagents_bench.contract.origins`). The final state is ``passed`` when promptfoo's
``success`` is true (every assertion passed), else ``failed`` (``null`` for a provider
error: nothing was answered), so a case expecting ``passed`` succeeds exactly when every
assertion passed; or, by the mapping's ``final_state.source`` ``output``, the provider's
output. ``latency_ms`` is ``latencyMs``; ``cost_units`` the response's total token usage, or
the result's ``cost``. A results file records no tool calls: no tools, no side effects.

The expected test cases are the config's ``tests`` when it lists each as an object with a
``description`` (else the tests the results hold), each ``repeat`` times; a file whose
``stats`` count more results than it holds did not finish writing them.
"""

from __future__ import annotations

import hashlib
import json
from typing import TYPE_CHECKING, Dict, List, Optional, Tuple, TypeVar, Union

from ..contract.harnesses import ASSERTIONS, PROMPTFOO, PROMPTFOO_JSON, RESULT_COST
from ..contract.origins import PROMPTFOO_ROWS, origin_of
from ..contract.shapes import type_name
from ..contract.vocabulary import ERROR, FAILED, PASSED, SUCCESS
from ..errors import ContractErrors, format_path
from ..text import quote
from .settings import Settings
from .source import LogError, LogSource
from .trial import Locator, LogRun, Trial, Trials
from .values import (MAX_LOG_NUMBER, array_trials, items, log_number, measured, nonblank,
                     optional, require, scaled)

if TYPE_CHECKING:  # for annotations only
    from ..errors import Path
    from ..jsonio import JSON, JSONObject

_Name = TypeVar("_Name")

# The results format versions read (promptfoo's ``results.version``).
SUPPORTED_VERSIONS = (3,)
# promptfoo's ResultFailureReason: NONE 0, ASSERT 1, ERROR 2 (a provider error).
PROVIDER_ERROR = 2
CASE_FIELDS = ("split", "family_id", "slice", "critical", "task_type", "allowed_tools",
               "forbidden_side_effects")
TASK = "promptfoo"


def read_results(source: LogSource, log: JSONObject,
                 settings: Settings) -> Tuple[LogRun, Trials]:
    """A promptfoo ``results.json``, decoded whole: its run, and its trials."""
    try:
        run, results = _header(log)
    except LogError as failure:
        raise ContractErrors([source.placed(failure)])
    reader = ResultReader(settings, run)
    return run, array_trials(results, ("results", "results"), "result", source,
                             reader.trial)


def _header(log: JSONObject) -> Tuple[LogRun, List[JSON]]:
    summary = require(log, "results", dict, (), "holds the results")
    version = summary.get("version")
    if isinstance(version, bool) or version not in SUPPORTED_VERSIONS:
        raise LogError("import.format_version", "promptfoo results version %s is not one this "
                       "importer reads (%s)" % (
                           quote(str(version)) if version is not None else "missing",
                           ", ".join(map(str, SUPPORTED_VERSIONS))), ("results", "version"))
    results = require(summary, "results", list, ("results",), "holds one result per test "
                      "and repetition")
    run = LogRun(PROMPTFOO_JSON, PROMPTFOO.name)
    run.format_version = str(version)
    metadata = optional(log, "metadata", dict, ()) or {}
    promptfoo_version = metadata.get("promptfooVersion")
    run.harness_version = promptfoo_version if isinstance(promptfoo_version, str) else None
    run.run_id = nonblank(log.get("evalId"))
    run.run_started = nonblank(summary.get("timestamp"))
    config = optional(log, "config", dict, ()) or {}
    options = optional(config, "evaluateOptions", dict, ("config",)) or {}
    runtime = optional(log, "runtimeOptions", dict, ()) or {}
    repeat_path: Tuple[str, ...] = ("runtimeOptions", "repeat")
    repeat = optional(runtime, "repeat", int, ("runtimeOptions",))
    if repeat is None:
        repeat_path = ("config", "evaluateOptions", "repeat")
        repeat = optional(options, "repeat", int, ("config", "evaluateOptions"))
    if repeat is None:
        run.protocol["trial_count"] = (1, "promptfoo's default repeat, 1")
    else:
        run.protocol["trial_count"] = (repeat, ".".join(repeat_path))
        run.protocol_where["trial_count"] = (None, repeat_path)
    timeout = optional(options, "timeoutMs", (int, float), ("config", "evaluateOptions"))
    if timeout is not None and timeout > 0:
        if not log_number(timeout):
            raise LogError("import.field_type", "\"timeoutMs\" must be a number of "
                           "milliseconds from 0 to %d" % MAX_LOG_NUMBER,
                           ("config", "evaluateOptions", "timeoutMs"))
        seconds = timeout / 1000
        run.protocol["timeout_seconds"] = (int(seconds) if seconds == int(seconds) else
                                           seconds, "config.evaluateOptions.timeoutMs / 1000")
        run.protocol_where["timeout_seconds"] = (None, ("config", "evaluateOptions",
                                                        "timeoutMs"))
    else:
        run.protocol_unrecorded["timeout_seconds"] = (
            "promptfoo records it when the config sets evaluateOptions.timeoutMs, never a "
            "timeout set by the PROMPTFOO_EVAL_TIMEOUT_MS environment variable")
    run.protocol["max_steps"] = (1, "a promptfoo test is one provider call")
    run.protocol["retry_limit"] = (0, "promptfoo does not record retries: 0 by default")
    run.model = _system(results)
    tests = _tests_digest(results)
    run.defaults = {
        "benchmark_id": "promptfoo-eval",
        "benchmark_version": tests,
        "dataset_version": "promptfoo-%s" % tests,
        "protocol_version": "promptfoo-%s" % tests,
        "environment_id": "promptfoo",
        "toolset_id": "promptfoo-no-tools",
        "reset_policy": "fresh-provider-call",
    }
    config_tests = items(config.get("tests"))
    listed = [test.get("description") for test in config_tests if isinstance(test, dict)]
    names = [name for name in listed if isinstance(name, str) and name.strip()]
    if listed and len(names) == len(config_tests):  # every test named by its description
        run.expected_ids = list(dict.fromkeys(names))
    else:
        # The tests come from a file or a generator: the ones the results hold.
        described = [_description(result) for result in results]
        run.expected_ids = list(dict.fromkeys(name for name in described if name))
    run.expected_trials = repeat if repeat is not None and repeat >= 1 else 1
    stats = summary.get("stats")
    counted = [stats.get(key) for key in ("successes", "failures", "errors")] if isinstance(
        stats, dict) else []
    counts = [count for count in counted
              if isinstance(count, int) and not isinstance(count, bool)]
    if counted and len(counts) == len(counted) and sum(counts) > len(results):
        run.finished = False
        run.status = "%d of the %d results its stats count" % (len(results), sum(counts))
    run.side_effect_rule = "none: a promptfoo results file records no tool calls"
    return run, results


def _description(result: object) -> Optional[str]:
    test = result.get("testCase") if isinstance(result, dict) else None
    description = test.get("description") if isinstance(test, dict) else None
    return description if isinstance(description, str) and description.strip() else None


def _system(results: List[JSON]) -> Optional[str]:
    """The provider's label (else its id) and prompt of the results: one system per file
    (``import.several_systems`` otherwise); None for a file without results."""
    systems: Dict[str, int] = {}
    prompts: Dict[object, int] = {}
    for index, result in enumerate(results):
        if not isinstance(result, dict):
            continue
        provider = result.get("provider")
        name = None
        if isinstance(provider, dict):
            name = nonblank(provider.get("label")) or nonblank(provider.get("id"))
        elif isinstance(provider, str):
            name = nonblank(provider)
        if name is not None:
            systems.setdefault(name, index)
        prompt = result.get("promptId", result.get("promptIdx"))
        if isinstance(prompt, (str, int)) and not isinstance(prompt, bool):
            prompts.setdefault(prompt, index)
    _one(systems, "providers", "provider")
    _one(prompts, "prompts", "promptId")
    return next(iter(systems), None)


def _one(found: Dict[_Name, int], what: str, key: str) -> None:
    """``import.several_systems`` when the results name more than one of ``found`` (each
    name mapped to the first result that names it)."""
    if len(found) > 1:
        names = sorted(found, key=lambda name: found[name])
        raise LogError("import.several_systems", "the results are of %d %s (%s): a "
                       "results file is one system; run each provider and prompt to a "
                       "file of its own (or filter them with promptfoo's --filter-"
                       "providers and --filter-prompts)" % (
                           len(found), what, ", ".join(quote(str(name))
                                                       for name in names[:5])),
                       ("results", "results", found[names[1]], key))


def _test_key(test: JSONObject) -> str:
    """A test as its description, ``vars`` and ``assert`` (canonical JSON), which its
    repetitions share."""
    return json.dumps([test.get("description"), test.get("vars"), test.get("assert")],
                      sort_keys=True, separators=(",", ":"), default=str)


def _tests_digest(results: List[JSON]) -> str:
    """12 hex digits of the SHA-256 of the tests the results ran, whatever their order."""
    keys = sorted({_test_key(result["testCase"]) for result in results
                   if isinstance(result, dict) and isinstance(result.get("testCase"), dict)})
    return hashlib.sha256("\n".join(keys).encode("utf-8", "surrogatepass")).hexdigest()[:12]


class ResultReader:
    """Turns one result into a :class:`Trial`, numbering the results of each test in file
    order."""

    def __init__(self, settings: Settings, run: LogRun) -> None:
        self.final_source, _key = settings.final_state(PROMPTFOO)
        self.cost_source, self.cost_scale = settings.cost(PROMPTFOO)
        self.metadata_keys = [settings.metadata_key(field) for field in CASE_FIELDS]
        self.run = run
        self.trace_refs = settings.trace_refs
        self.counts: Dict[str, int] = {}
        self.tests: Dict[str, Tuple[str, Path]] = {}

    def trial(self, result: JSONObject, path: Path) -> Trial:
        test = require(result, "testCase", dict, path, "names the test")
        description = test.get("description")
        if not isinstance(description, str) or not description.strip():
            raise LogError("import.sample_id", "a result's test has no description, which is "
                           "its case id: give every test a description", path + (
                               "testCase", "description"))
        key = _test_key(test)
        first = self.tests.setdefault(description, (key, path))
        if first[0] != key:
            raise LogError("import.sample_id", "two tests have the description %s (this one "
                           "and the test of %s) but other vars or assertions: a description "
                           "names one test" % (quote(description), format_path(first[1])),
                           path + ("testCase", "description"))
        number = self.counts.get(description, 0) + 1
        self.counts[description] = number
        error = _is_provider_error(result, path)
        metadata = test.get("metadata")
        if isinstance(metadata, dict):
            self.run.metadata_seen.update(metadata)
        record = {
            "case_id": description,
            "trial_id": number,
            "status": ERROR if error else SUCCESS,
            "final_state": self._final_state(result, path, error),
            "side_effects": [],
            "tools_used": [],
            "latency_ms": self._latency(result, path),
            "cost_units": self._cost(result, path),
        }
        locator = None
        if self.trace_refs:  # the result's row as promptfoo's viewer numbers it, and its place
            index = path[-1] if isinstance(path[-1], int) else None
            row = result.get("testIdx")
            locator = Locator(PROMPTFOO.trace_unit, str(row) if isinstance(row, int) and not (
                isinstance(row, bool)) else str(index), index=index)
        # Every result gives its test's fields (the first readable one makes the case).
        return Trial(record, self._case(metadata, path), None, path, locator=locator,
                     origin=origin_of(PROMPTFOO_ROWS, str(PROVIDER_ERROR) if error else None))

    def _final_state(self, result: JSONObject, path: Path, error: bool) -> Optional[str]:
        if error:
            return None  # the provider answered nothing
        if self.final_source == ASSERTIONS:
            success = require(result, "success", bool, path, "says whether every assertion "
                              "passed")
            return PASSED if success else FAILED
        response = result.get("response")
        output = response.get("output") if isinstance(response, dict) else None
        if output is None or isinstance(output, str):
            return output
        return json.dumps(output, sort_keys=True, separators=(",", ":"), ensure_ascii=False)

    @staticmethod
    def _latency(result: JSONObject, path: Path) -> Optional[Union[int, float]]:
        latency = measured(result, "latencyMs", path, "a number of milliseconds")
        return latency if latency is None or isinstance(latency, int) else round(latency, 3)

    def _cost(self, result: JSONObject, path: Path) -> Optional[Union[int, float]]:
        holder: object
        if self.cost_source == RESULT_COST:
            holder, where = result, path
            key = "cost"
        else:
            response = result.get("response")
            usage = response.get("tokenUsage") if isinstance(response, dict) else None
            holder, where = (usage, path + ("response", "tokenUsage")) if isinstance(
                usage, dict) and usage.get("total") is not None else (
                result.get("tokenUsage"), path + ("tokenUsage",))
            key = "total"
        if not isinstance(holder, dict) or holder.get(key) is None:
            return None  # not measured: null, never 0
        value = holder[key]
        if not log_number(value):
            raise LogError("import.field_type", "%s must be a number from 0 to %d, got %s" % (
                quote(key), MAX_LOG_NUMBER, type_name(value) if not isinstance(
                    value, (int, float)) or isinstance(value, bool) else value),
                where + (key,))
        return scaled(value, self.cost_scale, where + (key,))

    def _case(self, metadata: object, path: Path) -> JSONObject:
        fields = metadata if isinstance(metadata, dict) else {}
        case = {field: fields.get(key) for field, key in zip(CASE_FIELDS, self.metadata_keys)}
        case.update({
            "initial_state": None,
            "expected_final_state": PASSED if self.final_source == ASSERTIONS else None,
            "task": TASK,
            "where": (None, path + ("testCase",)),
        })
        return case


def _is_provider_error(result: JSONObject, path: Path) -> bool:
    reason = result.get("failureReason")
    if reason is not None:
        if not isinstance(reason, int) or isinstance(reason, bool):
            raise LogError("import.field_type", "\"failureReason\" must be an integer, got %s"
                           % type_name(reason), path + ("failureReason",))
        return reason == PROVIDER_ERROR
    error = result.get("error")
    if not isinstance(error, str):
        return False
    return bool(error.strip()) and result.get("gradingResult") is None
