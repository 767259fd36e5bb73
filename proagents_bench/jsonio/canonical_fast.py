"""RFC 8785 canonical JSON through CPython's C JSON encoder: the fast writer, which writes
the same text as the reference writer (:mod:`.canonical_reference`) several times faster.

:func:`fast_batches` first scans the value one nesting level at a time, every per-element
step inside C (``map``, ``set``, ``chain``, ``itemgetter``, ``compress``, ``min``), to prove
that the C JSON encoder (``sort_keys``, ``ensure_ascii=False``, no whitespace, the very
escapes of RFC 8785) writes it canonically: exact types only, keys without characters at or
above U+E000 (so that code-point order is UTF-16 order), integers within +-(2**53-1), bounded
depth and size (so no cycles). The scan costs as much as the encoding; the gate skips it by
passing the list of every Decimal in the value, which the strict loader recorded while
parsing (see :func:`~.canonical.fingerprint_hasher`), for values whose other properties the
loader and the contract already guarantee.

The encoder gets each ``Decimal`` through its ``default`` hook (:class:`_StandIns`), as an
``int`` or ``float`` whose Python text is its ES6 text: usually every Decimal is 0 or has
1e-4 <= |d| < 1e15, and then the hook is plain (an ``int`` for an integral value, else its
double); otherwise each distinct Decimal is looked up in a table, and the few that neither
``int`` nor ``float`` prints in ES6 form (1e-9 <= |x| < 1e-4: Python writes ``1e-05``, ES6
``0.00001``) become marker strings replaced afterwards, after checking that the markers occur
exactly as often as issued (a surplus came from a string in the data, and then that piece is
written by the reference writer).

The fast writer writes in pieces: a long list (a million records) is encoded a few thousand
items at a time, its brackets and commas written around them, and an object holding such a
list member by member in sorted key order. So the canonical text of a large file never exists
whole (it would take as much memory as the file's values), and a piece the encoder cannot
vouch for falls back to the reference writer alone.
"""

from __future__ import annotations

import json
import json.encoder
from decimal import Decimal
from itertools import chain, compress, repeat
from operator import is_, itemgetter
from typing import Callable, Dict, Iterable, Iterator, List, NoReturn, Optional, Union, cast

from . import JSON
from .canonical_reference import HIGH_CHARACTER, encode_string, format_double, reference_text
from .load import MAX_SAFE_INTEGER

# What the C encoder is handed in a Decimal's place: an int or float that Python writes as
# ES6 does, or (by a marker) the ES6 text itself.
_StandIn = Union[int, float, str]

_FLOAT_INF = float("inf")

# The fast path only takes values this shallow (the C encoder recurses; the loader caps
# nesting at 64, so deeper values are unusual and go to the reference writer).
_FAST_MAX_DEPTH = 200

# The C parts of the json module the fast path needs (CPython has them; PyPy does not).
_c_make_encoder: object = getattr(json.encoder, "c_make_encoder", None)
_c_encode_string: object = getattr(json.encoder, "c_encode_basestring", None)

_FAST_TYPES = frozenset([dict, list, str, int, bool, type(None), Decimal])
_STR_ONLY = frozenset([str])
_TAKEN_TYPES = frozenset([int, Decimal, list, dict])  # the kinds the scan looks into

# The scan gives up (and the reference writer runs) past this many values in all, so that a
# value whose containers are shared many times over (a cycle, say) cannot blow up in memory
# before its depth gives it away; a level's lists then take at most 1 GB. A million small
# records hold about ten million values; a file at the loader's 1 GiB cap about 100 million.
_FAST_MAX_VALUES = 1 << 27

# Decimals d with _PLAIN_LOW <= |d| < _PLAIN_HIGH (or d == 0) become doubles that Python's
# repr writes in plain notation, as ES6 does (repr switches to exponents below 1e-4 and from
# 1e16 on); only integral ones then differ, by a trailing '.0'.
_PLAIN_LOW = Decimal("0.0001")
_PLAIN_HIGH = Decimal("1e15")

# Marker text for a number that neither int nor float prints in ES6 form; the C encoder
# writes it as the JSON string '"\u0000jcs-number:N"'.
_MARKER_PREFIX = "\x00jcs-number:"
_MARKER_OPEN = encode_string(_MARKER_PREFIX)[:-1]


class _NotFast(Exception):
    """The fast path cannot vouch for this value; the reference writer takes over."""


def _check_keys(keys: Iterable[object]) -> None:
    """Keys must be exact str without characters at or above U+E000 (so that code-point
    order, which the C encoder sorts by, equals UTF-16 order). ``keys``: any iterable."""
    listed = list(keys)
    if not set(map(type, listed)) <= _STR_ONLY:
        raise _NotFast
    joined = "".join(cast("List[str]", listed))  # every key a str (its types say)
    if not joined.isascii() and HIGH_CHARACTER.search(joined) is not None:
        raise _NotFast


