"""Feedback granularity: what a team learns from a scored submission.

The levels are one table (:data:`LEVEL_TABLE`), a row per level with its answer function,
the precision of the score it releases on the leaderboard and its rows of docs/service.md's
tables (what it releases; what it leaks, in bits per submission; what the boosting attack
measured); the submissions read the table (:func:`level`), which refuses a level it does not
have, so no level can fall through to another. Each level releases a little more than the one
before it:

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
from typing import TYPE_CHECKING, Callable, Dict, List, Optional, Sequence, Tuple

from ..contract.gates import GATE_BY_KEY
from ..contract.vocabulary import HARDNESS, INCOMPARABLE, INFORMATIONAL, PASS

if TYPE_CHECKING:  # for annotations only
    from ..jsonio import JSONObject

VERDICT = "verdict"
ROUNDED = "rounded"
LADDER = "ladder"
FULL = "full"

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


def verdict(document: JSONObject) -> JSONObject:
    """The action, the failed gates and reasons that name no private detail."""
    # Each failed gate once: the critical gate's findings come one per failing critical
    # task, and their number would tell how many critical tasks failed.
    failed: List[JSONObject] = []
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


def rounded(document: JSONObject, step: Fraction) -> JSONObject:
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


def task_passes(document: JSONObject) -> List[int]:
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


# -- the levels ---------------------------------------------------------------------------

# How precise the score a level releases is, as the leaderboard ranks it: the share of passing
# tasks itself, the Ladder's score (an exact share), or rounded to the team's step.
EXACT_SCORE = "exact"
LADDER_SCORE = "ladder"
ROUNDED_SCORE = "rounded"

LADDER_RULE = ("a new score, and the verdict that comes with it, is released only when the "
               "score beats the team's best released score by more than one paired standard "
               "error (Blum & Hardt 2015, parameter-free Ladder); otherwise both are those of "
               "the best released submission")


class Shown:
    """What an answer shows: its members, whether it releases a new score, that score and
    the rounding step it was rounded to."""

    def __init__(self, answer: JSONObject, released: bool = False, score: Optional[float] = None,
                 step: Optional[Fraction] = None) -> None:
        self.answer = answer
        self.released = released
        self.score = score
        self.step = step


class Released:
    """The team's best score released by a level before (the Ladder's): its submission id,
    its score, its per-task passes and its answer."""

    def __init__(self, submission_id: int, score: float, passes: List[int],
                 answer: JSONObject) -> None:
        self.submission_id = submission_id
        self.score = score
        self.passes = passes
        self.answer = answer


class Asked:
    """What a level's answer reads: the gate's decision ``document`` (comparable: its
    candidate has metrics), its ``verdict`` (:func:`verdict`), the team's rounding step (None:
    automatic) and ``best_released()``, the team's best release at this level on the same
    benchmark, dataset and phase (None before the first)."""

    def __init__(self, document: JSONObject, rounding_step: Optional[str],
                 best_released: Callable[[], Optional[Released]]) -> None:
        self.document = document
        self.verdict = verdict(document)
        self.rounding_step = rounding_step
        self.best_released = best_released


def _verdict_answer(asked: Asked) -> Shown:
    return Shown(asked.verdict)


def _rounded_answer(asked: Asked) -> Shown:
    tasks = len(asked.document["candidate_metrics"]["task_results"])
    step = (Fraction(asked.rounding_step) if asked.rounding_step is not None
            else automatic_step(tasks))
    answer = dict(asked.verdict, rounded=rounded(asked.document, step))
    return Shown(answer, True, answer["rounded"]["primary_task_success_rate"], step)


def _ladder_answer(asked: Asked) -> Shown:
    passes = task_passes(asked.document)
    best = asked.best_released()
    released = ladder_releases(passes, best.passes if best is not None else None)
    if released or best is None:
        answer = dict(asked.verdict)
    else:  # nothing new: the best released submission's score and verdict again
        answer = {key: best.answer[key] for key in VERDICT_KEYS}
    answer["ladder"] = {
        "score": score(passes) if released or best is None else best.score,
        "new_score_released": released,
        "verdict_of_submission": None if released or best is None else best.submission_id,
        "rule": LADDER_RULE}
    return Shown(answer, released, answer["ladder"]["score"] if released else None)


def _full_answer(asked: Asked) -> Shown:
    return Shown(dict(asked.verdict, decision=asked.document), True,
                 asked.document["candidate_metrics"]["primary_task_success_rate"])


class Level:
    """One feedback level (see the module docstring): its name, its ``answer`` to a comparable
    decision, the ``precision`` of the score it releases (None: it releases none), whether a
    team at it has a rounding step (``stepped``), and its rows of the docs' tables: what an
    answer holds (``releases``), the bits it leaks per submission at most (``bits``) and
    what the boosting attack gained against it (``attack``)."""

    def __init__(self, name: str, answer: Callable[[Asked], Shown], precision: Optional[str],
                 releases: str, bits: str, attack: str, stepped: bool = False) -> None:
        self.name = name
        self.answer = answer
        self.precision = precision
        self.stepped = stepped
        self.releases = releases
        self.bits = bits
        self.attack = attack


LEVEL_TABLE: Tuple[Level, ...] = (
    Level(VERDICT, _verdict_answer, None,
          releases="the action, the failed gates by key and severity (each once, so not even "
                   "the number of failing critical tasks shows), reasons that name no task, "
                   "trial or observed value, and for INCOMPARABLE the protocol mismatches "
                   "(public spec against the team's own protocol)",
          bits="G: each gate held or failed (the action and the reasons follow from which)",
          attack="at most 11 each, 1,650 in all; with a gate near the team's score, one of "
                 "them is a score oracle"),
    Level(ROUNDED, _rounded_answer, ROUNDED_SCORE, stepped=True,
          releases="the verdict, the primary task success rate rounded to the nearest "
                   "multiple of the team's rounding step (halves away from zero), and the "
                   "paired bootstrap interval widened outward to multiples of it",
          bits="G + log2(1/h + 1) + 2 log2(2/h + 1): the verdict, the rate on its grid, the "
               "interval's two ends",
          attack="20.5 each at h = 0.2"),
    Level(LADDER, _ladder_answer, LADDER_SCORE,
          releases="a Ladder score and its verdict; when no new score is released, the score "
                   "**and the verdict** of the team's best released submission again "
                   "(`ladder.verdict_of_submission` names it)",
          bits="1 (released or not); and per release log2(n + 1) + G (the score and its "
               "verdict). A release needs a higher score, so at most n + 1 releases per team "
               "and phase; over k submissions with R releases, at most log2 C(k, R) + R "
               "(log2(n + 1) + G) bits in all",
          attack="2 releases in 150: 47 bits in all, 0.31 per submission"),
    Level(FULL, _full_answer, EXACT_SCORE,
          releases="the whole decision document. For the maintainers' own team only",
          bits="n task results and 4 checks per trial, at least n bits",
          attack="50 or more each"),
)
LEVEL_BY_NAME: Dict[str, Level] = {row.name: row for row in LEVEL_TABLE}
LEVELS: Tuple[str, ...] = tuple(row.name for row in LEVEL_TABLE)
# The levels at which a team has a rounding step.
STEPPED_LEVELS: Tuple[str, ...] = tuple(row.name for row in LEVEL_TABLE if row.stepped)


class UnknownLevel(KeyError):
    """A feedback level the table does not have (never answered as another level)."""


def level(name: str) -> Level:
    """The row of level ``name``; :class:`UnknownLevel` for a name the table lacks."""
    found = LEVEL_BY_NAME.get(name)
    if found is None:
        raise UnknownLevel("no feedback level %r (the levels: %s)" % (name, ", ".join(LEVELS)))
    return found


def answer(name: str, asked: Asked) -> Shown:
    """What a scored submission's answer shows at level ``name``: the verdict alone when the
    decision compared nothing (INCOMPARABLE depends only on the public protocol and the
    team's own file), else the level's answer."""
    row = level(name)
    if asked.document["candidate_metrics"] is None:
        return Shown(asked.verdict)
    return row.answer(asked)


def levels_table() -> str:
    """docs/service.md's table of what a scored submission's answer holds, per level."""
    return "\n".join(["| level | a scored submission's answer |", "|---|---|"] + [
        "| `%s` | %s |" % (row.name, row.releases) for row in LEVEL_TABLE]) + "\n"


def leaks_table() -> str:
    """docs/service.md's table of the bits each level leaks, and the attack's gain."""
    return "\n".join([
        "| level | bits per submission, at most | the attack below: 150 submissions, n = 50 |",
        "|---|---|---|"] + ["| `%s` | %s | %s |" % (row.name, row.bits, row.attack)
                            for row in LEVEL_TABLE]) + "\n"
