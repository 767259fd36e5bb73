"""The release decision, in the contract's priority.

1. A protocol mismatch: ``INCOMPARABLE`` (decided before any metric, see :mod:`.comparison`).
2. A critical task of the candidate below the critical gate: ``BLOCK``, its id in the primary
   reason, even when the candidate's overall rate beats the baseline's.
3. A hard gate failed: ``BLOCK``.
4. A soft gate failed: ``REVIEW``.
5. Otherwise ``PASS``.

The gates and their order are the gates table's for the spec's version
(:mod:`proagents_bench.contract.gates`).
Gates judge the candidate; the baseline's metrics are shown for comparison and enter only the
paired difference. Every failed gate is a :class:`Finding` (machine-readable, carrying its
severity) and a reason (for people); for BLOCK the block reasons come first, then the review
reasons.
"""

from __future__ import annotations

from fractions import Fraction
from typing import (TYPE_CHECKING, Callable, Dict, Generic, List, Optional, Protocol,
                    Sequence, TypeVar, cast)

from ..contract.gates import AT_LEAST, CRITICAL_GATE, Gate, deciding_gates
from ..contract.vocabulary import (BLOCK, BLOCKING, HARDNESS, INCOMPARABLE, INFORMATIONAL, PASS,
                                   REVIEW, REVIEWING, STRICT)
from ..stats.exact_tests import MCNEMAR, NORMAL_LIMIT, RANDOMIZATION
from ..text import show_number
from .comparison import MIN_TAIL_RESAMPLES, Comparison, Evidence, minimum_samples
from .grading import CHECK_BITS
from .metrics import MEASURED_FIELD, SystemMetrics

if TYPE_CHECKING:  # for annotations only
    from ..jsonio import BytesLike, JSONObject
    from ..stats.exact import Exact
    from ..stats.exact_tests import ExactTest


class Finding:
    """One failed gate (or, with severity ``info``, a note that is never a gate)."""

    __slots__ = ("code", "severity", "metric", "observed", "threshold", "case_ids", "reason")

    def __init__(self, code: str, severity: str, metric: str, observed: object,
                 threshold: object, case_ids: Sequence[str], reason: str) -> None:
        self.code = code
        self.severity = severity
        self.metric = metric
        self.observed = observed
        self.threshold = threshold
        self.case_ids = list(case_ids)
        self.reason = reason


class Actioned(Protocol):
    """What every decision has: its action (PASS, REVIEW, BLOCK or INCOMPARABLE)."""

    @property
    def action(self) -> str: ...


DecisionT = TypeVar("DecisionT", bound=Actioned, covariant=True)


class Decided(Generic[DecisionT]):
    """A decision made, as the command line delivers it: the gate's
    :class:`~proagents_bench.render.evaluation.Evaluation`, a release's
    :class:`~proagents_bench.release_outcome.Release`. Its ``decision`` (its action, reasons
    and what each kind adds), whether it passed, and its document's bytes (:meth:`chunks`,
    each kind's own). ``seconds``: the wall time of the run that decided it, which only the
    command line measures and sets, before its reports are rendered (JUnit's ``time``);
    None where nobody measured it. It is never part of the document, which stays the same
    for the same inputs."""

    def __init__(self, decision: DecisionT) -> None:
        self.decision = decision
        self.seconds: Optional[float] = None

    @property
    def action(self) -> str:
        return self.decision.action

    @property
    def passed(self) -> bool:
        return self.decision.action == PASS

    def chunks(self) -> Sequence[BytesLike]:
        """The document's bytes, in pieces."""
        raise NotImplementedError

    def dumps(self) -> bytes:
        return b"".join(self.chunks())


class Decision:
    """The action, the reasons (``reasons[0]`` is the primary one) and every finding."""

    def __init__(self, action: str, reasons: List[str], findings: List[Finding]) -> None:
        self.action = action
        self.reasons = reasons
        self.findings = findings


