"""``run_benchmark.py health --spec F --cases F [--results F ...] [--logs BASELINE CANDIDATE
[NAME] ...] [--data DIR --baseline F] [--html P] [--markdown P] [--output P]
[--format auto|json|text]``: the health of a benchmark's test tasks across any number of
results packages (see :mod:`proagents_bench.maintenance.health`).

Packages come from files (``--results``), from pairs of harness logs imported as the
``import`` command imports them (``--logs``, with ``--mapping`` and ``--missing-as``), and
from the private-test service's data folder (``--data`` with the service's ``--baseline``:
every scored submission, for the maintainer only). stdout carries the JSON document (or, at
a terminal, a summary; ``--format``), and exit 0; a file that breaks the contract is exit 2
with the usual CONTRACT_ERROR document, and every report named is then replaced by its
CONTRACT_ERROR page (no report outlives its run).
"""

from __future__ import annotations

import argparse
from typing import TYPE_CHECKING, List

from .. import pipeline
from ..contract.vocabulary import MISSING_AS
from ..errors import ContractError, ContractErrors
from ..jsonio import load
from ..jsonio.dump import document_bytes
from ..maintenance.health import Package, measure, out_of_memory
from ..maintenance.health_document import health_document
from ..maintenance.health_figures import Health
from ..maintenance.validity import DO_NOTHING, ORACLE
from ..reports.registry import HEALTH_REPORTS
from ..version import VERSION
from . import Outcome, Session, contract_error_outcome
from .gate_command import text_width
from .parallel import in_background
from .progress import EAGER_BYTES, Progress
from .report_files import Targets, add_output_options
from .status import EXIT_PASS
from .streams import colour_wanted
from .usage import Parser

if TYPE_CHECKING:  # for annotations only
    from ..service.maintainer import ScoredSubmission


def add_arguments(parser: Parser) -> None:
    parser.description = ("The health of a benchmark's test tasks across results packages of "
                          "one benchmark and dataset version: pass rates per system, flaky and "
                          "unknown trials, tasks never passed or saturated, each task's "
                          "discrimination, latency and cost outliers, per slice and family, "
                          "the effective size, and the tasks to audit first.")
    parser.epilog = "Exit status: 0 measured; 2 a contract or command-line error."
    parser.add_argument("--spec", metavar="FILE", required=True, help="the benchmark's spec")
    parser.add_argument("--cases", metavar="FILE", required=True,
                        help="the benchmark's cases file; every package is of its dataset "
                             "version")
    parser.add_argument("--results", metavar="FILE", nargs="+", action="extend", default=[],
                        help="results packages (may be given more than once)")
    parser.add_argument("--logs", metavar="LOG", nargs="+", action="append", default=[],
                        help="BASELINE CANDIDATE [NAME]: two harness logs imported into one "
                             "package as the import command does (the baseline as the spec's "
                             "baseline; the candidate named NAME, by default the log's model); "
                             "may be given more than once")
    parser.add_argument("--mapping", metavar="FILE",
                        help="the import mapping for --logs (default: each harness's "
                             "defaults)")
    parser.add_argument("--missing-as", choices=MISSING_AS, default=MISSING_AS[0],
                        help="for --logs: what a trial a log lacks becomes (as import's)")
    parser.add_argument("--data", metavar="DIR",
                        help="the private-test service's data folder: every scored submission "
                             "of the cases' dataset version (for the maintainer; needs "
                             "--baseline)")
    parser.add_argument("--baseline", metavar="FILE",
                        help="with --data: the service's baseline package")
    parser.add_argument("--do-nothing", metavar="FILE", dest="do_nothing",
                        help="a results package whose candidate is a do-nothing agent "
                             "(Harbor's nop, empty patches): the floor; the tasks it passes "
                             "are named trivial")
    parser.add_argument("--oracle", metavar="FILE",
                        help="a results package whose candidate is an oracle (Harbor's "
                             "oracle, SWE-bench's gold patches): the ceiling; the tasks it "
                             "fails are named broken")
    add_output_options(parser, HEALTH_REPORTS, "the HEALTH document", _inputs)


def _inputs(options: argparse.Namespace) -> List[pipeline.InputFile]:
    """Every input file named (for the report paths' checks)."""
    named = [("spec", options.spec), ("cases", options.cases)]
    results = getattr(options, "results", None) or []
    named += [("results", path) for path in ([results] if isinstance(results, str)
                                             else results)]
    for pair in getattr(options, "logs", None) or []:
        named += [("log", path) for path in pair[:2]]
    named += [("mapping", getattr(options, "mapping", None)),
              ("baseline", getattr(options, "baseline", None)),
              ("results", getattr(options, "do_nothing", None)),
              ("results", getattr(options, "oracle", None))]
    return [pipeline.InputFile(kind, path) for kind, path in named if path]


