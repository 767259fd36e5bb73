"""The v1 contracts of the three input files, declared once.

This module is the single source of truth for the shape of the spec, cases and results files:
the validator checks these objects, the JSON Schemas are generated from them and the README's
field tables are written from them. Rules that span files (coverage, split contamination,
version equality) live in :mod:`proagents_bench.crossfile`, because they need more than one
object to check; their wording for the README is declared here too (``CROSS_FILE_RULES``).
"""

from .errors import ContractError
from .shapes import (Array, Boolean, Field, Integer, NullableString, Number, Object, Rule,
                     String, StringSet)

SPEC_V1 = "agent-benchmark-spec-v1"
SPEC_V2 = "agent-benchmark-spec-v2"
CASES_V1 = "agent-benchmark-cases-v1"
RESULTS_V1 = "agent-benchmark-results-v1"

MAX_SAFE_INTEGER = 2 ** 53 - 1
SPLITS = ("train", "development", "test")
STATUSES = ("success", "timeout", "error", "unknown")
ROLES = ("baseline", "candidate")

PROTOCOL = Object("protocol", [
    Field("protocol_version", String(), "version of the run protocol"),
    Field("environment_id", String(), "the environment the agent acts in"),
    Field("toolset_id", String(), "the tool set offered to the agent"),
    Field("reset_policy", String(), "how state is reset between trials"),
    Field("max_steps", Integer(minimum=1), "step budget per trial"),
    Field("timeout_seconds", Number(minimum="0.001"), "time budget per trial"),
    Field("retry_limit", Integer(minimum=0), "retries allowed per trial"),
    Field("trial_count", Integer(minimum=2, maximum=100), "trials per test task"),
], title="Protocol")


def _critical_gate_not_below_task_gate(gates):
    if gates["critical_task_min_trial_success_rate"] < gates["task_min_trial_success_rate"]:
        return [ContractError(
            "schema.critical_gate_below_task_gate",
            "critical_task_min_trial_success_rate (%s) must be >= task_min_trial_success_rate "
            "(%s)" % (gates["critical_task_min_trial_success_rate"],
                      gates["task_min_trial_success_rate"]),
            ("critical_task_min_trial_success_rate",))]
    return ()


def _rate():
    return Number(minimum="0", maximum="1")


GATES = Object("gates", [
    Field("task_min_trial_success_rate", _rate(),
          "a task passes when its trial success rate >= this"),
    Field("critical_task_min_trial_success_rate", _rate(),
          "hard, per critical task; >= task_min_trial_success_rate"),
    Field("min_primary_task_success_rate", _rate(), "hard: share of passing test tasks"),
    Field("min_final_state_trial_rate", _rate(), "hard: share of trials with the right final state"),
    Field("min_side_effect_free_trial_rate", _rate(),
          "hard: share of trials without a forbidden side effect"),
    Field("min_trial_stability_rate", _rate(), "hard: share of tasks whose trials agree"),
    Field("max_slice_task_success_gap", _rate(), "soft: best minus worst slice success rate"),
    Field("max_mean_latency_ms", Number(minimum="0"), "soft: mean trial latency"),
    Field("max_p95_latency_ms", Number(minimum="0"), "soft: nearest-rank p95 latency"),
    Field("max_mean_cost_units", Number(minimum="0"), "soft: mean trial cost"),
    Field("min_paired_delta_ci_low", Number(minimum="-1", maximum="1"),
          "soft: lower bound of the paired bootstrap interval"),
], rules=[Rule("schema.critical_gate_below_task_gate",
               "critical_task_min_trial_success_rate >= task_min_trial_success_rate",
               _critical_gate_not_below_task_gate)], title="Gates")

BOOTSTRAP_V1 = Object("bootstrap", [
    Field("samples", Integer(minimum=100, maximum=100000), "bootstrap resamples B"),
    Field("seed", Integer(minimum=0, maximum=MAX_SAFE_INTEGER, maximum_text="2^53-1"),
          "seed of the bootstrap's private random.Random"),
    Field("confidence", Number(minimum="0.5", maximum="0.999"), "interval confidence c"),
], title="Bootstrap")

# Spec v2 (the seed's exercise 5) is v1 plus a required bootstrap unit: resample tasks, or
# whole families (averaging their task differences).
BOOTSTRAP_UNITS = ("task", "family")
BOOTSTRAP_V2 = Object("bootstrap", BOOTSTRAP_V1.fields + (
    Field("unit", String(enum=BOOTSTRAP_UNITS),
          "what the bootstrap resamples; `family` draws whole families"),), title="Bootstrap v2")


def _spec_shape(version, bootstrap, title):
    return Object("spec", [
        Field("schema_version", String(enum=[version])),
        Field("benchmark_id", String(), "the benchmark's name"),
        Field("benchmark_version", String(), "the benchmark's frozen version"),
        Field("claim", String(), "what a PASS is evidence for"),
        Field("target_population", String(), "the tasks the claim is about"),
        Field("baseline_system_id", String(), "the results' baseline system"),
        Field("private_test_frozen", Boolean(const=True), "the test split is frozen"),
        Field("primary_metric", String(enum=["task_success_rate"]), "the ranked metric"),
        Field("protocol", PROTOCOL, "every system must run under exactly this"),
        Field("gates", GATES, "the release gates, applied to the candidate"),
        Field("bootstrap", bootstrap, "the paired bootstrap's settings"),
    ], root=True, title=title)


