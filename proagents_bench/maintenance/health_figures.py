"""A benchmark's health as measured: its figures per system, per test task, per slice and
per family, the effective size and the tasks to audit first. :mod:`.health` reads the
packages and pools their runs; :func:`measure_tasks` turns the pooled systems into each
task's figures; :mod:`.health_document` writes them as the ``health`` command's JSON
document.

**Per task**, with S systems, system s passing c_s of its N_s trials:

- ``pass_rates``: c_s / N_s per system; ``pass_rate``: their mean over the systems (each
  system weighs the same, however many trials it ran);
- ``flaky_systems``: the systems whose trials disagree (0 < c_s < N_s), across runs too;
- ``unknown_trials`` and ``unknown_share``: trials of status ``unknown`` (the importers'
  infrastructure errors and missing trials) over all trials;
- ``never_passed``: no trial of any system passed (possibly broken or unsolvable: audit it
  first); ``saturated``: every trial of every system passed (it separates nobody);
- ``discrimination``: the item-rest correlation of the systems' pass rates
  (:mod:`proagents_bench.stats.items`); a task **discriminates** when it is at least
  :data:`DISCRIMINATING` (0.2: Ebel & Frisbie 1991 call items below it poor);
- ``mean_latency_ms`` and ``mean_cost_units`` over all its trials (null when any is
  unmeasured: never read as 0), and whether each is an outlier among the tasks (Tukey's
  fences on the nearest-rank quartiles of the tasks' means).

**The effective size** is the number of test tasks that discriminate: the tasks that carry
information about which system is better (neither never passed nor saturated, nor scored the
same by every system, and correlated with the rest of the benchmark). Polo et al. (2024,
"tinyBenchmarks: evaluating LLMs with fewer examples", ICML) find most items of large
benchmarks uninformative in this sense. It is not estimable (null, with the reason) when the
discrimination index is not: fewer than three systems, or all with the same total.

**The tasks to audit first**, in this order of their first reason (:data:`AUDIT_REASONS`),
then by how many reasons they have, then in the cases file's order: never passed; a
negative discrimination of at most -0.2 (the better systems fail it: a wrong answer key?);
unknown trials; flaky in most systems; saturated; a latency or cost outlier.
"""
from __future__ import annotations

from fractions import Fraction
from math import gcd
from typing import TYPE_CHECKING, Dict, List, Optional, Sequence, Tuple

from ..jsonio import JSONObject
from ..stats.exact import Exact
from ..stats.items import Correlation, ItemAnalysis, tukey_fences

if TYPE_CHECKING:  # for annotations only
    from .validity import Validity

HEALTH = "HEALTH"
DISCRIMINATING = Fraction(1, 5)
# The audit reasons, most urgent first.
NEVER_PASSED = "never_passed"
NEGATIVE_DISCRIMINATION = "negative_discrimination"
UNKNOWN_TRIALS = "unknown_trials"
FLAKY = "flaky"
SATURATED = "saturated"
LATENCY_OUTLIER = "latency_outlier"
COST_OUTLIER = "cost_outlier"
AUDIT_REASONS = (NEVER_PASSED, NEGATIVE_DISCRIMINATION, UNKNOWN_TRIALS, FLAKY, SATURATED,
                 LATENCY_OUTLIER, COST_OUTLIER)
AUDIT_MEANINGS = {
    NEVER_PASSED: "no trial of any system passed: possibly broken or unsolvable",
    NEGATIVE_DISCRIMINATION: "the systems that do better elsewhere fail it more often: a "
                             "wrong answer key or an ambiguous task?",
    UNKNOWN_TRIALS: "trials of status unknown (infrastructure errors, missing trials)",
    FLAKY: "its trials disagree in most systems: a nondeterministic task or environment?",
    SATURATED: "every trial of every system passed: it separates nobody",
    LATENCY_OUTLIER: "its mean latency lies beyond Tukey's fences",
    COST_OUTLIER: "its mean cost lies beyond Tukey's fences",
}
HIGH, LOW = "high", "low"


