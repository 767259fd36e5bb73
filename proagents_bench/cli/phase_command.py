"""``run_benchmark.py phase open|close|status``: the maintainer's commands for a phase of the
private-test service (see :mod:`proagents_bench.service.phases`); they work while the
service runs.

``phase open`` splits the test cases with a secret seed into a public part, which every
answer during the phase is computed on, and a private part; it prints the seed once (keep
it: it is published when the phase closes) and its SHA-256, which the leaderboard shows.
``phase close`` scores each team's chosen submissions on the private part and publishes the
final board. ``phase status`` lists the phases. A mistake is exit 2 with code ``cli.phase``.
"""

from __future__ import annotations

import argparse

from ..errors import ContractError, ContractErrors
from ..jsonio.dump import document_bytes
from ..service import database, leaderboard, phases
from . import Outcome, Session, contract_error_outcome
from .data_folder import add_data_option, open_data
from .serve_command import PHASE_ERROR_CODE, add_benchmark_arguments, load_benchmark
from .report_files import add_format_option, for_people, text_wanted
from .status import EXIT_PASS
from .usage import Parser


def add_arguments(parser: Parser) -> None:
    parser.description = ("Open or close a phase of the private-test service: a public board "
                          "during it, a final private board when it closes.")
    actions = parser.add_subparsers(dest="action", metavar="ACTION")
    actions.required = True
    opening = actions.add_parser("open", help="split the test cases and open a phase",
                                 description="Split the test cases into a public and a "
                                             "private part with a secret seed; every answer "
                                             "until the phase closes is computed on the "
                                             "public part.")
    add_benchmark_arguments(opening)
    opening.add_argument("--name", required=True, help="the phase's name")
    opening.add_argument("--private-share", default=phases.DEFAULT_PRIVATE_SHARE,
                         help="the share of test cases in the private part, family by "
                              "family (default %s)" % phases.DEFAULT_PRIVATE_SHARE)
    opening.add_argument("--choices", type=int, default=phases.DEFAULT_CHOICES,
                         help="how many submissions a team may choose for the final board "
                              "(default %d; without a choice, its last). Above 1 a team's "
                              "final row is its best chosen submission, which a team can "
                              "inflate without any feedback (docs/service.md)"
                              % phases.DEFAULT_CHOICES)
    opening.add_argument("--seed", default=None,
                         help="the split's seed, at least %d hexadecimal digits (default: 32 "
                              "random bytes; printed once)" % phases.MIN_SEED_HEX_DIGITS)
    closing = actions.add_parser("close", help="score the chosen submissions on the private "
                                               "part and publish the final board")
    add_benchmark_arguments(closing)
    status = actions.add_parser("status", help="every phase, and what is published of it")
    add_data_option(status)
    for action in (opening, closing, status):
        add_format_option(action, "the phase's document")


def run(options: argparse.Namespace, session: Session) -> Outcome:
    return for_people(_done(options), text_wanted(options, session), of_document=True)


def _done(options: argparse.Namespace) -> Outcome:
    path = open_data(options.data)
    if isinstance(path, Outcome):
        return path
    if options.action == "status":
        with database.connection(path) as opened:
            listed = [phase.public() for phase in phases.every(opened)]
        return Outcome(EXIT_PASS, document_bytes({"phases": listed}))
    benchmark = load_benchmark(options)
    if isinstance(benchmark, Outcome):
        return benchmark
    try:
        if options.action == "open":
            phase = phases.open_phase(path, benchmark, options.name, options.private_share,
                                      options.choices, options.seed)
            shown = phase.public()
            shown.update(seed=phase.seed, note="keep the seed: it is published when the "
                         "phase closes, so that anyone can recompute the split and check it "
                         "against its SHA-256, published now")
            if phase.choices > 1:
                shown["choices_note"] = phases.choices_note(phase.choices)
            return Outcome(EXIT_PASS, document_bytes(shown))
        phase, _results = phases.close_phase(path, benchmark)
    except phases.PhaseError as problem:
        return contract_error_outcome([ContractError(PHASE_ERROR_CODE, str(problem))])
    except ContractErrors as failure:
        return contract_error_outcome([ContractError(
            PHASE_ERROR_CODE, "a part of this split cannot be scored; choose another seed or "
            "share: %s" % "; ".join(error.message for error in failure.errors))])
    final = [board.as_dict() for board in leaderboard.boards(path, benchmark.versions)
             if board.kind == leaderboard.FINAL and board.phase is not None
             and board.phase.id == phase.id]
    return Outcome(EXIT_PASS, document_bytes(final[0]))
