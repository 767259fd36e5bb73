"""The release document: the release's decision, a row per benchmark with the benchmark's own
decision document inside it, byte for byte, and the multiplicity account.

The document is written as the decision document is (ASCII JSON, sorted keys, two-space
indent, a final newline). Each benchmark's decision is spliced in as the very bytes its gate
alone writes, each line indented for its depth (:class:`Spliced`): reading the release
document and writing a benchmark's ``decision`` the way the gate writes a document gives back
those bytes exactly, which the tests check against solo runs. The decisions' bytes are put in place as they
are, never decoded and written again (:func:`chunks`).
"""

from __future__ import annotations

from fractions import Fraction
from typing import TYPE_CHECKING, Iterator, List, Optional, Protocol, Sequence

from ..evaluation.release import TEST_NAME, Hypothesis, MultiplicityRow, ReleaseDecision
from ..jsonio import dump as jsondump
from ..jsonio.gcpause import CollectorPaused
from ..stats.exact import to_float
from ..version import NAME
from .document import chunks as document_chunks

if TYPE_CHECKING:  # for annotations only
    from ..jsonio import BytesLike, JSONObject

LIMITATIONS = (
    "Each benchmark is decided exactly as its gate decides it alone; the release adds its "
    "tiers and the account of many comparisons at once, and never changes a benchmark's "
    "decision.",
    "The family-wise level bounds the chance that the release reports a regression or an "
    "improvement on some benchmark by chance alone (Holm's step-down over every benchmark's "
    "two exact one-sided tests); it does not adjust the benchmarks' own gates, whose "
    "thresholds are each spec's, applied as alone.",
    "The one-sided tests count each benchmark's resampling units (its test tasks, or its "
    "families where its spec resamples families) as independent, and compare the candidate "
    "with each benchmark's own baseline.",
)


# How deep a benchmark's ``decision`` lies in the release document (root, ``benchmarks``, the
# benchmark's object): its lines are indented for this level.
DECISION_LEVEL = 3


def indented(document: JSONObject, level: int = DECISION_LEVEL) -> bytes:
    """A decision document's bytes as the text of a value at nesting ``level``, without the
    final newline: written by the document writer at that level, which gives exactly its
    level-0 text with every newline followed by two spaces per level (JSON strings hold no
    raw newline), so it is the gate's document, indented, without a second pass over it."""
    with CollectorPaused():
        return b"".join([piece.encode("ascii") for piece in jsondump.pieces(document, level)])


class Spliced:
    """A benchmark's decision document inside the release document: its bytes (any
    bytes-like object: a view of what a forked benchmark sent), already indented for
    ``level`` (:func:`indented`). The document writer sees a marker string in
    its place (:meth:`json_pieces`); :func:`chunks` puts the bytes where the marker is, so
    hundreds of megabytes of decisions are never decoded, copied into one text, or encoded
    again."""

    __slots__ = ("data", "level", "marker")

    def __init__(self, data: BytesLike, level: int = DECISION_LEVEL) -> None:
        self.data = data
        self.level = level
        self.marker = ""

    def text(self, level: int) -> str:
        """The value's text at ``level``, as a str (the writer's slow way)."""
        data = bytes(self.data)
        if level != self.level:
            data = data.replace(b"\n" + jsondump.INDENT.encode("ascii") * self.level,
                                b"\n" + jsondump.INDENT.encode("ascii") * level)
        return data.decode("ascii")

    def json_pieces(self, level: int) -> Iterator[str]:
        yield self.marker if self.marker and level == self.level else self.text(level)