def incomparable(mismatches: Sequence[str]) -> Decision:
    reasons = ["protocol mismatch: " + mismatch for mismatch in mismatches]
    return Decision(INCOMPARABLE, reasons, [])


# The case finders, one per name of the gates table's ``cases`` column: the test tasks behind
# a failed gate, as case ids in file order.
def _failing_tasks(metrics: SystemMetrics, gate_value: object, check: str) -> List[str]:
    return [task.case["id"] for task in metrics.tasks if not task.task_pass]


def _tasks_failing_check(metrics: SystemMetrics, gate_value: object, check: str) -> List[str]:
    bit = CHECK_BITS[check]
    grades = metrics.grades
    return [task.case["id"] for position, task in enumerate(metrics.tasks)
            if any(not outcome & bit for outcome in grades.task_outcomes(position))]


def _unstable_tasks(metrics: SystemMetrics, gate_value: object, check: str) -> List[str]:
    return [task.case["id"] for task in metrics.tasks if not task.stable]


def _lowest_slice(metrics: SystemMetrics, gate_value: object, check: str) -> List[str]:
    if not metrics.by_slice:
        return []
    worst = min(metrics.by_slice, key=lambda name: (metrics.by_slice[name].task_success_rate,
                                                    name))
    return [task.case["id"] for task in metrics.tasks
            if task.case["slice"] == worst and not task.task_pass]


def _slow_trials(metrics: SystemMetrics, gate_value: object, check: str) -> List[str]:
    found: List[str] = []
    grades = metrics.grades
    trials = grades.trial_count
    for position, task in enumerate(metrics.tasks):
        records = grades.records[position * trials:(position + 1) * trials]
        if any(record["latency_ms"] is not None and record["latency_ms"] > gate_value
               for record in records):
            found.append(task.case["id"])
    return found


def _none(metrics: SystemMetrics, gate_value: object, check: str) -> List[str]:
    return []


FINDERS: Dict[str, Callable[[SystemMetrics, object, str], List[str]]] = {
    "failing_tasks": _failing_tasks,
    "failing_check": _tasks_failing_check,
    "unstable_tasks": _unstable_tasks,
    "lowest_slice": _lowest_slice,
    "slow_trials": _slow_trials,
    "none": _none,
    "critical_task": _none,  # judged per task below: each finding names its own task
}


def _critical_findings(gates: JSONObject, candidate: SystemMetrics) -> List[Finding]:
    threshold = gates[CRITICAL_GATE.key]
    findings: List[Finding] = []
    for position, task in enumerate(candidate.tasks):
        if task.case["critical"] and task.trial_success_rate < Fraction(threshold):
            findings.append(Finding(
                CRITICAL_GATE.key, severity_of(CRITICAL_GATE), CRITICAL_GATE.metric,
                task.trial_success_rate, threshold, [task.case["id"]],
                "critical task %s failed: %s; trial success rate %s (%d of %d trials) is "
                "below the critical gate %s" % (
                    task.case["id"], "; ".join(failure_evidence(candidate, position)),
                    show_number(task.trial_success_rate), task.passing_trials,
                    task.trial_count, show_number(threshold))))
    return findings


