"""Teams: the maintainer's operations (add, rotate, revoke, set budget and level, list) and
the service's authentication of a bearer token.

Each function takes the database's path and opens (and closes) its own connection; the
writes are single transactions.
"""

from __future__ import annotations

import sqlite3
import time
from fractions import Fraction
from typing import TYPE_CHECKING, List, Optional, Tuple

from . import budget, database, feedback, tokens
from .feedback import LEVELS
from .names import name_problem
from .phases import feedback_task_count, step_refusal

if TYPE_CHECKING:  # for annotations only
    from ..jsonio import JSONObject

DEFAULT_BUDGET = "3/24h"
DEFAULT_LEVEL = feedback.LADDER


class TeamError(ValueError):
    """A maintainer's request that cannot be done (unknown team, bad name, budget or level);
    the message says why."""


class Team:
    """A team's row, without its token's hash."""

    def __init__(self, row: sqlite3.Row) -> None:
        self.id = row["id"]
        self.name = row["name"]
        self.token_id = row["token_id"]
        self.revoked = bool(row["revoked"])
        self.budget_count = row["budget_count"]
        self.budget_window_seconds = row["budget_window_seconds"]
        self.feedback_level = row["feedback_level"]
        self.rounding_step: Optional[str] = row["rounding_step"]  # None: automatic
        self.created_at = row["created_at"]

    @property
    def budget(self) -> str:
        return budget.describe(self.budget_count, self.budget_window_seconds)

    def as_dict(self) -> JSONObject:
        return {"team": self.name, "budget": self.budget, "feedback_level": self.feedback_level,
                "rounding_step": self.rounding_step, "revoked": self.revoked}


def _rows(opened: sqlite3.Connection) -> sqlite3.Connection:
    opened.row_factory = sqlite3.Row
    return opened


def check_name(name: str) -> str:
    problem = name_problem("team", name)
    if problem is not None:
        raise TeamError(problem)
    return name


def check_level(level: str) -> str:
    if level not in LEVELS:
        raise TeamError("a feedback level is one of %s, not %r" % (", ".join(LEVELS), level))
    return level


def find(opened: sqlite3.Connection, name: str) -> Team:
    row = _rows(opened).execute("SELECT * FROM teams WHERE name = ?", (name,)).fetchone()
    if row is None:
        raise TeamError("no team named %r" % name)
    return Team(row)


def add(path: str, name: str, budget_text: str = DEFAULT_BUDGET,
        level: str = DEFAULT_LEVEL, step_text: Optional[str] = None) -> str:
    """Add a team; return its token (shown once: only its hash is kept). ``step_text`` is
    its rounding step (None or ``auto``: chosen from the test set's size)."""
    check_name(name)
    check_level(level)
    count, window = _budget(budget_text)
    step = _step(step_text)
    issued = tokens.issue()
    with database.connection(path) as opened:
        with database.transaction(opened):
            if opened.execute("SELECT 1 FROM teams WHERE name = ?", (name,)).fetchone():
                raise TeamError("a team named %r exists already (rotate its token instead)"
                                % name)
            _check_step(opened, level, step)
            opened.execute(
                "INSERT INTO teams (name, token_id, token_salt, token_hash, budget_count, "
                "budget_window_seconds, feedback_level, created_at, rounding_step) "
                "VALUES (?,?,?,?,?,?,?,?,?)",
                (name, issued.token_id, issued.salt, issued.digest, count, window, level,
                 time.time(), step))
    return issued.text


AUTOMATIC = "auto"


def _step(text: Optional[str]) -> Optional[str]:
    """The stored form of a rounding step: None for automatic, else its shortest decimal."""
    if text is None or text.strip() == AUTOMATIC:
        return None
    try:
        return feedback.step_text(feedback.parse_step(text))
    except feedback.StepError as problem:
        raise TeamError(str(problem))


def _check_step(opened: sqlite3.Connection, level: str, step: Optional[str]) -> None:
    """Refuse a rounding step finer than two standard errors of a score over the test tasks
    feedback is computed on, when the service has told how many there are."""
    if not feedback.level(level).stepped or step is None:
        return
    tasks = feedback_task_count(opened)
    if tasks is not None and not feedback.step_allowed(Fraction(step), tasks):
        raise TeamError(step_refusal(tasks, [step]))


