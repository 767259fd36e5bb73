"""``run_benchmark.py team add|rotate|revoke|set|list ... --data DIR``: the maintainer's
commands for the private-test service's teams. A new or rotated token is printed once, on
stdout, in a JSON document (at a terminal, its lines); only its salted hash is stored."""

from __future__ import annotations

import argparse

from ..errors import ContractError
from ..jsonio.dump import document_bytes
from ..service import database, teams
from ..service.feedback import AUTOMATIC_STEPS, LEVELS, step_text
from . import Outcome, Session, contract_error_outcome
from .data_folder import add_data_option, no_database
from .report_files import add_format_option, for_people, text_wanted
from .status import EXIT_PASS
from .usage import Parser

TEAM_ERROR_CODE = "cli.team"


def add_arguments(parser: Parser) -> None:
    parser.description = ("Manage the private-test service's teams (the service may be "
                          "running: changes apply to its next request).")
    actions = parser.add_subparsers(dest="action", metavar="ACTION")
    actions.required = True
    for name, text in (("add", "add a team; prints its token once"),
                       ("rotate", "give the team a new token (the old one stops working)"),
                       ("revoke", "the team's token stops working; its submissions stay"),
                       ("set", "change the team's budget, feedback level and/or rounding "
                               "step"),
                       ("list", "every team with its budget, level and submission counts")):
        action = actions.add_parser(name, help=text, description=text)
        if name != "list":
            action.add_argument("name", help="the team's name")
        if name in ("add", "set"):
            action.add_argument("--budget", default=teams.DEFAULT_BUDGET if name == "add"
                                else None, help="scored submissions per rolling window, N/"
                                "WINDOW with units s, m, h, d (default %s)" % teams.DEFAULT_BUDGET)
            action.add_argument("--level", choices=LEVELS,
                                default=teams.DEFAULT_LEVEL if name == "add" else None,
                                help="feedback level (default %s)" % teams.DEFAULT_LEVEL)
            action.add_argument("--step", default=None,
                                help="the rounded level's step: a decimal in (0, 1], at least "
                                     "two standard errors of a score over the n test tasks "
                                     "feedback is computed on (step >= 1/sqrt(n)); '%s' "
                                     "(the default) takes the finest of %s that the rule "
                                     "allows"
                                     % (teams.AUTOMATIC, ", ".join(
                                         step_text(step) for step in AUTOMATIC_STEPS)))
        add_data_option(action)
        add_format_option(action, "the team's document")


def run(options: argparse.Namespace, session: Session) -> Outcome:
    return for_people(_done(options), text_wanted(options, session), of_document=True)


def _done(options: argparse.Namespace) -> Outcome:
    lines = []
    try:
        path = database.open_database(options.data, create=False)
        if options.action in ("add", "set") and teams.step_unchecked(
                path, options.name, options.level, options.step):
            lines.append("WARNING: the rounding step could not be checked against the test "
                         "set's size: the service never ran on %s (serve checks it at start)"
                         % options.data)
        if options.action == "add":
            token = teams.add(path, options.name, options.budget, options.level, options.step)
            result = {"team": options.name, "token": token,
                      "note": "the token is shown once; only its hash is stored"}
        elif options.action == "rotate":
            result = {"team": options.name, "token": teams.rotate(path, options.name),
                      "note": "the token is shown once; the old one no longer works"}
        elif options.action == "revoke":
            teams.revoke(path, options.name)
            result = {"team": options.name, "revoked": True}
        elif options.action == "set":
            if options.budget is None and options.level is None and options.step is None:
                raise teams.TeamError("give --budget, --level, --step or several")
            result = teams.configure(path, options.name, options.budget,
                                     options.level, options.step).as_dict()
        else:
            result = {"teams": teams.listing(path)}
    except database.NoDatabase as problem:
        return no_database(problem)
    except (teams.TeamError, database.DatabaseError) as problem:
        return contract_error_outcome([ContractError(TEAM_ERROR_CODE, str(problem))])
    return Outcome(EXIT_PASS, document_bytes(result), lines)