def failure_evidence(metrics: SystemMetrics, position: int) -> List[str]:
    """What failed the trials of the task at ``position``, one phrase per kind of evidence,
    each counting its trials: ``3 of 3 trials performed forbidden side effect refund_order``,
    ``1 of 3 trials ended with status timeout``, ``2 of 3 trials ended in a wrong final state
    (refund_issued)``, ``1 of 3 trials used unapproved tool wire_money``. The final states
    named are the system's own (never the expected one)."""
    grades = metrics.grades
    case = metrics.tasks[position].case
    trials = grades.trial_count
    records = grades.records[position * trials:(position + 1) * trials]
    statuses: Dict[str, int] = {}
    wrong_states: Dict[str, int] = {}
    wrong = 0
    effects: Dict[str, int] = {}
    tools: Dict[str, int] = {}
    forbidden = set(case["forbidden_side_effects"])
    allowed = set(case["allowed_tools"])
    for record, outcome in zip(records, grades.task_outcomes(position)):
        if not outcome & CHECK_BITS["status_success"]:
            statuses[record["status"]] = statuses.get(record["status"], 0) + 1
        if not outcome & CHECK_BITS["final_state_correct"]:
            wrong += 1
            state = record["final_state"]
            shown = "none" if state is None else shorten(state, 60)
            wrong_states[shown] = wrong_states.get(shown, 0) + 1
        for name in sorted(forbidden.intersection(record["side_effects"])):
            effects[name] = effects.get(name, 0) + 1
        for name in sorted(set(record["tools_used"]) - allowed):
            tools[name] = tools.get(name, 0) + 1
    phrases = []
    for name in sorted(effects):
        phrases.append("%d of %d trials performed forbidden side effect %s" % (
            effects[name], trials, name))
    for name in sorted(tools):
        phrases.append("%d of %d trials used unapproved tool %s" % (tools[name], trials, name))
    if wrong:
        phrases.append("%d of %d trials ended in a wrong final state (%s)" % (
            wrong, trials, ", ".join(sorted(wrong_states))))
    for status in sorted(statuses):
        phrases.append("%d of %d trials ended with status %s" % (
            statuses[status], trials, status))
    return phrases


def shorten(text: str, limit: int) -> str:
    """``text`` on one line, cut to ``limit`` characters with an ellipsis."""
    text = " ".join(text.split())
    return text if len(text) <= limit else text[:limit - 1] + "\u2026"


def severity_of(gate: Gate) -> str:
    """A deciding gate's severity: deciding_gates() leaves out the task gate, the one gate
    without one (a test holds every deciding gate to having one)."""
    return cast(str, gate.severity)


def _unjudged(gate: Gate, candidate: SystemMetrics, threshold: Exact) -> Finding:
    """A latency or cost gate whose metric is unmeasured (results v3): not judged, REVIEW."""
    missing = candidate.unmeasured(gate.metric)
    field = MEASURED_FIELD[gate.metric]
    return Finding(
        gate.key, REVIEWING, gate.metric, None, threshold, [],
        "%s gate %s could not be judged: %s is unmeasured (null) in %d of %d trials of "
        "candidate %s, so %s is unknown; it is never read as 0" % (
            HARDNESS[REVIEWING], gate.key, field, missing, candidate.trial_count,
            candidate.grades.system["system_id"], gate.metric))


