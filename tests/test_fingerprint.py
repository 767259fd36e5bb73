"""RFC 8785 canonical JSON and the evidence fingerprint.

Expected values come from published sources unless a comment says "by hand":

- RFC 8785 section 3.2.2-3.2.4 (the sample object, its canonical text and its UTF-8 bytes)
  and section 3.2.3 (the property sorting sample);
- RFC 8785 Appendix B (IEEE-754 bit patterns and their JSON text; the same table, less some
  rows, is in draft-rundgren-json-canonicalization-scheme-00);
- the JCS author's test data (github.com/cyberphone/json-canonicalization, testdata/: the
  input/output pairs and the sample lines of its ES6 number file).

Values marked "by hand" were worked out from ECMA-262 Number::toString (7.1.12.1): with k
shortest digits s and n such that the value is s * 10**(n-k): k <= n <= 21 gives s and n-k
zeros; 0 < n <= 21 puts the point after n digits; -6 < n <= 0 gives "0." and -n zeros before
s; otherwise exponent n-1, written e+N / e-N after one digit (and a point if k > 1).
"""

import gc
import hashlib
import json
import random
import struct
import unittest
from unittest import mock
from decimal import Decimal
from fractions import Fraction

from proagents_bench.jsonio import canonical, canonical_fast, canonical_reference
from proagents_bench.jsonio.canonical import (canonical_json, evidence_fingerprint,
                                              fingerprint_hasher)

FAST_PATH = (canonical_fast._c_make_encoder is not None
             and canonical_fast._c_encode_string is not None)


def strict_loads(text):
    """JSON as the strict loader hands it over: Decimal for literals with a fraction or an
    exponent, int otherwise."""
    return json.loads(text, parse_float=Decimal)


def double(bits):
    return struct.unpack(">d", bytes.fromhex(bits))[0]


def reference(value):
    """The plain-Python writer, for holding the fast path to it."""
    return canonical_reference.reference_text(value).encode("utf-8")


# RFC 8785 Appendix B: finite values.
APPENDIX_B = [
    ("0000000000000000", "0"),
    ("8000000000000000", "0"),
    ("0000000000000001", "5e-324"),
    ("8000000000000001", "-5e-324"),
    ("7fefffffffffffff", "1.7976931348623157e+308"),
    ("ffefffffffffffff", "-1.7976931348623157e+308"),
    ("4340000000000000", "9007199254740992"),
    ("c340000000000000", "-9007199254740992"),
    ("4430000000000000", "295147905179352830000"),
    ("44b52d02c7e14af5", "9.999999999999997e+22"),
    ("44b52d02c7e14af6", "1e+23"),
    ("44b52d02c7e14af7", "1.0000000000000001e+23"),
    ("444b1ae4d6e2ef4e", "999999999999999700000"),
    ("444b1ae4d6e2ef4f", "999999999999999900000"),
    ("444b1ae4d6e2ef50", "1e+21"),
    ("444b1ae4d6e2ef51", "1.0000000000000001e+21"),  # in the draft's table
    ("3eb0c6f7a0b5ed8c", "9.999999999999997e-7"),
    ("3eb0c6f7a0b5ed8d", "0.000001"),
    ("41b3de4355555553", "333333333.3333332"),
    ("41b3de4355555554", "333333333.33333325"),
    ("41b3de4355555555", "333333333.3333333"),
    ("41b3de4355555556", "333333333.3333334"),
    ("41b3de4355555557", "333333333.33333343"),
    ("becbf647612f3696", "-0.0000033333333333333333"),
    ("43143ff3c1cb0959", "1424953923781206.2"),
    # Sample lines of the ES6 number test file (cyberphone testdata/README.md).
    ("4340000000000001", "9007199254740994"),
    ("4340000000000002", "9007199254740996"),
]
# RFC 8785 Appendix B: NaN and Infinity must be refused.
APPENDIX_B_ERRORS = ["7fffffffffffffff", "7ff0000000000000", "fff0000000000000"]

