"""The files a run writes beside stdout: its reports (``--html``, ...) and its ``--output``
document, and the rule that none of them outlives its run.

A result's reports (a decision, a health, a release) are written all of them or none: every
report is rendered first, then written atomically (see
:mod:`proagents_bench.jsonio.atomic`). A run that ends without a result (a contract error, a
report that cannot be written, an internal error, an interruption) replaces every report it
was asked for by a report of that outcome, each on its own, and its ``--output`` by its
CONTRACT_ERROR document (or removes it: exit 3, 130 and 143 have no document), so no path is
left holding an earlier run's result (:class:`Targets`, :func:`guarded`). Problems come back
as :class:`~proagents_bench.errors.ContractError` values, reported with exit status 2.
"""

from __future__ import annotations

import argparse
import os
import stat
from typing import (TYPE_CHECKING, Any, Callable, ContextManager, Generic, List, NamedTuple,
                    Optional, Sequence, Tuple, Union)

from ..contract.vocabulary import CONTRACT_ERROR
from ..errors import ContractError
from ..jsonio.atomic import AtomicWriteError, write_files_atomically
from ..render.nodecision import INTERNAL_ERROR, INTERRUPTED, NoDecision
from ..reports.registry import REPORTS, Report, Reported, no_decision_text
from ..text import quote
from . import Outcome, contract_error_outcome, internal_error_line
from .report_paths import (OUTPUT_OPTION, STDOUT_PATH, OutputOption, checked_paths, path_error,
                           requested)
from .status import EXIT_CONTRACT_ERROR, EXIT_INTERNAL_ERROR, EXIT_INTERRUPTED, EXIT_TERMINATED
from .streams import Interrupted
from .usage import Parser, UsageError

if TYPE_CHECKING:  # for annotations only
    from . import Session
    from .report_paths import Input

# A section of the command line in which a signal waits (see jsonio/atomic.py).
CriticalSection = Callable[[], ContextManager[None]]
# --format: what stdout carries. "auto" is text on a terminal and JSON everywhere else; the
# gate also writes GitHub Actions annotations ("github", reports/github.py).
FORMATS = ("auto", "json", "text")
GITHUB = "github"


# inputs(options): the files a command reads, which no report or --output may overwrite.
Inputs = Callable[[argparse.Namespace], Sequence["Input"]]


class Outputs(NamedTuple):
    """What a command writes besides stdout: its ``kinds`` of reports (and ``--output``),
    and the ``inputs`` they must never overwrite."""

    # The reports of one command render what it decides (an Evaluation, a Health, a
    # Release): the dispatcher that reads them need not know which.
    kinds: Sequence[Report[Any]]
    inputs: Inputs


def _no_inputs(options: argparse.Namespace) -> Sequence[Input]:
    return []


def add_output_options(parser: Parser, kinds: Sequence[Report[Reported]], document: str,
                       inputs: Inputs, formats: Sequence[str] = FORMATS) -> None:
    """The options of what a command writes: its reports (``kinds``), ``--output`` and
    ``--format`` (``document``: what its JSON document is), ``inputs(options)`` being the
    files they must not overwrite. The parser's ``outputs`` say so to the dispatcher, which
    then runs the command guarded (:func:`guarded`)."""
    parser.outputs = Outputs(kinds, inputs)
    for report in kinds:
        parser.add_argument(report.option, metavar="PATH", help=report.help)
    parser.add_argument("--output", metavar="PATH",
                        help="write the JSON document to PATH (atomically%s) instead of "
                             "stdout" % (", with the reports" if kinds else ""))
    add_format_option(parser, document, formats)


def add_format_option(parser: Parser, document: str,
                      formats: Sequence[str] = FORMATS) -> None:
    """``--format``: what stdout carries (``document``: what its JSON document is)."""
    parser.add_argument("--format", choices=formats, default="auto",
                        help="what stdout carries: json (%s), text (a summary for people), %s"
                             "or auto (default): text when stdout is a terminal, json in every "
                             "pipe and file" % (document, "github (GitHub Actions annotations: "
                                                "each reason on its file's line), "
                                                if GITHUB in formats else ""))


