"""Running the development commands (``python -B -m devtools ...``) in this process."""

import io

from devtools.commands import COMMANDS, NO_COMMAND, PROGRAM
from proagents_bench import cli
from tests.support import Run


def run_devtools(args):
    """Run ``python -B -m devtools ARGS`` in this process, through the product's dispatcher
    as ``devtools/__main__.py`` does; capture stdout bytes and stderr text."""
    out = io.BytesIO()
    err = io.StringIO()
    status = cli.main(list(args), stdout=out, stderr=err, program=PROGRAM, commands=COMMANDS,
                      default=NO_COMMAND)
    return Run(status, out.getvalue(), err.getvalue())
