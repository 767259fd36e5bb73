"""A JSON-lines log: the generic format of every harness without a reader of its own (an
in-house harness, AgentLab, OSWorld, HELM ...). One JSON object per line, one line per trial,
in UTF-8; lines of only whitespace are skipped. The mapping's ``lines`` (a v2 mapping,
``contract/mapping.py``) says where each line gives each record field, as JSON Pointers
(RFC 6901): the case id, the trial's number, the status through a table of the log's values,
the final state or how success is decided, the tools, the side effects, the latency, the
cost, and the case's fields for a built cases file.

The log is read one line at a time (memory: one line plus the records). Every error names
the log, the line (counted from 1) and, where the line has one, the JSON path of the field
inside the line's object. A log cannot say which cases its run was to hold: the expected
cases are the ones its lines name, each ``protocol.trial_count`` times (a case with fewer
trials is ``import.incomplete_run``), and ``--cases`` checks that every test case is there.
The protocol comes from the mapping; the system's name from ``lines.system_id`` (the same
on every line) or the command line.
"""

from __future__ import annotations

import hashlib
import json
from decimal import Decimal
from typing import TYPE_CHECKING, BinaryIO, Dict, Iterator, List, Optional, Tuple, Union

from ..contract.harnesses import JSON_LINES, JSONL
from ..contract.shapes import type_name
from ..contract.vocabulary import FAILED, PASSED, SUCCESS
from ..errors import ContractErrors, PathStep
from ..jsonio.gcpause import CollectorPaused
from ..jsonio.load import MAX_SAFE_INTEGER, nesting_ok
from ..text import quote
from .settings import Settings
from .source import (MAX_LINE_BYTES, MAX_LOG_DEPTH, ON_PYPY, LogError, LogSource, bounded_int,
                     invalid_utf8_at)
from .trial import Locator, LogRun, Trial, Trials
from .values import MAX_LOG_NUMBER, log_number, scaled

if TYPE_CHECKING:  # for annotations only
    from ..errors import Path
    from ..jsonio import JSONObject

CASE_FIELDS = ("split", "family_id", "slice", "critical", "task_type", "allowed_tools",
               "forbidden_side_effects")
TASK = "jsonl"
MISSING = object()


def read_lines(source: LogSource, value: Optional[JSONObject],
               settings: Settings) -> Tuple[LogRun, Trials]:
    """A JSON-lines log (``value`` is None): its run, and its trials one line at a time."""
    lines = settings.get("lines")
    if not isinstance(lines, dict):  # recognition reads this format only with ``lines``
        raise ContractErrors([source.error("import.lines_mapping", "a JSON-lines log needs "
                                           "the mapping's lines")])
    run = LogRun(JSONL, JSON_LINES.name)
    run.defaults = {"benchmark_id": "jsonl", "benchmark_version": "0",
                    "dataset_version": "jsonl-cases"}
    run.expected_ids = []  # the cases the lines name, in order, filled as they are read
    reader = LineReader(lines, settings, run)
    if "system_id" in lines:
        first = _first_object(source)
        if first is not None:
            found = resolve(first[1], lines["system_id"])
            if isinstance(found, str) and found.strip():
                run.model = found
                reader.system = found
    if "side_effects" in lines:
        run.side_effect_rule = "the line's side effects (the mapping's lines.side_effects)"
    elif settings.side_effect_tools is not None:
        run.side_effect_rule = "a tool the mapping's side_effect_tools names"
    else:
        run.side_effect_rule = "none: the mapping names no side effects"
    return run, _trials(source, reader)


def _lines(stream: BinaryIO) -> Iterator[Tuple[int, bytes]]:
    """(line number, bytes) of every line of the log, each at most MAX_LINE_BYTES (a longer
    one is given cut, with a byte more than the limit)."""
    number = 0
    while True:
        data = stream.readline(MAX_LINE_BYTES + 1)
        if not data:
            return
        number += 1
        yield number, data
        while len(data) > MAX_LINE_BYTES and not data.endswith(b"\n"):
            data = stream.readline(MAX_LINE_BYTES + 1)  # the rest of a line too long


