"""One release decision across several benchmarks: the manifest, each benchmark decided exactly
as its gate decides it alone, and the release decided from them.

:func:`load_manifest` reads and validates the manifest (``proagents-bench-release-v1``,
:mod:`proagents_bench.contract.release`) and resolves each benchmark's paths against the
manifest's folder (:class:`BenchmarkJob`). :func:`run_benchmark` decides one benchmark with
:func:`proagents_bench.pipeline.evaluate`, the gate's own pipeline, on the very files (or, for
an imported benchmark, on the very bytes ``import`` would write), and keeps what the release
needs of it (:class:`BenchmarkOutcome`, plain data: the command line may decide benchmarks in
other processes). :func:`decide` makes the release of the outcomes.

Nothing here prints, exits or imports the importers: the command line passes the function
that imports a benchmark's logs (``importer``), and the report renderers.
"""

from __future__ import annotations

import hashlib
import os
import posixpath
from decimal import Decimal
from typing import TYPE_CHECKING, Callable, Dict, List, Optional, Sequence, Tuple, TypedDict

from . import pipeline
from .contract.release import manifest_errors
from .contract.vocabulary import INFORMATIONAL, PASS
from .errors import MAX_REPORTED_ERRORS, ContractError, ContractErrors
from .evaluation.release import BenchmarkVerdict, ReleaseDecision, decide_release
from .jsonio import load
from .jsonio.canonical import canonical_json
from .stats.paired import unit_differences
from .render import release as render
from .text import display_name, quote

if TYPE_CHECKING:  # for annotations only
    from .jsonio import BytesLike, JSONObject
    from .pipeline import Fingerprinter

# How an imported benchmark's files are named in its decision's ``inputs``: the names that
# ``import --output NAME.results.json --write-cases NAME.cases.json`` gives them.
IMPORTED_RESULTS = "%s.results.json"
IMPORTED_CASES = "%s.cases.json"
FILES_EVIDENCE = "files"
IMPORT_EVIDENCE = "import"


class Place:
    """One path of a manifest: where to open it and how to show it."""

    __slots__ = ("path", "shown")

    def __init__(self, path: str, shown: str) -> None:
        self.path = path
        self.shown = shown


class ImportJob(TypedDict):
    """An imported benchmark's import: the places of its logs and mapping (None: the
    defaults) and the import's options, as the manifest's ``import`` gives them."""

    baseline: Place
    candidate: Place
    mapping: Optional[Place]
    train_logs: List[Place]
    development_logs: List[Place]
    baseline_id: Optional[str]
    candidate_id: Optional[str]
    missing_as: str


class BenchmarkJob:
    """One benchmark of a manifest: its position, name, tier, its paths resolved (``spec``,
    ``cases`` and ``results`` a :class:`Place` or None; ``imported`` the import's places
    and settings, or None) and the candidate's id to check (or None)."""

    def __init__(self, position: int, entry: JSONObject,
                 resolve: Callable[[str], Place]) -> None:
        self.position = position
        self.name = entry["name"]
        self.tier = entry["tier"]
        self.candidate = entry.get("candidate")
        self.spec = resolve(entry["spec"])
        self.cases = resolve(entry["cases"]) if "cases" in entry else None
        self.results = resolve(entry["results"]) if "results" in entry else None
        self.imported: Optional[ImportJob] = None
        if "import" in entry:
            settings = entry["import"]
            self.imported = ImportJob(
                baseline=resolve(settings["baseline"]), candidate=resolve(settings["candidate"]),
                mapping=resolve(settings["mapping"]) if "mapping" in settings else None,
                train_logs=[resolve(path) for path in settings.get("train_logs", [])],
                development_logs=[resolve(path) for path in settings.get("development_logs", [])],
                baseline_id=settings.get("baseline_id"),
                candidate_id=settings.get("candidate_id"),
                missing_as=settings.get("missing_as", "error"))

    @property
    def evidence(self) -> str:
        return IMPORT_EVIDENCE if self.imported is not None else FILES_EVIDENCE

    def places(self) -> List[Tuple[str, Place]]:
        """(kind, place) of every file this benchmark reads: the gate's files and the logs
        and mapping of an import."""
        found = [("spec", self.spec)]
        found += [(kind, place) for kind, place in (("cases", self.cases),
                                                    ("results", self.results)) if place]
        imported = self.imported
        if imported is not None:
            found += [(kind, place) for kind, place in (("baseline log", imported["baseline"]),
                                                        ("candidate log", imported["candidate"]),
                                                        ("mapping", imported["mapping"]))
                      if place is not None]
            found += [("train log", place) for place in imported["train_logs"]]
            found += [("development log", place) for place in imported["development_logs"]]
        return found