# By hand (see the module docstring), one or more per branch of the layout and of the fast
# path's stand-ins.
BY_HAND = [
    (1e21, "1e+21"), (1e20, "100000000000000000000"), (1e16, "10000000000000000"),
    (1.5e17, "150000000000000000"), (123e18, "123000000000000000000"),
    (1.5e300, "1.5e+300"), (-1e22, "-1e+22"), (1e-7, "1e-7"), (-1e-7, "-1e-7"),
    (1.5e-7, "1.5e-7"), (1e-6, "0.000001"), (1e-5, "0.00001"), (1.25e-5, "0.0000125"),
    (-2.5e-5, "-0.000025"), (1e-9, "1e-9"), (1.2345e-8, "1.2345e-8"), (1e-10, "1e-10"),
    (0.0001, "0.0001"), (0.5, "0.5"), (123.0, "123"), (-0.0, "0"), (0.0, "0"),
    (123.456, "123.456"), (1e15, "1000000000000000"), (5e-324, "5e-324"),
    (4.5, "4.5"), (0.1, "0.1"), (100.0, "100"), (-7.0, "-7"),
]


class RfcExamplesTests(unittest.TestCase):
    RFC_INPUT = (
        '{\n  "numbers": [333333333.33333329, 1E30, 4.50, 2e-3, 0.000000000000000000000000001],\n'
        '  "string": "\\u20ac$\\u000F\\u000aA\'\\u0042\\u0022\\u005c\\\\\\"\\/",\n'
        '  "literals": [null, true, false]\n}')
    # RFC 8785 section 3.2.4.
    RFC_BYTES = bytes.fromhex(
        "7b 22 6c 69 74 65 72 61 6c 73 22 3a 5b 6e 75 6c 6c 2c 74 72"
        "75 65 2c 66 61 6c 73 65 5d 2c 22 6e 75 6d 62 65 72 73 22 3a"
        "5b 33 33 33 33 33 33 33 33 33 2e 33 33 33 33 33 33 33 2c 31"
        "65 2b 33 30 2c 34 2e 35 2c 30 2e 30 30 32 2c 31 65 2d 32 37"
        "5d 2c 22 73 74 72 69 6e 67 22 3a 22 e2 82 ac 24 5c 75 30 30"
        "30 66 5c 6e 41 27 42 5c 22 5c 5c 5c 5c 5c 22 2f 22 7d")

    def test_section_3_2_4_bytes(self):
        value = strict_loads(self.RFC_INPUT)
        self.assertIsInstance(value["numbers"][1], Decimal)
        self.assertEqual(canonical_json(value), self.RFC_BYTES)
        self.assertEqual(reference(value), self.RFC_BYTES)

    def test_section_3_2_3_text(self):
        expected = ('{"literals":[null,true,false],"numbers":[333333333.3333333,1e+30,4.5,0.002,'
                    '1e-27],"string":"\u20ac$\\u000f\\nA\'B\\"\\\\\\\\\\"/"}')
        self.assertEqual(canonical_json(strict_loads(self.RFC_INPUT)).decode("utf-8"), expected)

    def test_section_3_2_3_sorting(self):
        value = strict_loads(
            '{"\\u20ac": "Euro Sign", "\\r": "Carriage Return", '
            '"\\ufb33": "Hebrew Letter Dalet With Dagesh", "1": "One", '
            '"\\ud83d\\ude00": "Emoji: Grinning Face", "\\u0080": "Control", '
            '"\\u00f6": "Latin Small Letter O With Diaeresis"}')
        order = ["Carriage Return", "One", "Control", "Latin Small Letter O With Diaeresis",
                 "Euro Sign", "Emoji: Grinning Face", "Hebrew Letter Dalet With Dagesh"]
        keys = {v: k for k, v in value.items()}
        expected = "{" + ",".join(
            json.dumps(keys[name], ensure_ascii=False) + ":" + json.dumps(name)
            for name in order) + "}"
        self.assertEqual(canonical_json(value).decode("utf-8"), expected)
        # Python's own order would put U+FB33 before U+1F600.
        self.assertLess("\ufb33", "\U0001f600")