def text_wanted(options: Optional[argparse.Namespace], session: Session) -> bool:
    """Whether stdout carries the text mode: ``--format text``, or ``auto`` (a command
    without ``--format``, or ``options`` None: a command line that did not parse) at a
    terminal."""
    chosen = getattr(options, "format", None)
    return chosen == "text" or (chosen in (None, "auto") and session.stdout.isatty())


def said(outcome: Outcome, options: Optional[argparse.Namespace], session: Session) -> Outcome:
    """A command that writes no reports: its CONTRACT_ERROR said as the gate says it
    (:meth:`Targets.contract_error`), one line in the text mode (:func:`text_wanted`), its
    errors being on stderr as always, and the JSON document everywhere else. ``options``
    is None when the command line did not parse: its ``--format`` is then read leniently,
    as the gate reads it (a usage error before it, or none: the terminal decides)."""
    if outcome.status != EXIT_CONTRACT_ERROR or not outcome.errors or not text_wanted(
            options if options is not None else _named_paths(session.arguments), session):
        return outcome
    return Outcome(outcome.status, no_decision_text().no_decision(
        NoDecision(CONTRACT_ERROR, outcome.status, outcome.errors, outcome.omitted), None),
        outcome.lines, errors=outcome.errors, omitted=outcome.omitted)


def for_people(outcome: Outcome, text: bool, of_document: bool = False) -> Outcome:
    """A command whose summary is its lines (init, plan, import): in the text mode stdout
    carries those lines and where the JSON document is, not the document; else ``outcome``
    as it is (and a CONTRACT_ERROR, which the dispatcher says: :func:`said`). With
    ``of_document`` (a small document: team, phase, backup, restore, submit's answer), the
    lines are the document's own (reports/document_text.py), and the outcome's stay on
    stderr."""
    if not text or (outcome.status == EXIT_CONTRACT_ERROR and outcome.errors):
        return outcome
    stderr: List[str] = []
    lines = outcome.lines
    if of_document:
        import json
        from ..reports.document_text import document_lines
        output = outcome.output
        stderr, lines = lines, document_lines(json.loads(
            output if isinstance(output, bytes) else b"".join(output)))
    lines = lines + ["The JSON document: --format json."]
    return Outcome(outcome.status, "".join(line + "\n" for line in lines).encode(
        "ascii", "backslashreplace"), stderr, kept=outcome.kept, after=outcome.after)


def guarded(arguments: List[str], targets: Targets[Reported],
            body: Callable[[], Outcome]) -> Outcome:
    """Run a command that writes reports (``body``, which parses ``arguments``) so that no
    report outlives its run: a run that ends without a result replaces every report
    ``targets`` names by a report of that outcome, and its ``--output`` by its
    CONTRACT_ERROR document or by nothing. The paths are read from ``arguments`` leniently
    first, so that a command line argparse refuses still names them."""
    try:
        targets.aim(_named_paths(arguments))
        outcome = body()
        if outcome.status == EXIT_CONTRACT_ERROR:
            outcome = targets.contract_error(outcome)
    except (Interrupted, KeyboardInterrupt) as stop:
        status = getattr(stop, "status", EXIT_INTERRUPTED)
        targets.abandon(NoDecision(INTERRUPTED, status, detail="stopped by %s" % (
            "SIGTERM" if status == EXIT_TERMINATED else "SIGINT (Ctrl-C)")))
        raise
    except Exception as bug:
        targets.abandon(NoDecision(INTERNAL_ERROR, EXIT_INTERNAL_ERROR,
                                   detail=internal_error_line(bug)))
        raise
    return outcome


def _named_paths(arguments: List[str]) -> Optional[argparse.Namespace]:
    """The input, report and output paths of ``arguments``, read leniently (anything else is
    ignored), so that a command line argparse refuses still names the reports its CONTRACT_ERROR
    replaces; None when even these cannot be read."""
    parser = Parser(add_help=False)
    for option in ("--spec", "--cases", "--results", "--output", "--format"):
        parser.add_argument(option)
    parser.add_argument("--summary", action="store_true")
    for report in REPORTS:
        parser.add_argument(report.option)
    try:
        return parser.parse_known_args(arguments)[0]
    except UsageError:
        return None


