"""How values from the input are written into messages and reasons.

Every value that came from a file or an argument is quoted with :func:`quote` before it goes
into a message: escaped, ASCII, cut to a bounded length, so no input can end a line, clear a
screen or forge an ``ERROR:`` line, and a 10 MB id never becomes a 10 MB line. File names go
through :func:`display_name` (a name that is not UTF-8 must not put a lone surrogate into a
JSON document); numbers in reasons through :func:`show_number`.
"""

from __future__ import annotations

import difflib
import json
from typing import Iterable, Optional, Sequence, SupportsFloat, Union

# A value quoted into a message shows at most this many characters; the message then says
# how long the value is.
MAX_QUOTED_CHARS = 200
# How close a word must be to a known one to be suggested for it (difflib's ratio, 0..1):
# an option, a command, a choice, a key of an object, a file beside a missing one.
SUGGESTION_CUTOFF = 0.6
# File names share their extension and often a prefix: a file is suggested only nearer.
FILE_SUGGESTION_CUTOFF = 0.8


def nearest(word: str, known: Iterable[str], cutoff: float = SUGGESTION_CUTOFF
            ) -> Optional[str]:
    """The known word closest to ``word`` (a likely misspelling of it), or None; the same
    answer for the same words in any order.

    >>> nearest("final_stat", ["final_state", "status"]), nearest("xyz", ["final_state"])
    ('final_state', None)
    """
    found = difflib.get_close_matches(word, sorted(set(known)), 1, cutoff)
    return found[0] if found else None


def quote(value: object) -> str:
    r"""``value`` as an ASCII JSON string literal for a message: control characters,
    non-ASCII and quotes escaped, cut to MAX_QUOTED_CHARS characters.

    >>> print(quote("family\nERROR: \x1b[2J"))
    "family\nERROR: \u001b[2J"
    >>> print(quote("x" * 205))  # doctest: +ELLIPSIS
    "xxx...xxx"... (205 characters)
    """
    text = value if isinstance(value, str) else str(value)
    if len(text) <= MAX_QUOTED_CHARS:
        return json.dumps(text, ensure_ascii=True)
    return "%s... (%d characters)" % (json.dumps(text[:MAX_QUOTED_CHARS], ensure_ascii=True),
                                      len(text))


def display_name(path: Union[str, bytes]) -> str:
    r"""A file name as valid Unicode text. A name that is not valid UTF-8 reaches Python with
    lone surrogates in it (which no JSON document may carry): those bytes become ``\xNN``.

    >>> print(display_name("caf\udce9.json"))
    caf\xe9.json
    """
    if isinstance(path, bytes):
        data = path
    else:
        try:
            path.encode("utf-8")
            return path
        except UnicodeEncodeError:
            try:
                data = path.encode("utf-8", "surrogateescape")
            except UnicodeEncodeError:  # Windows: a lone UTF-16 surrogate in the name
                data = path.encode("utf-8", "surrogatepass")
    return data.decode("utf-8", "backslashreplace")


def show_number(value: SupportsFloat) -> str:
    """A rate or measure for a reason: up to six significant digits, the same everywhere.

    >>> show_number(0.8), show_number(2500), show_number(1 / 3)
    ('0.8', '2500', '0.333333')
    """
    return format(float(value), ".6g")


def listed(words: Sequence[str], last: str = "and") -> str:
    """Words as a list in a sentence: ``a``, ``a and b``, ``a, b and c``.

    >>> listed(["a new dataset_version", "a contamination check"]), listed(["x", "y", "z"])
    ('a new dataset_version and a contamination check', 'x, y and z')
    """
    return (" %s " % last).join(filter(None, (", ".join(words[:-1]), words[-1]))) \
        if words else ""
