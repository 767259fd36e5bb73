"""``run_benchmark.py restore --from FILE --data DIR``: see :mod:`.backup_command`."""

from __future__ import annotations

import argparse

from ..service import backup
from . import Outcome, Session
from .backup_command import copied
from .data_folder import add_data_option
from .report_files import add_format_option, for_people, text_wanted
from .usage import Parser


def add_arguments(parser: Parser) -> None:
    parser.description = ("Make a new data folder from a backup file; serve it with serve "
                          "--data DIR.")
    parser.add_argument("--from", dest="source", metavar="FILE", required=True,
                        help="a file written by the backup command")
    add_data_option(parser, "the new data folder (it must hold no database)")
    add_format_option(parser, "what was copied")


def run(options: argparse.Namespace, session: Session) -> Outcome:
    return for_people(copied(lambda: backup.restore(options.source, options.data)),
                      text_wanted(options, session), of_document=True)
