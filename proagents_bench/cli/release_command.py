"""``run_benchmark.py release [--manifest FILE] [--html P] [--markdown P] [--junit-xml P]
[--markdown-append P] [--output P] [--summary] [--jobs N]``: one release decision across the
benchmarks of a manifest (see :mod:`proagents_bench.release` and docs/release.md).

Each benchmark is decided exactly as its gate decides it alone (an imported one on the very
bytes ``import`` would write), on POSIX each in a forked process, as many at once as there are
cores (``--jobs``); then the release is decided. stdout carries one ASCII JSON document: the
release decision with every benchmark's decision document inside it, or CONTRACT_ERROR (exit
2) when the manifest or any benchmark has a contract error: a release is never decided on part
of its evidence. Exit statuses as the gate's: 0 PASS, 1 REVIEW, BLOCK or INCOMPARABLE, 2 a
contract error. Without ``--manifest`` the shipped example manifest is decided.
"""

from __future__ import annotations

import os
import pickle
from typing import Callable, List, Optional, Tuple

from .. import release as releases
from ..contract.vocabulary import MISSING_AS
from ..errors import ContractError, ContractErrors
from ..jsonio.dump import document_bytes
from ..jsonio.gcpause import CollectorPaused
from ..reports import write as reports
from ..reports.release_view import RELEASE_REPORTS, SECTION_KINDS
from ..text import quote
from ..version import VERSION
from . import Outcome, Session, contract_error_outcome
from .gate_command import (EXAMPLES_FOLDER, OUTPUT_OPTION, PROJECT_ROOT, Parser, UsageError,
                           _input_bytes, _to_output)
from .parallel import can_fork, forked_map, forking_background, forking_fingerprinter, usable_cores
from .status import EXIT_DECISION, EXIT_PASS

DEFAULT_MANIFEST = "release_manifest.json"


def build_parser(program: str) -> Parser:
    parser = Parser(
        prog=program + " release",
        description="One release decision across several benchmarks: each decided exactly as "
                    "its gate decides it alone, then the release by its benchmarks' tiers "
                    "(critical, supporting, info) and, across them, Holm's step-down over "
                    "every benchmark's exact one-sided tests of a regression and an "
                    "improvement.",
        epilog="Exit status: 0 PASS; 1 REVIEW, BLOCK or INCOMPARABLE; 2 a contract or "
               "command-line error in the manifest or in any benchmark (the release is not "
               "decided); 3 internal error (a bug); 4 the document could not be written "
               "whole. Without --manifest the shipped example manifest is decided.")
    parser.add_argument("--manifest", metavar="FILE",
                        help="the release manifest (proagents-bench-release-v1; default: the "
                             "example, %s/%s)" % (EXAMPLES_FOLDER, DEFAULT_MANIFEST))
    for report in RELEASE_REPORTS:
        parser.add_argument(report.option, metavar="PATH", help=report.help.replace(
            "report", "release report").replace("summary", "release summary"))
    parser.add_argument("--output", metavar="PATH",
                        help="write the JSON document to PATH (atomically, with the reports) "
                             "instead of stdout")
    parser.add_argument("--summary", action="store_true",
                        help="also write a short human summary to stderr (the default when "
                             "stderr is a terminal)")
    parser.add_argument("--jobs", metavar="N", type=int, default=0,
                        help="benchmarks decided at once, each in its own process where the "
                             "platform can fork (default 0: one per core this process may "
                             "use; 1: one after the other)")
    return parser


class _Input:
    """A file a release reads, for the checks of the report paths (``reports.path_errors``
    reads its ``kind``, ``path`` and ``shown``)."""

    def __init__(self, kind: str, place: releases.Place) -> None:
        self.kind = kind
        self.path = place.path
        self.shown = place.shown


