"""What the loader checks a file for on its fast path, at C speed where it can (see
:mod:`.load`): the contract's limits on a JSON file, the byte-level prescans (nesting depth,
lone surrogate escapes), the I-JSON number rules, and the decoders whose hooks raise at the
first suspicious object or number.

The hooks keep the checks inline and their cheap tests first: a nested call per number
costs 5%; ``int()`` of a huge literal is quadratic (or refused beyond 4300 digits), and
without an exponent a literal of <= 100 characters cannot overflow a double. Measured and
kept as they are: without ``parse_int`` (the C scanner's own ``int``) and with ``parse_float``
reduced to making and recording the Decimal, the decoder is about a tenth faster, but any
C-speed proof that no literal needs the checks (a translation of the bytes and two searches,
or a regular expression) costs more than that.
"""

from __future__ import annotations

import json
import re
from decimal import Decimal
from typing import Callable, List, NoReturn, Optional, Tuple

from . import JSON, JSONObject

MAX_DEPTH = 64  # the root object or array is at depth 1
MAX_NUMBER_LITERAL_CHARS = 100
MAX_SAFE_INTEGER = 2 ** 53 - 1  # I-JSON: integers beyond this are not exact in a double
# The exponent written after e/E. Exact arithmetic on 1e-999999999 would build 10**999999999
# (the run would never end); every finite double, 4.9e-324 to 1.8e308, is writable within
# this bound, and with at most MAX_NUMBER_LITERAL_CHARS digits any number then costs
# microseconds, as CPython bounds its int-to-str conversion (CVE-2020-10735).
MAX_NUMBER_EXPONENT = 400

_HIGH = rb"\\u[dD][89abAB][0-9a-fA-F]{2}"
_LOW = rb"\\u[dD][c-fC-F][0-9a-fA-F]{2}"
_HIGH_RE, _LOW_RE, _PAIR_RE = re.compile(_HIGH), re.compile(_LOW), re.compile(_HIGH + _LOW)
# Keep only brackets and quotes, with both kinds of bracket mapped to one (see nesting_ok).
_BRACKETS = bytes.maketrans(b"{}", b"[]")
_NOT_STRUCTURE = bytes(b for b in range(256) if b not in b'[]{}"')
_INF = float("inf")


class Suspicious(Exception):
    """A hook saw a contract violation; the walker (:mod:`.locate`) is to find out what and
    where."""


def number_problem(literal: str) -> Optional[Tuple[str, str]]:
    """(code, message) if a JSON number literal breaks the contract, else None."""
    if len(literal) > MAX_NUMBER_LITERAL_CHARS:
        return ("json.number_too_long", "a number literal of %d characters (%s...); at most %d "
                "are allowed" % (len(literal), literal[:20], MAX_NUMBER_LITERAL_CHARS))
    if "e" in literal or "E" in literal:
        exponent = int(literal.lower().partition("e")[2])
        if abs(exponent) > MAX_NUMBER_EXPONENT:
            return ("json.exponent_too_large", "the number %s has the exponent %d; exponents "
                    "lie within -%d..%d, which writes every finite IEEE double"
                    % (literal, exponent, MAX_NUMBER_EXPONENT, MAX_NUMBER_EXPONENT))
        if abs(float(literal)) == _INF:  # float() rounds correctly: inf iff the nearest is
            return ("json.number_out_of_range", "the number %s is not finite as an IEEE double "
                    "(I-JSON, RFC 7493)" % literal)
    elif len(literal) > 15 and "." not in literal and abs(int(literal)) > MAX_SAFE_INTEGER:
        return ("json.number_out_of_range", "the integer %s lies outside +/-(2**53 - 1) = "
                "+/-%d (I-JSON, RFC 7493)" % (literal, MAX_SAFE_INTEGER))
    return None


def _pairs_hook(pairs: List[Tuple[str, JSON]]) -> JSONObject:
    result = dict(pairs)
    if len(result) != len(pairs):
        raise Suspicious()
    return result


