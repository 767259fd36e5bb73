"""The JSON Schemas: generated from the contract, shipped current, and agreeing with the
validator on every fixture.

The schemas are checked with the small JSON Schema checker of :mod:`tests.schema_check`, whose
semantics are JSON Schema's, not the contract's: ``8.0`` is an integer there, the one
difference the schemas' descriptions state.
"""

import glob
import json
import os
import unittest
from decimal import Decimal

from devtools import publish
from proagents_bench.contract import output as output_contract
from proagents_bench.contract import publish as schema
from proagents_bench.contract.inputs import FILE_KINDS
from proagents_bench.contract.publish import DOCUMENT_KINDS
from proagents_bench.contract.rules import CROSS_FILE_RULES
from proagents_bench.contract.containers import SCHEMA_KEY, AnyOf, Array, Mapping, Nullable, Object
from proagents_bench.contract.shapes import Boolean, Integer, Number, String, StringSet
from proagents_bench.contract.validate import file_errors, version_errors
from proagents_bench.contract.vocabulary import SCHEMA_KINDS
from proagents_bench.jsonio import load as jsonload
from tests.schema_check import schema_errors
from tests.support import EXAMPLES, TempDir, example_package, run_cli

CORPUS = os.path.join(os.path.dirname(os.path.abspath(__file__)), "corpus")

# Invalid-corpus files whose error JSON Schema cannot see, although it is a schema error:
# the contract's integers are literals without fraction, JSON Schema's are values.
SCHEMA_BLIND = {"spec/float_as_integer.json"}


def check(kind, value):
    generated = schema.schema(kind)
    return schema_errors(value, generated, generated)


def load_json(path):
    """A fixture as plain JSON (a leading byte-order mark ignored, as the loader does)."""
    with open(path, "rb") as handle:
        return json.loads(handle.read().decode("utf-8-sig"))


def example_kind(value):
    for kind, versions in DOCUMENT_KINDS.items():
        if value.get("schema_version") in versions:
            return kind
    raise AssertionError("not an input file")


# -- tests --------------------------------------------------------------------------------

class GeneratedSchemaTests(unittest.TestCase):
    def test_every_schema_is_draft_2020_12_with_an_id(self):
        for kind in SCHEMA_KINDS:
            generated = schema.schema(kind)
            self.assertEqual(generated["$schema"],
                             "https://json-schema.org/draft/2020-12/schema")
            self.assertEqual(generated["$id"], "urn:proagents-bench:schema:" + kind)

    def test_shipped_schemas_and_contract_tables_are_current(self):
        self.assertEqual(publish.stale_files(), [], "run: %s" % publish.COMMAND)

    def test_the_command_line_prints_the_schema_and_reads_nothing(self):
        missing = os.path.join(TempDir(self).path, "missing.json")
        for kind in SCHEMA_KINDS:
            run = run_cli(["--schema", kind, "--spec", missing])
            self.assertEqual((run.status, run.stderr), (0, ""))
            self.assertEqual(run.stdout, schema.schema_bytes(kind))
            run.stdout.decode("ascii")
        run = run_cli(["--schema", "recipes"])
        self.assertEqual((run.status, run.document["errors"][0]["code"]), (2, "cli.usage"))

    def test_descriptions_name_every_rule_the_schema_cannot_check(self):
        for kind in ("spec", "cases", "results"):
            description = schema.schema(kind)["description"]
            for rule in schema.object_rules(kind) + list(CROSS_FILE_RULES):
                self.assertIn(rule.code, description)
        self.assertIn("schema.critical_gate_below_task_gate", schema.schema("spec")[
            "description"])


class VersionChoiceTests(unittest.TestCase):
    def test_the_spec_schema_reports_only_the_files_own_version(self):
        spec = example_package()[0]
        del spec["bootstrap"]["seed"]
        errors = check("spec", spec)
        self.assertTrue(errors)
        self.assertFalse([error for error in errors if "unit" in error], errors)
        self.assertFalse([error for error in errors if "oneOf" in error], errors)
        v3 = example_package()[0]
        v3["schema_version"] = "agent-benchmark-spec-v3"
        v3["bootstrap"].update(unit="task", lower_bound="strict")
        self.assertEqual(check("spec", v3), [])
        del v3["bootstrap"]["lower_bound"]
        self.assertTrue([error for error in check("spec", v3) if "lower_bound" in error])
        self.assertTrue(check("spec", dict(v3, schema_version="agent-benchmark-spec-v9")))


