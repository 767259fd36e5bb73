"""The release decision: every benchmark decided alone, then one decision for the release.

Each benchmark's own decision is its gate's, exactly as alone; its tier says what that
decision makes of the release (:func:`tier_effect`):

- ``critical``: its INCOMPARABLE makes the release INCOMPARABLE, its BLOCK blocks it, its
  REVIEW asks for review;
- ``supporting``: any decision but PASS asks for review;
- ``info``: reported only.

Across benchmarks, the release asks of each comparable one whether the candidate is worse
(regression) or better (improvement) than the baseline, each an exact one-sided test on the
benchmark's discordant test tasks, and controls all 2K hypotheses together with Holm's
step-down procedure at the manifest's family-wise level (:mod:`proagents_bench.stats
.multiplicity`): a regression beyond chance on a critical or supporting benchmark asks for
review; an improvement, or anything on an info benchmark, is a note.

The release's action, in this priority: a critical benchmark INCOMPARABLE, then a critical
benchmark BLOCK, then review (a critical benchmark's REVIEW, a supporting benchmark not
PASS, a regression beyond chance), then PASS. Its reasons follow the same order, each group
in the manifest's order; notes are never reasons.
"""

from __future__ import annotations

from fractions import Fraction
from typing import TYPE_CHECKING, Dict, List, Optional, Sequence, Tuple

from ..contract.vocabulary import (BLOCK, CRITICAL_TIER, INCOMPARABLE, INFO_TIER, PASS,
                                   REVIEW, SUPPORTING_TIER)
from ..stats.exact import to_float
from ..stats.multiplicity import holm
from ..stats.exact_tests import MCNEMAR, NORMAL_LIMIT, RANDOMIZATION, one_sided_p
from ..text import quote, show_number

if TYPE_CHECKING:  # for annotations only
    from ..stats.exact import Exact

# The release's actions, strongest first (the priority above).
PRIORITY = (INCOMPARABLE, BLOCK, REVIEW, PASS)

# What each benchmark result of the multiplicity section may say.
NOT_TESTED = "not_tested"
NO_DIFFERENCE = "none"
REGRESSION = "regression"
IMPROVEMENT = "improvement"

TEST_NAME = ("the gate's one-sided test on each benchmark's discordant resampling units: "
             "McNemar's exact test (the sign test) on tasks, or on families of one size; the "
             "exact sign-flip randomization test on families of several sizes")


class BenchmarkVerdict:
    """What the release needs of one benchmark's decision: its name and tier, its action and
    primary reason, and the paired differences of its resampling units that are not 0
    (``values``: candidate minus baseline task passes, per test task, or summed per family
    when its spec resamples families, ``unit``), None when INCOMPARABLE: nothing was
    compared."""

    __slots__ = ("name", "tier", "action", "primary_reason", "values", "unit")

    def __init__(self, name: str, tier: str, action: str, primary_reason: str,
                 values: Optional[Sequence[int]], unit: str = "task") -> None:
        self.name = name
        self.tier = tier
        self.action = action
        self.primary_reason = primary_reason
        self.values = None if values is None else [value for value in values if value]
        self.unit = unit

    @property
    def tested(self) -> bool:
        return self.values is not None

    @property
    def gains(self) -> Optional[int]:
        """Units that favour the candidate (None when not tested)."""
        return None if self.values is None else sum(1 for value in self.values if value > 0)

    @property
    def losses(self) -> Optional[int]:
        """Units that favour the baseline (None when not tested)."""
        return None if self.values is None else sum(1 for value in self.values if value < 0)


def tier_effect(tier: str, action: str) -> str:
    """The release action that a benchmark's decision alone makes of the release."""
    if tier == CRITICAL_TIER:
        return action
    if tier == SUPPORTING_TIER:
        return PASS if action == PASS else REVIEW
    return PASS


class Hypothesis:
    """One one-sided hypothesis of the family: its p-value (exact, but for a large family
    test's normal limit) and how it was computed (``method``, as
    :func:`~proagents_bench.stats.exact_tests.one_sided_method` names it), its Holm-adjusted
    p-value, and whether it is rejected with the adjustment and alone (at half the level, as
    one benchmark's two-sided claim at the level)."""

    __slots__ = ("p_value", "method", "adjusted", "significant", "significant_alone")

    def __init__(self, p_value: Fraction, method: str, adjusted: Fraction, significant: bool,
                 significant_alone: bool) -> None:
        self.p_value = p_value
        self.method = method
        self.adjusted = adjusted
        self.significant = significant
        self.significant_alone = significant_alone