def run(arguments: List[str], session: Session) -> Outcome:
    try:
        options = build_parser(session.program).parse_args(arguments)
    except UsageError as usage:
        return contract_error_outcome([ContractError("cli.usage", "%s (see --help)" % usage)])
    problems = [ContractError("cli.usage", "--%s was given an empty path: name a file" % option)
                for option in ("manifest", "output") if getattr(options, option) == ""]
    if options.jobs < 0:
        problems.append(ContractError("cli.usage", "--jobs is 0 (one per core) or more, not "
                                                   "%d" % options.jobs))
    if problems:
        return contract_error_outcome(problems)
    output = options.output
    try:
        manifest = _load(options.manifest)
    except ContractErrors as failure:
        outcome = contract_error_outcome(failure.errors, failure.omitted)
        return _to_output(outcome, output, session) if output else outcome
    chosen = _requested(options)
    inputs = [_Input("release manifest", manifest.place)] + [
        _Input("%s of benchmark %s" % (kind, quote(job.name)), place)
        for job in manifest.jobs for kind, place in job.places()]
    checked = chosen + ([(OUTPUT_OPTION, output)] if output else [])
    problems = reports.path_errors(checked, inputs)
    if problems:
        return contract_error_outcome(problems)
    renderers = {SECTION_KINDS[report.module]: _section(SECTION_KINDS[report.module])
                 for report, _path in chosen}
    kept: list = []
    outcomes = decide_benchmarks(manifest.jobs, renderers, options.jobs or usable_cores(), kept)
    if any(outcome.failed for outcome in outcomes):
        errors, omitted = releases.release_errors(manifest, outcomes)
        outcome = contract_error_outcome(errors, omitted)
        return _to_output(outcome, output, session) if output else outcome
    release = releases.decide(manifest, outcomes, VERSION)
    status = EXIT_PASS if release.passed else EXIT_DECISION
    document = (output, release.dumps()) if output else None
    problems = reports.write(chosen, release, session.guard.deferred, document)
    if problems:
        return contract_error_outcome(problems)
    lines = summary_lines(release) if options.summary or session.messages.isatty() else []
    return Outcome(status, b"" if output else release.chunks(), lines, kept=(release, kept))


def _requested(options) -> List[tuple]:
    """(report, path) for every release report option given."""
    return [(report, getattr(options, report.attribute)) for report in RELEASE_REPORTS
            if getattr(options, report.attribute, None) is not None]


def _load(given: Optional[str]) -> releases.Manifest:
    """The manifest given, or the shipped example's (shown as ``examples/NAME`` on every
    machine, as the gate shows its example package)."""
    if given is not None:
        return releases.load_manifest(given)
    path = os.path.join(PROJECT_ROOT, EXAMPLES_FOLDER, DEFAULT_MANIFEST)
    shown = EXAMPLES_FOLDER + "/" + DEFAULT_MANIFEST
    if not os.path.exists(path):
        raise ContractErrors([ContractError(
            "cli.no_example", "no manifest given, and the shipped example %s is not here (an "
            "installed proagents-bench has no examples; a checkout has them): pass --manifest "
            "FILE" % quote(shown), (), shown)])
    return releases.load_manifest(path, shown, slash=True)


def _section(kind: str) -> Callable:
    """The renderer of a benchmark's section: its gate's report of that kind."""
    return next(report for report in reports.REPORTS if report.module == kind).render


def import_benchmark(job: releases.BenchmarkJob,
                     background: Optional[Callable] = None) -> Tuple[bytes, Optional[bytes]]:
    """Import a benchmark's logs as ``import`` does (the importers' own functions, the same
    checks and the same bytes): (the results package, the built cases file or None when
    the benchmark names its cases file). The importers are imported here, only by a release
    that imports (as the gate never imports them)."""
    from ..importers.package import import_logs
    from ..importers.settings import default_settings, load_settings
    from ..importers.source import LogSource
    settings = job.imported
    mapping = settings["mapping"]
    loaded = (load_settings(mapping.path, mapping.shown) if mapping is not None
              else default_settings())
    from .import_command import load_cases
    cases = load_cases(job.cases.path, job.cases.shown) if job.cases is not None else None
    logs = [LogSource(settings[role].path, settings[role].shown)
            for role in ("baseline", "candidate")]
    split_logs = [(split, LogSource(place.path, place.shown))
                  for split, key in (("train", "train_logs"),
                                     ("development", "development_logs"))
                  for place in settings[key]]
    keywords = {} if background is None else {"background": background}
    imported = import_logs(logs, loaded, cases, cases is None,
                           (settings["baseline_id"], settings["candidate_id"]),
                           missing_as=settings["missing_as"] or MISSING_AS[0],
                           split_logs=split_logs, **keywords)
    return (document_bytes(imported.results),
            document_bytes(imported.cases) if imported.cases is not None else None)


