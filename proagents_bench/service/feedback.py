"""Feedback granularity: what a team learns from a scored submission.

Each level releases a little more than the one before it (docs/service.md's "What each level
leaks" says what, in bits per submission):

- ``verdict``: the action, and which gates failed (their keys and severities) in words that
  name no task, no trial and no observed value; for INCOMPARABLE the protocol mismatches
  (the spec's protocol is public, and the rest is the team's own).
- ``rounded``: the verdict, the candidate's primary task success rate rounded to the nearest
  multiple of the team's rounding step, and the paired bootstrap interval widened outward to
  multiples of it. The step is never finer than two standard errors of the score
  (:func:`step_allowed`).
- ``ladder``: a score under the parameter-free Ladder (Blum & Hardt 2015, "The Ladder: A
  Reliable Leaderboard for Machine Learning Competitions", Algorithm 2): a new score is
  released only when it beats the team's best released score by more than one paired
  standard error; otherwise the best released score is repeated, and so is the verdict of
  the submission behind it: nothing that depends on the private answers leaves the service
  but through the Ladder.
- ``full``: the whole decision document. For maintainers only: per-trial and per-check
  evidence is an oracle for the expected final states.
"""

from __future__ import annotations

import math
import re
from fractions import Fraction
from typing import List, Optional, Sequence

from ..contract.gates import GATE_BY_KEY
from ..contract.vocabulary import HARDNESS, INCOMPARABLE, INFORMATIONAL, PASS

VERDICT = "verdict"
ROUNDED = "rounded"
LADDER = "ladder"
FULL = "full"
LEVELS = (VERDICT, ROUNDED, LADDER, FULL)

# The members of an answer that make its verdict (what the ladder level repeats).
VERDICT_KEYS = ("action", "reasons", "failed_gates", "protocol_mismatches")

# The steps a rounded level chooses from when the maintainer gives none: the finest one that
# is at least two standard errors of the score (step_allowed) for the tasks scored.
AUTOMATIC_STEPS = (Fraction(1, 10), Fraction(1, 5), Fraction(1, 4), Fraction(1, 2), Fraction(1))
_STEP = re.compile(r"(0\.[0-9]{1,4}|1(\.0{1,4})?)\Z")


class StepError(ValueError):
    """A rounding step that is not a decimal in (0, 1]; the message says what is expected."""


def parse_step(text: str) -> Fraction:
    """A rounding step written as a decimal in (0, 1] with at most four decimals.

    >>> parse_step("0.25"), parse_step("1")
    (Fraction(1, 4), Fraction(1, 1))
    """
    if not _STEP.match(text.strip()) or Fraction(text.strip()) == 0:
        raise StepError("a rounding step is a decimal in (0, 1] with at most four decimals, "
                        "such as 0.2, not %r" % text)
    return Fraction(text.strip())


def step_text(step: Fraction) -> str:
    """The step as the shortest decimal that reads back as it (steps have at most four).

    >>> step_text(Fraction(1, 4)), step_text(Fraction(1))
    ('0.25', '1')
    """
    if step == 1:
        return "1"
    return ("%.4f" % step).rstrip("0")


def step_allowed(step: Fraction, tasks: int) -> bool:
    """Whether ``step`` is at least two standard errors of a score over ``tasks`` tasks.

    A score is a share p of n tasks; its standard error is sqrt(p (1 - p) / n), at most
    1 / (2 sqrt(n)) (at p = 1/2). A step below twice that, 1 / sqrt(n), would tell scores
    apart that the test set cannot: the rule is step >= 1 / sqrt(n), exactly step^2 n >= 1.

    >>> step_allowed(Fraction(1, 10), 100), step_allowed(Fraction(1, 10), 99)
    (True, False)
    """
    return step * step * tasks >= 1


def minimum_step(tasks: int) -> float:
    """1 / sqrt(n): the finest step :func:`step_allowed` accepts (for messages)."""
    return 1 / math.sqrt(tasks) if tasks > 0 else 1.0


def automatic_step(tasks: int) -> Fraction:
    """The finest of :data:`AUTOMATIC_STEPS` that :func:`step_allowed` accepts.

    >>> str(automatic_step(5)), str(automatic_step(50)), str(automatic_step(1000))
    ('1/2', '1/5', '1/10')
    """
    for step in AUTOMATIC_STEPS:
        if step_allowed(step, tasks):
            return step
    return AUTOMATIC_STEPS[-1]


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
            HARDNESS[item["severity"]],
            _label(item["gate"]), item["gate"]) for item in failed]
    return {"action": document["action"], "reasons": reasons, "failed_gates": failed,
            "protocol_mismatches": list(document["comparison"]["protocol_mismatches"])}


def _exact(value: float) -> Fraction:
    return Fraction(repr(value))


def round_to_step(value: Fraction, step: Fraction) -> Fraction:
    """The nearest multiple of ``step`` (halves away from zero).

    >>> tenth = Fraction(1, 10)
    >>> float(round_to_step(Fraction(3, 4), tenth)), float(round_to_step(Fraction(2, 3), tenth))
    (0.8, 0.7)
    """
    units = value / step
    whole = math.floor(abs(units) + Fraction(1, 2))
    return step * (whole if units >= 0 else -whole)


def rounded(document: dict, step: Fraction) -> dict:
    """The rounded level's numbers: the primary rate and the interval, widened outward."""
    rate = _exact(document["candidate_metrics"]["primary_task_success_rate"])
    low, high = (_exact(value) for value in document["comparison"]["paired_bootstrap_interval"])
    return {
        "rounding_step": float(step),
        "primary_task_success_rate": float(round_to_step(rate, step)),
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
    deviation of the differences. Exact: mean > 0 and mean^2 > s^2 / n. With one task s is
    undefined (n - 1 = 0), so after the first release nothing new is ever released.

    >>> ladder_releases([1, 1, 0], None), ladder_releases([1, 1, 1], [0, 0, 0])
    (True, True)
    >>> ladder_releases([1, 1, 0], [1, 0, 0])  # one task better of three: mean = s / sqrt(n)
    False
    >>> ladder_releases([1], [0])  # one task: no standard error, nothing new
    False
    """
    if best is None:
        return True
    count = len(new)
    if count < 2 or len(best) != count:
        return False
    differences = [Fraction(a - b) for a, b in zip(new, best)]
    mean = sum(differences) / count
    if mean <= 0:
        return False
    variance = sum((d - mean) ** 2 for d in differences) / (count - 1)
    return mean * mean > variance / count


def score(passes: Sequence[int]) -> float:
    """The Ladder's score: the share of passing test tasks (already a multiple of 1/n, the
    paper's rounding)."""
    return float(Fraction(sum(passes), len(passes))) if passes else 0.0
