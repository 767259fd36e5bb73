"""Feedback granularity: what a team learns from a scored submission.

Each level releases a little more than the one before it (docs/service.md's "What each level
leaks" says what):

- ``verdict``: the action, and which gates failed (their keys and severities) in words that
  name no task, no trial and no observed value; for INCOMPARABLE the protocol mismatches
  (the spec's protocol is public, and the rest is the team's own).
- ``rounded``: the verdict, the candidate's primary task success rate rounded to the nearest
  multiple of :data:`ROUNDING_STEP`, and the paired bootstrap interval widened outward to
  multiples of it.
- ``ladder``: the verdict and a score under the parameter-free Ladder (Blum & Hardt 2015, "The
  Ladder: A Reliable Leaderboard for Machine Learning Competitions", Algorithm 2): a new score
  is released only when it beats the team's best released score by more than one paired
  standard error; otherwise the best released score is repeated.
- ``full``: the whole decision document. For maintainers only: per-trial and per-check
  evidence is an oracle for the expected final states.
"""

from __future__ import annotations

import math
from fractions import Fraction
from typing import List, Optional, Sequence

from ..contract.gates import GATE_BY_KEY
from ..contract.vocabulary import INCOMPARABLE, INFORMATIONAL, PASS

VERDICT = "verdict"
ROUNDED = "rounded"
LADDER = "ladder"
FULL = "full"
LEVELS = (VERDICT, ROUNDED, LADDER, FULL)

# The step of the rounded level: one tenth (coarse enough that a change of one task in a few
# dozen often does not move it; a maintainer who wants finer feedback chooses "ladder").
ROUNDING_STEP = Fraction(1, 10)


def _label(code: str) -> str:
    """A failed gate's label; a finding of the package that is no gate (a baseline's trials
    recorded as unknown) is named by its code."""
    gate = GATE_BY_KEY.get(code)
    return gate.label if gate is not None else code.replace("_", " ")


def verdict(document: dict) -> dict:
    """The action, the failed gates and reasons that name no private detail."""
    # Each failed gate once: the critical gate's findings come one per failing critical
    # task, and their number would tell how many critical tasks failed.
    failed: List[dict] = []
    for finding in document["findings"]:
        item = {"gate": finding["code"], "severity": finding["severity"]}
        if finding["severity"] != INFORMATIONAL and item not in failed:
            failed.append(item)
    if document["action"] == INCOMPARABLE:
        reasons = list(document["reasons"])
    elif document["action"] == PASS:
        reasons = ["every gate passed"]
    else:
        reasons = ["%s gate failed: %s (%s)" % (
            "hard" if item["severity"] == "block" else "soft",
            _label(item["gate"]), item["gate"]) for item in failed]
    return {"action": document["action"], "reasons": reasons, "failed_gates": failed,
            "protocol_mismatches": list(document["comparison"]["protocol_mismatches"])}


def _exact(value: float) -> Fraction:
    return Fraction(repr(value))


def round_to_step(value: Fraction, step: Fraction = ROUNDING_STEP) -> Fraction:
    """The nearest multiple of ``step`` (halves away from zero).

    >>> float(round_to_step(Fraction(3, 4))), float(round_to_step(Fraction(2, 3)))
    (0.8, 0.7)
    """
    units = value / step
    whole = math.floor(abs(units) + Fraction(1, 2))
    return step * (whole if units >= 0 else -whole)


def rounded(document: dict) -> dict:
    """The rounded level's numbers: the primary rate and the interval, widened outward."""
    rate = _exact(document["candidate_metrics"]["primary_task_success_rate"])
    low, high = (_exact(value) for value in document["comparison"]["paired_bootstrap_interval"])
    step = ROUNDING_STEP
    return {
        "rounding_step": float(step),
        "primary_task_success_rate": float(round_to_step(rate)),
        "paired_bootstrap_interval": [float(step * math.floor(low / step)),
                                      float(step * math.ceil(high / step))],
        "confidence": document["comparison"]["confidence"],
    }


def task_passes(document: dict) -> List[int]:
    """The candidate's task passes (1 or 0), in the cases file's order of test tasks."""
    return [1 if task["task_pass"] else 0
            for task in document["candidate_metrics"]["task_results"]]


def ladder_releases(new: Sequence[int], best: Optional[Sequence[int]]) -> bool:
    """Whether the Ladder releases the score of ``new`` (per-task scores, higher better)
    over the team's best released ``best`` (None before the first release): the mean paired
    difference must exceed its standard error, s / sqrt(n), where s is the sample standard
    deviation of the differences (0 for a single task). Exact: mean > 0 and mean^2 > s^2 / n.

    >>> ladder_releases([1, 1, 0], None), ladder_releases([1, 1, 1], [0, 0, 0])
    (True, True)
    >>> ladder_releases([1, 1, 0], [1, 0, 0])  # one task better of three: mean = s / sqrt(n)
    False
    """
    if best is None:
        return True
    count = len(new)
    if count == 0 or len(best) != count:
        return False
    differences = [Fraction(a - b) for a, b in zip(new, best)]
    mean = sum(differences) / count
    if mean <= 0:
        return False
    variance = (sum((d - mean) ** 2 for d in differences) / (count - 1)) if count > 1 else 0
    return mean * mean > variance / count


def score(passes: Sequence[int]) -> float:
    """The Ladder's score: the share of passing test tasks (already a multiple of 1/n, the
    paper's rounding)."""
    return float(Fraction(sum(passes), len(passes))) if passes else 0.0
