"""One system's ``trial_results``, kept as graded records until they are written.

The per-trial evidence is the largest part of a decision: a million trials make a million
small objects of seven keys (half a gigabyte as Python dicts) and most of the rendering time.
:class:`TrialRows` keeps only what is already in memory (the records, in canonical order, and
one byte of check bits per trial) and offers the list two ways:

- :meth:`TrialRows.to_list` builds the list of dicts, for whoever reads the document as data
  (``Evaluation.document`` does, on first use; the reports do);
- :meth:`TrialRows.json_pieces` writes the list's JSON text straight from the records, in
  batches, for :mod:`proagents_bench.jsonio.dump`: each trial is one ``%`` template (one per
  combination of check bits, sixteen in all) filled with five texts made by C-level ``map``
  over columns. The templates are written by :mod:`proagents_bench.jsonio.dump` itself from a
  trial whose varying fields are slots, so the layout is the writer's own; the fillers are
  the very functions it uses (``encode_basestring_ascii``, ``int.__repr__``,
  ``float.__repr__``), so the text equals ``jsondump`` of :meth:`to_list` byte for byte, which
  the tests check.
"""

from __future__ import annotations

import math
from decimal import Decimal
from fractions import Fraction
from operator import itemgetter
from typing import Dict, Iterator, List, Optional, Sequence, Union, cast

from ..evaluation.grading import ALL_CHECKS, CHECK_BITS
from ..jsonio import JSON, JSONObject
from ..jsonio import dump as jsondump

# Rows written per batch: bounds the memory of one batch's columns and texts.
BATCH_ROWS = 8192

_SLOT = "\x00"  # never in the writer's output (ASCII-only: control characters are escaped)
_FIELDS = ("case_id", "cost_units", "latency_ms", "status", "trial_id")  # sorted, as written


def number(value: object) -> Union[int, float, None]:
    """A JSON number for an exact value: ints stay ints, everything else the nearest double;
    None (an unmeasured latency or cost of a results v3 record, a gate's metric that could
    not be judged) stays None, written as null."""
    if value is None:
        return None
    if isinstance(value, bool):
        raise TypeError("a Boolean is not a number")
    if isinstance(value, (int, float)):
        return value
    if isinstance(value, (Fraction, Decimal)):
        return float(value)
    raise TypeError("not an exact number: %r" % (value,))


def checks_of(bits: int) -> Dict[str, bool]:
    """The ``checks`` object of a trial's check bits (a new dict each time)."""
    return dict(_CHECKS_BY_BITS[bits])


_CHECKS_BY_BITS = [{name: bool(bits & bit) for name, bit in CHECK_BITS.items()}
                   for bits in range(ALL_CHECKS + 1)]


def trial_result(record: JSONObject, bits: int) -> JSONObject:
    """One ``trial_results`` entry."""
    return {
        "case_id": record["case_id"],
        "trial_id": record["trial_id"],
        "passed": bits == ALL_CHECKS,
        "status": record["status"],
        "checks": checks_of(bits),
        "latency_ms": number(record["latency_ms"]),
        "cost_units": number(record["cost_units"]),
    }


class _Slot:
    """Writes itself as the slot character (see :func:`_templates`)."""

    def json_pieces(self, level: int) -> Iterator[str]:
        return iter((_SLOT,))


def _templates(level: int) -> List[str]:
    """The text of one trial at ``level`` per combination of check bits, with ``%s`` where
    the five varying fields go (in sorted key order)."""
    slot = _Slot()
    templates = []
    for bits in range(ALL_CHECKS + 1):
        entry: Dict[str, object] = dict.fromkeys(_FIELDS, slot)
        entry.update(passed=bits == ALL_CHECKS, checks=checks_of(bits))
        text = "".join(jsondump.pieces(entry, level))
        if text.count(_SLOT) != len(_FIELDS):
            raise RuntimeError("a trial template lost a slot")  # a bug, never the input
        templates.append(text.replace("%", "%%").replace(_SLOT, "%s"))
    return templates


def _texts(values: Sequence[JSON], level: int) -> List[str]:
    """The writer's texts of any column (the general case)."""
    return ["".join(jsondump.pieces(value, level)) for value in values]


