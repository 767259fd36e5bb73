"""A sequential test on the paired discordant units whose false pass is exact: a truncated
sequential probability ratio test, its pass boundary tightened by exact enumeration of every
path, so that the chance of ever crossing it with no improvement is at most alpha, at every
stopping point the design allows.

**The units.** A paired unit (a task judged by its verdict, or a pair of trials, one of each
system) is *discordant* when exactly one system passes it. Among the discordant units in the
design's frozen order, X_i = 1 when the candidate is the one that passed (a candidate-only
win) and 0 when the baseline is; S_n = X_1 + ... + X_n after n discordant units. Were the two
systems interchangeable on every unit, each X_i would be a fair coin, independent of the
others and of which units were discordant: theta = P(X_i = 1) = 1/2, whatever the units'
success chances (McNemar 1947). So the test conditions on the discordant units, as McNemar's
exact test does: the concordant units' number depends only on the discordance rate, not on
theta, and carries no information about it (the likelihood factorizes as
q^D (1 - q)^(U - D) times theta^S (1 - theta)^(D - S)).

**The test.** H0: theta <= theta0 against H1: theta >= theta1 > theta0. Wald's SPRT (Wald
1945, "Sequential tests of statistical hypotheses", Ann. Math. Statist. 16:117-186) passes
when the log-likelihood ratio s ln(theta1/theta0) + (n - s) ln((1 - theta1)/(1 - theta0))
reaches ln((1 - beta)/alpha) and stops for futility when it falls to ln(beta/(1 - alpha)):
the bounds fishtest uses to gate every Stockfish patch (official-stockfish/fishtest,
``server/fishtest/stats/stat_util.py``, ``SPRT``). In the (n, s) plane these are two parallel
lines, s >= h_pass + rho n and s <= rho n - h_futile; among tests with the same error
rates the SPRT has the least expected sample at theta0 and at theta1 (Wald and Wolfowitz
1948, "Optimum character of the sequential probability ratio test", Ann. Math. Statist.
19:326-339). Wald's limits are approximations (they ignore the overshoot of a discrete
path), so here they only give the boundary its shape; the guarantee comes from the exact
calibration:

1. the pass boundary, a_n for n = 1..N (pass at the first n with S_n >= a_n), is the Wald
   line truncated at the largest sample N, its intercept moved by the fewest whole wins and
   then by the largest fraction of a win that keep the exact false pass at most alpha,
   then lowered point by point (from N backwards, over and over) wherever the exact false
   pass still allows, until no single point can be lowered by one without the false pass
   exceeding alpha (a maximal boundary: loosening it anywhere breaks the guarantee, and a
   test holds that);
2. the false pass is computed with the futility boundary ignored ("non-binding" futility,
   as group-sequential designs compute it when a futility stop may be overruled: Jennison and
   Turnbull 2000, "Group Sequential Methods with Applications to Clinical Trials"): it is
   P(S_n >= a_n for some n <= N) under theta0, summed exactly over all binomial paths by
   dynamic programming over (n, wins), in integers over b^n for theta0 = a/b;
3. the futility boundary r_n (stop at the first n with S_n <= r_n) is Wald's lower line,
   its intercept moved (by whole wins, then by a fraction) as far up as the exact power at
   theta1 stays at least 1 - beta (futility stops are binding for the power: a stopped
   design does not go on); at N the two boundaries meet (r_N = a_N - 1), so every path is
   decided by N.

**Why every stopping point is covered.** A PASS at any look is a path that has reached the
pass region {S_n >= a_n} at some n <= N, whatever the looks, their number, their timing (even
timing chosen from the results so far), and whether futility stops were obeyed; so the exact
P(ever reaching it) bounds the false pass of every schedule the design allows. It is largest
at theta = theta0 over the whole null theta <= theta0: raising any unit's chance of a win can
only raise S_n at every n (couple the paths through one uniform per unit), and each pass
region is an upper set in s. It holds given the discordance pattern (which units were
discordant), hence for every number of units at each look, as the fixed gate's McNemar test
does. And since P(S_n >= a_n) <= P(ever crossing) <= alpha, McNemar's exact one-sided test at
alpha rejects at every point of the pass boundary (theta0 = 1/2): a sequential PASS is also
the fixed gate's small-sample rule.


Group-sequential designs with alpha spending (O'Brien and Fleming 1979, Biometrics 35:549-556;
Lan and DeMets 1983, Biometrika 70:659-663) spend alpha by a function of the information so
far; checking the boundary at every discordant unit and computing the crossing exactly, as
here, is the exact binomial form of the same idea (the exact critical values of continuous
sequential tests on binomial data are computed the same way by Kulldorff et al. 2011, "A
maximized sequential probability ratio test for drug and vaccine safety surveillance",
Sequential Analysis 30:58-78).

Everything is exact: thresholds are ints, probabilities :class:`fractions.Fraction`; the one
inexact step, Wald's lines, takes its logarithms in :mod:`decimal` at 60 digits (correctly
rounded everywhere), so the boundary is the same on every platform and Python. Pure functions,

The design is built here (:class:`Design`, :func:`design_boundary`, :func:`check_boundary`);
the law of a path under a boundary is :mod:`.discordant_paths`'; reading a path at a look,
the closing look and the cost of units run in batches are :mod:`.sequential_looks`'; the
fixed design it is compared with, repeated looks at a fixed rule and the operating
characteristics are :mod:`.sequential_fixed`'.
"""

