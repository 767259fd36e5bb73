"""The development commands, run by the product's own dispatcher
(:func:`proagents_bench.cli.main` with :data:`COMMANDS`), so their exit statuses, signals and
streams are the product's: ``python -B -m devtools bench KIND ...`` (:mod:`.bench_command`)
and ``python -B -m devtools publish`` (:mod:`.publish`). :func:`run` answers a command line
that names neither.
"""

from __future__ import annotations

from typing import List

from proagents_bench.cli import Outcome, Session, contract_error_outcome
from proagents_bench.cli.usage import Parser, UsageError
from proagents_bench.errors import ContractError

# How the help texts and messages name the development command line.
PROGRAM = "python -B -m devtools"
# Each command by the module that runs it (``run(arguments, session) -> Outcome``).
COMMANDS = {
    "bench": "devtools.bench_command",
    "publish": "devtools.publish",
}
# The module that answers when the first argument names no command: this one.
NO_COMMAND = __name__


def run(arguments: List[str], session: Session) -> Outcome:
    """``--help`` lists the commands; anything else names none of them: a usage error."""
    parser = Parser(prog=session.program, commands=list(COMMANDS),
                    description="The tools of the people who develop and measure "
                                "proagents-bench (the product's commands are run_benchmark.py's).",
                    epilog="Commands: bench (time and check the product: %s bench --help), "
                           "publish (rewrite the JSON Schemas and the docs' generated tables)."
                           % session.program)
    try:
        parser.parse_args(arguments)
        raise UsageError("name a command: %s" % ", ".join(COMMANDS))
    except UsageError as usage:
        return contract_error_outcome([ContractError("cli.usage", "%s (see --help)" % usage)])
