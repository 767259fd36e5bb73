"""Is the run evidence? The trials each system lost to its infrastructure, and the spec's
bounds on them.

A results v6 record says whose its failure is (``failure_origin``: ``agent``,
``infrastructure``, or null; the importers' rows are ``contract/origins.py``). A trial the
infrastructure lost did not measure the agent. It stays a failed trial (the v1 grading: its
status is never ``success``), so the origin can never turn a failure into a pass; what it
changes is what the decision may conclude:

- Under a spec v6, whose ``validity`` object bounds the share of each system's test trials
  lost to the infrastructure (``max_infrastructure_trial_rate``) and the gap between the two
  systems' shares (``max_infrastructure_rate_gap``), a run beyond either bound is
  ``INCOMPARABLE``: it is not evidence of either system. It is decided before any metric, as
  a protocol mismatch is, and its reasons give the counts and the tasks.
- Within the bounds, and with no bounds (``validity`` null, or a spec before v6 over results
  v6), the shares are reported: a finding per system naming the counts and the tasks, never
  silently counted for or against either system (a baseline's is REVIEW when nothing bounds
  it: its lost trials favour the candidate), and the trials remain recorded failures.
- Bounds over results before v6, which record no origin, cannot be judged: a REVIEW that
  says so, never read as no trial lost.

The outcome checks. Under a spec v6 the gate also reports, as notes naming their tasks, the
outcome checks a PASS depends on (:mod:`.outcome_checks`).

The floor. A spec v6's ``validity.floor`` is the task success rate of a do-nothing agent on
the test tasks (``health --do-nothing`` measures it): every decision under it says, beside
each system's raw task success rate, how far above that floor it is (an informational
finding, never a gate), since a score a do-nothing agent reaches measures nothing.

Packages of results v1 to v5 record no origin, and specs v1 to v5 bound nothing: under both
the gate decides exactly as before (the pipeline never makes a :class:`JudgedRun`, nor loads
this module).
"""

from __future__ import annotations

from fractions import Fraction
from typing import TYPE_CHECKING, List, Optional, Sequence

from ..contract.origins import AGENT, INFRASTRUCTURE
from ..contract.vocabulary import (BASELINE_ROLE, CANDIDATE_ROLE, INCOMPARABLE, INFORMATIONAL,
                                   INFRASTRUCTURE_NOT_MEASURED, ORIGIN_RESULTS, REVIEWING,
                                   SCORE_ABOVE_FLOOR, TRIALS_LOST_TO_INFRASTRUCTURE)
from .decision import Decision, Finding
from .outcome_checks import gate_findings, named_tasks

if TYPE_CHECKING:  # for annotations only
    from ..jsonio import JSONObject
    from .metrics import SystemMetrics

# The spec v6 object and its two bounds.
VALIDITY = "validity"
MAX_RATE = "max_infrastructure_trial_rate"
MAX_GAP = "max_infrastructure_rate_gap"
FLOOR = "floor"
# The record field that says whose a failure is (results v6).
FAILURE_ORIGIN = "failure_origin"


class InfrastructureShare:
    """One system's test trials lost to the infrastructure: how many of how many, and the
    tasks that lost any (in the cases file's order); beside them, how many failed by the
    agent's own doing as the harness says (``agent``: its error, timeout, limit, empty
    patch), which stay the agent's failures."""

    def __init__(self, role: str, system_id: str, trials: int, lost: int,
                 tasks: List[str], agent: int = 0) -> None:
        self.role = role
        self.system_id = system_id
        self.trials = trials
        self.lost = lost
        self.tasks = tasks
        self.agent = agent

    @property
    def share(self) -> Fraction:
        return Fraction(self.lost, self.trials) if self.trials else Fraction(0)

    def said(self) -> str:
        """``9 of 10 trials (0.9) of candidate X (tasks a, b and 7 more)``."""
        return "%d of %d trials (%s) of %s %s%s" % (
            self.lost, self.trials, _decimal(self.share), self.role, self.system_id,
            " (tasks %s)" % named_tasks(self.tasks) if self.tasks else "")


def _decimal(value: Fraction) -> str:
    """A share as a short decimal (exact when it has at most six places)."""
    text = "%.6f" % float(value)
    return text.rstrip("0").rstrip(".") if "." in text else text