def _first_object(source: LogSource) -> Optional[Tuple[int, JSONObject]]:
    """The first line that holds something, decoded, when it is an object."""
    with open(source.path, "rb") as stream:
        for number, data in _lines(stream):
            if data.strip():
                try:
                    return number, _decode(data, number)
                except LogError:
                    return None
    return None


def _decode(data: bytes, number: int) -> JSONObject:
    """One line's object; a LogError at the line otherwise."""
    if len(data) > MAX_LINE_BYTES:
        raise LogError("import.too_large", "the line is more than %d bytes, the limit for "
                       "one trial" % MAX_LINE_BYTES, line=number)
    try:
        text = data.decode("utf-8-sig" if number == 1 else "utf-8")
    except UnicodeDecodeError as problem:
        _line, column, byte = invalid_utf8_at(problem)  # the line holds no newline but its last
        raise LogError("import.json", "the line is not valid UTF-8: invalid or incomplete byte "
                       "sequence starting with 0x%02X at byte %d of the line" % (
                           byte, problem.start + 1 + len(data) - len(problem.object)),
                       line=number, column=column)
    if ON_PYPY and not nesting_ok(data, MAX_LOG_DEPTH):
        raise LogError("import.json", "not valid JSON: nested more than %d deep"
                       % MAX_LOG_DEPTH, line=number)
    try:
        value = json.loads(text, parse_int=bounded_int)
    except json.JSONDecodeError as problem:
        raise LogError("import.json", "not valid JSON: %s" % problem.msg, line=number,
                       column=problem.colno)
    except RecursionError:
        raise LogError("import.json", "not valid JSON: nested too deeply", line=number)
    if not isinstance(value, dict):
        raise LogError("import.field_type", "a line must be a JSON object (one trial), got %s"
                       % type_name(value), line=number)
    return value


def _trials(source: LogSource, reader: "LineReader") -> Trials:
    with open(source.path, "rb") as stream, CollectorPaused():
        for number, data in _lines(stream):
            if not data.strip():
                continue
            try:
                trial = reader.trial(_decode(data, number), number)
                if reader.trace_refs:  # the line's own bytes: what its trace would be read from
                    trial.locator = Locator(JSON_LINES.trace_unit, str(number),
                                            sha256=hashlib.sha256(data).hexdigest())
                yield trial
            except LogError as failure:  # this line's error; the next lines are read too
                failure.line = number
                yield source.placed(failure)


def pointer_path(pointer: str) -> Tuple[str, ...]:
    """A JSON Pointer's reference tokens, unescaped (RFC 6901: ``~1`` is ``/``, ``~0``
    ``~``)."""
    return tuple(token.replace("~1", "/").replace("~0", "~")
                 for token in pointer.split("/")[1:])


def resolve(value: object, pointer: str) -> object:
    """The value ``pointer`` names in ``value``, or :data:`MISSING`. An array is indexed by
    a token of digits without a leading zero."""
    for token in pointer_path(pointer):
        if isinstance(value, dict):
            if token not in value:
                return MISSING
            value = value[token]
        elif isinstance(value, list):
            if not token.isdigit() or (token != "0" and token.startswith("0")) or (
                    int(token) >= len(value)) or not token.isascii():
                return MISSING
            value = value[int(token)]
        else:
            return MISSING
    return value


def _path(pointer: str, value: object) -> Tuple[PathStep, ...]:
    """The JSON path of ``pointer`` in ``value`` (array indices as integers), for errors."""
    steps: List[PathStep] = []
    for token in pointer_path(pointer):
        if isinstance(value, list) and token.isdigit():
            steps.append(int(token))
            index = int(token)
            value = value[index] if index < len(value) else None
        else:
            steps.append(token)
            value = value.get(token) if isinstance(value, dict) else None
    return tuple(steps)


def _same(value: object, wanted: object) -> bool:
    """``value`` (a line's) is ``wanted`` (the mapping's ``equals``): strings and Booleans
    by identity of type and value, numbers by exact value (never a Boolean)."""
    if isinstance(wanted, bool) or isinstance(value, bool):
        return value is wanted
    if isinstance(wanted, (int, float, Decimal)):
        return isinstance(value, (int, float)) and _exact(value) == _exact(wanted)
    return value == wanted


