"""A look of a sequential design judged (spec v5, :mod:`proagents_bench.contract.sequential`):
the paired discordant units in the design's frozen order, where their path stands against the
boundary, and what that makes of the gate's decision.

**The path.** A unit is a test task judged by its verdict (``task``) or a pair of trials of
one task with the same trial id, one of each system (``trial``); it is discordant when
exactly one system passes it, a win when that is the candidate. The units enter in the order
(the look that added them, pool position, trial id): look j adds the tasks after the first
``looks[j-1].tasks`` of the pool with trials 1..``looks[j].trials``, and, at the trial level,
trials ``looks[j-1].trials + 1``..``looks[j].trials`` of the tasks before them (those first).
At the trial level a baseline trial of status ``unknown`` counts as a success and the
candidate's as a failure (the worst case for the candidate: it can only make a PASS rarer).

**The decision** (:meth:`LookJudgment.decide`): the boundary replaces the interval gate of the
design's level (unless its margin is above 0: then that gate stays a condition of a PASS); the
first boundary the path crosses decides, at whatever look the unit was run
(:func:`proagents_bench.stats.sequential_looks.path_state`). A PASS needs the pass boundary
crossed (or, at the last look, its closing threshold reached) and every other gate held; a
BLOCK stays a BLOCK and closes the design; a path still between the boundaries before the last
look is a REVIEW whose first reason names the next batch exactly (exit 1: only a PASS may exit
0); the futility boundary, or the last look without a decision, is a REVIEW that closes it.
"""

from __future__ import annotations

from fractions import Fraction
from typing import TYPE_CHECKING, List, NamedTuple, Optional, Tuple

from ..contract.ledger import BLOCKED, CONTINUE, EXHAUSTED, FUTILE, PASSED
from ..contract.sequential import (NAMED_TASKS, UNIT_WORDS, boundary_sha256, named_tasks,
                                   number_span, pool_order)
from ..contract.vocabulary import (BLOCK, INFORMATIONAL, PASS, REVIEW, REVIEWING, TASK_UNIT,
                                   UNKNOWN)
from ..stats.discordant_paths import HALF, ever_crossing
from ..stats.sequential_looks import FUTILITY, PASS as PATH_PASS, PathState, path_state
from ..text import show_number
from .decision import Decision, Finding
from .grading import ALL_CHECKS

if TYPE_CHECKING:  # for annotations only
    from ..contract.sequential import SequentialDesign
    from ..jsonio import JSONObject
    from .metrics import SystemMetrics

# The findings a sequential look adds (their codes), by the design's state after it.
STATE_FINDINGS = {CONTINUE: "sequential_continue", FUTILE: "sequential_futility",
                  EXHAUSTED: "sequential_exhausted"}
ESTIMATES_NOTE = "sequential_estimates"
# The limitation a trial-level design always states.
TRIAL_NULL = ("The sequential design's unit is the trial pair: its false pass is exact only "
              "if trial pairs are exchangeable pair by pair (each task's trials independent "
              "draws with one success chance per system), a narrower null than the fixed "
              "trial-level rule's; trials that are correlated within a task differently in "
              "the two systems break it.")
POSITIVE_MARGIN = ("The sequential design's margin is above 0: its boundary shows the "
                   "candidate better; better by at least the margin is the bootstrap "
                   "interval's approximation, as in a fixed design.")


class LookPoint(NamedTuple):
    """The path at the end of a look: its number (1-based), the units run up to it, the
    discordant ones and the candidate's wins among them."""
    look: int
    units: int
    discordant: int
    wins: int


class Path(NamedTuple):
    """The discordant units in frozen order (1: the candidate's win, 0: the baseline's) and
    the path at the end of every look up to this one."""
    outcomes: List[int]
    points: List[LookPoint]


