"""Reading a path of discordant units at a look of a sequential design
(:mod:`.sequential`), the closing look, and what a design costs in units run in batches.

**Where a path stands.** :func:`path_state` walks the discordant units in the design's frozen
order: the first boundary crossed decides, whatever the look at which the units were run, so
the decision does not depend on the looks at all (they only decide what was paid for, and
where the closing look is).

**The closing look.** When the design's last scheduled look (fixed before any result) holds
n < N discordant units, the alpha the path would have spent after n is spent there: pass when
S_n >= c_n, the least c_n with P(crossing before n) + P(no crossing before n, S_n >= c_n) <=
alpha (:func:`closing_boundaries`). Under H0 the signs are independent of how many units were
discordant, so this too is at most alpha for every n.

**Units run in batches.** :func:`looks_characteristics` is a design's exact chance of passing
and expected units run when units (tasks or trial pairs) are run in batches ending at given
counts, each unit discordant with a chance q independently: its cost beside the fixed design
(:func:`.sequential_fixed.fixed_units`).
"""

from __future__ import annotations

from fractions import Fraction
from typing import Iterable, List, NamedTuple, Optional, Sequence, Tuple

from .discordant_paths import chances, crossings, step
from .sequential import Boundary, check_design

# What a path's state is after its units so far (:func:`path_state`).
PASS, FUTILITY, CONTINUE = "pass", "futility", "continue"
STATES = (PASS, FUTILITY, CONTINUE)


class PathState(NamedTuple):
    """Where a path stands (:func:`path_state`): ``state`` (:data:`PASS`, :data:`FUTILITY`
    or :data:`CONTINUE`), ``decided_at`` (the discordant unit at which it was decided, or
    None), the ``discordant`` units and candidate ``wins`` counted (up to the decision, or
    all of them), and the thresholds at that point, ``pass_at`` and ``futile_at`` (at the
    closing look, the closing threshold and one below it)."""
    state: str
    decided_at: Optional[int]
    discordant: int
    wins: int
    pass_at: int
    futile_at: int



# Where a path stands, and the closing look.

def closing_boundaries(boundary: Boundary) -> Tuple[int, ...]:
    """For each n = 0..N the closing threshold c_n: the least c with P(crossing the pass
    boundary before n) + P(no crossing before n, wins at n >= c) <= alpha under theta0,
    futility ignored: what the design's last scheduled look passes when it holds n < N
    discordant units (c_n <= passing[n]; c_N = passing[N] for a boundary no point of which
    can be lowered, as :func:`.sequential.design_boundary` makes them)."""
    design = check_design(boundary.design)
    win, loss, base = chances(design.theta0)
    alpha = design.alpha
    thresholds = [1]
    row = [1]
    before = 0  # the weight of crossing before n, over base**(n - 1)
    for n in range(1, design.max_discordant + 1):
        arrivals = step(row, win, loss)
        allowed = alpha.numerator * base ** n - before * base * alpha.denominator
        tail, threshold = 0, len(arrivals)  # no path left uncrossed reaches more wins
        for wins in range(len(arrivals) - 1, -1, -1):
            tail += arrivals[wins] * alpha.denominator
            if tail > allowed:
                break
            threshold = wins
        thresholds.append(threshold)
        cut = boundary.passing[n]
        before = before * base + sum(arrivals[cut:])
        row = arrivals[:cut]
    return tuple(thresholds)


