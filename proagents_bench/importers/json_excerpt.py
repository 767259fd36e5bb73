"""A JSON document read from a stream of bytes, keeping only the parts asked for, each cut to
a bound: what a trace is read from (a sample of an Inspect AI log can be hundreds of
megabytes, most of it events the trace does not need; a tau2-bench results.json holds every
simulation, of which a trace needs one).

:func:`excerpt` reads the bytes as they come (a chunk at a time, never the whole document)
and returns the parts :data:`Want` names: an object's keys asked for, an array's items at
the indexes asked for, or a whole value (:data:`WHOLE`) with every string cut to
``text_limit`` characters and every array and object to ``item_limit`` items. Everything
else is skipped over without being decoded, so memory is the parts kept plus one chunk,
whatever the document's size; what was cut is said (:class:`Excerpt`'s ``cuts``).

Skipped parts are not checked as JSON: a trace is read only from bytes whose SHA-256 the
import took when it read them whole (checked as they stream by, by the caller), so bytes
that match were valid JSON then; a kept part that is not JSON, or a document that ends too
soon, is :class:`ExcerptError`.
"""

from __future__ import annotations

import json
import re
from typing import Dict, Iterator, List, Optional, Pattern, Union

from ..jsonio import JSON

# What ends a string cut here (how long it was is said in the excerpt's cuts).
CUT_MARK = " [...]"

# What to keep of a value: WHOLE (all of it, cut to the bounds), or, of an object, a mapping
# of its keys to what to keep of each (the other keys skipped), or, of an array, a mapping of
# item indexes to what to keep of each.
WHOLE = True
Want = Union[bool, Dict[Union[str, int], "Want"]]

_SPACE = re.compile(rb"[ \t\r\n]*")
# The rest of a string after its opening quote, up to (not past) its closing quote or the end
# of the bytes at hand (where an escape may be cut in two: a backslash is then left over).
_STRING_BODY = re.compile(rb'[^"\\]*(?:\\.[^"\\]*)*', re.S)
# A whole string, a bracket, or the quote of a string that goes on past the bytes at hand:
# what skipping a value looks at.
_TOKEN = re.compile(rb'"[^"\\]*(?:\\.[^"\\]*)*"|[\[\]{}]|"', re.S)
OPEN_BRACKET, CLOSE_BRACKET, OPEN_BRACE, CLOSE_BRACE = b"[]{}"
_SCALAR = re.compile(rb"-?[0-9][0-9.eE+-]*|true|false|null")
MAX_SCALAR_BYTES = 400


class ExcerptError(ValueError):
    """The bytes are not a JSON document where a part was kept (or end too soon); the
    message says what was found and at which byte."""


class Excerpt:
    """What :func:`excerpt` kept (``value``: the document's parts asked for, the others
    absent; an array's items asked for as a mapping of index to item), and what it cut
    (``cuts``: a sentence per value cut, its JSON path first)."""

    def __init__(self, value: JSON, cuts: List[str]) -> None:
        self.value = value
        self.cuts = cuts


def excerpt(chunks: Iterator[bytes], want: Want, text_limit: int = 400,
            item_limit: int = 1000) -> Excerpt:
    """The parts of the JSON document in ``chunks`` (its bytes, in order) that ``want``
    names; the chunks are read to the end (their digest is the caller's to check)."""
    reader = _Reader(chunks, text_limit, item_limit)
    value = reader.value(want, "$")
    for _chunk in chunks:  # the rest: only for its digest, never parsed
        pass
    return Excerpt(value, reader.cuts)


