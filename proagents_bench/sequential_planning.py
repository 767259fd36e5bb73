"""A sequential design, proposed: what ``plan --sequential`` says and ``init --sequential``
writes (docs/statistics.md, "Spec v5"; the design's statistics are
:mod:`proagents_bench.stats.sequential_plan`).

From the spec it reads alpha = (1 - confidence)/2 and theta0 from the margin of the interval
gate of the design's level; from the effect worth detecting delta and the discordance rate q
(measured in a package by ``plan``: the share of tasks, or of trial pairs, where exactly one
system passed; assumed by ``init``, 0.3 by default) the win share theta1 = theta0 + delta/(2q);
then the largest sample, the looks within the pool, and, exactly, the chance of a PASS and
the expected and worst tasks, trials and cost at no effect (theta0) and at the effect
(theta1), beside the fixed design of the same power in units
(:func:`~proagents_bench.stats.sequential_fixed.fixed_units`). Costs are the planner's:
tasks times the cost per task plus trials times both systems' cost per trial.
"""

from __future__ import annotations

import hashlib
from fractions import Fraction
from math import ceil
from typing import TYPE_CHECKING, List, NamedTuple, Optional, Sequence, Tuple

from .contract.sequential import (LEVEL_GATES, boundary_sha256, null_share, pool_order,
                                  pool_sha256)
from .contract.vocabulary import TASK_UNIT, TRUNCATED_SPRT
from .evaluation.grading import ALL_CHECKS
from .stats.exact import to_float
from .stats.sequential_fixed import fixed_units
from .stats.sequential_plan import (DEFAULT_LOOKS, Cost, default_growth, expected_cost,
                                    feasible_boundary, look_units, schedule)
from .text import show_number

if TYPE_CHECKING:  # for annotations only
    from .jsonio import JSONObject
    from .render.evaluation import Evaluation
    from .stats.sequential import Boundary

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


class Costs(NamedTuple):
    """What a design costs and buys: at no effect, at the effect, in the worst case, and the
    fixed design of the same power."""
    null: Cost
    effect: Cost
    worst: Tuple[int, int]
    fixed_units: int
    fixed: Tuple[int, int]


def costs(proposal: Proposal) -> Costs:
    """The proposal's exact costs (see the module docstring). The design built from the
    written block, as the gate builds it."""
    boundary, looks, unit, rate = (proposal.boundary, proposal.looks,
                                   proposal.block["unit"], proposal.rate)
    null = expected_cost(boundary, looks, unit, rate, proposal.theta0)
    effect = expected_cost(boundary, looks, unit, rate, proposal.theta1)
    tasks, trials = looks[-1]
    design = boundary.design
    units, _ = fixed_units(design.alpha, proposal.theta0, design.theta1, effect.pass_chance,
                           rate)
    if unit == TASK_UNIT:
        fixed = (units, trials)
    elif proposal.block["looks"][0]["tasks"] == tasks:  # growing trials: every task runs
        fixed = (tasks, max(2, ceil(Fraction(units, tasks))))
    else:
        fixed = (ceil(Fraction(units, trials)), trials)
    return Costs(null, effect, (tasks, tasks * trials), units, (fixed[0], fixed[0] * fixed[1]))


def measured_discordance(evaluation: Evaluation, unit: str) -> Tuple[int, int]:
    """(discordant, units) of a package: tasks whose verdicts differ, or trial pairs (a
    trial of each system with one trial id of one task) where exactly one passed."""
    document = evaluation.lazy_document
    if unit == TASK_UNIT:
        statistics = document["comparison"]["paired_statistics"]
        discordant = statistics["candidate_only"] + statistics["baseline_only"]
        return discordant, len(document["candidate_metrics"]["task_results"])
    first = document["baseline_metrics"]["trial_results"].outcomes
    second = document["candidate_metrics"]["trial_results"].outcomes
    found = sum(1 for one, other in zip(first, second)
                if (one == ALL_CHECKS) != (other == ALL_CHECKS))
    return found, len(first)


