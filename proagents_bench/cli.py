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
from .errors import ContractError, ContractErrors, quote
from .render import contract_error_document, dumps
from .streams import (EXIT_INTERRUPTED, DocumentWriter, Interrupted, MessageWriter,
                      OutputError, SignalGuard, reserve_standard_descriptors)
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


def run():
    """The console entry point (``run_benchmark.py``, ``python -m proagents_bench``, the
    installed ``proagents-bench``): exit with :func:`main`'s status."""
    sys.exit(main(restore_signals=False))


def main(argv=None, stdout=None, stderr=None, restore_signals=True):
    """Run the gate; return the exit status. ``stdout`` takes bytes and ``stderr`` text; by
    default the process's own (stdout written through its descriptor, see streams.py)."""
    guard = SignalGuard().install()
    try:
        return _main(argv, stdout, stderr, guard)
    except Interrupted as interrupted:  # a signal in the instants around _main's handling
        return interrupted.status
    finally:
        guard.quiet()
        if restore_signals:
            guard.restore()


def _main(argv, stdout, stderr, guard):
    messages = MessageWriter(stderr if stderr is not None else sys.stderr)
    if stdout is None:
        if reserve_standard_descriptors():
            messages.say([_output_failure("stdout is closed")])
            return EXIT_OUTPUT_FAILURE
        writer = DocumentWriter(descriptor=1)
    else:
        writer = DocumentWriter(stream=stdout)
    try:
        status, document, lines = _run(argv, messages, guard)
        messages.say(lines)
        for chunk in [document] if isinstance(document, bytes) else document:
            writer.write(chunk)  # a large decision comes in chunks (Evaluation.chunks)
        writer.finish()
    except OutputError as failure:
        messages.say([_output_failure(failure.reason, writer.written)])
        return EXIT_OUTPUT_FAILURE
    except (Interrupted, KeyboardInterrupt) as interrupted:
        messages.say(["interrupted%s" % (
            ": stdout holds an incomplete document" if writer.written else "")])
        return getattr(interrupted, "status", EXIT_INTERRUPTED)
    except Exception as bug:  # noqa: BLE001 - the one place that turns any bug into exit 3
        messages.say(["INTERNAL ERROR: %s: %s (this is a bug in proagents-bench %s; please "
                      "report it with the command and input files)" % (
                          type(bug).__name__, bug, VERSION)])
        return gate.EXIT_INTERNAL_ERROR
    return status


# The document could not be written whole: neither a decision nor a contract error.
EXIT_OUTPUT_FAILURE = 4


def _output_failure(reason, written=0):
    return ("ERROR: <stdout>: the output document could not be written completely: %s%s; "
            "it is not a decision (exit %d)" % (
                reason, " after %d bytes" % written if written else "", EXIT_OUTPUT_FAILURE))


def _run(argv, messages, guard):
    parser = build_parser()
    try:
        options = parser.parse_args(argv)
    except UsageError as usage:
        error = ContractError("cli.usage", "%s (see --help)" % _cut(str(usage)))
        return _contract_error([error], 0)
    empty = [ContractError("cli.usage", "--%s was given an empty path: name a file" % option)
             for option in ("spec", "cases", "results") if getattr(options, option) == ""]
    if empty:
        return _contract_error(empty, 0)
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
        progress = _progress(messages)
        evaluation = gate.evaluate(inputs, options.candidate, progress)
    except ContractErrors as failure:
        return _contract_error(failure.errors, failure.omitted)
    # Reports only for a decision, all or none, each replaced atomically (see reports.py).
    problems = reports.write(chosen_reports, evaluation, guard.deferred)
    if problems:
        return _contract_error(problems, 0)
    if progress is not None:
        progress("writing the decision")
    return evaluation.exit_status, evaluation.chunks(), []


# Progress appears only once a run has taken this long (and only on a terminal).
PROGRESS_AFTER_SECONDS = 2.0


def _progress(messages):
    """gate.evaluate's progress callback: each stage's name on stderr once the run has taken
    PROGRESS_AFTER_SECONDS, and only when stderr is a terminal (never in a log or a pipe);
    None otherwise. stdout, the JSON document, is never touched."""
    if not messages.isatty():
        return None
    started = time.monotonic()

    def progress(stage):
        elapsed = time.monotonic() - started
        if elapsed >= PROGRESS_AFTER_SECONDS:
            messages.say(["proagents-bench: %s (%.0f s so far)" % (stage, elapsed)])

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
                "--%s FILE" % (item.kind, quote(item.shown), item.kind), (), item.shown))
    return errors


# argparse quotes the arguments it refuses: a usage message shows this much of them.
MAX_USAGE_CHARS = 1000


def _cut(text):
    return text if len(text) <= MAX_USAGE_CHARS else text[:MAX_USAGE_CHARS] + "... (cut)"


def _contract_error(errors, omitted):
    lines = [error.stderr_line() for error in errors]
    if omitted:
        lines.append("ERROR: %d more error%s not shown" % (omitted, "" if omitted == 1 else "s"))
    document = dumps(contract_error_document(errors, omitted, VERSION))
    return gate.EXIT_CONTRACT_ERROR, document, lines
