"""The bootstrap gate's false-pass rate, measured: a seeded simulation.

Under no true difference, each of n test tasks is discordant (one system passes it, the other
fails) with chance ``share``, in either direction with equal chance, and otherwise concordant
(d = 0). Each simulated benchmark gets the gate's own paired bootstrap (task unit, ``samples``
resamples, the confidence given, its own seed), and the gate ``min_paired_delta_ci_low = 0``
passes it under the ``inclusive`` rule when the interval's lower bound is >= 0 and under the
``strict`` rule when it is > 0. The share of passes is the false-pass rate: how often a
candidate no better than its baseline passes the bootstrap gate. (A two-sided 95% interval
would put it at 2.5% if the bootstrap distribution were continuous; the mean of -1/0/+1
differences is discrete, and with few discordant tasks the lower bound is exactly 0 most of the
time.) Randomness comes from ``random.Random(seed)`` only: the table is the same every run.
"""

from __future__ import annotations

import random
from fractions import Fraction
from typing import Iterable, List, Tuple

from ..stats.bootstrap import paired_interval, task_clusters


def simulated_differences(tasks: int, share: float, rng: random.Random) -> List[int]:
    """Task differences under no true difference (see the module docstring)."""
    differences = []
    for _ in range(tasks):
        if rng.random() < share:
            differences.append(1 if rng.random() < 0.5 else -1)
        else:
            differences.append(0)
    return differences


def false_pass_rates(tasks: int, share: float, repetitions: int, samples: int,
                     confidence: Fraction, seed: int) -> Tuple[float, float]:
    """(inclusive rate, strict rate) of the bootstrap gate at 0 over ``repetitions``
    simulated benchmarks of ``tasks`` tasks with discordant ``share``."""
    rng = random.Random(seed)
    inclusive = strict = 0
    for repetition in range(repetitions):
        differences = simulated_differences(tasks, share, rng)
        interval = paired_interval(task_clusters(differences), samples,
                                   seed * 1000003 + repetition, confidence)
        inclusive += interval.low >= 0
        strict += interval.low > 0
    return inclusive / repetitions, strict / repetitions


def false_pass_table(task_counts: Iterable[int], shares: Iterable[float], repetitions: int,
                     samples: int, confidence: Fraction, seed: int) -> List[str]:
    """The statistics docs' table (Markdown lines): one row per task count and discordant share."""
    lines = ["| test tasks | discordant share | false passes, `inclusive` | false passes, "
             "`strict` |", "|---:|---:|---:|---:|"]
    for tasks in task_counts:
        for share in shares:
            inclusive, strict = false_pass_rates(tasks, share, repetitions, samples,
                                                 confidence, seed)
            lines.append("| %d | %g%% | %.1f%% | %.1f%% |" % (
                tasks, share * 100, inclusive * 100, strict * 100))
    return lines
