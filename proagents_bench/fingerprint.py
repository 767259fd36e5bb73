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
  1e-7 < |x| < 1e21 and as ``d.ddde+N`` / ``de-N`` otherwise; ``-0`` is ``0``.

Accepted values are exactly what the strict loader produces: ``dict`` with ``str`` keys,
``list``, ``str``, ``bool``, ``None``, ``int`` and ``decimal.Decimal`` (plus ``float`` for
convenience). Anything else, subclasses included, raises ``TypeError``; NaN, infinities,
numbers beyond the double range and circular references raise ``ValueError``; a lone
surrogate in a string raises ``UnicodeEncodeError`` (a ``ValueError``) when written as UTF-8.
An ``int`` is a JSON number, i.e. a double: within +-2**53 it is written exactly, beyond that
as the double nearest to it (the loader never lets such a literal through).

Two writers produce identical text. The reference writer is plain Python, walks the value
iteratively and applies every rule directly; PyPy always uses it. On CPython a fast path
first proves, level by level with C-speed passes over the whole value, that the value holds
only the exact types above, keys without characters at or above U+E000 (so code-point order
equals UTF-16 order) and integers within +-(2**53-1); it then lets the C JSON encoder
(``sort_keys``, ``ensure_ascii=False``, no whitespace, the same escapes as RFC 8785) write the
text, handing it each ``Decimal`` as an ``int`` or ``float`` whose Python text *is* the ES6 text,
or, for the rare numbers where neither is (0 < |x| < 1e-4 written in exponent form by Python),
a marker string that is replaced afterwards and verified to occur exactly as often as issued.
Whenever a condition fails, the reference writer runs instead.
"""

import hashlib
import json
import json.encoder
import re
from decimal import Decimal
from itertools import chain, compress, repeat
from operator import is_

__all__ = ["canonical_json", "evidence_fingerprint", "fingerprint_hasher"]

_MAX_SAFE_INT = 2 ** 53 - 1
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


def _py_encode_string(s):
    """RFC 8785 string literal, in Python (used where the C encoder is missing)."""
    if _NEEDS_ESCAPE.search(s) is None:
        return '"' + s + '"'
    return '"' + _NEEDS_ESCAPE.sub(lambda m: _ESCAPES[m.group()], s) + '"'


# CPython's C ``encode_basestring`` (the ensure_ascii=False one) escapes exactly the RFC 8785
# set, with the same short forms and lowercase hex; the tests hold both to the same cases.
_c_encode_string = getattr(json.encoder, "c_encode_basestring", None)
_encode_string = _c_encode_string if _c_encode_string is not None else _py_encode_string


def _utf16_item_key(item):
    return item[0].encode("utf-16-be", "surrogatepass")


def _sorted_items(obj):
    """The members of ``obj`` in RFC 8785 order (keys compared as UTF-16 code units)."""
    high = False
    for key in obj:
        if type(key) is not str:
            raise TypeError("canonical JSON: object key must be str, not %s"
                            % type(key).__name__)
        if not high and not key.isascii() and _HIGH_CHAR.search(key) is not None:
            high = True
    if high:
        return sorted(obj.items(), key=_utf16_item_key)
    return sorted(obj.items())  # keys are distinct, so values are never compared


# --- numbers ---------------------------------------------------------------------------------

def _format_double(x):
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


def _decimal_to_double(d):
    try:
        x = float(d)  # correctly rounded; raises ValueError for a signalling NaN
    except ValueError:
        raise ValueError("canonical JSON: %s is not a finite number" % (d,)) from None
    if x != x or x == _FLOAT_INF or x == -_FLOAT_INF:
        raise ValueError("canonical JSON: %s is not a finite IEEE double" % (d,))
    return x


def _format_int(n):
    if -_MAX_SAFE_INT <= n <= _MAX_SAFE_INT:
        return int.__repr__(n)
    try:
        x = float(n)
    except OverflowError:
        raise ValueError("canonical JSON: integer %d is beyond the IEEE double range"
                         % n) from None
    return _format_double(x)


def _format_number(value):
    """ES6 text of an int, float or Decimal value."""
    t = type(value)
    if t is int:
        return _format_int(value)
    if t is Decimal:
        return _format_double(_decimal_to_double(value))
    return _format_double(value)


# --- the reference writer --------------------------------------------------------------------

def _reference_batches(value):
    """Yield the canonical text of ``value`` in batches of str (plain Python, any depth)."""
    out = []
    append = out.append
    encode = _encode_string
    stack = []  # (iterator over the remaining members or items, is_object, id)
    open_ids = set()  # containers on the current path, to refuse cycles
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
                it = iter(_sorted_items(v))
                key, v = next(it)
                append("{")
                append(encode(key))
                append(":")
                open_ids.add(ident)
                stack.append((it, True, ident))
                continue
            append("{}")
        elif t is list:
            if v:
                ident = id(v)
                if ident in open_ids:
                    raise ValueError("canonical JSON: circular reference")
                it = iter(v)
                v = next(it)
                append("[")
                open_ids.add(ident)
                stack.append((it, False, ident))
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
            it, is_object, ident = stack[-1]
            for item in it:
                break
            else:
                append("}" if is_object else "]")
                open_ids.discard(ident)
                stack.pop()
                continue
            append(",")
            if is_object:
                key, v = item
                append(encode(key))
                append(":")
            else:
                v = item
            break
        else:
            yield "".join(out)
            return
        if len(out) >= _REFERENCE_BATCH:
            yield "".join(out)
            del out[:]


def _reference_text(value):
    return "".join(_reference_batches(value))


# --- the CPython fast path -------------------------------------------------------------------

_c_make_encoder = getattr(json.encoder, "c_make_encoder", None)
_FAST_TYPES = frozenset([dict, list, str, int, bool, type(None), Decimal])
_STR_ONLY = frozenset([str])

# Marker text for a number that neither int nor float prints in ES6 form; the C encoder
# writes it as the JSON string '"\u0000jcs-number:N"'.
_MARKER_PREFIX = "\x00jcs-number:"
_MARKER_RE = re.compile('"' + re.escape(_encode_string(_MARKER_PREFIX)[1:-1]) + '([0-9]+)"')


def _fast_path_applies(value):
    """True when the C encoder is proven to write ``value`` canonically (see the docstring).

    Walks the value one nesting level at a time; every per-element step runs inside C
    (``map``, ``set``, ``chain``, ``compress``), so a million records cost well under a second.
    """
    t = type(value)
    objects = [value] if t is dict else []
    arrays = [value] if t is list else []
    depth = 0
    while objects or arrays:
        depth += 1
        if depth > _FAST_MAX_DEPTH:
            return False
        if objects:
            if not set(map(type, chain.from_iterable(objects))) <= _STR_ONLY:
                return False
            keys = "".join(set(chain.from_iterable(objects)))
            if not keys.isascii() and _HIGH_CHAR.search(keys) is not None:
                return False
            values = list(chain.from_iterable(map(dict.values, objects)))
            values.extend(chain.from_iterable(arrays))
        else:
            values = list(chain.from_iterable(arrays))
        types = list(map(type, values))
        kinds = set(types)
        if not kinds <= _FAST_TYPES:
            return False
        if int in kinds:
            ints = list(compress(values, map(is_, repeat(int), types)))
            if min(ints) < -_MAX_SAFE_INT or max(ints) > _MAX_SAFE_INT:
                return False
        objects = list(compress(values, map(is_, repeat(dict), types))) if dict in kinds else []
        arrays = list(compress(values, map(is_, repeat(list), types))) if list in kinds else []
    return True


def _fast_text(value):
    """The canonical text of ``value`` via the C encoder, or None where it cannot be used."""
    if _c_make_encoder is None or _c_encode_string is None:
        return None
    if type(value) not in (dict, list) or not _fast_path_applies(value):
        return None
    deferred = []

    def number(obj):
        # Only Decimals reach here (the types were checked above).
        if type(obj) is not Decimal:
            raise TypeError("canonical JSON: unsupported type %s" % type(obj).__name__)
        x = _decimal_to_double(obj)
        text = float.__repr__(x)
        if "e" not in text:
            if text.endswith(".0"):
                # Integral and below 1e16: ES6 writes the same digits without '.0'.
                return int(text[:-2])
            # Non-integral, 1e-4 <= |x| < 1e16: repr's plain notation is the ES6 one.
            return x
        es6 = _format_double(x)
        if es6 == text:  # |x| >= 1e21, or tiny with a two-digit-plus exponent
            return x
        if "e" not in es6 and "." not in es6:  # integral, 1e16 <= |x| < 1e21
            return int(es6)
        deferred.append(es6)  # 1e-9 <= |x| < 1e-4 (Python: '1e-05', ES6: '0.00001')
        return _MARKER_PREFIX + str(len(deferred) - 1)

    encoder = json.JSONEncoder(ensure_ascii=False, allow_nan=False, sort_keys=True,
                               separators=(",", ":"), default=number)
    text = encoder.encode(value)
    if deferred:
        found = [int(m) for m in _MARKER_RE.findall(text)]
        # Each marker occurs once; any extra match came from a string in the data, and then
        # the reference writer decides (a string can never hide one of the markers).
        if sorted(found) != list(range(len(deferred))):
            return None
        text = _MARKER_RE.sub(lambda m: deferred[int(m.group(1))], text)
    return text


# --- public interface ------------------------------------------------------------------------

def _text_batches(value):
    text = _fast_text(value)
    if text is None:
        return _reference_batches(value)
    return (text,)


def canonical_json(value):
    """RFC 8785 (JSON Canonicalization Scheme) serialisation of ``value`` as UTF-8 bytes."""
    return "".join(_text_batches(value)).encode("utf-8")


def fingerprint_hasher(value, hasher):
    """Feed the RFC 8785 serialisation of ``value`` into ``hasher`` (a hashlib object).

    Text is encoded and fed in slices, never as one full-size bytes object. On an exception
    the hasher has been fed part of the text and must be discarded. Returns ``hasher``.
    """
    update = hasher.update
    for batch in _text_batches(value):
        if len(batch) <= _HASH_SLICE:
            update(batch.encode("utf-8"))
        else:
            for start in range(0, len(batch), _HASH_SLICE):
                update(batch[start:start + _HASH_SLICE].encode("utf-8"))
    return hasher


def evidence_fingerprint(spec, cases, results, candidate_system_id):
    """'sha256:' + hex SHA-256 of canonical_json([spec, cases, results, candidate_system_id])."""
    hasher = fingerprint_hasher([spec, cases, results, candidate_system_id], hashlib.sha256())
    return "sha256:" + hasher.hexdigest()
