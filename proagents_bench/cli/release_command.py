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

import argparse
import os
import pickle
import struct
import time
from typing import TYPE_CHECKING, Callable, List, Optional, Sequence, Tuple

from ..errors import ContractError, ContractErrors
from ..jsonio.gcpause import CollectorPaused
from ..manifest import Manifest, Place, load_manifest
from ..release import run_benchmark
from ..release_outcome import BenchmarkOutcome, decide, release_errors
from ..render.release import Spliced
from ..reports.registry import RELEASE_REPORTS, release_text
from ..text import quote
from ..version import VERSION
from . import Outcome, Session, contract_error_outcome
from .fork import can_fork, forking_fingerprinter
from .gate_command import EXAMPLES_FOLDER, PROJECT_ROOT, add_decision_options, deliver
from .parallel import forked_map, forking_background, usable_cores
from .progress import Progress
from .report_files import add_output_options
from .usage import Parser

if TYPE_CHECKING:  # for annotations only
    from ..jsonio import BytesLike
    from ..manifest import BenchmarkJob
    from ..pipeline import Evaluation, Fingerprinter, InputFile

DEFAULT_MANIFEST = "release_manifest.json"


def add_arguments(parser: Parser) -> None:
    parser.description = ("One release decision across several benchmarks: each decided "
                          "exactly as its gate decides it alone, then the release by its "
                          "benchmarks' tiers (critical, supporting, info) and, across them, "
                          "Holm's step-down over every benchmark's exact one-sided tests of a "
                          "regression and an improvement.")
    parser.epilog = ("Exit status: 0 PASS; 1 REVIEW, BLOCK or INCOMPARABLE; 2 a contract or "
                     "command-line error in the manifest or in any benchmark (the release is "
                     "not decided); 3 internal error (a bug); 4 the document could not be "
                     "written whole; 10, 11, 12 REVIEW, BLOCK, INCOMPARABLE with "
                     "--distinct-exit-codes. Without --manifest the shipped example manifest "
                     "is decided.")
    parser.add_argument("--manifest", metavar="FILE",
                        help="the release manifest (proagents-bench-release-v1; default: the "
                             "example, %s/%s)" % (EXAMPLES_FOLDER, DEFAULT_MANIFEST))
    add_output_options(parser, RELEASE_REPORTS, "the release document", _manifest_input)
    add_decision_options(parser, "release decisions")
    parser.add_argument("--jobs", metavar="N", type=int, default=0,
                        help="benchmarks decided at once, each in its own process where the "
                             "platform can fork (default 0: one per core this process may "
                             "use; 1: one after the other)")


class _Input:
    """A file a release reads, for the checks of the report paths (``checked_paths`` reads
    its ``kind``, ``path`` and ``shown``)."""

    def __init__(self, kind: str, place: Place) -> None:
        self.kind = kind
        self.path = place.path
        self.shown = place.shown


def _manifest_input(options: argparse.Namespace) -> List[_Input]:
    """The file a release reads first, for the checks of the report paths: its manifest
    (once it is read, every file of every benchmark too: :func:`_benchmark_inputs`)."""
    path, shown = _manifest_place(getattr(options, "manifest", None))
    return [_Input("release manifest", Place(path, shown))]


def _benchmark_inputs(manifest: Manifest) -> List[_Input]:
    return [_Input("%s of benchmark %s" % (kind, quote(job.name)), place)
            for job in manifest.jobs for kind, place in job.places()]


def run(options: argparse.Namespace, session: Session) -> Outcome:
    """Decide the release. A run that ends without a decision replaces every report it names
    and its ``--output``, as the gate's does (the dispatcher runs it guarded:
    :mod:`.report_files`)."""
    targets = session.targets
    problems = [ContractError("cli.usage", "--%s was given an empty path: name a file" % option)
                for option in ("manifest", "output") if getattr(options, option) == ""]
    if options.manifest == "-":
        # The gate reads "-" as standard input; a manifest's paths are relative to its folder,
        # which standard input does not have.
        problems.append(ContractError("cli.usage", "--manifest - : a manifest is read from a "
                                                   "file, whose folder its paths are relative "
                                                   "to, never from standard input"))
    if options.jobs < 0:
        problems.append(ContractError("cli.usage", "--jobs is 0 (one per core) or more, not "
                                                   "%d" % options.jobs))
    if problems:
        return contract_error_outcome(problems)
    problems = targets.aim(options)
    if problems:
        return contract_error_outcome(problems)
    progress = Progress(session.messages.say, status=session.messages.status) \
        if session.messages.isatty() else None
    try:
        manifest = _load(options.manifest)
    except ContractErrors as failure:
        return contract_error_outcome(failure.errors, failure.omitted)
    problems = targets.aim(options, _benchmark_inputs(manifest))  # every benchmark's files
    if problems:
        return contract_error_outcome(problems)
    kinds = sorted({report.kind for report, _path in targets.reports})
    workers = options.jobs or usable_cores()
    if progress is not None:
        progress("deciding the benchmarks, %d at once" % min(workers, len(manifest.jobs)),
                 len(manifest.jobs), "benchmarks")
    kept: List[Evaluation] = []
    outcomes = decide_benchmarks(manifest.jobs, kinds, workers, kept)
    if any(outcome.failed for outcome in outcomes):
        errors, omitted = release_errors(manifest, outcomes)
        return contract_error_outcome(errors, omitted)
    release = decide(manifest, outcomes, VERSION)
    return deliver(release, release_text, options, session, targets, progress,
                   (release, kept))


