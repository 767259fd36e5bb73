"""How the reports write values and lists in words: text from the inputs made safe to show
(no control characters), cut to a length, numbers as the reasons write them, and long lists
as their first few items and a count of the rest."""

from __future__ import annotations

import re
from typing import TYPE_CHECKING, Iterable, List, Sequence, Tuple, TypeVar

from ..text import show_number

if TYPE_CHECKING:  # for annotations only
    from ..jsonio import JSON

_T = TypeVar("_T")

# Control characters (Unicode category Cc), surrogates (Cs) and the noncharacters U+FFFE and
# U+FFFF: what XML forbids and no reader wants.
_UNWANTED = re.compile("[\x00-\x1f\x7f-\x9f\ud800-\udfff\ufffe\uffff]")
_SPACES = {"\t": " ", "\n": " ", "\r": " "}


def clean(text: object, keep_newlines: bool = False) -> str:
    """``text`` without control characters, surrogates and noncharacters; tabs and line
    breaks become spaces, unless ``keep_newlines`` (then a line feed stays)."""
    text = str(text)
    if text.isprintable():
        return text

    def replace(match: re.Match[str]) -> str:
        char = match.group()
        if char == "\n" and keep_newlines:
            return char
        return _SPACES.get(char, "")

    return _UNWANTED.sub(replace, text)


def shorten(text: object, limit: int) -> str:
    """``clean(text)``, cut to ``limit`` characters with an ellipsis."""
    text = clean(text)
    return text if len(text) <= limit else text[:limit - 1] + "\u2026"


def show(value: JSON) -> str:
    """A number as the reasons write it (six significant digits), or a dash."""
    if value is None:
        return "\u2014"
    if isinstance(value, bool):
        return "yes" if value else "no"
    if isinstance(value, int):
        return str(value)
    return show_number(value)


def show_any(value: JSON) -> str:
    """A finding's value: a number as :func:`show` writes it, anything else as text."""
    try:
        return show(value)
    except (TypeError, ValueError):
        return shorten(value, 80)


def show_gate(value: object) -> str:
    """A gate exactly as written in the spec (``0.80`` stays ``0.80``)."""
    return "\u2014" if value is None else str(value)


GROUP_NAMES = 3  # the names a group of reasons shows; then a count of the rest


def named(names: Sequence[str], limit: int = GROUP_NAMES, ellipsis: str = "\u2026",
          separator: str = ", ") -> str:
    """The first ``limit`` names, then how many more: ``t0, t1, t2 \u2026 (85 more)``.

    >>> named(["t0", "t1", "t2", "t3", "t4"], ellipsis="...")
    't0, t1, t2 ... (2 more)'
    >>> named(["t0", "t1"])
    't0, t1'
    """
    shown, rest = counted(names, limit)
    text = separator.join(shorten(name, 120) for name in shown)
    return "%s %s (%d more)" % (text, ellipsis, rest) if rest else text


def counted(items: Iterable[_T], limit: int) -> Tuple[List[_T], int]:
    """(the first ``limit`` items, how many were left out)."""
    listed = list(items)
    return listed[:limit], max(len(listed) - limit, 0)