class CyberphoneTestDataTests(unittest.TestCase):
    """testdata/input/*.json -> testdata/output/*.json of the JCS reference repository."""

    CASES = [
        ("values",
         '{\n  "numbers": [1E30, 4.50, 333333333.33333329, 2e-3, 0.000000000000000000000000001],\n'
         '  "escaping": "\\u20ac$\\u000F\\u000aA\'\\u0042\\u0022\\u005c\\\\\\"\\/",\n'
         '  "literals": [null, true, false]\n}',
         '{"escaping":"\u20ac$\\u000f\\nA\'B\\"\\\\\\\\\\"/","literals":[null,true,false],'
         '"numbers":[1e+30,4.5,333333333.3333333,0.002,1e-27]}'),
        ("weird",
         '{\n  "\\u20ac": "Euro Sign",\n  "1": "One",\n  "\\u0080": "Control\\u007f",\n'
         '  "\\ud83d\\ude02": "Smiley",\n  "\\u00f6": "Latin Small Letter O With Diaeresis",\n'
         '  "\\ufb33": "Hebrew Letter Dalet With Dagesh",\n'
         '  "</script>": "Browser Challenge"\n}\n',
         '{"1":"One","</script>":"Browser Challenge","\u0080":"Control\u007f",'
         '"\u00f6":"Latin Small Letter O With Diaeresis","\u20ac":"Euro Sign",'
         '"\U0001f602":"Smiley","\ufb33":"Hebrew Letter Dalet With Dagesh"}'),
        ("structures",
         '{\n  "1": {"f": {"f": "hi","F": 5} ,"\\n": 56.0},\n  "10": { },\n  "": "empty",\n'
         '  "a": { },\n  "111": [ { } ],\n  "A": { }\n}',
         '{"":"empty","1":{"\\n":56,"f":{"F":5,"f":"hi"}},"10":{},"111":[{}],"A":{},"a":{}}'),
        ("french",
         '{\n  "peach": "This sorting order",\n'
         '  "p\u00e9ch\u00e9": "is wrong according to French",\n'
         '  "p\u00eache": "but canonicalization MUST",\n  "sin":   "ingnore locale"\n}\n',
         '{"peach":"This sorting order","p\u00e9ch\u00e9":"is wrong according to French",'
         '"p\u00eache":"but canonicalization MUST","sin":"ingnore locale"}'),
        ("unicode",
         '{\n  "Unnormalized Unicode":"\\u1e0d\\u0307"\n}\n',
         '{"Unnormalized Unicode":"\u1e0d\u0307"}'),
        # The output of arrays.json is not in the stored copy; worked out by hand.
        ("arrays",
         '[\n  56,\n  {\n    "d": true,\n    "10": null,\n    "1": [ ]\n  }\n]',
         '[56,{"1":[],"10":null,"d":true}]'),
    ]

    def test_cases(self):
        for name, source, expected in self.CASES:
            with self.subTest(name):
                value = strict_loads(source)
                self.assertEqual(canonical_json(value), expected.encode("utf-8"))
                self.assertEqual(reference(value), expected.encode("utf-8"))

    def test_simple_string(self):
        # testdata/outhex/simpleString.txt
        expected = bytes.fromhex("22 74 68 69 73 20 69 73 20 61 20 74 65 73 74 20 73 74 72 69"
                                 "6E 67 20 31 32 33 35 22")
        self.assertEqual(canonical_json(strict_loads('    "this is a test string 1235"')),
                         expected)


