"""The commands, a row each, in the order a team meets them: the one place that names them.

A row holds the command's name (the first argument that asks for it; the gate, the
default, runs when the first argument names no other), a loader (a small function that
imports the command's module and returns it, typed by :class:`CommandModule`: mypy checks
each module against it, and the layer test reads the ``from . import x`` inside) and a
one-line description (the list of commands). Its usage errors point at its own help
(``NAME --help``; the default command's: ``--help``). A module is imported only when its
command runs: the gate never compiles the service's.

Every command module offers ``add_arguments(parser)``, which declares its options, help
text and epilog, and ``run(options, session)``, which the dispatcher
(:func:`proagents_bench.cli.main`) calls once the arguments parsed; a usage error, found
while parsing or later, is the one ``cli.usage`` outcome (exit 2).

Adding a command: its module ``cli/NAME_command.py`` and its row here (docs/development.md,
the recipes).
"""

from __future__ import annotations

import argparse
from typing import (TYPE_CHECKING, Callable, Dict, NamedTuple, Optional, Protocol, Sequence,
                    Tuple)

from .usage import Parser

if TYPE_CHECKING:  # for annotations only
    from . import Outcome, Session


class CommandModule(Protocol):
    """What every command's module offers."""

    def add_arguments(self, __parser: Parser) -> None: ...

    def run(self, __options: argparse.Namespace, __session: Session) -> Outcome: ...


class Command(NamedTuple):
    """One command: its ``name``, the ``load``er of its module and its one-line
    ``description``."""

    name: str
    load: Callable[[], CommandModule]
    description: str

    def parser(self, program: str, commands: Optional[Sequence[str]] = None) -> Parser:
        """The command's argument parser, for the command line ``program`` (as invoked);
        ``commands``, for the default command (which no first argument names), the names
        the first argument may be instead (suggested for a mistyped one)."""
        listed = [] if commands is None else [(self.name, self.description)] + [
            (name, COMMAND_BY_NAME[name].description) for name in commands
            if name in COMMAND_BY_NAME]
        parser = Parser(prog=program if commands is not None else program + " " + self.name,
                        program=program, commands=commands or (), listed=listed)
        self.load().add_arguments(parser)
        return parser


def _gate() -> CommandModule:
    from . import gate_command
    return gate_command


def _init() -> CommandModule:
    from . import init_command
    return init_command


def _import() -> CommandModule:
    from . import import_command
    return import_command


def _explain() -> CommandModule:
    from . import explain_command
    return explain_command


def _plan() -> CommandModule:
    from . import plan_command
    return plan_command


def _release() -> CommandModule:
    from . import release_command
    return release_command


def _health() -> CommandModule:
    from . import health_command
    return health_command


def _diff() -> CommandModule:
    from . import diff_command
    return diff_command


def _serve() -> CommandModule:
    from . import serve_command
    return serve_command


def _team() -> CommandModule:
    from . import team_command
    return team_command


def _submit() -> CommandModule:
    from . import submit_command
    return submit_command


def _phase() -> CommandModule:
    from . import phase_command
    return phase_command


def _backup() -> CommandModule:
    from . import backup_command
    return backup_command


def _restore() -> CommandModule:
    from . import restore_command
    return restore_command


def _completion() -> CommandModule:
    from . import completion_command
    return completion_command


GATE = Command("gate", _gate, "validate the files, compare candidate and baseline, decide "
                              "(the default)")
COMMANDS: Tuple[Command, ...] = (
    GATE,
    Command("init", _init, "write a new benchmark's first files, from nothing or from a "
                           "harness log"),
    Command("import", _import, "turn harness logs, one per system, into a results package"),
    Command("explain", _explain, "why it regressed: each failing task explained from the "
                                 "harnesses' own traces"),
    Command("plan", _plan, "how many tasks and trials buy the power to detect an effect"),
    Command("release", _release, "one release decision across several benchmarks"),
    Command("health", _health, "the test tasks' health across many results packages: what "
                               "to audit"),
    Command("diff", _diff, "what a new cases file or spec changes, and which results stay "
                           "comparable"),
    Command("serve", _serve, "run the private-test service, which scores teams on hidden "
                             "test cases"),
    Command("team", _team, "add, rotate, revoke, configure or list the service's teams"),
    Command("submit", _submit, "send a candidate's results to the private-test service"),
    Command("phase", _phase, "open or close a phase of the service: a public board, then a "
                             "private one"),
    Command("backup", _backup, "copy the service's database while it runs"),
    Command("restore", _restore, "make a new data folder from a backup"),
    Command("completion", _completion, "print the shell's completion script: bash, zsh or "
                                       "PowerShell"),
)
COMMAND_BY_NAME: Dict[str, Command] = {command.name: command for command in COMMANDS}