class FixtureTests(unittest.TestCase):
    def test_every_valid_example_and_corpus_file_satisfies_its_schema(self):
        paths = sorted(glob.glob(os.path.join(EXAMPLES, "*.json")))
        checked = 0
        for path in paths:
            value = load_json(path)
            kind = example_kind(value)
            loaded = jsonload.load_file(path).value
            if any(error.code.startswith("schema.")
                   for error in version_errors(kind, DOCUMENT_KINDS[kind], loaded)):
                continue
            with self.subTest(file=os.path.basename(path)):
                self.assertEqual(check(kind, value), [])
                checked += 1
        for path in sorted(glob.glob(os.path.join(CORPUS, "valid", "*", "*.json"))):
            kind = os.path.basename(os.path.dirname(path))
            with self.subTest(file=path):
                self.assertEqual(check(kind, load_json(path)), [])
                checked += 1
        self.assertGreater(checked, 20)

    def test_every_invalid_corpus_file_with_a_schema_error_fails_its_schema(self):
        failing = passing = 0
        for path in sorted(glob.glob(os.path.join(CORPUS, "invalid", "*", "*.json"))):
            kind = os.path.basename(os.path.dirname(path))
            name = "%s/%s" % (kind, os.path.basename(path))
            with open(path[:-len(".json")] + ".errors", "rb") as handle:
                codes = [line.split(" ", 1)[0] for line in handle.read().decode(
                    "utf-8").splitlines() if line.strip()]
            if any(code.startswith(("json.", "encoding.", "file.")) for code in codes):
                continue  # not JSON that a schema could be applied to
            rules = {rule.code for rule in schema.object_rules(kind)}
            schema_visible = [code for code in codes
                              if code.startswith(("schema.", "version.unsupported"))
                              and code not in rules]
            with self.subTest(file=name):
                errors = check(kind, load_json(path))
                if schema_visible and name not in SCHEMA_BLIND:
                    self.assertTrue(errors, "the schema accepts %s" % name)
                    failing += 1
                else:
                    # Rules across fields and files: the schema says it leaves them to the
                    # validator, and indeed accepts the file.
                    self.assertEqual(errors, [])
                    passing += 1
        self.assertGreater(failing, 30)
        self.assertGreater(passing, 10)

    def test_the_schema_key_is_accepted_only_at_the_root(self):
        spec, cases, results = example_package()
        spec["$schema"] = "./spec.schema.json"
        self.assertEqual(check("spec", spec), [])
        spec["gates"]["$schema"] = "./spec.schema.json"
        self.assertTrue(check("spec", spec))
        cases["$schema"] = ""
        self.assertTrue(check("cases", cases))
        results["$schema"] = 1
        self.assertTrue(check("results", results))


def _wrong_type(value):
    if isinstance(value, bool):
        return "true"
    if isinstance(value, (int, float)):
        return True
    if isinstance(value, str):
        return 5
    if isinstance(value, list):
        return {}
    if isinstance(value, dict):
        return []
    return 5


def _mutations(value, path=()):
    """(description, mutated copy) for every object on the first-item spine of ``value``:
    each key removed, an unknown key added, each value of a wrong type."""
    if isinstance(value, list):
        if value:
            for description, mutated in _mutations(value[0], path + (0,)):
                yield description, [mutated] + value[1:]
        return
    if not isinstance(value, dict):
        return
    yield "%s: unknown key" % (path,), dict(value, unexpected_key="x")
    for key in value:
        rest = {other: item for other, item in value.items() if other != key}
        yield "%s: without %s" % (path, key), rest
        yield "%s.%s: wrong type" % (path, key), dict(value, **{key: _wrong_type(value[key])})
        for description, mutated in _mutations(value[key], path + (key,)):
            yield description, dict(value, **{key: mutated})


