"""The leaderboard's boards, as data: what ``GET /v1/leaderboard`` answers, ``phase close``
prints, and the page (:mod:`.leaderboard_page`) draws, all made by :func:`boards`.

One public board per benchmark version, dataset version and phase (a new
``dataset_version`` is never ranked with an old one, nor a phase's public part with every
test case), the current one first; a closed phase adds its final board, scored on its
private part, and while no phase is open the final board of the phase closed last comes
first of all. A team's row is one submission (:func:`row_order`: the better decision, then
the higher score, then the earlier): its released result with its precision, its decision as
its answer showed it, and its SHA-256; beside them the team's count of scored submissions,
its feedback level and budget.

Ranking: a released score stands for the range its precision leaves open (an exact share or
a Ladder score: itself; a score rounded to step h: within h/2 of it). A team ranks above
another only when its whole range is above the other's; otherwise they share a rank (shown
``=``), so a rounded 0.8 is never ranked as if it were an exact 0.8 or an exact 0.78. A
revoked team keeps its row, marked ``revoked`` and unranked, so that a maintainer sees what
was excluded. A team whose level releases no score (``verdict``) shows its best decision
and is not ranked. Results are self-reported: the service grades the records a team sends,
not its agent.
"""

from __future__ import annotations

import sqlite3
from fractions import Fraction
from typing import TYPE_CHECKING, Dict, List, Optional, Tuple

from ..contract.vocabulary import ACTIONS
from . import budget, database, feedback, phases
from .database import SCORED

if TYPE_CHECKING:  # for annotations only
    from ..jsonio import JSONObject

# A board's key: the benchmark's versions and its phase's id (None: no phase).
BoardKey = Tuple[str, str, str, Optional[int]]

# Better first; an entry without a decision (None) after them all.
_ACTION_RANK: Dict[Optional[str], int] = {action: index for index, action in enumerate(ACTIONS)}
EXACT, LADDER, ROUNDED = feedback.EXACT_SCORE, feedback.LADDER_SCORE, feedback.ROUNDED_SCORE
ALL_CASES = "all"
PUBLIC = "public"
FINAL = "final"
# How a final board's row was chosen.
CHOSEN_BY_TEAM = "by the team"
CHOSEN_BY_DEFAULT = "the last (default)"

class Result:
    """A released score, the range its precision leaves open, and where it came from."""

    def __init__(self, score: float, precision: str, step: Optional[Fraction], at: float,
                 sha256: str) -> None:
        self.score = score
        self.precision = precision
        self.step = step
        exact = Fraction(repr(score))
        half = step / 2 if step is not None else Fraction(0)
        self.low = max(Fraction(0), exact - half)
        self.high = min(Fraction(1), exact + half)
        self.at = at
        self.sha256 = sha256

    def order(self) -> Tuple[Fraction, Fraction, float]:
        """Better first: the higher guaranteed score, then the higher possible one, then the
        earlier submission."""
        return (-self.low, -self.high, self.at)

    def describe(self) -> str:
        if self.precision == ROUNDED and self.step is not None:  # a rounded one has its step
            return "rounded to %s" % feedback.step_text(self.step)
        return {EXACT: "exact", LADDER: "Ladder (exact share)"}[self.precision]


def released_result(level: str, score: float, step: Optional[str], at: float,
                    sha256: str) -> Result:
    """The result a scored submission released at ``level``."""
    precision = feedback.level(level).precision
    if precision is None:
        raise ValueError("a submission at level %s released a score" % level)
    if precision == ROUNDED and step is None:
        raise ValueError("a submission at level %s recorded no rounding step" % level)
    return Result(score, precision, Fraction(step) if step is not None and precision == ROUNDED
                  else None, at, sha256)