def discordant_path(design: SequentialDesign, look: int, baseline: SystemMetrics,
                    candidate: SystemMetrics) -> Path:
    """The path of look ``look`` (0-based) from the graded systems (their tasks: the look's,
    in file order), in the design's frozen order (the module docstring)."""
    tasks = candidate.tasks
    position = {task.case["id"]: index for index, task in enumerate(tasks)}
    ordered = [position[case_id] for case_id in pool_order(list(position),
                                                           design.block["order_seed"])]
    if design.unit == TASK_UNIT:
        def unit(index: int, trial: int) -> Tuple[bool, bool]:
            return baseline.tasks[index].task_pass, candidate.tasks[index].task_pass
    else:
        trials = candidate.grades.trial_count
        first, second = baseline.grades, candidate.grades

        def unit(index: int, trial: int) -> Tuple[bool, bool]:
            slot = index * trials + trial - 1
            return (first.outcomes[slot] == ALL_CHECKS or first.records[slot]["status"] ==
                    UNKNOWN, second.outcomes[slot] == ALL_CHECKS)

    outcomes: List[int] = []
    points: List[LookPoint] = []
    before_tasks = before_trials = units = 0
    for number, (look_tasks, look_trials) in enumerate(design.looks[:look + 1], 1):
        added: List[Tuple[int, int]] = []
        if design.unit != TASK_UNIT:
            added += [(index, trial) for index in ordered[:before_tasks]
                      for trial in range(before_trials + 1, look_trials + 1)]
        added += [(index, trial) for index in ordered[before_tasks:look_tasks]
                  for trial in ((1,) if design.unit == TASK_UNIT
                                else range(1, look_trials + 1))]
        for index, trial in added:
            base, cand = unit(index, trial)
            if base != cand:
                outcomes.append(1 if cand else 0)
        units += len(added)
        points.append(LookPoint(number, units, len(outcomes), sum(outcomes)))
        before_tasks, before_trials = look_tasks, look_trials
    return Path(outcomes, points)


def _ordinal(number: int) -> str:
    suffix = "th" if 10 <= number % 100 <= 20 else {1: "st", 2: "nd", 3: "rd"}.get(
        number % 10, "th")
    return "%d%s" % (number, suffix)


def _percent(value: Fraction, places: int = 4) -> str:
    """A chance as a percentage: ``2.4843%``; a round one without its zeros (``2.5%``)."""
    text = "%.*f" % (places, 100 * value)
    if Fraction(text) == 100 * value:
        text = text.rstrip("0").rstrip(".")
    return text + "%"


