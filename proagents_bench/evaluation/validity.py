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
- Under every older spec version, and within the bounds, the shares are reported (a
  finding naming the counts and the tasks, never silently counted for or against either
  system), and the trials remain recorded failures.

Packages of results v1 to v5 record no origin: they decide exactly as before.
"""

from __future__ import annotations

from fractions import Fraction
from typing import TYPE_CHECKING, List, Optional, Sequence

from ..contract.origins import INFRASTRUCTURE

if TYPE_CHECKING:  # for annotations only
    from ..jsonio import JSONObject

# The spec v6 object and its two bounds.
VALIDITY = "validity"
MAX_RATE = "max_infrastructure_trial_rate"
MAX_GAP = "max_infrastructure_rate_gap"
# The tasks a reason names before it says "and N more".
LISTED_TASKS = 5


class InfrastructureShare:
    """One system's test trials lost to the infrastructure: how many of how many, and the
    tasks that lost any (in the cases file's order)."""

    def __init__(self, role: str, system_id: str, trials: int, lost: int,
                 tasks: List[str]) -> None:
        self.role = role
        self.system_id = system_id
        self.trials = trials
        self.lost = lost
        self.tasks = tasks

    @property
    def share(self) -> Fraction:
        return Fraction(self.lost, self.trials) if self.trials else Fraction(0)

    def said(self) -> str:
        """``9 of 10 trials (0.9) of candidate X (tasks a, b and 7 more)``."""
        return "%d of %d trials (%s) of %s %s%s" % (
            self.lost, self.trials, _decimal(self.share), self.role, self.system_id,
            " (tasks %s)" % named_tasks(self.tasks) if self.tasks else "")


def named_tasks(tasks: Sequence[str]) -> str:
    shown = ", ".join(tasks[:LISTED_TASKS])
    more = len(tasks) - LISTED_TASKS
    return shown + (" and %d more" % more if more > 0 else "")


def _decimal(value: Fraction) -> str:
    """A share as a short decimal (exact when it has at most six places)."""
    text = "%.6f" % float(value)
    return text.rstrip("0").rstrip(".") if "." in text else text


def infrastructure_share(role: str, system: JSONObject,
                         ordered_records: Sequence[JSONObject]) -> InfrastructureShare:
    """``system``'s share of test trials lost to the infrastructure (``ordered_records``: its
    test records in the canonical order; a record without ``failure_origin`` lost none)."""
    lost = 0
    tasks: List[str] = []
    for record in ordered_records:
        if record.get("failure_origin") == INFRASTRUCTURE:
            lost += 1
            if not tasks or tasks[-1] != record["case_id"]:
                tasks.append(record["case_id"])
    return InfrastructureShare(role, system["system_id"], len(ordered_records), lost, tasks)


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


def share_report(shares: Sequence[InfrastructureShare]) -> Optional[str]:
    """The finding's words when some trials were lost to the infrastructure (None: none):
    the shares, and that they stay recorded failures."""
    if not any(share.lost for share in shares):
        return None
    return ("trials lost to the infrastructure (failure origin, not the agent's): %s; each "
            "stays a failed trial, so the shares weigh against the systems that lost them" % (
                "; ".join(share.said() for share in shares)))


def document(shares: Sequence[InfrastructureShare]) -> JSONObject:
    """The decision document's ``infrastructure`` member: per system its counts and tasks."""
    return {share.role: {"system_id": share.system_id, "trials": share.trials,
                         "infrastructure_failures": share.lost,
                         "infrastructure_share": float(share.share), "tasks": share.tasks}
            for share in shares}