from __future__ import annotations

from decimal import ROUND_HALF_EVEN, Context, Decimal, DivisionByZero, InvalidOperation, Overflow
from fractions import Fraction
from math import ceil, floor
from typing import Callable, List, NamedTuple, Sequence, Tuple

from .discordant_paths import (HALF, MAX_DISCORDANT, chances, crossing_weights, crossings,
                               ever_crossing, step_back)

# How many cells below each pass threshold the forward pass keeps for the point-by-point
# tightening (a point lowered by more than this in one sweep goes on in the next).
_KEEP = 4


class Design(NamedTuple):
    """What a sequential design is made from: the one-sided false pass ``alpha``, the
    miss rate ``beta`` at the alternative (power 1 - beta), the null and alternative chances
    ``theta0`` < ``theta1`` that a discordant unit favours the candidate, and the largest
    sample in discordant units ``max_discordant`` (N). ``futility`` says whether the design
    stops early for futility (without it, only at N)."""
    alpha: Fraction
    beta: Fraction
    theta0: Fraction
    theta1: Fraction
    max_discordant: int
    futility: bool = True


class Boundary(NamedTuple):
    """A design's boundaries, indexed by n = 0..N discordant units: pass at the first n with
    wins >= ``passing[n]`` (``passing[n]`` = n + 1: no pass at n), stop for futility at the
    first n with wins <= ``futile[n]`` (-1: no futility stop at n). At N they meet:
    ``futile[N]`` = ``passing[N]`` - 1."""
    design: Design
    passing: Tuple[int, ...]
    futile: Tuple[int, ...]



# Checking a design.

def _rational(value: object, name: str) -> Fraction:
    if isinstance(value, bool) or not isinstance(value, (int, Fraction)):
        raise ValueError("%s must be an exact number (an int or a Fraction)" % name)
    return Fraction(value)


def check_design(design: Design) -> Design:
    """``design`` with its numbers as Fractions, or ValueError naming what is wrong:
    0 < alpha < 1/2, 0 < beta < 1/2, 0 < theta0 < theta1 < 1, 1 <= N <= MAX_DISCORDANT."""
    alpha = _rational(design.alpha, "alpha")
    beta = _rational(design.beta, "beta")
    theta0 = _rational(design.theta0, "theta0")
    theta1 = _rational(design.theta1, "theta1")
    if not 0 < alpha < HALF:
        raise ValueError("alpha must lie strictly between 0 and 1/2")
    if not 0 < beta < HALF:
        raise ValueError("beta must lie strictly between 0 and 1/2")
    if not 0 < theta0 < theta1 < 1:
        raise ValueError("the chances must satisfy 0 < theta0 < theta1 < 1")
    size = design.max_discordant
    if isinstance(size, bool) or not isinstance(size, int) or not 1 <= size <= MAX_DISCORDANT:
        raise ValueError("max_discordant must be an int from 1 to %d" % MAX_DISCORDANT)
    if not isinstance(design.futility, bool):
        raise ValueError("futility must be true or false")
    return Design(alpha, beta, theta0, theta1, size, design.futility)


