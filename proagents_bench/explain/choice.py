"""Which tasks an explanation explains, what each is called, and which two trials of each it
sets side by side: each a rule stated here once (:data:`TASK_RULE`, :data:`TRIAL_RULE`), in
the words the explanation repeats.

A task is explained when the candidate's verdict on it is worse than the baseline's (it fails
the task gate the baseline passes), when a blocking or reviewing finding of the decision
names it (a critical task that failed, a task behind a failed gate), or when any candidate
trial of it performed a forbidden side effect or called a tool outside the allowed set. A
task whose trials of one system disagree is called ``flaky`` before anything else: a
difference there may be chance, not a regression.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, List, Optional, Sequence, Tuple

from ..contract.explanation import VERDICTS
from ..contract.vocabulary import BLOCKING, CHECKS, INFORMATIONAL
from ..evaluation.grading import ALL_CHECKS, CHECK_BITS, SIDE_EFFECTS_SAFE, TOOLS_ALLOWED

if TYPE_CHECKING:  # for annotations only
    from ..evaluation.decision import Decision
    from ..evaluation.metrics import SystemMetrics
    from ..jsonio import JSONObject

TASK_RULE = ("a task is explained when the candidate fails the task gate and the baseline "
             "passes it, when a failed gate's finding names it (a critical task that failed), "
             "or when a candidate trial of it performed a forbidden side effect or called a "
             "tool outside the allowed set; a task whose trials of one system disagree is "
             "called flaky first")
TRIAL_RULE = ("the candidate's trial is its first (lowest trial id) among those that failed "
              "the gravest check (forbidden side effects, then tools outside the allowed set, "
              "then the final state, then the status); the baseline's is its first passing "
              "trial, else its trial of the same id")
# The checks from the gravest, as the trial rule orders them.
GRAVEST_FIRST = ("side_effects_safe", "tools_allowed", "final_state_correct", "status_success")
if sorted(GRAVEST_FIRST) != sorted(CHECKS):
    raise RuntimeError("the trial rule must order every check")

# What a task is called, as the explanation's contract names it.
REGRESSION, FLAKY, FAILS_IN_BOTH, IMPROVEMENT, PASSES_IN_BOTH = VERDICTS


class Chosen:
    """One task explained: its ``position`` among the test tasks, its case, why it is
    explained (``why``: sentences; ``reasons``: the indexes of the decision's reasons that
    name it), its ``verdict`` (one of :data:`VERDICTS`), each system's passing trials, and the
    trial ids compared (``baseline_trial``, ``candidate_trial``)."""

    def __init__(self, position: int, case: JSONObject, why: List[str], reasons: List[int],
                 verdict: str, passing: Tuple[int, int], trials: Tuple[int, int]) -> None:
        self.position = position
        self.case = case
        self.why = why
        self.reasons = reasons
        self.verdict = verdict
        self.passing = passing
        self.baseline_trial, self.candidate_trial = trials


def chosen_tasks(baseline: SystemMetrics, candidate: SystemMetrics, decision: Decision,
                 asked: Sequence[str] = ()) -> List[Chosen]:
    """The tasks to explain, in the cases file's order (see the module docstring), and the
    test tasks ``asked`` for by their ids (``explain --case``: one whose candidate passes,
    to see its path beside the baseline's)."""
    deciding = [finding for finding in decision.findings
                if finding.severity != INFORMATIONAL]
    chosen = []
    trials = candidate.grades.trial_count
    for position, (theirs, mine) in enumerate(zip(baseline.tasks, candidate.tasks)):
        outcomes = candidate.grades.task_outcomes(position)
        why = []
        if theirs.task_pass and not mine.task_pass:
            why.append("the candidate fails the task (%d of %d trials pass) and the baseline "
                       "passes it (%d of %d)" % (mine.passing_trials, trials,
                                                 theirs.passing_trials, trials))
        named = [finding for finding in deciding if mine.case["id"] in finding.case_ids]
        why.extend("the %s gate %s names it" % ("hard" if finding.severity == BLOCKING else
                                                "soft", finding.code) for finding in named)
        for bit, words in ((SIDE_EFFECTS_SAFE, "performed a forbidden side effect"),
                           (TOOLS_ALLOWED, "called a tool outside the allowed set")):
            broke = sum(1 for outcome in outcomes if not outcome & bit)
            if broke:
                why.append("%d of %d candidate trials %s" % (broke, trials, words))
        if mine.case["id"] in asked:
            why.append("asked for")
        if not why:
            continue
        reasons = sorted({decision.reasons.index(finding.reason) for finding in named
                          if finding.reason in decision.reasons})
        chosen.append(Chosen(position, mine.case, why, reasons, _verdict(
            theirs.passing_trials, mine.passing_trials, trials),
            (theirs.passing_trials, mine.passing_trials),
            _trials(baseline.grades.task_outcomes(position), outcomes)))
    return chosen


def _verdict(baseline_passing: int, candidate_passing: int, trials: int) -> str:
    if 0 < baseline_passing < trials or 0 < candidate_passing < trials:
        return FLAKY
    return {(True, False): REGRESSION, (False, False): FAILS_IN_BOTH,
            (False, True): IMPROVEMENT, (True, True): PASSES_IN_BOTH}[
                (baseline_passing == trials, candidate_passing == trials)]


def _trials(baseline: bytearray, candidate: bytearray) -> Tuple[int, int]:
    """The trial ids compared (:data:`TRIAL_RULE`), each from 1."""
    mine = first_failing(candidate)
    theirs = next((index for index, outcome in enumerate(baseline)
                   if outcome == ALL_CHECKS), None)
    return (theirs + 1 if theirs is not None else mine, mine)


def first_failing(outcomes: bytearray) -> int:
    """The trial id (from 1) of the first trial failing the gravest check any trial fails;
    the first trial when none fails."""
    for check in GRAVEST_FIRST:
        bit = CHECK_BITS[check]
        found: Optional[int] = next((index for index, outcome in enumerate(outcomes)
                                     if not outcome & bit), None)
        if found is not None:
            return found + 1
    return 1
