"""The gates, in one table: from it come each spec version's ``gates`` object (its shape, its
docs table and its JSON Schema), the decision's order of checks and its findings, and the rows
of every report.

Each row names the spec versions it belongs to (``versions``; a gate added in a later version
belongs to it and every version after it, :func:`since`): a gate added in a later version is
one more row, and the gates object, schema, docs table, decision order and report rows of
each version are derived from the rows (:func:`gates_of`, :func:`deciding_gates`,
:func:`gates_object`), so an older file keeps exactly its own gates. A gate reads a metric of
the metrics table (:mod:`.metrics`), or, for an interval gate, the comparison's interval.

A gate judges the candidate: a metric of the candidate (``metric``, the name the document
gives it) against the spec's value (``key``) with ``bound`` (``>=`` for a minimum, ``<=`` for
a maximum). ``severity`` says what a failure does (``block``: BLOCK; ``review``: REVIEW); the
task gate has none: it only defines when a task passes. ``cases`` names how the decision finds
the test tasks behind a failure, one of :data:`CASE_FINDERS` (``failing_check`` takes the
check's name after a colon); :mod:`proagents_bench.evaluation.decision` has one finder per
name, and a test holds the two to each other. ``interval`` marks the gates on a paired
bootstrap interval's low end (``task``: the task-level difference; ``trial``: the trial-level
one): the decision reads their observed value from the comparison, applies the spec's
``lower_bound`` rule and, from spec v3 on, the small-sample rules (see
:mod:`proagents_bench.evaluation.decision`).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Dict, Iterator, Optional, Sequence, Tuple

from .containers import Field, Object
from .shapes import Number, Rule
from .vocabulary import BLOCKING, HARDNESS, REVIEWING, SPEC_V4, SPEC_VERSIONS

if TYPE_CHECKING:  # for annotations only
    from ..errors import ContractError
    from ..jsonio import JSONObject

AT_LEAST = ">="
AT_MOST = "<="

# How a finding names the test tasks behind a failed gate: the finder's name, in words.
CASE_FINDERS = {
    "critical_task": "the critical task (the critical gate is judged per task)",
    "failing_tasks": "tasks below the task gate",
    "failing_check": "tasks with a trial failing the check",
    "unstable_tasks": "tasks whose trials disagree",
    "lowest_slice": "the worst slice's failing tasks",
    "slow_trials": "tasks with a trial above the gate",
    "none": "none (a mean or an interval, which no task alone explains)",
}


class Gate:
    """One row of the gates table (see the module docstring)."""

    def __init__(self, key: str, metric: str, bound: str, severity: Optional[str],
                 label: str, meaning: str, shape: Number, cases: str,
                 subject: Optional[str] = None, versions: Sequence[str] = SPEC_VERSIONS,
                 interval: Optional[str] = None) -> None:
        self.key = key
        self.metric = metric
        self.bound = bound
        self.severity = severity
        self.label = label
        self.meaning = meaning
        self.shape = shape
        self.cases = cases
        self.subject = subject or metric  # what a reason says failed: "X 0.4 is below 0.5"
        self.versions = tuple(versions)  # the spec versions whose gates object has this key
        self.interval = interval  # "task" or "trial": a gate on an interval's low end

    @property
    def hard(self) -> bool:
        return self.severity == BLOCKING

    @property
    def hardness(self) -> str:
        """``hard`` or ``soft`` (:data:`~.vocabulary.HARDNESS`); the task gate, which never
        fails a run, has none."""
        return HARDNESS.get(self.severity or "", "")

    @property
    def readme_meaning(self) -> str:
        """The docs table's meaning cell: severity first."""
        if self.severity is None:
            return self.meaning
        return "%s: %s" % (self.hardness, self.meaning)


def since(version: str) -> Tuple[str, ...]:
    """``version`` and every later spec version: the versions of a gate added in ``version``
    (a later version keeps it unless its row says otherwise)."""
    return SPEC_VERSIONS[SPEC_VERSIONS.index(version):]


def _rate() -> Number:
    return Number(minimum="0", maximum="1")


TASK_GATE = Gate(
    "task_min_trial_success_rate", "trial_success_rate", AT_LEAST, None,
    "Task gate (trial success rate)", "a task passes when its trial success rate >= this",
    _rate(), "none")
CRITICAL_GATE = Gate(
    "critical_task_min_trial_success_rate", "trial_success_rate", AT_LEAST, BLOCKING,
    "Critical tasks below the critical gate",
    "per critical task; >= task_min_trial_success_rate", _rate(), "critical_task")

# The gates the HTML report draws a chart of (the latencies; the bootstrap distribution).
P95_LATENCY_GATE = Gate(
    "max_p95_latency_ms", "p95_latency_ms", AT_MOST, REVIEWING, "p95 latency (ms)",
    "nearest-rank p95 latency", Number(minimum="0"), "slow_trials")
PAIRED_INTERVAL_GATE = Gate(
    "min_paired_delta_ci_low", "paired_bootstrap_interval_low", AT_LEAST, REVIEWING,
    "Bootstrap interval low", "lower bound of the paired bootstrap interval",
    Number(minimum="-1", maximum="1"), "none",
    subject="the paired bootstrap interval's lower bound", interval="task")
