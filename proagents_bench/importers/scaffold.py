"""A benchmark's first files, for ``run_benchmark.py init``: from nothing, or from one
harness log.

Every spec is a spec v3 with the ``strict`` lower bound over tasks: a new benchmark's PASS
then needs evidence (a standard error that can be estimated and an exact one-sided test that
rejects; docs/statistics.md), where a v1 spec passes a tie. With a :class:`SequentialChoice`
(``init --sequential``) it is a spec v5 instead, whose sequential design is frozen on the
cases written (:func:`sequential_spec`): its protocol's trial count is the last look's, and
the results template from nothing is that last look.

From nothing: a spec of :data:`STARTING_GATES`, a cases v1 file with the three splits the
contract requires (one train and one development case, two test cases, one of them
critical; each family in one split only) and a results v3 template whose every trial is
status ``unknown`` with its latency and cost unmeasured (null): nothing has run yet, so the
gate validates all three and decides on them (BLOCK: the critical task has no passing
trial), and no placeholder can ever pass for a measured run.

From a log: the spec takes the benchmark's ids and the protocol the log recorded, exactly as
``import`` fills them (:func:`~.package.describe_log`: the mapping's values, else the log's
defaults), so a package imported from the same harness is comparable; its gates on a
measure (mean and p95 latency, mean cost) start at :data:`MEASURE_HEADROOM` times what the
baseline's log measured, rounded up to two significant digits, in the units the import
writes (a starting gate of 0.05 cost units against a harness that counts tokens would fail
every run); a measure the log does not record keeps its starting value and is named
(:attr:`FromLog.unmeasured`): its gate cannot be judged, and the gate answers REVIEW, until
the harness records it; the cases file is the
one ``import --write-cases`` builds (a cases v2 file declaring absent the train and
development splits when no log holds them, or built from ``--train-log`` and
``--development-log``). The results come from ``import`` itself.

Every document is checked against the contract before it is returned: a log whose values
the contract refuses (an id it will not take) is a contract error naming the built file's
path, never a file the gate would refuse later.
"""

from __future__ import annotations

import math
from decimal import Decimal
from fractions import Fraction
from typing import TYPE_CHECKING, Dict, List, NamedTuple, Optional, Sequence, Tuple, Union

from ..contract.gates import gates_of
from ..contract.metrics import METRIC_BY_NAME
from ..contract.sequential import pool_order
from ..contract.validate import file_errors
from ..contract.vocabulary import (CASES_V1, RESULTS_V3, ROLES, SPEC_V3, SPLITS,
                                   TASK_UNIT, UNKNOWN)
from ..evaluation.metrics import P95
from ..stats.exact import exact_sum
from ..stats.quantiles import nearest_rank_unsorted
from ..errors import MAX_REPORTED_ERRORS, ContractError, ContractErrors
from ..jsonio.dump import document_bytes
from ..jsonio.load import parse_bytes
from ..contract.sequential_proposal import (ASSUMED_DISCORDANCE, Proposal,
                                            SequentialPlanError, with_design)
from ..stats.sequential_plan import DEFAULT_LOOKS
from .package import describe_log
from .settings import Settings
from .source import LogSource

if TYPE_CHECKING:  # for annotations only
    from ..jsonio import JSONObject

# The gates and bootstrap a new spec starts with (those of the shipped example): starting
# values to replace with the team's own release criteria, never derived from a run.
STARTING_GATES = {
    "task_min_trial_success_rate": 0.6,
    "critical_task_min_trial_success_rate": 1.0,
    "min_primary_task_success_rate": 0.8,
    "min_final_state_trial_rate": 0.8,
    "min_side_effect_free_trial_rate": 0.9,
    "min_trial_stability_rate": 0.8,
    "max_slice_task_success_gap": 0.5,
    "max_mean_latency_ms": 2000,
    "max_p95_latency_ms": 2500,
    "max_mean_cost_units": 0.05,
    "min_paired_delta_ci_low": 0.0,
}
STARTING_BOOTSTRAP = {"samples": 1000, "seed": 20260721, "confidence": 0.95, "unit": "task",
                      "lower_bound": "strict"}
# A gate on a measure, from a log: this many times the baseline's own measured value.
MEASURE_HEADROOM = Fraction(5, 4)

# The blank benchmark's names: what a team replaces first.
BLANK_IDS = {"benchmark_id": "my-agent-benchmark", "benchmark_version": "0.1.0",
             "dataset_version": "my-agent-cases-0.1.0"}
BLANK_SYSTEMS = ("baseline-v1", "candidate-v2")
BLANK_PROTOCOL: JSONObject = {  # a protocol object, as a file holds it
    "protocol_version": "my-protocol-1",
    "environment_id": "my-sandbox",
    "toolset_id": "my-tools-1",
    "reset_policy": "fresh-sandbox-per-trial",
    "max_steps": 10,
    "timeout_seconds": 60,
    "retry_limit": 0,
    "trial_count": 3,
}
CLAIM = ("Replace with the claim this benchmark tests: on these frozen tasks the candidate "
         "reaches the expected final state at least as often as the baseline, without "
         "forbidden side effects or unapproved tools.")