# Wald's lines, from logarithms in decimal.

def _context() -> Context:
    """A private decimal context (60 digits): the caller's never changes a result."""
    return Context(prec=60, rounding=ROUND_HALF_EVEN, Emin=-999999, Emax=999999,
                   traps=[InvalidOperation, DivisionByZero, Overflow])


def _ln(value: Fraction, context: Context) -> Decimal:
    return context.ln(context.divide(Decimal(value.numerator), Decimal(value.denominator)))


def wald_lines(design: Design) -> Tuple[Fraction, Fraction, Fraction]:
    """(rho, h_pass, h_futile) of Wald's SPRT in the (n, wins) plane: pass when
    wins >= h_pass + rho n, futility when wins <= rho n - h_futile, each the exact value of a
    60-digit decimal (so the same everywhere). With D = ln(theta1 (1 - theta0) / (theta0
    (1 - theta1))): rho = ln((1 - theta0)/(1 - theta1)) / D, h_pass = ln((1 - beta)/alpha)
    / D, h_futile = ln((1 - alpha)/beta) / D (Wald 1945; fishtest's bounds).

    >>> rho, high, low = wald_lines(Design(Fraction(1, 40), Fraction(1, 5), HALF,
    ...                                    Fraction(3, 5), 100))
    >>> [round(float(x), 6) for x in (rho, high, low)]
    [0.55034, 8.547556, 3.906921]
    """
    design = check_design(design)
    context = _context()
    theta0, theta1 = design.theta0, design.theta1
    odds = _ln(theta1 * (1 - theta0) / (theta0 * (1 - theta1)), context)
    rho = context.divide(_ln((1 - theta0) / (1 - theta1), context), odds)
    high = context.divide(_ln((1 - design.beta) / design.alpha, context), odds)
    low = context.divide(_ln((1 - design.alpha) / design.beta, context), odds)
    return Fraction(rho), Fraction(high), Fraction(low)



# The boundary.

def _pass_line(design: Design, shift: int) -> List[int]:
    """Wald's pass line a_n = ceil(h_pass + rho n) moved by ``shift`` whole wins, kept
    within 1..n + 1 (n + 1: no pass at n)."""
    rho, high, _ = wald_lines(design)
    return [1] + [min(n + 1, max(1, ceil(high + rho * n) + shift))
                  for n in range(1, design.max_discordant + 1)]


def _futility_line(design: Design, passing: Sequence[int], shift: int) -> List[int]:
    """Wald's futility line r_n = floor(rho n - h_futile) moved down by ``shift`` wins,
    kept below the pass boundary; -1 (no stop) before N without futility; at N the
    boundaries meet."""
    rho, _, low = wald_lines(design)
    size = design.max_discordant
    line = [-1]
    for n in range(1, size):
        value = floor(rho * n - low) - shift if design.futility else -1
        line.append(min(passing[n] - 1, max(-1, value)))
    line.append(passing[size] - 1)
    return line


Measure = Callable[[List[int]], Fraction]


class _Unreachable(ValueError):
    """No line of a family is within the limit (the design cannot reach its power)."""


