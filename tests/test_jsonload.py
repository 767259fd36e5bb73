"""Tests of proagents_bench.jsonload: one test per loading rule, the named limits at their
boundaries, positions (line, column, path) of every error, where an error at a path is
placed, and a seeded fuzz run."""

import gc
import hashlib
import json
import os
import random
import stat
import tempfile
import unittest
from decimal import Decimal
from fractions import Fraction
from unittest import mock

from proagents_bench.errors import ContractError, ContractErrors
from proagents_bench.jsonio import load as jsonload
from proagents_bench.jsonio import locate as jsonlocate

BOM = b"\xef\xbb\xbf"


def locate(document, path):
    """(line, column) of the value at ``path`` in ``document``, as an error there is placed
    (of the deepest existing element on a path that does not fully exist)."""
    placed = document.errors_at([ContractError("x.y", "m", path)])[0]
    return placed.line, placed.column


def load(data, source="f.json"):
    return jsonload.parse_bytes(data, source)


class LoadCase(unittest.TestCase):
    def errors(self, data, source="f.json"):
        """The errors parse_bytes raises for ``data``; fails the test if it accepts it."""
        with self.assertRaises(ContractErrors) as caught:
            load(data, source)
        for error in caught.exception.errors:
            self.assertIsInstance(error, ContractError)
        return caught.exception.errors

    def error(self, data, code):
        """The single error for ``data``, which must carry ``code``."""
        errors = self.errors(data)
        self.assertEqual([e.code for e in errors], [code], errors)
        return errors[0]

    def where(self, error):
        return (error.path, error.line, error.column)


class ValuesTests(LoadCase):
    def test_types_of_values(self):
        value = load(b'{"i": 3, "f": 0.8, "e": 1E+2, "t": true, "n": null, "s": "x", '
                     b'"a": [false], "z": -0, "tiny": 1e-400}').value
        self.assertEqual(value, {"i": 3, "f": Decimal("0.8"), "e": Decimal("100"), "t": True,
                                 "n": None, "s": "x", "a": [False], "z": 0,
                                 "tiny": Decimal("1e-400")})
        self.assertIs(type(value["i"]), int)
        self.assertIs(type(value["f"]), Decimal)
        self.assertIs(value["t"], True)
        self.assertIs(value["a"][0], False)
        self.assertEqual(Fraction(value["f"]), Fraction(4, 5))  # exact, unlike float 0.8

    def test_document_fields(self):
        data = b'{"a": 1}'
        document = load(data, "dir/x.json")
        self.assertEqual(document.source, "dir/x.json")
        self.assertEqual(document.text, '{"a": 1}')
        self.assertEqual((document.sha256, document.size),
                         (hashlib.sha256(data).hexdigest(), len(data)))

    def test_valid_surrogate_pair_and_escaped_backslash_are_fine(self):
        value = load(b'{"a": "\\ud83d\\ude00", "b": "\\\\ud800", "c": "\\u00e9"}').value
        self.assertEqual(value, {"a": "\U0001F600", "b": "\\ud800", "c": "\u00e9"})

    def test_brackets_inside_strings_do_not_count_as_nesting(self):
        deep = b"[" * 200
        data = b'{"a": "' + deep + b'", "b": "\\"' + deep + b'\\\\", "c": "\\\\", "d": "}"}'
        with mock.patch.object(jsonlocate, "Walker", side_effect=AssertionError("slow path")):
            value = load(data).value  # the prescan alone proves the nesting shallow
        self.assertEqual((value["a"], value["b"], value["c"]),
                         ("[" * 200, '"' + "[" * 200 + "\\", "\\"))

    def test_valid_file_takes_the_fast_path(self):
        with mock.patch.object(jsonlocate, "Walker", side_effect=AssertionError("slow path")):
            self.assertEqual(load(b'{"a": [1, 2.5, {"b": "\\ud83d\\ude00"}]}').value,
                             {"a": [1, Decimal("2.5"), {"b": "\U0001F600"}]})

    def test_garbage_collection_is_restored(self):
        self.assertTrue(gc.isenabled())
        load(b'{"a": 1}')
        self.errors(b'{"a": 1, "a": 2}')
        self.errors(b'{"a": ')
        locate(load(b'{"a": [1]}'), ("a", 0))
        self.assertTrue(gc.isenabled())
        if hasattr(gc, "get_freeze_count"):
            self.assertEqual(gc.get_freeze_count(), 0)


