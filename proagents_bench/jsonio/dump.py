"""The output's JSON text, written fast and in pieces: byte for byte what
``json.dumps(value, ensure_ascii=True, sort_keys=True, indent=2, allow_nan=False)`` writes.

Why not ``json.dumps`` itself: with ``indent`` the standard library drops its C encoder for a
pure-Python generator (one ``yield`` per token), which needs seconds for the million small
objects of a large decision's ``trial_results``; and it returns one string, so the document
and its text must both be in memory. :func:`pieces` yields the text in pieces instead (the CLI
gets it as one-megabyte chunks), several times faster on long lists:

- A list of objects that all have the same keys (``trial_results``, ``task_results``) is
  written column by column, in batches: for each key, the batch's values are turned into text
  by one C-level ``map`` (``encode_basestring_ascii`` for strings, ``int.__repr__``,
  ``float.__repr__``, ``repr`` for integers and floats mixed, a table for Booleans), a column
  of strings and nulls by one comprehension, a column of lists of strings (an imported
  record's ``tools_used``) by one ``map`` over all their strings, a nested object column
  recursively the same way; then a ``%`` template of the object's layout (sorted keys, the
  indent of its level) takes each row. The template is made from the same rules as below,
  so the bytes cannot differ.
- Anything else is written by a plain recursive writer that follows the standard encoder's
  rules: ``{`` or ``[``, then each member on its own line indented two spaces per level,
  members separated by a comma at the end of the line, ``": "`` after keys, keys sorted,
  ``{}``/``[]`` when empty; strings through the same ``encode_basestring_ascii`` the ``json``
  module uses, integers by ``int.__repr__``, floats by ``float.__repr__``,
  ``true``/``false``/``null``.
- A value whose type has a ``json_pieces(level)`` method writes itself: the decision keeps
  its trial results as :class:`~proagents_bench.trialrows.TrialRows`, which yield the text of
  the list of objects they stand for.
- A value of any other kind (a subclass, a tuple, a key that is not a string, a NaN) is handed
  to ``json.dumps`` itself, whose text at nesting level L is its level-0 text with every newline
  followed by 2L more spaces (JSON strings hold no raw newline): so such values come out
  exactly as ``json.dumps`` writes them, or raise exactly its error.

The tests compare :func:`dumps` with ``json.dumps`` on the decision documents and on random
values of every kind.
"""

from __future__ import annotations

import json
import json.encoder
import math
from itertools import chain, islice, repeat
from operator import itemgetter
from typing import Iterator, List, Optional, Sequence

from . import JSON

# The json module's own string writer (C in CPython), so strings come out as it writes them.
encode_string = _encode_string = json.encoder.encode_basestring_ascii

INDENT = "  "
# Lists at least this long go through the column writer; shorter ones are not worth it.
COLUMN_MIN_ITEMS = 16
# Rows written per batch (bounds the memory of one batch's columns and pieces).
BATCH_ITEMS = 4096
# Containers nested deeper than this are refused like a cycle (``json.dumps`` would detect a
# cycle; the decision documents nest six levels deep).
MAX_DEPTH = 200

_BOOLEAN_TEXT = {True: "true", False: "false"}
_SCALARS = (str, int, float, bool, type(None))
_NUMBER_TYPES = {int, float}
_OPTIONAL_STRING_TYPES = {str, type(None)}
_NON_FINITE_TEXTS = frozenset({"nan", "inf", "-inf"})


def dumps(value: JSON) -> str:
    """The whole text at once (as ``json.dumps`` with the options above)."""
    return "".join(pieces(value))


def document_bytes(value: JSON) -> bytes:
    """A whole JSON document as the product writes one (the service's answers, the
    commands' reports, an imported results package): :func:`dumps` and a final newline, as
    ASCII bytes, each piece encoded on its own (a whole text of hundreds of megabytes, and
    a copy of it with its newline, would be made only to be encoded)."""
    return b"".join([piece.encode("ascii") for piece in pieces(value)] + [b"\n"])


def pieces(value: JSON, level: int = 0) -> Iterator[str]:
    """Yield the text of ``value`` in pieces (each a str; long lists in batches), as written
    at nesting ``level`` (what follows each of its newlines is indented for that level)."""
    return _write(value, level)


def _fallback(value: JSON, level: int) -> str:
    """The standard library's text for ``value`` at nesting ``level``."""
    text = json.dumps(value, ensure_ascii=True, sort_keys=True, indent=2, allow_nan=False)
    if level and "\n" in text:
        text = text.replace("\n", "\n" + INDENT * level)
    return text


def _scalar(value: JSON, level: int) -> str:
    """The text of a scalar; or of anything else, via the generic writers."""
    kind = type(value)
    if kind is str:
        return _encode_string(value)
    if kind is bool:
        return "true" if value else "false"
    if kind is int:
        return int.__repr__(value)
    if kind is float:
        return float.__repr__(value) if math.isfinite(value) else _fallback(value, level)
    if value is None:
        return "null"
    return "".join(_write(value, level))