def _manifest_place(given: Optional[str]) -> Tuple[str, str]:
    """(path, shown) of the manifest given, or of the shipped example's (shown as
    ``examples/NAME`` on every machine, as the gate shows its example package)."""
    if given is not None:
        return given, given
    return (os.path.join(PROJECT_ROOT, EXAMPLES_FOLDER, DEFAULT_MANIFEST),
            EXAMPLES_FOLDER + "/" + DEFAULT_MANIFEST)


def _load(given: Optional[str]) -> Manifest:
    """The manifest given, or the shipped example's."""
    path, shown = _manifest_place(given)
    if given is None and not os.path.exists(path):
        raise ContractErrors([ContractError(
            "cli.no_example", "no manifest given, and the shipped example %s is not here (an "
            "installed proagents-bench has no examples; a checkout has them): pass --manifest "
            "FILE" % quote(shown), (), shown)])
    return load_manifest(path, shown, slash=given is None)


def decide_benchmarks(jobs: List[BenchmarkJob], kinds: Sequence[str], workers: int,
                      kept: List[Evaluation], cores: int = 0) -> List[BenchmarkOutcome]:
    """Every benchmark's outcome, with its reports of the ``kinds`` asked for, in order. Where the platform can fork, each benchmark is
    decided in its own forked process, at most ``workers`` at once, exactly as its gate
    decides it alone, and the process ends without freeing what it built, as the gate's
    does. Its evidence fingerprint (and the import's second log) go to a forked process of
    their own, as the gate's, only when the benchmarks running at once leave a core of the
    ``cores`` (default: those this process may use) idle: with every core busy, such a child
    only adds the copying of the pages it touches (five benchmarks on two cores: the median
    of six alternating runs 7% lower without them). Any benchmark whose process failed, and every
    one where nothing can fork, is decided here, and its evaluation appended to ``kept``
    (freed only when the process ends). The same outcomes either way."""
    cores = cores or usable_cores()

    def outcome_of(job: BenchmarkJob, spare: bool,
                   keep: Optional[List[Evaluation]]) -> BenchmarkOutcome:
        def fingerprinter(inputs: List[InputFile]) -> Fingerprinter:
            return forking_fingerprinter(sum(item.size() or 0 for item in inputs)
                                         if spare else 0)

        return run_benchmark(job, kinds, fingerprinter,
                             forking_background if spare else None, keep, time.monotonic)

    def pieces(job: BenchmarkJob, spare: bool) -> Callable[[], List[BytesLike]]:
        return lambda: outcome_pieces(outcome_of(job, spare, None))

    found: List[Optional[bytearray]] = [None] * len(jobs)
    if can_fork():
        spare = min(workers, len(jobs)) < cores
        found = forked_map([pieces(job, spare) for job in jobs], workers)
    outcomes: List[BenchmarkOutcome] = []
    for job, data in zip(jobs, found):
        outcome: object = None
        if data is not None:
            try:
                outcome = outcome_from(data)
            except Exception:  # noqa: BLE001 - a child that wrote something else: decide here
                outcome = None
        if not isinstance(outcome, BenchmarkOutcome):
            outcome = outcome_of(job, True, kept)
        outcomes.append(outcome)
    return outcomes


# The length of an outcome's pickled part, before it (see outcome_pieces).
_HEAD = struct.Struct(">Q")


def outcome_pieces(outcome: BenchmarkOutcome) -> List[BytesLike]:
    """What a forked benchmark sends back: its outcome pickled without its decision's bytes,
    then those bytes as they are (tens of megabytes, never copied into the pickle)."""
    decision, outcome.decision = outcome.decision, None
    head = pickle.dumps((outcome, None if decision is None else decision.level),
                        pickle.HIGHEST_PROTOCOL)
    return [_HEAD.pack(len(head)), head, b"" if decision is None else decision.data]


def outcome_from(data: bytearray) -> BenchmarkOutcome:
    """The outcome :func:`outcome_pieces` sent: its decision's bytes a view of ``data``,
    never copied. The bytes come from this program's own child, never from outside."""
    view = memoryview(data)
    size: int = _HEAD.unpack(bytes(view[:_HEAD.size]))[0]
    with CollectorPaused():
        # What outcome_pieces pickled: the outcome and its decision's indentation level.
        loaded: Tuple[BenchmarkOutcome, Optional[int]] = pickle.loads(
            bytes(view[_HEAD.size:_HEAD.size + size]))
    outcome, level = loaded
    if level is not None:
        outcome.decision = Spliced(view[_HEAD.size + size:], level)
    return outcome

