"""Per-system metrics over the test tasks, in exact arithmetic.

Rates are :class:`fractions.Fraction`; gates are compared as the exact decimal value written
in the spec (the loader keeps fractional literals as :class:`decimal.Decimal`, and
``Fraction(Decimal("0.8")) == Fraction(4, 5)``), so 4 of 5 meets 0.8 and 7 of 10 meets 0.7.
Means of latency and cost are exact too: the sum of the written decimals, divided by the count.

A results v3 record may leave ``latency_ms`` or ``cost_units`` null: not measured. A mean or a
p95 over trials of which any is unmeasured is None (null in the document), never a mean that
reads the missing values as 0 or leaves them out; ``unmeasured_latency_trial_count`` and
``unmeasured_cost_trial_count`` say how many (a gate on such a metric cannot be judged: see
:mod:`.decision`).

``p95_latency_ms`` is the nearest-rank 95th percentile: the ceil(0.95 n)-th smallest latency,
found as the (n - ceil(0.95 n) + 1)-th largest with ``heapq.nlargest`` (a partial sort that
keeps only the top 5%). ``pass_k`` (for the system and each slice) holds pass^k and pass@k
for k = 1..trial_count, from :func:`proagents_bench.stats.passk.pass_k_table`.

Linear in the trials: every task has the system's ``trial_count`` trials, so a task's rate,
pass and stability depend only on its number of passing trials, and are computed once per
possible count (0..trial_count), not once per task; trials are counted per check by
``bytes.translate`` and ``count`` over the outcome bytes.
"""

from __future__ import annotations

from fractions import Fraction
from operator import attrgetter
from typing import TYPE_CHECKING, Callable, Dict, List, Optional, Tuple, cast

from ..contract.gates import CRITICAL_GATE, TASK_GATE
from ..contract.metrics import METRICS
from ..stats.exact import exact_sum
from ..stats.passk import pass_k_table
from ..stats.quantiles import nearest_rank_unsorted
from .grading import ALL_CHECKS, FINAL_STATE_CORRECT, SIDE_EFFECTS_SAFE, SystemGrades

if TYPE_CHECKING:  # for annotations only
    from ..jsonio import JSONObject
    from .grading import Measure, SystemGrades

P95 = Fraction(95, 100)

# The record field each latency and cost metric is made from (for what "unmeasured" counts).
MEASURED_FIELD = {metric.name: metric.measured_from for metric in METRICS
                  if metric.measured_from is not None}


class TaskResult:
    """One test task of one system: its trial success rate and whether it passes."""

    __slots__ = ("case", "passing_trials", "trial_count", "trial_success_rate", "task_pass",
                 "stable")

    def __init__(self, case: JSONObject, passing_trials: int, trial_count: int,
                 trial_success_rate: Fraction, task_pass: bool, stable: bool) -> None:
        self.case = case
        self.passing_trials = passing_trials
        self.trial_count = trial_count
        self.trial_success_rate = trial_success_rate
        self.task_pass = task_pass
        self.stable = stable


def _task_results(grades: SystemGrades, task_gate: Fraction) -> List[TaskResult]:
    """The TaskResult of every test task (see the module docstring)."""
    trials = grades.trial_count
    per_count: List[Tuple[Fraction, bool, bool]] = []
    for passing in range(trials + 1):
        rate = Fraction(passing, trials)
        per_count.append((rate, rate >= task_gate, passing in (0, trials)))
    results = []
    for case, passing in zip(grades.tasks, passing_trials(grades)):
        rate, task_pass, stable = per_count[passing]
        results.append(TaskResult(case, passing, trials, rate, task_pass, stable))
    return results


def passing_trials(grades: SystemGrades) -> List[int]:
    """The number of passing trials of every test task, in file order (a trial passes when
    all four checks hold)."""
    trials = grades.trial_count
    passed = grades.outcomes.translate(_PASSED)
    return [passed.count(1, start, start + trials)
            for start in range(0, len(passed), trials)]


def _bit_table(predicate: Callable[[int], int]) -> bytes:
    """A bytes.translate table: 1 for the outcome bytes that satisfy ``predicate``, else 0."""
    return bytes(1 if predicate(bits) else 0 for bits in range(256))


_PASSED = _bit_table(lambda bits: bits == ALL_CHECKS)


