"""What a proposed sequential design costs and buys (``plan --sequential``): exactly, the
chance of a PASS and the expected and worst tasks, trials and cost at no effect (theta0) and
at the effect (theta1), beside the fixed design of the same power in units
(:func:`~proagents_bench.stats.sequential_fixed.fixed_units`), and the discordance a package
measures. Costs are the planner's: tasks times the cost per task plus trials times both
systems' cost per trial. The design itself is
:mod:`proagents_bench.contract.sequential_proposal`'s.
"""

from __future__ import annotations

from fractions import Fraction
from math import ceil
from typing import TYPE_CHECKING, List, NamedTuple, Optional, Tuple

from ..contract.sequential import LEVEL_GATES, UNIT_WORDS, boundary_sha256
from ..contract.sequential_proposal import Proposal, as_written
from ..contract.vocabulary import TASK_UNIT, TRIAL_UNIT
from ..evaluation.grading import ALL_CHECKS
from ..stats.exact import to_float
from ..stats.sequential_fixed import fixed_units
from ..stats.sequential_plan import Cost, expected_cost, look_units
from ..text import show_number
from .planner import amount

# How far below the power asked the looks may reach for the fixed design to be held to their
# own power (the closing look's discreteness); further, the fixed design has the power asked.
SHORT_OF_POWER = Fraction(1, 100)

if TYPE_CHECKING:  # for annotations only
    from ..contract.sequential import SequentialDesign
    from ..jsonio import JSONObject
    from ..render.evaluation import Evaluation


class Costs(NamedTuple):
    """What a design costs and buys: at no effect, at the effect, in the worst case, and the
    fixed design of the same power."""
    null: Cost
    effect: Cost
    worst: Tuple[int, int]
    fixed_units: int
    fixed: Tuple[int, int]
    fixed_power: Fraction


def costs(proposal: Proposal) -> Costs:
    """The proposal's exact costs (see the module docstring). The design built from the
    written block, as the gate builds it. The fixed design has the power the looks reach,
    or the power asked when the looks fall short of it by more than a point (a pool too
    small for the design: the fixed design then says what that power would take)."""
    boundary, looks, unit, rate = (proposal.boundary, proposal.looks,
                                   proposal.block["unit"], proposal.rate)
    null = expected_cost(boundary, looks, unit, rate, proposal.theta0)
    effect = expected_cost(boundary, looks, unit, rate, proposal.theta1)
    tasks, trials = looks[-1]
    design = boundary.design
    asked = 1 - design.beta
    target = effect.pass_chance if effect.pass_chance >= asked - SHORT_OF_POWER else asked
    units, _ = fixed_units(design.alpha, proposal.theta0, design.theta1, target, rate)
    if unit == TASK_UNIT:
        fixed = (units, trials)
    elif proposal.block["looks"][0]["tasks"] == tasks:  # growing trials: every task runs
        fixed = (tasks, max(2, ceil(Fraction(units, tasks))))
    else:
        fixed = (ceil(Fraction(units, trials)), trials)
    return Costs(null, effect, (tasks, tasks * trials), units, (fixed[0], fixed[0] * fixed[1]),
                 target)


def of_spec(design: SequentialDesign, rate: Fraction) -> Proposal:
    """A spec's own design as the proposal it would have been at the discordance ``rate``,
    for :func:`costs` (``plan`` on a spec v5 with a design)."""
    return Proposal(as_written(design.block), design.boundary(), design.looks, design.theta0,
                    design.statistics.theta1, rate)


def other_gate_note(spec: JSONObject, unit: str) -> Optional[str]:
    """The interval gate of the other level, when the spec sets one a run can fail (above
    -1): it stays a condition of a PASS beside the boundary, which the design's chance of a
    PASS does not count."""
    other = LEVEL_GATES[TRIAL_UNIT if unit == TASK_UNIT else TASK_UNIT]
    value = spec["gates"].get(other.key)
    if value is None or Fraction(str(value)) <= -1:
        return None
    return ("the spec's %s (%s) stays a condition of a PASS beside the boundary: the design's "
            "chance of a PASS does not count it" % (other.key, show_number(value)))


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
        return amount(tasks * per_task + trials * per_trial, "a design's cost")

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
                  "cost": cost(Fraction(found.fixed[0]), Fraction(found.fixed[1])),
                  "power": to_float(found.fixed_power)},
        # E[trials] at the effect over the fixed design's, where both have one power.
        "saving": (to_float(found.effect.trials / found.fixed[1])
                   if found.fixed_power == found.effect.pass_chance else None),
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
    one = UNIT_WORDS[unit][0]
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
    fixed = document["fixed"]
    for label, row in (("worst case", document["worst"]),
                       ("fixed design, power %s" % show_number(fixed["power"]), fixed)):
        lines.append("%-28s %10d %10d %10s" % (label, row["tasks"], row["trials"],
                                               show_number(row["cost"])))
    if document["saving"] is not None:
        lines.append("saving at the effect: %.1f%% of the fixed design's trials, at the same "
                     "power" % (100 * document["saving"]))
    return lines + ["note: %s" % note for note in document["notes"]]