class EncodingTests(LoadCase):
    def test_utf8_bom_is_stripped_and_columns_count_after_it(self):
        document = load(BOM + b'{"a": 1}')
        self.assertEqual((document.value, document.text), ({"a": 1}, '{"a": 1}'))
        self.assertEqual(self.where(self.error(BOM + b'{"a": NaN}',
                                               "json.non_standard_constant")), (("a",), 1, 7))

    def test_utf16(self):
        text = '{"a": 1}'
        for data in (text.encode("utf-16"), BOM.decode("utf-8").encode("utf-16-le"),
                     b"\xfe\xff" + text.encode("utf-16-be"), text.encode("utf-16-le"),
                     text.encode("utf-16-be"), BOM + text.encode("utf-16-le")):
            error = self.error(data, "encoding.utf16")
            self.assertIn("UTF-16", error.message)
            self.assertIn("PowerShell", error.message)
            self.assertIn("re-save it as UTF-8", error.message)
            self.assertEqual(self.where(error), ((), 1, 1))

    def test_utf32(self):
        text = '{"a": 1}'
        for data in (text.encode("utf-32"), b"\x00\x00\xfe\xff" + text.encode("utf-32-be"),
                     text.encode("utf-32-le"), text.encode("utf-32-be")):
            error = self.error(data, "encoding.utf32")
            self.assertIn("UTF-32", error.message)
            self.assertIn("re-save it as UTF-8", error.message)

    def test_invalid_utf8_is_located_at_the_bad_byte(self):
        cases = {
            b'{"a":\n "\xff"}': (2, 3, 8),             # a lone 0xFF
            b'{"a": "\xc0\xaf"}': (1, 8, 7),           # overlong encoding of "/"
            b'{"a": "\xed\xa0\x80"}': (1, 8, 7),       # CESU-8: a surrogate as UTF-8 bytes
            b'{"\xc3\xa9": "\xe2\x82': (1, 8, 8),      # truncated; the column counts "e-acute" once
            BOM + b'{"a": "\xff"}': (1, 8, 10),         # columns after the BOM, offsets in the file
        }
        for data, (line, column, offset) in cases.items():
            error = self.error(data, "encoding.invalid_utf8")
            self.assertEqual(self.where(error), ((), line, column), data)
            self.assertIn("byte offset %d" % offset, error.message)
            self.assertIn("re-save it as UTF-8", error.message)


class SizeTests(LoadCase):
    def test_empty_file(self):
        self.assertEqual(self.where(self.error(b"", "file.empty")), ((), None, None))
        self.error(BOM, "file.empty")

    def test_whitespace_only_is_a_syntax_error(self):
        error = self.error(b" \n ", "json.syntax")
        self.assertEqual(self.where(error), ((), 2, 2))
        self.assertIn("no JSON value", error.message)

    def test_max_file_bytes_boundary_in_parse_bytes(self):
        data = b'{"a": 12}'  # 9 bytes
        with mock.patch.object(jsonload, "MAX_FILE_BYTES", len(data)):
            self.assertEqual(load(data).value, {"a": 12})
        with mock.patch.object(jsonload, "MAX_FILE_BYTES", len(data) - 1):
            error = self.error(data, "file.too_large")
            self.assertIn(str(len(data) - 1), error.message)

    def test_max_file_bytes_is_checked_before_reading(self):
        with tempfile.TemporaryDirectory() as folder:
            path = os.path.join(folder, "big.json")
            with open(path, "wb") as handle:
                handle.write(b'{"a": 12}')
            with mock.patch.object(jsonload, "MAX_FILE_BYTES", 9):
                self.assertEqual(jsonload.load_file(path).value, {"a": 12})
            with mock.patch.object(jsonload, "MAX_FILE_BYTES", 8), \
                    mock.patch.object(jsonload, "open", create=True,
                                      side_effect=AssertionError("read a too large file")):
                with self.assertRaises(ContractErrors) as caught:
                    jsonload.load_file(path)
            self.assertEqual([e.code for e in caught.exception.errors], ["file.too_large"])


