"""Every fast path against the plain computation it replaces: same bytes, same verdicts.

The writer (jsondump, trialrows) against ``json.dumps``; the compiled validators against
``Shape.check``; the fingerprint with the loader's Decimals against the full scan; the
integer paths of the paired statistics against their Fraction forms; the one-pass coverage
order against ``ordered_records``; the lazy decision document against its materialised form.
"""

import decimal
import heapq
import io
import json
import math
import random
import unittest
from decimal import Decimal
from fractions import Fraction
from unittest import mock

from proagents_bench import cli, pipeline
from proagents_bench.cli import gate_command, progress
from proagents_bench.contract import inputs as contract
from proagents_bench.contract import rules as crossfile
from proagents_bench.contract.gates import gates_object
from proagents_bench.contract.vocabulary import SPEC_V1
from proagents_bench.evaluation.metrics import P95
from proagents_bench.jsonio import dump as jsondump
from proagents_bench.jsonio import load as jsonload
from proagents_bench.jsonio.canonical import evidence_fingerprint
from proagents_bench.render import document as render
from proagents_bench.render import trialrows
from proagents_bench.render.trialrows import TrialRows
from proagents_bench.stats import exact, exact_tests, paired, quantiles
from proagents_bench.stats.quantiles import nearest_rank, nearest_rank_unsorted
from devtools.synthetic import make_package
from tests import oracles
from tests.support import TempDir, example_package, example_path, run_cli, run_package


def standard(value):
    return json.dumps(value, ensure_ascii=True, sort_keys=True, indent=2, allow_nan=False)


class Sub(str):
    pass


def random_value(rng, depth=0):
    """A random JSON-ish value, with the odd kinds the writer must hand to json.dumps."""
    roll = rng.random()
    if depth > 3 or roll < 0.35:
        return rng.choice([
            "plain", "quote \" and \\ back", "caf\u00e9 \U0001F600", "%s %d 100%", "",
            "\x00\x1f", 0, -7, 2 ** 60, True, False, None, 1.5, -0.0, 1e-7, 1e300,
            Sub("sub"), (1, "tuple")])
    if roll < 0.55:
        return [random_value(rng, depth + 1) for _ in range(rng.randint(0, 4))]
    if roll < 0.7:
        # A long list of uniform objects: the column writer's case (with odd columns).
        keys = rng.sample(["a", "b%", "caf\u00e9", "z", "\"q\"", "n"], rng.randint(1, 4))
        kind = rng.choice(["scalar", "mixed", "nested", "names", "numbers", "optional"])
        items = []
        for index in range(rng.randint(16, 40)):
            item = {}
            for key in keys:
                if kind == "scalar":
                    item[key] = [index, "s%d" % index, index * 0.25, index % 2 == 0][
                        len(key) % 4]
                elif kind == "mixed":
                    item[key] = rng.choice([1, True, 1.0, "1", None, [1], {"k": 1}])
                elif kind == "names":  # tools_used: lists of strings, the odd other element
                    item[key] = rng.sample(["a", "caf\u00e9", "q\"", "%s", Sub("s")]
                                           + ([1, None, ["x"]] if index == 17 else []),
                                           rng.randint(0, 4 if index != 17 else 8))
                elif kind == "numbers":  # costs: integers and floats, the odd other number
                    item[key] = rng.choice([0, 2, 0.003, -0.0, 1e300, 2 ** 70] + (
                        [math.nan, math.inf, True, None] if index == 20 else []))
                elif kind == "optional":  # final states: text or none
                    item[key] = rng.choice(["done", None, "caf\u00e9"] + (
                        [Sub("sub"), 1] if index == 18 else []))
                else:
                    item[key] = {"inner": index, "flag": bool(index % 3)}
            items.append(item)
        return items
    members = {}
    for _ in range(rng.randint(0, 4)):
        members[rng.choice(["k", "K", "key 2", "\u00e9", "a%b", "k"])] = random_value(
            rng, depth + 1)
    if rng.random() < 0.1:
        members[3] = "int key"  # not a str: json.dumps converts it
    return members


