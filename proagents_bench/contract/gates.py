"""The gates, in one table: from it come the spec's ``gates`` object (its shape, its docs
table and its JSON Schema), the decision's order of checks and its findings, and the rows of
every report.

A gate judges the candidate: a metric of the candidate (``metric``, the name the document
gives it) against the spec's value (``key``) with ``bound`` (``>=`` for a minimum, ``<=`` for
a maximum). ``severity`` says what a failure does (``block``: BLOCK; ``review``: REVIEW); the
task gate has none: it only defines when a task passes. ``cases`` names how the decision finds
the test tasks behind a failure, one of :data:`CASE_FINDERS` (``failing_check`` takes the
check's name after a colon); :mod:`proagents_bench.evaluation.decision` has one finder per
name, and a test holds the two to each other.
"""

from __future__ import annotations

from typing import Optional

from .shapes import Field, Number, Object, Rule
from .vocabulary import BLOCKING, REVIEWING

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
                 subject: Optional[str] = None) -> None:
        self.key = key
        self.metric = metric
        self.bound = bound
        self.severity = severity
        self.label = label
        self.meaning = meaning
        self.shape = shape
        self.cases = cases
        self.subject = subject or metric  # what a reason says failed: "X 0.4 is below 0.5"

    @property
    def hard(self) -> bool:
        return self.severity == BLOCKING

    @property
    def readme_meaning(self) -> str:
        """The docs table's meaning cell: severity first."""
        if self.severity is None:
            return self.meaning
        return "%s: %s" % ("hard" if self.hard else "soft", self.meaning)


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
    Gate("max_p95_latency_ms", "p95_latency_ms", AT_MOST, REVIEWING, "p95 latency (ms)",
         "nearest-rank p95 latency", Number(minimum="0"), "slow_trials"),
    Gate("max_mean_cost_units", "mean_cost_units", AT_MOST, REVIEWING, "Mean cost (units)",
         "mean trial cost", Number(minimum="0"), "none"),
    Gate("min_paired_delta_ci_low", "paired_bootstrap_interval_low", AT_LEAST, REVIEWING,
         "Bootstrap interval low", "lower bound of the paired bootstrap interval",
         Number(minimum="-1", maximum="1"), "none",
         subject="the paired bootstrap interval's lower bound"),
)

# The gates that decide: every gate but the task gate, in the table's (the spec's) order.
DECIDING_GATES = tuple(gate for gate in GATES if gate.severity is not None)
GATE_BY_KEY = {gate.key: gate for gate in GATES}


def _critical_gate_not_below_task_gate(gates: dict):
    critical, task = gates[CRITICAL_GATE.key], gates[TASK_GATE.key]
    if critical < task:
        yield CRITICAL_NOT_BELOW_TASK.error("%s (%s) must be >= %s (%s)" % (
            CRITICAL_GATE.key, critical, TASK_GATE.key, task), (CRITICAL_GATE.key,))


CRITICAL_NOT_BELOW_TASK = Rule(
    "schema.critical_gate_below_task_gate",
    "critical_task_min_trial_success_rate >= task_min_trial_success_rate",
    _critical_gate_not_below_task_gate)

GATES_OBJECT = Object("gates", [Field(gate.key, gate.shape, gate.readme_meaning)
                                for gate in GATES],
                      rules=[CRITICAL_NOT_BELOW_TASK], title="Gates")