class FileTests(unittest.TestCase):
    def setUp(self):
        folder = tempfile.TemporaryDirectory()
        self.addCleanup(folder.cleanup)
        self.folder = folder.name

    def write(self, data, name="x.json"):
        path = os.path.join(self.folder, name)
        with open(path, "wb") as handle:
            handle.write(data)
        return path

    def unreadable(self, path):
        with self.assertRaises(ContractErrors) as caught:
            jsonload.load_file(path)
        [error] = caught.exception.errors
        self.assertEqual((error.code, error.file, error.path, error.line, error.column),
                         ("file.unreadable", path, (), None, None))
        return error.message

    def test_reads_bytes_not_text(self):
        document = jsonload.load_file(self.write(b'{"a":\r\n"\xc3\xa9"}'))
        self.assertEqual(document.text, '{"a":\r\n"\u00e9"}')  # no newline translation
        self.assertEqual(document.value, {"a": "\u00e9"})

    def test_source_names_the_file_in_errors(self):
        path = self.write(b'{"a": 1, "a": 2}')
        with self.assertRaises(ContractErrors) as caught:
            jsonload.load_file(path, source="shown.json")
        self.assertEqual(caught.exception.errors[0].file, "shown.json")
        self.assertEqual(jsonload.load_file(self.write(b"{}")).source,
                         os.path.join(self.folder, "x.json"))

    def test_missing_file(self):
        self.assertIn("no such file", self.unreadable(os.path.join(self.folder, "none.json")))

    def test_directory(self):
        self.assertIn("directory", self.unreadable(self.folder))

    @unittest.skipIf(not hasattr(os, "geteuid") or os.geteuid() == 0, "root reads anything")
    def test_permission_denied(self):
        path = self.write(b"{}")
        os.chmod(path, 0)
        self.addCleanup(os.chmod, path, stat.S_IRUSR | stat.S_IWUSR)
        self.assertIn("permission denied", self.unreadable(path))

    def test_path_with_nul_character(self):
        self.unreadable("bad\x00name.json")


class SyntaxTests(LoadCase):
    def test_syntax_errors_use_json_positions(self):
        cases = {
            b'{"a": 1,}': (1, 9, "property name"),
            b'{"a": 1}\n  x': (2, 3, "after the top-level value"),  # trailing data
            b'{"a": 1} {"b": 2}': (1, 10, "after the top-level value"),
            b'// note\n{"a": 1}': (1, 1, "comments"),
            b'{"a": 1 /* note */}': (1, 9, "comments"),
            b"{'a': 1}": (1, 2, "double quotes"),
            b'{"a":\n  [1 2]}': (2, 6, "delimiter"),
            b'{"a": tru}': (1, 7, "Expecting value"),
            b'{"a": 01}': (1, 8, "delimiter"),
            b'{"a": "\xc3\xa9" x}': (1, 11, "delimiter"),  # columns count code points
        }
        for data, (line, column, words) in cases.items():
            error = self.error(data, "json.syntax")
            self.assertEqual(self.where(error), ((), line, column), data)
            self.assertIn(words, error.message, data)

    def test_string_errors_use_json_positions(self):
        # Where json reports these differs between CPython (the character) and PyPy's
        # pure-Python scanner, used there whenever hooks are given (after it).
        for data, words in ((b'{"a": "\x01"}', "control character"), (b'{"a": "\\x"}', "escape"),
                            (b'{"a": "\\u12"}', "escape"), (b'{"a": "x', "Unterminated")):
            error = self.error(data, "json.syntax")
            with self.assertRaises(json.JSONDecodeError) as caught:
                json.JSONDecoder(object_pairs_hook=dict).decode(data.decode("utf-8"))
            self.assertEqual(self.where(error), ((), caught.exception.lineno,
                                                 caught.exception.colno), data)
            self.assertIn(words, error.message, data)

    def test_syntax_error_stops_parsing(self):
        # The duplicate comes first, but a broken file reports only where it breaks.
        self.error(b'{"a": 1, "a": 2, "b": [1e400, NaN, "\\ud800"] "c"}', "json.syntax")

    def test_syntax_error_before_deep_nesting(self):
        error = self.error(b'{"a": 1 2, "b": ' + b"[" * 100000, "json.syntax")
        self.assertEqual((error.line, error.column), (1, 9))


