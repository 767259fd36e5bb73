"""The reports a run writes beside its JSON document: which, where, and writing them.

A decision's reports (PASS, REVIEW, BLOCK or INCOMPARABLE) are written all of them or none:
every report is rendered first, then written atomically (see
:mod:`proagents_bench.jsonio.atomic`). A run that ends without a decision (a contract error, a
report that cannot be written, an internal error, an interruption) replaces every report it
was asked for by a report of that outcome (:func:`write_no_decision`), each on its own, so no
path is left holding an earlier run's decision. Problems come back as
:class:`~proagents_bench.errors.ContractError` values for the CLI to report with exit
status 2.
"""

from __future__ import annotations

import os
import stat
from importlib import import_module
from typing import TYPE_CHECKING, Callable, ContextManager, Dict, List, Optional, Sequence, Tuple

from ..errors import ContractError
from ..jsonio.atomic import AtomicWriteError, write_files_atomically
from ..text import quote

if TYPE_CHECKING:  # for annotations only
    from argparse import Namespace

    from typing import Protocol, TypeVar

    from .nodecision import NoDecision

    class Named(Protocol):
        """What the path checks read of a report (or of ``--output`` beside them)."""

        @property
        def option(self) -> str: ...

        @property
        def name(self) -> str: ...

    NamedT = TypeVar("NamedT", bound=Named)

    class Input(Protocol):
        """What the path checks read of an input file (the gate's InputFile, a file a
        release reads)."""

        @property
        def kind(self) -> str: ...

        @property
        def path(self) -> Optional[str]: ...

        @property
        def shown(self) -> str: ...

# A section of the command line in which a signal waits (see jsonio/atomic.py).
CriticalSection = Callable[[], ContextManager[None]]


class Report:
    """One kind of report: its command-line option (``--html``), its attribute on the parsed
    options, its name for messages, the option's help, and the module whose ``render``
    turns an Evaluation into bytes (imported when a report is asked for: a run without
    reports, the usual one, never loads the renderers)."""

    def __init__(self, option: str, name: str, help: str, module: str,
                 append: bool = False) -> None:
        self.option = option
        self.attribute = option[2:].replace("-", "_")
        self.name = name
        self.help = help
        self.module = module
        self.append = append  # added to the end of the file, not replacing it

    def render(self, evaluation: object) -> bytes:
        """The report of ``evaluation``: whatever its module renders (the gate's
        :class:`~proagents_bench.pipeline.Evaluation`, health's ``Health``)."""
        data: bytes = import_module("." + self.module, __package__).render(evaluation)
        return data

    def render_no_decision(self, outcome: NoDecision) -> bytes:
        """The report of a run without a decision (:class:`.nodecision.NoDecision`)."""
        data: bytes = import_module("." + self.module, __package__).render_no_decision(outcome)
        return data


REPORTS = (
    Report("--html", "HTML report", "also write the HTML report to PATH", "html"),
    Report("--markdown", "Markdown summary", "also write a Markdown summary to PATH, "
           "replacing the file (for a CI step summary, use --markdown-append)", "markdown"),
    Report("--junit-xml", "JUnit XML report", "also write a JUnit XML report to PATH (GitLab, "
           "Jenkins)", "junit"),
    Report("--markdown-append", "appended Markdown summary", "also append the Markdown "
           "summary to PATH, keeping what it holds (GitHub Actions: \"$GITHUB_STEP_SUMMARY\")",
           "markdown", append=True),
)

# The health command's reports (see proagents_bench.maintenance.health).
HEALTH_REPORTS = (
    Report("--html", "HTML health report", "also write the HTML health report to PATH",
           "health_html"),
    Report("--markdown", "Markdown health summary", "also write a Markdown summary of the "
           "health to PATH, replacing the file", "health_markdown"),
    Report("--markdown-append", "appended Markdown health summary", "also append the Markdown "
           "summary to PATH, keeping what it holds (GitHub Actions: \"$GITHUB_STEP_SUMMARY\")",
           "health_markdown", append=True),
)

# The path that means stdout on the command line: a report cannot go there (stdout carries
# the decision document), and it cannot be replaced atomically.
STDOUT_PATH = "-"


# A report asked for, and the path to write it to.
Chosen = Tuple[Report, str]


def requested(options: Namespace, kinds: Sequence[Report] = REPORTS) -> List[Chosen]:
    """(report, path) for every report option given, in the order of ``kinds``."""
    chosen: List[Chosen] = []
    for report in kinds:
        path = getattr(options, report.attribute, None)
        if path is not None:
            chosen.append((report, path))
    return chosen


def _same(path: str) -> str:
    return os.path.normcase(os.path.realpath(path))


def _standard_stream(path: str) -> Optional[str]:
    """"stdout" or "stderr" when ``path`` is the very file a standard stream writes to (for
    example /dev/stdout while stdout is redirected to a file), else None."""
    try:
        info = os.stat(path)
    except (OSError, ValueError):
        return None
    for descriptor, name in ((1, "stdout"), (2, "stderr")):
        try:
            stream = os.fstat(descriptor)
        except OSError:
            continue
        if (stream.st_dev, stream.st_ino) == (info.st_dev, info.st_ino) and stream.st_ino:
            return name
    return None