class Manifest:
    """A valid manifest: its value, where it was read (``place``), its SHA-256 and size, and
    its benchmarks (:class:`BenchmarkJob`, in order)."""

    def __init__(self, document: load.Document, place: Place, jobs: List[BenchmarkJob]) -> None:
        self.document = document  # places the release's own errors at a line and column
        self.value = document.value
        self.place = place
        self.sha256 = document.sha256
        self.size = document.size
        self.jobs = jobs

    @property
    def level(self) -> Decimal:
        level: Decimal = self.value["family_wise_level"]  # a number in (0, 0.5]: a Decimal
        return level

    def describe(self) -> JSONObject:
        return {"file": display_name(self.place.shown), "sha256": self.sha256,
                "bytes": self.size}


def load_manifest(path: str, shown: Optional[str] = None, slash: bool = False) -> Manifest:
    """The manifest at ``path`` (shown as ``shown``), loaded strictly and validated; raises
    ContractErrors (each placed at its line and column) otherwise.

    Each path of the manifest is joined to the manifest's folder and normalised lexically
    (``os.path.normpath``: ``examples/../tests/x.json`` is ``tests/x.json``, a ``..``
    removing the folder before it without asking where a symbolic link leads): opened there,
    and shown as the manifest's folder as shown joined with it, as if given to the gate on
    the command line (``slash``: joined with ``/`` whatever the platform, as the gate shows
    its shipped examples, so that the example's documents are the same everywhere)."""
    shown = path if shown is None else shown
    document = load.load_file(path, source=shown)
    errors = manifest_errors(document.value)
    if errors:
        raise ContractErrors(document.errors_at(errors[:MAX_REPORTED_ERRORS]),
                             len(errors[MAX_REPORTED_ERRORS:]))
    folder, shown_folder = os.path.dirname(path), os.path.dirname(shown)

    def resolve(relative: str) -> Place:
        parts = relative.split("/")
        path = os.path.normpath(os.path.join(folder, *parts))
        if slash:
            return Place(path, posixpath.normpath(posixpath.join(shown_folder, relative)))
        return Place(path, os.path.normpath(os.path.join(shown_folder, *parts)))

    jobs = [BenchmarkJob(position, entry, resolve)
            for position, entry in enumerate(document.value["benchmarks"])]
    return Manifest(document, Place(path, shown), jobs)


# An importer: (the job) -> (the results package's bytes, the built cases file's bytes or
# None when the job names its cases file), as ``import`` would write them; raises
# ContractErrors.
Importer = Callable[[BenchmarkJob], Tuple[bytes, Optional[bytes]]]
# A section renderer: an Evaluation to the bytes of its report (HTML, Markdown, JUnit XML).
Renderer = Callable[[pipeline.Evaluation], bytes]


def benchmark_inputs(job: BenchmarkJob, importer: Importer) -> List[pipeline.InputFile]:
    """The three inputs of a benchmark's gate: its files, or the imported package's bytes
    (shown by the names ``import`` would write them under, :data:`IMPORTED_RESULTS`)."""
    spec = _named("spec", job.spec)
    if job.imported is None:
        return [spec, _named("cases", job.cases), _named("results", job.results)]
    results, cases = importer(job)
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