# The checks are repeated inline in the hooks (see the module docstring).
def _int_hook(literal: str) -> int:
    if len(literal) > 15 and number_problem(literal):
        raise Suspicious()
    return int(literal)


def _check_int(literal: str) -> None:
    if len(literal) > 15 and number_problem(literal):
        raise Suspicious()


def _check_float(literal: str) -> None:
    if (len(literal) > MAX_NUMBER_LITERAL_CHARS or "e" in literal or "E" in literal) \
            and number_problem(literal):
        raise Suspicious()


def _check_pairs(pairs: List[Tuple[str, object]]) -> None:
    if len(dict(pairs)) != len(pairs):
        raise Suspicious()


def _constant_hook(name: str) -> NoReturn:
    raise Suspicious()


def recording_decoder(decimals: List[Decimal]) -> json.JSONDecoder:
    """The decoder of valid files, with the hooks above, that also appends every Decimal it
    makes to ``decimals``: the evidence fingerprint needs them all, and finding them afterwards
    means walking the whole value again (half a second per 100,000 records), where appending
    here is nearly free. One per parse, so that parses never share a list."""
    append = decimals.append

    def parse_float(literal: str) -> Decimal:  # the checks inline, as above
        if (len(literal) > MAX_NUMBER_LITERAL_CHARS or "e" in literal or "E" in literal) \
                and number_problem(literal):
            raise Suspicious()
        value = Decimal(literal)
        append(value)
        return value

    return json.JSONDecoder(object_pairs_hook=_pairs_hook, parse_int=_int_hook,
                            parse_float=parse_float, parse_constant=_constant_hook)


# The walker's skipper: the same checks, without building values it would throw away.
CHECKER = json.JSONDecoder(object_pairs_hook=_check_pairs, parse_int=_check_int,
                            parse_float=_check_float, parse_constant=_constant_hook)
# Builds nothing (every hook is the C builtin len): for skipping values and for syntax errors.
SKIPPER = json.JSONDecoder(object_pairs_hook=len, parse_int=len, parse_float=len,
                            parse_constant=len)


def _scanner(decoder: json.JSONDecoder) -> Callable[[str, int], Tuple[object, int]]:
    """The decoder's ``scan_once(text, i) -> (value, end)``, which every JSONDecoder has
    (its stub does not say so)."""
    scan: Callable[[str, int], Tuple[object, int]] = getattr(decoder, "scan_once")
    return scan


check_once, skip_once = _scanner(CHECKER), _scanner(SKIPPER)


def nesting_ok(data: bytes, limit: int) -> bool:
    """Whether the JSON bytes nest at most ``limit`` deep; exact for valid JSON.

    Brackets inside strings are removed without a per-character loop: drop escaped
    backslashes and escaped quotes, keep only brackets and quotes (so all that is left of a
    string is its quotes around any brackets it holds), drop adjacent quote pairs (an empty
    string, or one string ending where the next begins), and split out what is left. Each
    ``replace(b"[]", b"")`` then removes exactly one level of innermost containers.
    """
    if b"\\" in data:
        data = data.replace(b"\\\\", b"").replace(b'\\"', b"")
    marks = data.translate(_BRACKETS, _NOT_STRUCTURE)
    del data
    if b'"' in marks:
        marks = marks.replace(b'""', b"")
        if b'"' in marks:
            marks = b"".join(marks.split(b'"')[::2])
    for _ in range(limit):
        if not marks:
            return True
        marks = marks.replace(b"[]", b"")
    return not marks


def surrogates_ok(data: bytes) -> bool:
    """Whether no \\uXXXX escape is a lone surrogate; exact for valid JSON.

    With escaped backslashes removed every backslash starts an escape, and there is no lone
    surrogate iff every high and every low surrogate escape belongs to an adjacent pair.
    """
    if b"\\" not in data:
        return True
    data = data.replace(b"\\\\", b"")
    if b"\\ud" not in data and b"\\uD" not in data:
        return True
    pairs = len(_PAIR_RE.findall(data))
    return pairs == len(_HIGH_RE.findall(data)) == len(_LOW_RE.findall(data))
