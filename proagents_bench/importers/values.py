"""The values of a log as every reader reads them: a field required or optional of its
kind, an array or none, a time, token count or cost (a number from 0 to
:data:`MAX_LOG_NUMBER`; seconds as milliseconds; a cost times the mapping's scale), a final
state as text, a string the gate can read (no lone surrogate), and the trials of a log's
array. Each refusal is a :class:`~.source.LogError` at the value's JSON path."""

from __future__ import annotations

import json
import math
from typing import Callable, List, Optional, Tuple, Type, TypeVar, Union

from ..contract.shapes import type_name
from ..errors import Path
from ..jsonio import JSON, JSONObject
from ..jsonio.gcpause import CollectorPaused
from ..jsonio.load import MAX_SAFE_INTEGER
from ..text import quote
from .source import MAX_LOG_DEPTH, LogError, LogSource, nested_deeper_than
from .trial import Trial, Trials

_Kind = TypeVar("_Kind")

# The largest time (seconds), token count or cost a log may give: far above any real run
# (31,000 years; a trillion tokens), and in milliseconds still an integer the gate reads
# exactly (below 2**53, I-JSON).
MAX_LOG_NUMBER = 10 ** 12


def encodable(text: str) -> bool:
    """Whether ``text`` is Unicode the gate reads: no lone surrogate (``"\\ud800"``, which
    Python's JSON decoder takes from a log's ``\\u`` escape but is no Unicode character)."""
    try:
        text.encode("utf-8")
        return True
    except UnicodeEncodeError:
        return False


def log_number(value: object) -> bool:
    """Whether ``value`` is a time, token count or cost a log may give: a number (never a
    Boolean) from 0 to MAX_LOG_NUMBER, so NaN, infinities and huge values are refused."""
    return (not isinstance(value, bool) and isinstance(value, (int, float))
            and 0 <= value <= MAX_LOG_NUMBER)


def measured(holder: JSONObject, key: str, path: Path,
             what: str) -> Optional[Union[int, float]]:
    """``holder[key]``, a time, token count or cost of the log (``what``: ``a number of
    seconds``): None when absent or null (not measured: null, never 0); a LogError
    ``import.field_type`` at its path unless it is a number from 0 to MAX_LOG_NUMBER."""
    if holder.get(key) is None:
        return None
    value = require(holder, key, (int, float), path, "the record needs")
    if not log_number(value):
        raise LogError("import.field_type", "%s must be %s from 0 to %d" % (
            quote(key), what, MAX_LOG_NUMBER), path + (key,))
    return value


def items(value: object) -> List[JSON]:
    """A log's array, or none: a field of another type is read as empty (the field is one the
    record does not need, so a value of a later format is not an error)."""
    return value if isinstance(value, list) else []


def require(value: JSONObject, key: str, kind: Union[Type[_Kind], Tuple[Type[_Kind], ...]],
            path: Path, what: str, entry: Optional[str] = None) -> _Kind:
    """``value[key]``, which must be a ``kind`` (bool is never int); a LogError
    ``import.missing_field`` otherwise, naming what needs it."""
    if not isinstance(value, dict) or key not in value or value[key] is None:
        raise LogError("import.missing_field", "missing %s, which %s" % (quote(key), what),
                       path + (key,), entry)
    found = value[key]
    if not isinstance(found, kind) or (isinstance(found, bool) and kind is not bool):
        raise LogError("import.field_type", "%s must be %s, got %s" % (
            quote(key), _kind_name(kind), type_name(found)), path + (key,), entry)
    return found


def optional(value: object, key: str, kind: Union[Type[_Kind], Tuple[Type[_Kind], ...]],
             path: Path, entry: Optional[str] = None) -> Optional[_Kind]:
    """``value[key]`` when present and not null (then it must be a ``kind``), else None."""
    if not isinstance(value, dict) or value.get(key) is None:
        return None
    found = value[key]
    if not isinstance(found, kind) or (isinstance(found, bool) and kind is not bool):
        raise LogError("import.field_type", "%s must be %s, got %s" % (
            quote(key), _kind_name(kind), type_name(found)), path + (key,), entry)
    return found