def infrastructure_share(role: str, system: JSONObject,
                         ordered_records: Sequence[JSONObject]) -> InfrastructureShare:
    """``system``'s share of test trials lost to the infrastructure (``ordered_records``: its
    test records in the canonical order; a record without ``failure_origin`` lost none)."""
    lost = agent = 0
    tasks: List[str] = []
    for record in ordered_records:
        origin = record.get(FAILURE_ORIGIN)
        if origin == INFRASTRUCTURE:
            lost += 1
            if not tasks or tasks[-1] != record["case_id"]:
                tasks.append(record["case_id"])
        elif origin == AGENT:
            agent += 1
    return InfrastructureShare(role, system["system_id"], len(ordered_records), lost, tasks,
                               agent)


def bounds_exceeded(spec: JSONObject, shares: Sequence[InfrastructureShare]) -> List[str]:
    """The reasons a spec's validity bounds make the run not evidence (none: within them, or
    a spec without bounds), each with the counts and the tasks."""
    bounds: Optional[JSONObject] = spec.get(VALIDITY)
    if bounds is None:
        return []
    reasons = []
    most = Fraction(bounds[MAX_RATE])
    for share in shares:
        if share.share > most:
            reasons.append("the run is not evidence: the infrastructure failed %s, above %s "
                           "%s" % (share.said(), MAX_RATE, bounds[MAX_RATE]))
    gap = abs(shares[0].share - shares[1].share)
    if gap > Fraction(bounds[MAX_GAP]):
        reasons.append("the run is not evidence: the infrastructure failed %s and %s, a gap "
                       "of %s above %s %s" % (shares[0].said(), shares[1].said(),
                                             _decimal(gap), MAX_GAP, bounds[MAX_GAP]))
    return reasons


def document(shares: Sequence[InfrastructureShare]) -> JSONObject:
    """The decision document's ``infrastructure`` member: per system its counts (the
    infrastructure's failures and the agent's own) and the tasks that lost trials."""
    return {share.role: {"system_id": share.system_id, "trials": share.trials,
                         "infrastructure_failures": share.lost,
                         "agent_failures": share.agent,
                         "infrastructure_share": float(share.share), "tasks": share.tasks}
            for share in shares}