class WriterTests(unittest.TestCase):
    def test_random_values_are_written_as_json_dumps_writes_them(self):
        rng = random.Random(5)
        for _ in range(400):
            value = random_value(rng)
            try:
                expected = standard(value)
            except (TypeError, ValueError) as error:
                with self.assertRaises(type(error)):
                    jsondump.dumps(value)
                continue
            self.assertEqual(jsondump.dumps(value), expected)
            self.assertEqual(jsondump.document_bytes(value), (expected + "\n").encode("ascii"))

    def test_record_columns_equal_the_standard_encoder(self):
        # The importer's records: lists of names, costs of both number types, optional text.
        records = [{"case_id": "c%02d" % index, "tools_used": ["lookup", "refund"][:index % 3],
                    "cost_units": [2, 0.003][index % 2], "final_state": [None, "done"][index % 2]}
                   for index in range(40)]
        for value in (records, {"records": records}, [records]):
            with self.subTest(value=type(value)):
                self.assertEqual(jsondump.dumps(value), standard(value))

    def test_refusals_match(self):
        for value in ([float("nan")], {"a": float("inf")}, [{"x": 1.0}] * 15 + [{"x": math.inf}],
                      {"a": object()}, [Fraction(1, 3)]):
            with self.subTest(value=value):
                with self.assertRaises(Exception) as expected:
                    standard(value)
                with self.assertRaises(type(expected.exception)):
                    jsondump.dumps(value)
                with self.assertRaises(type(expected.exception)):
                    jsondump.document_bytes(value)

    def test_pieces_at_a_level_indent_as_inside_a_parent(self):
        value = {"list": [1, {"a": [True, None]}], "empty": {}, "none": []}
        parent = standard({"x": value})
        inner = "".join(jsondump.pieces(value, 1))
        self.assertEqual(parent, '{\n  "x": ' + inner + "\n}")


class MappingColumnTests(unittest.TestCase):
    def test_large_mappings_of_objects_equal_the_standard_encoder(self):
        uniform = {"f%03d" % i: {"task_count": i, "task_success_rate": i / 7} for i in range(40)}
        mixed = dict(uniform, f031={"other": [1, 2]}, f005="text")
        late = dict(uniform, f039={"task_count": 1})
        for value in (uniform, mixed, late, {"x": uniform, "y": [late]}):
            with mock.patch.object(jsondump, "BATCH_ITEMS", 7):
                self.assertEqual(jsondump.dumps(value), standard(value))
            self.assertEqual(jsondump.dumps(value), standard(value))