def _calibrate(line: Callable[[int], List[int]], measure: Measure, limit: Fraction,
               breakpoint: Callable[[int, int], Fraction]) -> List[int]:
    """The line with the least intercept whose ``measure`` is at most ``limit``, for a line
    family whose measure grows as the intercept falls: ``line(k)`` is the line with its
    intercept moved by k whole wins (falling as k falls), and ``breakpoint(k, n)`` the
    fraction of a win by which the intercept of line(k) must fall for point n to move (so
    the point with the least breakpoint moves first).

    First the whole shift k: down while the measure stays within the limit, else up until
    it is. Then the intercept falls on from line(k) towards line(k - 1) (which exceeds the
    limit), each point moving in the order of its breakpoint: the lines between are the
    prefixes of that order, and the longest prefix within the limit is found by regula
    falsi on the prefix's length (the measure grows with the prefix). Every measure is
    exact, so the line found is the same however it is searched."""
    shift = 0
    current = line(shift)
    value = measure(current)
    if value > limit:
        while value > limit:
            shift += 1
            following = line(shift)
            if following == current:
                raise _Unreachable("no line of this family is within the limit")
            current, value = following, measure(following)
        lower = line(shift - 1)
        lower_value = measure(lower)  # exceeds the limit (it was the last line tried)
    else:
        while True:
            lower = line(shift - 1)
            if lower == current:
                return current
            lower_value = measure(lower)
            if lower_value > limit:
                break
            shift, current, value = shift - 1, lower, lower_value
    order = sorted((n for n in range(len(current)) if lower[n] != current[n]),
                   key=lambda n: (breakpoint(shift, n), n))

    def prefix(count: int) -> List[int]:
        moved = list(current)
        for n in order[:count]:
            moved[n] = lower[n]
        return moved

    # The longest prefix within the limit has between low and top - 1 points. Regula falsi
    # with the Illinois modification (Dowell and Jarratt 1971, BIT 11:168-174): when one end
    # is kept twice running, the value at the other end is taken halfway to the limit, so a
    # curved measure does not make the guesses creep from one side.
    low, top = 0, len(order)
    low_weight, top_weight = value, lower_value
    kept = 0  # +1: the low end moved last time, -1: the top end did
    while top - low > 1:
        share = (limit - low_weight) / (top_weight - low_weight)
        middle = min(top - 1, max(low + 1, low + floor(share * (top - low))))
        middle_value = measure(prefix(middle))
        if middle_value <= limit:
            low, low_weight = middle, middle_value
            if kept == 1:
                top_weight = limit + (top_weight - limit) / 2
            kept = 1
        else:
            top, top_weight = middle, middle_value
            if kept == -1:
                low_weight = limit - (limit - low_weight) / 2
            kept = -1
    return prefix(low)


def _tighten(design: Design, passing: List[int]) -> List[int]:
    """Lower the pass boundary point by point while the exact false pass stays at most alpha,
    sweeping from N down to 1, and sweep again until a sweep changes nothing: then no point
    can be lowered by one without the false pass exceeding alpha.

    Lowering passing[n] from t to t - 1 adds to the crossing event exactly the paths that
    reach (n, t - 1) without crossing before n and would not cross after n: their weight is
    arrivals(n, t - 1) (base**(N - n) - Q_n(t - 1)), with Q_n(s) the weight of the
    continuations from (n, s) that cross after n. Sweeping downwards, the arrivals at n
    depend only on thresholds before n, not yet changed in this sweep, so the sweep's forward
    pass gives them; Q is carried backwards through the thresholds already settled. The
    running total is the exact false pass throughout."""
    win, loss, base = chances(design.theta0)
    size = design.max_discordant
    limit = design.alpha.numerator * base ** size
    scale = design.alpha.denominator
    while True:
        total, tops = crossing_weights(passing, design.theta0, keep=_KEEP)
        if total * scale > limit:
            raise RuntimeError("the pass boundary exceeds alpha")  # a bug, never an input
        starts = [max(0, threshold - _KEEP) for threshold in passing]
        changed = False
        later: List[int] = []  # Q_{n+1}(s), s < passing[n + 1], over base**(N - n - 1)
        later_full = 1  # base**(N - n - 1): the weight of every continuation from n + 1
        for n in range(size, 0, -1):
            if n == size:
                full, current = 1, [0] * passing[n]
            else:
                full = later_full * base
                # A step to s' >= passing[n + 1] crosses there: all its continuations count.
                extended = later + [later_full] * (passing[n] + 1 - len(later))
                current = step_back(extended[:passing[n]], extended[1:passing[n] + 1], win, loss)
            while passing[n] > 1 and passing[n] - 1 >= starts[n]:
                cell = passing[n] - 1
                added = tops[n][cell - starts[n]] * (full - current[cell])
                if (total + added) * scale > limit:
                    break
                total += added
                passing[n] = cell
                del current[cell:]
                changed = True
            later, later_full = current, full
        if not changed:
            return passing