OUTPUT_RUNS = (
    [],
    ["--results", os.path.join(EXAMPLES, "benchmark_results_regression.json")],
    ["--results", os.path.join(EXAMPLES, "exercise_results_p95_review.json")],
    ["--results", os.path.join(EXAMPLES, "exercise_results_critical_privacy.json")],
    ["--results", os.path.join(EXAMPLES, "exercise_results_unstable_task.json")],
    ["--results", os.path.join(EXAMPLES, "exercise_results_missing_trial.json")],
    ["--spec", os.path.join(EXAMPLES, "benchmark_spec_v3_strict.json")],
    ["--spec", os.path.join(EXAMPLES, "benchmark_spec_v4_trial.json"),
     "--results", os.path.join(EXAMPLES, "exercise_results_unstable_task.json")],
    ["--spec", os.path.join(EXAMPLES, "benchmark_spec_protocol_mismatch.json")],
    ["--spec", os.path.join(EXAMPLES, "benchmark_spec_v2_family.json")],
    ["--no-such-option"],
)


def undeclared_keys(shape, value, path="$"):
    """Keys of ``value`` that the output contract does not declare (it must declare every key
    the gate writes, although its schema lets later versions add more)."""
    found = []
    if isinstance(shape, AnyOf):
        best = min(shape.shapes, key=lambda option: len(list(option.iter_errors(value))))
        return undeclared_keys(best, value, path)
    if isinstance(shape, Nullable):
        return [] if value is None else undeclared_keys(shape.shape, value, path)
    if isinstance(shape, Array):
        for index, item in enumerate(value):
            found += undeclared_keys(shape.items, item, "%s[%d]" % (path, index))
    elif isinstance(shape, Mapping):
        for key, item in value.items():
            found += undeclared_keys(shape.values, item, "%s.%s" % (path, key))
    elif isinstance(shape, Object) and not shape.closed:
        fields = {field.key: field.shape for field in shape.fields}
        for key, item in value.items():
            if key in fields:
                found += undeclared_keys(fields[key], item, "%s.%s" % (path, key))
            else:
                found.append("%s.%s" % (path, key))
    return found


class OutputDocumentTests(unittest.TestCase):
    def test_every_output_satisfies_the_decision_schema_and_declares_every_key(self):
        if os.path.exists(os.path.join(EXAMPLES, "benchmark_spec_v2_family.json")):
            runs = OUTPUT_RUNS
        else:
            runs = OUTPUT_RUNS[:-2] + OUTPUT_RUNS[-1:]
        actions = set()
        for args in runs:
            with self.subTest(args=args):
                document = run_cli(args).document
                actions.add(document["action"])
                self.assertEqual(check("decision", document), [])
                self.assertEqual(list(output_contract.OUTPUT.iter_errors(document)), [])
                self.assertEqual(undeclared_keys(output_contract.OUTPUT, document), [],
                                 "declare the key in proagents_bench/contract/output.py")
        self.assertEqual(actions, {"PASS", "REVIEW", "BLOCK", "INCOMPARABLE",
                                   "CONTRACT_ERROR"})

    def test_the_decision_schema_rejects_a_damaged_document(self):
        document = run_cli([]).document
        for damage in ({"action": "MAYBE"}, {"reasons": []}, {"comparable": "yes"},
                       {"evidence_fingerprint": "md5:00"}):
            with self.subTest(damage=damage):
                self.assertTrue(check("decision", dict(document, **damage)))
        del document["candidate_metrics"]
        self.assertTrue(check("decision", document))