class MultiplicityRow:
    """One benchmark in the multiplicity section."""

    __slots__ = ("verdict", "regression", "improvement")

    def __init__(self, verdict: BenchmarkVerdict, regression: Optional[Hypothesis],
                 improvement: Optional[Hypothesis]) -> None:
        self.verdict = verdict
        self.regression = regression
        self.improvement = improvement

    def result(self, alone: bool = False) -> str:
        """regression, improvement, none (no difference beyond chance) or not_tested."""
        if self.regression is None or self.improvement is None:
            return NOT_TESTED
        for name, hypothesis in ((REGRESSION, self.regression),
                                 (IMPROVEMENT, self.improvement)):
            if hypothesis.significant_alone if alone else hypothesis.significant:
                return name
        return NO_DIFFERENCE

    def hypothesis(self, direction: str) -> Hypothesis:
        """The hypothesis of ``direction`` (regression or improvement) of a tested
        benchmark."""
        hypothesis = self.regression if direction == REGRESSION else self.improvement
        if hypothesis is None:
            raise ValueError("benchmark %s was not tested" % quote(self.verdict.name))
        return hypothesis


def alone_level(level: Exact) -> Fraction:
    """The level at which a benchmark alone calls a one-sided p-value a difference: half the
    family-wise level, so that its two directions together hold the level, as one benchmark's
    two-sided claim does."""
    return Fraction(level) / 2


def multiplicity(verdicts: Sequence[BenchmarkVerdict], level: Exact) -> List[MultiplicityRow]:
    """Holm's step-down over the regression and the improvement hypothesis of every tested
    benchmark, at family-wise ``level``; one row per benchmark, in order. Each is the
    one-sided test the gate computes on the benchmark's resampling units
    (:func:`~proagents_bench.stats.exact_tests.one_sided_p`): McNemar's exact test on discordant
    tasks, or on families whose differences all have one size; the exact sign-flip
    randomization test on families of other sizes (its normal limit when that is too much
    work)."""
    level = Fraction(level)
    tested = [verdict for verdict in verdicts if verdict.tested]
    found: List[Tuple[Fraction, str]] = []
    for verdict in tested:
        values = verdict.values or []  # a tested verdict's differences (never None here)
        found.append(one_sided_p([-value for value in values]))
        found.append(one_sided_p(values))
    adjusted, rejected = holm([p_value for p_value, _method in found], level)
    hypotheses: Dict[int, List[Optional[Hypothesis]]] = {}
    for position, verdict in enumerate(tested):
        hypotheses[id(verdict)] = [
            Hypothesis(found[index][0], found[index][1], adjusted[index], rejected[index],
                       found[index][0] <= alone_level(level))
            for index in (2 * position, 2 * position + 1)]
    return [MultiplicityRow(verdict, *hypotheses.get(id(verdict), (None, None)))
            for verdict in verdicts]


class ReleaseDecision:
    """The release's action, its reasons (``reasons[0]`` the primary one), its notes (never
    reasons); per benchmark, in order, its tier effect, the reason its tier gives the release
    (None when it gives none) and the reason its regression beyond chance gives (None when
    it gives none); the multiplicity rows, the level and the hypotheses' count."""

    def __init__(self, action: str, reasons: List[str], notes: List[str],
                 effects: List[str], tier_reasons: List[Optional[str]],
                 regression_reasons: List[Optional[str]], rows: List[MultiplicityRow],
                 level: Exact, hypothesis_count: int) -> None:
        self.action = action
        self.reasons = reasons
        self.notes = notes
        self.effects = effects
        self.tier_reasons = tier_reasons
        self.regression_reasons = regression_reasons
        self.rows = rows
        self.level = level
        self.hypothesis_count = hypothesis_count


def show_probability(value: Fraction) -> str:
    """A p-value for a reason: six significant digits of its nearest double."""
    return show_number(to_float(value))


# The one-sided tests, in words, by how they were computed.
METHOD_WORDS = {
    MCNEMAR: "exact one-sided sign test",
    RANDOMIZATION: "exact one-sided sign-flip randomization test",
    NORMAL_LIMIT: "one-sided sign-flip test's normal limit",
}
UNIT_WORDS = {"task": "test tasks", "family": "test families"}


