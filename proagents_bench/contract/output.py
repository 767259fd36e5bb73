"""The output documents' contract, declared once: the decision and the CONTRACT_ERROR document.

The input contracts (:mod:`.inputs`) are closed: an unknown key is an error. The output is
open by promise ("more keys may be added, none of these renamed"), so its objects are open
:class:`~.shapes.Object` shapes: the listed keys are required (or optional, where a decision
may lack them, as an INCOMPARABLE comparison does) and further keys are allowed. The JSON
Schema that ``--schema decision`` prints is generated from these shapes, and the tests check
every document the gate produces against both the shapes and the schema, and that the gate
emits no key this module does not declare. Numbers in the output are JSON numbers of any kind
(the writer gives the nearest double): ``Number(floats=True)``.
"""

from __future__ import annotations

from typing import Callable, Dict, List, Union

from ..stats.exact_tests import EXACT_TEST_METHODS
from .containers import AnyOf, Array, Field, Mapping, Nullable, Object
from .metrics import COUNT, MEASURE, METRICS, RATE
from .shapes import Boolean, Integer, Number, Shape, String
from .ledger import INCOMPARABLE_STATE, LEDGER_KINDS, LOOK_STATES, REPEATED_METHODS
from .vocabulary import (ACTIONS, BOOTSTRAP_UNITS, CHECKS, CONTRACT_ERROR, SEQUENTIAL_METHODS,
                         SEQUENTIAL_UNITS, SEVERITIES, SHA256_HEX, STATUSES)


def _rate() -> Number:
    return Number(minimum=0, maximum=1, floats=True)


def _measure(minimum: Union[int, str, None] = None,
             maximum: Union[int, str, None] = None) -> Number:
    return Number(minimum, maximum, floats=True)


def _pair(items: Shape) -> Array:
    return Array(items, min_items=2, max_items=2, summary="[low, high]")


def _count() -> Integer:
    return Integer(minimum=0)


HARNESS = Object("harness", closed=False,
                 fields=[Field("name", String()), Field("version", String())])

PASS_K = Object("pass_k", closed=False, fields=[
    Field("pass_hat_k", Mapping(_rate()), "pass^k: the chance all k trials of a task pass"),
    Field("pass_at_k", Mapping(_rate()), "pass@k: the chance at least one of k passes"),
])

GROUP = Object("group", closed=False, fields=[Field("task_count", _count()),
                                              Field("task_success_rate", _rate())])

SLICE_GROUP = Object("slice group", closed=False, fields=GROUP.fields,
                     optional=[Field("pass_k", PASS_K)])

TASK_RESULT = Object("task result", closed=False, fields=[
    Field("case_id", String()),
    Field("family_id", String()),
    Field("slice", String()),
    Field("critical", Boolean()),
    Field("trial_success_rate", _rate()),
    Field("task_pass", Boolean()),
    Field("stable_across_trials", Boolean()),
])

TRIAL_RESULT = Object("trial result", closed=False, fields=[
    Field("case_id", String()),
    Field("trial_id", Integer(minimum=1)),
    Field("passed", Boolean()),
    Field("status", String(enum=STATUSES)),
    Field("checks", Object("checks", closed=False,
                           fields=[Field(name, Boolean()) for name in CHECKS])),
], optional=[
    Field("latency_ms", Nullable(_measure(minimum=0)), "null: not measured (results v3)"),
    Field("cost_units", Nullable(_measure(minimum=0)), "null: not measured (results v3)"),
])

_METRIC_SHAPES: Dict[str, Callable[[], Shape]] = {
    COUNT: _count, RATE: _rate, MEASURE: lambda: Nullable(_measure(minimum=0))}


def _metric_fields(optional: bool) -> List[Field]:
    """The fields of the scalar metrics (contract/metrics.py), the required or the optional."""
    return [Field(metric.name, _METRIC_SHAPES[metric.kind](), metric.meaning)
            for metric in METRICS if metric.optional == optional]


SYSTEM_METRICS = Object("system metrics", closed=False, fields=_metric_fields(False) + [
    Field("by_slice", Mapping(SLICE_GROUP)),
    Field("by_family", Mapping(GROUP)),
    Field("critical_failures", Array(String())),
    Field("task_results", Array(TASK_RESULT)),
    Field("trial_results", Array(TRIAL_RESULT)),
], optional=[
    Field("system_id", String()),
    Field("pass_k", PASS_K),
] + _metric_fields(True))

