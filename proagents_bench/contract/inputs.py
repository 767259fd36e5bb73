"""The contracts of the three input files, declared once: every version of the spec, cases
and results files as a shape. The validator checks these objects, the JSON Schemas are
generated from them and the docs' field tables are written from them. Rules that span
files live in :mod:`.rules`; the gates in :mod:`.gates` (each version's gates object is
derived from the gate rows).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Iterator, Sequence

from ..jsonio.load import MAX_SAFE_INTEGER
from .containers import Array, Field, Nullable, Object
from .gates import gates_object
from .harnesses import HARNESS_OF_FORMAT, HARNESSES, LOG_FORMATS, TRACE_UNITS
from .sequential import SEQUENTIAL, SPEC_RULES as SEQUENTIAL_RULES
from .shapes import Boolean, Integer, Number, Rule, String, StringSet
from .validity import FAILURE_ORIGIN_FIELD, INFRASTRUCTURE_SUCCESS, VALIDITY_FIELD
from .vocabulary import (ABSENT_SPLITS, BOOTSTRAP_UNITS, CASES_V1, CASES_V2, LOWER_BOUND_RULES,
                         MISSING_AS, RESULTS_V1, RESULTS_V2, RESULTS_V3, RESULTS_V4, RESULTS_V5,
                         RESULTS_V6, ROLES, SHA256_HEX, SPEC_V1, SPEC_V2, SPEC_V3, SPEC_V4,
                         SPEC_V5, SPEC_V6, SPEC_VERSIONS, SPLITS, STATUSES, TEST_SPLIT)

if TYPE_CHECKING:  # for annotations only
    from ..errors import ContractError
    from ..jsonio import JSONObject

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

BOOTSTRAP_V1 = Object("bootstrap", [
    Field("samples", Integer(minimum=100, maximum=100000), "bootstrap resamples B"),
    Field("seed", Integer(minimum=0, maximum=MAX_SAFE_INTEGER, maximum_text="2^53-1"),
          "seed of the bootstrap's private random.Random"),
    Field("confidence", Number(minimum="0.5", maximum="0.999"), "interval confidence c"),
], title="Bootstrap")

# Spec v2 (the seed's exercise 5) is v1 plus a required bootstrap unit: resample tasks, or
# whole families (averaging their task differences).
BOOTSTRAP_V2 = Object("bootstrap", BOOTSTRAP_V1.fields + (
    Field("unit", String(enum=BOOTSTRAP_UNITS),
          "what the bootstrap resamples; `family` draws whole families"),), title="Bootstrap v2")

# Spec v3 is v2 plus the rule of the bootstrap gate: ``inclusive`` passes when the lower bound
# is at or above min_paired_delta_ci_low (as v1 and v2 always do), ``strict`` only when it is
# above (see the false-pass tables in docs/statistics.md: the bootstrap distribution of -1/0/+1
# means is discrete, and a lower bound of exactly 0 is common when nothing changed).
BOOTSTRAP_V3 = Object("bootstrap", BOOTSTRAP_V2.fields + (
    Field("lower_bound", String(enum=LOWER_BOUND_RULES),
          "`inclusive`: the interval's low end passes the gate at or above it (as v1); "
          "`strict`: only above it"),), title="Bootstrap v3")


def _spec_shape(version: str, bootstrap: Object, title: str,
                extra: Sequence[Field] = (), rules: Sequence[Rule[ContractError]] = ()) -> Object:
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
        Field("gates", gates_object(version), "the release gates, applied to the candidate"),
        Field("bootstrap", bootstrap, "the paired bootstrap's settings"),
    ] + list(extra), rules=rules, root=True, title=title)


class SpecVersion:
    """One spec version: its root shape, and whether its interval gates (the bootstrap
    lower-bound gates) follow the small-sample rules: from v3 on, such a gate never passes
    without evidence (an estimable standard error and, where a pass says the candidate is
    better, McNemar's exact one-sided test on the discordant units; see
    :mod:`proagents_bench.evaluation.decision`), and the normal interval and the minimum
    detectable effect use a t reference with the resampling units less one degrees of
    freedom. v1 and v2 decide as they always did."""

    def __init__(self, version: str, bootstrap: Object, title: str,
                 small_sample_rules: bool, extra: Sequence[Field] = (),
                 rules: Sequence[Rule[ContractError]] = ()) -> None:
        self.version = version
        self.shape = _spec_shape(version, bootstrap, title, extra, rules)
        self.small_sample_rules = small_sample_rules


SEQUENTIAL_FIELD = Field("sequential", Nullable(SEQUENTIAL), "a sequential design, frozen "
                         "before the first look; null: a fixed design")

# Spec v4 is v3 plus one gate (min_trial_delta_ci_low, see contract/gates.py): its bootstrap
# object is v3's. Spec v5 is v4 plus one required key, ``sequential``: a sequential design
# (contract/sequential.py), or null for a fixed design (decided as v4).
SPEC_VERSION_TABLE = {row.version: row for row in (
    SpecVersion(SPEC_V1, BOOTSTRAP_V1, "Spec", small_sample_rules=False),
    SpecVersion(SPEC_V2, BOOTSTRAP_V2, "Spec v2", small_sample_rules=False),
    SpecVersion(SPEC_V3, BOOTSTRAP_V3, "Spec v3", small_sample_rules=True),
    SpecVersion(SPEC_V4, BOOTSTRAP_V3, "Spec v4", small_sample_rules=True),
    SpecVersion(SPEC_V5, BOOTSTRAP_V3, "Spec v5", small_sample_rules=True,
                extra=[SEQUENTIAL_FIELD], rules=SEQUENTIAL_RULES),
    SpecVersion(SPEC_V6, BOOTSTRAP_V3, "Spec v6", small_sample_rules=True,
                extra=[SEQUENTIAL_FIELD, VALIDITY_FIELD], rules=SEQUENTIAL_RULES),
)}
if tuple(SPEC_VERSION_TABLE) != SPEC_VERSIONS:
    raise RuntimeError("the spec version table must list every spec version, in order")
SPEC_V1_SHAPE = SPEC_VERSION_TABLE[SPEC_V1].shape
SPEC_V2_SHAPE = SPEC_VERSION_TABLE[SPEC_V2].shape
SPEC_V3_SHAPE = SPEC_VERSION_TABLE[SPEC_V3].shape
SPEC_V4_SHAPE = SPEC_VERSION_TABLE[SPEC_V4].shape
SPEC_V5_SHAPE = SPEC_VERSION_TABLE[SPEC_V5].shape


def small_sample_rules(spec: JSONObject) -> bool:
    """Whether ``spec``'s version follows the small-sample rules (v3 on)."""
    return SPEC_VERSION_TABLE[spec["schema_version"]].small_sample_rules