class Entry:
    """One team's row on one board: one submission of the team's, the best by
    :func:`row_order`, with the team's counts."""

    def __init__(self, team: str, revoked: bool, level: str, budget_text: str) -> None:
        self.team = team
        self.revoked = revoked
        self.level = level
        self.budget = budget_text
        self.scored = 0
        self.result: Optional[Result] = None
        self.decision: Optional[str] = None
        self.sha256 = ""
        self.at: Optional[float] = None  # when the row's submission was received
        self.chosen: Optional[str] = None  # final boards: how the submissions were chosen
        self.rank: Optional[int] = None
        self.tied = False

    def offer(self, result: Optional[Result], decision: Optional[str], sha256: str,
              at: float) -> None:
        """A submission as the board shows it (its released result, its shown decision):
        it becomes the row when it is better by :func:`row_order` than the row's."""
        if self.at is None or row_order(result, decision, at) < row_order(
                self.result, self.decision, self.at):
            self.result, self.decision, self.sha256, self.at = result, decision, sha256, at

    def as_dict(self) -> JSONObject:
        result = self.result
        shown: JSONObject = {"rank": self.rank, "tied": self.tied, "team": self.team,
                 "revoked": self.revoked, "decision": self.decision,
                 "scored_submissions": self.scored, "feedback_level": self.level,
                 "budget": self.budget, "sha256": self.sha256,
                 "score": result.score if result else None,
                 "precision": result.precision if result else None,
                 "rounding_step": (feedback.step_text(result.step)
                                   if result and result.step is not None else None),
                 "score_range": [float(result.low), float(result.high)] if result else None}
        if self.chosen is not None:
            shown["chosen"] = self.chosen
        return shown


def row_order(result: Optional[Result], decision: Optional[str],
              at: float) -> Tuple[int, int, Fraction, Fraction, float]:
    """Which of a team's submissions is its row, better first (:data:`ROW_RULE`): the better
    decision (PASS, REVIEW, BLOCK, INCOMPARABLE, then none shown), then a released score
    before none, the higher guaranteed score, the higher possible one, then the earlier
    submission. A BLOCKed submission is never a team's best however it scores, as the gate
    never lets a higher score outweigh a failed critical task. (A ladder submission that
    released nothing showed the verdict of the team's best released one, which is on the same
    board with its score, so it never becomes the row: a released score comes first.)"""
    if result is None:
        return (_ACTION_RANK.get(decision, len(ACTIONS)), 1, Fraction(0), Fraction(0), at)
    return (_ACTION_RANK.get(decision, len(ACTIONS)), 0) + result.order()


ROW_RULE = ("A team's row is one of its submissions, the best: the better decision first "
            "(PASS, REVIEW, BLOCK, INCOMPARABLE), then the higher score, then the earlier "
            "submission; its score, decision and SHA-256 are that submission's.")


class Board:
    """One ranked table."""

    def __init__(self, versions: Tuple[str, str, str], phase: Optional[phases.Phase],
                 kind: str, current: bool, entries: List[Entry]) -> None:
        self.versions = versions
        self.phase = phase
        self.kind = kind
        self.current = current
        self.entries = rank(entries)

    def as_dict(self) -> JSONObject:
        return {"benchmark_id": self.versions[0], "benchmark_version": self.versions[1],
                "dataset_version": self.versions[2], "current": self.current,
                "board": self.kind, "phase": self.phase.public() if self.phase else None,
                "entries": [entry.as_dict() for entry in self.entries]}


def rank(entries: List[Entry]) -> List[Entry]:
    """Rank the entries (see the module's docstring) and return them in board order: ranked
    ones, then those without a score, then revoked ones."""
    scored = [(entry, entry.result) for entry in entries
              if entry.result is not None and not entry.revoked]
    for entry, result in scored:
        entry.rank = 1 + sum(1 for _other, other in scored if other.low > result.high)
    for entry, _result in scored:
        entry.tied = sum(1 for other, _ in scored if other.rank == entry.rank) > 1
    scored.sort(key=lambda pair: (-pair[1].high,) + pair[1].order() + (pair[0].team,))
    ranked = [entry for entry, _result in scored]
    unranked = sorted((entry for entry in entries if entry.result is None
                       and not entry.revoked),
                      key=lambda entry: (_ACTION_RANK.get(entry.decision, len(ACTIONS)),
                                         entry.team))
    revoked = sorted((entry for entry in entries if entry.revoked),
                     key=lambda entry: entry.team)
    return ranked + unranked + revoked


