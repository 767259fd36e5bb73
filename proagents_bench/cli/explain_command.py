"""``run_benchmark.py explain --spec F --cases F --results F [--baseline LOG ...]
[--candidate LOG ...] [--case ID ...] [--html P] [--markdown P | --markdown-append P]
[--output P] [--format auto|json|text]``: why the gate decided as it did, each task that
regressed, failed a critical gate or broke a rule explained from the harnesses' own traces
(see :mod:`proagents_bench.explain`).

The files are checked and decided exactly as the gate does; the logs are the ones the
package was imported from (``import --trace-refs``), given as the import was given them. stdout
carries the explanation document (``"action": "EXPLAINED"``; at a terminal its text), the
reports are the gate's with the explanation in them, and the exit status is the decision's
(``--fail-on`` and ``--distinct-exit-codes`` as the gate's). A trace that cannot be read (a
log missing, changed since the import, damaged) is said in the explanation and on stderr:
the decision stands without it.
"""

from __future__ import annotations

import argparse
from typing import TYPE_CHECKING, List, Optional, Sequence

from .. import pipeline
from ..contract.vocabulary import ROLES
from ..errors import ContractError, ContractErrors
from ..explain.explanation import Explained, explain
from ..importers.source import LogSource
from ..reports.registry import EXPLAIN_REPORTS, explain_text
from . import Outcome, Session, contract_error_outcome
from .fork import forking_fingerprinter
from .gate_command import add_decision_options, deliver
from .progress import EAGER_BYTES, Progress
from .report_files import add_output_options
from .usage import Parser

if TYPE_CHECKING:  # for annotations only
    from .report_paths import Input


def add_arguments(parser: Parser) -> None:
    parser.description = ("Why the gate decided as it did: every task whose verdict is worse "
                          "for the candidate, or that failed a critical gate or broke a rule, "
                          "explained from the harnesses' own traces (import the logs with "
                          "--trace-refs, then give them here as the import was given them).")
    parser.epilog = ("Exit status: the decision's, as the gate's (0 PASS; 1 REVIEW, BLOCK or "
                     "INCOMPARABLE); 2 a contract or command-line error. A trace that cannot "
                     "be read is said, never an error: the decision stands without it.")
    for kind in ("spec", "cases", "results"):
        parser.add_argument("--" + kind, metavar="FILE", required=True,
                            help="the %s, as the gate reads it" % {
                                "spec": "benchmark spec", "cases": "benchmark cases",
                                "results": "results package (imported with --trace-refs: "
                                           "agent-benchmark-results-v5)"}[kind])
    for role in ROLES:
        parser.add_argument("--" + role, metavar="LOG", action="append",
                            help="the %s's log, as the import was given it; given more than "
                                 "once, its logs in the order the import was given them" % role)
    parser.add_argument("--case", metavar="ID", action="append", default=[],
                        help="also explain this test task (to see a candidate's path beside "
                             "the baseline's where nothing failed); may be given more than "
                             "once")
    add_output_options(parser, EXPLAIN_REPORTS, "the explanation document", _inputs)
    add_decision_options(parser, "decisions")


def _inputs(options: argparse.Namespace) -> List[Input]:
    """The files read (for the report paths' checks): the three files and every log."""
    named: List[Input] = [pipeline.InputFile(kind, getattr(options, kind)) for kind in
                          pipeline.KINDS if getattr(options, kind)]
    named += [pipeline.InputFile("log", path) for role in ROLES
              for path in getattr(options, role, None) or [] if path]
    return named


def run(options: argparse.Namespace, session: Session) -> Outcome:
    targets = session.targets
    problems = targets.aim(options)
    empty = [ContractError("cli.usage", "--%s was given an empty value" % option.replace(
        "_", "-")) for option in ("spec", "cases", "results") if not getattr(options, option)]
    empty += [ContractError("cli.usage", "--%s was given an empty value" % option)
              for option in ROLES + ("case",) for value in getattr(options, option) or []
              if not value.strip()]
    # A log that is a FIFO or a device is refused before anything is read: its open would
    # block (a trace that cannot be read is said; a log that is no file is a usage error).
    empty += [source.error("import.unreadable", "cannot read the log: it is not a regular "
                           "file or a folder")
              for role in ROLES for source in _logs(getattr(options, role)) or []
              if source.path.strip() and not source.openable(folder=True)]
    if empty or problems:
        return contract_error_outcome(empty + problems)
    inputs = [pipeline.InputFile(kind, getattr(options, kind)) for kind in pipeline.KINDS]
    size = sum(item.size() or 0 for item in inputs)
    progress = Progress(session.messages.say, size >= EAGER_BYTES) \
        if session.messages.isatty() else None
    try:
        checked = pipeline.check(inputs, None, progress, forking_fingerprinter(size))
        unknown = _unknown_cases(checked, options.case) + _log_counts(checked, options)
        if unknown:
            checked.abandon()
            return contract_error_outcome(unknown)
        evaluation = checked.decide()
    except ContractErrors as failure:
        return contract_error_outcome(failure.errors, failure.omitted)
    if progress is not None:
        progress("reading the traces")
    document = explain(checked, evaluation, {role: _logs(getattr(options, role))
                                             for role in ROLES}, options.case)
    explained = Explained(evaluation, document)
    outcome = deliver(explained, explain_text, options, session, targets, progress, explained)
    if not (options.summary or targets.text or session.messages.isatty()):
        # The traces that could not be read are said on stderr too (the summary says them).
        outcome.lines = ["proagents-bench explain: %s: %s: %s" % (
            problem["code"], problem["where"], problem["message"])
            for problem in document["problems"]] + outcome.lines
    return outcome


def _logs(paths: Optional[Sequence[str]]) -> Optional[List[LogSource]]:
    return None if paths is None else [LogSource(path) for path in paths]


def _log_counts(checked: pipeline.Checked, options: argparse.Namespace) -> List[ContractError]:
    """``cli.usage`` for a system given other logs than its provenance lists (as many, in the
    import's order): a log too many or too few would be read for another's traces."""
    errors = []
    for role, system in zip(ROLES, (checked.systems.baseline, checked.systems.candidate)):
        given = getattr(options, role)
        provenance = system.get("provenance")
        if given is None or provenance is None:
            continue
        listed = len(provenance.get("logs") or [provenance])
        if len(given) != listed:
            errors.append(ContractError("cli.usage", "--%s was given %d log%s, and the "
                                        "package's %s was imported from %d: give them as the "
                                        "import was given them" % (
                                            role, len(given), "" if len(given) == 1 else "s",
                                            role, listed)))
    return errors


def _unknown_cases(checked: pipeline.Checked, asked: Sequence[str]) -> List[ContractError]:
    """``cli.usage`` for every ``--case`` that names no test case of the cases file."""
    tests = {case["id"] for case in checked.cases["cases"] if case["split"] == "test"}
    return [ContractError("cli.usage", "--case %s names no test case of the cases file" % (
        case_id)) for case_id in asked if case_id not in tests]