class DocumentBytesTests(unittest.TestCase):
    def evaluate(self, spec, cases, results):
        folder = TempDir(self)
        paths = [folder.write_json(name + ".json", value) for name, value in
                 (("spec", spec), ("cases", cases), ("results", results))]
        return pipeline.evaluate([pipeline.InputFile(kind, path) for kind, path in
                                  zip(pipeline.KINDS, paths)])

    def assert_same_bytes(self, evaluation):
        lazy = b"".join(evaluation.chunks())
        document = evaluation.document  # materialised here
        self.assertIsInstance(document["candidate_metrics"]["trial_results"], list)
        self.assertEqual(lazy, (standard(document) + "\n").encode("ascii"))
        self.assertEqual(lazy, render.dumps(document))
        self.assertEqual(b"".join(evaluation.chunks()), lazy)

    def test_examples(self):
        self.assert_same_bytes(pipeline.evaluate(gate_command.default_inputs()))
        self.assert_same_bytes(pipeline.evaluate(gate_command.default_inputs(
            results=example_path("benchmark_results_regression.json"))))

    def test_synthetic_packages_in_small_chunks(self):
        spec, cases, results = make_package(300, trial_count=3, seed=2)
        evaluation = self.evaluate(spec, cases, results)
        with mock.patch("proagents_bench.render.trialrows.BATCH_ROWS", 7), \
                mock.patch("proagents_bench.jsonio.dump.BATCH_ITEMS", 5):
            small = b"".join(render.chunks(evaluation._document, size=1000))
        self.assertEqual(small, b"".join(evaluation.chunks()))
        self.assert_same_bytes(evaluation)

    def test_hostile_strings_and_numbers_in_the_trials(self):
        spec, cases, results = example_package()
        odd = "caf\u00e9 \"%s\" \\ 100% \U0001F600"
        for case in cases["cases"]:
            if case["id"] == "test-status":
                case["id"] = odd
        for system in results["systems"]:
            for index, record in enumerate(system["records"]):
                if record["case_id"] == "test-status":
                    record["case_id"] = odd
                record["latency_ms"] = [1200, 0.5, 1e-7, 123456789.0, 3][index % 5]
                record["cost_units"] = [0, 0.25, 7, 1e20, 0.0][index % 5]
        self.assert_same_bytes(self.evaluate(spec, cases, results))

    def test_the_cli_writes_the_chunks(self):
        run = run_cli([])
        evaluation = pipeline.evaluate(gate_command.default_inputs())
        self.assertEqual(run.stdout, render.dumps(evaluation.document))

    def test_trial_rows_to_list_and_text_agree(self):
        records = [{"case_id": "c%d" % i, "trial_id": i % 3 + 1, "status": "success",
                    "latency_ms": Decimal("12.50") if i % 2 else 7,
                    "cost_units": Decimal("1E+2")} for i in range(40)]
        rows = TrialRows(records, bytes(range(16)) * 2 + bytes(8))
        self.assertEqual(len(rows), 40)
        self.assertEqual("".join(rows.json_pieces(2)),
                         "".join(jsondump.pieces(rows.to_list(), 2)))
        self.assertEqual("".join(TrialRows([], b"").json_pieces(0)), "[]")

    def test_rates_and_groups_as_the_plain_computation_writes_them(self):
        # Task and group rates are written as p / k (ints), the double of Fraction(p, k);
        # the groups, gathered by one lookup per task, equal the plain tally.
        for count in range(1, 101):
            for passing in range(count + 1):
                self.assertEqual(passing / count, float(Fraction(passing, count)))
        rng = random.Random(31)
        for _ in range(2000):
            count = rng.randint(1, 10 ** 6)
            passing = rng.randint(0, count)
            self.assertEqual(passing / count, float(Fraction(passing, count)))
        spec, cases, results = make_package(300, trial_count=3, seed=5)
        evaluation = self.evaluate(spec, cases, results)
        for role in ("baseline_metrics", "candidate_metrics"):
            metrics = evaluation.lazy_document[role]
            tasks = metrics["task_results"]
            self.assertTrue(tasks)
            for key, field in (("by_family", "family_id"), ("by_slice", "slice")):
                plain = {}
                for task in tasks:
                    tally = plain.setdefault(task[field], [0, 0])
                    tally[0] += 1
                    tally[1] += task["task_pass"]
                self.assertEqual(list(metrics[key]), list(plain))  # first appearance
                for name, (count, passing) in plain.items():
                    self.assertEqual(metrics[key][name]["task_count"], count)
                    self.assertEqual(metrics[key][name]["task_success_rate"],
                                     float(Fraction(passing, count)))

    def test_decimal_columns_are_written_as_their_doubles(self):
        # A column of Decimals is written by their own texts when those are the doubles'
        # (trialrows._decimal_texts): each value below fails one condition of that proof.
        rng = random.Random(29)
        odd = ["1.5E-7", "15", "0.00005", "1.50", "1.00000000000000001", "-0.00001",
               "100.00", "0.30000000000000004", "1E+2", "123456789012345.6"]
        plain = ["1725.38", "0.0306", "380.0", "-0.0", "0.0", "0.0001", "-1234567890123.5",
                 "99999999999999.9", "0.1"]
        columns = [[Decimal(text)] for text in odd + plain]
        for _ in range(400):
            integer = str(rng.randint(0, 10 ** rng.randint(0, 16)))
            fraction = str(rng.randint(0, 10 ** rng.randint(1, 6))).zfill(rng.randint(1, 6))
            text = rng.choice(["", "-"]) + integer + "." + fraction + rng.choice(
                ["", "", "", "0", "e-3", "E+2"])
            columns.append([Decimal(text)])
        columns.append([Decimal(text) for text in plain] * 3)
        columns.append([Decimal(text) for text in plain + odd[:1]])
        for column in columns:
            with self.subTest(column=column[:3]):
                self.assertEqual(trialrows._number_texts(column, 3),
                                 [float.__repr__(float(value)) for value in column])
        self.assertIsNotNone(trialrows._decimal_texts([Decimal(text) for text in plain]))
        for text in odd:
            self.assertIsNone(trialrows._decimal_texts([Decimal(text)]), text)