def path_errors(chosen: Sequence[Tuple[Named, str]],
                inputs: Sequence[Input]) -> List[ContractError]:
    """Errors for report paths that are empty, repeated, or an input file (which a report
    must never overwrite); checked before anything is read."""
    return checked_paths(chosen, inputs)[0]


def checked_paths(chosen: Sequence[Tuple[NamedT, str]], inputs: Sequence[Input]
                  ) -> Tuple[List[ContractError], List[Tuple[NamedT, str]]]:
    """(the errors of :func:`path_errors`, the (report, path) pairs of ``chosen`` that may be
    written): a path that is empty, stdout, stderr or an input is never written, and of two
    reports naming one file only the first is."""
    errors: List[ContractError] = []
    usable: List[Tuple[NamedT, str]] = []
    inputs_at = {_same(item.path): item for item in inputs if item.path is not None}
    seen: Dict[str, str] = {}
    for report, path in chosen:
        if not path.strip():
            # An empty path is most often a variable a CI system sets and this shell has not
            # (GitHub Actions' GITHUB_STEP_SUMMARY, run locally).
            errors.append(_error(path, "%s: the path is empty (a variable such as "
                                       "$GITHUB_STEP_SUMMARY, which only a CI job sets?)" %
                                 report.option))
            continue
        if path == STDOUT_PATH:
            errors.append(_error(path, "%s cannot write to stdout (-): stdout carries the "
                                       "decision document; name a file" % report.option))
            continue
        place = _same(path)
        stream = _standard_stream(path)
        if stream:
            errors.append(_error(path, "%s would overwrite %s, which carries the decision "
                                       "document or its errors" % (report.option, stream)))
        elif place in inputs_at:
            errors.append(_error(path, "%s would overwrite the %s input file %s" % (
                report.option, inputs_at[place].kind, quote(inputs_at[place].shown))))
        elif place in seen:
            errors.append(_error(path, "%s and %s name the same file" % (seen[place],
                                                                        report.option)))
        else:
            seen[place] = report.option
            usable.append((report, path))
    return errors, usable


def write(chosen: Sequence[Chosen], evaluation: object,
          critical_section: Optional[CriticalSection] = None,
          document: Optional[Tuple[str, bytes]] = None) -> List[ContractError]:
    """Render and write every chosen report; return [] or the one error that stopped it.
    ``critical_section`` is passed on to :func:`~.atomic.write_files_atomically`;
    ``document``, (path, bytes), is the decision document written with the reports
    (``--output``), all of them or none. An appended report is added last, in one write,
    once every replaced file is in place: its file is checked to take an append first."""
    files = [(path, report.render(evaluation)) for report, path in chosen
             if not report.append]
    appends = [(report, path, report.render(evaluation)) for report, path in chosen
               if report.append]
    if document is not None:
        files.append(document)
    names = {path: report.name for report, path in chosen}
    if document is not None:
        names[document[0]] = "output document"
    for report, path, _data in appends:
        problem = _append_problem(path)
        if problem:
            return [_error(path, "cannot append the %s: %s (nothing was written)" % (
                report.name, problem), code="cli.report_unwritable")]
    try:
        if files:
            write_files_atomically(files, *([critical_section] if critical_section else []))
    except AtomicWriteError as problem:
        name = names[problem.path]
        if problem.replaced:
            aftermath = "the report%s at %s could not be put back" % (
                "s" if len(problem.replaced) > 1 else "",
                ", ".join(quote(path) for path in problem.replaced))
        else:
            aftermath = "no report of this decision was written"
        return [_error(problem.path, "cannot write the %s: %s (%s)" % (
            name, problem.reason, aftermath), code="cli.report_unwritable")]
    for report, path, data in appends:
        try:
            with open(path, "ab") as stream:
                stream.write(data)
        except OSError as problem:
            return [_error(path, "cannot append the %s: %s (the other reports were written)"
                           % (report.name, problem.strerror or problem),
                           code="cli.report_unwritable")]
    return []


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


def _error(path: str, message: str, code: str = "cli.report_path") -> ContractError:
    return ContractError(code, message, (), path)


def write_no_decision(chosen: Sequence[Chosen], outcome: NoDecision,
                      critical_section: Optional[CriticalSection] = None) -> List[ContractError]:
    """Replace every chosen report by the report of ``outcome``, a run without a decision
    (:class:`.nodecision.NoDecision`), so that none is left holding an earlier run's decision;
    an appended report gets the outcome appended. Each file is written atomically on its own,
    and one that cannot be written never keeps the others from being replaced. Returns an
    error for each path that still holds an earlier file (a path where nothing was, or that is
    a folder or a device, holds no earlier report and needs none)."""
    errors: List[ContractError] = []
    for report, path in chosen:
        try:
            data = report.render_no_decision(outcome)
            if report.append:
                if _append_problem(path) is None:
                    with open(path, "ab") as stream:
                        stream.write(data)
                continue
            write_files_atomically([(path, data)],
                                   *([critical_section] if critical_section else []))
        except (AtomicWriteError, OSError) as problem:
            if os.path.isfile(path) and not report.append:
                errors.append(_error(path, "cannot replace the %s with this run's %s report: "
                                           "%s; the file there is an earlier run's, not this "
                                           "run's" % (report.name, outcome.action, getattr(
                                               problem, "reason", None) or problem),
                                     code="cli.report_unwritable"))
    return errors
