"""A system's scalar metrics, declared once: their names, kinds and meanings, in the decision
document's order. The decision document's shape (:mod:`.output`) and the document itself
(``render/document.py``) are written from this table; ``evaluation/metrics.py`` computes each
as an attribute of the same name, and a gate (:mod:`.gates`) reads one by its name.

A metric is a ``count`` (an integer), a ``rate`` (a share, 0 to 1) or a ``measure`` (a mean
or percentile of the records' latency or cost: null when a trial left that field unmeasured,
results v3, so it names the record field it is made from). An ``optional`` metric is written
only for a results v3 package.
"""

from __future__ import annotations

from typing import Dict, Optional, Tuple

COUNT = "count"
RATE = "rate"
MEASURE = "measure"
KINDS = (COUNT, RATE, MEASURE)


class Metric:
    """One scalar metric of a system (see the module docstring)."""

    def __init__(self, name: str, kind: str, meaning: str = "",
                 measured_from: Optional[str] = None, optional: bool = False) -> None:
        if kind not in KINDS or (kind == MEASURE) != (measured_from is not None):
            raise ValueError("metric %s: a %s must name its record field exactly when it is "
                             "a measure" % (name, kind))
        self.name = name
        self.kind = kind
        self.meaning = meaning
        self.measured_from = measured_from  # a measure's record field: latency_ms, cost_units
        self.optional = optional


METRICS: Tuple[Metric, ...] = (
    Metric("task_count", COUNT),
    Metric("trial_count", COUNT, "trial records graded"),
    Metric("primary_task_success_rate", RATE),
    Metric("final_state_trial_rate", RATE),
    Metric("side_effect_free_trial_rate", RATE),
    Metric("trial_stability_rate", RATE),
    Metric("unknown_trial_count", COUNT),
    Metric("mean_latency_ms", MEASURE, "null when a trial's latency is unmeasured (results "
           "v3): never a mean of 0s", measured_from="latency_ms"),
    Metric("p95_latency_ms", MEASURE, "null when a trial's latency is unmeasured (results v3)",
           measured_from="latency_ms"),
    Metric("mean_cost_units", MEASURE, "null when a trial's cost is unmeasured (results v3)",
           measured_from="cost_units"),
    Metric("slice_task_success_gap", RATE),
    Metric("unmeasured_latency_trial_count", COUNT, "results v3: trials whose latency_ms is "
           "null", optional=True),
    Metric("unmeasured_cost_trial_count", COUNT, "results v3: trials whose cost_units is null",
           optional=True),
)

METRIC_BY_NAME: Dict[str, Metric] = {metric.name: metric for metric in METRICS}