class JudgedRun:
    """What the gate makes of the failure origins and the validity bounds of one decision:
    each system's :class:`InfrastructureShare` on the test tasks decided, the reasons the run
    is not evidence (none: it is), the findings that report the shares and the floor, and
    the decision document's ``validity`` member."""

    def __init__(self, spec: JSONObject, results_version: str, baseline: JSONObject,
                 candidate: JSONObject, baseline_records: Sequence[JSONObject],
                 candidate_records: Sequence[JSONObject]) -> None:
        self.bounds: Optional[JSONObject] = spec.get(VALIDITY)
        self.audited = VALIDITY in spec  # a spec v6: its outcome checks are reported
        # Only a results v6 record says whose its failure is: before it the shares are not
        # measured (never read as none lost).
        self.results_version = results_version
        self.measured = results_version in ORIGIN_RESULTS
        self.shares = [infrastructure_share(BASELINE_ROLE, baseline, baseline_records),
                       infrastructure_share(CANDIDATE_ROLE, candidate, candidate_records)]
        self.reasons = bounds_exceeded(spec, self.shares) if self.measured else []

    @property
    def floor(self) -> Optional[Fraction]:
        if self.bounds is None or self.bounds.get(FLOOR) is None:
            return None
        return Fraction(self.bounds[FLOOR])

    def decision(self) -> Decision:
        """The decision of a run that is not evidence: INCOMPARABLE, its reasons the bounds
        exceeded, each with the counts and the tasks."""
        if not self.reasons:
            raise ValueError("a run within its validity bounds is decided by its gates")
        return Decision(INCOMPARABLE, list(self.reasons), [])

    def comparison(self) -> JSONObject:
        """The decision document's ``comparison`` of a run that is not evidence: no protocol
        mismatch, and the bounds it exceeded."""
        return {"protocol_mismatches": [], "not_evidence": list(self.reasons)}

    def findings(self, baseline: SystemMetrics, candidate: SystemMetrics) -> List[Finding]:
        """The findings of a run that is evidence: the shares, the floor, then (under a spec
        v6) the outcome checks a PASS depends on (:mod:`.outcome_checks`)."""
        return self.share_findings() + self.floor_findings(baseline, candidate) + (
            gate_findings([baseline.grades, candidate.grades]) if self.audited else [])

    def share_findings(self) -> List[Finding]:
        """A finding per system that lost trials to its infrastructure. Within a spec's bounds
        (which the maintainer chose) they are notes; without bounds a baseline's lost trials
        lower the baseline and so favour the candidate in the paired difference: REVIEW, as a
        baseline's trials recorded unknown are (the candidate's can only lower it: a note).
        Bounds over results that record no failure origin cannot be judged: REVIEW, saying
        so, as a gate whose metric is unmeasured is."""
        if not self.measured:
            if self.bounds is None:
                return []
            return [Finding(
                INFRASTRUCTURE_NOT_MEASURED, REVIEWING, "infrastructure_share", None,
                self.bounds[MAX_RATE], [],
                "the spec's validity bounds could not be judged: %s records no failure "
                "origin, so the trials each system lost to its infrastructure are unmeasured "
                "(import --failure-origins writes them)" % self.results_version)]
        findings = []
        for share in self.shares:
            if not share.lost:
                continue
            severity = (REVIEWING if self.bounds is None and share.role == BASELINE_ROLE
                        else INFORMATIONAL)
            findings.append(Finding(
                TRIALS_LOST_TO_INFRASTRUCTURE, severity, "infrastructure_share", share.share,
                None if self.bounds is None else self.bounds[MAX_RATE], share.tasks,
                "the harness says the infrastructure, not the agent, failed %s; each stays a "
                "failed trial%s" % (share.said(), (
                    ", and failed baseline trials favour the candidate in the paired "
                    "difference" if severity == REVIEWING else
                    " (within the spec's validity bounds)" if self.bounds is not None else
                    ""))))
        return findings

    def floor_findings(self, baseline: SystemMetrics,
                       candidate: SystemMetrics) -> List[Finding]:
        """The note that says each system's task success rate above the spec's do-nothing
        floor (none without a floor)."""
        floor = self.floor
        if floor is None:
            return []
        said = []
        for role, metrics in ((CANDIDATE_ROLE, candidate), (BASELINE_ROLE, baseline)):
            rate = metrics.primary_task_success_rate
            said.append("%s %s %s, %s the floor" % (
                role, metrics.grades.system["system_id"], _decimal(rate),
                ("%s above" % _decimal(rate - floor)) if rate >= floor else
                ("%s below" % _decimal(floor - rate))))
        return [Finding(SCORE_ABOVE_FLOOR, INFORMATIONAL, "primary_task_success_rate",
                        candidate.primary_task_success_rate - floor, self.bounds[FLOOR]
                        if self.bounds is not None else None, [],
                        "task success rate above the do-nothing floor %s (what an agent "
                        "that does nothing passes): %s" % (_decimal(floor), "; ".join(said)))]

    def document(self, baseline: Optional[SystemMetrics] = None,
                 candidate: Optional[SystemMetrics] = None) -> JSONObject:
        """The decision document's ``validity`` member: the bounds, whether the run is
        evidence and why not, each system's infrastructure share, and each system's task
        success rate above the floor (null without a floor or without metrics)."""
        floor = self.floor
        above: Optional[JSONObject] = None
        if floor is not None and baseline is not None and candidate is not None:
            above = {BASELINE_ROLE: float(baseline.primary_task_success_rate - floor),
                     CANDIDATE_ROLE: float(candidate.primary_task_success_rate - floor)}
        return {"bounds": None if self.bounds is None else {
                    MAX_RATE: float(self.bounds[MAX_RATE]),
                    MAX_GAP: float(self.bounds[MAX_GAP]),
                    FLOOR: None if floor is None else float(floor)},
                "evidence": not self.reasons, "not_evidence": list(self.reasons),
                "infrastructure": document(self.shares) if self.measured else None,
                "above_floor": above}