def step_unchecked(path: str, name: str, level: Optional[str],
                   step_text: Optional[str]) -> bool:
    """Whether the rounding step that team ``name`` would have at ``level`` (None: its
    current one) cannot be checked: the service never ran on this data folder, so the test
    set's size is not known yet (``serve`` checks it when it starts)."""
    with database.connection(path) as opened:
        row = opened.execute("SELECT feedback_level, rounding_step FROM teams WHERE name = ?",
                             (name,)).fetchone()
        if level is None:
            level = row[0] if row else None
        step = _step(step_text) if step_text is not None else (row[1] if row else None)
        return (level in feedback.STEPPED_LEVELS and step is not None
                and feedback_task_count(opened) is None)


STEP_SET = "by the maintainer"
STEP_AUTOMATIC = "automatic"


def step_in_force(team: Team, tasks: int) -> JSONObject:
    """The rounding step a rounded answer to ``team`` uses now, with ``tasks`` the test tasks
    feedback is computed on (the rule of ``feedback._rounded_answer``): ``rounding_step``,
    the team's own step or else the automatic one for ``tasks``; ``rounding_step_chosen``,
    which of the two (both None at a level without a step); ``feedback_test_tasks``."""
    if not feedback.level(team.feedback_level).stepped:
        step, chosen = None, None
    elif team.rounding_step is not None:
        step, chosen = team.rounding_step, STEP_SET
    else:
        step, chosen = feedback.step_text(feedback.automatic_step(tasks)), STEP_AUTOMATIC
    return {"rounding_step": step, "rounding_step_chosen": chosen,
            "feedback_test_tasks": tasks}


def rotate(path: str, name: str) -> str:
    """A new token for the team (the old one stops working; a revoked team is restored)."""
    issued = tokens.issue()
    with database.connection(path) as opened:
        with database.transaction(opened):
            find(opened, name)
            opened.execute("UPDATE teams SET token_id = ?, token_salt = ?, token_hash = ?, "
                           "revoked = 0 WHERE name = ?",
                           (issued.token_id, issued.salt, issued.digest, name))
    return issued.text


def revoke(path: str, name: str) -> None:
    """The team's token stops working (401 ``service.token_revoked``); its submissions stay."""
    with database.connection(path) as opened:
        with database.transaction(opened):
            find(opened, name)
            opened.execute("UPDATE teams SET revoked = 1 WHERE name = ?", (name,))


def configure(path: str, name: str, budget_text: Optional[str] = None,
              level: Optional[str] = None, step_text: Optional[str] = None) -> Team:
    """Set the team's budget, feedback level and/or rounding step (``auto``: chosen from the
    test set's size); return the team as it is now."""
    with database.connection(path) as opened:
        with database.transaction(opened):
            team = find(opened, name)
            if budget_text is not None:
                count, window = _budget(budget_text)
                opened.execute("UPDATE teams SET budget_count = ?, budget_window_seconds = ? "
                               "WHERE name = ?", (count, window, name))
            step = team.rounding_step if step_text is None else _step(step_text)
            _check_step(opened, check_level(level or team.feedback_level), step)
            opened.execute("UPDATE teams SET feedback_level = ?, rounding_step = ? "
                           "WHERE name = ?", (level or team.feedback_level, step, name))
            return find(opened, name)


def listing(path: str) -> List[JSONObject]:
    """Every team (by name) with its budget, level, state and submission counts."""
    with database.connection(path) as opened:
        rows = _rows(opened).execute(
            "SELECT teams.*, "
            "(SELECT COUNT(*) FROM submissions s WHERE s.team_id = teams.id) AS submitted, "
            "(SELECT COUNT(*) FROM submissions s WHERE s.team_id = teams.id "
            " AND s.outcome = 'scored') AS scored "
            "FROM teams ORDER BY name").fetchall()
    listed = []
    for row in rows:
        entry = Team(row).as_dict()
        entry.update(submissions=row["submitted"], scored=row["scored"])
        listed.append(entry)
    return listed


def authenticate(opened: sqlite3.Connection, token: str) -> Optional[Team]:
    """The team whose current token this is; None for a malformed or unknown token or a
    wrong secret (which are not told apart). A revoked team is returned: the caller says
    so."""
    parts = tokens.split(token)
    if parts is None:
        return None
    token_id, secret = parts
    row = _rows(opened).execute("SELECT * FROM teams WHERE token_id = ?",
                                (token_id,)).fetchone()
    if row is None or not tokens.matches(secret, row["token_salt"], row["token_hash"]):
        return None
    return Team(row)


def _budget(text: str) -> Tuple[int, int]:
    try:
        return budget.parse(text)
    except budget.BudgetError as problem:
        raise TeamError(str(problem))