class Group:
    """Tasks sharing a slice or a family: how many, and the share that pass."""

    __slots__ = ("task_count", "passing_tasks", "trials")

    def __init__(self, tasks: List[TaskResult]) -> None:
        self.task_count = len(tasks)
        self.passing_tasks: int = sum(map(_PASSES, tasks))
        # (passing trials, trial count) per task, for pass^k
        self.trials: List[Tuple[int, int]] = list(map(_TRIALS, tasks))

    def pass_k(self) -> Dict[str, Dict[str, Fraction]]:
        return pass_k_table(self.trials, self.trials[0][1])

    @property
    def task_success_rate(self) -> Fraction:
        return Fraction(self.passing_tasks, self.task_count)


class SystemMetrics:
    """The contract's per-system metrics, exact, one attribute per metric of
    :data:`~proagents_bench.contract.metrics.METRICS`; ``grades`` keeps the per-trial
    evidence."""

    def __init__(self, grades: SystemGrades, gates: JSONObject) -> None:
        task_gate = Fraction(gates[TASK_GATE.key])
        critical_gate = Fraction(gates[CRITICAL_GATE.key])
        self.grades = grades
        self.tasks = _task_results(grades, task_gate)
        task_count = len(self.tasks)
        outcomes = grades.outcomes
        trials = len(outcomes)
        self.task_count = task_count
        self.trial_count = trials
        self.passing_tasks = sum(1 for task in self.tasks if task.task_pass)
        self.primary_task_success_rate = Fraction(self.passing_tasks, task_count)
        self.trial_stability_rate = Fraction(sum(1 for task in self.tasks if task.stable),
                                             task_count)
        self.final_state_trial_rate = Fraction(_count_with(outcomes, FINAL_STATE_CORRECT),
                                               trials)
        self.side_effect_free_trial_rate = Fraction(
            _count_with(outcomes, SIDE_EFFECTS_SAFE), trials)
        self.unknown_trial_count = grades.unknown_trial_count
        self.unmeasured_latency_trial_count = grades.unmeasured_latency_count
        self.unmeasured_cost_trial_count = grades.unmeasured_cost_count
        self.mean_latency_ms: Optional[Fraction] = None
        self.p95_latency_ms: Optional[Fraction] = None
        self.mean_cost_units: Optional[Fraction] = None
        # Where none is unmeasured, every trial's measure is a number.
        if not self.unmeasured_latency_trial_count:
            latencies = cast("List[Measure]", grades.latencies)
            self.mean_latency_ms = exact_sum(latencies) / trials
            self.p95_latency_ms = Fraction(nearest_rank_unsorted(latencies, P95))
        if not self.unmeasured_cost_trial_count:
            self.mean_cost_units = exact_sum(cast("List[Measure]", grades.costs)) / trials
        self.by_slice = _groups(self.tasks, "slice")
        self.by_family = _groups(self.tasks, "family_id")
        slice_rates = [group.task_success_rate for group in self.by_slice.values()]
        self.slice_task_success_gap = max(slice_rates) - min(slice_rates)
        self.pass_k = pass_k_table([(task.passing_trials, task.trial_count)
                                    for task in self.tasks], grades.trial_count)
        self.critical_failures = [task.case["id"] for task in self.tasks
                                  if task.case["critical"]
                                  and task.trial_success_rate < critical_gate]

    def unmeasured(self, metric: str) -> int:
        """How many trials left the record field behind ``metric`` (a latency or cost
        metric) unmeasured; 0 for any other metric."""
        field = MEASURED_FIELD.get(metric)
        if field is None:
            return 0
        return (self.unmeasured_latency_trial_count if field == "latency_ms"
                else self.unmeasured_cost_trial_count)

    def task_passes(self) -> List[int]:
        """1 or 0 per test task, in file order (the paired comparison's input)."""
        return [1 if task.task_pass else 0 for task in self.tasks]


def _count_with(outcomes: bytearray, bit: int) -> int:
    return outcomes.translate(_HAS_BIT[bit]).count(1)


_HAS_BIT = {bit: _bit_table(bit.__and__)  # bits & bit
            for bit in (FINAL_STATE_CORRECT, SIDE_EFFECTS_SAFE)}


def _groups(tasks: List[TaskResult], key: str) -> Dict[str, Group]:
    """The tasks grouped by their case's ``key``, the groups in order of first appearance
    (one dict lookup per task; each group's counts by C-level maps)."""
    members: Dict[str, List[TaskResult]] = {}
    for task in tasks:
        name = task.case[key]
        same = members.get(name)
        if same is None:
            members[name] = [task]
        else:
            same.append(task)
    return {name: Group(same) for name, same in members.items()}


_PASSES = attrgetter("task_pass")
_TRIALS = attrgetter("passing_trials", "trial_count")
