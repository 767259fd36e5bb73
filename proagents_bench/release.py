"""One benchmark of a release, decided exactly as its gate decides it alone.

:func:`run_benchmark` decides a benchmark of the manifest (:mod:`proagents_bench.manifest`)
with :func:`proagents_bench.pipeline.evaluate`, the gate's own pipeline, on the very files
(or, for an imported benchmark, on the very bytes ``import`` would write: the importers' own
functions, :func:`import_benchmark`), renders the reports asked for through their rows
(:mod:`proagents_bench.reports.registry`), and keeps what the release needs of it
(:class:`~proagents_bench.release_outcome.BenchmarkOutcome`), from which
:func:`proagents_bench.release_outcome.decide` makes the release. Nothing here prints or
exits; the command line chooses where each benchmark runs.
"""

from __future__ import annotations

import os
from typing import TYPE_CHECKING, Callable, List, Optional, Sequence, Tuple

from . import pipeline
from .contract.vocabulary import MISSING_AS
from .errors import ContractErrors
from .evaluation.validity import VALIDITY
from .jsonio import load
from .jsonio.dump import document_bytes
from .manifest import BenchmarkJob, Place
from .release_outcome import BenchmarkOutcome, summarize
from .render import release as render
from .reports.registry import REPORTS
from .text import quote

if TYPE_CHECKING:  # for annotations only
    from .importers.package import Background
    from .pipeline import Fingerprinter

# How an imported benchmark's files are named in its decision's ``inputs``: the names that
# ``import --output NAME.results.json --write-cases NAME.cases.json`` gives them.
IMPORTED_RESULTS = "%s.results.json"
IMPORTED_CASES = "%s.cases.json"
# backgrounds(size): where an import reads the candidate's log while this process reads the
# baseline's, given the baseline log's size (the command line's forks it when large).
Backgrounds = Callable[[int], "Background"]


def benchmark_inputs(job: BenchmarkJob, backgrounds: Optional[Backgrounds] = None
                     ) -> List[pipeline.InputFile]:
    """The three inputs of a benchmark's gate: its files, or the imported package's bytes
    (shown by the names ``import`` would write them under, :data:`IMPORTED_RESULTS`;
    ``backgrounds`` as :func:`import_benchmark`'s)."""
    spec = _named("spec", job.spec)
    if job.imported is None:
        return [spec, _named("cases", job.cases), _named("results", job.results)]
    results, cases = import_benchmark(job, backgrounds)
    if cases is None:
        cases_input = _named("cases", job.cases)
    else:
        cases_input = pipeline.InputFile("cases", None, IMPORTED_CASES % job.name, data=cases)
    return [spec, cases_input,
            pipeline.InputFile("results", None, IMPORTED_RESULTS % job.name, data=results)]


def _named(kind: str, place: Optional[Place]) -> pipeline.InputFile:
    """The input of ``kind`` at ``place``, which the manifest's rules make sure it names
    (``release.evidence``, ``release.cases``)."""
    if place is None:
        raise ValueError("the manifest names no %s file" % kind)
    return pipeline.InputFile(kind, place.path, place.shown)


def here(inputs: List[pipeline.InputFile]) -> Fingerprinter:
    """The default fingerprinter of every benchmark: the pipeline's own, in this process."""
    return pipeline.fingerprint_here


def run_benchmark(job: BenchmarkJob, kinds: Sequence[str] = (),
                  fingerprinters: Callable[[List[pipeline.InputFile]], Fingerprinter] = here,
                  backgrounds: Optional[Backgrounds] = None,
                  keep: Optional[List[pipeline.Evaluation]] = None,
                  clock: Optional[Callable[[], float]] = None) -> BenchmarkOutcome:
    """Decide one benchmark as its gate alone decides it, and render its reports of the
    ``kinds`` asked for (``html``, ``markdown``, ``junit``: the sections of the release's
    reports); its contract errors, if any, in the outcome instead.
    ``fingerprinters(inputs)`` gives the ``fingerprinter`` of
    :func:`proagents_bench.pipeline.evaluate` for the benchmark's inputs (the command line's
    forks the fingerprint, as the gate's does), ``backgrounds`` the import's (see
    :func:`import_benchmark`). ``keep``, when given, receives the evaluation (a caller that
    ends its process without freeing it saves the time freeing a large package's millions
    of objects takes). ``clock``, when given (the command line's), measures the benchmark's
    own time, which its JUnit report carries as its gate's does (without one, none)."""
    outcome = BenchmarkOutcome(job)
    started = clock() if clock is not None else None
    try:
        inputs = benchmark_inputs(job, backgrounds)
        evaluation = pipeline.evaluate(inputs, job.candidate, None, fingerprinters(inputs))
    except ContractErrors as failure:
        outcome.errors, outcome.omitted = failure.errors, failure.omitted
        return outcome
    if clock is not None and started is not None:
        evaluation.seconds = clock() - started
    outcome.decision = render.Spliced(render.indented(evaluation.lazy_document))
    outcome.summary = summarize(evaluation)
    outcome.sections = {report.kind: report.render(evaluation) for report in REPORTS
                        if report.kind in kinds and not report.append}
    if keep is not None:
        keep.append(evaluation)
    return outcome


def import_benchmark(job: BenchmarkJob, backgrounds: Optional[Backgrounds] = None
                     ) -> Tuple[bytes, Optional[bytes]]:
    """Import a benchmark's logs as ``import`` does (the importers' own functions, the same
    checks and the same bytes; with ``--failure-origins`` when its spec is v6, whose
    validity bounds judge them): (the results package, the built cases file or None when
    the benchmark names its cases file). ``backgrounds(size)``, given the baseline log's
    size, says where the candidate's log is read (by default in this process, after the
    baseline's). The importers are imported here, only by a release that imports (as the
    gate never imports them)."""
    from .importers.package import import_logs, load_cases, run_here
    from .importers.settings import default_settings, load_settings
    from .importers.source import LogSource
    settings = job.imported
    if settings is None:
        raise ValueError("benchmark %s imports no logs" % quote(job.name))
    mapping = settings["mapping"]
    loaded = (load_settings(mapping.path, mapping.shown) if mapping is not None
              else default_settings())
    loaded.failure_origins = _judges_origins(job.spec)
    cases = load_cases(job.cases.path, job.cases.shown) if job.cases is not None else None
    logs = [LogSource(place.path, place.shown)
            for place in (settings["baseline"], settings["candidate"])]
    split_logs = [(split, LogSource(place.path, place.shown))
                  for split, places in (("train", settings["train_logs"]),
                                        ("development", settings["development_logs"]))
                  for place in places]
    background = run_here if backgrounds is None else backgrounds(
        _size(settings["baseline"].path))
    imported = import_logs(logs, loaded, cases, cases is None,
                           (settings["baseline_id"], settings["candidate_id"]), background,
                           settings["missing_as"] or MISSING_AS[0], split_logs)
    return (document_bytes(imported.results),
            document_bytes(imported.cases) if imported.cases is not None else None)


def _judges_origins(spec: Place) -> bool:
    """Whether the benchmark's spec judges whose the failures are (a spec v6: its
    ``validity``), so that its logs are imported with their failure origins (results v6), as
    ``import --failure-origins`` writes them. A spec that cannot be read says no here: the
    gate names its error when it decides."""
    try:
        value = load.load_file(spec.path, spec.shown).value
    except ContractErrors:
        return False
    return isinstance(value, dict) and VALIDITY in value


def _size(path: str) -> int:
    try:
        return os.path.getsize(path)
    except (OSError, ValueError):
        return 0
