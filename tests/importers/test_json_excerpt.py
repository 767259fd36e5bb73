"""The JSON excerpt a trace is read from: the parts asked for of a document streamed in
chunks, equal to what ``json.loads`` gives of them whatever the chunks' size, each string
and array cut to its bound (and the cut said), the rest skipped without being decoded, in
memory bounded by what is kept."""

import json
import unittest
import zipfile

try:
    import tracemalloc
except ImportError:  # PyPy has no tracemalloc
    tracemalloc = None

from proagents_bench.importers.json_excerpt import (WHOLE, ExcerptError, chunks_of, excerpt,
                                                    want_of)

from .support import fixture

SIZES = (1, 2, 3, 7, 64, 4096, 1 << 20)


def samples():
    """Every sample Inspect AI wrote for the fixtures, as bytes."""
    for name in ("explain_candidate.eval", "baseline.eval"):
        with zipfile.ZipFile(fixture(name)) as archive:
            for info in archive.infolist():
                if info.filename.startswith("samples/test-"):
                    yield "%s:%s" % (name, info.filename), archive.read(info)


class ExcerptTests(unittest.TestCase):
    def test_the_parts_kept_are_json_loads_own_whatever_the_chunks(self):
        wanted = {"id": WHOLE, "epoch": WHOLE, "messages": WHOLE, "output": WHOLE}
        for name, data in list(samples())[:6]:
            whole = json.loads(data.decode("utf-8"))
            for size in SIZES:
                with self.subTest(sample=name, chunk=size):
                    found = excerpt(chunks_of(data, size), wanted, text_limit=10 ** 6)
                    self.assertEqual(found.value, {key: whole[key] for key in wanted})
                    self.assertEqual(found.cuts, [])

    def test_escapes_and_brackets_inside_skipped_strings(self):
        document = {"skip": ["[{\\\"", "\\\\", "]}" * 50, {"a": "\"}"}], "keep": "\\\"x\u00e9",
                    "after": [1, -2.5e3, True, None, False]}
        data = json.dumps(document).encode("utf-8")
        for size in SIZES:
            with self.subTest(chunk=size):
                found = excerpt(chunks_of(data, size), {"keep": WHOLE, "after": WHOLE})
                self.assertEqual(found.value, {"keep": document["keep"],
                                               "after": document["after"]})

    def test_an_array_keeps_only_the_items_asked_for(self):
        data = json.dumps({"rows": [{"n": index} for index in range(50)]}).encode("utf-8")
        found = excerpt(chunks_of(data, 5), want_of(["rows"], {7: WHOLE, 31: WHOLE}))
        self.assertEqual(found.value, {"rows": {7: {"n": 7}, 31: {"n": 31}}})

    def test_long_strings_and_arrays_are_cut_and_the_cut_is_said(self):
        document = {"text": "\u00e9" * 1000 + "\\n", "items": list(range(30))}
        found = excerpt(chunks_of(json.dumps(document).encode("utf-8"), 3), WHOLE,
                        text_limit=20, item_limit=5)
        self.assertEqual(found.value["text"], "\u00e9" * 20 + " [...]")
        self.assertEqual(found.value["items"], [0, 1, 2, 3, 4])
        self.assertEqual(found.cuts, [
            "$.text: a string of 6,003 bytes in the log cut to its first 20 characters",
            "$.items: an array cut to its first 5 items (25 more)"])

    def test_a_cut_never_splits_an_escape(self):
        for tail in ("\\u00e9", "\\n", "\\\\", "\\\""):
            raw = ('{"t": "' + "a" * 18 + tail * 30 + '"}').encode("ascii")
            found = excerpt(chunks_of(raw, 4), WHOLE, text_limit=21)
            self.assertEqual(found.value["t"], json.loads(raw)["t"][:21] + " [...]", tail)

    @unittest.skipIf(tracemalloc is None, "this interpreter has no tracemalloc to measure "
                     "memory with (PyPy)")
    def test_memory_is_what_is_kept_not_what_is_skipped(self):
        # 40 MB of events skipped (strings and nested objects) in chunks of a megabyte: the
        # reader holds a chunk or two, never the document.
        event = json.dumps({"event": "model", "input": ["x" * 200] * 20, "output": {"a": [1]}})
        big = ('{"id": "s", "events": [' + ",".join([event] * 9000) + '], "messages": ["m"]}')
        data = big.encode("ascii")
        tracemalloc.start()
        try:
            found = excerpt(chunks_of(data, 1 << 20), {"id": WHOLE, "messages": WHOLE})
            _current, peak = tracemalloc.get_traced_memory()
        finally:
            tracemalloc.stop()
        self.assertEqual(found.value, {"id": "s", "messages": ["m"]})
        self.assertGreater(len(data), 35 * 10 ** 6)
        self.assertLess(peak, 8 * 10 ** 6)

    def test_a_document_that_ends_too_soon_or_is_not_json_where_kept(self):
        for data, message in ((b'{"a": [1, 2', "the JSON ends too soon"),
                              (b'{"a": "open', "a string that does not end"),
                              (b'{"a": nul}', "not a JSON value"),
                              (b'{"a" 1}', "expected one of :")):
            with self.subTest(data=data):
                with self.assertRaises(ExcerptError) as raised:
                    excerpt(chunks_of(data, 2), WHOLE)
                self.assertIn(message, str(raised.exception))


if __name__ == "__main__":
    unittest.main()