class SystemHealth:
    """A system's pooled runs: trials per task and passing trials per task."""

    def __init__(self, name: str, task_count: int) -> None:
        self.name = name
        self.trials = 0
        self.passing = [0] * task_count
        self.runs: List[str] = []  # the files of its counted runs

    def add(self, trial_count: int, passing: Sequence[int], shown: str) -> None:
        """Pool a run of ``trial_count`` trials per task, ``passing`` of them passing, read
        from the file ``shown``."""
        self.trials += trial_count
        self.passing = [total + count for total, count in zip(self.passing, passing)]
        self.runs.append(shown)


class TaskHealth:
    """One test task's health (see the module docstring)."""

    def __init__(self, case: JSONObject, position: int) -> None:
        self.case = case
        self.position = position
        self.passing: Tuple[int, ...] = ()
        self.pass_rates: List[Fraction] = []
        self.pass_rate = Fraction(0)
        self.flaky_systems = 0
        self.unknown_trials = 0
        self.unknown_share = Fraction(0)
        self.never_passed = False
        self.saturated = False
        self.varies = False
        self.discrimination: Optional[Correlation] = None
        self.discrimination_note = ""
        self.mean_latency_ms: Optional[Fraction] = None
        self.mean_cost_units: Optional[Fraction] = None
        self.latency_outlier: Optional[str] = None
        self.cost_outlier: Optional[str] = None
        self.reasons: List[str] = []

    @property
    def case_id(self) -> str:
        case_id: str = self.case["id"]
        return case_id

    @property
    def discriminates(self) -> bool:
        return self.discrimination is not None and self.discrimination.at_least(DISCRIMINATING)

    def audit_order(self) -> Tuple[int, int, int]:
        return (AUDIT_REASONS.index(self.reasons[0]), -len(self.reasons), self.position)


class Group:
    """The tasks of one slice or family."""

    def __init__(self) -> None:
        self.tasks: List[TaskHealth] = []


class Health:
    """Every test task's health, the systems, the groups and the effective size."""

    def __init__(self) -> None:
        self.spec: JSONObject = {}
        self.cases: JSONObject = {}
        self.inputs: Dict[str, JSONObject] = {}
        self.packages: List[JSONObject] = []
        self.excluded: List[JSONObject] = []
        self.systems: List[SystemHealth] = []
        self.tasks: List[TaskHealth] = []
        self.analysis = ItemAnalysis([])  # until measured: of no system, not estimable
        self.trials_per_task = 0
        self.latency_fences: Optional[Tuple[Fraction, Fraction]] = None
        self.cost_fences: Optional[Tuple[Fraction, Fraction]] = None
        self.by_slice: Dict[str, Group] = {}
        self.by_family: Dict[str, Group] = {}
        # The validity audit (.validity), once measured.
        self.validity: Optional[Validity] = None

    @property
    def effective_size(self) -> Optional[int]:
        if not self.analysis.estimable:
            return None
        return sum(1 for task in self.tasks if task.discriminates)

    def audit(self) -> List[TaskHealth]:
        """The tasks to audit, first first."""
        return sorted((task for task in self.tasks if task.reasons),
                      key=TaskHealth.audit_order)


def _lcm(numbers: Sequence[int]) -> int:
    result = 1
    for number in numbers:
        result = result * number // gcd(result, number)
    return result