def design_boundary(design: Design) -> Boundary:
    """The design's boundaries (module docstring): the pass boundary calibrated and
    tightened so that the exact false pass at theta0, futility ignored, is at most alpha and
    no point can be lowered without exceeding it; the futility boundary Wald's lower line
    moved up as far as the exact power at theta1 (futility obeyed) stays at least 1 - beta.
    ValueError when even without futility stops the largest sample cannot reach that power.

    >>> boundary = design_boundary(Design(Fraction(1, 40), Fraction(1, 5), HALF,
    ...                                   Fraction(7, 10), 60))
    >>> boundary.passing[:12], boundary.futile[:12]
    ((1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 10, 11), (-1, -1, -1, -1, -1, -1, -1, -1, 0, 1, 1, 2))
    """
    design = check_design(design)
    rho, high, low = wald_lines(design)

    def false_pass(line: List[int]) -> Fraction:
        return ever_crossing(line, design.theta0)

    # Point n of the pass line ceil(high + k + rho n) drops when the intercept falls by
    # the fraction of a win it lies above the next integer below.
    passing = _calibrate(
        lambda shift: _pass_line(design, shift), false_pass, design.alpha,
        lambda shift, n: high + shift + rho * n - (ceil(high + shift + rho * n) - 1))
    passing = _tighten(design, passing)

    def missed(line: List[int]) -> Fraction:  # 1 - power: grows as the futility line rises
        return 1 - crossings(Boundary(design, tuple(passing), tuple(line)),
                             design.theta1).pass_probability()

    # The futility line floor(rho n - low - k) rises as its shift k falls (and the
    # measure, 1 - power, grows); point n rises when the shift has fallen by the fraction of
    # a win that rho n - low - k lies below the next integer.
    try:
        futile = _calibrate(
            lambda shift: _futility_line(design, passing, shift), missed, design.beta,
            lambda shift, n: floor(rho * n - low - shift) + 1 - (rho * n - low - shift))
    except _Unreachable:
        best = 1 - missed(_futility_line(design, passing, design.max_discordant + 1))
        raise ValueError(
            "a largest sample of %d discordant units cannot reach power %s at theta1 = %s "
            "(at most %s): raise max_discordant" % (
                design.max_discordant, 1 - design.beta, design.theta1, _decimal(best)))
    return Boundary(design, tuple(passing), tuple(futile))


def _decimal(value: Fraction, places: int = 6) -> str:
    """An exact fraction as a decimal with ``places`` places, rounded half to even."""
    scaled = round(value * 10 ** places)
    sign = "-" if scaled < 0 else ""
    whole, part = divmod(abs(scaled), 10 ** places)
    return "%s%d.%0*d" % (sign, whole, places, part)


def check_boundary(boundary: Boundary) -> Fraction:
    """The boundary's exact false pass at theta0 (futility ignored), or ValueError when the
    boundary is malformed or its false pass exceeds alpha: what a gate verifies before it
    trusts a boundary it did not just compute."""
    design = check_design(boundary.design)
    size = design.max_discordant
    passing, futile = boundary.passing, boundary.futile
    if len(passing) != size + 1 or len(futile) != size + 1:
        raise ValueError("a boundary has N + 1 thresholds of each kind")
    for n in range(1, size + 1):
        if not 0 <= passing[n] <= n + 1 or not -1 <= futile[n] < passing[n]:
            raise ValueError("thresholds out of range at n = %d" % n)
    if futile[size] != passing[size] - 1:
        raise ValueError("the boundaries must meet at N")
    false_pass = ever_crossing(passing, design.theta0)
    if false_pass > design.alpha:
        raise ValueError("the exact false pass %s exceeds alpha %s" % (
            _decimal(false_pass, 8), design.alpha))
    return false_pass
