"""The evidence fingerprint: SHA-256 over the RFC 8785 canonical form of the inputs.

RFC 8785, the JSON Canonicalization Scheme (JCS), fixes one byte sequence per JSON value, so
that any language can recompute the fingerprint from the three files:

- no whitespace; UTF-8 output;
- object members sorted by their keys compared as arrays of UTF-16 code units (this differs
  from Python's code-point order only where one key has a character in U+E000..U+FFFF and the
  other a character above U+FFFF at the same position);
- strings escape only ``"``, ``\\`` and U+0000..U+001F (``\\b \\t \\n \\f \\r`` short forms,
  the rest as ``\\u00xx`` in lowercase hex); everything else is written literally;
- numbers are IEEE doubles written by the ECMAScript (ES6, ECMA-262 7.1.12.1)
  ``Number.prototype.toString`` algorithm: the shortest digits that round-trip (taken from
  Python's ``repr``, which produces exactly those), laid out in plain notation for
  1e-6 <= |x| < 1e21 and as ``d.ddde+N`` / ``de-N`` otherwise; ``-0`` is ``0``.

Accepted values are what the strict loader produces: ``dict`` with ``str`` keys, ``list``,
``str``, ``bool``, ``None``, ``int`` and ``decimal.Decimal`` (plus ``float`` for convenience).
Any other type raises ``TypeError``, and so do subclasses of these, except that a key of a
``str`` subclass is taken as the string it is. NaN, infinities, numbers beyond the double range
and circular references raise ``ValueError``; a lone surrogate in a string raises
``UnicodeEncodeError`` (a ``ValueError``) when written as UTF-8. Where a value has several
faults, which one is reported is not specified. An ``int`` is a JSON number, i.e. a double:
within +-2**53 it is written exactly, beyond that as the nearest double (the loader never lets
such a literal through). A ``Decimal`` is first rounded to the nearest double, as RFC 8785
3.2.2.3 asks of other number representations.

Two writers produce identical text. The reference writer is plain Python: it walks the value
iteratively (any depth) and applies every rule directly; PyPy always uses it, and it is the
oracle the tests hold the other to. On CPython the fast writer (:func:`_fast_batches`) first
scans the value one nesting level at a time, every per-element step inside C (``map``,
``set``, ``chain``, ``itemgetter``, ``compress``, ``min``), to prove that the C JSON encoder
(``sort_keys``, ``ensure_ascii=False``, no whitespace, the very escapes of RFC 8785) writes it
canonically: exact types only, keys without characters at or above U+E000 (so that code-point
order is UTF-16 order), integers within +-(2**53-1), bounded depth and size (so no cycles).
The scan costs as much as the encoding; the gate skips it by passing the list of every
Decimal in the value, which the strict loader recorded while parsing (see ``decimals`` below),
for values whose other properties the loader and the contract already guarantee.

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

import hashlib
import json
import json.encoder
import re
from decimal import Decimal
from itertools import chain, compress, repeat
from operator import is_, itemgetter
from typing import (TYPE_CHECKING, Callable, Dict, Iterable, Iterator, List, Optional, Set,
                    NoReturn, Tuple, Union, cast)

from . import JSON, JSONObject
from .gcpause import CollectorPaused
from .load import MAX_SAFE_INTEGER

if TYPE_CHECKING:  # for annotations only
    from typing import Protocol, TypeVar

    class _Hasher(Protocol):
        """What the fingerprint feeds: a hashlib object's ``update``."""

        def update(self, data: bytes, /) -> None: ...

    _HasherT = TypeVar("_HasherT", bound=_Hasher)

# A key and its written form, ``"key":``.
_Member = Tuple[str, str]
# What the C encoder is handed in a Decimal's place: an int or float that Python writes as
# ES6 does, or (by a marker) the ES6 text itself.
_StandIn = Union[int, float, str]

__all__ = ["canonical_json", "evidence_fingerprint", "fingerprint_hasher"]

_FLOAT_INF = float("inf")

# A character at or above U+E000: only such characters can make code-point order and UTF-16
# code-unit order disagree.
_HIGH_CHAR = re.compile("[\ue000-\U0010ffff]")

# The hasher is fed slices of this many characters, so no second full-size copy is built.
_HASH_SLICE = 1 << 22

# Batches of text the reference writer hands on at once (characters, roughly).
_REFERENCE_BATCH = 1 << 16

# The fast path only takes values this shallow (the C encoder recurses; the loader caps
# nesting at 64, so deeper values are unusual and go to the reference writer).
_FAST_MAX_DEPTH = 200


# --- strings ---------------------------------------------------------------------------------

_ESCAPES = {chr(i): "\\u%04x" % i for i in range(0x20)}
_ESCAPES.update({'"': '\\"', "\\": "\\\\", "\b": "\\b", "\t": "\\t", "\n": "\\n",
                 "\f": "\\f", "\r": "\\r"})
_NEEDS_ESCAPE = re.compile('[\x00-\x1f"\\\\]')