class ProgressTests(unittest.TestCase):
    def test_evaluate_names_each_stage_with_a_count(self):
        stages = []
        pipeline.evaluate(gate_command.default_inputs(),
                          progress=lambda *stage: stages.append(stage))
        sizes = [item.size() for item in gate_command.default_inputs()]
        self.assertEqual(stages, [("loading spec", sizes[0], "bytes"),
                                  ("loading cases", sizes[1], "bytes"),
                                  ("loading results", sizes[2], "bytes"),
                                  ("validating", 30, "records", 60),
                                  ("grading", 30, "trials", 30),
                                  ("bootstrapping", 1000, "samples"), ("deciding",)])

    def test_progress_only_on_a_terminal(self):
        class Terminal(io.StringIO):
            def isatty(self):
                return True

        quiet = run_cli([])
        for stream, shown in ((Terminal(), True), (io.StringIO(), False)):
            out = io.BytesIO()
            with mock.patch.object(progress, "AFTER_SECONDS", 0):
                status = cli.main([], stdout=out, stderr=stream)
            self.assertEqual((status, out.getvalue()), (quiet.status, quiet.stdout))
            lines = [line for line in stream.getvalue().splitlines() if line.endswith(" s)")]
            self.assertEqual(bool(lines), shown)
            self.assertTrue(all(line.startswith("proagents-bench: ") for line in lines))
            if shown:
                self.assertIn("proagents-bench: grading: 30 trials (", lines[4])
                self.assertTrue(lines[-1].startswith("proagents-bench: done: PASS, exit 0"))


def mutations(value, rng):
    """Damaged copies of a contract object: each breaks one rule somewhere inside."""
    breakers = [
        lambda old: None, lambda old: "", lambda old: "   ", lambda old: True,
        lambda old: 3, lambda old: Decimal("-1"), lambda old: Decimal("2.5"), lambda old: [],
        lambda old: ["a", "a"], lambda old: [" "], lambda old: {}, lambda old: 2 ** 60,
        lambda old: "unknown-enum", lambda old: 0, lambda old: [1],
    ]
    for _ in range(60):
        copy = json.loads(json.dumps(value, default=str), parse_float=Decimal)
        target = copy
        path = []
        while isinstance(target, (dict, list)) and target and rng.random() < 0.7:
            key = (rng.choice(list(target)) if isinstance(target, dict)
                   else rng.randrange(len(target)))
            if not isinstance(target[key], (dict, list)):
                break
            path.append(key)
            target = target[key]
        if isinstance(target, dict) and target:
            key = rng.choice(list(target))
            roll = rng.random()
            if roll < 0.15:
                del target[key]
            elif roll < 0.25:
                target["extra"] = 1
            else:
                target[key] = rng.choice(breakers)(target[key])
        elif isinstance(target, list):
            target.append(rng.choice(breakers)(None))
        yield copy


