"""``run_benchmark.py backup --data DIR --to FILE`` and ``run_benchmark.py restore --from FILE
--data DIR``: copy the private-test service's database with SQLite's online backup API while
the service runs, and make a new data folder from such a copy (see
:mod:`proagents_bench.service.backup`). Each prints what was copied as JSON; a mistake (no
database, an existing target) is exit 2 with code ``cli.backup``."""

from __future__ import annotations

from typing import List

from ..errors import ContractError
from ..jsonio.dump import document_bytes
from ..service import backup
from . import Outcome, Session, contract_error_outcome
from .status import EXIT_PASS
from .usage import Parser, UsageError

BACKUP_ERROR_CODE = "cli.backup"


def run_backup_or_restore(arguments: List[str], session: Session, restoring: bool) -> Outcome:
    name = "restore" if restoring else "backup"
    parser = Parser(prog=session.program + " " + name, description=(
        "Make a new data folder from a backup file; serve it with serve --data DIR."
        if restoring else "Copy the service's database, consistent at one instant, while "
                          "the service runs (SQLite's online backup API)."))
    if restoring:
        parser.add_argument("--from", dest="source", metavar="FILE", required=True,
                            help="a file written by the backup command")
        parser.add_argument("--data", metavar="DIR", required=True,
                            help="the new data folder (it must hold no database)")
    else:
        parser.add_argument("--data", metavar="DIR", required=True,
                            help="the service's data folder")
        parser.add_argument("--to", metavar="FILE", required=True,
                            help="the backup file to write (never overwritten)")
    try:
        options = parser.parse_args(arguments)
    except UsageError as usage:
        return contract_error_outcome([ContractError("cli.usage", "%s (see %s --help)"
                                                     % (usage, name))])
    try:
        done = (backup.restore(options.source, options.data) if restoring
                else backup.backup(options.data, options.to))
    except backup.BackupError as problem:
        return contract_error_outcome([ContractError(BACKUP_ERROR_CODE, str(problem))])
    return Outcome(EXIT_PASS, document_bytes(done))


def run(arguments: List[str], session: Session) -> Outcome:
    return run_backup_or_restore(arguments, session, restoring=False)