def _evidence(row: MultiplicityRow, direction: str, level: Exact, count: int) -> str:
    verdict = row.verdict
    hypothesis = row.hypothesis(direction)
    favoured, against = ((verdict.losses, "baseline") if direction == REGRESSION
                         else (verdict.gains, "candidate"))
    if verdict.values is None or favoured is None:  # a tested benchmark has them
        raise ValueError("benchmark %s was not tested" % quote(verdict.name))
    return ("%d of %d discordant %s favour the %s (%s p = %s; Holm-adjusted over %d "
            "hypotheses p = %s %s family-wise level %s)" % (
                favoured, len(verdict.values), UNIT_WORDS.get(verdict.unit, verdict.unit),
                against, METHOD_WORDS[hypothesis.method], show_probability(hypothesis.p_value),
                count, show_probability(hypothesis.adjusted),
                "<=" if hypothesis.significant else ">", level))


def _tier_reason(verdict: BenchmarkVerdict, effect: str) -> Optional[str]:
    """The reason a benchmark's decision gives the release by its tier, or None."""
    if effect == PASS:
        return None
    if verdict.tier == CRITICAL_TIER:
        return "critical benchmark %s is %s: %s" % (quote(verdict.name), verdict.action,
                                                   verdict.primary_reason)
    return ("supporting benchmark %s is %s (a supporting benchmark's failure asks for "
            "review): %s" % (quote(verdict.name), verdict.action, verdict.primary_reason))


def decide_release(verdicts: Sequence[BenchmarkVerdict], level: Exact) -> ReleaseDecision:
    """The release decision for the benchmarks' ``verdicts`` (in the manifest's order) at
    family-wise ``level`` (exact: the manifest's Decimal, shown as written)."""
    rows = multiplicity(verdicts, level)
    count = 2 * sum(1 for verdict in verdicts if verdict.tested)
    effects = [tier_effect(verdict.tier, verdict.action) for verdict in verdicts]
    tier_reasons = [_tier_reason(verdict, effect) for verdict, effect in zip(verdicts, effects)]
    regression_reasons: List[Optional[str]] = []
    notes: List[str] = []
    for verdict in verdicts:
        if verdict.tier == INFO_TIER and verdict.action != PASS:
            notes.append("info benchmark %s is %s (reported only): %s" % (
                quote(verdict.name), verdict.action, verdict.primary_reason))
    for row in rows:
        verdict = row.verdict
        name = quote(verdict.name)
        result = row.result()
        if result == REGRESSION and verdict.tier != INFO_TIER:
            regression_reasons.append(
                "benchmark %s (%s) shows a regression beyond chance: %s" % (
                    name, verdict.tier, _evidence(row, REGRESSION, level, count)))
        else:
            regression_reasons.append(None)
        if result in (REGRESSION, IMPROVEMENT) and regression_reasons[-1] is None:
            notes.append("benchmark %s (%s) shows %s beyond chance%s: %s" % (
                name, verdict.tier, "a regression" if result == REGRESSION
                else "an improvement", " (reported only)" if result == REGRESSION else "",
                _evidence(row, result, level, count)))
        alone = row.result(alone=True)
        if alone in (REGRESSION, IMPROVEMENT) and result != alone:
            notes.append("benchmark %s alone would report %s (p = %s <= %s, half the level "
                         "for either direction), but not beyond chance among %d hypotheses: "
                         "%s" % (name, "a regression" if alone == REGRESSION
                                 else "an improvement",
                                 show_probability(row.hypothesis(alone).p_value),
                                 show_number(alone_level(level)), count,
                                 _evidence(row, alone, level, count)))
        if result == NOT_TESTED:
            notes.append("benchmark %s was not tested for a regression or an improvement: it "
                         "is INCOMPARABLE, nothing was compared" % name)
    groups = {action: [reason for reason, effect in zip(tier_reasons, effects)
                       if reason is not None and effect == action] for action in PRIORITY}
    groups[REVIEW].extend(reason for reason in regression_reasons if reason is not None)
    action = next(action for action in PRIORITY if groups[action] or action == PASS)
    reasons = [reason for group in PRIORITY[:3] for reason in groups[group]]
    if not reasons:
        reasons = ["every critical and supporting benchmark passed, and none shows a "
                   "regression beyond chance (Holm, family-wise level %s)" % level]
    return ReleaseDecision(action, reasons, notes, effects, tier_reasons, regression_reasons,
                           rows, level, count)