def run(options: argparse.Namespace, session: Session) -> Outcome:
    """Measure; a run that ends without a result replaces every report it names and its
    ``--output`` (the dispatcher runs it guarded: :mod:`.report_files`)."""
    targets = session.targets
    problems = targets.aim(options)
    problems += _usage_problems(options)
    if problems:
        return contract_error_outcome(problems)
    spec = pipeline.InputFile("spec", options.spec)
    cases = pipeline.InputFile("cases", options.cases)
    packages = [Package(pipeline.InputFile("results", path)) for path in options.results]
    packages += [Package(pipeline.InputFile("results", path), reference=kind)
                 for kind, path in ((DO_NOTHING, options.do_nothing), (ORACLE, options.oracle))
                 if path is not None]
    try:
        return _measured(options, session, targets, spec, cases, packages)
    except MemoryError:
        pass  # answered below, once the exception (and the frames it holds) is gone
    return contract_error_outcome([out_of_memory(cases, packages)])


def _measured(options: argparse.Namespace, session: Session, targets: Targets[Health],
              spec: pipeline.InputFile, cases: pipeline.InputFile,
              packages: List[Package]) -> Outcome:
    """The health of ``packages`` (extended in place by the logs imported and the service's
    submissions, so that a caller who runs out of memory knows what was read)."""
    try:
        if options.logs:
            packages += _imported(options, spec, cases)
        if options.data is not None:
            packages += _submissions(options)
        size = sum(package.source.size() or 0 for package in packages)
        progress = Progress(session.messages.say, size >= EAGER_BYTES,
                            status=session.messages.status) \
            if session.messages.isatty() else None
        health = measure(spec, cases, packages, progress, in_background(size))
    except ContractErrors as failure:
        return contract_error_outcome(failure.errors, failure.omitted)
    document = document_bytes(health_document(health, VERSION))
    output = targets.output
    problems = targets.write(health, document if output else None)
    if problems:
        return contract_error_outcome(problems)
    if targets.text:
        stdout = _text(health, session, targets)
    else:
        stdout = b"" if output else document
    return Outcome(EXIT_PASS, stdout, kept=health)


def _text(health: Health, session: Session, targets: Targets[Health]) -> bytes:
    from ..reports import health_text  # imported only when a person reads the run
    return health_text.render(health, text_width(), colour_wanted(session.stdout.isatty()),
                              targets.hints())


def _usage_problems(options: argparse.Namespace) -> List[ContractError]:
    errors = []
    for option in ("spec", "cases", "output", "mapping", "data", "baseline", "do_nothing",
                   "oracle"):
        if getattr(options, option) == "":
            errors.append(ContractError("cli.usage", "--%s was given an empty path: name a "
                                                     "file" % option.replace("_", "-")))
    if any(not path.strip() for path in options.results):
        errors.append(ContractError("cli.usage", "--results was given an empty path"))
    for pair in options.logs:
        if len(pair) not in (2, 3) or any(not item.strip() for item in pair):
            errors.append(ContractError("cli.usage", "--logs takes BASELINE CANDIDATE and "
                                                     "optionally the candidate's NAME, got %d "
                                                     "value%s" % (len(pair), "" if len(pair) == 1
                                                                  else "s")))
    if (options.data is None) != (options.baseline is None):
        errors.append(ContractError("cli.usage", "--data and --baseline go together: the "
                                                 "service's data folder and its baseline "
                                                 "package"))
    if options.mapping is not None and not options.logs:
        errors.append(ContractError("cli.usage", "--mapping is for --logs"))
    if not (options.results or options.logs or options.data):
        errors.append(ContractError("cli.usage", "name the packages: --results, --logs or "
                                                 "--data"))
    return errors


def _imported(options: argparse.Namespace, spec: pipeline.InputFile,
              cases: pipeline.InputFile) -> List[Package]:
    """Each pair of --logs imported into a results package, as the import command does, in
    memory: the gate's checks then read it like any package."""
    from ..importers.package import import_logs
    from ..importers.settings import load_settings
    from ..importers.source import LogSource
    spec_document, cases_document = pipeline.load_benchmark(spec, cases)
    settings = load_settings(options.mapping)
    packages = []
    for pair in options.logs:
        imported = import_logs([LogSource(pair[0]), LogSource(pair[1])], settings,
                               cases_document.value, system_ids=(
                                   spec_document.value["baseline_system_id"],
                                   pair[2] if len(pair) > 2 else None),
                               missing_as=options.missing_as)
        packages.append(Package(pipeline.InputFile(
            "results", None, "%s + %s" % (pair[0], pair[1]),
            data=document_bytes(imported.results))))
    return packages


def _submissions(options: argparse.Namespace) -> List[Package]:
    """Every scored submission in the service's data folder (the maintainer's access), each
    read from the database when its turn comes."""
    from ..service.maintainer import scored_submissions
    return [Package(_Submission("%s submission %d" % (options.data, item.submission_id),
                                item), item.name)
            for item in scored_submissions(options.data, options.spec, options.cases,
                                           options.baseline)]


class _Submission(pipeline.InputFile):
    """A scored submission as a results file, read when loaded."""

    def __init__(self, shown: str, item: "ScoredSubmission") -> None:
        super().__init__("results", None, shown)
        self.item = item

    def size(self) -> int:
        return self.item.size

    def load(self) -> load.Document:
        return load.parse_bytes(self.item.package(), self.shown)