EXACT_TEST = Object("exact test", closed=False, fields=[
    Field("unit", String(enum=BOOTSTRAP_UNITS), "the resampling unit whose differences it tests"),
    Field("gains", _count(), "units whose difference is above 0"),
    Field("losses", _count(), "units whose difference is below 0"),
    Field("p_one_sided", _rate(), "the one-sided p-value: the share of sign flips of the "
          "units' differences whose sum is at least the observed one"),
    Field("level", _rate(), "(1 - confidence) / 2"),
    Field("rejects", Boolean(), "p_one_sided <= level (decided exactly unless method is "
          "normal)"),
    Field("method", String(enum=EXACT_TEST_METHODS),
          "`mcnemar`: every unit's difference of one size, McNemar's exact test; "
          "`randomization`: the sign-flip test counted exactly; `normal`: its normal limit, "
          "for a sample too large to count"),
])

PAIRED_STATISTICS = Object("paired statistics", closed=False, fields=[
    Field("both", _count()),
    Field("neither", _count()),
    Field("candidate_only", _count()),
    Field("baseline_only", _count()),
    Field("mcnemar_exact_p", _rate()),
    Field("mean_difference", _measure(minimum=-1, maximum=1)),
    Field("standard_error", Nullable(_measure(minimum=0)),
          "the paired (task-level) standard error; null when not estimable"),
    Field("normal_interval", Nullable(_pair(_measure(minimum=-1, maximum=1))),
          "mean -/+ z times the resampling unit's standard error, clipped to [-1, 1]"),
    Field("outcome_correlation", Nullable(_measure(minimum=-1, maximum=1))),
    Field("clustered_standard_error", Nullable(_measure(minimum=0)),
          "the CR1 family-clustered standard error; null when not estimable"),
    Field("minimum_detectable_effect", Nullable(_measure(minimum=0)),
          "at the given power, from the resampling unit's standard error"),
    Field("power", _rate()),
    Field("observed_below_mde", Nullable(Boolean())),
], optional=[
    Field("standard_error_unit", String(enum=BOOTSTRAP_UNITS),
          "whose standard error the interval and the MDE use: the bootstrap's unit"),
    Field("normal_interval_clipped", Boolean()),
    Field("not_estimable", Nullable(String()),
          "why the unit's standard error is not estimable, or null"),
    Field("degrees_of_freedom", Nullable(Integer(minimum=1)),
          "spec v3 on: the t reference's degrees of freedom (units - 1); null when not "
          "estimable"),
    Field("exact_test", EXACT_TEST, "spec v3 on: the one-sided test on the resampling units' "
          "differences (McNemar's exact test on discordant tasks)"),
])

TRIAL_LEVEL = Object("trial level", closed=False, fields=[
    Field("mean_difference", _measure(minimum=-1, maximum=1),
          "mean over tasks of candidate minus baseline trial success rate"),
    Field("standard_error", Nullable(_measure(minimum=0))),
    Field("not_estimable", Nullable(String())),
    Field("bootstrap_interval", _pair(_measure(minimum=-1, maximum=1))),
    Field("pass_hat_k_difference", Mapping(_measure(minimum=-1, maximum=1)),
          "candidate minus baseline pass^k, k = 1..trial_count"),
    Field("flaky_tasks", Array(String()),
          "tasks whose trials disagree in the baseline or the candidate"),
], optional=[
    Field("exact_test", EXACT_TEST, "spec v3 on: the one-sided test on the resampling units' "
          "trial-level differences"),
])

COMPARISON = Object("comparison", closed=False, fields=[
    Field("protocol_mismatches", Array(String()),
          "`SYSTEM.KEY: expected=X, actual=Y`; the only content when INCOMPARABLE"),
], optional=[
    Field("not_evidence", Array(String()), "spec v6: the validity bounds a run exceeded "
          "(then INCOMPARABLE with no protocol mismatch, and the only other content)"),
    Field("paired_task_success_delta", _measure(minimum=-1, maximum=1)),
    Field("paired_bootstrap_interval", _pair(_measure(minimum=-1, maximum=1))),
    Field("bootstrap_unit", String(enum=BOOTSTRAP_UNITS)),
    Field("confidence", _measure(minimum=0, maximum=1)),
    Field("samples", Integer(minimum=1)),
    Field("seed", Integer(minimum=0)),
    Field("paired_statistics", PAIRED_STATISTICS),
    Field("trial_level", TRIAL_LEVEL),
])

FINDING = Object("finding", closed=False, fields=[
    Field("code", String()),
    Field("severity", String(enum=SEVERITIES)),
    Field("metric", String()),
    Field("observed", Nullable(_measure()),
          "null for a gate that could not be judged (its metric unmeasured) or a note "
          "without a value"),
    Field("threshold", Nullable(_measure()), "null for a note without a threshold"),
    Field("case_ids", Array(String())),
])