class NumberTests(unittest.TestCase):
    def check(self, x, expected):
        # As a float, as the Decimal a loader would make of its text, alone and in a
        # container (the container takes the fast path where there is one).
        for value in (x, Decimal(repr(x))):
            self.assertEqual(canonical_json(value), expected.encode("ascii"), (x, value))
            self.assertEqual(canonical_json([value]), ("[%s]" % expected).encode("ascii"))
            self.assertEqual(canonical_json({"n": [value, 1]}),
                             ('{"n":[%s,1]}' % expected).encode("ascii"))

    def test_appendix_b(self):
        for bits, expected in APPENDIX_B:
            with self.subTest(bits):
                self.check(double(bits), expected)

    def test_appendix_b_errors(self):
        for bits in APPENDIX_B_ERRORS:
            x = double(bits)
            for value in (x, [x], {"a": [1, x]}, Decimal(x), [Decimal(x)]):
                with self.subTest(bits=bits, value=value):
                    with self.assertRaises(ValueError):
                        canonical_json(value)

    def test_by_hand(self):
        for x, expected in BY_HAND:
            with self.subTest(x):
                self.check(x, expected)

    def test_decimal_is_rounded_to_the_nearest_double(self):
        # RFC 8785 3.2.2.3: other representations convert to the closest double first.
        self.assertEqual(canonical_json(Decimal("333333333.33333329")), b"333333333.3333333")
        self.assertEqual(canonical_json(Decimal("0.10000000000000000001")), b"0.1")
        self.assertEqual(canonical_json([Decimal("1.00000000000000000001")]), b"[1]")
        self.assertEqual(canonical_json([Decimal("4.50"), Decimal("4.5")]), b"[4.5,4.5]")
        self.assertEqual(canonical_json([Decimal("-0.0"), Decimal("0E-7")]), b"[0,0]")
        self.assertEqual(canonical_json([Decimal("1E+2"), Decimal("1e2")]), b"[100,100]")

    def test_decimal_beyond_double_range_is_refused(self):
        for d in ("1e400", "-1e400", "NaN", "-NaN", "sNaN", "Infinity", "-Infinity"):
            for value in (Decimal(d), [Decimal(d)], {"a": [Decimal("1.5"), Decimal(d)]}):
                with self.subTest(value=value):
                    with self.assertRaises(ValueError):
                        canonical_json(value)

    def test_integers(self):
        self.assertEqual(canonical_json([0, -1, 7, 2 ** 53 - 1, -(2 ** 53 - 1)]),
                         b"[0,-1,7,9007199254740991,-9007199254740991]")
        # Beyond +-(2**53-1) an integer is the double nearest to it (by hand: 2**60 is
        # 1152921504606846976, whose double has the shortest digits 1152921504606847).
        self.assertEqual(canonical_json(2 ** 60), b"1152921504606847000")
        self.assertEqual(canonical_json([2 ** 53 + 1]), b"[9007199254740992]")
        self.assertEqual(canonical_json({"a": [1, 10 ** 21]}), b'{"a":[1,1e+21]}')
        with self.assertRaises(ValueError):
            canonical_json([10 ** 400])

    def test_literals_are_not_numbers(self):
        self.assertEqual(canonical_json([True, False, None, 1, 0]), b"[true,false,null,1,0]")
        self.assertEqual(canonical_json({"t": True, "o": 1}), b'{"o":1,"t":true}')


class StringTests(unittest.TestCase):
    def test_control_characters_and_escapes(self):
        text = "".join(chr(i) for i in range(0x20)) + '"\\/\x7f\u2028\u2029\u00e9\U0001f600'
        expected = ('"\\u0000\\u0001\\u0002\\u0003\\u0004\\u0005\\u0006\\u0007\\b\\t\\n\\u000b'
                    '\\f\\r\\u000e\\u000f\\u0010\\u0011\\u0012\\u0013\\u0014\\u0015\\u0016\\u0017'
                    '\\u0018\\u0019\\u001a\\u001b\\u001c\\u001d\\u001e\\u001f\\"\\\\/\x7f'
                    '\u2028\u2029\u00e9\U0001f600"').encode("utf-8")
        self.assertEqual(canonical_json(text), expected)
        self.assertEqual(canonical_json([text]), b"[" + expected + b"]")
        self.assertEqual(canonical_json({text: text}), b"{" + expected + b":" + expected + b"}")
        self.assertEqual(canonical_reference._py_encode_string(text).encode("utf-8"), expected)

    def test_plain_python_escaper_matches(self):
        rng = random.Random(8785)
        alphabet = [chr(i) for i in range(0x30)] + ["\\", '"', "a", "\u00e9", "\U0001f600"]
        for _ in range(300):
            s = "".join(rng.choice(alphabet) for _ in range(rng.randrange(12)))
            self.assertEqual(canonical_reference._py_encode_string(s),
                             canonical_reference.encode_string(s))

    def test_lone_surrogate_is_refused(self):
        for value in ("\ud800", ["a", "x\udfff"], {"\ud83d": 1}):
            with self.subTest(value=value):
                with self.assertRaises(ValueError):
                    canonical_json(value)
                with self.assertRaises(ValueError):
                    fingerprint_hasher(value, hashlib.sha256())