def _write(value: JSON, level: int) -> Iterator[str]:
    kind = type(value)
    if kind is dict:
        if not value:
            yield "{}"
            return
        if level > MAX_DEPTH:
            raise ValueError("Circular reference detected")
        if not all(type(key) is str for key in value):
            yield _fallback(value, level)
            return
        inner = "\n" + INDENT * (level + 1)
        yield "{"
        if len(value) >= COLUMN_MIN_ITEMS:
            # A large mapping (by_family, by_slice) of objects sharing one key order: the
            # values are written column by column too, in batches.
            keys = sorted(value)
            for start in range(0, len(keys), BATCH_ITEMS):
                batch = keys[start:start + BATCH_ITEMS]
                texts = _object_texts([value[key] for key in batch], level + 1)
                if texts is None:
                    break
                yield (inner if not start else "," + inner) + ("," + inner).join(
                    map("%s: %s".__mod__, zip(map(_encode_string, batch), texts)))
            else:
                yield "\n" + INDENT * level + "}"
                return
            if start:  # a later batch was not uniform: write the rest one by one
                for key in keys[start:]:
                    yield "," + inner + _encode_string(key) + ": "
                    yield from _member(value[key], level + 1)
                yield "\n" + INDENT * level + "}"
                return
        first = True
        for key in sorted(value):
            yield (inner if first else "," + inner) + _encode_string(key) + ": "
            first = False
            yield from _member(value[key], level + 1)
        yield "\n" + INDENT * level + "}"
    elif kind is list:
        if not value:
            yield "[]"
            return
        if level > MAX_DEPTH:
            raise ValueError("Circular reference detected")
        inner = "\n" + INDENT * (level + 1)
        yield "["
        if len(value) >= COLUMN_MIN_ITEMS:
            yield from _write_rows(value, level + 1, inner)
        else:
            for index, item in enumerate(value):
                yield inner if not index else "," + inner
                yield from _member(item, level + 1)
        yield "\n" + INDENT * level + "]"
    elif kind in _SCALAR_TYPES:
        yield _scalar(value, level)
    elif hasattr(kind, "json_pieces"):
        # A value that writes itself (``TrialRows``): it yields the text it stands for.
        yield from value.json_pieces(level)
    else:
        yield _fallback(value, level)


_SCALAR_TYPES = frozenset(_SCALARS)


def _member(item: JSON, level: int) -> Iterator[str]:
    """The text of a member or element at ``level``."""
    if type(item) in _SCALAR_TYPES:
        yield _scalar(item, level)
    else:
        yield from _write(item, level)


def _write_rows(items: List[JSON], level: int, inner: str) -> Iterator[str]:
    """The items of a long list at ``level`` (the opening bracket already written), in
    batches; uniform objects column by column, anything else one by one."""
    separator = "," + inner
    for start in range(0, len(items), BATCH_ITEMS):
        batch = items[start:start + BATCH_ITEMS]
        texts = _object_texts(batch, level)
        if texts is None:
            texts = [_scalar(item, level) for item in batch]
        yield (inner if not start else separator) + separator.join(texts)


def _object_texts(objects: Sequence[JSON], level: int) -> Optional[List[str]]:
    """The texts of ``objects`` (all at ``level``) if they are plain dicts sharing one key
    order, with str keys; else None."""
    if not objects or set(map(type, objects)) != {dict}:
        return None
    layouts = set(map(tuple, objects))
    if len(layouts) != 1:
        return None
    keys = layouts.pop()
    if not keys:
        return ["{}"] * len(objects)
    if not all(type(key) is str for key in keys):
        return None
    ordered = sorted(keys)
    columns = [_column_texts(list(map(itemgetter(key), objects)), level + 1)
               for key in ordered]
    inner = "\n" + INDENT * (level + 1)
    template = "{" + ",".join(inner + _encode_string(key).replace("%", "%%") + ": %s"
                              for key in ordered) + "\n" + INDENT * level + "}"
    return list(map(template.__mod__, zip(*columns)))


def _column_texts(values: List[JSON], level: int) -> List[str]:
    """The texts of one column of values at ``level``, by one C-level map where possible."""
    kinds = set(map(type, values))
    if len(kinds) == 1:
        kind = kinds.pop()
        if kind is str:
            return list(map(_encode_string, values))
        if kind is bool:
            return list(map(_BOOLEAN_TEXT.__getitem__, values))
        if kind is int:
            return list(map(int.__repr__, values))
        if kind is float and all(map(math.isfinite, values)):
            return list(map(float.__repr__, values))
        if kind is type(None):
            return list(repeat("null", len(values)))
        if kind is dict:
            texts = _object_texts(values, level)
            if texts is not None:
                return texts
        if kind is list:
            texts = _string_list_texts(values, level)
            if texts is not None:
                return texts
    elif kinds == _NUMBER_TYPES:
        # Integers and floats mixed (a cost of 0.003 beside one of 2): ``repr`` is
        # ``int.__repr__`` or ``float.__repr__`` on these exact types; a NaN or an infinity
        # goes the generic way, to raise what json.dumps raises.
        texts = list(map(repr, values))
        if not _NON_FINITE_TEXTS.intersection(texts):
            return texts
    elif kinds == _OPTIONAL_STRING_TYPES:  # a final state, or none
        return [_encode_string(value) if value is not None else "null" for value in values]
    return list(map(_scalar, values, repeat(level)))


def _string_list_texts(lists: List[List[str]], level: int) -> Optional[List[str]]:
    """The texts of lists of plain strings (``tools_used``) at ``level``, every string by one
    C-level map; None when any element is not a str."""
    strings = list(chain.from_iterable(lists))
    if strings and set(map(type, strings)) != {str}:
        return None
    encoded = map(_encode_string, strings)
    inner = "\n" + INDENT * (level + 1)
    separator = "," + inner
    close = "\n" + INDENT * level + "]"
    return ["[" + inner + separator.join(islice(encoded, len(item))) + close if item else "[]"
            for item in lists]