def _number_texts(values: List[JSON], level: int) -> List[str]:
    """The texts of a column of exact numbers, as :func:`number` and then the writer."""
    kinds = set(map(type, values))
    if kinds == {int}:
        return list(map(int.__repr__, values))
    if kinds == {Decimal}:
        texts = _decimal_texts(cast("List[Decimal]", values))
        if texts is not None:
            return texts
    numbers = list(map(float, values)) if kinds == {Decimal} else list(map(number, values))
    if set(map(type, numbers)) != {float}:
        return _texts(numbers, level)
    doubles = cast("List[float]", numbers)  # each one a float
    if not all(map(math.isfinite, doubles)):
        raise ValueError("Out of range float values are not JSON compliant")
    return list(map(float.__repr__, doubles))


def _decimal_texts(values: List[Decimal]) -> Optional[List[str]]:
    """The texts of a column of Decimals when each one's own text is the text of the nearest
    double (``float.__repr__(float(value))``, which is :func:`number` and then the writer),
    proved for the whole column at C speed; else None.

    A Decimal's text is the double's when it is in fixed notation (``E`` is the Decimal's
    exponent), with a point (``15`` is the double ``15.0``), at most 16 characters (so at
    most 15 digits: a double keeps every such decimal apart from every other, and
    ``float.__repr__`` writes the shortest digits that read back, which are then these), with
    no trailing zero but a lone ``.0`` (``1.50`` is written ``1.5``, ``380.0`` as it is), and
    not below 1e-4 in magnitude (``0.00005`` is written ``5e-05``). Latencies and costs as
    harnesses write them (``1725.38``, ``0.0306``) are; the others take the general way.
    A third of the time of converting and writing each double."""
    texts = list(map(str, values))
    joined = "\n".join(texts) + "\n"
    if ("E" in joined or joined.count(".") != len(texts) or "0.0000" in joined
            or joined.count("0\n") != joined.count(".0\n") or max(map(len, texts)) > 16):
        return None
    return texts


def _string_texts(values: List[JSON], level: int) -> List[str]:
    """The texts of a column of strings (the raw values otherwise)."""
    if set(map(type, values)) != {str}:
        return _texts(values, level)
    return list(map(jsondump.encode_string, values))


def _integer_texts(values: List[JSON], level: int) -> List[str]:
    """The texts of a column of ints (the raw values otherwise)."""
    if set(map(type, values)) != {int}:
        return _texts(values, level)
    return list(map(int.__repr__, values))


# The varying fields in sorted key order (as the templates hold their slots), each with the
# writer of its column: numbers pass through :func:`number`, the others are written as they are.
_COLUMNS = (("case_id", _string_texts), ("cost_units", _number_texts),
            ("latency_ms", _number_texts), ("status", _string_texts),
            ("trial_id", _integer_texts))


class TrialRows:
    """The ``trial_results`` of graded records (see the module docstring)."""

    def __init__(self, records: List[JSONObject], outcomes: bytearray) -> None:
        self.records = records
        self.outcomes = outcomes

    def __len__(self) -> int:
        return len(self.records)

    def to_list(self) -> List[JSONObject]:
        return list(map(trial_result, self.records, self.outcomes))

    def __getitem__(self, index: int) -> JSONObject:
        """One entry of the list, built on demand (the reports read a few)."""
        return trial_result(self.records[index], self.outcomes[index])

    def latencies(self, start: int = 0, stop: Optional[int] = None) -> List[JSON]:
        """The ``latency_ms`` of entries ``start`` to ``stop`` (all by default) as the
        document writes them (JSON numbers)."""
        values = list(map(itemgetter("latency_ms"), self.records[start:stop]))
        kinds = set(map(type, values))
        if kinds == {Decimal}:
            return list(map(float, values))  # number() of each, without a call per value
        return values if kinds <= {int, float} else list(map(number, values))

    def json_pieces(self, level: int) -> Iterator[str]:
        """The text of the list at nesting ``level``, exactly as ``jsondump`` writes it."""
        if not self.records:
            yield "[]"
            return
        inner = "\n" + jsondump.INDENT * (level + 1)
        separator = "," + inner
        templates = _templates(level + 1)
        records, outcomes = self.records, self.outcomes
        yield "["
        for start in range(0, len(records), BATCH_ROWS):
            batch = records[start:start + BATCH_ROWS]
            columns = [writer(list(map(itemgetter(key), batch)), level + 2)
                       for key, writer in _COLUMNS]
            rows = map(str.__mod__, map(templates.__getitem__,
                                        outcomes[start:start + BATCH_ROWS]), zip(*columns))
            yield (inner if not start else separator) + separator.join(rows)
        yield "\n" + jsondump.INDENT * level + "]"