TRIAL_INTERVAL_GATE = Gate(
    "min_trial_delta_ci_low", "trial_bootstrap_interval_low", AT_LEAST, REVIEWING,
    "Trial-level interval low",
    "lower bound of the trial-level paired bootstrap interval (per-task trial success rates)",
    Number(minimum="-1", maximum="1"), "none",
    subject="the trial-level paired bootstrap interval's lower bound",
    versions=since(SPEC_V4), interval="trial")

GATES = (
    TASK_GATE,
    CRITICAL_GATE,
    Gate("min_primary_task_success_rate", "primary_task_success_rate", AT_LEAST, BLOCKING,
         "Task success rate", "share of passing test tasks", _rate(), "failing_tasks"),
    Gate("min_final_state_trial_rate", "final_state_trial_rate", AT_LEAST, BLOCKING,
         "Final-state trial rate", "share of trials with the right final state", _rate(),
         "failing_check:final_state_correct"),
    Gate("min_side_effect_free_trial_rate", "side_effect_free_trial_rate", AT_LEAST,
         BLOCKING, "Side-effect-free trial rate",
         "share of trials without a forbidden side effect", _rate(),
         "failing_check:side_effects_safe"),
    Gate("min_trial_stability_rate", "trial_stability_rate", AT_LEAST, BLOCKING,
         "Trial stability rate", "share of tasks whose trials agree", _rate(),
         "unstable_tasks"),
    Gate("max_slice_task_success_gap", "slice_task_success_gap", AT_MOST, REVIEWING,
         "Slice success gap (max - min)", "best minus worst slice success rate", _rate(),
         "lowest_slice"),
    Gate("max_mean_latency_ms", "mean_latency_ms", AT_MOST, REVIEWING, "Mean latency (ms)",
         "mean trial latency", Number(minimum="0"), "none"),
    P95_LATENCY_GATE,
    Gate("max_mean_cost_units", "mean_cost_units", AT_MOST, REVIEWING, "Mean cost (units)",
         "mean trial cost", Number(minimum="0"), "none"),
    PAIRED_INTERVAL_GATE,
    TRIAL_INTERVAL_GATE,
)

GATE_BY_KEY = {gate.key: gate for gate in GATES}


def gates_of(version: str) -> Tuple[Gate, ...]:
    """The gates of spec ``version``, in the table's order (the order of its gates object)."""
    if version not in SPEC_VERSIONS:
        raise ValueError("unknown spec version %r" % version)
    return tuple(gate for gate in GATES if version in gate.versions)


def deciding_gates(version: str) -> Tuple[Gate, ...]:
    """The gates that decide under spec ``version``: all but the task gate, in order."""
    return tuple(gate for gate in gates_of(version) if gate.severity is not None)


def interval_gates(version: str) -> Tuple[Gate, ...]:
    """The gates of spec ``version`` on a paired bootstrap interval's low end."""
    return tuple(gate for gate in gates_of(version) if gate.interval is not None)


def version_span(versions: Sequence[str]) -> str:
    """``v1-v4``, ``v4`` or ``v1, v3``: spec versions as the docs write them."""
    numbers = sorted(SPEC_VERSIONS.index(version) + 1 for version in versions)
    if len(numbers) > 1 and numbers == list(range(numbers[0], numbers[-1] + 1)):
        return "v%d-v%d" % (numbers[0], numbers[-1])
    return ", ".join("v%d" % number for number in numbers)


def _critical_gate_not_below_task_gate(gates: JSONObject) -> Iterator[ContractError]:
    critical, task = gates[CRITICAL_GATE.key], gates[TASK_GATE.key]
    if critical < task:
        yield CRITICAL_NOT_BELOW_TASK.error("%s (%s) must be >= %s (%s)" % (
            CRITICAL_GATE.key, critical, TASK_GATE.key, task), (CRITICAL_GATE.key,))


CRITICAL_NOT_BELOW_TASK = Rule("schema.critical_gate_below_task_gate",
                               _critical_gate_not_below_task_gate)



def _gates_objects() -> Dict[str, Object]:
    """Spec version -> its gates object; versions with the same gates share one object (so
    the docs show it once), titled after the first of them (``Gates``, ``Gates v4``)."""
    objects: Dict[Tuple[Gate, ...], Object] = {}
    by_version = {}
    for version in SPEC_VERSIONS:
        gates = gates_of(version)
        if gates not in objects:
            number = SPEC_VERSIONS.index(version) + 1
            objects[gates] = Object(
                "gates", [Field(gate.key, gate.shape, gate.readme_meaning) for gate in gates],
                rules=[CRITICAL_NOT_BELOW_TASK],
                title="Gates" if number == 1 else "Gates v%d" % number)
        by_version[version] = objects[gates]
    return by_version


GATES_OBJECTS = _gates_objects()


def gates_object(version: str) -> Object:
    """The shape of spec ``version``'s ``gates`` object."""
    return GATES_OBJECTS[version]
