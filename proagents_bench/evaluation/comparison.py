"""Compare the two systems: first whether they are comparable at all, then how they differ.

Comparability comes before any metric: every system must have run under exactly the spec's
protocol, and a mismatch makes the decision INCOMPARABLE, with nothing graded or ranked
(:func:`protocol_mismatches`). Otherwise :func:`compare` pairs the systems task by task:
d_i = candidate task pass - baseline task pass, the fixed-seed bootstrap interval of the mean
difference over tasks or families (:mod:`proagents_bench.stats.bootstrap`), and the paired
statistics (:mod:`proagents_bench.stats.paired`), at the task level and at the trial level;
for each level an :class:`Evidence`, what the decision judges the interval gates by.
"""

from __future__ import annotations

from fractions import Fraction
from typing import TYPE_CHECKING, Callable, Dict, List, Optional, Sequence, Tuple

from ..contract.inputs import PROTOCOL, small_sample_rules
from ..contract.vocabulary import INCLUSIVE
from ..stats.bootstrap import PairedInterval, family_clusters, paired_interval, task_clusters
from ..stats.exact_tests import exact_test_summary
from ..stats.paired import MIN_FAMILIES, paired_summary, unit_differences, unit_standard_error
from ..text import quote
from .metrics import SystemMetrics

if TYPE_CHECKING:  # for annotations only
    from ..jsonio import JSONObject
    from ..stats.exact import Exact
    from ..stats.exact_tests import ExactTest
    from ..stats.paired import PairedStatistics


def show_value(value: object) -> str:
    """A protocol value as written: strings JSON-quoted, numbers as their literal."""
    if isinstance(value, str):
        return quote(value)
    return str(value)


def protocol_mismatches(spec: JSONObject, systems: Sequence[JSONObject],
                        trial_count: Optional[int] = None) -> List[str]:
    """``SYSTEM.KEY: expected=X, actual=Y`` for every key where a system differs from the spec.

    ``systems`` are compared in the order given (baseline, then candidate), keys in the
    contract's order. Numbers compare by value, so ``30`` and ``30.0`` agree. A look of a
    sequential design expects its own ``trial_count`` (given), not the spec's (its last
    look's).
    """
    expected = spec["protocol"]
    if trial_count is not None:
        expected = dict(expected, trial_count=trial_count)
    mismatches = []
    for system in systems:
        actual = system["protocol"]
        for field in PROTOCOL.fields:
            key = field.key
            if actual[key] != expected[key]:
                mismatches.append("%s.%s: expected=%s, actual=%s" % (
                    system["system_id"], key, show_value(expected[key]),
                    show_value(actual[key])))
    return mismatches


# The bootstrap interval's bounds are order statistics of the B resampled means. With fewer
# than this many resamples beyond each bound (B (1 - c) / 2 of them), the bounds are the
# resamples' extremes or next to them, and move a lot with the seed: the document warns.
MIN_TAIL_RESAMPLES = 10


