"""A spec v5's sequential design (``sequential``), declared once: its shape, its rules across
the spec's fields, the frozen order of the pool of test tasks, which look of the design a
results package is, and the digests a ledger keeps of it.

The design is frozen before the first look (docs/statistics.md, "Sequential decisions"): the
test split of the cases file is the *pool*, ordered by the SHA-256 of
``"<order_seed>:<case_id>"`` (lowercase hex, compared as text; UTF-8), which no outcome can
change; look j holds the first ``looks[j].tasks`` tasks of that order with trial ids
1..``looks[j].trials`` of each system. The boundary is rebuilt from the design by
:func:`proagents_bench.stats.sequential.design_boundary` (the same on every platform), from:

- alpha = (1 - ``bootstrap.confidence``) / 2, the one-sided level of the gate's small-sample
  rules;
- theta0, the null share of the discordant units the candidate wins, from the margin m of the
  interval gate of the design's level (``min_paired_delta_ci_low`` for ``task``,
  ``min_trial_delta_ci_low`` for ``trial``): 1/2 when m >= 0, (1 + m)/2 below (a
  non-inferiority margin: the exact bound for every discordance rate);
- theta1 = ``win_share``, beta = 1 - ``power``, N = ``max_discordant``, ``futility``.
"""

from __future__ import annotations

import hashlib
from fractions import Fraction
from functools import lru_cache
from typing import TYPE_CHECKING, Iterator, List, Optional, Sequence, Tuple

from ..jsonio.load import MAX_SAFE_INTEGER
from ..stats import MAX_DISCORDANT
from ..text import listed, show_number
from .containers import Array, Field, Object
from .gates import PAIRED_INTERVAL_GATE, TRIAL_INTERVAL_GATE, Gate
from .shapes import Boolean, Integer, Number, Rule, String
from .vocabulary import (SEQUENTIAL_METHODS, SEQUENTIAL_UNITS, SHA256_HEX, TASK_UNIT,
                         TRUNCATED_SPRT)

if TYPE_CHECKING:  # for annotations only
    from ..errors import ContractError
    from ..jsonio import JSONObject
    from ..stats.sequential import Boundary, Design

HALF = Fraction(1, 2)
# The fewest discordant units a design may have (fewer cannot reach a useful power).
MIN_DISCORDANT = 6
MAX_LOOKS = 100
# The interval gate whose margin each level's design tests, and which its boundary replaces.
LEVEL_GATES = {TASK_UNIT: PAIRED_INTERVAL_GATE, "trial": TRIAL_INTERVAL_GATE}
# What a unit of each level is called in a reason or a report: (one, several).
UNIT_WORDS = {TASK_UNIT: ("task", "tasks"), "trial": ("trial pair", "trial pairs")}
# The canonical text of a boundary, whose SHA-256 the ledger keeps (``boundary_sha256``).
BOUNDARY_TEXT = "sequential-boundary-v1\n%s\n%s\n"

LOOK = Object("look", [
    Field("tasks", Integer(minimum=1, maximum=MAX_SAFE_INTEGER, maximum_text="2^53-1"),
          "the look holds the first this many test tasks of the frozen pool"),
    Field("trials", Integer(minimum=2, maximum=100),
          "and trial ids 1..trials of each of them, for each system"),
], title="Look")

SEQUENTIAL = Object("sequential", [
    Field("method", String(enum=SEQUENTIAL_METHODS), "`%s`: the exactly calibrated "
          "truncated sequential probability ratio test on the paired discordant units "
          "(docs/statistics.md)" % TRUNCATED_SPRT),
    Field("unit", String(enum=SEQUENTIAL_UNITS), "`task`: a task judged by its verdict (the "
          "boundary replaces `min_paired_delta_ci_low`); `trial`: a pair of trials of one "
          "task with the same trial id (it replaces `min_trial_delta_ci_low`; its null is "
          "narrower: trials exchangeable pair by pair)"),
    Field("power", Number(minimum="0.5", maximum="0.99"),
          "the exact chance of a PASS at `win_share` (above 0.5)"),
    Field("win_share", Number(minimum="0", maximum="1"),
          "the effect worth detecting: the share of the discordant units the candidate wins"),
    Field("max_discordant", Integer(minimum=MIN_DISCORDANT, maximum=MAX_DISCORDANT),
          "the largest sample, in discordant units: every path is decided by it"),
    Field("futility", Boolean(), "stop early when the futility boundary is crossed"),
    Field("order_seed", Integer(minimum=0, maximum=MAX_SAFE_INTEGER, maximum_text="2^53-1"),
          "orders the pool: test cases by the SHA-256 of `\"<order_seed>:<case_id>\"`"),
    Field("pool_sha256", String(pattern=SHA256_HEX),
          "SHA-256 of the pool's case ids in that order, one per line (no final newline)"),
    Field("looks", Array(LOOK, min_items=1, max_items=MAX_LOOKS),
          "the looks the design allows, cumulative, in order"),
], title="Sequential design")