class CompiledValidatorTests(unittest.TestCase):
    SHAPES = ("RECORD", "CASE", "SYSTEM", "PROTOCOL", "GATES", "BOOTSTRAP_V1", "BOOTSTRAP_V2")

    def samples(self):
        spec, cases, results = make_package(4, trial_count=2, seed=3)
        spec2 = dict(spec, bootstrap=dict(spec["bootstrap"], unit="family"))
        loaded = json.loads(json.dumps([spec, cases, results, spec2]), parse_float=Decimal)
        spec, cases, results, spec2 = loaded
        system = results["systems"][0]
        return {"RECORD": system["records"][0], "CASE": cases["cases"][-1], "SYSTEM": system,
                "PROTOCOL": spec["protocol"], "GATES": spec["gates"],
                "BOOTSTRAP_V1": spec["bootstrap"], "BOOTSTRAP_V2": spec2["bootstrap"]}

    def test_the_compiled_verdict_is_the_checks_verdict(self):
        rng = random.Random(8)
        samples = self.samples()
        for name in self.SHAPES:
            shape = gates_object(SPEC_V1) if name == "GATES" else getattr(contract, name)
            valid = shape.validator()
            self.assertIsNotNone(valid, name)
            self.assertTrue(valid(samples[name]), name)
            self.assertEqual(list(shape.iter_errors(samples[name])), [])
            for damaged in mutations(samples[name], rng):
                with self.subTest(shape=name, value=damaged):
                    self.assertEqual(valid(damaged), not list(shape.iter_errors(damaged)))

    def test_roots_and_unknown_shapes_are_not_compiled(self):
        self.assertIsNone(contract.RESULTS_V1_SHAPE.validator())
        self.assertIn("for ", contract.SYSTEM.source_text())

    def test_a_damaged_array_still_reports_every_error_in_order(self):
        spec, cases, results = make_package(5, trial_count=2, seed=4)
        results["systems"][1]["records"][3]["latency_ms"] = -1
        results["systems"][1]["records"][1]["status"] = "done"
        run = run_package(self, spec, cases, results)
        self.assertEqual([(e["code"], e["path"]) for e in run.document["errors"]],
                         [("schema.enum", "$.systems[1].records[1].status"),
                          ("schema.range", "$.systems[1].records[3].latency_ms")])