class KeyOrderTests(unittest.TestCase):
    def test_utf16_order_not_code_point_order(self):
        # U+1F600 is D83D DE00 in UTF-16, so it sorts before U+E000..U+FFFF.
        value = {"\ue000": 1, "\U0001f600": 2, "\uffff": 3, "\ud7ff": 4, "z": 5}
        self.assertEqual(canonical_json(value).decode("utf-8"),
                         '{"z":5,"\ud7ff":4,"\U0001f600":2,"\ue000":1,"\uffff":3}')

    def test_prefix_and_case(self):
        value = {"ab": 1, "a": 2, "B": 3, "": 4, "a\x00": 5}
        self.assertEqual(canonical_json(value), b'{"":4,"B":3,"a":2,"a\\u0000":5,"ab":1}')

    def test_insertion_order_does_not_matter(self):
        a = {"x": 1, "y": {"b": [1, 2], "a": None}, "\U0001f600": 0, "\ue001": 1}
        b = {"\ue001": 1, "\U0001f600": 0, "y": {"a": None, "b": [1, 2]}, "x": 1}
        self.assertEqual(canonical_json(a), canonical_json(b))

    def test_high_keys_in_records(self):
        # Many same-shaped objects whose keys need UTF-16 order.
        records = [{"\ue000": i, "\U0001f600": str(i), "a": Decimal("1.5")} for i in range(50)]
        text = canonical_json(records)
        self.assertTrue(text.startswith('[{"a":1.5,"\U0001f600":"0","\ue000":0}'.encode("utf-8")))
        self.assertEqual(text, reference(records))