def _py_encode_string(s: str) -> str:
    """RFC 8785 string literal, in Python (used where the C encoder is missing)."""
    if _NEEDS_ESCAPE.search(s) is None:
        return '"' + s + '"'
    return '"' + _NEEDS_ESCAPE.sub(lambda m: _ESCAPES[m.group()], s) + '"'


# CPython's C ``encode_basestring`` (the ensure_ascii=False one) escapes exactly the RFC 8785
# set, with the same short forms and lowercase hex; the tests hold both to the same cases.
_c_encode_string: Optional[Callable[[str], str]] = getattr(json.encoder, "c_encode_basestring",
                                                           None)
_encode_string = _c_encode_string if _c_encode_string is not None else _py_encode_string


def _utf16_key(key: str) -> bytes:
    return key.encode("utf-16-be", "surrogatepass")


def _member_order(obj: Dict[str, JSON]) -> List[_Member]:
    """``obj``'s keys in RFC 8785 order (compared as UTF-16 code units), each with its
    written form ``"key":``."""
    high = False
    for key in obj:
        if not isinstance(key, str):
            raise TypeError("canonical JSON: object key must be str, not %s"
                            % type(key).__name__)
        if not high and not key.isascii() and _HIGH_CHAR.search(key) is not None:
            high = True
    keys = sorted(obj, key=_utf16_key) if high else sorted(obj)
    return [(key, _encode_string(key) + ":") for key in keys]


# --- numbers ---------------------------------------------------------------------------------

def _format_double(x: float) -> str:
    """ECMAScript Number.prototype.toString(x) for a finite float ``x`` (RFC 8785 3.2.2.3)."""
    if x != x or x == _FLOAT_INF or x == -_FLOAT_INF:
        raise ValueError("canonical JSON: %r is not a finite number" % (x,))
    if x == 0:
        return "0"  # also -0
    text = float.__repr__(x)  # shortest round-trip digits, e.g. '1.5e-07', '123.0'
    sign = ""
    if text[0] == "-":
        sign = "-"
        text = text[1:]
    mantissa, _, exponent = text.partition("e")
    integral, _, fraction = mantissa.partition(".")
    digits = integral + fraction
    # value = 0.DIGITS * 10**point
    point = len(integral) + (int(exponent) if exponent else 0)
    significant = digits.lstrip("0")
    point -= len(digits) - len(significant)
    significant = significant.rstrip("0")
    k = len(significant)
    if k <= point <= 21:
        out = significant + "0" * (point - k)
    elif 0 < point <= 21:
        out = significant[:point] + "." + significant[point:]
    elif -6 < point <= 0:
        out = "0." + "0" * (-point) + significant
    else:
        e = point - 1
        tail = ("e+" if e >= 0 else "e-") + str(abs(e))
        if k == 1:
            out = significant + tail
        else:
            out = significant[0] + "." + significant[1:] + tail
    return sign + out


def _decimal_to_double(d: Decimal) -> float:
    try:
        x = float(d)  # correctly rounded; raises ValueError for a signalling NaN
    except ValueError:
        raise ValueError("canonical JSON: %s is not a finite number" % (d,)) from None
    if x != x or x == _FLOAT_INF or x == -_FLOAT_INF:
        raise ValueError("canonical JSON: %s is not a finite IEEE double" % (d,))
    return x


def _format_int(n: int) -> str:
    if -MAX_SAFE_INTEGER <= n <= MAX_SAFE_INTEGER:
        return int.__repr__(n)
    try:
        x = float(n)
    except OverflowError:
        raise ValueError("canonical JSON: integer %d is beyond the IEEE double range"
                         % n) from None
    return _format_double(x)


# --- the reference writer --------------------------------------------------------------------

def _reference_batches(value: JSON) -> Iterator[str]:
    """Yield the canonical text of ``value`` in batches of str (plain Python, any depth)."""
    out: List[str] = []
    append = out.append
    encode = _encode_string
    orders: Dict[Tuple[str, ...], List[_Member]] = {}  # key order by key tuple: records share one
    # (iterator over the remaining members or items, the dict or None, id)
    stack: List[Tuple[Iterator[JSON], Optional[Dict[str, JSON]], int]] = []
    open_ids: Set[int] = set()  # containers on the current path, to refuse cycles
    v = value
    while True:
        t = type(v)
        if t is str:
            append(encode(v))
        elif t is dict:
            if v:
                ident = id(v)
                if ident in open_ids:
                    raise ValueError("canonical JSON: circular reference")
                shape = tuple(v)
                members = orders.get(shape)
                if members is None:
                    members = orders[shape] = _member_order(v)
                it = iter(members)
                key, written = next(it)
                append("{")
                append(written)
                open_ids.add(ident)
                stack.append((it, v, ident))
                v = v[key]
                continue
            append("{}")
        elif t is list:
            if v:
                ident = id(v)
                if ident in open_ids:
                    raise ValueError("canonical JSON: circular reference")
                it = iter(v)
                append("[")
                open_ids.add(ident)
                stack.append((it, None, ident))
                v = next(it)
                continue
            append("[]")
        elif t is int:
            append(_format_int(v))
        elif t is Decimal:
            append(_format_double(_decimal_to_double(v)))
        elif t is bool:
            append("true" if v else "false")
        elif v is None:
            append("null")
        elif t is float:
            append(_format_double(v))
        else:
            raise TypeError("canonical JSON: unsupported type %s" % t.__name__)
        # The value is written: move to the next one, closing finished containers.
        while stack:
            it, obj, ident = stack[-1]
            for item in it:
                break
            else:
                append("]" if obj is None else "}")
                open_ids.discard(ident)
                stack.pop()
                continue
            append(",")
            if obj is None:
                v = item
            else:
                key, written = item
                append(written)
                v = obj[key]
            break
        else:
            yield "".join(out)
            return
        if len(out) >= _REFERENCE_BATCH:
            yield "".join(out)
            del out[:]