class LookJudgment:
    """Look ``look`` (0-based) of ``design``, its ``path`` walked against the boundary
    (``pool``: the frozen pool's case ids, in order): :meth:`decide` makes the gate's
    decision the design's, :meth:`document` the decision document's ``sequential`` object;
    ``state`` is the design's state after the look (set by :meth:`decide`)."""

    def __init__(self, design: SequentialDesign, look: int, path: Path,
                 pool: List[str]) -> None:
        self.design = design
        self.look = look
        self.path = path
        self.pool = pool
        self.boundary = design.boundary()
        self.final = look == len(design.looks) - 1
        self.where: PathState = path_state(self.boundary, path.outcomes, final=self.final)
        self.false_pass = ever_crossing(self.boundary.passing, design.theta0)
        self.state = CONTINUE
        where = self.where
        # The first boundary crossed decides; at the last look, the closing threshold.
        self.crossed_pass = where.state == PATH_PASS and where.wins >= self.boundary.passing[
            where.discordant]
        self.crossed_futility = where.state == FUTILITY and where.wins <= self.boundary.futile[
            where.discordant]

    @property
    def closed(self) -> bool:
        return self.state != CONTINUE

    def earlier_looks(self) -> List[Tuple[Tuple[int, int, int], bool]]:
        """Each look before this one as its judgment recorded it: (units, discordant, wins)
        on the path up to its decision, and whether the path crossed a boundary there (an
        earlier look is never the design's last)."""
        found = []
        for point in self.path.points[:-1]:
            where = path_state(self.boundary, self.path.outcomes[:point.discordant])
            found.append(((point.units, where.discordant, where.wins),
                          where.state in (PATH_PASS, FUTILITY)))
        return found

    # -- words ---------------------------------------------------------------------------

    def _units(self, count: int) -> str:
        one, several = UNIT_WORDS[self.design.unit]
        return "%d discordant %s" % (count, one if count == 1 else several)

    def _look_words(self) -> str:
        return "look %d of %d" % (self.look + 1, len(self.design.looks))

    def _claim(self) -> str:
        if self.design.theta0 == HALF:
            return "better than the baseline"
        return "no worse than the baseline by more than %s" % show_number(-self.design.margin)

    def _guarantee(self) -> str:
        return ("the design's exact false pass is %s, at most %s at any stopping it allows" %
                (_percent(self.false_pass), _percent(self.design.alpha)))

    def _crossing(self, boundary_name: str) -> str:
        where = self.where
        one = UNIT_WORDS[self.design.unit][0]
        run_by = next(point.look for point in self.path.points
                      if point.discordant >= (where.decided_at or 0))
        earlier = (" (a unit of look %d: the design decided there)" % run_by
                   if run_by != self.look + 1 else "")
        threshold = where.pass_at if boundary_name == "pass" else where.futile_at
        return "at the %s discordant %s%s the candidate had won %d (the %s boundary there " \
               "is %d)" % (_ordinal(where.discordant), one, earlier, where.wins, boundary_name,
                           threshold)

    def _standing(self) -> str:
        where = self.where
        one = UNIT_WORDS[self.design.unit][0]
        first = next(n for n, threshold in enumerate(self.boundary.passing) if n and
                     threshold <= n)
        if where.pass_at > where.discordant:
            passes = "no pass is possible yet (the earliest is %d wins of %d discordant %s)" % (
                self.boundary.passing[first], first, UNIT_WORDS[self.design.unit][first > 1])
        else:
            passes = "it passes at %d wins or more of %d" % (where.pass_at, where.discordant)
        stops = ("%s stops for futility at %d or fewer" % (
            "; it" if where.pass_at > where.discordant else " and", where.futile_at)
            if where.futile_at >= 0 else "")
        if not where.discordant:
            return "no discordant %s yet; %s" % (one, passes)
        return "%s, %d won by the candidate and %d by the baseline; %s%s" % (
            self._units(where.discordant), where.wins, where.discordant - where.wins, passes,
            stops)

    def next_batch(self) -> Optional[JSONObject]:
        """What the next look adds, exactly; None once the design is closed."""
        if self.closed or self.final:
            return None
        (tasks, trials), (following_tasks, following_trials) = (
            self.design.looks[self.look], self.design.looks[self.look + 1])
        new_tasks = following_tasks - tasks
        more_trials = following_trials - trials
        if self.design.unit == TASK_UNIT:
            units = new_tasks
        else:
            units = tasks * more_trials + new_tasks * following_trials
        return {
            "look": self.look + 2,
            "tasks": following_tasks,
            "trials": following_trials,
            "new_tasks": ({"first": tasks + 1, "last": following_tasks,
                           "case_ids": self.pool[tasks:following_tasks]}
                          if new_tasks else None),
            "new_trials": ({"first": trials + 1, "last": following_trials,
                            "tasks": tasks} if more_trials and tasks else None),
            "units": units,
        }

    def _next_words(self, batch: JSONObject) -> str:
        parts = []
        if batch["new_trials"] is not None:
            trials = batch["new_trials"]
            parts.append("trial%s %s of tasks 1-%d of the frozen pool" % (
                "s" if trials["last"] > trials["first"] else "",
                number_span(trials["first"], trials["last"]), trials["tasks"]))
        if batch["new_tasks"] is not None:
            tasks = batch["new_tasks"]
            ids = tasks["case_ids"]
            parts.append("tasks %s of the frozen pool (%s%s), each with trials 1-%d" % (
                number_span(tasks["first"], tasks["last"]), named_tasks(ids),
                "; sequential.next_batch lists them all" if len(ids) > NAMED_TASKS else "",
                batch["trials"]))
        return ("Next batch, look %d: %s, for both systems; then run the gate again with the "
                "same --ledger" % (batch["look"], " and ".join(parts)))

    # -- the decision --------------------------------------------------------------------

    def decide(self, decision: Decision) -> Decision:
        """The gate's ``decision`` (its interval gate of the design's level left out, see
        :meth:`SequentialDesign.replaced_gates`) made the design's; sets :attr:`state`."""
        findings = list(decision.findings)
        findings.append(self._estimates_note())
        if decision.action == BLOCK:
            self.state = BLOCKED
            return Decision(BLOCK, decision.reasons + [
                "the sequential design is closed at %s by the block above (its path: %s, "
                "%d won by the candidate)" % (self._look_words(),
                                              self._units(self.where.discordant),
                                              self.where.wins)], findings)
        if self.where.state == PATH_PASS:
            self.state = PASSED
            if decision.action == PASS:
                return Decision(PASS, [self._passed()] + decision.reasons, findings)
            return Decision(REVIEW, [
                "sequential design: the pass boundary was crossed at %s (%s), but another "
                "gate asks for review (below); the design is closed" % (
                    self._look_words(), self._crossing_or_closing())] + decision.reasons,
                findings)
        if self.crossed_futility:
            self.state = FUTILE
            reason = ("sequential design stopped for futility at %s: %s: no evidence it wins "
                      "the planned share %s of the %s where the systems differ; the design "
                      "is closed" % (self._look_words(), self._crossing("futility"),
                                     show_number(self.design.statistics.theta1),
                                     UNIT_WORDS[self.design.unit][1]))
        elif self.final:
            self.state = EXHAUSTED
            where = self.where
            needs = ("a PASS there needs %d wins and the candidate had %d" % (
                where.pass_at, where.wins) if where.pass_at <= where.discordant else
                "too few for any PASS there")
            reason = ("sequential design reached its last look (%s) undecided: %s, fewer "
                      "than its largest sample %d; %s: not shown %s; the design is closed" % (
                          self._look_words(), self._units(where.discordant),
                          self.design.statistics.max_discordant, needs, self._claim()))
        else:
            self.state = CONTINUE
            batch = self.next_batch()
            reason = "sequential design continues after %s: %s. %s" % (
                self._look_words(), self._standing(),
                self._next_words(batch) if batch is not None else "")
        findings.append(Finding(
            STATE_FINDINGS[self.state], REVIEWING, "sequential_wins", self.where.wins,
            self.where.pass_at, [], reason))
        reasons = [reason] + [finding.reason for finding in decision.findings
                              if finding.severity == REVIEWING]
        return Decision(REVIEW, reasons, findings)

    def _passed(self) -> str:
        return "sequential design passed at %s: %s; %s" % (
            self._look_words(), self._crossing_or_closing(), self._guarantee())

    def _crossing_or_closing(self) -> str:
        where = self.where
        if self.crossed_pass:
            return self._crossing("pass")
        return ("at its last look, with %s (fewer than its largest sample %d), the candidate "
                "had won %d (the closing threshold there is %d)" % (
                    self._units(where.discordant), self.design.statistics.max_discordant,
                    where.wins, where.pass_at))

    def _estimates_note(self) -> Finding:
        gate = self.design.gate.key
        decides = ("the boundary decides in place of the interval gate %s" % gate
                   if self.design.replaced_gates() else
                   "the boundary decides, and the interval gate %s (margin above 0) must "
                   "hold too" % gate)
        return Finding(
            ESTIMATES_NOTE, INFORMATIONAL, "sequential_win_share",
            Fraction(self.where.wins, self.where.discordant) if self.where.discordant
            else None, self.design.statistics.theta1, [],
            "at a look of a sequential design %s; the observed share of wins and the "
            "bootstrap intervals are shown for information: at a stop the data chose they "
            "overstate the effect, and the intervals' coverage is not nominal" % decides)

    # -- the document --------------------------------------------------------------------

    def document(self) -> JSONObject:
        design, where = self.design, self.where
        return {
            "method": design.block["method"],
            "unit": design.unit,
            "state": self.state,
            "closed": self.closed,
            "look": self.look + 1,
            "looks": len(design.looks),
            "tasks": design.looks[self.look][0],
            "trials": design.looks[self.look][1],
            "units": self.path.points[-1].units,
            "discordant": where.discordant,
            "wins": where.wins,
            "decided_at": where.decided_at if self.state in (PASSED, FUTILE) else None,
            "pass_at": where.pass_at,
            "futile_at": where.futile_at,
            "alpha": float(design.alpha),
            "theta0": float(design.theta0),
            "win_share": float(design.statistics.theta1),
            "power": float(1 - design.statistics.beta),
            "max_discordant": design.statistics.max_discordant,
            "exact_false_pass": float(self.false_pass),
            "exact_false_pass_fraction": "%d/%d" % (self.false_pass.numerator,
                                                    self.false_pass.denominator),
            "boundary_sha256": boundary_sha256(self.boundary),
            "replaces": next(iter(self.design.replaced_gates()), None),
            "path": [dict(point._asdict()) for point in self.path.points],
            "next_batch": self.next_batch(),
        }