def _private_exactly_when_test(case: JSONObject) -> Iterator[ContractError]:
    if case["is_private"] != (case["split"] == TEST_SPLIT):
        yield PRIVATE_FLAG.error("is_private must be %s for a %s case" % (
            "true" if case["split"] == TEST_SPLIT else "false", case["split"]), ("is_private",))


PRIVATE_FLAG = Rule("cases.private_flag", _private_exactly_when_test)

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
], rules=[PRIVATE_FLAG], title="Case")

CASES_V1_SHAPE = Object("cases", [
    Field("schema_version", String(enum=[CASES_V1])),
    Field("benchmark_id", String(), "equal to the spec's"),
    Field("benchmark_version", String(), "equal to the spec's"),
    Field("dataset_version", String()),
    Field("cases", Array(CASE, min_items=1)),
], root=True, title="Cases")

# Cases v2 is v1 plus one required key: the splits the benchmark declares it does not have
# (most harness logs hold the test cases only). A split declared absent is not required and
# may hold no case; the family contamination check then cannot compare test families with
# it, and every decision says so (a finding, never a silent pass). ``[]`` decides as v1.
CASES_V2_SHAPE = Object("cases", (Field("schema_version", String(enum=[CASES_V2])),) +
                        CASES_V1_SHAPE.fields[1:4] + (
    Field("absent_splits", StringSet(enum=ABSENT_SPLITS),
          "splits the benchmark declares it has no cases of (never `test`); the family "
          "contamination check is then reported as not run against them"),
) + CASES_V1_SHAPE.fields[4:], root=True, title="Cases v2")

