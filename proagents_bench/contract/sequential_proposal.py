"""A sequential design proposed for a spec (``plan --sequential``, ``init --sequential``):
the ``sequential`` block a spec v5 holds, built exactly as the gate rebuilds it.

From the spec it reads alpha = (1 - confidence)/2 and theta0 from the margin of the interval
gate of the design's level (:mod:`.sequential`); from the effect worth detecting delta and the
discordance rate q (measured in a package by ``plan``: the share of tasks, or of trial pairs,
where exactly one system passed; assumed by ``init``, :data:`ASSUMED_DISCORDANCE`) the win
share theta1 = theta0 + delta/(2q), written to 4 decimals, rounded down; then the largest
sample and the looks within the pool
(:mod:`proagents_bench.stats.sequential_plan`). What it costs is the planner's
(:mod:`proagents_bench.planning.sequential`).
"""

from __future__ import annotations

import hashlib
from decimal import Decimal
from fractions import Fraction
from math import ceil
from typing import TYPE_CHECKING, List, NamedTuple, Optional, Sequence, Tuple

from ..stats.exact import to_float
from ..stats.sequential_plan import DEFAULT_LOOKS, default_growth, feasible_boundary, schedule
from ..text import show_number
from .gates import TRIAL_INTERVAL_GATE
from .sequential import LEVEL_GATES, null_share, pool_order, pool_sha256
from .vocabulary import INCLUSIVE, SPEC_V5, TASK_UNIT, TRUNCATED_SPRT

if TYPE_CHECKING:  # for annotations only
    from ..jsonio import JSON, JSONObject
    from ..stats.sequential import Boundary

# The discordance rate init assumes when nothing has run yet.
ASSUMED_DISCORDANCE = Fraction(3, 10)


class SequentialPlanError(ValueError):
    """A design that cannot be proposed (said in words)."""


def order_seed(benchmark_id: str, benchmark_version: str) -> int:
    """The frozen pool's order seed init and plan write: the first 13 hex digits of the
    SHA-256 of the benchmark's id and version (one per line), as an integer (< 2^53), so the
    same benchmark gets the same order on every machine."""
    digest = hashlib.sha256(("%s\n%s" % (benchmark_id, benchmark_version)).encode("utf-8"))
    return int(digest.hexdigest()[:13], 16)


class Proposal(NamedTuple):
    """A proposed design: the spec's ``sequential`` block, the boundary, its looks, the
    win share and the null share, the discordance rate it assumed, and the protocol
    trial count the spec needs (the last look's)."""
    block: JSONObject
    boundary: Boundary
    looks: List[Tuple[int, int]]
    theta0: Fraction
    theta1: Fraction
    rate: Fraction