def _reference_text(value: JSON) -> str:
    return "".join(_reference_batches(value))


# --- the CPython fast path -------------------------------------------------------------------

_c_make_encoder: object = getattr(json.encoder, "c_make_encoder", None)
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
_MARKER_OPEN = _encode_string(_MARKER_PREFIX)[:-1]


class _NotFast(Exception):
    """The fast path cannot vouch for this value; the reference writer takes over."""


def _check_keys(keys: Iterable[object]) -> None:
    """Keys must be exact str without characters at or above U+E000 (so that code-point
    order, which the C encoder sorts by, equals UTF-16 order). ``keys``: any iterable."""
    listed = list(keys)
    if not set(map(type, listed)) <= _STR_ONLY:
        raise _NotFast
    joined = "".join(cast("List[str]", listed))  # every key a str (its types say)
    if not joined.isascii() and _HIGH_CHAR.search(joined) is not None:
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
    es6 = _format_double(x)
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
            return _reference_text(part)
        if not self.markers:
            return text
        pieces = text.split(_MARKER_OPEN)
        # Each marker written is one occurrence of _MARKER_OPEN, and occurrences cannot
        # overlap (its only '"' is its first character), so when the count is right every
        # occurrence is a marker; a surplus came from a string in the data.
        if len(pieces) - 1 != self.issued:
            return _reference_text(part)
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
            yield ("{" if not index else ",") + _encode_string(key) + ":"
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


def _fast_batches(value: JSON,
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


# --- public interface ------------------------------------------------------------------------

def _text_batches(value: JSON, decimals: Optional[List[Decimal]] = None) -> Iterator[str]:
    batches = _fast_batches(value, decimals)
    return _reference_batches(value) if batches is None else batches


def canonical_json(value: JSON) -> bytes:
    """RFC 8785 (JSON Canonicalization Scheme) serialisation of ``value`` as UTF-8 bytes."""
    with CollectorPaused():
        return "".join(_text_batches(value)).encode("utf-8")


def fingerprint_hasher(value: JSON, hasher: _HasherT,
                       decimals: Optional[List[Decimal]] = None) -> _HasherT:
    """Feed the RFC 8785 serialisation of ``value`` into ``hasher`` (a hashlib object).

    ``decimals``, when given, lists every ``Decimal`` in ``value`` and vouches for what the
    fast path's scan would check: ``value`` holds only exact dict, list, str, int, bool, None
    and Decimal, integers within +-(2**53-1), no container twice (so no cycle), nesting of at
    most 64, and no object key with a character at or above U+E000. Values that the strict
    loader parsed and the contract validated are such values (the contract's keys are ASCII),
    and the loader records their Decimals. A broken promise (a Decimal missing from the list,
    say) may give a wrong fingerprint, so pass nothing else.

    The text goes in as UTF-8 slices of at most ``_HASH_SLICE`` characters, so no full-size
    bytes object is made. After
    an exception the hasher may have been fed part of the text: discard it. Returns
    ``hasher``.
    """
    update = hasher.update
    with CollectorPaused():
        for batch in _text_batches(value, decimals):
            if len(batch) <= _HASH_SLICE:
                update(batch.encode("utf-8"))
            else:
                for start in range(0, len(batch), _HASH_SLICE):
                    update(batch[start:start + _HASH_SLICE].encode("utf-8"))
    return hasher


def evidence_fingerprint(spec: JSONObject, cases: JSONObject, results: JSONObject,
                         candidate_system_id: str,
                         decimals: Optional[List[Decimal]] = None) -> str:
    """'sha256:' + hex SHA-256 of canonical_json([spec, cases, results, candidate_system_id]);
    ``decimals`` as in :func:`fingerprint_hasher` (all the Decimals of the three files)."""
    hasher = fingerprint_hasher([spec, cases, results, candidate_system_id], hashlib.sha256(),
                                decimals)
    return "sha256:" + hasher.hexdigest()
