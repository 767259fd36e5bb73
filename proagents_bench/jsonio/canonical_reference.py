"""RFC 8785, the JSON Canonicalization Scheme (JCS), written by plain Python: the reference
writer, and the string and number rules both writers share.

RFC 8785 fixes one byte sequence per JSON value, so that any language can recompute the
evidence fingerprint from the three files:

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

The reference writer walks the value iteratively (any depth) and applies every rule directly;
PyPy always uses it, and it is the oracle the tests hold the fast writer
(:mod:`.canonical_fast`) to.
"""

from __future__ import annotations

import json.encoder
import re
from decimal import Decimal
from typing import Callable, Dict, Iterable, Iterator, List, Optional, Set, Tuple

from . import JSON
from .load import MAX_SAFE_INTEGER

# A key and its written form, ``"key":``.
_Member = Tuple[str, str]

_FLOAT_INF = float("inf")

# A character at or above U+E000: only such characters can make code-point order and UTF-16
# code-unit order disagree.
HIGH_CHARACTER = re.compile("[\ue000-\U0010ffff]")

# Batches of text the reference writer hands on at once (characters, roughly).
_REFERENCE_BATCH = 1 << 16


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
encode_string = _c_encode_string if _c_encode_string is not None else _py_encode_string


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
        if not high and not key.isascii() and HIGH_CHARACTER.search(key) is not None:
            high = True
    keys = sorted(obj, key=_utf16_key) if high else sorted(obj)
    return [(key, encode_string(key) + ":") for key in keys]


# --- numbers ---------------------------------------------------------------------------------

def format_double(x: float) -> str:
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
    return format_double(x)


# --- the reference writer --------------------------------------------------------------------

# An open container: (iterator over its remaining members or items, the dict or None, its id).
_Open = Tuple[Iterator[JSON], Optional[Dict[str, JSON]], int]


def _enter(container: JSON, obj: Optional[Dict[str, JSON]], items: Iterable[JSON],
           open_ids: Set[int], stack: List[_Open]) -> Iterator[JSON]:
    """Open the non-empty ``container`` (``obj``: the dict, None for a list): refuse it when
    it is open already on the path (a cycle), push an iterator over ``items`` (the dict's
    members in order, or the list's items) and return it."""
    ident = id(container)
    if ident in open_ids:
        raise ValueError("canonical JSON: circular reference")
    open_ids.add(ident)
    it = iter(items)
    stack.append((it, obj, ident))
    return it


def reference_batches(value: JSON) -> Iterator[str]:
    """Yield the canonical text of ``value`` in batches of str (plain Python, any depth)."""
    out: List[str] = []
    append = out.append
    encode = encode_string
    orders: Dict[Tuple[str, ...], List[_Member]] = {}  # key order by key tuple: records share one
    stack: List[_Open] = []
    open_ids: Set[int] = set()  # containers on the current path, to refuse cycles
    v = value
    while True:
        t = type(v)
        if t is str:
            append(encode(v))
        elif t is dict:
            if v:
                shape = tuple(v)
                members = orders.get(shape)
                if members is None:
                    members = orders[shape] = _member_order(v)
                key, written = next(_enter(v, v, members, open_ids, stack))
                append("{")
                append(written)
                v = v[key]
                continue
            append("{}")
        elif t is list:
            if v:
                append("[")
                v = next(_enter(v, None, v, open_ids, stack))
                continue
            append("[]")
        elif t is int:
            append(_format_int(v))
        elif t is Decimal:
            append(format_double(_decimal_to_double(v)))
        elif t is bool:
            append("true" if v else "false")
        elif v is None:
            append("null")
        elif t is float:
            append(format_double(v))
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


def reference_text(value: JSON) -> str:
    return "".join(reference_batches(value))