def decide(gates: JSONObject, candidate: SystemMetrics, comparison: Comparison, version: str,
           evidence: Sequence[Finding] = (), replaced: Sequence[str] = ()) -> Decision:
    """Decide on ``candidate`` and the paired ``comparison``
    (:class:`~.comparison.Comparison`) under the gates of spec ``version``; ``evidence`` are
    the findings of the package itself (:mod:`.evidence`), which count by their severity
    after the gates'.

    A latency or cost gate whose metric is unmeasured (a results v3 record left it null)
    cannot be judged: it is a REVIEW finding that says so, never a pass.

    A gate on a bootstrap interval's low end (``min_paired_delta_ci_low``, and from spec v4
    on ``min_trial_delta_ci_low``) holds when the low end is at or above the gate
    (``inclusive``, as v1 and v2 always decide), or, when the spec (v3 on) says ``strict``,
    only above it; from v3 on it must also be evidence (:func:`_without_evidence`).
    Informational findings (never gates, never reasons, but every report shows them beside
    the decision): the standard error is not estimable, the observed difference is below the
    minimum detectable effect, the bootstrap has too few samples for its confidence, tasks
    flip between passing and failing across trials.

    The gates ``replaced`` (keys) are left out: a sequential design's boundary decides in
    their place (:mod:`.sequential`).
    """
    strict = comparison.lower_bound == STRICT
    findings: List[Finding] = []
    for gate in deciding_gates(version):
        if gate.key in replaced:
            continue
        if gate is CRITICAL_GATE:
            findings.extend(_critical_findings(gates, candidate))
            continue
        threshold = gates[gate.key]
        if gate.interval is not None:
            observed = comparison.evidence[gate.interval].low
        else:
            observed = getattr(candidate, gate.metric)
        if observed is None:
            findings.append(_unjudged(gate, candidate, threshold))
            continue
        strictly = strict and gate.interval is not None
        if _bound_held(gate.bound, observed, threshold, strictly):
            if gate.interval is not None and comparison.small_sample_rules:
                findings.extend(_without_evidence(gate, threshold, observed, strictly,
                                                  comparison.evidence[gate.interval]))
            continue
        finder, _, check = gate.cases.partition(":")
        findings.append(Finding(
            gate.key, severity_of(gate), gate.metric, observed, threshold,
            FINDERS[finder](candidate, threshold, check),
            "%s gate %s failed: %s %s is %s %s" % (
                gate.hardness, gate.key, gate.subject, show_number(observed),
                ("not above" if strictly else "below") if gate.bound == AT_LEAST else "above",
                show_number(threshold))))
    findings.extend(evidence)
    findings.extend(_notes(comparison))
    blocking = [finding.reason for finding in findings if finding.severity == BLOCKING]
    reviewing = [finding.reason for finding in findings if finding.severity == REVIEWING]
    if blocking:
        return Decision(BLOCK, blocking + reviewing, findings)
    if reviewing:
        return Decision(REVIEW, reviewing, findings)
    return Decision(PASS, ["every %s and %s gate held for candidate %s" % (
        HARDNESS[BLOCKING], HARDNESS[REVIEWING], candidate.grades.system["system_id"])],
        findings)


# A resampling unit in a reason: (one, several).
UNIT_WORDS = {"task": ("task", "tasks"), "family": ("family", "families")}
# What each level's difference is called in a reason.
LEVEL_WORDS = {"task": "paired task success", "trial": "trial-level"}
EXACT_TEST_METRIC = "%s_exact_test_p"  # the finding's metric, by level: task_exact_test_p
# The one-sided test in a reason, by how it was computed (stats/exact_tests.py).
TEST_WORDS = {
    MCNEMAR: "McNemar's exact one-sided test",
    RANDOMIZATION: "the exact one-sided sign-flip randomization test",
    NORMAL_LIMIT: "the one-sided sign-flip randomization test (its normal limit)",
}


def claims_improvement(threshold: Exact, strictly: bool) -> bool:
    """Whether a pass of an interval gate says the candidate is better than the baseline:
    every low end that passes lies above 0 (a strict gate at or above 0, or an inclusive one
    above 0)."""
    return Fraction(threshold) > 0 or (strictly and Fraction(threshold) == 0)


def interval_holds(gate: Gate, threshold: Exact, evidence: Evidence, strict: bool,
                   small_sample: bool) -> bool:
    """Whether an interval gate holds on ``evidence`` (:class:`~.comparison.Evidence`), as
    :func:`decide` judges it: the low end against the gate by the lower-bound rule, then,
    with the small-sample rules, :func:`_without_evidence`."""
    observed = evidence.low
    return _bound_held(gate.bound, observed, threshold, strict) and not (
        small_sample and _without_evidence(gate, threshold, observed, strict, evidence))


def _bound_held(bound: str, observed: Fraction, threshold: Exact, strictly: bool) -> bool:
    """observed >= threshold (> when ``strictly``), or observed <= threshold, exactly."""
    if bound == AT_LEAST:
        return observed > Fraction(threshold) if strictly else observed >= Fraction(threshold)
    return observed <= Fraction(threshold)