def _exact(number: Union[int, float, Decimal]) -> Decimal:
    return Decimal(repr(number)) if isinstance(number, float) else Decimal(number)


class LineReader:
    """Turns one line's object into a :class:`Trial`, as the mapping's ``lines`` says."""

    def __init__(self, lines: JSONObject, settings: Settings, run: LogRun) -> None:
        self.lines = lines
        self.run = run
        self.first_trial: int = lines.get("first_trial", 1)
        self.system: Optional[str] = None
        self.side_effect_tools = settings.side_effect_tools
        self.trace_refs = settings.trace_refs
        self.cost_scale = settings.cost(JSON_LINES)[1]
        self.metadata_keys = [settings.metadata_key(field) for field in CASE_FIELDS]
        status = lines.get("status")
        self.status_values: Optional[Dict[str, str]] = (
            dict(status["values"]) if isinstance(status, dict) else None)
        self.cases: Dict[str, None] = {}

    def field(self, line: JSONObject, key: str) -> Tuple[object, Path]:
        """The value the mapping's ``lines.KEY`` points at (MISSING when the line lacks it)
        and its JSON path in the line."""
        pointer = self.lines[key] if key in self.lines else None
        if isinstance(pointer, dict):
            pointer = pointer["pointer"]
        if pointer is None:
            return MISSING, ()
        return resolve(line, pointer), _path(pointer, line)

    def trial(self, line: JSONObject, number: int) -> Trial:
        """The trial of the log's line ``number``."""
        case_id = self._case_id(line)
        trial_id = self._trial_id(line)
        self._check_system(line)
        if case_id not in self.cases:
            self.cases[case_id] = None
            expected_ids = self.run.expected_ids
            if expected_ids is not None:  # read_lines gives the run its list
                expected_ids.append(case_id)
        tools = self._names(line, "tools_used")
        self.run.tools_seen.update(tools)
        if "side_effects" in self.lines:
            effects = self._names(line, "side_effects")
        elif self.side_effect_tools is not None:
            effects = sorted(self.side_effect_tools.intersection(tools))
        else:
            effects = []
        for name in effects:
            self.run.side_effect_rules.setdefault(name, self.run.side_effect_rule)
        record = {
            "case_id": case_id,
            "trial_id": trial_id,
            "status": self._status(line),
            "final_state": self._final_state(line),
            "side_effects": effects,
            "tools_used": tools,
            "latency_ms": self._number(line, "latency_ms"),
            "cost_units": self._number(line, "cost"),
        }
        return Trial(record, self._case(line), None, (), number)

    def _case_id(self, line: JSONObject) -> str:
        value, path = self.field(line, "case_id")
        if value is MISSING or value is None:
            raise LogError("import.missing_field", "the line has no case id at %s (the "
                           "mapping's lines.case_id)" % quote(self.lines["case_id"]), path)
        if isinstance(value, bool) or not isinstance(value, (str, int)) or (
                isinstance(value, str) and not value.strip()):
            raise LogError("import.sample_id", "a case id must be a non-blank string or an "
                           "integer, got %s" % (quote(value) if isinstance(value, str)
                                                else type_name(value)), path)
        return str(value)

    def _trial_id(self, line: JSONObject) -> int:
        value, path = self.field(line, "trial_id")
        if value is MISSING or value is None:
            raise LogError("import.missing_field", "the line has no trial number at %s (the "
                           "mapping's lines.trial_id)" % quote(self.lines["trial_id"]), path)
        if isinstance(value, bool) or not isinstance(value, int):
            raise LogError("import.sample_epoch", "a trial number must be an integer, got %s"
                           % type_name(value), path)
        trial_id = value + 1 - self.first_trial
        if not 1 <= trial_id < MAX_SAFE_INTEGER:
            raise LogError("import.sample_epoch", "a trial number must be an integer from %d "
                           "to 2**53 - %d, got %d" % (self.first_trial, 1 + self.first_trial,
                                                      value), path)
        return trial_id

    def _check_system(self, line: JSONObject) -> None:
        if "system_id" not in self.lines:
            return
        value, path = self.field(line, "system_id")
        if not isinstance(value, str) or not value.strip():
            raise LogError("import.system_id", "the line names no system at %s (the "
                           "mapping's lines.system_id): a non-blank string" % quote(
                               self.lines["system_id"]), path)
        if self.system is not None and value != self.system:
            raise LogError("import.system_id", "the line is of system %s, the log's first "
                           "line of %s: a log is one system" % (quote(value),
                                                                 quote(self.system)), path)

    def _status(self, line: JSONObject) -> str:
        if self.status_values is None:
            return SUCCESS
        value, path = self.field(line, "status")
        key = value if isinstance(value, str) else json.dumps(
            None if value is MISSING else value, sort_keys=True, separators=(",", ":"))
        status = self.status_values.get(key)
        if status is None:
            raise LogError("import.status_value", "the status %s is not one the mapping's "
                           "lines.status.values names (%s)" % (
                               quote(key), ", ".join(map(quote, sorted(self.status_values)))),
                           path)
        return status

    def _final_state(self, line: JSONObject) -> Optional[str]:
        if "success" in self.lines:
            test = self.lines["success"]
            value, path = self.field(line, "success")
            if value is MISSING or value is None:
                return None  # not known
            if "at_least" in test:
                if isinstance(value, bool) or not isinstance(value, (int, float)) or (
                        value != value):
                    raise LogError("import.field_type", "the success value must be a number "
                                   "(lines.success.at_least), got %s" % type_name(value), path)
                return PASSED if _exact(value) >= _exact(test["at_least"]) else FAILED
            return PASSED if _same(value, test.get("equals", True)) else FAILED
        value, path = self.field(line, "final_state")
        if value is MISSING or value is None:
            return None
        if not isinstance(value, str):
            raise LogError("import.field_type", "the final state must be a string or null, "
                           "got %s" % type_name(value), path)
        return value

    def _names(self, line: JSONObject, key: str) -> List[str]:
        value, path = self.field(line, key)
        if value is MISSING or value is None:
            return []
        if not isinstance(value, list):
            raise LogError("import.field_type", "%s must be an array of strings, got %s" % (
                key, type_name(value)), path)
        for index, name in enumerate(value):
            if not isinstance(name, str) or not name.strip():
                raise LogError("import.field_type", "%s must hold non-blank strings, got %s"
                               % (key, type_name(name)), path + (index,))
        return sorted(set(value))

    def _number(self, line: JSONObject, key: str) -> Optional[Union[int, float]]:
        value, path = self.field(line, key)
        if value is MISSING or value is None:
            return None  # not measured: null, never 0
        if not log_number(value) or not isinstance(value, (int, float)):  # the one means both
            raise LogError("import.field_type", "%s must be a number from 0 to %d, got %s" % (
                key, MAX_LOG_NUMBER, value if isinstance(value, (int, float)) and not (
                    isinstance(value, bool)) else type_name(value)), path)
        if key == "cost":
            return scaled(value, self.cost_scale, path)
        return value if isinstance(value, int) else round(value, 3)

    def _case(self, line: JSONObject) -> JSONObject:
        metadata, _path_of = self.field(line, "metadata")
        fields = metadata if isinstance(metadata, dict) else {}
        if isinstance(metadata, dict):
            self.run.metadata_seen.update(metadata)
        expected, _where = self.field(line, "expected_final_state")
        if expected is MISSING or not isinstance(expected, str):
            expected = PASSED if "success" in self.lines else None
        case = {field: fields.get(key) for field, key in zip(CASE_FIELDS, self.metadata_keys)}
        case.update({"initial_state": None, "expected_final_state": expected, "task": TASK,
                     "where": (None, ()),
                     "expected_from": ("the line gives no expected final state (name it in "
                                       "the mapping's lines.expected_final_state, or decide "
                                       "success with lines.success)", ())})
        return case

