"""The development commands, a row each (:class:`proagents_bench.cli.commands.Command`), run
by the product's own dispatcher (:func:`proagents_bench.cli.main` with :data:`COMMANDS`), so
their parsing, usage errors, exit statuses, signals and streams are the product's:
``python -B -m devtools bench KIND ...`` (:mod:`.bench_command`) and ``python -B -m devtools
publish`` (:mod:`.publish`). This module is also the command that answers a command line
that names neither (:data:`NO_COMMAND`): its help lists them, anything else is a usage error.
"""

from __future__ import annotations

import argparse
from typing import Tuple

from proagents_bench.cli import Outcome, Session
from proagents_bench.cli.commands import Command, CommandModule
from proagents_bench.cli.usage import Parser, UsageError

# How the help texts and messages name the development command line.
PROGRAM = "python -B -m devtools"


def _bench() -> CommandModule:
    from . import bench_command
    return bench_command


def _publish() -> CommandModule:
    from . import publish
    return publish


def _no_command() -> CommandModule:
    from . import commands
    return commands


BENCH = Command("bench", _bench, "time and check the product: the gate, health, a release, "
                                "the import, the planner, the service and attacks on it")
PUBLISH = Command("publish", _publish, "rewrite the JSON Schemas and the docs' generated tables")
COMMANDS: Tuple[Command, ...] = (BENCH, PUBLISH)
# The command that runs when the first argument names no command: this module.
NO_COMMAND = Command("", _no_command, "list the development commands")


def add_arguments(parser: Parser) -> None:
    parser.description = ("The tools of the people who develop and measure proagents-bench "
                          "(the product's commands are run_benchmark.py's).")
    parser.epilog = ("Commands: bench (time and check the product: %s bench --help), publish "
                     "(rewrite the JSON Schemas and the docs' generated tables)." % parser.prog)


def run(options: argparse.Namespace, session: Session) -> Outcome:
    """``--help`` lists the commands; anything else names none of them: a usage error."""
    raise UsageError("name a command: %s" % ", ".join(command.name for command in COMMANDS))