class NumberTests(LoadCase):
    def test_non_standard_constants(self):
        errors = self.errors(b'{"a": NaN, "b": [1, Infinity], "c": {"d": -Infinity}}')
        self.assertEqual([(e.code,) + self.where(e) for e in errors], [
            ("json.non_standard_constant", ("a",), 1, 7),
            ("json.non_standard_constant", ("b", 1), 1, 21),
            ("json.non_standard_constant", ("c", "d"), 1, 43)])
        self.assertIn("NaN", errors[0].message)

    def test_integer_range_boundary(self):
        value = load(b'{"a": 9007199254740991, "b": -9007199254740991}').value
        self.assertEqual(value, {"a": 2 ** 53 - 1, "b": -(2 ** 53 - 1)})
        for literal in (b"9007199254740992", b"-9007199254740992", b"123456789012345678901"):
            error = self.error(b'{"x": [' + literal + b"]}", "json.number_out_of_range")
            self.assertEqual(self.where(error), (("x", 0), 1, 8))
            self.assertIn(literal.decode(), error.message)

    def test_doubles_must_be_finite(self):
        value = load(b'{"a": 1.7976931348623157e308, "b": 1e-400, "c": 1E+2}').value
        self.assertEqual(value["a"], Decimal("1.7976931348623157e308"))
        errors = self.errors(b'{"a": 1e400, "b": -1e400, "c": 1.7976931348623159e308}')
        self.assertEqual([(e.code, e.path) for e in errors], [
            ("json.number_out_of_range", ("a",)), ("json.number_out_of_range", ("b",)),
            ("json.number_out_of_range", ("c",))])

    def test_max_number_exponent_boundary(self):
        limit = jsonload.MAX_NUMBER_EXPONENT
        value = load(('{"a": 1e-%d, "b": 0e%d, "c": 1E+%d}' % (limit, limit, 300)).encode()).value
        self.assertEqual(value, {"a": Decimal("1e-%d" % limit), "b": Decimal("0e%d" % limit),
                                 "c": Decimal("1e300")})
        for literal in ("1e-%d" % (limit + 1), "0e%d" % (limit + 1), "1e-999999999",
                        "-5E+999999999999", "1e-" + "9" * 90):
            with self.subTest(literal=literal):
                error = self.error(('{"a": [%s]}' % literal).encode(), "json.exponent_too_large")
                self.assertEqual(self.where(error), (("a", 0), 1, 8))
                self.assertIn(literal, error.message)

    def test_max_number_literal_chars_boundary(self):
        limit = jsonload.MAX_NUMBER_LITERAL_CHARS
        ok = b"0." + b"5" * (limit - 2)
        self.assertEqual(load(b'{"a": ' + ok + b"}").value, {"a": Decimal(ok.decode())})
        too_long = ok + b"5"
        error = self.error(b'{"a": ' + too_long + b"}", "json.number_too_long")
        self.assertEqual(self.where(error), (("a",), 1, 7))
        self.assertIn(str(limit + 1), error.message)

    def test_huge_integer_literals_fail_cleanly(self):
        # Python 3.11 refuses int() beyond 4300 digits; older versions take quadratic time.
        for digits in (101, 5000, 1000000):
            error = self.error(b'{"a": ' + b"7" * digits + b"}", "json.number_too_long")
            self.assertIn(str(digits), error.message)