class _Reader:
    def __init__(self, chunks: Iterator[bytes], text_limit: int, item_limit: int) -> None:
        self.chunks = chunks
        self.data = b""
        self.at = 0
        self.consumed = 0  # bytes before ``data``
        self.text_limit = text_limit
        self.item_limit = item_limit
        self.cuts: List[str] = []

    # -- the bytes at hand -----------------------------------------------------------------
    def _more(self) -> bool:
        """Read the next chunk (keeping what is not consumed yet); False at the end."""
        for chunk in self.chunks:
            if chunk:
                self.consumed += self.at
                self.data = self.data[self.at:] + chunk
                self.at = 0
                return True
        return False

    def _fail(self, what: str) -> ExcerptError:
        return ExcerptError("%s at byte %d" % (what, self.consumed + self.at))

    def _peek(self) -> int:
        """The next byte that is not white space (consumed up to it); a failure at the end."""
        while True:
            self.at = _match_end(_SPACE, self.data, self.at)
            if self.at < len(self.data):
                return self.data[self.at]
            if not self._more():
                raise self._fail("the JSON ends too soon")

    def _expect(self, allowed: bytes) -> int:
        found = self._peek()
        if found not in allowed:
            raise self._fail("expected one of %s, found %r" % (
                " ".join(chr(byte) for byte in allowed), chr(found)))
        self.at += 1
        return found

    # -- values ----------------------------------------------------------------------------
    def value(self, want: Want, path: str) -> JSON:
        first = self._peek()
        if first == ord("{"):
            return self._object(want, path)
        if first == ord("["):
            return self._array(want, path)
        if first == ord('"'):
            self.at += 1
            return self._string(path)
        return self._scalar()

    def _scalar(self) -> JSON:
        while True:
            found = _SCALAR.match(self.data, self.at)
            # A scalar that reaches the end of the bytes at hand may go on in the next chunk
            # (a few bytes are left at most: no literal is longer than a number's digits).
            if found is not None and found.end() < len(self.data) or (
                    found is None and len(self.data) - self.at > MAX_SCALAR_BYTES):
                break
            if not self._more():
                break
        if found is None:
            raise self._fail("not a JSON value")
        self.at = found.end()
        try:
            return json.loads(found.group())
        except ValueError:
            raise self._fail("not a JSON number: %r" % found.group()[:40]) from None

    def _string(self, path: str) -> str:
        """A string (its opening quote consumed), its first ``text_limit`` characters kept."""
        kept = bytearray()
        # Enough bytes for text_limit characters however escaped (a \\uXXXX pair: 12 bytes).
        keep = self.text_limit * 12 + 16
        dropped = 0
        while True:
            end = _match_end(_STRING_BODY, self.data, self.at)
            part = self.data[self.at:end]
            room = keep - len(kept)
            kept += part[:room]
            dropped += max(len(part) - room, 0)
            self.at = end
            if end < len(self.data) and self.data[end] == ord('"'):
                self.at += 1
                break
            if not self._more():  # (a backslash cut from its escape stays for the next chunk)
                raise self._fail("a string that does not end")
        text = _decoded(bytes(kept), dropped > 0)
        if dropped or len(text) > self.text_limit:
            self.cuts.append("%s: a string of %s bytes in the log cut to its first %d "
                             "characters" % (path, "{:,}".format(len(kept) + dropped),
                                             self.text_limit))
            return text[:self.text_limit] + CUT_MARK
        return text

    def _object(self, want: Want, path: str) -> JSON:
        self.at += 1
        kept: Dict[str, JSON] = {}
        skipped = 0
        if self._peek() == ord("}"):
            self.at += 1
            return kept
        while True:
            if self._expect(b'"') != ord('"'):
                raise self._fail("expected a key")
            key = self._string(path + ".key")
            self._expect(b":")
            inner = want if want is WHOLE else (
                want.get(key) if isinstance(want, dict) else None)
            if inner is None or inner is False or (want is WHOLE and len(kept) >=
                                                   self.item_limit):
                skipped += want is WHOLE
                self._skip()
            else:
                kept[key] = self.value(inner, "%s.%s" % (path, key))
            if self._expect(b",}") == ord("}"):
                break
        if skipped:
            self.cuts.append("%s: an object cut to its first %d keys (%s more)" % (
                path, self.item_limit, "{:,}".format(skipped)))
        return kept

    def _array(self, want: Want, path: str) -> JSON:
        self.at += 1
        whole = want is WHOLE
        items: List[JSON] = []
        chosen: Dict[int, JSON] = {}
        index = 0
        if self._peek() == ord("]"):
            self.at += 1
            return items if whole else {}
        while True:
            inner = WHOLE if whole else (want.get(index) if isinstance(want, dict) else None)
            if inner is None or inner is False or (whole and index >= self.item_limit):
                self._skip()
            elif whole:
                items.append(self.value(WHOLE, "%s[%d]" % (path, index)))
            else:
                chosen[index] = self.value(inner, "%s[%d]" % (path, index))
            index += 1
            if self._expect(b",]") == ord("]"):
                break
        if whole and index > self.item_limit:
            self.cuts.append("%s: an array cut to its first %d items (%s more)" % (
                path, self.item_limit, "{:,}".format(index - self.item_limit)))
        return items if whole else chosen

    # -- skipping ----------------------------------------------------------------------------
    def _skip(self) -> None:
        """Past one value without decoding it: a container by its brackets and whole strings
        (one match each), a long string streamed past in chunks."""
        first = self._peek()
        if first not in b"[{\"":
            self._scalar()
            return
        depth = 0
        while True:
            for found in _TOKEN.finditer(self.data, self.at):
                self.at = found.end()
                byte = self.data[found.start()]
                if byte == OPEN_BRACKET or byte == OPEN_BRACE:
                    depth += 1
                elif byte == CLOSE_BRACKET or byte == CLOSE_BRACE:
                    depth -= 1
                elif self.at - found.start() == 1:  # a string that goes on: streamed past
                    self._skip_string()
                    break
                if depth == 0:
                    return
            else:
                self.at = len(self.data)
                if not self._more():
                    raise self._fail("the JSON ends too soon")
                continue
            if depth == 0:
                return

    def _skip_string(self) -> None:
        while True:
            end = _match_end(_STRING_BODY, self.data, self.at)
            self.at = end
            if end < len(self.data) and self.data[end] == ord('"'):
                self.at += 1
                return
            if not self._more():
                raise self._fail("a string that does not end")


def _match_end(pattern: Pattern[bytes], data: bytes, at: int) -> int:
    """Where a match of ``pattern`` (one that matches the empty string too) at ``at`` ends."""
    found = pattern.match(data, at)
    return found.end() if found is not None else at


def _decoded(raw: bytes, cut: bool) -> str:
    """A string's bytes (between its quotes) as text; a string cut short loses its last
    escape and character where the cut fell inside them (an escape is at most 6 bytes)."""
    for shorter in range(7 if cut else 1):
        text = raw[:len(raw) - shorter].decode("utf-8", "ignore" if cut else "replace")
        try:
            decoded: str = json.loads('"%s"' % text)
            return decoded
        except ValueError:
            continue
    raise ExcerptError("not a JSON string: %r" % raw[:40])


def chunks_of(data: Union[bytes, memoryview], size: int = 1 << 20) -> Iterator[bytes]:
    """``data`` a chunk at a time (bytes already in memory, such as a zstd entry's)."""
    view = memoryview(data)
    for start in range(0, len(view), size):
        yield bytes(view[start:start + size])


def want_of(path: Optional[List[Union[str, int]]], inner: Want) -> Want:
    """What to keep to reach one value at ``path`` (keys and indexes from the top) and keep
    ``inner`` of it."""
    want = inner
    for step in reversed(path or []):
        want = {step: want}
    return want
