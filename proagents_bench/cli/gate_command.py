"""The gate: ``run_benchmark.py [--spec F] [--cases F] [--results F] [--candidate ID]
[--html P] [--markdown P] [--junit-xml P] [--schema KIND]``.

Without arguments it evaluates the shipped example package; ``--schema`` prints a JSON Schema
and reads nothing. stdout carries one ASCII JSON document (the decision, or CONTRACT_ERROR);
stderr carries ``ERROR: FILE:LINE:COLUMN: PATH: MESSAGE`` lines.
"""

from __future__ import annotations

import argparse
import os
import time
from typing import List, Optional

from .. import pipeline
from ..contract import publish
from ..errors import ContractError, ContractErrors
from ..reports import write as reports
from ..text import quote
from ..version import VERSION
from . import Outcome, Session, contract_error_outcome
from .status import EXIT_DECISION, EXIT_PASS

# The shipped example package, evaluated when no file is given; shown relative to the
# project (``examples/benchmark_spec.json``) so the document is the same on every machine.
EXAMPLES_FOLDER = "examples"
DEFAULT_FILES = {
    "spec": "benchmark_spec.json",
    "cases": "benchmark_cases.json",
    "results": "benchmark_results_pass.json",
}
PROJECT_ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

# Progress appears only once a run has taken this long (and only on a terminal).
PROGRESS_AFTER_SECONDS = 2.0

# argparse quotes the arguments it refuses: a usage message shows this much of them.
MAX_USAGE_CHARS = 1000


class UsageError(Exception):
    """A command-line error (argparse's own error, turned into exit 2 with a document)."""


class Parser(argparse.ArgumentParser):
    """argparse, with its errors raised (for exit 2 and a document) instead of printed."""

    def error(self, message):
        raise UsageError(message)


def build_parser(program: str = "run_benchmark.py") -> Parser:
    parser = Parser(
        prog=program,
        description="Release gate for AI agents: validate the spec, cases and results files, "
                    "grade every trial, compare baseline and candidate, and decide PASS, "
                    "REVIEW, BLOCK or INCOMPARABLE.",
        epilog="Exit status: 0 PASS; 1 REVIEW, BLOCK or INCOMPARABLE; 2 contract or "
               "command-line error; 3 internal error (a bug); 4 the document could not be "
               "written whole. Without arguments the shipped example package is evaluated. "
               "Other commands: publish, bench.")
    parser.add_argument("--spec", metavar="FILE", help="benchmark spec (default: the example)")
    parser.add_argument("--cases", metavar="FILE", help="benchmark cases (default: the example)")
    parser.add_argument("--results", metavar="FILE",
                        help="results package (default: the example's PASS results)")
    parser.add_argument("--candidate", metavar="ID",
                        help="the candidate's system_id; optional, checked when given")
    for report in reports.REPORTS:
        parser.add_argument(report.option, metavar="PATH", help=report.help)
    parser.add_argument("--schema", choices=publish.KINDS,
                        help="print the JSON Schema of a file kind, or of the output "
                             "document, and exit; reads no input")
    parser.add_argument("--version", action="version",
                        version="%s %s" % ("proagents-bench", VERSION))
    return parser


def default_inputs(spec: Optional[str] = None, cases: Optional[str] = None,
                   results: Optional[str] = None) -> List[pipeline.InputFile]:
    """The three inputs; a file not given is the shipped example."""
    chosen = []
    for kind, given in (("spec", spec), ("cases", cases), ("results", results)):
        if given is not None:
            chosen.append(pipeline.InputFile(kind, given))
        else:
            name = DEFAULT_FILES[kind]
            chosen.append(pipeline.InputFile(kind, os.path.join(PROJECT_ROOT, EXAMPLES_FOLDER,
                                                                name),
                                             EXAMPLES_FOLDER + "/" + name))
    return chosen


def run(arguments: List[str], session: Session) -> Outcome:
    try:
        options = build_parser(session.program).parse_args(arguments)
    except UsageError as usage:
        text = str(usage)
        if len(text) > MAX_USAGE_CHARS:
            text = text[:MAX_USAGE_CHARS] + "... (cut)"
        return contract_error_outcome([ContractError("cli.usage", "%s (see --help)" % text)])
    empty = [ContractError("cli.usage", "--%s was given an empty path: name a file" % option)
             for option in ("spec", "cases", "results") if getattr(options, option) == ""]
    if empty:
        return contract_error_outcome(empty)
    if options.schema is not None:
        return Outcome(EXIT_PASS, publish.schema_bytes(options.schema))
    inputs = default_inputs(options.spec, options.cases, options.results)
    missing = _missing_examples(inputs, options)
    if missing:
        return contract_error_outcome(missing)
    chosen_reports = reports.requested(options)
    problems = reports.path_errors(chosen_reports, inputs)
    if problems:
        return contract_error_outcome(problems)
    progress = _progress(session)
    try:
        evaluation = pipeline.evaluate(inputs, options.candidate, progress)
    except ContractErrors as failure:
        return contract_error_outcome(failure.errors, failure.omitted)
    # Reports only for a decision, all or none, each replaced atomically (see reports.write).
    problems = reports.write(chosen_reports, evaluation, session.guard.deferred)
    if problems:
        return contract_error_outcome(problems)
    if progress is not None:
        progress("writing the decision")
    return Outcome(EXIT_PASS if evaluation.passed else EXIT_DECISION, evaluation.chunks())


def _progress(session: Session):
    """The pipeline's progress callback: each stage's name on stderr once the run has taken
    PROGRESS_AFTER_SECONDS, and only when stderr is a terminal (never in a log or a pipe);
    None otherwise. stdout, the JSON document, is never touched."""
    if not session.messages.isatty():
        return None
    started = time.monotonic()

    def progress(stage):
        elapsed = time.monotonic() - started
        if elapsed >= PROGRESS_AFTER_SECONDS:
            session.messages.say(["proagents-bench: %s (%.0f s so far)" % (stage, elapsed)])

    return progress


def _missing_examples(inputs, options) -> List[ContractError]:
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