class BenchmarkOutcome:
    """What the release keeps of one benchmark: its name, tier and kind of evidence; its
    contract errors (and how many more were not reported), or its decision: the document's
    bytes, exactly as the gate alone writes them, indented for their place in the release
    document (:class:`~proagents_bench.render.release.Spliced`), a summary of the document's
    top (for the release's rows), and the bytes of each report section asked for."""

    def __init__(self, job: BenchmarkJob) -> None:
        self.name = job.name
        self.tier = job.tier
        self.position = job.position
        self.evidence = job.evidence
        self.errors: List[ContractError] = []
        self.omitted = 0
        self.decision: Optional[render.Spliced] = None
        self.summary: JSONObject = {}
        self.sections: Dict[str, bytes] = {}

    @property
    def failed(self) -> bool:
        return bool(self.errors)

    def spliced(self) -> render.Spliced:
        """The decision's bytes, of a benchmark that was decided."""
        if self.decision is None:
            raise ValueError("benchmark %s was not decided" % quote(self.name))
        return self.decision

    def verdict(self) -> BenchmarkVerdict:
        summary = self.summary
        return BenchmarkVerdict(self.name, self.tier, summary["action"],
                                summary["primary_reason"], summary["values"], summary["unit"])


# The decision document's top-level values a release row shows.
SUMMARY_KEYS = ("action", "primary_reason", "comparable", "evidence_fingerprint",
                "benchmark_id", "benchmark_version", "dataset_version", "baseline_system",
                "candidate_system")


def summarize(evaluation: pipeline.Evaluation) -> JSONObject:
    """The release's summary of one decision: its top-level values, both systems' task
    success rates and task count, the paired difference and interval, and, for the
    multiplicity account, the resampling unit (``task``, or ``family`` when the spec
    resamples families) and the units' paired differences that are not 0 (candidate minus
    baseline task passes, summed per family; None when INCOMPARABLE), and the notes."""
    document = evaluation.lazy_document
    summary = {key: document[key] for key in SUMMARY_KEYS}
    summary["reason_count"] = len(document["reasons"])
    baseline, candidate = document["baseline_metrics"], document["candidate_metrics"]
    comparison = document["comparison"]
    summary.update(task_count=None, baseline_rate=None, candidate_rate=None, delta=None,
                   interval=None, confidence=None, values=None,
                   unit=comparison.get("bootstrap_unit", "task"))
    if baseline is not None and candidate is not None:
        differences = [int(mine["task_pass"]) - int(theirs["task_pass"]) for mine, theirs
                       in zip(candidate["task_results"], baseline["task_results"])]
        families = [task["family_id"] for task in candidate["task_results"]]
        summary.update(task_count=candidate["task_count"],
                       baseline_rate=baseline["primary_task_success_rate"],
                       candidate_rate=candidate["primary_task_success_rate"],
                       delta=comparison["paired_task_success_delta"],
                       interval=list(comparison["paired_bootstrap_interval"]),
                       confidence=comparison["confidence"],
                       values=unit_differences(differences, families, summary["unit"]))
    summary["notes"] = [finding.reason for finding in evaluation.decision.findings
                        if finding.severity == INFORMATIONAL]
    return summary


def here(inputs: List[pipeline.InputFile]) -> Fingerprinter:
    """The default fingerprinter of every benchmark: the pipeline's own, in this process."""
    return pipeline.fingerprint_here


def run_benchmark(job: BenchmarkJob, importer: Importer, renderers: Dict[str, Renderer],
                  fingerprinters: Callable[[List[pipeline.InputFile]], Fingerprinter] = here,
                  keep: Optional[List[pipeline.Evaluation]] = None) -> BenchmarkOutcome:
    """Decide one benchmark as its gate alone decides it, and render the report sections
    asked for (``renderers``, by name); its contract errors, if any, in the outcome
    instead. ``fingerprinters(inputs)`` gives the ``fingerprinter`` of
    :func:`proagents_bench.pipeline.evaluate` for the benchmark's inputs (the command line's
    forks the fingerprint, as the gate's does). ``keep``, when given, receives the
    evaluation (a caller that ends its process without freeing it saves the time freeing a
    large package's millions of objects takes)."""
    outcome = BenchmarkOutcome(job)
    try:
        inputs = benchmark_inputs(job, importer)
        evaluation = pipeline.evaluate(inputs, job.candidate, None, fingerprinters(inputs))
    except ContractErrors as failure:
        outcome.errors, outcome.omitted = failure.errors, failure.omitted
        return outcome
    outcome.decision = render.Spliced(render.indented(evaluation.lazy_document))
    outcome.summary = summarize(evaluation)
    outcome.sections = {name: render_section(evaluation)
                        for name, render_section in renderers.items()}
    if keep is not None:
        keep.append(evaluation)
    return outcome