def decide_benchmarks(jobs: List[releases.BenchmarkJob], renderers: dict, workers: int,
                      kept: list) -> List[releases.BenchmarkOutcome]:
    """Every benchmark's outcome, in order. Where the platform can fork, each benchmark is
    decided in its own forked process, at most ``workers`` at once, exactly as its gate
    decides it alone (its fingerprint forked too when its files are large, as the gate's),
    and the process ends without freeing what it built, as the gate's does. Any benchmark
    whose process failed, and every one where nothing can fork, is decided here, and its
    evaluation appended to ``kept`` (freed only when the process ends). The same outcomes
    either way."""
    def outcome_of(job: releases.BenchmarkJob,
                   keep: Optional[list]) -> releases.BenchmarkOutcome:
        def importer(job: releases.BenchmarkJob) -> Tuple[bytes, Optional[bytes]]:
            return import_benchmark(job, forking_background(_size(job.imported[
                "baseline"].path)))

        def fingerprinter(inputs: list) -> Callable:
            return forking_fingerprinter(_input_bytes(inputs))

        return releases.run_benchmark(job, importer, renderers, fingerprinter, keep)

    found: List[Optional[bytes]] = [None] * len(jobs)
    if can_fork():
        found = forked_map([lambda job=job: pickle.dumps(outcome_of(job, None),
                                                        pickle.HIGHEST_PROTOCOL)
                            for job in jobs], workers)
    outcomes = []
    for job, data in zip(jobs, found):
        outcome = None
        if data is not None:
            try:
                # The bytes come from this program's own child, never from outside.
                with CollectorPaused():
                    outcome = pickle.loads(data)
            except Exception:  # noqa: BLE001 - a child that wrote something else: decide here
                outcome = None
        if not isinstance(outcome, releases.BenchmarkOutcome):
            outcome = outcome_of(job, kept)
        outcomes.append(outcome)
    return outcomes


def _size(path: str) -> int:
    try:
        return os.path.getsize(path)
    except (OSError, ValueError):
        return 0


def summary_lines(release: releases.Release) -> List[str]:
    """A few lines for a person at a terminal: the release's decision and primary reason, a
    line per benchmark, the multiplicity's findings and the notes (stdout stays the JSON
    document)."""
    decision = release.decision
    lines = ["proagents-bench release %s: %s: %s" % (
        quote(release.manifest.value["release_id"]), decision.action, decision.reasons[0])]
    more = len(decision.reasons) - 1
    if more:
        lines.append("  and %d more reason%s in the document" % (more, "" if more == 1 else "s"))
    width = max(len(outcome.name) for outcome in release.outcomes)
    for outcome, effect, row in zip(release.outcomes, decision.effects, decision.rows):
        lines.append("  %-10s %-*s %-12s -> release %-12s %s" % (
            outcome.tier, width, outcome.name, outcome.summary["action"], effect,
            "tasks only candidate/baseline %d/%d" % (row.verdict.candidate_only,
                                                      row.verdict.baseline_only)
            if row.verdict.tested else "not compared"))
    lines.append("  Holm over %d hypotheses at family-wise level %s" % (
        decision.hypothesis_count, decision.level))
    for note in decision.notes:
        lines.append("  note: %s" % note)
    return lines