RECORD = Object("record", [
    Field("case_id", String()),
    Field("trial_id", Integer(minimum=1)),
    Field("status", String(enum=STATUSES)),
    Field("final_state", Nullable(String())),
    Field("side_effects", StringSet()),
    Field("tools_used", StringSet()),
    Field("latency_ms", Number(minimum="0")),
    Field("cost_units", Number(minimum="0")),
], title="Record")

SYSTEM = Object("system", [
    Field("system_id", String(), "unique"),
    Field("role", String(enum=ROLES)),
    Field("protocol", PROTOCOL),
    Field("records", Array(RECORD, counted=True)),
], title="System")

# Results v2 (the importers' packages) is v1 plus one required key in every system: where its
# records came from, so that the evidence fingerprint covers it too; null for a system that
# was not imported (written by hand or by another tool).
PROVENANCE = Object("provenance", [
    Field("log_file", String(), "the log's file name as given, without its folder"),
    Field("log_sha256", String(pattern=SHA256_HEX),
          "SHA-256 of the log's bytes, 64 lowercase hex digits"),
    Field("log_bytes", Integer(minimum=0), "the log's size in bytes"),
    Field("log_format", String(enum=LOG_FORMATS), "the kind of log"),
    Field("log_format_version", Nullable(String()),
          "the log's own format version (Inspect's `version`), where it has one"),
    Field("harness", String(), "the harness that wrote the log: %s" % ", ".join(
        "`%s`" % harness.name for harness in HARNESSES)),
    Field("harness_version", Nullable(String()), "its version, where the log records it"),
    Field("harness_commit", Nullable(String()), "its source commit, where the log records it"),
    Field("run_id", Nullable(String()), "the log's id of the run, where it has one"),
    Field("run_started", Nullable(String()), "when the run started, as the log writes it"),
    Field("mapping_sha256", Nullable(String(pattern=SHA256_HEX)),
          "SHA-256 of the mapping file used; null: the defaults"),
], title="Provenance")

SYSTEM_V2 = Object("system", SYSTEM.fields[:3] + (
    Field("provenance", Nullable(PROVENANCE), "where the records came from; null: not "
          "imported"),) + SYSTEM.fields[3:], title="System v2")

# Results v3 (what the importers write now) is v2 with two changes: a record's latency and
# cost may be null, unmeasured (tau2-bench's voice runs have no agent cost), which no mean
# ever reads as 0 and which leaves a latency or cost gate unjudged (REVIEW); and the
# provenance says what the import did with what the log lacked.
RECORD_V3 = Object("record", RECORD.fields[:6] + (
    Field("latency_ms", Nullable(Number(minimum="0")), "null: not measured"),
    Field("cost_units", Nullable(Number(minimum="0")), "null: not measured"),
), title="Record v3")

TRIAL_KEY = Object("trial", [
    Field("case_id", String()),
    Field("trial_id", Integer(minimum=1)),
], title="Trial key")

PROVENANCE_V3 = Object("provenance", PROVENANCE.fields + (
    Field("run_status", Nullable(String()), "the log's own status of the run (Inspect's "
          "`status`), where it has one"),
    Field("missing_as", String(enum=MISSING_AS), "what the import did with a (case, trial) "
          "the log lacked: `error` refuses the log, `unknown` records it"),
    Field("recorded_unknown", Array(TRIAL_KEY), "the (case, trial) pairs the log lacked, "
          "each recorded with status `unknown`; a decision names them in a finding"),
    Field("side_effect_rule", String(), "the rule that named the records' side effects"),
), title="Provenance v3")

