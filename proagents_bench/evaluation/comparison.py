"""Compare the two systems: first whether they are comparable at all, then how they differ.

Comparability comes before any metric: every system must have run under exactly the spec's
protocol, and a mismatch makes the decision INCOMPARABLE, with nothing graded or ranked
(:func:`protocol_mismatches`). Otherwise :func:`compare` pairs the systems task by task:
d_i = candidate task pass - baseline task pass, the fixed-seed bootstrap interval of the mean
difference over tasks or families (:mod:`proagents_bench.stats.bootstrap`), and the paired
statistics (:mod:`proagents_bench.stats.paired`).
"""

from __future__ import annotations

from fractions import Fraction
from typing import List, Sequence

from ..contract.inputs import PROTOCOL
from ..stats.bootstrap import PairedInterval, family_clusters, paired_interval, task_clusters
from ..stats.paired import paired_summary
from ..text import quote
from .metrics import SystemMetrics


def show_value(value: object) -> str:
    """A protocol value as written: strings JSON-quoted, numbers as their literal."""
    if isinstance(value, str):
        return quote(value)
    return str(value)


def protocol_mismatches(spec: dict, systems: Sequence[dict]) -> List[str]:
    """``SYSTEM.KEY: expected=X, actual=Y`` for every key where a system differs from the spec.

    ``systems`` are compared in the order given (baseline, then candidate), keys in the
    contract's order. Numbers compare by value, so ``30`` and ``30.0`` agree.
    """
    expected = spec["protocol"]
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


class Comparison:
    """The paired comparison of two comparable systems: the difference of their primary
    rates, the bootstrap interval and unit, and the paired statistics (JSON-ready)."""

    def __init__(self, delta: Fraction, interval: PairedInterval, unit: str,
                 statistics: dict) -> None:
        self.delta = delta
        self.interval = interval
        self.unit = unit
        self.statistics = statistics


def compare(spec: dict, baseline: SystemMetrics, candidate: SystemMetrics,
            progress=None) -> Comparison:
    """Pair ``baseline`` and ``candidate`` over the test tasks (both hold them in file order).
    ``progress(stage)``, when given, hears when the bootstrap starts."""
    baseline_passes, candidate_passes = baseline.task_passes(), candidate.task_passes()
    differences = [c - b for c, b in zip(candidate_passes, baseline_passes)]
    families = [task.case["family_id"] for task in candidate.tasks]
    bootstrap = spec["bootstrap"]
    unit = bootstrap.get("unit", "task")  # spec v1 has no unit: it resamples tasks
    clusters = (family_clusters(differences, families) if unit == "family"
                else task_clusters(differences))
    if progress is not None:
        progress("bootstrapping")
    interval = paired_interval(clusters, bootstrap["samples"], bootstrap["seed"],
                               bootstrap["confidence"])
    statistics = paired_summary(baseline_passes, candidate_passes, families,
                                bootstrap["confidence"])
    delta = candidate.primary_task_success_rate - baseline.primary_task_success_rate
    return Comparison(delta, interval, unit, statistics)
