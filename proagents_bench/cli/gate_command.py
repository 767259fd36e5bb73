"""The gate: ``run_benchmark.py [--spec F] [--cases F] [--results F] [--candidate ID]
[--html P] [--markdown P] [--junit-xml P] [--schema KIND]``.

Without arguments it evaluates the shipped example package; ``--schema`` prints a JSON Schema
and reads nothing. stdout carries one ASCII JSON document (the decision, or CONTRACT_ERROR);
stderr carries ``ERROR: FILE:LINE:COLUMN: PATH: MESSAGE`` lines.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
from typing import Callable, List, Optional

from .. import pipeline
from ..contract import publish
from ..contract.vocabulary import INFORMATIONAL
from ..errors import ContractError, ContractErrors
from ..jsonio import load
from ..jsonio.atomic import AtomicWriteError, write_files_atomically
from ..reports import write as reports
from ..text import quote, show_number
from ..version import VERSION
from . import Outcome, Session, contract_error_outcome
from .parallel import forking_fingerprinter
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
    """argparse, with its errors raised (for exit 2 and a document) instead of printed, and
    no abbreviated long options (``--result`` must never mean ``--results``)."""

    def __init__(self, *arguments, **keywords):
        keywords.setdefault("allow_abbrev", False)
        super().__init__(*arguments, **keywords)

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
               "Other commands: import, release, publish, bench, serve, team, submit.")
    parser.add_argument("--spec", metavar="FILE",
                        help="benchmark spec (default: the example; - reads standard input)")
    parser.add_argument("--cases", metavar="FILE",
                        help="benchmark cases (default: the example; - reads standard input)")
    parser.add_argument("--results", metavar="FILE",
                        help="results package (default: the example's PASS results; - reads "
                             "standard input)")
    parser.add_argument("--candidate", metavar="ID",
                        help="the candidate's system_id; optional, checked when given")
    for report in reports.REPORTS:
        parser.add_argument(report.option, metavar="PATH", help=report.help)
    parser.add_argument("--output", metavar="PATH",
                        help="write the JSON document to PATH (atomically, with the reports) "
                             "instead of stdout")
    parser.add_argument("--summary", action="store_true",
                        help="also write a short human summary to stderr (the default when "
                             "stderr is a terminal)")
    parser.add_argument("--schema", choices=publish.KINDS,
                        help="print the JSON Schema of a file kind, or of the output "
                             "document, and exit; reads no input")
    parser.add_argument("-V", "--version", action="version",
                        version="%s %s" % ("proagents-bench", VERSION))
    return parser


STDIN_PATH = "-"
STDIN_SHOWN = "<stdin>"


def read_standard_input() -> bytes:
    """Standard input's bytes, read up to just past the loader's size limit."""
    stream = getattr(sys.stdin, "buffer", None)
    if stream is None:
        return b""
    chunks, size = [], 0
    while size <= load.MAX_FILE_BYTES:
        chunk = stream.read(1 << 20)
        if not chunk:
            break
        chunks.append(chunk)
        size += len(chunk)
    return b"".join(chunks)


def default_inputs(spec: Optional[str] = None, cases: Optional[str] = None,
                   results: Optional[str] = None,
                   stdin: Callable[[], bytes] = read_standard_input) -> List[pipeline.InputFile]:
    """The three inputs; a file not given is the shipped example; ``-`` is standard input
    (read by ``stdin()``)."""
    chosen = []
    for kind, given in (("spec", spec), ("cases", cases), ("results", results)):
        if given == STDIN_PATH:
            chosen.append(pipeline.InputFile(kind, None, STDIN_SHOWN, data=stdin()))
        elif given is not None:
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
             for option in ("spec", "cases", "results", "output")
             if getattr(options, option) == ""]
    if [getattr(options, kind) for kind in ("spec", "cases", "results")].count(STDIN_PATH) > 1:
        empty.append(ContractError("cli.usage", "only one input can be standard input (-)"))
    if empty:
        return contract_error_outcome(empty)
    if options.schema is not None:
        return Outcome(EXIT_PASS, publish.schema_bytes(options.schema))
    inputs = default_inputs(options.spec, options.cases, options.results)
    missing = _missing_examples(inputs, options)
    if missing:
        return contract_error_outcome(missing)
    chosen_reports = reports.requested(options)
    output = options.output if options.output not in (None, STDIN_PATH) else None
    checked = chosen_reports + ([(OUTPUT_OPTION, output)] if output else [])
    problems = reports.path_errors(checked, [item for item in inputs if item.path])
    if problems:
        return contract_error_outcome(problems)
    progress = _progress(session)
    try:
        evaluation = pipeline.evaluate(inputs, options.candidate, progress,
                                       forking_fingerprinter(_input_bytes(inputs)))
    except ContractErrors as failure:
        outcome = contract_error_outcome(failure.errors, failure.omitted)
        return _to_output(outcome, output, session) if output else outcome
    if progress is not None:
        progress("writing the decision")
    status = EXIT_PASS if evaluation.passed else EXIT_DECISION
    document = (output, evaluation.dumps()) if output else None
    # Reports only for a decision, all or none, each replaced atomically (see reports.write).
    problems = reports.write(chosen_reports, evaluation, session.guard.deferred, document)
    if problems:
        return contract_error_outcome(problems)
    lines = summary_lines(evaluation) if options.summary or session.messages.isatty() else []
    return Outcome(status, b"" if output else evaluation.chunks(), lines, kept=evaluation)


class _OutputOption:
    """``--output`` among the reports, for the checks of their paths."""

    option = "--output"
    name = "output document"


OUTPUT_OPTION = _OutputOption()


def _to_output(outcome: Outcome, path: str, session: Session) -> Outcome:
    """A CONTRACT_ERROR outcome with its document written to ``path`` instead of stdout."""
    try:
        write_files_atomically([(path, outcome.output)], session.guard.deferred)
    except AtomicWriteError as problem:
        return contract_error_outcome(outcome_errors(outcome) + [ContractError(
            "cli.report_unwritable", "cannot write the output document: %s" % problem.reason,
            (), path)])
    return Outcome(outcome.status, b"", outcome.lines)


def outcome_errors(outcome: Outcome) -> List[ContractError]:
    """The errors of a CONTRACT_ERROR outcome, read back from its document."""
    document = json.loads(outcome.output.decode("ascii"))
    return [ContractError(error["code"], error["message"], (), error["file"], error["line"],
                          error["column"]) for error in document["errors"]]


def summary_lines(evaluation: pipeline.Evaluation) -> List[str]:
    """A few lines for a person at a terminal: the decision, the primary reason, the primary
    rates, the interval and the caveats (stdout stays the JSON document)."""
    document = evaluation.lazy_document
    lines = ["proagents-bench: %s: %s" % (evaluation.action, document["primary_reason"])]
    baseline, candidate = document["baseline_metrics"], document["candidate_metrics"]
    if baseline and candidate:
        comparison = document["comparison"]
        low, high = comparison["paired_bootstrap_interval"]
        lines.append("  task success rate: candidate %s %s, baseline %s %s; paired difference "
                     "%s, %s%% bootstrap interval [%s, %s]" % (
                         document["candidate_system"],
                         show_number(candidate["primary_task_success_rate"]),
                         document["baseline_system"],
                         show_number(baseline["primary_task_success_rate"]),
                         show_number(comparison["paired_task_success_delta"]),
                         show_number(comparison["confidence"] * 100), show_number(low),
                         show_number(high)))
    more = len(evaluation.decision.reasons) - 1
    if more:
        lines.append("  and %d more reason%s in the document" % (more, "" if more == 1 else "s"))
    for finding in evaluation.decision.findings:
        if finding.severity == INFORMATIONAL:
            lines.append("  note: %s" % finding.reason)
    return lines


def _input_bytes(inputs: List[pipeline.InputFile]) -> int:
    """The inputs' size in bytes together (0 for what cannot be measured)."""
    total = 0
    for item in inputs:
        if item.data is not None:
            total += len(item.data)
        else:
            try:
                total += os.path.getsize(item.path)
            except OSError:
                pass
    return total


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
        if getattr(options, item.kind) is None and not os.path.exists(item.path or ""):
            errors.append(ContractError(
                "cli.no_example", "no %s file given, and the shipped example %s is not here "
                "(an installed proagents-bench has no examples; a checkout has them): pass "
                "--%s FILE" % (item.kind, quote(item.shown), item.kind), (), item.shown))
    return errors
