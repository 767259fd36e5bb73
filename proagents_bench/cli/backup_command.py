"""``run_benchmark.py backup --data DIR --to FILE`` and ``run_benchmark.py restore --from FILE
--data DIR``: copy the private-test service's database with SQLite's online backup API while
the service runs, and make a new data folder from such a copy (see
:mod:`proagents_bench.service.backup`). Each prints what was copied as JSON; a mistake (no
database, an existing target) is exit 2 with code ``cli.backup``."""

from __future__ import annotations

import argparse
from typing import Callable, Dict

from ..errors import ContractError
from ..jsonio.dump import document_bytes
from ..service import backup
from ..service.database import NoDatabase
from . import Outcome, Session, contract_error_outcome
from .data_folder import add_data_option, no_database
from .report_files import add_format_option, for_people, text_wanted
from .status import EXIT_PASS
from .usage import Parser

BACKUP_ERROR_CODE = "cli.backup"


def add_arguments(parser: Parser) -> None:
    parser.description = ("Copy the service's database, consistent at one instant, while the "
                          "service runs (SQLite's online backup API).")
    add_data_option(parser)
    parser.add_argument("--to", metavar="FILE", required=True,
                        help="the backup file to write (never overwritten)")
    add_format_option(parser, "what was copied")


def run(options: argparse.Namespace, session: Session) -> Outcome:
    return for_people(copied(lambda: backup.backup(options.data, options.to)),
                      text_wanted(options, session), of_document=True)


def copied(copy: Callable[[], Dict[str, object]]) -> Outcome:
    """What ``copy`` (a backup or a restore) copied, as JSON; its mistake, exit 2."""
    try:
        done = copy()
    except backup.BackupError as problem:
        return contract_error_outcome([ContractError(BACKUP_ERROR_CODE, str(problem))])
    except NoDatabase as problem:  # backup's --data
        return no_database(problem)
    return Outcome(EXIT_PASS, document_bytes(done))