def chunks(document: JSONObject, spliced: Sequence[Spliced]) -> List[BytesLike]:
    """The document's bytes (ASCII JSON, sorted keys, two-space indent, a final newline) in
    pieces: the document is written with a marker in place of each of ``spliced`` (the
    decisions it holds, in the document's order), then each marker is replaced by the
    decision's bytes. A marker is a JSON string of a NUL, the decision's position and a NUL;
    should an input's text make one occur after its place, the document is written the slow
    way instead (the same bytes)."""
    for position, item in enumerate(spliced):
        item.marker = '"\\u0000proagents-bench-decision-%d\\u0000"' % position
    try:
        text = "".join(jsondump.pieces(document)) + "\n"
        found: List[BytesLike] = []
        for item in spliced:
            parts = text.split(item.marker)
            if len(parts) != 2:
                break
            found += [parts[0].encode("ascii"), item.data]
            text = parts[1]
        else:
            return found + [text.encode("ascii")]
    finally:
        for item in spliced:
            item.marker = ""
    return list(document_chunks(document))


def probability(value: Fraction) -> float:
    """A p-value as a JSON number: the double nearest the exact value."""
    return to_float(value)


def _hypothesis(hypothesis: Optional[Hypothesis]) -> Optional[JSONObject]:
    if hypothesis is None:
        return None
    return {
        "p_value": probability(hypothesis.p_value),
        "method": hypothesis.method,
        "adjusted_p_value": probability(hypothesis.adjusted),
        "significant": hypothesis.significant,
        "significant_alone": hypothesis.significant_alone,
    }


def _multiplicity_row(row: MultiplicityRow) -> JSONObject:
    verdict = row.verdict
    return {
        "name": verdict.name,
        "tested": verdict.tested,
        "unit": verdict.unit,
        "gains": verdict.gains,
        "losses": verdict.losses,
        "regression": _hypothesis(row.regression),
        "improvement": _hypothesis(row.improvement),
        "result": row.result(),
        "result_alone": row.result(alone=True),
    }


class Outcome(Protocol):
    """What the document reads of one benchmark's outcome (the release module's
    ``BenchmarkOutcome``, which sits above this layer): its name, tier and kind of evidence,
    the summary of its decision document's top and that document's spliced bytes."""

    name: str
    tier: str
    evidence: str
    summary: JSONObject
    decision: Optional["Spliced"]


def _benchmark(outcome: Outcome, effect: str) -> JSONObject:
    summary = outcome.summary
    return {
        "name": outcome.name,
        "tier": outcome.tier,
        "action": summary["action"],
        "tier_effect": effect,
        "primary_reason": summary["primary_reason"],
        "evidence": outcome.evidence,
        "evidence_fingerprint": summary["evidence_fingerprint"],
        "benchmark_id": summary["benchmark_id"],
        "benchmark_version": summary["benchmark_version"],
        "baseline_system": summary["baseline_system"],
        "candidate_system": summary["candidate_system"],
        "task_count": summary["task_count"],
        "baseline_task_success_rate": summary["baseline_rate"],
        "candidate_task_success_rate": summary["candidate_rate"],
        "paired_task_success_delta": summary["delta"],
        "paired_bootstrap_interval": summary["interval"],
        "decision": outcome.decision,
    }


def release_document(release_id: str, fingerprint: str, outcomes: Sequence[Outcome],
                     decision: ReleaseDecision, manifest: JSONObject,
                     version: str) -> JSONObject:
    """The release document of ``decision`` on ``outcomes`` (in the manifest's order);
    ``manifest`` describes the manifest file (its name, digest and size)."""
    level = float(decision.level)
    return {
        "action": decision.action,
        "primary_reason": decision.reasons[0],
        "reasons": list(decision.reasons),
        "notes": list(decision.notes),
        "release_id": release_id,
        "evidence_fingerprint": fingerprint,
        "family_wise_level": level,
        "benchmarks": [_benchmark(outcome, effect)
                       for outcome, effect in zip(outcomes, decision.effects)],
        "multiplicity": {
            "method": "holm",
            "test": TEST_NAME,
            "family_wise_level": level,
            "hypothesis_count": decision.hypothesis_count,
            "benchmarks": [_multiplicity_row(row) for row in decision.rows],
        },
        "manifest": manifest,
        "harness": {"name": NAME, "version": version},
        "limitations": list(LIMITATIONS),
    }