class StructureTests(LoadCase):
    def test_duplicate_keys_at_any_depth_all_reported(self):
        data = b'{"a": 1,\n "b": {"c": [{"d": 1, "d": 2, "d": 3}]},\n "a": 2}'
        errors = self.errors(data)
        self.assertEqual([(e.code,) + self.where(e) for e in errors], [
            ("json.duplicate_key", ("b", "c", 0, "d"), 2, 23),
            ("json.duplicate_key", ("b", "c", 0, "d"), 2, 31),
            ("json.duplicate_key", ("a",), 3, 2)])
        self.assertIn('"a"', errors[2].message)

    def test_lone_surrogates(self):
        errors = self.errors(b'{"a": "\\ud800", "b": ["x", "\\udc00\\ud800"], "\\uDBFFk": 1}')
        self.assertEqual([(e.code,) + self.where(e) for e in errors], [
            ("json.lone_surrogate", ("a",), 1, 7),
            ("json.lone_surrogate", ("b", 1), 1, 28),
            ("json.lone_surrogate", ("\udbffk",), 1, 45)])

    def test_lone_surrogate_after_escaped_backslash(self):
        # The first \ud800 is literal text; the \udc00 escape that follows is a lone surrogate.
        self.error(b'{"a": "\\\\ud800\\udc00"}', "json.lone_surrogate")

    def test_max_depth_boundary(self):
        limit = jsonload.MAX_DEPTH
        value = load(b'{"a": ' + b"[" * (limit - 1) + b"]" * (limit - 1) + b"}").value["a"]
        for _ in range(limit - 2):
            value = value[0]
        self.assertEqual(value, [])
        error = self.error(b'{"a": ' + b"[" * limit + b"]" * limit + b"}", "json.too_deep")
        self.assertEqual(self.where(error), (("a",) + (0,) * (limit - 1), 1, 6 + limit))
        self.assertIn(str(limit), error.message)

    def test_depth_counts_objects_and_arrays(self):
        self.assertTrue(load(b'{"a":' * 64 + b"1" + b"}" * 64).value)
        error = self.error(b'{"a":' * 65 + b"1" + b"}" * 65, "json.too_deep")
        self.assertEqual(error.path, ("a",) * 64)

    def test_hostile_nesting_fails_cleanly(self):
        for data in (b"[" * 100000, b'{"a":' * 100000, b"[" * 100000 + b"]" * 100000,
                     b'{"a": [1, ' + b"[" * 100000 + b"]" * 100000 + b"]}"):
            self.assertEqual([e.code for e in self.errors(data)], ["json.too_deep"])

    def test_root_must_be_an_object(self):
        for data, what in ((b"[]", "array"), (b' "x"', "string"), (b"\n3", "number"),
                           (b"null", "null"), (b"true", "Boolean")):
            error = self.error(data, "json.root_not_object")
            self.assertIn(what, error.message)
            self.assertEqual(error.path, ())
        self.assertEqual(self.where(self.error(b"\n  [1]", "json.root_not_object")),
                         ((), 2, 3))


class ReportingTests(LoadCase):
    BAD = [
        b"", BOM, b"  ", "{}".encode("utf-16"), b"\x00{", b'{"a": "\xff"}', b'{"a": }',
        b'{"a": 1, "a": 2}', b'{"a": NaN}', b'{"a": "\\ud800"}', b'{"a": 1e400}',
        b'{"a": ' + b"1" * 200 + b"}", b"[" * 70, b"[1]",
    ]

    def test_every_error_carries_file_path_position_code_and_message(self):
        for data in self.BAD:
            for error in self.errors(data, "dir/input.json"):
                self.assertEqual(error.file, "dir/input.json")
                self.assertIsInstance(error.path, tuple)
                self.assertRegex(error.code, r"\A(file|encoding|json)\.[a-z0-9_]+\Z")
                self.assertTrue(error.message)
                if error.code.startswith("file."):
                    self.assertEqual((error.line, error.column), (None, None))
                else:
                    self.assertGreaterEqual(error.line, 1)
                    self.assertGreaterEqual(error.column, 1)
                self.assertTrue(error.stderr_line().startswith("ERROR: dir/input.json:"))

    def test_all_independent_errors_in_one_go(self):
        errors = self.errors(b'[{"a": 1, "a": 2}, NaN, "\\ud800", 1e400, ' + b"1" * 101
                             + b", 9007199254740993]")
        self.assertEqual([(e.code, e.path) for e in errors], [
            ("json.root_not_object", ()), ("json.duplicate_key", (0, "a")),
            ("json.non_standard_constant", (1,)), ("json.lone_surrogate", (2,)),
            ("json.number_out_of_range", (3,)), ("json.number_too_long", (4,)),
            ("json.number_out_of_range", (5,))])

    def test_slow_path_agrees_with_fast_path(self):
        docs = [b'{"a": [1, {"b": 2, "b": 3}], "c": 1e400}', b'{"a": 1, "b": [1, 2,]}',
                b'{"a": "\\ud800", "b": NaN}', b'{"a": 1}  x', b'{"a": ' + b"[" * 64 + b"}"]
        for data in docs:
            fast = self.errors(data)
            with mock.patch.object(jsonload, "surrogates_ok", return_value=False), \
                    mock.patch.object(jsonload, "nesting_ok", return_value=False), \
                    mock.patch.object(jsonlocate, "nesting_ok", return_value=False):
                self.assertEqual(self.errors(data), fast, data)
        with mock.patch.object(jsonload, "surrogates_ok", return_value=False):
            self.assertEqual(load(b'{"a": [1.5, "\\ud83d\\ude00"]}').value,
                             {"a": [Decimal("1.5"), "\U0001F600"]})

    def test_fuzz_never_raises_anything_else(self):
        rng = random.Random(20240601)
        seeds = [b'{"a": [1, -2.5e3, "x\\u00e9\\ud83d\\ude00", {"b": null, "c": true}], '
                 b'"d": {"e": [[], {}]}}', BOM + b'{"k": "\\\\\\"[", "n": 0}', b'[{"a":1}]']
        alphabet = b'[]{}",:\\ -0123456789eE.\n\xff\xc0\x80\xed\xa0\x00tfnuNI'
        for _ in range(3000):
            data = bytearray(rng.choice(seeds))
            for _ in range(rng.randint(1, 4)):
                at = rng.randint(0, len(data))
                choice = rng.random()
                if choice < 0.4:
                    data[at:at] = bytes([rng.choice(alphabet)]) * rng.choice((1, 1, 2, 70))
                elif choice < 0.7:
                    del data[at:at + rng.randint(1, 3)]
                else:
                    data = data[:at]
            if rng.random() < 0.05:
                data = bytearray(rng.getrandbits(8) for _ in range(rng.randint(0, 16)))
            try:
                document = load(bytes(data))
            except ContractErrors as failure:
                self.assertTrue(failure.errors)
                for error in failure.errors:
                    self.assertTrue(error.code and error.file == "f.json")
            else:
                self.assertIsInstance(document.value, dict)
                self.assertEqual(document.value, json.loads(document.text, parse_float=Decimal))