POPULATION = "Replace with the requests the test tasks stand for."


def _case(case_id: str, split: str, critical: bool, task_type: str, expected: str,
          tools: Sequence[str], forbidden: Sequence[str]) -> JSONObject:
    return {
        "id": case_id, "family_id": "family-" + case_id, "split": split,
        "slice": task_type, "critical": critical, "task_type": task_type,
        "is_private": split == SPLITS[2],
        "initial_state": "Replace with what the agent is given in %s" % case_id,
        "expected_final_state": expected, "allowed_tools": list(tools),
        "forbidden_side_effects": list(forbidden),
    }


BLANK_CASES = (
    _case("train-example", SPLITS[0], False, "status", "status_reported",
          ["lookup_order"], []),
    _case("development-example", SPLITS[1], False, "status", "status_reported",
          ["lookup_order"], []),
    _case("test-example", SPLITS[2], False, "status", "status_reported",
          ["lookup_order"], []),
    _case("test-critical-example", SPLITS[2], True, "refund", "refund_denied",
          ["lookup_order"], ["refund_order"]),
)


def spec_document(ids: Dict[str, str], baseline_id: str, protocol: JSONObject,
                  claim: str = CLAIM, population: str = POPULATION,
                  gates: Optional[JSONObject] = None) -> JSONObject:
    """A spec v3 of ``gates`` (default: the starting gates) for the benchmark ``ids`` and
    ``protocol``."""
    return {
        "schema_version": SPEC_V3,
        "benchmark_id": ids["benchmark_id"],
        "benchmark_version": ids["benchmark_version"],
        "claim": claim,
        "target_population": population,
        "baseline_system_id": baseline_id,
        "private_test_frozen": True,
        "primary_metric": "task_success_rate",
        "protocol": dict(protocol),
        "gates": dict(STARTING_GATES if gates is None else gates),
        "bootstrap": dict(STARTING_BOOTSTRAP),
    }


class SequentialChoice:
    """What ``init --sequential`` asks of the design: its unit, the effect worth detecting
    (on the paired difference of the unit's pass rates), the discordance rate assumed (nothing
    has run yet), the power, the looks and how they grow (None: as
    :func:`~proagents_bench.stats.sequential_plan.default_growth` says)."""

    def __init__(self, unit: str = TASK_UNIT, effect: Fraction = Fraction(1, 10),
                 discordance: Fraction = ASSUMED_DISCORDANCE, power: Fraction = Fraction(4, 5),
                 looks: int = DEFAULT_LOOKS, growth: Optional[str] = None) -> None:
        self.unit = unit
        self.effect = effect
        self.discordance = discordance
        self.power = power
        self.looks = looks
        self.growth = growth


def sequential_spec(spec: JSONObject, cases: JSONObject,
                    choice: SequentialChoice) -> Tuple[JSONObject, Proposal]:
    """``spec`` as a spec v5 whose sequential design
    (:mod:`proagents_bench.contract.sequential_proposal`) is frozen on ``cases``' test cases,
    its protocol's trial count the last look's; a design that cannot be made is a contract
    error (``import.invalid_spec``) saying why."""
    test_ids = [case["id"] for case in cases["cases"] if case["split"] == SPLITS[2]]
    try:
        return with_design(spec, test_ids, choice.unit, choice.effect, choice.discordance,
                           choice.power, choice.looks, choice.growth)
    except SequentialPlanError as problem:
        raise ContractErrors([ContractError("import.invalid_spec", "no sequential design can "
                                            "be written: %s" % problem, ("sequential",))])


def blank_package(choice: Optional[SequentialChoice] = None,
                  given: Optional[JSONObject] = None) -> List[Tuple[str, bytes]]:
    """(kind, bytes) of a new benchmark's spec, cases and results template; with ``choice``
    the spec is a spec v5 with that sequential design, and the template is its first look.
    With the cases file ``given`` (a team's own, with ``choice``), the design is frozen on
    its test cases, the spec takes its ids, and the cases file is not among the files."""
    ids = dict(BLANK_IDS) if given is None else {key: given[key] for key in BLANK_IDS}
    spec = spec_document(ids, BLANK_SYSTEMS[0], BLANK_PROTOCOL)
    cases: JSONObject = given if given is not None else dict(
        BLANK_IDS, schema_version=CASES_V1, cases=[dict(case) for case in BLANK_CASES])
    tests = [case["id"] for case in cases["cases"] if case["split"] == SPLITS[2]]
    if choice is not None:
        spec, _proposal = sequential_spec(spec, cases, choice)
        tests = [case_id for case_id in pool_order(tests, spec["sequential"]["order_seed"])][
            :spec["sequential"]["looks"][0]["tasks"]]
    protocol = dict(spec["protocol"], trial_count=(
        spec["sequential"]["looks"][0]["trials"] if choice is not None
        else spec["protocol"]["trial_count"]))
    results = dict(ids, schema_version=RESULTS_V3,
                   result_set_version="template-nothing-run-yet", systems=[{
                       "system_id": system_id, "role": role,
                       "protocol": protocol, "provenance": None,
                       "records": [{"case_id": case_id, "trial_id": trial,
                                    "status": UNKNOWN, "final_state": None,
                                    "side_effects": [], "tools_used": [],
                                    "latency_ms": None, "cost_units": None}
                                   for case_id in tests
                                   for trial in range(1, protocol["trial_count"] + 1)],
                   } for system_id, role in zip(BLANK_SYSTEMS, ROLES)])
    documents = [("spec", spec)] + ([("cases", cases)] if given is None else []) + [
        ("results", results)]
    return _checked(documents)


