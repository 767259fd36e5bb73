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
from typing import List, Optional, Sequence

from ..contract.vocabulary import (BLOCK, CRITICAL_TIER, INCOMPARABLE, INFO_TIER, PASS,
                                   REVIEW, SUPPORTING_TIER)
from ..stats.exact import to_float
from ..stats.multiplicity import holm
from ..stats.paired import sign_test_p
from ..text import quote, show_number

# The release's actions, strongest first (the priority above).
PRIORITY = (INCOMPARABLE, BLOCK, REVIEW, PASS)

# What each benchmark result of the multiplicity section may say.
NOT_TESTED = "not_tested"
NO_DIFFERENCE = "none"
REGRESSION = "regression"
IMPROVEMENT = "improvement"

TEST_NAME = ("exact one-sided sign test on the discordant test tasks (McNemar's exact test, "
             "one-sided)")


class BenchmarkVerdict:
    """What the release needs of one benchmark's decision: its name and tier, its action and
    primary reason, and its discordant test tasks (None when INCOMPARABLE: nothing was
    compared)."""

    __slots__ = ("name", "tier", "action", "primary_reason", "candidate_only",
                 "baseline_only")

    def __init__(self, name: str, tier: str, action: str, primary_reason: str,
                 candidate_only: Optional[int], baseline_only: Optional[int]) -> None:
        self.name = name
        self.tier = tier
        self.action = action
        self.primary_reason = primary_reason
        self.candidate_only = candidate_only
        self.baseline_only = baseline_only

    @property
    def tested(self) -> bool:
        return self.candidate_only is not None and self.baseline_only is not None


def tier_effect(tier: str, action: str) -> str:
    """The release action that a benchmark's decision alone makes of the release."""
    if tier == CRITICAL_TIER:
        return action
    if tier == SUPPORTING_TIER:
        return PASS if action == PASS else REVIEW
    return PASS


class Hypothesis:
    """One one-sided hypothesis of the family: its exact p-value, its Holm-adjusted p-value,
    and whether it is rejected with the adjustment and alone (at half the level, as one
    benchmark's two-sided claim at the level)."""

    __slots__ = ("p_value", "adjusted", "significant", "significant_alone")

    def __init__(self, p_value: Fraction, adjusted: Fraction, significant: bool,
                 significant_alone: bool) -> None:
        self.p_value = p_value
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


def alone_level(level: object) -> Fraction:
    """The level at which a benchmark alone calls a one-sided p-value a difference: half the
    family-wise level, so that its two directions together hold the level, as one benchmark's
    two-sided claim does."""
    return Fraction(level) / 2


def multiplicity(verdicts: Sequence[BenchmarkVerdict], level: object) -> List[MultiplicityRow]:
    """Holm's step-down over the regression and the improvement hypothesis of every tested
    benchmark, at family-wise ``level``; one row per benchmark, in order."""
    level = Fraction(level)
    tested = [verdict for verdict in verdicts if verdict.tested]
    p_values: List[Fraction] = []
    for verdict in tested:
        p_values.append(sign_test_p(verdict.baseline_only, verdict.candidate_only))
        p_values.append(sign_test_p(verdict.candidate_only, verdict.baseline_only))
    adjusted, rejected = holm(p_values, level)
    found = {}
    for position, verdict in enumerate(tested):
        found[id(verdict)] = [Hypothesis(p_values[index], adjusted[index], rejected[index],
                                         p_values[index] <= alone_level(level))
                              for index in (2 * position, 2 * position + 1)]
    return [MultiplicityRow(verdict, *found.get(id(verdict), (None, None)))
            for verdict in verdicts]


class ReleaseDecision:
    """The release's action, its reasons (``reasons[0]`` the primary one), its notes (never
    reasons); per benchmark, in order, its tier effect, the reason its tier gives the release
    (None when it gives none) and the reason its regression beyond chance gives (None when
    it gives none); the multiplicity rows, the level and the hypotheses' count."""

    def __init__(self, action: str, reasons: List[str], notes: List[str],
                 effects: List[str], tier_reasons: List[Optional[str]],
                 regression_reasons: List[Optional[str]], rows: List[MultiplicityRow],
                 level: object, hypothesis_count: int) -> None:
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


def _evidence(row: MultiplicityRow, direction: str, level: object, count: int) -> str:
    verdict = row.verdict
    hypothesis = row.regression if direction == REGRESSION else row.improvement
    favoured, against = ((verdict.baseline_only, "baseline") if direction == REGRESSION
                         else (verdict.candidate_only, "candidate"))
    discordant = verdict.baseline_only + verdict.candidate_only
    return ("%d of %d discordant test tasks favour the %s (exact one-sided sign test p = %s; "
            "Holm-adjusted over %d hypotheses p = %s %s family-wise level %s)" % (
                favoured, discordant, against, show_probability(hypothesis.p_value), count,
                show_probability(hypothesis.adjusted), "<=" if hypothesis.significant else ">",
                level))


def _tier_reason(verdict: BenchmarkVerdict, effect: str) -> Optional[str]:
    """The reason a benchmark's decision gives the release by its tier, or None."""
    if effect == PASS:
        return None
    if verdict.tier == CRITICAL_TIER:
        return "critical benchmark %s is %s: %s" % (quote(verdict.name), verdict.action,
                                                   verdict.primary_reason)
    return ("supporting benchmark %s is %s (a supporting benchmark's failure asks for "
            "review): %s" % (quote(verdict.name), verdict.action, verdict.primary_reason))


def decide_release(verdicts: Sequence[BenchmarkVerdict], level: object) -> ReleaseDecision:
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
                                 show_probability((row.regression if alone == REGRESSION
                                                   else row.improvement).p_value),
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