class Targets(Generic[Reported]):
    """The paths a run writes besides stdout: the reports (report, path) and ``--output``,
    only those that passed the path checks (never an input, stdout, stderr or a path named
    twice). A result is written by its command (:meth:`write`); a run without one ends here.
    ``kinds`` are the command's reports (:data:`~proagents_bench.reports.registry.REPORTS`
    for the gate) and ``inputs(options)`` its input files."""

    def __init__(self, session: Session, kinds: Sequence[Report[Reported]] = (),
                 inputs: Inputs = _no_inputs) -> None:
        self.session = session
        self.kinds = kinds
        self.inputs = inputs
        self.reports: List[Tuple[Report[Reported], str]] = []
        self.output: Optional[str] = None
        self.text = False  # stdout carries the text mode, not JSON
        self.annotations = False  # stdout carries GitHub Actions annotations, not JSON
        self.summary = False  # --summary: say the outcome on stderr too

    def aim(self, options: Optional[argparse.Namespace], more: Sequence[Input] = ()
            ) -> List[ContractError]:
        """Take the report and output paths of ``options`` (None: keep what is known); return
        the errors of the paths that cannot be written: among them, one that is an input
        (``inputs(options)`` and ``more``, files known once the inputs are read)."""
        if options is None:
            return []
        output = options.output if options.output not in (None, STDOUT_PATH) else None
        chosen: List[Tuple[Union[Report[Reported], OutputOption], str]] = []
        chosen += requested(options, self.kinds)
        chosen += [(OUTPUT_OPTION, output)] if output else []
        problems, usable = checked_paths(chosen, [item for item in list(self.inputs(options)) +
                                                  list(more) if item.path])
        self.reports = [(report, path) for report, path in usable
                        if isinstance(report, Report)]  # all but OUTPUT_OPTION
        self.output = next((path for report, path in usable if report is OUTPUT_OPTION), None)
        self.text = text_wanted(options, self.session)
        self.annotations = options.format == GITHUB
        self.summary = getattr(options, "summary", False)
        return problems

    def hints(self) -> List[str]:
        """The text mode's closing lines: where the JSON document and the reports are."""
        lines = ["The JSON document: %s." % (self.output if self.output else
                                             "--format json, or --output FILE")]
        if self.reports:
            lines.append("Reports: %s." % ", ".join(path for _report, path in self.reports))
        else:
            lines.append("The whole report: --html FILE.")
        return lines

    def write(self, decided: Optional[Reported], document: Optional[bytes],
              also: Sequence[Tuple[str, bytes, str]] = ()) -> List[ContractError]:
        """Render and write every report of ``decided``, the JSON ``document`` to
        ``--output`` (when given) and the files ``also`` (path, bytes, name: the gate's
        ledger), all of them or none; return [] or the one error that stopped it. An
        appended report is added last, in one write, once every replaced file is in place:
        its file is checked to take an append first."""
        rendered = [] if decided is None else [(report, path, report.render(decided))
                                               for report, path in self.reports]
        files = [(path, data) for report, path, data in rendered if not report.append]
        appends = [item for item in rendered if item[0].append]
        names = {path: report.name for report, path, _data in rendered}
        if self.output is not None and document is not None:
            files.append((self.output, document))
            names[self.output] = OUTPUT_OPTION.name
        for path, data, name in also:
            files.append((path, data))
            names[path] = name
        for report, path, _data in appends:
            problem = _append_problem(path)
            if problem:
                return [path_error(path, "cannot append the %s: %s (nothing was written)" % (
                    report.name, problem), code="cli.report_unwritable")]
        try:
            if files:
                write_files_atomically(files, self.session.guard.deferred)
        except AtomicWriteError as problem:
            if problem.replaced:
                aftermath = "the report%s at %s could not be put back" % (
                    "s" if len(problem.replaced) > 1 else "",
                    ", ".join(quote(path) for path in problem.replaced))
            else:
                aftermath = "no report of this decision was written"
            return [path_error(problem.path, "cannot write the %s: %s (%s)" % (
                names[problem.path], problem.reason, aftermath), code="cli.report_unwritable")]
        for report, path, data in appends:
            try:
                with open(path, "ab") as stream:
                    stream.write(data)
            except OSError as problem:
                return [path_error(path, "cannot append the %s: %s (the other reports were "
                                         "written)" % (report.name, problem.strerror or problem),
                                   code="cli.report_unwritable")]
        return []

    def contract_error(self, outcome: Outcome) -> Outcome:
        """Exit 2: every report replaced by its CONTRACT_ERROR report; the document to
        ``--output`` when given, else to stdout (in the text mode one line, the errors being
        on stderr). A report still holding an earlier file is one more error."""
        errors, omitted = outcome.errors, outcome.omitted
        failures = self.write_no_decision(NoDecision(CONTRACT_ERROR, outcome.status, errors,
                                                     omitted))
        if failures:
            errors = errors + failures
            outcome = contract_error_outcome(errors, omitted)
        written = False
        if self.output is not None:
            try:
                document = outcome.output
                write_files_atomically([(self.output, document if isinstance(document, bytes)
                                         else b"".join(document))],
                                       self.session.guard.deferred)
                written = True
            except AtomicWriteError as problem:
                errors = errors + [ContractError(
                    "cli.report_unwritable", "cannot write the output document: %s" %
                    problem.reason, (), self.output)]
                outcome = contract_error_outcome(errors, omitted)
        stdout = b"" if written else outcome.output
        if self.annotations:
            from ..reports import github
            stdout = github.render_errors(errors, omitted)
        elif self.text:
            stdout = no_decision_text().no_decision(
                NoDecision(CONTRACT_ERROR, outcome.status, errors, omitted),
                "The CONTRACT_ERROR document: %s." % self.output if written else None)
        lines = outcome.lines
        if self.summary:
            lines = lines + ["proagents-bench: %s" % NoDecision(CONTRACT_ERROR, outcome.status,
                                                                errors, omitted).headline]
        return Outcome(outcome.status, stdout, lines, errors=errors, omitted=omitted)

    def abandon(self, outcome: NoDecision) -> None:
        """An internal error or an interruption: every report replaced by the outcome's
        report, the ``--output`` file removed (these exits have no document); whatever fails
        here changes nothing of the exit status already decided."""
        try:
            self.write_no_decision(outcome)
        except Exception:  # noqa: BLE001 - the run already ends with exit 3 or 130
            pass
        if self.output is not None:
            try:
                os.remove(self.output)
            except OSError:
                pass

    def write_no_decision(self, outcome: NoDecision) -> List[ContractError]:
        """Replace every report by the report of ``outcome``, a run without a result, so
        that none is left holding an earlier run's; an appended report gets the outcome
        appended. Each file is written atomically on its own, and one that cannot be written
        never keeps the others from being replaced. Returns an error for each path that
        still holds an earlier file (a path where nothing was, or that is a folder or a
        device, holds no earlier report and needs none)."""
        errors: List[ContractError] = []
        for report, path in self.reports:
            try:
                data = report.render_no_decision(outcome)
                if report.append:
                    if _append_problem(path) is None:
                        with open(path, "ab") as stream:
                            stream.write(data)
                    continue
                write_files_atomically([(path, data)], self.session.guard.deferred)
            except (AtomicWriteError, OSError) as problem:
                if os.path.isfile(path) and not report.append:
                    errors.append(path_error(
                        path, "cannot replace the %s with this run's %s report: %s; the file "
                              "there is an earlier run's, not this run's" % (
                                  report.name, outcome.action,
                                  getattr(problem, "reason", None) or problem),
                        code="cli.report_unwritable"))
        return errors


def _append_problem(path: str) -> Optional[str]:
    """Why ``path`` cannot take an appended report (None when it can): a folder, a device or
    pipe, or a file that cannot be opened for appending."""
    try:
        info = os.stat(path)
    except FileNotFoundError:
        folder = os.path.dirname(os.path.abspath(path))
        return None if os.path.isdir(folder) else "its folder does not exist"
    except OSError as problem:
        return problem.strerror or str(problem)
    if not stat.S_ISREG(info.st_mode):
        return "it is not a regular file"
    if not os.access(path, os.W_OK):
        return "permission denied"
    return None