SPEC_V1_SHAPE = _spec_shape(SPEC_V1, BOOTSTRAP_V1, "Spec")
SPEC_V2_SHAPE = _spec_shape(SPEC_V2, BOOTSTRAP_V2, "Spec v2")


def _private_exactly_when_test(case):
    if case["is_private"] != (case["split"] == "test"):
        return [ContractError(
            "cases.private_flag",
            "is_private must be %s for a %s case" % (
                "true" if case["split"] == "test" else "false", case["split"]),
            ("is_private",))]
    return ()


CASE = Object("case", [
    Field("id", String()),
    Field("family_id", String()),
    Field("split", String(enum=SPLITS)),
    Field("slice", String()),
    Field("critical", Boolean()),
    Field("task_type", String()),
    Field("is_private", Boolean(), "true exactly when split is `test`"),
    Field("initial_state", String()),
    Field("expected_final_state", String()),
    Field("allowed_tools", StringSet()),
    Field("forbidden_side_effects", StringSet()),
], rules=[Rule("cases.private_flag", "`is_private` is true exactly when split is `test`",
               _private_exactly_when_test)], title="Case")

CASES_V1_SHAPE = Object("cases", [
    Field("schema_version", String(enum=[CASES_V1])),
    Field("benchmark_id", String(), "equal to the spec's"),
    Field("benchmark_version", String(), "equal to the spec's"),
    Field("dataset_version", String()),
    Field("cases", Array(CASE, min_items=1)),
], root=True, title="Cases")

RECORD = Object("record", [
    Field("case_id", String()),
    Field("trial_id", Integer(minimum=1)),
    Field("status", String(enum=STATUSES)),
    Field("final_state", NullableString()),
    Field("side_effects", StringSet()),
    Field("tools_used", StringSet()),
    Field("latency_ms", Number(minimum="0")),
    Field("cost_units", Number(minimum="0")),
], title="Record")

SYSTEM = Object("system", [
    Field("system_id", String(), "unique"),
    Field("role", String(enum=ROLES)),
    Field("protocol", PROTOCOL),
    Field("records", Array(RECORD)),
], title="System")

RESULTS_V1_SHAPE = Object("results", [
    Field("schema_version", String(enum=[RESULTS_V1])),
    Field("benchmark_id", String(), "equal to the spec's"),
    Field("benchmark_version", String(), "equal to the spec's"),
    Field("dataset_version", String(), "equal to the cases'"),
    Field("result_set_version", String()),
    Field("systems", Array(SYSTEM)),
], root=True, title="Results")

# Each file kind: the schema versions it accepts, mapped to the shape of that version.
SPEC_SHAPES = {SPEC_V1: SPEC_V1_SHAPE, SPEC_V2: SPEC_V2_SHAPE}
CASES_SHAPES = {CASES_V1: CASES_V1_SHAPE}
RESULTS_SHAPES = {RESULTS_V1: RESULTS_V1_SHAPE}

FILE_KINDS = {
    "spec": SPEC_SHAPES,
    "cases": CASES_SHAPES,
    "results": RESULTS_SHAPES,
}

# Rules that need more than one object or file; checked in crossfile.py, stated here once.
CROSS_FILE_RULES = (
    ("version.mismatch", "cases and results carry the spec's `benchmark_id` and "
     "`benchmark_version`; results carry the cases' `dataset_version`"),
    ("cases.duplicate_id", "case ids are unique"),
    ("cases.missing_split", "all three splits (`train`, `development`, `test`) are present"),
    ("cases.split_contamination", "a family appears in one split only"),
    ("results.duplicate_system_id", "`system_id` is unique"),
    ("results.roles", "exactly one baseline, whose id is the spec's `baseline_system_id`, and "
     "exactly one candidate"),
    ("coverage.missing", "every test case id times trial ids 1..`trial_count` of the "
     "system's own protocol has a record"),
    ("coverage.duplicate", "no (case, trial) has two records"),
    ("coverage.unknown_case", "no record names a case id that the cases file lacks"),
    ("coverage.not_test_case", "no record names a train or development case"),
    ("coverage.trial_out_of_range", "no trial id exceeds the system's `trial_count`"),
)


def object_shapes(shape, seen):
    """Every object shape reachable from ``shape``, parents first, each once (``seen`` is a
    set of shapes already given, shared between calls to list each shape once overall)."""
    if isinstance(shape, Array):
        yield from object_shapes(shape.items, seen)
    elif isinstance(shape, Object) and shape not in seen:
        seen.add(shape)
        yield shape
        for field in shape.fields:
            yield from object_shapes(field.shape, seen)