INFRASTRUCTURE_SHARE = Object("infrastructure share", closed=False, fields=[
    Field("system_id", String()),
    Field("trials", _count(), "the system's test trials decided"),
    Field("infrastructure_failures", _count(), "those whose `failure_origin` is "
          "`infrastructure`"),
    Field("agent_failures", _count(), "those whose `failure_origin` is `agent` (its own "
          "error, timeout, limit, empty patch): the agent's failures, counted as such"),
    Field("infrastructure_share", _rate()),
    Field("tasks", Array(String()), "the tasks that lost any, in the cases file's order"),
])

VALIDITY_OUTPUT = Object("validity", closed=False, fields=[
    Field("bounds", Nullable(Object("bounds", closed=False, fields=[
        Field("max_infrastructure_trial_rate", _rate()),
        Field("max_infrastructure_rate_gap", _rate()),
        Field("floor", Nullable(_rate())),
    ])), "the spec's validity object; null: none (the shares are reported)"),
    Field("evidence", Boolean(), "false: a bound was exceeded (INCOMPARABLE)"),
    Field("not_evidence", Array(String()), "the bounds exceeded, each with counts and tasks"),
    Field("infrastructure", Nullable(Object("shares", closed=False, fields=[
        Field("baseline", INFRASTRUCTURE_SHARE), Field("candidate", INFRASTRUCTURE_SHARE)])),
          "null: the results (before v6) record no failure origin, so it is unmeasured"),
    Field("above_floor", Nullable(Object("above floor", closed=False, fields=[
        Field("baseline", _measure(minimum=-1, maximum=1)),
        Field("candidate", _measure(minimum=-1, maximum=1))])),
          "each system's primary task success rate minus the floor; null without a floor or "
          "without metrics"),
])

NEXT_TASKS = Object("next tasks", closed=False, fields=[
    Field("first", Integer(minimum=1), "the pool position of the first task to add"),
    Field("last", Integer(minimum=1), "and of the last"),
    Field("case_ids", Array(String()), "their case ids, in pool order"),
])

NEXT_TRIALS = Object("next trials", closed=False, fields=[
    Field("first", Integer(minimum=1), "the first trial id to add"),
    Field("last", Integer(minimum=1), "and the last"),
    Field("tasks", Integer(minimum=1), "to the first this many tasks of the pool"),
])

NEXT_BATCH = Object("next batch", closed=False, fields=[
    Field("look", Integer(minimum=2), "the next look's number"),
    Field("tasks", Integer(minimum=1), "the tasks it holds"),
    Field("trials", Integer(minimum=2), "the trial ids 1..trials it holds of each"),
    Field("new_tasks", Nullable(NEXT_TASKS), "the tasks it adds, each with every trial"),
    Field("new_trials", Nullable(NEXT_TRIALS), "the trials it adds to the tasks before"),
    Field("units", _count(), "the units it adds (tasks, or trial pairs)"),
])

LOOK_POINT = Object("look point", closed=False, fields=[
    Field("look", Integer(minimum=1)),
    Field("units", _count(), "the units run up to the end of the look"),
    Field("discordant", _count()),
    Field("wins", _count(), "the discordant units the candidate won"),
])

SEQUENTIAL_LOOK = Object("sequential look", closed=False, fields=[
    Field("method", String(enum=SEQUENTIAL_METHODS)),
    Field("unit", String(enum=SEQUENTIAL_UNITS)),
    Field("state", String(enum=LOOK_STATES + (INCOMPARABLE_STATE,)),
          "`continue`: run the next batch (the decision is REVIEW, exit 1); `pass`: the pass "
          "boundary was crossed (a PASS if every other gate held); `futility`, `exhausted` "
          "(the last look without a decision), `blocked`: closed; `incomparable`: this look "
          "was not judged"),
    Field("closed", Boolean(), "the design decided: no look after this one"),
    Field("look", Integer(minimum=1)),
    Field("looks", Integer(minimum=1), "the looks the design allows"),
    Field("tasks", Integer(minimum=1)),
    Field("trials", Integer(minimum=2)),
], optional=[
    Field("units", _count(), "the units run up to this look (tasks, or trial pairs)"),
    Field("discordant", _count(), "the discordant units on the path (up to its decision)"),
    Field("wins", _count(), "those the candidate won"),
    Field("decided_at", Nullable(Integer(minimum=0)),
          "the discordant unit at which the design passed or stopped"),
    Field("pass_at", _count(), "the wins the pass boundary (at the last look, the closing "
          "threshold) asks at `discordant`"),
    Field("futile_at", Integer(minimum=-1), "the futility boundary there (-1: none)"),
    Field("alpha", _rate()),
    Field("theta0", _rate()),
    Field("win_share", _rate()),
    Field("power", _rate()),
    Field("max_discordant", Integer(minimum=1)),
    Field("exact_false_pass", _rate(), "the design's exact false pass at any stopping it "
          "allows, at most alpha"),
    Field("exact_false_pass_fraction", String(), "the same, as an exact fraction"),
    Field("boundary_sha256", String(pattern=SHA256_HEX)),
    Field("replaces", Nullable(String()), "the interval gate the boundary decides in place "
          "of (null: its margin is above 0, and it stays a condition of a PASS)"),
    Field("path", Array(LOOK_POINT), "the path at the end of each look so far"),
    Field("next_batch", Nullable(NEXT_BATCH), "what the next look adds; null once closed"),
])

