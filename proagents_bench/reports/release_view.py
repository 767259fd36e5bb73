"""What the release's reports show, read from a :class:`~proagents_bench.release_outcome.Release` once.

A release report is the release's own part (its decision, reasons and notes, one row per
benchmark, the multiplicity table) above each benchmark's own section, which is that
benchmark's report exactly as its gate alone writes it (rendered where the benchmark was
decided), fitted into the page: HTML ids prefixed with the benchmark's name, Markdown headings
two levels down, JUnit suites named after the benchmark. So a benchmark's section can never
disagree with its solo report.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, List, Optional

from ..contract.vocabulary import BLOCK, INCOMPARABLE, PASS, REVIEW
from ..evaluation.release import show_probability
from .words import show

if TYPE_CHECKING:  # for annotations only
    from ..evaluation.release import Hypothesis, MultiplicityRow
    from ..release_outcome import BenchmarkOutcome, Release


ACTION_WORDS = {
    PASS: "every critical and supporting benchmark passed, and none shows a regression "
          "beyond chance: ship",
    REVIEW: "a supporting benchmark failed, a critical one asks for review, or a benchmark "
            "shows a regression beyond chance: a person must review before shipping",
    BLOCK: "a critical benchmark blocks: do not ship",
    INCOMPARABLE: "a critical benchmark could not be compared (its systems ran under another "
                  "protocol than its spec's): do not ship",
}

RESULT_WORDS = {
    "regression": "regression",
    "improvement": "improvement",
    "none": "no difference beyond chance",
    "not_tested": "not tested (INCOMPARABLE)",
}


def anchor(name: str) -> str:
    """The HTML id of a benchmark's section (its ids are prefixed with it and ``--``)."""
    return "benchmark-" + name


class BenchmarkRow:
    """One benchmark in the release's tables."""

    def __init__(self, outcome: "BenchmarkOutcome", effect: str,
                 row: "MultiplicityRow") -> None:
        summary = outcome.summary
        self.name = outcome.name
        self.tier = outcome.tier
        self.action = summary["action"]
        self.effect = effect
        self.primary_reason = summary["primary_reason"]
        self.reason_count = summary["reason_count"]
        self.benchmark = "%s %s" % (summary["benchmark_id"], summary["benchmark_version"])
        self.candidate_system = summary["candidate_system"]
        self.baseline_system = summary["baseline_system"]
        self.candidate_rate = summary["candidate_rate"]
        self.baseline_rate = summary["baseline_rate"]
        self.delta = summary["delta"]
        self.interval = summary["interval"]
        self.task_count = summary["task_count"]
        self.fingerprint = summary["evidence_fingerprint"]
        self.unit = row.verdict.unit
        self.gains = row.verdict.gains
        self.losses = row.verdict.losses
        self.regression = row.regression
        self.improvement = row.improvement
        self.result = row.result()
        self.result_alone = row.result(alone=True)
        self.sections = outcome.sections
        self.anchor = anchor(outcome.name)

    def rates(self) -> str:
        """``0.8 vs 0.6`` (candidate vs baseline), or a dash when INCOMPARABLE."""
        if self.candidate_rate is None:
            return "\u2014"
        return "%s vs %s" % (show(self.candidate_rate), show(self.baseline_rate))

    def difference(self) -> str:
        """``+0.2 [0, 0.4]``: the paired difference and its bootstrap interval, or a dash."""
        if self.delta is None:
            return "\u2014"
        low, high = self.interval
        return "%s%s [%s, %s]" % ("+" if self.delta > 0 else "", show(self.delta), show(low),
                                  show(high))

    def discordant(self) -> str:
        """``3 / 1 tasks``: the units that favour the candidate / the baseline (tasks only
        one system passes, or families), or a dash when not tested."""
        if self.gains is None or self.losses is None:
            return "\u2014"
        return "%d / %d %s" % (self.gains, self.losses,
                               "families" if self.unit == "family" else "tasks")


def hypothesis_text(hypothesis: Optional[Hypothesis]) -> str:
    """``p 0.0312, adjusted 0.0937``, or a dash for a benchmark not tested."""
    if hypothesis is None:
        return "\u2014"
    return "p %s, adjusted %s" % (show_probability(hypothesis.p_value),
                                  show_probability(hypothesis.adjusted))


def rows(release: "Release") -> List[BenchmarkRow]:
    """Every benchmark of the release, in the manifest's order."""
    decision = release.decision
    return [BenchmarkRow(outcome, effect, row) for outcome, effect, row in zip(
        release.outcomes, decision.effects, decision.rows)]


def benchmark_count(count: int) -> str:
    """``1 benchmark``, ``3 benchmarks``: the release's size in a heading or a title."""
    return "%d benchmark%s" % (count, "" if count == 1 else "s")