class ValidatorAgreementTests(unittest.TestCase):
    def test_schema_and_validator_reject_the_same_damage(self):
        count = 0
        for value in example_package():
            kind = example_kind(value)
            for description, mutated in _mutations(value):
                with self.subTest(kind=kind, damage=description):
                    loaded = jsonload.parse_bytes(json.dumps(mutated).encode("utf-8"),
                                                  "mutated").value
                    self.assertTrue(file_errors(kind, loaded))
                    self.assertTrue(check(kind, mutated))
                    count += 1
        self.assertGreater(count, 150)

    def test_the_schema_walks_with_the_contract(self):
        for kind, versions in FILE_KINDS.items():
            generated = schema.schema(kind)
            for version, shape in versions.items():
                node = generated["$defs"][version] if "$defs" in generated else generated
                with self.subTest(kind=kind, version=version):
                    self._walk(shape, node, generated)

    def test_the_decision_schema_walks_with_the_output_contract(self):
        generated = schema.schema("decision")
        self._walk(output_contract.OUTPUT, generated, generated)

    def _walk(self, shape, node, root):
        """Assert that ``node`` says exactly what ``shape`` checks, all the way down."""
        if isinstance(shape, Object) and shape.closed:
            keys = [field.key for field in shape.fields]
            self.assertEqual(node["type"], "object")
            self.assertEqual(node["required"], keys)
            self.assertEqual(set(node["properties"]), set(keys) | (
                {SCHEMA_KEY} if shape.root else set()))
            self.assertIs(node["additionalProperties"], False)
            if node is not root:  # the root's title names the file kind
                self.assertEqual(node["title"], shape.title)
            for field in shape.fields:
                self.assertEqual(node["properties"][field.key].get("description", ""),
                                 field.meaning)
                self._walk(field.shape, node["properties"][field.key], root)
            if shape.root:
                self._walk(String(), node["properties"][SCHEMA_KEY], root)
        elif isinstance(shape, Object):
            self.assertEqual(node["type"], "object")
            self.assertEqual(node["required"], [field.key for field in shape.fields
                                                if field.required])
            self.assertEqual(list(node["properties"]), [field.key for field in shape.fields])
            self.assertNotIn("additionalProperties", node)  # more keys may be added
            for field in shape.fields:
                self._walk(field.shape, node["properties"][field.key], root)
        elif isinstance(shape, AnyOf):
            self.assertEqual(len(node["anyOf"]), len(shape.shapes))
            for inner, inner_node in zip(shape.shapes, node["anyOf"]):
                self._walk(inner, inner_node, root)
        elif isinstance(shape, Nullable):
            self.assertEqual(node["anyOf"][1], {"type": "null"})
            self._walk(shape.shape, node["anyOf"][0], root)
        elif isinstance(shape, StringSet):
            self.assertEqual((node["type"], node["uniqueItems"]), ("array", True))
            self._walk(shape.item, node["items"], root)
        elif isinstance(shape, Array):
            self.assertEqual(node["type"], "array")
            self.assertEqual(node.get("minItems", 0), shape.min_items)
            self.assertEqual(node.get("maxItems"), shape.max_items)
            self._walk(shape.items, node["items"], root)
        elif isinstance(shape, Mapping):
            self.assertEqual(node["type"], "object")
            self._walk(shape.values, node["additionalProperties"], root)
        elif isinstance(shape, String):
            self.assertEqual(node["type"], "string")
            if shape.enum is not None and len(shape.enum) == 1:
                self.assertEqual(node["const"], shape.enum[0])
            elif shape.enum is not None:
                self.assertEqual(node["enum"], list(shape.enum))
            elif shape.blank:
                self.assertNotIn("minLength", node)
                self.assertEqual(node.get("pattern"), shape.pattern)
            else:
                self.assertEqual((node["minLength"], node["pattern"]),
                                 (1, shape.pattern or "\\S"))
        elif isinstance(shape, Boolean):
            self.assertEqual(node["type"], "boolean")
            if shape.const is not None:
                self.assertIs(node["const"], shape.const)
        elif isinstance(shape, Integer):
            self.assertEqual(node["type"], "integer")
            self.assertEqual(node.get("minimum"), shape.minimum)
            self.assertEqual(node.get("maximum"), shape.maximum)
        elif isinstance(shape, Number):
            self.assertEqual(node["type"], "number")
            for bound in ("minimum", "maximum"):
                expected = getattr(shape, bound)
                if expected is None:
                    self.assertNotIn(bound, node)
                else:  # the bound as written, to the last digit of a double
                    self.assertEqual(Decimal(repr(node[bound])), Decimal(str(expected)))
        else:
            self.fail("the walk does not know %s" % type(shape).__name__)


if __name__ == "__main__":
    unittest.main()