class SequentialDesign:
    """A valid spec's sequential design, read exactly: the ``block`` as written, its
    ``unit``, the interval ``gate`` its boundary replaces and that gate's ``margin``, the
    one-sided ``alpha``, the null share ``theta0``, the ``looks`` as (tasks, trials), and
    ``statistics``, the :class:`~proagents_bench.stats.sequential.Design` its boundary is
    built from."""

    def __init__(self, spec: JSONObject) -> None:
        block = spec["sequential"]
        self.block = block
        self.unit: str = block["unit"]
        self.gate: Gate = LEVEL_GATES[self.unit]
        self.margin = Fraction(spec["gates"][self.gate.key])
        self.alpha = (1 - Fraction(spec["bootstrap"]["confidence"])) / 2
        self.theta0 = null_share(self.margin)
        self.looks: List[Tuple[int, int]] = [(look["tasks"], look["trials"])
                                             for look in block["looks"]]
        # Imported here: a fixed design, the gate's usual run, never builds a boundary.
        from ..stats.sequential import Design
        self.statistics = Design(self.alpha, 1 - Fraction(block["power"]), self.theta0,
                                 Fraction(block["win_share"]), block["max_discordant"],
                                 block["futility"])

    def boundary(self) -> Boundary:
        """The boundary rebuilt from the design (computed once per process and design)."""
        return _boundary(self.statistics)

    def replaced_gates(self) -> List[str]:
        """The interval gate the boundary replaces: its level's, unless its margin is above
        0 (then it stays a condition of a PASS)."""
        return [] if self.margin > 0 else [self.gate.key]

    def look_of(self, tasks: int, trials: int) -> Optional[int]:
        """The index (0-based) of the look of ``tasks`` tasks and ``trials`` trials, or
        None."""
        for index, look in enumerate(self.looks):
            if look == (tasks, trials):
                return index
        return None

    def describe_look(self, index: int) -> str:
        """``look 2 of 10: the first 60 tasks of the frozen pool, trials 1-3 of each``."""
        tasks, trials = self.looks[index]
        return "look %d of %d: the first %d task%s of the frozen pool, trial ids 1-%d of each" % (
            index + 1, len(self.looks), tasks, "" if tasks == 1 else "s", trials)


def null_share(margin: Fraction) -> Fraction:
    """theta0 for the margin m of the design's interval gate: 1/2 when m >= 0 (a PASS says
    the candidate is better), (1 + m)/2 below (no worse than m; exact for every discordance
    rate, since delta = q (2 theta - 1) <= m for every q exactly when theta <= (1 + m)/2 at
    q = 1, the worst)."""
    return HALF if margin >= 0 else (1 + margin) / 2


def design_of(spec: JSONObject) -> Optional[SequentialDesign]:
    """The spec's sequential design, or None (a fixed design: spec v1-v4, or v5 with
    ``sequential`` null)."""
    return SequentialDesign(spec) if spec.get("sequential") is not None else None


@lru_cache(maxsize=16)
def _boundary(design: Design) -> Boundary:
    from ..stats.sequential import design_boundary  # see SequentialDesign
    return design_boundary(design)


def pool_order(case_ids: Sequence[str], seed: int) -> List[str]:
    """The test case ids in the design's frozen order: by the SHA-256 of
    ``"<seed>:<case_id>"`` (UTF-8; hex digests compared as text, then the id)."""
    return sorted(case_ids, key=lambda case_id: (hashlib.sha256(
        ("%d:%s" % (seed, case_id)).encode("utf-8")).hexdigest(), case_id))


# A batch's task ids in words: every one up to NAMED_TASKS, else the first SHOWN_TASKS and
# how many more (the documents list them all: sequential.next_batch, sequential.first_look).
NAMED_TASKS = 12
SHOWN_TASKS = 6


