"""The audit log: one row per request that carries an ``Authorization`` header (when, which
team, the token's id, never its secret, the method, the path, the HTTP status and the
problem code).

A request that stores a submission writes its row in the submission's own transaction, so
the two are kept or lost together; every other request writes its row after its answer is
made, in a transaction of its own.
"""

from __future__ import annotations

import sqlite3
import time
from typing import Optional


class AuditEntry:
    """One request's audit row, written once (``written`` says whether it was)."""

    def __init__(self, token_id: Optional[str], method: str, path: str) -> None:
        self.at = time.time()
        self.team_id: Optional[int] = None
        self.token_id = token_id
        self.method = method[:16]
        self.path = path[:512]
        self.written = False

    def insert(self, opened: sqlite3.Connection, status: int, code: Optional[str]) -> None:
        """Insert the row (inside the caller's transaction; the caller sets ``written`` once
        it commits)."""
        opened.execute(
            "INSERT INTO audit (at, team_id, token_id, method, path, status, code) "
            "VALUES (?,?,?,?,?,?,?)",
            (self.at, self.team_id, self.token_id, self.method, self.path, status, code))