def minimum_samples(confidence: Exact) -> int:
    """The fewest bootstrap samples B with at least MIN_TAIL_RESAMPLES beyond each bound of
    the ``confidence`` interval: the smallest B with B (1 - c) / 2 >= MIN_TAIL_RESAMPLES.

    >>> minimum_samples(Fraction(95, 100)), minimum_samples(Fraction(999, 1000))
    (400, 20000)
    """
    tail = (1 - Fraction(confidence)) / 2
    return -(-MIN_TAIL_RESAMPLES // tail)


class Evidence:
    """What the small-sample rules (spec v3 on) judge a gate on a bootstrap interval's low
    end by, for one level of the comparison (``task`` or ``trial``): the interval's low end,
    why the resampling unit's standard error is not estimable (None when it is), and the
    one-sided test on the units' differences (``exact_test``, JSON-ready: see
    :func:`proagents_bench.stats.exact_tests.exact_test_summary`; None under v1 and v2)."""

    def __init__(self, low: Fraction, not_estimable: Optional[str],
                 exact_test: Optional[ExactTest]) -> None:
        self.low = low
        self.not_estimable = not_estimable
        self.exact_test = exact_test


class TrialLevel:
    """The comparison beside the task-level one, from the trials: the paired difference of
    per-task trial success rates (the mean over K trials per task: Miller 2024, "Adding Error
    Bars to Evals", section 3), its standard error and bootstrap interval (the same samples,
    seed and unit as the task-level interval; a gate from spec v4 on), the per-system pass^k
    difference, the tasks whose verdict flips between trials in either system, and (spec v3
    on) the one-sided sign-flip randomization test on the units' trial-level differences."""

    def __init__(self, mean: Fraction, se: Optional[float], reason: Optional[str],
                 interval: Tuple[Fraction, Fraction],
                 pass_hat_k_difference: Dict[str, Fraction], flaky_tasks: List[str],
                 exact_test: Optional[ExactTest] = None) -> None:
        self.mean = mean
        self.standard_error = se
        self.not_estimable = reason
        self.interval = interval
        self.pass_hat_k_difference = pass_hat_k_difference
        self.flaky_tasks = flaky_tasks
        self.exact_test = exact_test


class Comparison:
    """The paired comparison of two comparable systems: the difference of their primary
    rates, the bootstrap interval and unit, the paired statistics (JSON-ready), the
    trial-level comparison, and the bootstrap's settings as the spec gives them."""

    def __init__(self, delta: Fraction, interval: PairedInterval, unit: str,
                 statistics: PairedStatistics, trial_level: TrialLevel,
                 bootstrap: JSONObject, small_sample: bool = False) -> None:
        self.delta = delta
        self.interval = interval
        self.unit = unit
        self.statistics = statistics
        self.trial_level = trial_level
        self.samples: int = bootstrap["samples"]
        self.confidence: Exact = bootstrap["confidence"]
        # v1, v2: inclusive
        self.lower_bound: str = bootstrap.get("lower_bound", INCLUSIVE)
        self.small_sample_rules = small_sample
        # The evidence behind each level's interval (contract/gates.py: ``Gate.interval``).
        self.evidence = {
            "task": Evidence(interval.low, statistics["not_estimable"],
                             statistics.get("exact_test")),
            "trial": Evidence(trial_level.interval[0], trial_level.not_estimable,
                              trial_level.exact_test),
        }

    @property
    def too_few_samples(self) -> bool:
        return self.samples < minimum_samples(self.confidence)


def compare(spec: JSONObject, baseline: SystemMetrics, candidate: SystemMetrics,
            progress: Optional[Callable[[str], object]] = None) -> Comparison:
    """Pair ``baseline`` and ``candidate`` over the test tasks (both hold them in file order).
    ``progress(stage)``, when given, hears when the bootstrap starts."""
    baseline_passes, candidate_passes = baseline.task_passes(), candidate.task_passes()
    differences = [c - b for c, b in zip(candidate_passes, baseline_passes)]
    families = [task.case["family_id"] for task in candidate.tasks]
    bootstrap = spec["bootstrap"]
    unit = bootstrap.get("unit", "task")  # spec v1 has no unit: it resamples tasks
    small_sample = small_sample_rules(spec)
    if progress is not None:
        progress("bootstrapping")
    interval = _interval(differences, families, unit, bootstrap)
    statistics = paired_summary(baseline_passes, candidate_passes, families,
                                bootstrap["confidence"], unit=unit,
                                small_sample_rules=small_sample)
    delta = candidate.primary_task_success_rate - baseline.primary_task_success_rate
    trial_level = _trial_level(baseline, candidate, families, unit, bootstrap, small_sample)
    return Comparison(delta, interval, unit, statistics, trial_level, bootstrap, small_sample)


def _interval(differences: Sequence[int], families: Sequence[str], unit: str,
              bootstrap: JSONObject) -> PairedInterval:
    clusters = (family_clusters(differences, families) if unit == "family"
                else task_clusters(differences))
    return paired_interval(clusters, bootstrap["samples"], bootstrap["seed"],
                           bootstrap["confidence"])


class LevelStatistics:
    """One level's paired difference over the resampling units, from integer differences
    (``counts``, per task) divided by ``scale``: its bootstrap interval, the unit's standard
    error or why it is not estimable, and (small-sample rules) the one-sided test."""

    def __init__(self, counts: Sequence[int], scale: int, families: Sequence[str], unit: str,
                 bootstrap: JSONObject, small_sample: bool) -> None:
        rates = [Fraction(count, scale) for count in counts]
        self.standard_error, self.not_estimable = unit_standard_error(
            rates, families, unit, MIN_FAMILIES if small_sample else 0)
        self.exact_test = None
        if small_sample:
            self.exact_test = exact_test_summary(unit_differences(counts, families, unit),
                                                 bootstrap["confidence"], unit)
        interval = _interval(counts, families, unit, bootstrap)
        self.interval = (interval.low / scale, interval.high / scale)

    def evidence(self) -> Evidence:
        return Evidence(self.interval[0], self.not_estimable, self.exact_test)


def trial_level_statistics(counts: Sequence[int], trials: int, families: Sequence[str],
                           unit: str, bootstrap: JSONObject,
                           small_sample: bool) -> LevelStatistics:
    """The trial-level statistics from each task's difference of passing trials out of
    ``trials``: what the gate computes, and what a simulation of it calls."""
    return LevelStatistics(counts, trials, families, unit, bootstrap, small_sample)


def _trial_level(baseline: SystemMetrics, candidate: SystemMetrics, families: List[str],
                 unit: str, bootstrap: JSONObject, small_sample: bool = False) -> TrialLevel:
    # Both systems ran the spec's protocol (they are comparable), so K trials per task each;
    # the differences of passing trials are integers, resampled exactly, and divided by K.
    trials = candidate.grades.trial_count
    counts = [mine.passing_trials - theirs.passing_trials
              for theirs, mine in zip(baseline.tasks, candidate.tasks)]
    mean = Fraction(sum(counts), trials * len(counts))
    level = trial_level_statistics(counts, trials, families, unit, bootstrap, small_sample)
    pass_hat = {k: candidate.pass_k["pass_hat_k"][k] - baseline.pass_k["pass_hat_k"][k]
                for k in candidate.pass_k["pass_hat_k"]}
    flaky = [mine.case["id"] for theirs, mine in zip(baseline.tasks, candidate.tasks)
             if not (theirs.stable and mine.stable)]
    return TrialLevel(mean, level.standard_error, level.not_estimable, level.interval,
                      pass_hat, flaky, level.exact_test)