class TypeTests(unittest.TestCase):
    class Text(str):
        pass

    class Number(int):
        pass

    class Map(dict):
        pass

    class Seq(list):
        pass

    class Real(float):
        pass

    def test_unsupported_types(self):
        bad = [(1, 2), {1, 2}, b"x", bytearray(b"x"), object(), Fraction(1, 3), 1j,
               self.Text("x"), self.Number(3), self.Map(), self.Seq(), self.Real(1.5), range(2)]
        for item in bad:
            for value in (item, [item], {"k": item}, [{"k": [1, item]}],
                          [{"a": 1, "b": item}, {"a": 2, "b": 3}]):
                with self.subTest(value=value):
                    with self.assertRaises(TypeError):
                        canonical_json(value)

    def test_non_string_keys(self):
        for key in (1, 1.5, None, True, (1,), Decimal("1")):
            for value in ({key: 1}, [{key: 1}], [{"a": 1}, {key: 1}], [{"a": 1}] * 3 + [{key: 2}]):
                with self.subTest(value=value):
                    with self.assertRaises(TypeError):
                        canonical_json(value)

    def test_str_subclass_keys_count_as_their_text(self):
        value = [{self.Text("b"): 1, "a": 2}, {"b": 3, "a": 4}]
        self.assertEqual(canonical_json(value), b'[{"a":2,"b":1},{"a":4,"b":3}]')
        self.assertEqual(canonical_json(list(reversed(value))), b'[{"a":4,"b":3},{"a":2,"b":1}]')

    def test_circular_references(self):
        a = []
        a.append(a)
        b = {}
        b["b"] = [1, {"c": b}]
        c = [0] * 40
        c.append(c)
        d = [{"x": [1, 2]} for _ in range(40)]
        d[5]["x"].append(d)
        e = []
        e.extend([e] * 50)  # would grow level by level without limit
        for value in (a, b, c, d, e, [a], {"k": b}):
            with self.subTest(value=type(value)):
                with self.assertRaises(ValueError):
                    canonical_json(value)

    def test_shared_values_are_fine(self):
        shared = {"k": [1, Decimal("2.5")]}
        value = [shared, shared, {"s": shared}, [shared] * 3]
        expected = b'[{"k":[1,2.5]},{"k":[1,2.5]},{"s":{"k":[1,2.5]}},[' + b",".join(
            [b'{"k":[1,2.5]}'] * 3) + b"]]"
        self.assertEqual(canonical_json(value), expected)

    def test_deep_nesting(self):
        value = 0
        for i in range(3000):
            value = [value] if i % 2 else {"k": value}
        text = canonical_json(value)
        self.assertEqual(len(text), 3000 // 2 * (len('{"k":}') + len("[]")) + 1)
        self.assertEqual(text, reference(value))

    def test_top_level_scalars(self):
        self.assertEqual(canonical_json("x"), b'"x"')
        self.assertEqual(canonical_json(None), b"null")
        self.assertEqual(canonical_json(True), b"true")
        self.assertEqual(canonical_json(12), b"12")
        self.assertEqual(canonical_json([]), b"[]")
        self.assertEqual(canonical_json({}), b"{}")
        self.assertEqual(canonical_json([[], {}, [{}]]), b"[[],{},[{}]]")

    def test_input_is_not_changed_and_gc_state_kept(self):
        value = {"b": [Decimal("1.0"), Decimal("0.00001"), {"z": 1, "a": 2}], "a": "x"}
        before = repr(value)
        for enabled in (True, False):
            if enabled:
                gc.enable()
            else:
                gc.disable()
            try:
                canonical_json(value)
                evidence_fingerprint(value, value, value, "c")
                self.assertEqual(gc.isenabled(), enabled)
            finally:
                gc.enable()
        self.assertEqual(repr(value), before)
        self.assertEqual(list(value), ["b", "a"])


def random_value(rng, depth=0):
    """Random JSON-like data with the loader's types (and floats), biased to edge cases."""
    roll = rng.random()
    if depth < 4 and roll < 0.25:
        return [random_value(rng, depth + 1) for _ in range(rng.randrange(6))]
    if depth < 4 and roll < 0.45:
        keys = ["a", "b", "", "A", "\u00e9", "\ufb33", "\U0001f600", "\ue000", "a\nb", "%s",
                "key", '"', "\\"]
        n = rng.randrange(6)
        if rng.random() < 0.8:
            keys = keys[:8] if rng.random() < 0.5 else [k for k in keys if k < "\ue000"]
        return {rng.choice(keys): random_value(rng, depth + 1) for _ in range(n)}
    return random_scalar(rng)


def random_scalar(rng):
    roll = rng.randrange(9)
    if roll == 0:
        return rng.choice([None, True, False])
    if roll == 1:
        return rng.choice([0, 1, -1, 2 ** 53 - 1, -(2 ** 53 - 1),
                           rng.randrange(-10 ** 6, 10 ** 6)])
    if roll == 2:
        return "".join(rng.choice(['"', "\\", "\x00", "\x1f", "a", "\u00e9", "\U0001f600",
                                   "1.0,", "\x00jcs-number:0", " "])
                       for _ in range(rng.randrange(5)))
    x = random_double(rng)
    return x if roll == 3 else Decimal(repr(x))


def random_double(rng):
    kind = rng.randrange(6)
    if kind == 0:
        return struct.unpack(">d", struct.pack(">Q", rng.getrandbits(63)))[0] * rng.choice([1, -1])
    if kind == 1:
        return float(rng.randrange(-10 ** 6, 10 ** 6))
    if kind == 2:
        return rng.choice([0.0, -0.0, 1e-4, 1e-5, 1e-7, 1e-9, 1e-10, 1e15, 1e16, 1e20, 1e21,
                           9007199254740993.0, 0.1, 2.5])
    exponent = rng.choice([-12, -9, -7, -5, -4, -2, 0, 3, 15, 16, 20, 22, 300, -300])
    return round(rng.uniform(-10, 10), rng.randrange(1, 17)) * 10.0 ** exponent


class FastPathTests(unittest.TestCase):
    """The fast writer (CPython) against the reference writer; both exact by construction."""

    def test_random_values_agree(self):
        rng = random.Random(20240601)
        for i in range(1500):
            value = [random_value(rng) for _ in range(rng.randrange(1, 4))]
            try:
                expected = reference(value)
            except ValueError:
                continue  # a random double that is not finite
            with self.subTest(i=i):
                self.assertEqual(canonical_json(value), expected)
                # The same data as the loader would give it: every float a Decimal.
                loaded = strict_loads(expected.decode("utf-8"))
                self.assertEqual(canonical_json(loaded), expected)

    def test_random_records_agree(self):
        rng = random.Random(7)
        for i in range(60):
            records = []
            for _ in range(rng.randrange(1, 40)):
                record = {"case_id": "c-%d" % rng.randrange(9), "trial_id": rng.randrange(1, 4),
                          "status": rng.choice(["success", "error"]),
                          "final_state": rng.choice([None, "done", "a 1.0, b", "\U0001f600"]),
                          "tools_used": rng.sample(["x", "y", "z"], rng.randrange(3)),
                          "latency_ms": Decimal(repr(random_double(rng))),
                          "cost_units": rng.choice([0, 3, Decimal("0.25"), Decimal("7.0")])}
                if rng.random() < 0.1:
                    del record["status"]
                records.append(record)
            value = {"records": records, "n": len(records)}
            try:
                expected = reference(value)
            except ValueError:
                continue
            with self.subTest(i=i):
                self.assertEqual(canonical_json(value), expected)

    @unittest.skipUnless(FAST_PATH, "no C JSON encoder on this interpreter")
    def test_fast_path_branches(self):
        records = [{"id": "r%d" % i, "n": i, "x": Decimal("%d.25" % i), "t": ["a", "b"],
                    "s": None if i % 2 else "ok"} for i in range(100)]
        cases = [
            ("plain", records),
            ("integral", records + [{"x": Decimal("100.0")}, {"x": Decimal("0.0")}]),
            ("integral and -0", records + [{"x": Decimal("100.0")}, {"x": Decimal("-0")}]),
            ("negative zero", [Decimal("-0.0"), Decimal("2.0"), Decimal("0.5")]),
            ("string with .0,", [Decimal("100.0"), "v1.0,", {"k": "2.0]"}]),
            ("tiny", records + [{"x": Decimal("0.00001")}, {"y": [Decimal("1e-7")]}]),
            ("huge", [Decimal("1e20"), Decimal("1.5e17"), Decimal("1e300")]),
            ("marker text, no markers", ["\x00jcs-number:0", Decimal("0.5")]),
            ("many markers", [Decimal("%de-6" % i) for i in range(1, 30)] * 2),
            ("no numbers", [{"a": "b", "c": [True, None]}]),
            ("uneven objects", [{"a": 1}, {"b": Decimal("2.5")}, {"a": 2, "b": []}, {}]),
        ]
        for name, value in cases:
            with self.subTest(name):
                fast = canonical_fast.fast_batches(value)
                self.assertIsNotNone(fast)
                self.assertEqual("".join(fast).encode("utf-8"), reference(value))
                self.assertEqual(canonical_json(value), reference(value))

    def test_fast_path_helpers(self):
        plain = canonical_fast._plain_range
        self.assertTrue(plain([Decimal("0.0001"), Decimal("999999999999999.9")]))
        self.assertTrue(plain([Decimal("0"), Decimal("-0.5"), Decimal("-0"), Decimal("2")]))
        self.assertTrue(plain([Decimal("0"), Decimal("-0")]))
        self.assertTrue(plain([Decimal("0.0"), Decimal("0.5"), Decimal("0")]))
        self.assertFalse(plain([Decimal("0.0"), Decimal("0.00009"), Decimal("3")]))
        self.assertFalse(plain([Decimal("0.0"), Decimal("-0.00009"), Decimal("3")]))
        for bad in ("0.00009", "-0.00009", "1e15", "-1e15", "NaN", "Infinity", "sNaN"):
            with self.subTest(bad):
                self.assertFalse(plain([Decimal("0.5"), Decimal(bad)]))
        stand_in = canonical_fast._json_stand_in
        self.assertEqual([stand_in(x) for x in (100.0, 2.5, 1e17, 1e21, 1e-10)],
                         [100, 2.5, 10 ** 17, 1e21, 1e-10])
        self.assertEqual(stand_in(1e-5), "0.00001")  # a marker's text: Python writes 1e-05

    @unittest.skipUnless(FAST_PATH, "no C JSON encoder on this interpreter")
    def test_fast_path_declines_what_it_cannot_vouch_for(self):
        for value in ([1.5], [{"\ue000": 1, "\U0001f600": 2}], [2 ** 60], [(1,)], [{1: 2}]):
            with self.subTest(value=value):
                self.assertIsNone(canonical_fast.fast_batches(value))

    @unittest.skipUnless(FAST_PATH, "no C JSON encoder on this interpreter")
    def test_a_marker_in_the_data_sends_its_piece_to_the_reference_writer(self):
        marker_in_data = [Decimal("1e-5"), "\x00jcs-number:0"]
        for value in (marker_in_data, [{"\x00jcs-number:0": 1}, Decimal("-2e-5")]):
            with self.subTest(value=value):
                with mock.patch.object(canonical_fast, "reference_text",
                                       wraps=canonical_reference.reference_text) as fallback:
                    text = "".join(canonical_fast.fast_batches(value))
                self.assertTrue(fallback.called)
                self.assertEqual(text.encode("utf-8"), reference(value))
        self.assertEqual(canonical_json(marker_in_data), b'[0.00001,"\\u0000jcs-number:0"]')


class FingerprintTests(unittest.TestCase):
    def test_evidence_fingerprint_is_sha256_of_the_canonical_array(self):
        spec = {"b": Decimal("0.95"), "a": [1, 2]}
        cases = {"cases": [{"id": "x", "split": "test"}]}
        results = {"systems": [{"latency_ms": Decimal("12.0")}]}
        got = evidence_fingerprint(spec, cases, results, "cand")
        canonical = (b'[{"a":[1,2],"b":0.95},{"cases":[{"id":"x","split":"test"}]},'
                     b'{"systems":[{"latency_ms":12}]},"cand"]')
        self.assertEqual(canonical_json([spec, cases, results, "cand"]), canonical)
        self.assertEqual(got, "sha256:" + hashlib.sha256(canonical).hexdigest())
        self.assertRegex(got, r"\Asha256:[0-9a-f]{64}\Z")

    def test_known_answer(self):
        # The hash of RFC 8785's sample as the fourth element of the array.
        value = strict_loads(RfcExamplesTests.RFC_INPUT)
        got = evidence_fingerprint({}, [], None, value)
        expected = hashlib.sha256(b"[{},[],null," + RfcExamplesTests.RFC_BYTES + b"]")
        self.assertEqual(got, "sha256:" + expected.hexdigest())

    def test_any_change_changes_it(self):
        base = evidence_fingerprint({"a": 1}, {"b": [1]}, {"c": "x"}, "cand")
        self.assertNotEqual(base, evidence_fingerprint({"a": 2}, {"b": [1]}, {"c": "x"}, "cand"))
        self.assertNotEqual(base, evidence_fingerprint({"a": 1}, {"b": [1]}, {"c": "x"}, "cand2"))
        self.assertNotEqual(base, evidence_fingerprint({"a": 1}, {"b": []}, {"c": "x"}, "cand"))
        self.assertEqual(base, evidence_fingerprint({"a": Decimal("1.0")}, {"b": [1]},
                                                    {"c": "x"}, "cand"))

    def test_hasher_streams_in_slices(self):
        value = [{"k": "x" * 50, "n": Decimal("1.5"), "i": i} for i in range(3000)]
        expected = hashlib.sha256(canonical_json(value)).hexdigest()
        saved = canonical._HASH_SLICE, canonical_reference._REFERENCE_BATCH
        try:
            canonical._HASH_SLICE, canonical_reference._REFERENCE_BATCH = 1000, 10
            hasher = hashlib.sha256()
            self.assertIs(fingerprint_hasher(value, hasher), hasher)
            self.assertEqual(fingerprint_hasher(value, hashlib.sha256()).hexdigest(), expected)
            batches = list(canonical_reference.reference_batches(value))
            self.assertGreater(len(batches), 10)
            self.assertEqual(hashlib.sha256("".join(batches).encode()).hexdigest(), expected)
        finally:
            canonical._HASH_SLICE, canonical_reference._REFERENCE_BATCH = saved


if __name__ == "__main__":
    unittest.main()
