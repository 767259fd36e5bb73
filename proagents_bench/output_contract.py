"""The output documents' contract, declared once: the decision and the CONTRACT_ERROR document.

The input contracts (:mod:`proagents_bench.contract`) are closed: an unknown key is an error.
The output is open by promise ("more keys may be added, none of these renamed"), so its
objects are :class:`OpenObject` shapes: the listed keys are required (or optional, where a
decision may lack them, as an INCOMPARABLE comparison does) and further keys are allowed. The
JSON Schema that ``--schema decision`` prints is generated from these shapes, and the tests
check every document the gate produces against both the shapes and the schema, and that the
gate emits no key this module does not declare.

Numbers in the output are JSON numbers of any kind (``render`` writes the nearest double), so
they are :class:`Measure` shapes, which accept Python floats as well as ints and Decimals.
"""

import re
from decimal import Decimal

from .contract import BOOTSTRAP_UNITS, STATUSES
from .decision import (BLOCK, BLOCKING, INCOMPARABLE, INFORMATIONAL, PASS, REVIEW,
                       REVIEWING)
from .errors import ContractError
from .grading import CHECKS
from .shapes import Array, Boolean, Field, Integer, Shape, String

ACTIONS = (PASS, REVIEW, BLOCK, INCOMPARABLE)
CONTRACT_ERROR = "CONTRACT_ERROR"
SEVERITIES = (BLOCKING, REVIEWING, INFORMATIONAL)

_NO_ERRORS = ()


def _type_error(expected, value):
    return [ContractError("schema.type", "expected %s, got %s" % (expected,
                                                                 type(value).__name__))]


class Measure(Shape):
    """Any JSON number (an int, a float or a Decimal; never a Boolean) within the bounds."""

    def __init__(self, minimum=None, maximum=None):
        self.minimum = minimum
        self.maximum = maximum

    def check(self, value):
        if isinstance(value, bool) or not isinstance(value, (int, float, Decimal)):
            return _type_error("a number", value)
        if ((self.minimum is not None and value < self.minimum)
                or (self.maximum is not None and value > self.maximum)):
            return [ContractError("schema.range", "expected a number in %s..%s, got %s" % (
                self.minimum, self.maximum, value))]
        return _NO_ERRORS

    def describe(self):
        return "number"

    def json_schema(self):
        schema = {"type": "number"}
        if self.minimum is not None:
            schema["minimum"] = self.minimum
        if self.maximum is not None:
            schema["maximum"] = self.maximum
        return schema


class Text(Shape):
    """Any JSON string, empty included (messages and paths as the user gave them)."""

    def __init__(self, pattern=None):
        self.pattern = pattern
        self._compiled = re.compile(pattern) if pattern else None

    def check(self, value):
        if type(value) is not str:
            return _type_error("a string", value)
        if self._compiled is not None and not self._compiled.search(value):
            return [ContractError("schema.pattern", "expected a string matching %s" % (
                self.pattern,))]
        return _NO_ERRORS

    def describe(self):
        return "string"

    def json_schema(self):
        schema = {"type": "string"}
        if self.pattern:
            schema["pattern"] = self.pattern
        return schema


class Nullable(Shape):
    """``shape``, or ``null``."""

    def __init__(self, shape):
        self.shape = shape

    def check(self, value):
        if value is None:
            return _NO_ERRORS
        return self.shape.check(value)

    def describe(self):
        return self.shape.describe() + " or `null`"

    def json_schema(self):
        return {"anyOf": [self.shape.json_schema(), {"type": "null"}]}


class Pair(Shape):
    """An array of exactly two items of ``items`` (an interval: low, high)."""

    def __init__(self, items):
        self.items = items

    def check(self, value):
        if type(value) is not list:
            return _type_error("an array", value)
        if len(value) != 2:
            return [ContractError("schema.pair", "expected 2 items, got %d" % len(value))]
        errors = []
        for index, item in enumerate(value):
            errors.extend(error.prefixed((index,)) for error in self.items.check(item))
        return errors or _NO_ERRORS

    def describe(self):
        return "[low, high]"

    def json_schema(self):
        return {"type": "array", "items": self.items.json_schema(), "minItems": 2,
                "maxItems": 2}