def release_errors(manifest: Manifest,
                   outcomes: Sequence[BenchmarkOutcome]) -> Tuple[List[ContractError], int]:
    """A release with a benchmark that has contract errors is not decided (never on part of
    its evidence): for each such benchmark, an error ``release.benchmark_contract_error`` at
    its entry in the manifest naming it, then its own errors exactly as its gate (or its
    import) reports them. The list is capped at :data:`MAX_REPORTED_ERRORS`; returns (the
    errors, how many more were found)."""
    errors: List[ContractError] = []
    omitted = 0
    failed = [outcome for outcome in outcomes if outcome.failed]
    for outcome in failed:
        count = len(outcome.errors) + outcome.omitted
        errors.append(ContractError(
            "release.benchmark_contract_error",
            "benchmark %s (%s) has %d contract error%s, listed after this line: the release "
            "is not decided on part of its evidence" % (
                quote(outcome.name), outcome.tier, count, "" if count == 1 else "s"),
            ("benchmarks", outcome.position)))
        errors.extend(outcome.errors)
        omitted += outcome.omitted
    placed = _placed(manifest, errors)
    return placed[:MAX_REPORTED_ERRORS], omitted + len(placed[MAX_REPORTED_ERRORS:])


def _placed(manifest: Manifest, errors: List[ContractError]) -> List[ContractError]:
    """The release's own errors placed in the manifest (its line and column); the
    benchmarks' errors are placed already."""
    own = [error for error in errors if error.code == "release.benchmark_contract_error"]
    located = iter(manifest.document.errors_at(own))
    return [next(located) if error.code == "release.benchmark_contract_error" else error
            for error in errors]


def release_fingerprint(manifest_value: JSONObject, fingerprints: Sequence[str]) -> str:
    """``sha256:`` + the hex SHA-256 of the RFC 8785 (JCS) form of the array ``[manifest,
    [each benchmark's evidence fingerprint, in the manifest's order]]``: each benchmark's
    fingerprint covers its spec, cases, results and candidate (imported results name their
    logs' and mapping's SHA-256 in their provenance), and the manifest its tiers, level and
    paths, so any language can recompute it."""
    return "sha256:" + hashlib.sha256(canonical_json([manifest_value,
                                                      list(fingerprints)])).hexdigest()


class Release:
    """The release decided: the manifest, the outcomes (each benchmark's decision), the
    release decision and fingerprint, and its document (:meth:`chunks` writes it, each
    benchmark's decision document spliced in byte for byte)."""

    def __init__(self, manifest: Manifest, outcomes: List[BenchmarkOutcome],
                 decision: ReleaseDecision, fingerprint: str, version: str) -> None:
        self.manifest = manifest
        self.outcomes = outcomes
        self.decision = decision
        self.fingerprint = fingerprint
        self.version = version
        self.document = render.release_document(
            manifest.value["release_id"], fingerprint, outcomes, decision, manifest.describe(),
            version)

    @property
    def action(self) -> str:
        return self.decision.action

    @property
    def passed(self) -> bool:
        return self.decision.action == PASS

    def chunks(self) -> List[BytesLike]:
        """The document's bytes, in pieces (each benchmark's decision one of them)."""
        return render.chunks(self.document, [outcome.spliced() for outcome in self.outcomes])

    def dumps(self) -> bytes:
        return b"".join(self.chunks())


def decide(manifest: Manifest, outcomes: List[BenchmarkOutcome], version: str) -> Release:
    """The release of ``outcomes`` (none of them failed), in the manifest's order."""
    decision = decide_release([outcome.verdict() for outcome in outcomes], manifest.level)
    fingerprint = release_fingerprint(manifest.value, [
        outcome.summary["evidence_fingerprint"] for outcome in outcomes])
    return Release(manifest, outcomes, decision, fingerprint, version)