def _rounded_up(value: Fraction) -> object:
    """``value`` rounded up to two significant digits, as the number a person writes (an int
    when whole): 4.31 is 4.4, 1234 is 1300, 0 stays 0."""
    if value <= 0:
        return 0
    exponent = math.floor(math.log10(value)) - 1
    while Fraction(10) ** (exponent + 2) <= value:  # log10 rounded down too far
        exponent += 1
    while Fraction(10) ** (exponent + 1) > value:  # or not far enough
        exponent -= 1
    step = Fraction(10) ** exponent
    rounded = math.ceil(value / step) * step
    return int(rounded) if rounded.denominator == 1 else float(rounded)


def _exact(value: Union[int, float]) -> Union[int, Decimal]:
    """A record's number as the gate reads it from the package: an int, or the decimal the
    import writes for a float (its shortest repr), exactly."""
    return Decimal(repr(value)) if isinstance(value, float) else value


def measured_gates(records: Sequence[JSONObject]) -> Tuple[JSONObject, List[str]]:
    """The starting gates with each gate on a measure set from the baseline's ``records``
    (see the module docstring), and the names of the measures the records do not all hold."""
    columns = {field: [None if record[field] is None else _exact(record[field])
                       for record in records] for field in ("latency_ms", "cost_units")}
    gates: JSONObject = dict(STARTING_GATES)
    unmeasured = []
    for gate in gates_of(SPEC_V3):
        metric = METRIC_BY_NAME.get(gate.metric)
        field = None if metric is None else metric.measured_from
        if field is None:
            continue
        values = columns[field]
        known = [value for value in values if value is not None]
        if not values or len(known) != len(values):  # some record left it unmeasured
            unmeasured.append(gate.key)
            continue
        if gate.metric.startswith("p95_"):
            measured = Fraction(nearest_rank_unsorted(known, P95))
        else:
            measured = exact_sum(known) / len(known)
        gates[gate.key] = _rounded_up(measured * MEASURE_HEADROOM)
    return gates, unmeasured


class FromLog(NamedTuple):
    """A scaffold from a log: (kind, bytes) of the spec and cases files, the system's id, the
    log's format, its test records, the built cases file's absent splits, and the gates on a
    measure the log does not record."""

    files: List[Tuple[str, bytes]]
    system_id: str
    log_format: str
    samples: int
    absent_splits: List[str]
    unmeasured: List[str]


def from_log(log: LogSource, settings: Settings, system_id: Optional[str] = None,
             split_logs: Sequence[Tuple[str, LogSource]] = (),
             choice: Optional[SequentialChoice] = None) -> FromLog:
    """The spec and cases of the benchmark ``log`` ran (see the module docstring), with
    ``choice`` a spec v5 with that sequential design on the log's test cases; raise
    ContractErrors with every error the import would find in the log."""
    described = describe_log(log, settings, system_id, split_logs)
    claim = ("Replace with the claim this benchmark tests (written by init from the %s log "
             "%s): the candidate reaches the expected final state at least as often as the "
             "baseline." % (described.system.run.log_format, log.file_name))
    gates, unmeasured = measured_gates(described.system.records)
    spec = spec_document(described.ids, described.system_id, described.protocol, claim,
                         gates=gates)
    if choice is not None:
        spec, _proposal = sequential_spec(spec, described.cases, choice)
    return FromLog(_checked([("spec", spec), ("cases", described.cases)]),
                   described.system_id, described.system.run.log_format,
                   len(described.system.records),
                   list(described.cases.get("absent_splits", [])), unmeasured)


def _checked(documents: List[Tuple[str, JSONObject]]) -> List[Tuple[str, bytes]]:
    """(kind, bytes) of each document, as the gate will read them: written as the product
    writes JSON, read back by the gate's own reader and validated by the contract; a built
    file the contract refuses is ContractErrors (``import.invalid_spec``, at the value's
    path in the built file)."""
    written = [(kind, document_bytes(document)) for kind, document in documents]
    errors = [ContractError("import.invalid_spec", "the built %s file would not be valid: %s"
                            % (kind, error.message), error.path)
              for kind, data in written
              for error in file_errors(kind, parse_bytes(data, kind).value)]
    if errors:
        raise ContractErrors(errors[:MAX_REPORTED_ERRORS])
    return written
