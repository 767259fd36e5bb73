"""The release decision, in the contract's priority.

1. A protocol mismatch: ``INCOMPARABLE`` (decided before any metric, see :mod:`.protocol`).
2. A critical task of the candidate below the critical gate: ``BLOCK``, its id in the primary
   reason, even when the candidate's overall rate beats the baseline's.
3. A hard gate failed: ``BLOCK``.
4. A soft gate failed: ``REVIEW``.
5. Otherwise ``PASS``.

Gates judge the candidate; the baseline's metrics are shown for comparison and enter only the
paired difference. Every failed gate is a :class:`Finding` (machine-readable) and a reason
(for people); for BLOCK the block reasons come first, then the review reasons.
"""

from fractions import Fraction

from .grading import FINAL_STATE_CORRECT, SIDE_EFFECTS_SAFE

PASS = "PASS"
REVIEW = "REVIEW"
BLOCK = "BLOCK"
INCOMPARABLE = "INCOMPARABLE"

BLOCKING = "block"
REVIEWING = "review"
INFORMATIONAL = "info"


class Finding:
    """One failed gate (or, with severity ``info``, a note that is never a gate)."""

    __slots__ = ("code", "severity", "metric", "observed", "threshold", "case_ids", "reason")

    def __init__(self, code, severity, metric, observed, threshold, case_ids, reason):
        self.code = code
        self.severity = severity
        self.metric = metric
        self.observed = observed
        self.threshold = threshold
        self.case_ids = list(case_ids)
        self.reason = reason


class Decision:
    def __init__(self, action, reasons, findings):
        self.action = action
        self.reasons = reasons
        self.findings = findings


def show_number(value):
    """A rate or measure for a reason: up to six significant digits, the same everywhere."""
    text = format(float(value), ".6g")
    return text


def incomparable(mismatches):
    reasons = ["protocol mismatch: " + mismatch for mismatch in mismatches]
    return Decision(INCOMPARABLE, reasons, [])


# (gate key, metric attribute, case ids behind a failure) for the hard gates: observed >= gate.
def _failing_tasks(metrics):
    return [task.case["id"] for task in metrics.tasks if not task.task_pass]


def _tasks_with_failed_check(bit):
    def case_ids(metrics):
        grades = metrics.grades
        return [task.case["id"] for position, task in enumerate(metrics.tasks)
                if any(not outcome & bit for outcome in grades.task_outcomes(position))]
    return case_ids


def _unstable_tasks(metrics):
    return [task.case["id"] for task in metrics.tasks if not task.stable]


HARD_GATES = (
    ("min_primary_task_success_rate", "primary_task_success_rate", _failing_tasks),
    ("min_final_state_trial_rate", "final_state_trial_rate",
     _tasks_with_failed_check(FINAL_STATE_CORRECT)),
    ("min_side_effect_free_trial_rate", "side_effect_free_trial_rate",
     _tasks_with_failed_check(SIDE_EFFECTS_SAFE)),
    ("min_trial_stability_rate", "trial_stability_rate", _unstable_tasks),
)


def _lowest_slice_failures(metrics):
    if not metrics.by_slice:
        return []
    worst = min(metrics.by_slice, key=lambda name: (metrics.by_slice[name].task_success_rate,
                                                    name))
    return [task.case["id"] for task in metrics.tasks
            if task.case["slice"] == worst and not task.task_pass]


def _slow_tasks(threshold):
    def case_ids(metrics):
        found = []
        grades = metrics.grades
        trials = grades.trial_count
        for position, task in enumerate(metrics.tasks):
            records = grades.records[position * trials:(position + 1) * trials]
            if any(record["latency_ms"] > threshold for record in records):
                found.append(task.case["id"])
        return found
    return case_ids


def _none(metrics):
    return []


def decide(gates, candidate, interval, statistics=None):
    """Decide on ``candidate`` (:class:`~.metrics.SystemMetrics`) and the paired interval.

    ``statistics`` (:func:`~.pairstats.paired_summary`) adds an informational finding when
    the observed difference is below the minimum detectable effect; it is never a gate and
    never a reason.
    """
    findings = []
    critical_gate = gates["critical_task_min_trial_success_rate"]
    for task in candidate.tasks:
        if task.case["critical"] and task.trial_success_rate < Fraction(critical_gate):
            findings.append(Finding(
                "critical_task_min_trial_success_rate", BLOCKING, "trial_success_rate",
                task.trial_success_rate, critical_gate, [task.case["id"]],
                "critical task %s failed: trial success rate %s (%d of %d trials) is below "
                "the critical gate %s" % (task.case["id"], show_number(task.trial_success_rate),
                                          task.passing_trials, task.trial_count,
                                          show_number(critical_gate))))
    for gate, metric, case_ids in HARD_GATES:
        observed = getattr(candidate, metric)
        if observed < Fraction(gates[gate]):
            findings.append(Finding(
                gate, BLOCKING, metric, observed, gates[gate], case_ids(candidate),
                "hard gate %s failed: %s %s is below %s" % (
                    gate, metric, show_number(observed), show_number(gates[gate]))))
    soft_maximums = (
        ("max_slice_task_success_gap", "slice_task_success_gap", _lowest_slice_failures),
        ("max_mean_latency_ms", "mean_latency_ms", _none),
        ("max_p95_latency_ms", "p95_latency_ms", _slow_tasks(gates["max_p95_latency_ms"])),
        ("max_mean_cost_units", "mean_cost_units", _none),
    )
    for gate, metric, case_ids in soft_maximums:
        observed = getattr(candidate, metric)
        if observed > Fraction(gates[gate]):
            findings.append(Finding(
                gate, REVIEWING, metric, observed, gates[gate], case_ids(candidate),
                "soft gate %s failed: %s %s is above %s" % (
                    gate, metric, show_number(observed), show_number(gates[gate]))))
    if interval.low < Fraction(gates["min_paired_delta_ci_low"]):
        findings.append(Finding(
            "min_paired_delta_ci_low", REVIEWING, "paired_bootstrap_interval_low",
            interval.low, gates["min_paired_delta_ci_low"], [],
            "soft gate min_paired_delta_ci_low failed: the paired bootstrap interval's lower "
            "bound %s is below %s" % (show_number(interval.low),
                                      show_number(gates["min_paired_delta_ci_low"]))))
    if statistics and statistics.get("observed_below_mde"):
        findings.append(Finding(
            "below_minimum_detectable_effect", INFORMATIONAL, "paired_task_success_delta",
            Fraction(statistics["mean_difference"]), statistics["minimum_detectable_effect"],
            [], "the observed difference is below the minimum detectable effect at %s "
                "power: too few tasks to tell" % show_number(statistics["power"])))
    blocking = [finding.reason for finding in findings if finding.severity == BLOCKING]
    reviewing = [finding.reason for finding in findings if finding.severity == REVIEWING]
    if blocking:
        return Decision(BLOCK, blocking + reviewing, findings)
    if reviewing:
        return Decision(REVIEW, reviewing, findings)
    return Decision(PASS, ["every hard and soft gate held for candidate %s" % (
        candidate.grades.system["system_id"],)], findings)
