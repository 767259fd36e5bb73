"""``run_benchmark.py restore --from FILE --data DIR``: see :mod:`.backup_command`."""

from __future__ import annotations

from typing import List

from . import Outcome, Session
from .backup_command import run_backup_or_restore


def run(arguments: List[str], session: Session) -> Outcome:
    return run_backup_or_restore(arguments, session, restoring=True)