def measure_tasks(health: Health, tests: List[JSONObject], unknown: List[int],
                  latency: List[Optional[Exact]], cost: List[Optional[Exact]]) -> None:
    """Every task's health from the pooled systems (:attr:`Health.systems`) and, per task,
    the unknown trials and the exact latency and cost sums over every system's trials (None:
    some trial unmeasured), in ``health`` (see the module docstring)."""
    systems = health.systems
    trials = [system.trials for system in systems]
    health.trials_per_task = all_trials = sum(trials)
    common = _lcm(trials)
    # Integer scores on a common scale: a pass rate c/N is c (L/N) / L.
    factors = [common // count for count in trials]
    scaled = [[passing * factor for passing in system.passing]
              for system, factor in zip(systems, factors)]
    health.analysis = analysis = ItemAnalysis([sum(scores) for scores in scaled])
    count = len(systems)
    rates = [[Fraction(passing, system.trials) for passing in range(system.trials + 1)]
             for system in systems]
    columns = zip(*[system.passing for system in systems])
    for position, (case, passing, scores) in enumerate(zip(tests, columns, zip(*scaled))):
        task = TaskHealth(case, position)
        task.passing = passing
        task.pass_rates = [table[value] for table, value in zip(rates, passing)]
        task.pass_rate = Fraction(sum(scores), count * common)
        task.flaky_systems = sum(1 for value, total in zip(passing, trials)
                                 if 0 < value < total)
        task.unknown_trials = unknown[position]
        task.unknown_share = Fraction(unknown[position], all_trials)
        task.never_passed = not any(passing)
        task.saturated = all(
            value == total for value, total in zip(passing, trials))
        task.varies = len(set(scores)) > 1
        task.discrimination = analysis.correlation(scores)
        if task.discrimination is None:
            task.discrimination_note = analysis.why_not(scores)
        latency_sum, cost_sum = latency[position], cost[position]
        if latency_sum is not None:
            task.mean_latency_ms = Fraction(latency_sum) / all_trials
        if cost_sum is not None:
            task.mean_cost_units = Fraction(cost_sum) / all_trials
        health.tasks.append(task)
        health.by_slice.setdefault(case["slice"], Group()).tasks.append(task)
        health.by_family.setdefault(case["family_id"], Group()).tasks.append(task)
    health.latency_fences = _outliers(health.tasks, latency, all_trials, "latency_outlier")
    health.cost_fences = _outliers(health.tasks, cost, all_trials, "cost_outlier")
    for task in health.tasks:
        task.reasons = _reasons(task, count)


def _outliers(tasks: List[TaskHealth], totals: List[Optional[Exact]], trials: int,
              flag: str) -> Optional[Tuple[Fraction, Fraction]]:
    """Flag the tasks whose mean lies beyond Tukey's fences; return the fences (of the
    means). Every task has the same number of trials, so the fences are found on the tasks'
    exact totals (sorted as they are) and divided by it."""
    fences = tukey_fences([total for total in totals if total is not None])
    if fences is None:
        return None
    low, high = fences
    for task, total in zip(tasks, totals):
        if total is not None:
            exact = Fraction(total)
            if exact < low or exact > high:
                setattr(task, flag, HIGH if exact > high else LOW)
    return low / trials, high / trials


def _reasons(task: TaskHealth, system_count: int) -> List[str]:
    reasons = []
    if task.never_passed:
        reasons.append(NEVER_PASSED)
    if task.discrimination is not None and task.discrimination.at_most(-DISCRIMINATING):
        reasons.append(NEGATIVE_DISCRIMINATION)
    if task.unknown_trials:
        reasons.append(UNKNOWN_TRIALS)
    if 2 * task.flaky_systems > system_count:
        reasons.append(FLAKY)
    if task.saturated:
        reasons.append(SATURATED)
    if task.latency_outlier:
        reasons.append(LATENCY_OUTLIER)
    if task.cost_outlier:
        reasons.append(COST_OUTLIER)
    return reasons


def describe_reason(task: TaskHealth, reason: str, system_count: int) -> str:
    """One audit reason of ``task`` in words, with its evidence."""
    if reason == NEVER_PASSED:
        return "never passed: no trial of the %d system%s passed" % (
            system_count, "" if system_count == 1 else "s")
    if reason == NEGATIVE_DISCRIMINATION:
        return "negative discrimination %s: the systems that do better elsewhere fail it " \
               "more often (a wrong answer key?)" % _places(task.discrimination)
    if reason == UNKNOWN_TRIALS:
        return "%d trial%s of status unknown (infrastructure errors, missing trials)" % (
            task.unknown_trials, "" if task.unknown_trials == 1 else "s")
    if reason == FLAKY:
        return "flaky in %d of %d systems: their trials disagree" % (task.flaky_systems,
                                                                     system_count)
    if reason == SATURATED:
        return "saturated: every trial of every system passed; it separates nobody"
    if reason == LATENCY_OUTLIER:
        return "mean latency %s ms is a %s outlier among the tasks" % (
            _short(task.mean_latency_ms), task.latency_outlier)
    return "mean cost %s is a %s outlier among the tasks" % (_short(task.mean_cost_units),
                                                              task.cost_outlier)


def _places(correlation: Optional[Correlation]) -> str:
    return "null" if correlation is None else str(float(correlation.rounded()))


def _short(value: Optional[Fraction]) -> str:
    return "null" if value is None else format(float(value), ".6g")
