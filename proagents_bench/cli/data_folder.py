"""The private-test service's data folder on the command line (``--data DIR``): ``serve``
makes its database there and ``restore`` makes a new folder; every other command works on a
database that is there, and refuses a folder holding none (exit 2, ``cli.no_database``)
rather than make an empty one where a mistyped path points."""

from __future__ import annotations

from typing import Optional, Union

from ..errors import ContractError
from ..service import database
from . import Outcome, contract_error_outcome
from .usage import Parser

NO_DATABASE_CODE = "cli.no_database"


def add_data_option(parser: Parser, text: Optional[str] = None) -> None:
    """``--data DIR``: the service's data folder, which must hold its database (``text``:
    another help, for a command that makes one)."""
    parser.add_argument("--data", metavar="DIR", required=True,
                        help=text or "the service's data folder, holding its database "
                                     "(serve --data DIR creates one)")


def open_data(folder: str, create: bool = False) -> Union[str, Outcome]:
    """The database's path in ``folder`` (upgraded; made only with ``create``: serve), or
    the exit-2 outcome."""
    try:
        return database.open_database(folder, create)
    except database.NoDatabase as problem:
        return no_database(problem)
    except database.DatabaseError as problem:
        return contract_error_outcome([ContractError("file.unreadable", str(problem), (),
                                                     folder)])


def no_database(problem: database.NoDatabase) -> Outcome:
    """Exit 2: the data folder holds no service database (a mistyped ``--data``)."""
    return contract_error_outcome([ContractError(NO_DATABASE_CODE, str(problem), (),
                                                 problem.folder)])