def _member_columns(objects: List[Dict[str, JSON]]) -> List[List[JSON]]:
    """The values of the dicts ``objects``, as columns (lists) for the next level."""
    if len(set(map(len, objects))) == 1:
        # All the same size: if each has every key of the first, they share one key set
        # (the usual case: records), and each key's values form one column.
        keys = list(objects[0])
        try:
            columns = [list(map(itemgetter(key), objects)) for key in keys]
        except KeyError:
            columns = None
        if columns is not None:
            # Every other dict's keys equal these: an exact str, or a str subclass (which
            # both writers take as the str it equals).
            _check_keys(keys)
            return columns
    _check_keys(set(chain.from_iterable(objects)))
    return [list(chain.from_iterable(map(dict.values, objects)))]


def _fast_scan(value: JSON) -> List[List[Decimal]]:
    """Check that the C encoder can write ``value``; return its Decimals (a list of lists).

    Walks the value one nesting level at a time; each level is a few columns (lists of
    values), and every per-element step runs inside C (``map``, ``set``, ``chain``,
    ``compress``, ``itemgetter``, ``min``). Checks: exact types only, keys as in
    :func:`_check_keys`, integers within +-(2**53-1), and a bounded depth and size, which
    also rules out cycles. Raises :class:`_NotFast` otherwise.
    """
    decimals: List[List[Decimal]] = []
    level: List[List[JSON]] = [[value]]
    depth = 0
    total = 0
    while level:
        depth += 1
        if depth > _FAST_MAX_DEPTH:
            raise _NotFast
        below: List[List[JSON]] = []
        for column in level:
            kinds = set(map(type, column))
            if not kinds <= _FAST_TYPES:
                raise _NotFast
            if len(kinds) == 1 or not kinds & _TAKEN_TYPES:
                parts = {kind: column for kind in kinds}
            else:
                types = list(map(type, column))
                parts = {kind: list(compress(column, map(is_, repeat(kind), types)))
                         for kind in kinds & _TAKEN_TYPES}
            if int in kinds:
                ints = parts[int]
                if min(ints) < -MAX_SAFE_INTEGER or max(ints) > MAX_SAFE_INTEGER:
                    raise _NotFast
            if Decimal in kinds:
                decimals.append(parts[Decimal])
            if list in kinds:
                arrays = parts[list]
                total += sum(map(len, arrays))
                if total > _FAST_MAX_VALUES:
                    raise _NotFast
                below.append(list(chain.from_iterable(arrays)))
            if dict in kinds:
                objects = parts[dict]
                total += sum(map(len, objects))
                if total > _FAST_MAX_VALUES:
                    raise _NotFast
                below.extend(_member_columns(objects))
        level = below
    return decimals


def _no_default(obj: object) -> NoReturn:
    raise TypeError("canonical JSON: unsupported type %s" % type(obj).__name__)


def _plain_range(decimals: List[Decimal]) -> bool:
    """True when every Decimal is 0 or has _PLAIN_LOW <= |d| < _PLAIN_HIGH."""
    try:
        low, high = min(decimals), max(decimals)
        if low < 0:  # look at the magnitudes, leaving zeros out
            magnitudes = list(filter(None, map(Decimal.copy_abs, decimals)))
            low, high = min(magnitudes), max(magnitudes)
        elif not low:  # zeros, and nothing negative: the smallest one that is not zero
            low = min(filter(None, decimals), default=high)
            if not low:
                return True
    except ArithmeticError:  # a NaN does not compare
        return False
    return _PLAIN_LOW <= low and high < _PLAIN_HIGH


def _plain_stand_in(d: Decimal) -> Union[int, float]:
    """The stand-in for a Decimal in the plain range (see :func:`_plain_range`): the int it
    equals when integral (ES6 writes no '.0'; -0 becomes 0), else its double, whose Python
    text is then its ES6 text."""
    x = float(d)
    return int(x) if x.is_integer() else x


def _json_stand_in(x: float) -> _StandIn:
    """What to hand the C encoder for the finite double ``x``: an int or float whose Python
    text is the ES6 text, else the ES6 text itself (a str, to be put in by marker)."""
    text = float.__repr__(x)
    if "e" not in text:
        if text.endswith(".0"):
            return int(text[:-2])  # integral below 1e16: ES6 writes these digits ('-0' -> 0)
        return x  # non-integral, 1e-4 <= |x| < 1e16: repr's plain notation is ES6's
    es6 = format_double(x)
    if es6 == text:
        return x  # |x| >= 1e21, or |x| < 1e-9 (exponents of two digits or more)
    if "e" not in es6 and "." not in es6:
        return int(es6)  # integral, 1e16 <= |x| < 1e21
    return es6  # 1e-9 <= |x| < 1e-4: Python writes 1e-05, ES6 0.00001


