"""What a package says to the planner: each task's passing trials of both systems, the trial
count, and the components of variance Miller's formula is made of (:class:`Measured`), read
from an evaluated package (:func:`measure`)."""

from __future__ import annotations

from fractions import Fraction
from math import sqrt
from typing import Optional, Sequence, Tuple

from ..pipeline import Evaluation
from ..stats.exact import to_float


class PlanError(ValueError):
    """A plan that cannot be made (said in words: the package or the settings)."""


class Measured:
    """What the package says: per-task passing trials of both systems, K, the components."""

    def __init__(self, baseline: Sequence[int], candidate: Sequence[int], trials: int,
                 costs: Tuple[Optional[float], Optional[float]]) -> None:
        tasks = len(baseline)
        if tasks < 2:
            raise PlanError("the package has %d test task; a plan needs at least 2 to measure "
                            "a variance" % tasks)
        self.baseline = list(baseline)
        self.candidate = list(candidate)
        self.tasks = tasks
        self.trials = trials
        self.costs = costs
        k = trials
        self.rates = tuple(Fraction(sum(counts), tasks * k) for counts in (baseline, candidate))
        self.within = tuple(Fraction(sum(x * (k - x) for x in counts), tasks * k * (k - 1))
                            for counts in (baseline, candidate))
        differences = [c - b for b, c in zip(baseline, candidate)]
        self.difference = Fraction(sum(differences), tasks * k)
        self.between = max(_sample_variance(differences, k)
                           - (self.within[0] + self.within[1]) / k, Fraction(0))
        self.between_systems = tuple(max(_sample_variance(counts, k) - within / k, Fraction(0))
                                     for counts, within in zip((baseline, candidate),
                                                               self.within))

    def miller_sd(self, trials: int) -> float:
        """sqrt(omega2 + (w_baseline + w_candidate) / K): Miller's per-task sd at K trials."""
        return sqrt(to_float(self.between + (self.within[0] + self.within[1]) / trials))


def _sample_variance(counts: Sequence[int], scale: int) -> Fraction:
    """The sample variance (n - 1 denominator) of counts / scale, exactly from integer sums."""
    tasks = len(counts)
    total = sum(counts)
    squares = sum(count * count for count in counts)
    return Fraction(tasks * squares - total * total, tasks * (tasks - 1) * scale * scale)


def measure(evaluation: Evaluation) -> Measured:
    """The :class:`Measured` of an evaluated package (a
    :class:`~proagents_bench.pipeline.Evaluation`): per-task passing trials of both systems,
    the trial count, each system's mean cost per trial (None where a results v3 package left
    a cost unmeasured)."""
    document = evaluation.lazy_document
    if not document["comparable"]:
        raise PlanError("the systems are not comparable (%s): nothing can be measured"
                        % "; ".join(document["reasons"]))
    trials = evaluation.spec["protocol"]["trial_count"]
    counts = []
    for role in ("baseline", "candidate"):
        results = document[role + "_metrics"]["task_results"]
        counts.append([int(task["trial_success_rate"] * trials + 0.5) for task in results])
    costs = (document["baseline_metrics"]["mean_cost_units"],
             document["candidate_metrics"]["mean_cost_units"])
    return Measured(counts[0], counts[1], trials, costs)