SYSTEM_V3 = Object("system", SYSTEM.fields[:3] + (
    Field("provenance", Nullable(PROVENANCE_V3), "where the records came from; null: not "
          "imported"),
    Field("records", Array(RECORD_V3, counted=True)),
), title="System v3")


# Results v4 is v3 for a system whose trials came from several logs of one run each (a
# SWE-bench run, a Harbor job, an Inspect AI eval of one epoch): its provenance keeps every
# log's own, in the order the logs were given, each with the trial ids its trials became.
LOG_PROVENANCE = Object("log", tuple(
    field for field in PROVENANCE.fields if field.key != "mapping_sha256") + tuple(
    field for field in PROVENANCE_V3.fields if field.key in ("run_status",
                                                               "side_effect_rule")) + (
    Field("first_trial_id", Integer(minimum=1), "the package's trial id of the log's "
          "first trial: the log's trial t is the package's first_trial_id + t - 1"),
    Field("trial_count", Integer(minimum=1), "how many trials of each case the log's run "
          "holds (its own trial count)"),
), title="Log provenance")

PROVENANCE_V4 = Object("provenance", [
    Field("logs", Array(LOG_PROVENANCE, min_items=1), "every log of the system, in the order "
          "given; their trial counts add up to the protocol's trial_count"),
    Field("mapping_sha256", Nullable(String(pattern=SHA256_HEX)),
          "SHA-256 of the mapping file used; null: the defaults"),
] + [field for field in PROVENANCE_V3.fields if field.key in ("missing_as",
                                                              "recorded_unknown")],
    title="Provenance v4")

SYSTEM_V4 = Object("system", SYSTEM.fields[:3] + (
    Field("provenance", Nullable(PROVENANCE_V4), "where the records came from; null: not "
          "imported"),) + SYSTEM_V3.fields[4:], title="System v4")


# Results v5 is v4 with one more field in every record: where its trial's trace is in the
# log it was imported from (``import --trace-refs``), never the trace itself, so a package
# stays as small as v4's and the gate reads it as fast; ``explain`` follows it to the log.
# null for a record the import did not write (a hand-written package needs none).
TRACE = Object("trace", [
    Field("log", Integer(minimum=0), "the log the trial was read from: its index in the "
          "system's `provenance.logs`, from 0 (each log's digest is there)"),
    Field("unit", String(enum=TRACE_UNITS), "what holds the trial in that log, as its "
          "harness names it: %s" % ", ".join("`%s` (%s)" % (harness.trace_unit, harness.title)
                                             for harness in HARNESSES)),
    Field("id", String(), "the unit as the harness's own viewer finds it: Inspect AI's sample "
          "id, tau2-bench's simulation id, a Harbor trial's folder, a promptfoo result's row "
          "(`testIdx`), a SWE-bench instance id, a JSON-lines log's line number"),
    Field("epoch", Nullable(Integer(minimum=1)), "the sample's epoch (Inspect AI); null for "
          "every other unit"),
    Field("index", Nullable(Integer(minimum=0)), "the trial's position, from 0, in the array "
          "of a log that is one JSON document (an Inspect AI .json log's `samples`, a "
          "tau2-bench results.json's `simulations`, promptfoo's `results.results`); null "
          "otherwise"),
    Field("entry", Nullable(String()), "the file inside the log the trace is read from (an "
          ".eval log's sample entry, a results folder's simulation file, a Harbor trial's "
          "folder, a SWE-bench instance's evaluation folder beside its summary); null: the log "
          "itself"),
    Field("sha256", String(pattern=SHA256_HEX), "SHA-256 of what the trace is read from: the "
          "entry's bytes (a folder's: its manifest, as a folder log's) where there is one, "
          "else the log's; `explain` refuses a trace whose bytes changed since the import"),
], title="Trace reference")