REPEATED_LOOK = Object("repeated look", closed=False, fields=[
    Field("looks", Integer(minimum=2), "the judgments of this candidate, this one included"),
    Field("method", String(enum=REPEATED_METHODS), "how their false pass is bounded"),
    Field("false_pass", _rate()),
    Field("alpha", _rate(), "the spec's one-sided alpha, which holds for one look"),
    Field("earlier", Array(Object("earlier look", closed=False, fields=[
        Field("look", Integer(minimum=1)), Field("tasks", _count()),
        Field("trials", _count()), Field("action", String(enum=ACTIONS))]))),
])

LEDGER_USE = Object("ledger use", closed=False, fields=[
    Field("kind", String(enum=LEDGER_KINDS)),
    Field("looks_before", _count(), "the looks the ledger held before this one"),
    Field("recorded", Boolean(), "this look is added to the ledger (not when INCOMPARABLE, "
          "nor when it is the ledger's last look unchanged)"),
    Field("repeated_look", Nullable(REPEATED_LOOK), "a fixed design's candidate judged "
          "again: the looks and their false pass"),
])

INPUT_FILE = Object("input file", closed=False, fields=[
    Field("file", String(blank=True)),
    Field("sha256", String(blank=True, pattern=SHA256_HEX)),
    Field("bytes", _count()),
])

LEDGER_FILE = Object("ledger file", closed=False, fields=[
    Field("file", String(blank=True)),
    Field("sha256", Nullable(String(blank=True, pattern=SHA256_HEX)),
          "null: a new ledger"),
    Field("bytes", Nullable(_count())),
])

DECISION = Object("decision", closed=False, fields=[
    Field("action", String(enum=ACTIONS)),
    Field("primary_reason", String(), "equal to reasons[0]"),
    Field("reasons", Array(String(), min_items=1)),
    Field("comparable", Boolean()),
    Field("evidence_fingerprint", String(blank=True, pattern="^sha256:[0-9a-f]{64}$")),
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
    Field("inputs", Object("inputs", closed=False,
                           fields=[Field(kind, INPUT_FILE) for kind in ("spec", "cases",
                                                                       "results")],
                           optional=[Field("ledger", LEDGER_FILE, "with --ledger")])),
    Field("harness", HARNESS),
    Field("validity", VALIDITY_OUTPUT, "spec or results v6: whether the run is evidence"),
    Field("sequential", Nullable(SEQUENTIAL_LOOK), "spec v5: the look of its sequential "
          "design; null for a fixed design"),
    Field("ledger", LEDGER_USE, "with --ledger"),
])

ERROR = Object("error", closed=False, fields=[
    Field("file", Nullable(String(blank=True)),
          "the path as given; null for a command-line error"),
    Field("path", String(blank=True), "the JSON path of the offending element"),
    Field("line", Nullable(Integer(minimum=1))),
    Field("column", Nullable(Integer(minimum=1))),
    Field("code", String(), "a stable identifier"),
    Field("message", String(blank=True)),
])

CONTRACT_ERROR_DOCUMENT = Object("contract error", closed=False, fields=[
    Field("action", String(enum=[CONTRACT_ERROR])),
    Field("errors", Array(ERROR, min_items=1)),
], optional=[
    Field("omitted_error_count", _count()),
    Field("harness", HARNESS),
])

# What stdout carries: a decision (exit 0 or 1) or a CONTRACT_ERROR document (exit 2).
OUTPUT = AnyOf([DECISION, CONTRACT_ERROR_DOCUMENT])