def named_tasks(case_ids: Sequence[str]) -> str:
    """A batch's task ids for a reason or a summary line.

    >>> named_tasks(["t1", "t2", "t3"])
    't1, t2 and t3'
    >>> named_tasks(["t%d" % n for n in range(1, 51)])
    't1, t2, t3, t4, t5, t6 and 44 more'
    """
    if len(case_ids) <= NAMED_TASKS:
        return listed(list(case_ids))
    return "%s and %d more" % (", ".join(case_ids[:SHOWN_TASKS]), len(case_ids) - SHOWN_TASKS)


def number_span(first: int, last: int) -> str:
    """A batch's run of task positions or trial ids: ``3`` or ``3-5``."""
    return str(first) if first == last else "%d-%d" % (first, last)


def pool_sha256(ordered: Sequence[str]) -> str:
    """SHA-256 of the ordered case ids, one per line (UTF-8, no final newline)."""
    return hashlib.sha256("\n".join(ordered).encode("utf-8")).hexdigest()


def boundary_sha256(boundary: Boundary) -> str:
    """SHA-256 of the boundary's canonical text (:data:`BOUNDARY_TEXT`): its pass and
    futility thresholds for n = 0..N, comma-separated."""
    text = BOUNDARY_TEXT % (",".join(map(str, boundary.passing)),
                            ",".join(map(str, boundary.futile)))
    return hashlib.sha256(text.encode("ascii")).hexdigest()


def value_sha256(value: JSONObject) -> str:
    """SHA-256 of a JSON value's RFC 8785 canonical form (a spec, a design block)."""
    from ..jsonio.canonical import canonical_json  # only a ledger asks (see SequentialDesign)
    return hashlib.sha256(canonical_json(value)).hexdigest()


# -- the rules across the spec's fields ------------------------------------------------------

def _looks_grow(spec: JSONObject) -> Iterator[ContractError]:
    block = spec.get("sequential")
    if block is None:
        return
    trial_count = spec["protocol"]["trial_count"]
    looks = block["looks"]
    for index, look in enumerate(looks):
        where = ("sequential", "looks", index)
        if block["unit"] == TASK_UNIT and look["trials"] != trial_count:
            yield LOOKS_GROW.error(
                "a design of unit task adds tasks only (more trials would change the verdicts "
                "of tasks already on the path): every look's trials is protocol.trial_count "
                "%d, not %d" % (trial_count, look["trials"]), where + ("trials",))
        if index:
            before = looks[index - 1]
            if (look["tasks"] < before["tasks"] or look["trials"] < before["trials"]
                    or (look["tasks"], look["trials"]) == (before["tasks"], before["trials"])):
                yield LOOKS_GROW.error(
                    "look %d (%d tasks, %d trials) must hold at least the tasks and trials of "
                    "look %d (%d tasks, %d trials) and more of one of them" % (
                        index + 1, look["tasks"], look["trials"], index, before["tasks"],
                        before["trials"]), where)
    if looks[-1]["trials"] != trial_count:
        yield LOOKS_GROW.error(
            "the last look's trials (%d) must be protocol.trial_count (%d)" % (
                looks[-1]["trials"], trial_count), ("sequential", "looks", len(looks) - 1,
                                                    "trials"))


def _design_can_be_built(spec: JSONObject) -> Iterator[ContractError]:
    block = spec.get("sequential")
    if block is None:
        return
    gate = LEVEL_GATES[block["unit"]]
    margin = Fraction(spec["gates"][gate.key])
    if margin <= -1:
        yield DESIGN.error("a margin of %s (%s) leaves no null for the sequential design to "
                           "reject: raise it above -1" % (spec["gates"][gate.key], gate.key),
                           ("gates", gate.key))
        return
    theta0 = null_share(margin)
    found = False
    if Fraction(block["power"]) <= HALF:
        found = True
        yield DESIGN.error("power must be above 0.5", ("sequential", "power"))
    win_share = Fraction(block["win_share"])
    if not theta0 < win_share < 1:
        found = True
        yield DESIGN.error(
            "win_share %s must lie above %s, the share of the discordant units the candidate "
            "wins under the null of %s %s, and below 1" % (
                block["win_share"], show_number(theta0), gate.key, spec["gates"][gate.key]),
            ("sequential", "win_share"))
    if found:
        return
    try:
        SequentialDesign(spec).boundary()
    except ValueError as problem:
        yield DESIGN.error(str(problem), ("sequential", "max_discordant"))


LOOKS_GROW = Rule("sequential.looks", _looks_grow)
DESIGN = Rule("sequential.design", _design_can_be_built)
# The rules of a spec whose root has a ``sequential`` key (v5).
SPEC_RULES = (LOOKS_GROW, DESIGN)
