"""What the reports show of a look of a sequential design (spec v5), read once from an
:class:`~proagents_bench.pipeline.Evaluation`: the looks so far, the boundary, where the
evidence stands, the next batch, and the design's exact guarantee. The text mode, the
Markdown summary and the HTML report (with its chart, :mod:`.sequential_chart`) render these
facts; each figure is the decision document's ``sequential`` object's or the boundary's the
gate walked, so a report cannot disagree with the document."""

from __future__ import annotations

from typing import TYPE_CHECKING, List, NamedTuple, Optional, Tuple

from ..contract.sequential import NAMED_TASKS, UNIT_WORDS, named_tasks, number_span
from .words import show

if TYPE_CHECKING:  # for annotations only
    from ..jsonio import JSONObject
    from ..pipeline import Evaluation

# What each state means, for people.
STATE_WORDS = {
    "continue": "the design continues: run the next batch, then the gate again with the "
                "same ledger",
    "pass": "the pass boundary was crossed: the design is closed",
    "futility": "the futility boundary was crossed: the design is closed",
    "exhausted": "the last look came without a decision: the design is closed",
    "blocked": "a hard gate blocked: the design is closed",
}
# The next batch's task ids the HTML report and the Markdown summary list (the JSON document
# has them all; the text lists fewer: contract.sequential.named_tasks).
MAX_NEXT_IDS = 40


class LookRow(NamedTuple):
    """The path at the end of a look: the units run, the discordant units and the wins among
    them, and the boundary there (the wins it passes at, those it stops at; None: none)."""
    look: int
    tasks: int
    trials: int
    units: int
    discordant: int
    wins: int
    pass_at: Optional[int]
    futile_at: Optional[int]


class SequentialView:
    """A look's facts (see the module docstring): ``document`` is the decision document's
    ``sequential`` object; ``passing``, ``futile`` the boundary (n = 0..N) and ``wins`` the
    candidate's wins after each discordant unit of the path walked (n = 0..the last read)."""

    def __init__(self, document: JSONObject, passing: Tuple[int, ...],
                 futile: Tuple[int, ...], wins: List[int], looks: List[Tuple[int, int]]
                 ) -> None:
        self.document = document
        self.passing = passing
        self.futile = futile
        self.wins = wins
        self.state: str = document["state"]
        self.one, self.several = UNIT_WORDS[document["unit"]]
        self.rows = [LookRow(point["look"], looks[point["look"] - 1][0],
                             looks[point["look"] - 1][1], point["units"], point["discordant"],
                             point["wins"], *self._thresholds(point["discordant"]))
                     for point in document["path"]]

    def _thresholds(self, count: int) -> Tuple[Optional[int], Optional[int]]:
        size = len(self.passing) - 1
        if count > size:
            count = size
        passing = self.passing[count] if self.passing[count] <= count else None
        futile = self.futile[count] if self.futile[count] >= 0 else None
        return passing, futile

    @property
    def decided_at(self) -> Optional[int]:
        found: Optional[int] = self.document["decided_at"]
        return found

    def heading(self) -> str:
        """``look 2 of 4: continue``."""
        return "look %d of %d: %s" % (self.document["look"], self.document["looks"],
                                      self.state)

    def state_sentence(self) -> str:
        """What the state means, as a sentence's start (``The design continues: ...``)."""
        words = STATE_WORDS.get(self.state, "")
        return words[:1].upper() + words[1:]

    def standing(self) -> str:
        """Where the evidence stands: the wins against the boundary at the current n."""
        found = self.document
        count, wins = found["discordant"], found["wins"]
        pass_at, futile_at = found["pass_at"], found["futile_at"]
        text = "%d discordant %s, %d won by the candidate" % (
            count, self.one if count == 1 else self.several, wins)
        if pass_at <= count:
            text += "; the boundary there passes at %d or more" % pass_at
        else:
            text += "; no pass is possible there yet"
        if futile_at >= 0:
            text += " and stops at %d or fewer" % futile_at
        return text

    def guarantee(self) -> str:
        """The design's exact false pass, and what it plans for."""
        found = self.document
        return ("exact false pass %s%% at any stopping (alpha %s%%); power %s%% at a win "
                "share of %s; at most %d discordant %s" % (
                    show(round(found["exact_false_pass"] * 100, 4)),
                    show(found["alpha"] * 100), show(found["power"] * 100),
                    show(found["win_share"]), found["max_discordant"], self.several))

    def next_batch(self) -> Optional[str]:
        """The next batch in words; None once the design is closed."""
        batch = self.document["next_batch"]
        if batch is None:
            return None
        parts = []
        if batch["new_trials"] is not None:
            trials = batch["new_trials"]
            parts.append("trial%s %s of tasks 1-%d" % (
                "s" if trials["last"] > trials["first"] else "",
                number_span(trials["first"], trials["last"]), trials["tasks"]))
        if batch["new_tasks"] is not None:
            tasks = batch["new_tasks"]
            parts.append("tasks %s of the frozen pool with trials 1-%d" % (
                number_span(tasks["first"], tasks["last"]), batch["trials"]))
        return "look %d: %s (%d %s), for both systems" % (
            batch["look"], " and ".join(parts), batch["units"],
            self.one if batch["units"] == 1 else self.several)

    def next_case_ids(self) -> List[str]:
        batch = self.document["next_batch"]
        if batch is None or batch["new_tasks"] is None:
            return []
        found: List[str] = batch["new_tasks"]["case_ids"]
        return found

    def lines(self) -> List[str]:
        """The facts as plain lines (the text mode and the summary)."""
        lines = ["sequential design (%s, %s level): %s" % (
            self.document["method"], self.document["unit"], self.heading()),
            "  evidence: %s" % self.standing(),
            "  looks: %s" % "; ".join("%d: %d %s, %d discordant, %d won" % (
                row.look, row.units, self.several, row.discordant, row.wins)
                for row in self.rows),
            "  guarantee: %s" % self.guarantee()]
        batch = self.next_batch()
        if batch is not None:
            lines.append("  next batch: %s" % batch)
            ids = self.next_case_ids()
            if ids:
                lines.append("  next tasks: %s%s" % (
                    named_tasks(ids), " (sequential.next_batch lists them all)"
                    if len(ids) > NAMED_TASKS else ""))
        return lines


def sequential_view(evaluation: Evaluation) -> Optional[SequentialView]:
    """The look's view, or None (a fixed design, or a look not judged: INCOMPARABLE)."""
    looks = evaluation.looks
    judgment = looks.judgment if looks is not None else None
    document = evaluation.lazy_document.get("sequential")
    if judgment is None or document is None:
        return None
    wins = [0]
    for outcome in judgment.path.outcomes[:max(judgment.where.discordant,
                                               document["path"][-1]["discordant"])]:
        wins.append(wins[-1] + outcome)
    return SequentialView(document, judgment.boundary.passing, judgment.boundary.futile, wins,
                          judgment.design.looks)