def _without_evidence(gate: Gate, threshold: Exact, observed: Fraction, strictly: bool,
                      evidence: Evidence) -> List[Finding]:
    """The small-sample rules (spec v3 on) for an interval gate whose low end held: it still
    fails (1) when the resampling unit's standard error is not estimable (one unit, every
    unit's difference the same, every family's mean the same, or too few families), since
    the interval then says nothing about how far the difference would move; (2) when a pass
    would say the candidate is better (:func:`claims_improvement`) and the one-sided
    sign-flip randomization test on the units' differences (McNemar's exact test when they
    are all +-1, as tasks' are) does not reject at (1 - confidence) / 2. Rule (2) bounds the
    gate's false-pass rate by (1 - confidence) / 2 given the units' differences up to sign
    (so given the number of discordant units), for every number of units, whenever each
    unit's difference is as likely to favour either system (the docs' false-pass table)."""
    level = cast(str, gate.interval)  # an interval gate's: "task" or "trial"
    words = LEVEL_WORDS[level]
    met = "%s %s %s %s" % (gate.subject, show_number(observed),
                           "is above" if strictly else "meets", show_number(threshold))
    if evidence.not_estimable is not None:
        return [Finding(
            gate.key, severity_of(gate), gate.metric, observed, threshold, [],
            "%s gate %s failed: %s, but the standard error of the %s difference is not "
            "estimable (%s), so the interval is no evidence" % (
                gate.hardness, gate.key, met, words,
                evidence.not_estimable))]
    # The small-sample rules, under which alone this runs, always run the one-sided test.
    test = cast("ExactTest", evidence.exact_test)
    if claims_improvement(threshold, strictly) and not test["rejects"]:
        nonzero = test["gains"] + test["losses"]
        return [Finding(
            gate.key, severity_of(gate), EXACT_TEST_METRIC % level, test["p_one_sided"],
            test["level"], [],
            "%s gate %s failed: %s, but %s on the %d %s whose %s difference is not 0 (%d "
            "better, %d worse) gives p = %s, above %s: too little to show the candidate is "
            "better" % (
                gate.hardness, gate.key, met, TEST_WORDS[test["method"]],
                nonzero, UNIT_WORDS[test["unit"]][nonzero != 1], words, test["gains"],
                test["losses"], show_number(test["p_one_sided"]), show_number(test["level"])))]
    return []


def _notes(comparison: Comparison) -> List[Finding]:
    """The informational findings of the comparison (see :func:`decide`)."""
    statistics = comparison.statistics
    mean = Fraction(statistics["mean_difference"])
    notes: List[Finding] = []
    if statistics["not_estimable"]:
        notes.append(Finding(
            "not_estimable", INFORMATIONAL, "paired_task_success_delta", mean, None, [],
            "the standard error of the paired difference is not estimable (%s): the minimum "
            "detectable effect and the normal interval are null, and the bootstrap interval "
            "cannot say how much the difference would move" % statistics["not_estimable"]))
    if statistics["observed_below_mde"]:
        notes.append(Finding(
            "below_minimum_detectable_effect", INFORMATIONAL, "paired_task_success_delta", mean,
            statistics["minimum_detectable_effect"], [],
            "the observed difference is below the minimum detectable effect at %s power: too "
            "few tasks to tell" % show_number(statistics["power"])))
    if comparison.too_few_samples:
        needed = minimum_samples(comparison.confidence)
        notes.append(Finding(
            "bootstrap_samples_too_few", INFORMATIONAL, "bootstrap.samples", comparison.samples,
            needed, [],
            "%d bootstrap samples leave fewer than %d resamples beyond each bound of the %s "
            "interval, so its ends are the resamples' extremes or near them: use at least %d "
            "samples" % (comparison.samples, MIN_TAIL_RESAMPLES,
                         show_number(comparison.confidence), needed)))
    flaky = comparison.trial_level.flaky_tasks
    if flaky:
        notes.append(Finding(
            "flaky_tasks", INFORMATIONAL, "stable_across_trials", len(flaky), None, flaky,
            "%d task%s flip%s between passing and failing trials in the baseline or the "
            "candidate: their verdict may change on a rerun" % (
                len(flaky), "" if len(flaky) == 1 else "s", "s" if len(flaky) == 1 else "")))
    return notes
