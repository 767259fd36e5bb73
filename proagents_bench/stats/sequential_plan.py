"""Proposing a sequential design (:mod:`.sequential`) for ``plan`` and ``init``: its largest
sample, its looks in tasks and trials, and what it costs, exactly, beside the fixed design of
the same power.

- The largest sample N is the least N at or above 1.5 times the fixed design of the asked
  power (:func:`~.sequential_fixed.fixed_design`) whose design reaches that power (1.25 times
  cannot always: docs/statistics.md).
- The looks (:func:`schedule`) are ``looks`` equal batches of whole tasks or trials, the
  last reaching the units that hold N discordant units on average at the discordance rate q
  (⌈N/q⌉, rounded up to whole batches), within the pool of test tasks and the trials
  allowed: a task-level design adds
  tasks, each with every trial; a trial-level one adds tasks (``tasks``), trials to every task
  of the pool (``trials``), or both at once (``both``: each by the square root of the share of
  the way, so the units grow evenly).
- What it costs (:func:`expected_cost`): the chance of a PASS, and the expected tasks, trials
  per system and units run, when each unit is discordant with chance q and each discordant
  unit the candidate's win with chance theta (:func:`~.sequential_looks.looks_law`).
"""

from __future__ import annotations

from fractions import Fraction
from math import ceil, isqrt
from typing import List, NamedTuple, Sequence, Tuple

from .discordant_paths import MAX_DISCORDANT
from .sequential import Boundary, Design, design_boundary
from .sequential_fixed import fixed_design
from .sequential_looks import looks_law

# N at least this many times the fixed design of the same power (docs/statistics.md).
FACTOR = Fraction(3, 2)
DEFAULT_LOOKS = 10
GROWTHS = ("tasks", "trials", "both")
# The fewest discordant units a design is given (the contract's least max_discordant).
MIN_SIZE = 6


def feasible_boundary(alpha: Fraction, beta: Fraction, theta0: Fraction, theta1: Fraction,
                      futility: bool = True, factor: Fraction = FACTOR) -> Boundary:
    """The boundary of the least N >= ``factor`` times the fixed design of power 1 - beta
    whose design reaches that power; ValueError when none of at most MAX_DISCORDANT does."""
    fixed, _, _ = fixed_design(alpha, theta0, theta1, 1 - beta)
    size = max(MIN_SIZE, ceil(factor * fixed))
    while size <= MAX_DISCORDANT:
        try:
            return design_boundary(Design(alpha, beta, theta0, theta1, size, futility))
        except ValueError:
            size += 1
    raise ValueError("no design of at most %d discordant units reaches power %s at a win "
                     "share of %s: plan for a larger effect" % (MAX_DISCORDANT, 1 - beta,
                                                                theta1))


def _ceil_root(total: int, share: Fraction) -> int:
    """ceil(total * sqrt(share)), exactly: the least t with t^2 >= total^2 share."""
    target = total * total * share
    found = isqrt(ceil(target))
    while found * found < target:
        found += 1
    return found


def schedule(units: int, looks: int, unit: str, growth: str, pool: int, trials: int,
             max_trials: int = 100) -> List[Tuple[int, int]]:
    """(tasks, trials) of each look: ``looks`` batches up to ``units`` units (tasks for a
    task-level design, trial pairs for a trial-level one) within ``pool`` tasks, ``trials``
    trials per task (the protocol's; a trial-level design growing trials goes up to
    ``max_trials``). Looks that would repeat the one before are left out."""
    if looks < 1 or pool < 1 or not 2 <= trials <= max_trials:
        raise ValueError("a schedule needs a look, a task and 2..%d trials" % max_trials)
    if unit == "task" and growth != "tasks":
        raise ValueError("a task-level design adds tasks only (more trials would change the "
                         "verdicts of tasks already on its path)")
    if growth not in GROWTHS:
        raise ValueError("growth is one of %s" % ", ".join(GROWTHS))
    found: List[Tuple[int, int]] = []
    if growth == "tasks":
        per_task = 1 if unit == "task" else trials
        step = ceil(Fraction(min(pool, max(1, ceil(Fraction(units, per_task)))), looks))
        wanted = [(min(pool, step * k), trials) for k in range(1, looks + 1)]
    else:
        most = min(max_trials, max(2, ceil(Fraction(units, pool))))
        if growth == "trials":
            step = ceil(Fraction(most, looks))
            wanted = [(pool, min(most, max(2, step * k))) for k in range(1, looks + 1)]
        else:
            wanted = [(max(1, _ceil_root(pool, Fraction(k, looks))),
                       max(2, _ceil_root(most, Fraction(k, looks))))
                      for k in range(1, looks + 1)]
    for look in wanted:
        if not found or look != found[-1]:
            found.append(look)
    return found


def default_growth(unit: str, units: int, looks: int, pool: int, max_trials: int = 100) -> str:
    """How a design grows unless told: a task-level one by tasks; a trial-level one by
    trials on every task of the pool when that allows the looks asked (from 2 trials up),
    else by tasks."""
    if unit == "task":
        return "tasks"
    most = min(max_trials, max(2, ceil(Fraction(units, pool))))
    return "trials" if most - 1 >= looks else "tasks"


def look_units(looks: Sequence[Tuple[int, int]], unit: str) -> List[int]:
    """The units each look holds: its tasks, or its tasks times its trials."""
    return [tasks if unit == "task" else tasks * trials for tasks, trials in looks]


class Cost(NamedTuple):
    """A design's exact chance of a PASS and its expected tasks, trials of each system and
    units run."""
    pass_chance: Fraction
    tasks: Fraction
    trials: Fraction
    units: Fraction


def expected_cost(boundary: Boundary, looks: Sequence[Tuple[int, int]], unit: str,
                  rate: Fraction, theta: Fraction) -> Cost:
    """The design's :class:`Cost` under the looks ``looks`` (tasks, trials), each unit
    discordant with chance ``rate``, each discordant unit won with chance ``theta``."""
    units = look_units(looks, unit)
    passing, reach = looks_law(boundary, units, rate, theta)
    tasks = trials = done = Fraction(0)
    before = (0, 0, 0)
    for (look_tasks, look_trials), look_units_run, chance in zip(looks, units, reach):
        tasks += (look_tasks - before[0]) * chance
        trials += (look_tasks * look_trials - before[1]) * chance
        done += (look_units_run - before[2]) * chance
        before = (look_tasks, look_tasks * look_trials, look_units_run)
    return Cost(passing, tasks, trials, done)