def _kind_name(kind: object) -> str:
    if kind == (int, float):
        return "a number"
    names = {dict: "an object", list: "an array", str: "a string", int: "an integer",
             float: "a number", bool: "a Boolean"}
    kinds = kind if isinstance(kind, tuple) else (kind,)
    return " or ".join(names.get(item, getattr(item, "__name__", "?")) for item in kinds)


def array_trials(values: List[JSON], key: Union[str, Tuple[str, ...]], noun: str,
                 source: LogSource, trial: Callable[[JSONObject, Path], Trial]) -> Trials:
    """The trials of a log's array ``key`` (a .json log's samples, a results.json's
    simulations; a tuple of keys for an array deeper in the log: promptfoo's
    ``results.results``), each element read by ``trial(element, path)`` with the collector
    paused; an
    element that is not an object (a ``noun``), or one ``trial`` refuses, is yielded as a
    contract error placed at its path (and the next elements are read)."""
    with CollectorPaused():
        prefix = key if isinstance(key, tuple) else (key,)
        for index, value in enumerate(values):
            path = prefix + (index,)
            try:
                if not isinstance(value, dict):
                    raise LogError("import.field_type", "a %s must be an object, got %s" % (
                        noun, type_name(value)), path)
                yield trial(value, path)
            except LogError as failure:
                yield source.placed(failure)


def state_text(value: object, path: Path, entry: Optional[str]) -> Optional[str]:
    """A final state as text: a string as it is (blank: none), a number or a Boolean as JSON
    writes it, any other value as canonical JSON (sorted keys). A value nested more than
    MAX_LOG_DEPTH deep is ``import.field_type`` at ``path``."""
    if value is None:
        return None
    if isinstance(value, str):
        return value if value.strip() else None
    too_deep = LogError("import.field_type", "the value nests more than %d deep: too deep "
                        "to be a final state" % MAX_LOG_DEPTH, path, entry)
    if nested_deeper_than(value, MAX_LOG_DEPTH):  # never left to the recursion limit
        raise too_deep
    try:
        return json.dumps(value, sort_keys=True, ensure_ascii=False, allow_nan=True)
    except RecursionError:  # the stack was deep already
        raise too_deep from None


def milliseconds(seconds: float) -> Union[int, float]:
    """Seconds as milliseconds, to the microsecond (``0.0123`` s: ``12.3``, not
    ``12.299999999999999``)."""
    value = round(seconds * 1000, 3)
    return int(value) if value == int(value) else value


def scaled(value: Union[int, float], scale: Union[int, float], path: Path,
           entry: Optional[str] = None) -> Union[int, float]:
    """A cost times the mapping's scale; an integer stays one, a float has 12 decimals at most
    (sums of floats carry noise the results file should not). A product beyond a float (a
    scale of ``1e400``) is ``import.field_type`` at the cost's ``path``."""
    product = value * scale
    if isinstance(product, int) and product > MAX_SAFE_INTEGER:
        raise LogError("import.field_type", "the cost %s times the mapping's cost.scale is %d, "
                       "beyond 2**53 - 1, which the gate does not read (I-JSON)"
                       % (value, product), path, entry)
    if isinstance(product, int):
        return product
    if not math.isfinite(product):
        raise LogError("import.field_type", "the cost %s times the mapping's cost.scale is not "
                       "a finite number" % value, path, entry)
    product = round(product, 12)
    return int(product) if product == int(product) else product


def nonblank(value: object) -> Optional[str]:
    """A log's string that is not blank; None for anything else (absent, null, another type,
    blank: not given)."""
    return value if isinstance(value, str) and value.strip() else None