class NumberPathTests(unittest.TestCase):
    def test_fingerprint_with_the_loaders_decimals_equals_the_scan(self):
        rng = random.Random(12)
        for trial in range(6):
            spec, cases, results = make_package(20, trial_count=2, seed=trial)
            values = [1200, 0.5, 1e-7, 123456789.0, 1e20, 1e-5, 2.5e-300, 0.0, 7.0]
            for system in results["systems"]:
                for record in system["records"]:
                    record["latency_ms"] = rng.choice(values)
            if trial % 2:
                results["systems"][0]["records"][0]["final_state"] = "ends in .0] and 1.0,"
            documents = [jsonload.parse_bytes(json.dumps(value).encode(), name)
                         for name, value in (("s", spec), ("c", cases), ("r", results))]
            values = [document.value for document in documents]
            decimals = [d for document in documents for d in document.decimals]
            self.assertEqual(evidence_fingerprint(*values, "candidate", decimals=decimals),
                             evidence_fingerprint(*values, "candidate"))

    def test_the_loader_records_every_decimal_in_file_order(self):
        document = jsonload.parse_bytes(
            b'{"a": [1.5, 2, {"b": 1e2, "c": "3.5"}], "d": -0.0, "e": 10}', "x")
        self.assertEqual([str(d) for d in document.decimals], ["1.5", "1E+2", "-0.0"])

    def test_p95_without_a_full_sort(self):
        rng = random.Random(3)
        for count in (1, 2, 19, 20, 21, 100, 1001):
            values = [rng.choice([Decimal(rng.randint(0, 50)) / 4, rng.randint(0, 12)])
                      for _ in range(count)]
            self.assertEqual(nearest_rank_unsorted(values, P95),
                             nearest_rank(sorted(values), P95))

    def test_p95_of_long_lists_through_the_threshold(self):
        # Past PREFILTER_COUNT values a threshold from a sample keeps the largest first: the
        # value at the rank, and the very object the one heap of every value gives (among
        # equal Decimals such as 1.5 and 1.50), in every order (the last two defeat the
        # sample, and every value is used).
        rng = random.Random(29)
        count = quantiles.PREFILTER_COUNT + 37
        plain = [Decimal(rng.randint(0, 90000)) / 100 for _ in range(count)]
        few = [rng.choice([Decimal("1.5"), Decimal("1.50"), 2, Decimal(3)]) for _ in range(count)]
        stride = quantiles.SAMPLE_STRIDE
        orders = [plain, sorted(plain), sorted(plain, reverse=True), few,
                  [value if index % stride else 10 ** 6 for index, value in enumerate(plain)],
                  [10 ** 6 if index % stride else 0 for index in range(count)]]
        for values in orders:
            for fraction in (P95, Fraction(3, 4), Fraction(999, 1000), Fraction(1, 10)):
                with self.subTest(fraction=fraction, first=values[:3]):
                    index = max(-((-fraction.numerator * count) // fraction.denominator), 1) - 1
                    found = nearest_rank_unsorted(values, fraction)
                    self.assertEqual(found, sorted(values)[index])
                    self.assertIs(found, heapq.nlargest(count - index, values)[-1])
        with mock.patch.object(quantiles.heapq, "nlargest", wraps=heapq.nlargest) as heap:
            nearest_rank_unsorted(plain, P95)
        self.assertLess(len(heap.call_args[0][1]), count // 10)  # the last heap: a few kept

    def test_exact_sums_of_decimals_and_ints(self):
        rng = random.Random(30)
        context = decimal.getcontext().prec
        for values in ([], [3], [Decimal("0.1")] * 10, [Decimal("1e300"), Decimal("1e-800")],
                       [rng.choice([rng.randint(-10 ** 6, 10 ** 6),
                                    Decimal(rng.randint(-10 ** 9, 10 ** 9)).scaleb(
                                        -rng.randint(0, 12))]) for _ in range(500)]):
            self.assertEqual(exact.exact_sum(values), sum(map(Fraction, values), Fraction(0)))
        self.assertEqual(decimal.getcontext().prec, context)

    def test_integer_paths_of_the_paired_statistics(self):
        # Task differences (ints), trial-level rates (Fractions over K, whose reduced
        # denominators differ), and Decimals (the general path): each equal to the plain sum.
        rng = random.Random(4)
        for count in (2, 3, 17, 60):
            for trials in (1, 4, 6):
                counts = [rng.randint(-trials, trials) for _ in range(count)]
                families = [rng.choice("abcde") for _ in range(count)] + ["a", "b"]
                for differences in (counts, [Fraction(c, trials) for c in counts],
                                    [Decimal(c) / 4 for c in counts]):
                    differences = differences + [differences[0], -differences[0]]
                    with self.subTest(count=count, trials=trials,
                                      kind=type(differences[0]).__name__):
                        mean, variance, _se = paired.paired_standard_error(differences)
                        self.assertEqual(mean, Fraction(sum(differences)) / len(differences))
                        self.assertEqual(variance, oracles.paired_variance(differences))
                        self.assertEqual(paired.clustered_variance(differences, families),
                                         oracles.clustered_variance(differences, families))
        self.assertEqual(paired.paired_standard_error([Fraction(1, 3)])[:2],
                         (Fraction(1, 3), None))

    def test_mcnemar_tail_by_recurrence(self):
        for b in range(0, 40, 3):
            for c in range(0, 40, 7):
                if b + c == 0:
                    continue
                tail = sum(math.comb(b + c, i) for i in range(min(b, c) + 1))
                self.assertEqual(exact_tests.mcnemar_exact_p(b, c),
                                 min(Fraction(1), Fraction(2 * tail, 2 ** (b + c))))

    def test_linear_mcnemar_gives_the_double_of_the_exact_p_value(self):
        rng = random.Random(11)
        pairs = [(b, c) for b in range(45) for c in range(45)]
        pairs += [(b, n - b) for n, b in ((rng.randrange(1, 2500), None) for _ in range(150))
                  for b in [rng.randrange(0, n + 1)]]
        for b, c in pairs:
            with self.subTest(b=b, c=c):
                self.assertEqual(exact_tests.mcnemar_exact_p_float(b, c),
                                 exact.to_float(exact_tests.mcnemar_exact_p(b, c)))

    def test_linear_mcnemar_falls_back_to_the_exact_sum_when_its_bracket_straddles(self):
        reference = exact_tests.mcnemar_exact_p
        with mock.patch.object(exact_tests, "mcnemar_exact_p",
                               side_effect=reference) as fallback:
            for b in range(1, 30):
                for c in range(b, 30):
                    self.assertEqual(exact_tests.mcnemar_exact_p_float(b, c, bits=6),
                                     exact.to_float(reference(b, c)))
        self.assertTrue(fallback.called)  # six bits of precision straddle often

    def test_one_pass_coverage_gives_the_canonical_order(self):
        spec, cases, results = make_package(30, trial_count=3, seed=9)
        random.Random(2).shuffle(results["systems"][1]["records"])
        loaded = json.loads(json.dumps([spec, cases, results]), parse_float=Decimal)
        spec, cases, results = loaded
        context = crossfile.Context(spec, cases, results)
        self.assertEqual(crossfile.cross_file_errors(context), [])
        systems = context.systems
        self.assertEqual(systems.baseline_records,
                         oracles.ordered_records(systems.baseline, cases))
        self.assertEqual(systems.candidate_records,
                         oracles.ordered_records(systems.candidate, cases))


if __name__ == "__main__":
    unittest.main()


class PiecewiseFingerprintTests(unittest.TestCase):
    def test_pieces_equal_the_reference_writer(self):
        from proagents_bench.jsonio import canonical_fast, canonical_reference
        records = [{"id": "r%d" % i, "n": i, "x": Decimal("%d.25" % i), "t": ["a", "b"],
                    "s": None if i % 2 else "ok", "z": Decimal("%d.0" % i)} for i in range(50)]
        values = [
            records, {"b": records, "a": {"deep": [records, []]}, "c": {}},
            [Decimal("-0.0"), Decimal("2.0"), Decimal("0.5")] * 20,
            ["v1.0,", {"k": "2.0]"}, Decimal("100.0")] * 20,
            [{"a": "b", "c": [True, None]}] * 30,
            [{"\u00e9": [1, 2] * 10}, "caf\u00e9 \U0001F600"] * 12,
        ]
        with mock.patch.object(canonical_fast, "_PIECE_ITEMS", 7):
            for value in values:
                with self.subTest(value=str(value)[:60]):
                    pieces = canonical_fast.fast_batches(value)
                    if canonical_fast._c_make_encoder is None:
                        self.assertIsNone(pieces)
                        continue
                    pieces = list(pieces)
                    self.assertGreater(len(pieces), 1)
                    self.assertEqual("".join(pieces), canonical_reference.reference_text(value))

    def test_declines_what_cannot_be_vouched_for(self):
        from proagents_bench.jsonio import canonical_fast
        for value in ([1.5], [{"\ue000": 1}], "text"):
            with self.subTest(value=value):
                self.assertIsNone(canonical_fast.fast_batches(value))

    def test_pieces_with_markers_equal_the_reference_writer(self):
        from proagents_bench.jsonio import canonical_fast, canonical_reference
        if canonical_fast._c_make_encoder is None:
            self.skipTest("no C JSON encoder on this interpreter")
        values = [[{"x": Decimal("1e-7"), "y": Decimal("1e20"), "z": Decimal("2.5")}] * 20,
                  {"a": [Decimal("%de-6" % i) for i in range(1, 40)], "b": "1e-5"}]
        with mock.patch.object(canonical_fast, "_PIECE_ITEMS", 7):
            for value in values:
                pieces = list(canonical_fast.fast_batches(value))
                self.assertGreater(len(pieces), 1)
                self.assertEqual("".join(pieces), canonical_reference.reference_text(value))
