"""What a release keeps of each benchmark it decided (:class:`BenchmarkOutcome`, plain data:
the command line may decide benchmarks in other processes), and the release decided from
them (:func:`decide`, :class:`Release`): what the release's document and reports read.
"""

from __future__ import annotations

import hashlib
from typing import TYPE_CHECKING, Dict, List, Optional, Sequence, Tuple

from .contract.vocabulary import INFORMATIONAL
from .errors import MAX_REPORTED_ERRORS, ContractError
from .evaluation.decision import Decided
from .evaluation.release import BenchmarkVerdict, ReleaseDecision, decide_release
from .jsonio.canonical import canonical_json
from .render import release as render
from .stats.paired import unit_differences
from .text import quote

if TYPE_CHECKING:  # for annotations only
    from .jsonio import BytesLike, JSONObject
    from .manifest import BenchmarkJob, Manifest
    from .render.evaluation import Evaluation

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


def summarize(evaluation: Evaluation) -> JSONObject:
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


class Release(Decided[ReleaseDecision]):
    """The release decided: the manifest, the outcomes (each benchmark's decision), the
    release decision and fingerprint, and its document (:meth:`chunks` writes it, each
    benchmark's decision document spliced in byte for byte)."""

    def __init__(self, manifest: Manifest, outcomes: List[BenchmarkOutcome],
                 decision: ReleaseDecision, fingerprint: str, version: str) -> None:
        self.manifest = manifest
        super().__init__(decision)
        self.outcomes = outcomes
        self.fingerprint = fingerprint
        self.version = version
        self.document = render.release_document(
            manifest.value["release_id"], fingerprint, outcomes, decision, manifest.describe(),
            version)

    def chunks(self) -> List[BytesLike]:
        """The document's bytes, in pieces (each benchmark's decision one of them)."""
        return render.chunks(self.document, [outcome.spliced() for outcome in self.outcomes])


def decide(manifest: Manifest, outcomes: List[BenchmarkOutcome], version: str) -> Release:
    """The release of ``outcomes`` (none of them failed), in the manifest's order."""
    decision = decide_release([outcome.verdict() for outcome in outcomes], manifest.level)
    fingerprint = release_fingerprint(manifest.value, [
        outcome.summary["evidence_fingerprint"] for outcome in outcomes])
    return Release(manifest, outcomes, decision, fingerprint, version)