def boards(database_path: str, current: Tuple[str, str, str]) -> List[Board]:
    """Every board: the current public one first (every team that is not revoked has a row
    there, scored or not yet), then the others, most recently active first; each closed
    phase's final board right after its public one, but while no phase is open the final
    board of the phase closed last, which comes before them all."""
    with database.connection(database_path) as opened:
        opened.row_factory = sqlite3.Row
        rows = opened.execute(
            "SELECT t.name, t.revoked, t.feedback_level AS team_level, t.budget_count, "
            "t.budget_window_seconds, s.benchmark_id, s.benchmark_version, "
            "s.dataset_version, s.phase_id, s.feedback_level, s.shown_action, "
            "s.score_released, s.released_score, s.released_step, s.received_at, s.sha256 "
            "FROM submissions s JOIN teams t ON t.id = s.team_id WHERE s.outcome = ? "
            "ORDER BY s.received_at, s.id", (SCORED,)).fetchall()
        team_rows = opened.execute(
            "SELECT name, revoked, feedback_level, budget_count, budget_window_seconds "
            "FROM teams ORDER BY name").fetchall()
        known = {phase.id: phase for phase in phases.every(opened)}
        open_phase = phases.current(opened)
        finals = opened.execute(
            "SELECT f.phase_id, t.name, t.revoked, t.feedback_level, t.budget_count, "
            "t.budget_window_seconds, f.chosen, f.action, f.score, s.received_at, s.sha256 "
            "FROM final_results f JOIN teams t ON t.id = f.team_id JOIN submissions s "
            "ON s.id = f.submission_id ORDER BY f.phase_id, s.received_at, s.id").fetchall()
    current_key: BoardKey = current + (open_phase.id if open_phase else None,)
    found: Dict[BoardKey, Dict[str, Entry]] = {current_key: {}}
    for team in team_rows:  # every team takes part in the current board, scored or not yet
        if not team["revoked"]:
            found[current_key][team["name"]] = _entry(team)
    for phase in known.values():  # a phase has its boards from the start
        found.setdefault(phase.versions + (phase.id,), {})
    latest: Dict[BoardKey, float] = {}
    for row in rows:
        key = (row["benchmark_id"], row["benchmark_version"], row["dataset_version"],
               row["phase_id"])
        latest[key] = row["received_at"]
        entries = found.setdefault(key, {})
        entry = entries.get(row["name"])
        if entry is None:
            entry = entries[row["name"]] = _entry(row, row["team_level"])
        entry.scored += 1
        result = (released_result(row["feedback_level"], row["released_score"],
                                  row["released_step"], row["received_at"], row["sha256"])
                  if row["score_released"] else None)
        entry.offer(result, row["shown_action"], row["sha256"], row["received_at"])
    final_entries: Dict[int, Dict[str, Entry]] = {}
    for row in finals:
        entries = final_entries.setdefault(row["phase_id"], {})
        entry = entries.get(row["name"])
        if entry is None:
            entry = entries[row["name"]] = _entry(row)
            entry.chosen = CHOSEN_BY_TEAM if row["chosen"] else CHOSEN_BY_DEFAULT
        entry.scored += 1
        result = (Result(row["score"], EXACT, None, row["received_at"], row["sha256"])
                  if row["score"] is not None else None)
        entry.offer(result, row["action"], row["sha256"], row["received_at"])
    order = sorted(found, key=lambda key: (
        key != current_key, -latest.get(key, known[key[3]].opened_at if key[3] else 0.0),
        str(key)))
    closed = sorted((phase for phase in known.values() if phase.status == phases.CLOSED),
                    key=lambda phase: (phase.closed_at or 0.0, phase.id))
    # While no phase is open, the phase closed last has the latest result nobody could
    # climb: its final board opens the page.
    first = closed[-1] if closed and open_phase is None else None
    made = []
    if first is not None:
        made.append(Board(first.versions, first, FINAL, False,
                          list(final_entries.get(first.id, {}).values())))
    for key in order:
        board_phase = known.get(key[3]) if key[3] is not None else None
        made.append(Board(key[:3], board_phase, PUBLIC if board_phase else ALL_CASES,
                          key == current_key, list(found[key].values())))
        if (board_phase is not None and board_phase.status == phases.CLOSED
                and board_phase is not first):
            made.append(Board(key[:3], board_phase, FINAL, False,
                              list(final_entries.get(board_phase.id, {}).values())))
    return made


def _entry(row: sqlite3.Row, level: Optional[str] = None) -> Entry:
    return Entry(row["name"], bool(row["revoked"]), level or row["feedback_level"],
                 budget.describe(row["budget_count"], row["budget_window_seconds"]))


def document(database_path: str, current: Tuple[str, str, str]) -> JSONObject:
    """``GET /v1/leaderboard``: every board as JSON."""
    return {"benchmark_id": current[0], "ranking": RANKING_NOTE,
            "boards": [board.as_dict() for board in boards(database_path, current)]}


RANKING_NOTE = ("A team ranks above another only when the whole range its score's precision "
                "leaves open is above the other's (exact and Ladder scores: the score itself; "
                "a score rounded to step h: within h/2 of it); otherwise they share a rank. "
                "Revoked teams are marked and not ranked.")
