"""``python -B -m devtools COMMAND ...``, run from the checkout (see :mod:`devtools.commands`)."""

from __future__ import annotations

from proagents_bench import cli

from .commands import COMMANDS, NO_COMMAND, PROGRAM

if __name__ == "__main__":
    cli.run(commands=COMMANDS, default=NO_COMMAND, program=PROGRAM)
