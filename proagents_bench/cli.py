"""The command line: the only place that prints or chooses an exit status.

Exit status: 0 PASS; 1 REVIEW, BLOCK or INCOMPARABLE; 2 a file, JSON, schema, version,
coverage or command-line error; 3 an internal error, which is always a bug. Everything is
caught, so a crash can never look like a decision. stdout carries one ASCII JSON document and
nothing else; stderr carries ``ERROR: FILE:LINE:COLUMN: PATH: MESSAGE`` lines.
"""

import argparse
import os
import sys
import time

from . import gate, reports, schema
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
    parser.add_argument("--html", metavar="PATH", help="also write the HTML report to PATH")
    parser.add_argument("--markdown", metavar="PATH",
                        help="also write a Markdown summary to PATH (for CI job summaries: "
                             "$GITHUB_STEP_SUMMARY)")
    parser.add_argument("--junit-xml", metavar="PATH",
                        help="also write a JUnit XML report to PATH (GitLab, Jenkins)")
    parser.add_argument("--schema", choices=schema.KINDS,
                        help="print the JSON Schema of a file kind, or of the output "
                             "document, and exit; reads no input")
    parser.add_argument("--version", action="version",
                        version="%s %s" % ("proagents-bench", VERSION))
    return parser


def main(argv=None, stdout=None, stderr=None):
    """Run the gate; return the exit status. ``stdout`` takes bytes, ``stderr`` text."""
    stdout = stdout if stdout is not None else _binary(sys.stdout)
    stderr = stderr if stderr is not None else sys.stderr
    try:
        status, document, messages = _run(argv, stderr)
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
        for chunk in [document] if isinstance(document, bytes) else document:
            stdout.write(chunk)  # a large decision comes in chunks (Evaluation.chunks)
        stdout.flush()
    except BrokenPipeError:
        _silence_stdout()
    return status


def _run(argv, stderr=None):
    parser = build_parser()
    try:
        options = parser.parse_args(argv)
    except UsageError as usage:
        error = ContractError("cli.usage", "%s (see --help)" % usage)
        return _contract_error([error], 0)
    if options.schema is not None:
        return gate.EXIT_PASS, schema.dumps(options.schema), []
    inputs = gate.default_inputs(options.spec, options.cases, options.results)
    missing = _missing_examples(inputs, options)
    if missing:
        return _contract_error(missing, 0)
    chosen_reports = reports.requested(options)
    problems = reports.path_errors(chosen_reports, inputs)
    if problems:
        return _contract_error(problems, 0)
    try:
        progress = _progress(stderr)
        evaluation = gate.evaluate(inputs, options.candidate, progress)
    except ContractErrors as failure:
        return _contract_error(failure.errors, failure.omitted)
    # Reports only for a decision, all or none, each replaced atomically (see reports.py).
    problems = reports.write(chosen_reports, evaluation)
    if problems:
        return _contract_error(problems, 0)
    if progress is not None:
        progress("writing the decision")
    return evaluation.exit_status, evaluation.chunks(), []


# Progress appears only once a run has taken this long (and only on a terminal).
PROGRESS_AFTER_SECONDS = 2.0


def _progress(stderr):
    """gate.evaluate's progress callback: each stage's name on stderr once the run has taken
    PROGRESS_AFTER_SECONDS, and only when stderr is a terminal (never in a log or a pipe);
    None otherwise. stdout, the JSON document, is never touched."""
    isatty = getattr(stderr, "isatty", None)
    try:
        if isatty is None or not isatty():
            return None
    except (OSError, ValueError):
        return None
    started = time.monotonic()

    def progress(stage):
        elapsed = time.monotonic() - started
        if elapsed >= PROGRESS_AFTER_SECONDS:
            _say(stderr, ["proagents-bench: %s (%.0f s so far)" % (stage, elapsed)])

    return progress


def _missing_examples(inputs, options):
    """An installed package has no examples/ (only a checkout has): say so, not just "no such
    file", for every input left to its default whose example is missing."""
    errors = []
    for item in inputs:
        if getattr(options, item.kind) is None and not os.path.exists(item.path):
            errors.append(ContractError(
                "cli.no_example", "no %s file given, and the shipped example %s is not here "
                "(an installed proagents-bench has no examples; a checkout has them): pass "
                "--%s FILE" % (item.kind, item.shown, item.kind), (), item.shown))
    return errors


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