class LocateTests(unittest.TestCase):
    TEXT = ('{\n'
            '  "name": "x",\n'
            '  "records": [\n'
            '    {"id": 1, "tags": ["a", "b"]},\n'
            '    {"id": 2, "tags": [], "note": "\u00e9\U0001F600", "v": 1.5}\n'
            '  ],\n'
            '  "empty": {}\n'
            '}\n')

    def setUp(self):
        self.document = load(self.TEXT.encode("utf-8"), "r.json")

    def test_nested_paths(self):
        def locate_here(path):
            return locate(self.document, path)
        self.assertEqual(locate_here(()), (1, 1))
        self.assertEqual(locate_here(("name",)), (2, 11))
        self.assertEqual(locate_here(("records",)), (3, 14))
        self.assertEqual(locate_here(("records", 0)), (4, 5))
        self.assertEqual(locate_here(("records", 0, "tags", 1)), (4, 29))
        self.assertEqual(locate_here(("records", 1, "id")), (5, 12))
        self.assertEqual(locate_here(("records", 1, "v")), (5, 46))  # code points, not bytes
        self.assertEqual(locate_here(["empty"]), (7, 12))

    def test_missing_paths_give_the_deepest_existing_element(self):
        def locate_here(path):
            return locate(self.document, path)
        self.assertEqual(locate_here(("records", 1, "missing")), (5, 5))
        self.assertEqual(locate_here(("records", 7, "id")), (3, 14))
        self.assertEqual(locate_here(("records", "id")), (3, 14))
        self.assertEqual(locate_here(("name", 0)), (2, 11))
        self.assertEqual(locate_here(("empty", "x")), (7, 12))
        self.assertEqual(locate_here(("nothing", "at", "all")), (1, 1))

    def test_locate_after_bom_and_in_compact_text(self):
        document = load(BOM + b'{"a":[10,{"b":[true,null]}]}')
        self.assertEqual(locate(document, ("a", 1, "b", 1)), (1, 21))

    def test_errors_at_places_copies(self):
        errors = [ContractError("shape.x", "m1", ("records", 1, "v")),
                  ContractError("shape.y", "m2", ("records", 0, "tags", 0)),
                  ContractError("shape.z", "m3", ("records", 5))]
        placed = self.document.errors_at(errors)
        self.assertEqual([(e.code, e.file, e.path, e.line, e.column) for e in placed], [
            ("shape.x", "r.json", ("records", 1, "v"), 5, 46),
            ("shape.y", "r.json", ("records", 0, "tags", 0), 4, 24),
            ("shape.z", "r.json", ("records", 5), 3, 14)])
        self.assertEqual((errors[0].file, errors[0].line), (None, None))  # originals untouched

    def test_impossible_location(self):
        self.assertEqual(locate(jsonload.Document("s", "", {}), ("a",)), (None, None))


if __name__ == "__main__":
    unittest.main()