RECORD_V5 = Object("record", RECORD_V3.fields + (
    Field("trace", Nullable(TRACE), "where the trial's trace is in its log; null: none"),
), title="Record v5")


def _trace_errors(system: JSONObject) -> Iterator[ContractError]:
    """Every record's trace names a log of its system's provenance, of the harness whose unit
    it names."""
    provenance = system["provenance"]
    logs = provenance["logs"] if provenance is not None else []
    for index, record in enumerate(system["records"]):
        trace = record["trace"]
        if trace is None:
            continue
        where = ("records", index, "trace")
        if trace["log"] >= len(logs):
            yield TRACE_LOG.error("the trace names log %d, and the system's provenance lists "
                                  "%s" % (trace["log"], "no log (it is null)" if provenance is
                                          None else "%d (from 0)" % len(logs)),
                                  where + ("log",))
            continue
        harness = HARNESS_OF_FORMAT[logs[trace["log"]]["log_format"]]
        if trace["unit"] != harness.trace_unit:
            yield TRACE_LOG.error("the trace's unit is %s, and its log is %s's, whose unit is "
                                  "%s" % (trace["unit"], harness.title, harness.trace_unit),
                                  where + ("unit",))


TRACE_LOG = Rule("results.trace_log", _trace_errors)

SYSTEM_V5 = Object("system", SYSTEM_V4.fields[:4] + (Field("records", Array(RECORD_V5)),),
                   rules=[TRACE_LOG], title="System v5")


def _results_shape(version: str, system: Object, title: str) -> Object:
    return Object("results", [
        Field("schema_version", String(enum=[version])),
        Field("benchmark_id", String(), "equal to the spec's"),
        Field("benchmark_version", String(), "equal to the spec's"),
        Field("dataset_version", String(), "equal to the cases'"),
        Field("result_set_version", String()),
        Field("systems", Array(system)),
    ], root=True, title=title)


RESULTS_V1_SHAPE = _results_shape(RESULTS_V1, SYSTEM, "Results")
RESULTS_V2_SHAPE = _results_shape(RESULTS_V2, SYSTEM_V2, "Results v2")
RESULTS_V3_SHAPE = _results_shape(RESULTS_V3, SYSTEM_V3, "Results v3")
RESULTS_V4_SHAPE = _results_shape(RESULTS_V4, SYSTEM_V4, "Results v4")
RESULTS_V5_SHAPE = _results_shape(RESULTS_V5, SYSTEM_V5, "Results v5")

# Results v6 is v5 with one more field in every record: whose its failure is, as the harness
# says it (``import --failure-origins``; contract/validity.py), and the rule that a trial the
# infrastructure lost is never a success.
RECORD_V6 = Object("record", RECORD_V5.fields + (FAILURE_ORIGIN_FIELD,), title="Record v6")
SYSTEM_V6 = Object("system", SYSTEM_V5.fields[:4] + (Field("records", Array(RECORD_V6)),),
                   rules=[TRACE_LOG, INFRASTRUCTURE_SUCCESS], title="System v6")
RESULTS_V6_SHAPE = _results_shape(RESULTS_V6, SYSTEM_V6, "Results v6")
# Each file kind: the schema versions it accepts, mapped to the shape of that version.
FILE_KINDS = {
    "spec": {version: row.shape for version, row in SPEC_VERSION_TABLE.items()},
    "cases": {CASES_V1: CASES_V1_SHAPE, CASES_V2: CASES_V2_SHAPE},
    "results": {RESULTS_V1: RESULTS_V1_SHAPE, RESULTS_V2: RESULTS_V2_SHAPE,
                RESULTS_V3: RESULTS_V3_SHAPE, RESULTS_V4: RESULTS_V4_SHAPE,
                RESULTS_V5: RESULTS_V5_SHAPE, RESULTS_V6: RESULTS_V6_SHAPE},
}