def proposal_document(proposal: Proposal, found: Costs, per_trial: Fraction,
                      per_task: Fraction, notes: List[str]) -> JSONObject:
    """The plan document's ``sequential`` object."""
    def cost(tasks: Fraction, trials: Fraction) -> float:
        return to_float(tasks * per_task + trials * per_trial)

    def expected(value: Cost) -> JSONObject:
        return {"tasks": to_float(value.tasks), "trials": to_float(value.trials),
                "units": to_float(value.units), "cost": cost(value.tasks, value.trials),
                "pass_chance": to_float(value.pass_chance)}

    design = proposal.boundary.design
    return {
        "design": proposal.block,
        "protocol_trial_count": proposal.looks[-1][1],
        "boundary_sha256": boundary_sha256(proposal.boundary),
        "alpha": to_float(design.alpha), "theta0": to_float(proposal.theta0),
        "win_share": to_float(proposal.theta1), "discordance": to_float(proposal.rate),
        "look_units": look_units(proposal.looks, proposal.block["unit"]),
        "expected": {"null_effect": expected(found.null), "effect": expected(found.effect)},
        "worst": {"tasks": found.worst[0], "trials": found.worst[1],
                  "cost": cost(Fraction(found.worst[0]), Fraction(found.worst[1]))},
        "fixed": {"tasks": found.fixed[0], "trials": found.fixed[1], "units": found.fixed_units,
                  "cost": cost(Fraction(found.fixed[0]), Fraction(found.fixed[1]))},
        "saving": to_float(found.effect.trials / found.fixed[1]),
        "notes": notes,
    }


def proposal_notes(proposal: Proposal, found: Costs, asked_looks: int,
                   power: Fraction) -> List[str]:
    """What the reader of a proposed design must know."""
    notes = []
    if proposal.block["unit"] != TASK_UNIT:
        notes.append("the unit is the trial pair: the design's false pass is exact only if "
                     "trial pairs are exchangeable pair by pair (a narrower null than the "
                     "fixed trial-level rule's; docs/statistics.md)")
    if len(proposal.looks) < asked_looks:
        notes.append("%d looks, not %d: the pool and the trials allow no more distinct looks"
                     % (len(proposal.looks), asked_looks))
    if found.effect.pass_chance < power:
        wanted = ceil(proposal.boundary.design.max_discordant / proposal.rate)
        short = look_units(proposal.looks, proposal.block["unit"])[-1] < wanted
        notes.append("the looks reach a power of %s, below the %s asked: %s" % (
            show_number(found.effect.pass_chance), show_number(power),
            "the pool (or the trials allowed) holds fewer units than the largest sample "
            "needs at this discordance, and the last look's closing threshold decides" if short
            else "a look of fewer than the largest sample's discordant units closes the "
                 "design at its closing threshold, which recovers most of that power"))
    if len(proposal.looks) < 10:
        notes.append("with fewer than 10 looks a decision inside a batch pays for the whole "
                     "batch: the saving against the fixed design is smaller (docs/"
                     "statistics.md: 74-79% of it with 5 looks)")
    return notes


def summary_lines(document: JSONObject, unit: str) -> List[str]:
    """The plan summary's lines for a proposed design."""
    design = document["design"]
    one = "task" if unit == TASK_UNIT else "trial pair"
    lines = [
        "sequential design (truncated SPRT, exact): the candidate wins %s of discordant %ss "
        "(discordance %s); alpha %s, power %s" % (
            show_number(document["win_share"]), one, show_number(document["discordance"]),
            show_number(document["alpha"]), show_number(design["power"])),
        "boundary: at most %d discordant %ss; %d looks: %s" % (
            design["max_discordant"], one, len(design["looks"]), ", ".join(
                "%dx%d" % (look["tasks"], look["trials"]) for look in design["looks"])),
        "%-28s %10s %10s %10s %8s" % ("", "tasks", "trials", "cost", "P(PASS)")]
    for label, key in (("expected, no effect", "null_effect"), ("expected, effect", "effect")):
        row = document["expected"][key]
        lines.append("%-28s %10.1f %10.1f %10s %8.4f" % (
            label, row["tasks"], row["trials"], show_number(row["cost"]), row["pass_chance"]))
    for label, row in (("worst case", document["worst"]),
                       ("fixed design, same power", document["fixed"])):
        lines.append("%-28s %10d %10d %10s" % (label, row["tasks"], row["trials"],
                                               show_number(row["cost"])))
    lines.append("saving at the effect: %.1f%% of the fixed design's trials" % (
        100 * document["saving"]))
    return lines + ["note: %s" % note for note in document["notes"]]