class Mapping(Shape):
    """An object whose keys are names chosen by the data (slices, families, k) and whose
    every value has shape ``values``."""

    def __init__(self, values):
        self.values = values

    def check(self, value):
        if type(value) is not dict:
            return _type_error("an object", value)
        errors = []
        for key, item in value.items():
            errors.extend(error.prefixed((key,)) for error in self.values.check(item))
        return errors or _NO_ERRORS

    def describe(self):
        return "object of " + self.values.describe()

    def json_schema(self):
        return {"type": "object", "additionalProperties": self.values.json_schema()}


class OpenObject(Shape):
    """An object with these required ``fields``, these ``optional`` ones, and maybe more."""

    def __init__(self, name, fields, optional=()):
        self.name = name
        self.fields = tuple(fields)
        self.optional = tuple(optional)

    def all_fields(self):
        return self.fields + self.optional

    def check(self, value):
        if type(value) is not dict:
            return _type_error("an object (%s)" % self.name, value)
        errors = []
        for field in self.fields:
            if field.key not in value:
                errors.append(ContractError("schema.missing_key", "missing required key "
                                            "%r in %s" % (field.key, self.name), (field.key,)))
        for field in self.all_fields():
            if field.key in value:
                errors.extend(error.prefixed((field.key,))
                              for error in field.shape.check(value[field.key]))
        return errors or _NO_ERRORS

    def describe(self):
        return "%s object" % self.name

    def json_schema(self):
        return {
            "type": "object",
            "properties": {field.key: field.shape.json_schema()
                           for field in self.all_fields()},
            "required": [field.key for field in self.fields],
        }


class AnyOf(Shape):
    """A value of one of ``shapes`` (the output documents, told apart by ``action``)."""

    def __init__(self, shapes):
        self.shapes = tuple(shapes)

    def check(self, value):
        best = None
        for shape in self.shapes:
            errors = shape.check(value)
            if not errors:
                return _NO_ERRORS
            if best is None or len(errors) < len(best):
                best = list(errors)
        return best

    def describe(self):
        return " or ".join(shape.describe() for shape in self.shapes)

    def json_schema(self):
        return {"anyOf": [shape.json_schema() for shape in self.shapes]}


def _rate():
    return Measure(minimum=0, maximum=1)


def _count():
    return Integer(minimum=0)


SHA256_HEX = "^[0-9a-f]{64}$"

HARNESS = OpenObject("harness", [Field("name", String()), Field("version", String())])

PASS_K = OpenObject("pass_k", [
    Field("pass_hat_k", Mapping(_rate()), "pass^k: the chance all k trials of a task pass"),
    Field("pass_at_k", Mapping(_rate()), "pass@k: the chance at least one of k passes"),
])

GROUP = OpenObject("group", [Field("task_count", _count()),
                             Field("task_success_rate", _rate())])

SLICE_GROUP = OpenObject("slice group", GROUP.fields, optional=[Field("pass_k", PASS_K)])

TASK_RESULT = OpenObject("task result", [
    Field("case_id", String()),
    Field("family_id", String()),
    Field("slice", String()),
    Field("critical", Boolean()),
    Field("trial_success_rate", _rate()),
    Field("task_pass", Boolean()),
    Field("stable_across_trials", Boolean()),
])

TRIAL_RESULT = OpenObject("trial result", [
    Field("case_id", String()),
    Field("trial_id", Integer(minimum=1)),
    Field("passed", Boolean()),
    Field("status", String(enum=STATUSES)),
    Field("checks", OpenObject("checks", [Field(name, Boolean()) for name, _bit in CHECKS])),
], optional=[
    Field("latency_ms", Measure(minimum=0)),
    Field("cost_units", Measure(minimum=0)),
])

SYSTEM_METRICS = OpenObject("system metrics", [
    Field("task_count", _count()),
    Field("trial_count", _count(), "trial records graded"),
    Field("primary_task_success_rate", _rate()),
    Field("final_state_trial_rate", _rate()),
    Field("side_effect_free_trial_rate", _rate()),
    Field("trial_stability_rate", _rate()),
    Field("unknown_trial_count", _count()),
    Field("mean_latency_ms", Measure(minimum=0)),
    Field("p95_latency_ms", Measure(minimum=0)),
    Field("mean_cost_units", Measure(minimum=0)),
    Field("slice_task_success_gap", _rate()),
    Field("by_slice", Mapping(SLICE_GROUP)),
    Field("by_family", Mapping(GROUP)),
    Field("critical_failures", Array(String())),
    Field("task_results", Array(TASK_RESULT)),
    Field("trial_results", Array(TRIAL_RESULT)),
], optional=[
    Field("system_id", String()),
    Field("pass_k", PASS_K),
])

