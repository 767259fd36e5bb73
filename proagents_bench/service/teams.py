"""Teams: the maintainer's operations (add, rotate, revoke, set budget and level, list) and
the service's authentication of a bearer token.

Each function takes the database's path and opens (and closes) its own connection; the
writes are single transactions.
"""

from __future__ import annotations

import re
import sqlite3
import time
from typing import List, Optional, Tuple

from . import budget, database, tokens
from .feedback import LEVELS

_NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9._-]{0,63}\Z")
DEFAULT_BUDGET = "3/24h"
DEFAULT_LEVEL = "ladder"


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
        self.created_at = row["created_at"]

    @property
    def budget(self) -> str:
        return budget.describe(self.budget_count, self.budget_window_seconds)

    def as_dict(self) -> dict:
        return {"team": self.name, "budget": self.budget, "feedback_level": self.feedback_level,
                "revoked": self.revoked}


def _rows(opened: sqlite3.Connection) -> sqlite3.Connection:
    opened.row_factory = sqlite3.Row
    return opened


def check_name(name: str) -> str:
    if not _NAME.match(name):
        raise TeamError("a team name is 1 to 64 letters, digits, '.', '_' or '-', starting "
                        "with a letter or digit, not %r" % name)
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
        level: str = DEFAULT_LEVEL) -> str:
    """Add a team; return its token (shown once: only its hash is kept)."""
    check_name(name)
    check_level(level)
    count, window = _budget(budget_text)
    issued = tokens.issue()
    with database.connection(path) as opened:
        with database.transaction(opened):
            if opened.execute("SELECT 1 FROM teams WHERE name = ?", (name,)).fetchone():
                raise TeamError("a team named %r exists already (rotate its token instead)"
                                % name)
            opened.execute(
                "INSERT INTO teams (name, token_id, token_salt, token_hash, budget_count, "
                "budget_window_seconds, feedback_level, created_at) VALUES (?,?,?,?,?,?,?,?)",
                (name, issued.token_id, issued.salt, issued.digest, count, window, level,
                 time.time()))
    return issued.text


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
              level: Optional[str] = None) -> Team:
    """Set the team's budget and/or feedback level; return the team as it is now."""
    with database.connection(path) as opened:
        with database.transaction(opened):
            find(opened, name)
            if budget_text is not None:
                count, window = _budget(budget_text)
                opened.execute("UPDATE teams SET budget_count = ?, budget_window_seconds = ? "
                               "WHERE name = ?", (count, window, name))
            if level is not None:
                opened.execute("UPDATE teams SET feedback_level = ? WHERE name = ?",
                               (check_level(level), name))
            return find(opened, name)


def listing(path: str) -> List[dict]:
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
