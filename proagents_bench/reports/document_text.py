"""The text mode of a small JSON document (the service's maintenance commands: team, phase,
backup, restore): its keys as lines a person reads, ``key: value``, an object's keys indented
under it, a list of objects (or of long values) as ``-`` items, in the document's own order. The JSON document,
for a script, is what stdout carries everywhere but at a terminal (``--format json``).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, List

from .words import clean

if TYPE_CHECKING:  # for annotations only
    from ..jsonio import JSON, JSONObject

# A list of values is one line, "key: a, b, c", up to this long and without commas of its own.
INLINE_CHARS = 80


def scalar(value: JSON) -> str:
    """A value as a person reads it: ``none``, ``yes``/``no``, a number or the text."""
    if value is None:
        return "none"
    if isinstance(value, bool):
        return "yes" if value else "no"
    return clean(value)


def document_lines(document: JSONObject, indent: str = "") -> List[str]:
    """The lines of ``document`` (see the module docstring)."""
    lines = []
    for key, value in document.items():
        if isinstance(value, dict):
            lines.append("%s%s:%s" % (indent, key, "" if value else " none"))
            lines += document_lines(value, indent + "  ")
        elif isinstance(value, list) and value and all(isinstance(item, dict)
                                                        for item in value):
            lines.append("%s%s:" % (indent, key))
            for item in value:
                inner = document_lines(item, indent + "    ")
                lines += [indent + "  - " + inner[0][len(indent) + 4:]] + inner[1:] \
                    if inner else [indent + "  -"]
        elif isinstance(value, list):
            items = [scalar(item) if not isinstance(item, (dict, list)) else clean(item)
                     for item in value]
            inline = ", ".join(items)
            if len(inline) <= INLINE_CHARS and not any("," in item for item in items):
                lines.append("%s%s: %s" % (indent, key, inline or "none"))
            else:  # long or holding commas: an item a line
                lines.append("%s%s:" % (indent, key))
                lines += ["%s  - %s" % (indent, item) for item in items]
        else:
            lines.append("%s%s: %s" % (indent, key, scalar(value)))
    return lines