PAIRED_STATISTICS = OpenObject("paired statistics", [
    Field("both", _count()),
    Field("neither", _count()),
    Field("candidate_only", _count()),
    Field("baseline_only", _count()),
    Field("mcnemar_exact_p", _rate()),
    Field("mean_difference", Measure(minimum=-1, maximum=1)),
    Field("standard_error", Nullable(Measure(minimum=0))),
    Field("normal_interval", Nullable(Pair(Measure()))),
    Field("outcome_correlation", Nullable(Measure(minimum=-1, maximum=1))),
    Field("clustered_standard_error", Nullable(Measure(minimum=0))),
    Field("minimum_detectable_effect", Nullable(Measure(minimum=0))),
    Field("power", _rate()),
    Field("observed_below_mde", Nullable(Boolean())),
])

COMPARISON = OpenObject("comparison", [
    Field("protocol_mismatches", Array(String()),
          "`SYSTEM.KEY: expected=X, actual=Y`; the only content when INCOMPARABLE"),
], optional=[
    Field("paired_task_success_delta", Measure(minimum=-1, maximum=1)),
    Field("paired_bootstrap_interval", Pair(Measure(minimum=-1, maximum=1))),
    Field("bootstrap_unit", String(enum=BOOTSTRAP_UNITS)),
    Field("confidence", Measure(minimum=0, maximum=1)),
    Field("samples", Integer(minimum=1)),
    Field("seed", Integer(minimum=0)),
    Field("paired_statistics", PAIRED_STATISTICS),
])

FINDING = OpenObject("finding", [
    Field("code", String()),
    Field("severity", String(enum=SEVERITIES)),
    Field("metric", String()),
    Field("observed", Measure()),
    Field("threshold", Measure()),
    Field("case_ids", Array(String())),
])

INPUT_FILE = OpenObject("input file", [
    Field("file", Text()),
    Field("sha256", Text(pattern=SHA256_HEX)),
    Field("bytes", _count()),
])

DECISION = OpenObject("decision", [
    Field("action", String(enum=ACTIONS)),
    Field("primary_reason", String(), "equal to reasons[0]"),
    Field("reasons", Array(String(), min_items=1)),
    Field("comparable", Boolean()),
    Field("evidence_fingerprint", Text(pattern="^sha256:[0-9a-f]{64}$")),
    Field("benchmark_id", String()),
    Field("benchmark_version", String()),
    Field("dataset_version", String()),
    Field("baseline_system", String()),
    Field("candidate_system", String()),
    Field("baseline_metrics", Nullable(SYSTEM_METRICS), "null when INCOMPARABLE"),
    Field("candidate_metrics", Nullable(SYSTEM_METRICS), "null when INCOMPARABLE"),
    Field("comparison", COMPARISON),
    Field("limitations", Array(String())),
], optional=[
    Field("result_set_version", String()),
    Field("findings", Array(FINDING)),
    Field("inputs", OpenObject("inputs", [Field("spec", INPUT_FILE),
                                          Field("cases", INPUT_FILE),
                                          Field("results", INPUT_FILE)])),
    Field("harness", HARNESS),
])

ERROR = OpenObject("error", [
    Field("file", Nullable(Text()), "the path as given; null for a command-line error"),
    Field("path", Text(), "the JSON path of the offending element"),
    Field("line", Nullable(Integer(minimum=1))),
    Field("column", Nullable(Integer(minimum=1))),
    Field("code", String(), "a stable identifier"),
    Field("message", Text()),
])

CONTRACT_ERROR_DOCUMENT = OpenObject("contract error", [
    Field("action", String(enum=[CONTRACT_ERROR])),
    Field("errors", Array(ERROR, min_items=1)),
], optional=[
    Field("omitted_error_count", _count()),
    Field("harness", HARNESS),
])

# What stdout carries: a decision (exit 0 or 1) or a CONTRACT_ERROR document (exit 2).
OUTPUT = AnyOf([DECISION, CONTRACT_ERROR_DOCUMENT])