def propose(spec: JSONObject, test_ids: Sequence[str], unit: str, effect: Fraction,
            rate: Fraction, power: Fraction = Fraction(4, 5), looks: int = DEFAULT_LOOKS,
            growth: Optional[str] = None, trials: Optional[int] = None,
            max_tasks: Optional[int] = None, max_trials: int = 100) -> Proposal:
    """The design for ``spec``'s benchmark, its pool the ``test_ids``: SequentialPlanError
    when it cannot be made (an effect that is no effect, a rate of 0, a power no design
    reaches)."""
    gate = LEVEL_GATES[unit]
    if gate.key not in spec["gates"]:
        raise SequentialPlanError("a %s-level design replaces %s, which a %s spec has not: "
                                  "write spec v5" % (unit, gate.key, spec["schema_version"]))
    if not 0 < rate <= 1:
        raise SequentialPlanError("the discordance rate is %s: a design needs tasks (or trial "
                                  "pairs) where the systems differ" % show_number(rate))
    if not Fraction(1, 2) < power < 1:
        raise SequentialPlanError("the power lies above 0.5 and below 1")
    alpha = (1 - Fraction(spec["bootstrap"]["confidence"])) / 2
    theta0 = null_share(Fraction(spec["gates"][gate.key]))
    # The win share as the spec writes it, to 4 decimals, rounded down (the design then
    # plans for no less than the effect asked), and the design built from exactly that, as
    # the gate will build it.
    theta1 = Fraction(int((theta0 + effect / (2 * rate)) * 10000), 10000)
    if not theta0 < theta1 < 1:
        raise SequentialPlanError(
            "an effect of %s at a discordance rate of %s asks the candidate to win %s of the "
            "discordant %ss: it must lie above %s and below 1" % (
                show_number(effect), show_number(rate), show_number(theta1), unit,
                show_number(theta0)))
    try:
        boundary = feasible_boundary(alpha, 1 - power, theta0, theta1)
    except ValueError as problem:
        raise SequentialPlanError(str(problem))
    pool = len(test_ids) if max_tasks is None else min(len(test_ids), max_tasks)
    protocol_trials = spec["protocol"]["trial_count"] if trials is None else trials
    units = ceil(boundary.design.max_discordant / rate)
    growth = growth or default_growth(unit, units, looks, pool, max_trials)
    try:
        found = schedule(units, looks, unit, growth, pool, protocol_trials, max_trials)
    except ValueError as problem:
        raise SequentialPlanError(str(problem))
    seed = order_seed(spec["benchmark_id"], spec["benchmark_version"])
    block: JSONObject = {
        "method": TRUNCATED_SPRT, "unit": unit, "power": to_float(power),
        "win_share": to_float(theta1), "max_discordant": boundary.design.max_discordant,
        "futility": True, "order_seed": seed,
        "pool_sha256": pool_sha256(pool_order(list(test_ids), seed)),
        "looks": [{"tasks": tasks, "trials": count} for tasks, count in found]}
    return Proposal(block, boundary, found, theta0, theta1, rate)


def as_spec_v5(spec: JSONObject, unit: str) -> JSONObject:
    """``spec`` (any version) as the spec v5 a design of ``unit`` is written into, deciding
    as it did where it can: a spec without a trial-level gate (v1-v3) gets one at -1 (no
    condition) for a task-level design, and at 0 for a trial-level one, whose boundary
    replaces it; a v1 or v2 bootstrap gets the task unit and the inclusive lower bound they
    always had."""
    written = dict(spec, schema_version=SPEC_V5)
    written["gates"] = dict(spec["gates"])
    written["gates"].setdefault(TRIAL_INTERVAL_GATE.key, -1.0 if unit == TASK_UNIT else 0.0)
    written["bootstrap"] = dict(spec["bootstrap"])
    written["bootstrap"].setdefault("unit", TASK_UNIT)
    written["bootstrap"].setdefault("lower_bound", INCLUSIVE)
    return written


def with_design(spec: JSONObject, test_ids: Sequence[str], unit: str, effect: Fraction,
                rate: Fraction, power: Fraction = Fraction(4, 5), looks: int = DEFAULT_LOOKS,
                growth: Optional[str] = None, max_tasks: Optional[int] = None,
                max_trials: int = 100) -> Tuple[JSONObject, Proposal]:
    """(``spec`` as a spec v5 with the design :func:`propose` makes for it, frozen on
    ``test_ids``, its protocol's trial count the last look's; the proposal)."""
    written = as_spec_v5(spec, unit)
    found = propose(written, test_ids, unit, effect, rate, power, looks, growth,
                    max_tasks=max_tasks, max_trials=max_trials)
    written["protocol"] = dict(spec["protocol"], trial_count=found.looks[-1][1])
    written["sequential"] = found.block
    return as_written(written), found


def as_written(value: JSON) -> JSON:
    """A loaded spec's values as the product's writer writes them: a number the loader kept
    as a Decimal (a fraction or an exponent, ``0.95``) as the double it reads back as the
    same decimal (the shortest repr of the double nearest to it)."""
    if isinstance(value, dict):
        return {key: as_written(item) for key, item in value.items()}
    if isinstance(value, list):
        return [as_written(item) for item in value]
    if isinstance(value, Decimal):
        return float(value)
    return value