class _StandIns:
    """The C encoder for one value's pieces, each Decimal handed to it as a stand-in (see
    the module docstring); :meth:`encode` writes one piece, falling back to the reference
    writer for that piece where the encoder's text cannot be vouched for."""

    def __init__(self, decimals: List[Decimal]) -> None:
        self.markers: List[str] = []
        self.issued = 0
        default: Callable[[Decimal], _StandIn]
        if not decimals:
            default = _no_default
        elif _plain_range(decimals):
            default = _plain_stand_in
        else:
            default = self._tabled(decimals)
        # check_circular is off: the scan (or the caller's promise) rules cycles out.
        self.encoder = json.JSONEncoder(ensure_ascii=False, allow_nan=False, sort_keys=True,
                                        check_circular=False, separators=(",", ":"),
                                        default=default)

    def _tabled(self, decimals: List[Decimal]) -> Callable[[Decimal], _StandIn]:
        try:
            distinct = set(decimals)
        except TypeError:  # a signalling NaN is unhashable
            raise _NotFast from None
        table: Dict[Decimal, _StandIn] = {}
        for d in distinct:
            x = float(d)
            if x != x or x == _FLOAT_INF or x == -_FLOAT_INF:
                raise _NotFast
            stand_in = _json_stand_in(x)
            if type(stand_in) is str:
                self.markers.append(stand_in)
                stand_in = _Marker(_MARKER_PREFIX + str(len(self.markers) - 1))
            table[d] = stand_in
        lookup = table.__getitem__

        def default(d: Decimal) -> _StandIn:
            stand_in = lookup(d)
            if type(stand_in) is _Marker:
                self.issued += 1
                return str(stand_in)
            return stand_in

        return default

    def encode(self, part: JSON) -> str:
        self.issued = 0
        try:
            text = self.encoder.encode(part)
        except KeyError:  # a Decimal missing from a caller's list
            return reference_text(part)
        if not self.markers:
            return text
        pieces = text.split(_MARKER_OPEN)
        # Each marker written is one occurrence of _MARKER_OPEN, and occurrences cannot
        # overlap (its only '"' is its first character), so when the count is right every
        # occurrence is a marker; a surplus came from a string in the data.
        if len(pieces) - 1 != self.issued:
            return reference_text(part)
        # Each piece after the first is 'N"rest': put marker N's text in place of 'N"'.
        tails = list(map(str.partition, pieces[1:], repeat('"')))
        numbers = map(self.markers.__getitem__, map(int, map(itemgetter(0), tails)))
        return pieces[0] + "".join(chain.from_iterable(zip(numbers, map(itemgetter(2),
                                                                        tails))))


class _Marker(str):
    """A marker string, told apart from the table's other stand-ins by its type."""


# Lists longer than this are encoded this many items at a time.
_PIECE_ITEMS = 4096


def _holds_long_list(value: JSON, depth: int = 0) -> bool:
    """Whether ``value`` is, or holds within four levels, a list longer than _PIECE_ITEMS
    (a long list is not looked into; short ones and objects are)."""
    kind = type(value)
    if kind is list and len(value) > _PIECE_ITEMS:
        return True
    if depth >= 4 or kind not in (list, dict):
        return False
    children = value if kind is list else value.values()
    return any(_holds_long_list(child, depth + 1) for child in children
               if type(child) in (list, dict))


def _pieces(value: JSON, encode: Callable[[JSON], str]) -> Iterator[str]:
    """The canonical text of ``value`` in pieces, ``encode`` writing each part whole."""
    if not _holds_long_list(value):
        yield encode(value)
    elif type(value) is dict:
        # Keys are vouched for (no character at or above U+E000): code-point order is
        # UTF-16 order, as the C encoder's sort_keys assumes too.
        for index, key in enumerate(sorted(value)):
            yield ("{" if not index else ",") + encode_string(key) + ":"
            yield from _pieces(value[key], encode)
        yield "}"
    elif len(value) > _PIECE_ITEMS:
        for start in range(0, len(value), _PIECE_ITEMS):
            text = encode(value[start:start + _PIECE_ITEMS])  # "[a,b,...]"
            yield ("[" if not start else ",") + text[1:-1]
        yield "]"
    else:
        for index, item in enumerate(value):
            yield "[" if not index else ","
            yield from _pieces(item, encode)
        yield "]"


def fast_batches(value: JSON,
                 decimals: Optional[List[Decimal]] = None) -> Optional[Iterator[str]]:
    """The canonical text in pieces through the C encoder, or None where the encoder cannot
    be used or the value cannot be vouched for (then the reference writer runs)."""
    if _c_make_encoder is None or _c_encode_string is None or type(value) not in (dict, list):
        return None
    try:
        if decimals is None:
            decimals = list(chain.from_iterable(_fast_scan(value)))
        stand_ins = _StandIns(decimals)
    except _NotFast:
        return None
    return _pieces(value, stand_ins.encode)