def path_state(boundary: Boundary, outcomes: Iterable[int], final: bool = False,
               closing: Optional[Sequence[int]] = None) -> PathState:
    """Where the path of discordant units ``outcomes`` (1: the candidate's win, 0: the
    baseline's, in the design's frozen order) stands: decided at the first boundary it
    crosses (units after N are never read); undecided, :data:`CONTINUE` unless ``final`` (the
    design's last scheduled look), where the closing threshold at its n decides (``closing``
    from :func:`closing_boundaries`, computed when not given)."""
    passing, futile = boundary.passing, boundary.futile
    size = len(passing) - 1
    count = wins = 0
    for outcome in outcomes:
        if count == size:
            break
        if outcome not in (0, 1) or isinstance(outcome, bool):
            raise ValueError("a discordant unit's outcome is 0 or 1")
        count += 1
        wins += outcome
        if wins >= passing[count]:
            return PathState(PASS, count, count, wins, passing[count], futile[count])
        if wins <= futile[count]:
            return PathState(FUTILITY, count, count, wins, passing[count], futile[count])
    if not final:
        return PathState(CONTINUE, None, count, wins, passing[count], futile[count])
    thresholds = closing_boundaries(boundary) if closing is None else closing
    state = PASS if wins >= thresholds[count] else FUTILITY
    return PathState(state, count, count, wins, thresholds[count], thresholds[count] - 1)


# From discordant units to units run: batches of units, a discordance rate.

def discordance_weights(units: int, rate: Fraction) -> Tuple[List[int], int]:
    """(weights, base**units) of the number of discordant units among ``units``, each
    discordant with chance ``rate`` = win / base independently: weights[d] =
    C(units, d) win**d loss**(units - d)."""
    win, loss, base = chances(Fraction(rate))
    losses = [1]
    for _ in range(units):
        losses.append(losses[-1] * loss)
    weights = []
    coefficient, wins = 1, 1
    for count in range(units + 1):
        weights.append(coefficient * wins * losses[units - count])
        coefficient = coefficient * (units - count) // (count + 1)
        wins *= win
    return weights, base ** units


def looks_characteristics(boundary: Boundary, looks: Sequence[int], rate: Fraction,
                          theta: Fraction) -> Tuple[Fraction, Fraction]:
    """(P(PASS), E[units run]) when units are run in batches that end at the cumulative
    unit counts ``looks`` (increasing; the last is the design's last look, where the closing
    threshold decides), each unit discordant with chance ``rate`` independently, each
    discordant unit the candidate's win with chance ``theta``: a design's cost in tasks or
    trial pairs, exactly (a batch is run whole, so a decision inside it costs the batch)."""
    passing, reach = looks_law(boundary, looks, rate, theta)
    expected = sum(((current - previous) * chance for previous, current, chance in zip(
        [0] + list(looks), looks, reach)), Fraction(0))
    return passing, expected


def looks_law(boundary: Boundary, looks: Sequence[int], rate: Fraction,
              theta: Fraction) -> Tuple[Fraction, List[Fraction]]:
    """(P(PASS), the chance that each look is run) for units run in batches as
    :func:`looks_characteristics` says: look k + 1 is run when the path is still undecided
    after look k's units (the first look always)."""
    design = check_design(boundary.design)
    looks = list(looks)
    if not looks or looks != sorted(set(looks)) or looks[0] < 1:
        raise ValueError("looks must be increasing positive unit counts")
    size = design.max_discordant
    closing = closing_boundaries(boundary)
    law = crossings(boundary, Fraction(theta), closing)
    base = law.base
    # P(undecided after n) = undecided[n] / base**n; over base**N: times base**(N - n).
    powers = [1]
    for _ in range(size):
        powers.append(powers[-1] * base)
    undecided = [law.undecided[n] * powers[size - n] for n in range(size + 1)]
    reach = [Fraction(1)]
    for previous in looks[:-1]:
        weights, total = discordance_weights(previous, Fraction(rate))
        still = sum(weight * undecided[min(count, size)] for count, weight in enumerate(weights))
        reach.append(Fraction(still, total * powers[size]))
    passed = [0] * (size + 1)  # P(passed by n), over base**N
    running = 0
    for n in range(size + 1):
        running += law.passed[n] * powers[size - n]
        passed[n] = running
    weights, total = discordance_weights(looks[-1], Fraction(rate))
    passing = 0
    for count, weight in enumerate(weights):
        reached = min(count, size)
        through = passed[reached]
        if reached < size:
            through += law.closed[reached] * powers[size - reached]
        passing += weight * through
    return Fraction(passing, total * powers[size]), reach
