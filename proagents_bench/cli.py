"""The command line: the only place that prints or chooses an exit status.

Exit status: 0 PASS; 1 REVIEW, BLOCK or INCOMPARABLE; 2 a file, JSON, schema, version,
coverage or command-line error; 3 an internal error, which is always a bug. Everything is
caught, so a crash can never look like a decision. stdout carries one ASCII JSON document and
nothing else; stderr carries ``ERROR: FILE:LINE:COLUMN: PATH: MESSAGE`` lines.
"""

import argparse
import os
import sys

from . import gate
from .errors import ContractError, ContractErrors
from .render import contract_error_document, dumps
from .version import VERSION


class UsageError(Exception):
    """A command-line error (argparse's own error, turned into exit 2 with a document)."""


class _Parser(argparse.ArgumentParser):
    def error(self, message):
        raise UsageError(message)


def build_parser():
    parser = _Parser(
        prog="run_benchmark.py",
        description="Release gate for AI agents: validate the spec, cases and results files, "
                    "grade every trial, compare baseline and candidate, and decide PASS, "
                    "REVIEW, BLOCK or INCOMPARABLE.",
        epilog="Exit status: 0 PASS; 1 REVIEW, BLOCK or INCOMPARABLE; 2 contract or "
               "command-line error; 3 internal error (a bug). Without arguments the shipped "
               "example package is evaluated.")
    parser.add_argument("--spec", metavar="FILE", help="benchmark spec (default: the example)")
    parser.add_argument("--cases", metavar="FILE", help="benchmark cases (default: the example)")
    parser.add_argument("--results", metavar="FILE",
                        help="results package (default: the example's PASS results)")
    parser.add_argument("--candidate", metavar="ID",
                        help="the candidate's system_id; optional, checked when given")
    parser.add_argument("--version", action="version",
                        version="%s %s" % ("proagents-bench", VERSION))
    return parser


def main(argv=None, stdout=None, stderr=None):
    """Run the gate; return the exit status. ``stdout`` takes bytes, ``stderr`` text."""
    stdout = stdout if stdout is not None else _binary(sys.stdout)
    stderr = stderr if stderr is not None else sys.stderr
    try:
        status, document, messages = _run(argv)
    except KeyboardInterrupt:
        _say(stderr, ["interrupted"])
        return 130
    except Exception as bug:  # noqa: BLE001 - the one place that turns any bug into exit 3
        _say(stderr, ["INTERNAL ERROR: %s: %s (this is a bug in proagents-bench %s; please "
                      "report it with the command and input files)" % (
                          type(bug).__name__, bug, VERSION)])
        return gate.EXIT_INTERNAL_ERROR
    _say(stderr, messages)
    try:
        stdout.write(document)
        stdout.flush()
    except BrokenPipeError:
        _silence_stdout()
    return status


def _run(argv):
    parser = build_parser()
    try:
        options = parser.parse_args(argv)
    except UsageError as usage:
        error = ContractError("cli.usage", "%s (see --help)" % usage)
        return _contract_error([error], 0)
    inputs = gate.default_inputs(options.spec, options.cases, options.results)
    try:
        evaluation = gate.evaluate(inputs, options.candidate)
    except ContractErrors as failure:
        return _contract_error(failure.errors, failure.omitted)
    return evaluation.exit_status, dumps(evaluation.document), []


def _contract_error(errors, omitted):
    lines = [error.stderr_line() for error in errors]
    if omitted:
        lines.append("ERROR: %d more error%s not shown" % (omitted, "" if omitted == 1 else "s"))
    document = dumps(contract_error_document(errors, omitted, VERSION))
    return gate.EXIT_CONTRACT_ERROR, document, lines


def _say(stderr, lines):
    """Write lines to stderr whatever its encoding can show (never fail on a console)."""
    if not lines:
        return
    encoding = getattr(stderr, "encoding", None) or "ascii"
    text = "".join(line + "\n" for line in lines)
    try:
        text = text.encode(encoding, "backslashreplace").decode(encoding)
    except LookupError:
        text = text.encode("ascii", "backslashreplace").decode("ascii")
    try:
        stderr.write(text)
        stderr.flush()
    except (BrokenPipeError, OSError, ValueError):
        pass


def _binary(stream):
    return getattr(stream, "buffer", stream)


def _silence_stdout():
    # The reader went away (``| head``): point stdout at devnull so that the interpreter's
    # final flush does not report a second broken pipe.
    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
    except (OSError, ValueError, AttributeError):
        pass
