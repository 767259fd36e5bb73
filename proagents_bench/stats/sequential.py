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

**The closing look.** When the design's last scheduled look (fixed before any result) holds
n < N discordant units, the alpha the path would have spent after n is spent there: pass when
S_n >= c_n, the least c_n with P(crossing before n) + P(no crossing before n, S_n >= c_n) <=
alpha (:func:`closing_boundaries`). Under H0 the signs are independent of how many units were
discordant, so this too is at most alpha for every n.

**Repeated looks at a fixed rule.** :func:`repeated_look_false_pass` gives the exact chance
that McNemar's fixed one-sided test at alpha rejects at some look of a nested chain of looks
(Armitage, McPherson and Rowe 1969, "Repeated significance tests on accumulating data", J. R.
Stat. Soc. A 132:235-244, showed how fast it grows): what a gate run again after every batch
really has.

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
no I/O; nothing here knows the contract.
"""

from __future__ import annotations

from bisect import bisect_right
from decimal import ROUND_HALF_EVEN, Context, Decimal, DivisionByZero, InvalidOperation, Overflow
from fractions import Fraction
from itertools import accumulate, repeat
from math import ceil, comb, floor
from operator import add, mul
from typing import Callable, Iterable, List, NamedTuple, Optional, Sequence, Tuple

from .exact import to_float

HALF = Fraction(1, 2)
# How near its target a screened double must be for the exact sum to decide
# (:func:`fixed_units`).
SCREEN_MARGIN = 1e-9
# The largest sample a design may have, in discordant units: the exact computations are
# O(N^2) integer operations on N-bit integers (docs/statistics.md gives their times).
MAX_DISCORDANT = 10000
# How many cells below each pass threshold the forward pass keeps for the point-by-point
# tightening (a point lowered by more than this in one sweep goes on in the next).
_KEEP = 4
# What a path's state is after its units so far (:func:`path_state`).
PASS, FUTILITY, CONTINUE = "pass", "futility", "continue"
STATES = (PASS, FUTILITY, CONTINUE)


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


class Crossings(NamedTuple):
    """The exact law of a path under a chance ``theta`` = numerator / ``base`` of a win: for
    each n = 0..N the weight of the paths that pass at n (``passed``), stop for futility at n
    (``stopped``), are still undecided after n (``undecided``) and, of those, reach a closing
    threshold at n (``closed``; zeros unless :func:`crossings` was given them), each over
    base**n."""
    base: int
    passed: Tuple[int, ...]
    stopped: Tuple[int, ...]
    undecided: Tuple[int, ...]
    closed: Tuple[int, ...]

    def probability(self, weights: Sequence[int], upto: Optional[int] = None) -> Fraction:
        """sum over n <= ``upto`` (default N) of weights[n] / base**n, exactly."""
        last = len(weights) - 1 if upto is None else upto
        return _scaled_sum(weights[:last + 1], self.base)

    def pass_probability(self) -> Fraction:
        return self.probability(self.passed)

    def futility_probability(self) -> Fraction:
        return self.probability(self.stopped)

    def expected_discordant(self) -> Fraction:
        """E[discordant units to a decision] = sum over n < N of P(undecided after n)."""
        return self.probability(self.undecided[:-1])


class Characteristics(NamedTuple):
    """A boundary's operating characteristics, every figure exact (:func:`characteristics`):

    - ``false_pass``: P(ever crossing the pass boundary | theta0), futility ignored: the
      guarantee, at most alpha;
    - ``false_pass_obeyed``: the same when futility stops are obeyed (smaller);
    - ``power``: P(PASS | theta1), futility obeyed;
    - ``expected_null``, ``expected_alternative``: expected discordant units to a decision
      at theta0 and at theta1; ``largest_expected`` and ``largest_expected_at``: the largest
      expected sample over the grid of chances :func:`characteristics` was given, and where;
    - ``max_discordant``: the worst case, N;
    - ``fixed_size`` and ``fixed_critical``: the fixed design of the same power, the least n
      whose exact one-sided binomial test at alpha (pass when wins >= ``fixed_critical``)
      has at least ``power`` at theta1, and ``fixed_power``, its power.
    """
    false_pass: Fraction
    false_pass_obeyed: Fraction
    power: Fraction
    expected_null: Fraction
    expected_alternative: Fraction
    largest_expected: Fraction
    largest_expected_at: Fraction
    max_discordant: int
    fixed_size: int
    fixed_critical: int
    fixed_power: Fraction


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


# The dynamic programmes over (n, wins).

def _weights(theta: Fraction) -> Tuple[int, int, int]:
    """(win weight, loss weight, base) with theta = win / base, 1 - theta = loss / base."""
    theta = Fraction(theta)
    if not 0 < theta < 1:
        raise ValueError("a chance must lie strictly between 0 and 1")
    return theta.numerator, theta.denominator - theta.numerator, theta.denominator


def _step(row: List[int], win: int, loss: int) -> List[int]:
    """The next column's arrivals: cell s gets row[s] * loss + row[s - 1] * win."""
    if win == loss == 1:
        return list(map(add, row + [0], [0] + row))
    return list(map(add, list(map(mul, row, repeat(loss))) + [0],
                    [0] + list(map(mul, row, repeat(win)))))


def _back(stay: List[int], rise: List[int], win: int, loss: int) -> List[int]:
    """A backward step: cell s gets stay[s] * loss + rise[s] * win."""
    if win == loss == 1:
        return list(map(add, stay, rise))
    return list(map(add, map(mul, stay, repeat(loss)), map(mul, rise, repeat(win))))


def _scaled_sum(weights: Sequence[int], base: int) -> Fraction:
    """sum over n of weights[n] / base**n, exactly (Horner's rule on the integers)."""
    total = 0
    for weight in weights:
        total = total * base + weight
    return Fraction(total, base ** (len(weights) - 1)) if weights else Fraction(0)


def _ever_crossing(passing: Sequence[int], theta: Fraction,
                   keep: int = 0) -> Tuple[int, List[List[int]]]:
    """(W, tops): W / base**N = P(wins >= passing[n] for some n = 1..N) under ``theta``,
    futility ignored; with ``keep``, tops[n] holds the arrivals at n of the ``keep`` cells
    below passing[n] (weights over base**n of the paths reaching (n, s) without crossing
    before n), lowest first, ending at passing[n] - 1.

    Without ``keep``, a cell from which even a win at every later unit never reaches the
    boundary (s + m - n < passing[m] for every m > n) is dropped: it cannot add to W, and
    for a boundary of slope rho near 1/2 this halves the work."""
    win, loss, base = _weights(theta)
    size = len(passing) - 1
    # dead[n]: cells below it at n can never cross later: min over m > n of passing[m] - m,
    # plus n (for n = N nothing follows: everything left is dead).
    dead = [0] * (size + 1)
    least = None
    for n in range(size, -1, -1):
        dead[n] = size + 2 if least is None else least + n
        least = passing[n] - n if least is None else min(least, passing[n] - n)
    row = [1]
    low = 0  # the wins of row[0]
    total = 0
    tops: List[List[int]] = [[]]
    for n in range(1, size + 1):
        arrivals = _step(row, win, loss)  # wins low .. low + len(row)
        threshold = passing[n] - low
        if keep:  # (cells a lowered threshold before n left out of reach arrive with 0)
            first, last = max(0, threshold - keep), max(threshold, 0)
            kept = arrivals[first:last]
            tops.append(kept + [0] * (last - first - len(kept)))
        crossed = sum(arrivals[max(threshold, 0):])
        total = total * base + crossed
        start = max(dead[n] - low, 0) if not keep else 0
        row = arrivals[start:max(threshold, start)]
        low += start
    return total, tops


def ever_crossing(passing: Sequence[int], theta: Fraction = HALF) -> Fraction:
    """P(wins >= passing[n] for some n = 1..len(passing) - 1) when each discordant unit is a
    win with chance ``theta`` (default 1/2): the false pass of a pass boundary whatever the
    looks and futility stops, exactly.

    >>> ever_crossing([1, 2, 2, 3])  # 2 wins of 2, or 3 of 3 (which 2 of 2 already was)
    Fraction(1, 4)
    >>> ever_crossing([1, 2, 2, 2])  # 2 wins of 2, or 2 of 3: WW, WLW, LWW
    Fraction(1, 2)
    """
    total, _ = _ever_crossing(passing, Fraction(theta))
    return Fraction(total, _weights(Fraction(theta))[2] ** (len(passing) - 1))


def crossings(boundary: Boundary, theta: Fraction,
              closing: Optional[Sequence[int]] = None) -> Crossings:
    """The exact law of the design's path under ``theta``, futility stops obeyed (the
    decision's own rule: the first boundary crossed decides). With ``closing`` (the closing
    thresholds, :func:`closing_boundaries`), ``closed[n]`` is the weight of the paths still
    undecided after n whose wins reach closing[n]: those a closing look at n passes."""
    win, loss, base = _weights(Fraction(theta))
    passing, futile = boundary.passing, boundary.futile
    low = 0  # the wins of row[0]
    row = [1]
    passed, stopped, undecided, closed = [0], [0], [1], [0]
    for n in range(1, len(passing)):
        arrivals = _step(row, win, loss)  # wins low .. low + len(row)
        top, bottom = passing[n] - low, futile[n] + 1 - low
        passed.append(sum(arrivals[max(top, 0):]))
        stopped.append(sum(arrivals[:max(min(bottom, len(arrivals)), 0)]))
        start = max(bottom, 0)
        row = arrivals[start:max(top, start)]
        low += start
        undecided.append(sum(row))
        closed.append(0 if closing is None else sum(row[max(closing[n] - low, 0):]))
    return Crossings(base, tuple(passed), tuple(stopped), tuple(undecided), tuple(closed))


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
    win, loss, base = _weights(design.theta0)
    size = design.max_discordant
    limit = design.alpha.numerator * base ** size
    scale = design.alpha.denominator
    while True:
        total, tops = _ever_crossing(passing, design.theta0, keep=_KEEP)
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
                current = _back(extended[:passing[n]], extended[1:passing[n] + 1], win, loss)
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


# The fixed design it is compared with, and repeated looks at a fixed rule.

def critical_value(size: int, alpha: Fraction, theta0: Fraction = HALF) -> int:
    """The least c with P(Binomial(size, theta0) >= c) <= alpha: the exact one-sided
    binomial test at alpha passes with c wins of ``size`` or more (size + 1: it cannot pass;
    McNemar's exact one-sided test for theta0 = 1/2).

    >>> critical_value(6, Fraction(1, 40)), critical_value(5, Fraction(1, 40))
    (6, 6)
    """
    win, loss, base = _weights(Fraction(theta0))
    row = [comb(size, wins) * win ** wins * loss ** (size - wins) for wins in range(size + 1)]
    return _least_tail(row, Fraction(alpha) * base ** size)


def fixed_design(alpha: Fraction, theta0: Fraction, theta1: Fraction, power: Fraction,
                 limit: int = MAX_DISCORDANT) -> Tuple[int, int, Fraction]:
    """(n, c, its power): the least n of discordant units whose exact one-sided binomial
    test at alpha (pass with c wins or more) has power at least ``power`` at theta1; the
    fixed design with the same power. Exact pmf rows, O(n^2) integer steps.

    >>> fixed_design(Fraction(1, 40), HALF, Fraction(4, 5), Fraction(4, 5))[:2]
    (20, 15)
    """
    win0, loss0, base0 = _weights(Fraction(theta0))
    win1, loss1, base1 = _weights(Fraction(theta1))
    alpha, power = Fraction(alpha), Fraction(power)
    null, alternative = [1], [1]
    for size in range(1, limit + 1):
        null = _step(null, win0, loss0)
        alternative = _step(alternative, win1, loss1)
        critical = _least_tail(null, alpha * base0 ** size)
        reached = Fraction(sum(alternative[critical:]), base1 ** size)
        if reached >= power:
            return size, critical, reached
    raise ValueError("no fixed design of at most %d units reaches that power" % limit)


def repeated_look_false_pass(sizes: Sequence[int], alpha: Fraction,
                             theta0: Fraction = HALF) -> Fraction:
    """The exact chance that the fixed exact one-sided binomial test at alpha (McNemar's,
    for theta0 = 1/2) passes at one look or more of a nested chain of looks at ``sizes``
    discordant units (increasing), each a fair coin under the null: the false pass of a
    fixed gate run again after every batch (Armitage, McPherson and Rowe 1969).

    >>> round(float(repeated_look_false_pass([20, 40, 60, 80, 100], Fraction(1, 40))), 4)
    0.0528
    """
    sizes = list(sizes)
    if not sizes or sizes != sorted(set(sizes)) or sizes[0] < 1:
        raise ValueError("look sizes must be increasing positive ints")
    passing = [n + 1 for n in range(sizes[-1] + 1)]
    for size in sizes:
        passing[size] = critical_value(size, alpha, theta0)
    return ever_crossing(passing, Fraction(theta0))


# Operating characteristics.

DEFAULT_GRID = tuple(Fraction(k, 100) for k in range(5, 96, 5))


def characteristics(boundary: Boundary,
                    grid: Iterable[Fraction] = DEFAULT_GRID) -> Characteristics:
    """The boundary's exact operating characteristics (:class:`Characteristics`); the
    largest expected sample is sought over ``grid`` (chances of a win) and at theta0 and
    theta1."""
    design = check_design(boundary.design)
    null = crossings(boundary, design.theta0)
    alternative = crossings(boundary, design.theta1)
    power = alternative.pass_probability()
    expected = {design.theta0: null.expected_discordant(),
                design.theta1: alternative.expected_discordant()}
    for theta in grid:
        if Fraction(theta) not in expected:
            expected[Fraction(theta)] = crossings(boundary, Fraction(theta)).expected_discordant()
    largest_at = max(sorted(expected), key=lambda theta: expected[theta])
    size, critical, fixed_power = fixed_design(design.alpha, design.theta0, design.theta1,
                                               power)
    return Characteristics(
        false_pass=ever_crossing(boundary.passing, design.theta0),
        false_pass_obeyed=null.pass_probability(), power=power,
        expected_null=expected[design.theta0], expected_alternative=expected[design.theta1],
        largest_expected=expected[largest_at], largest_expected_at=largest_at,
        max_discordant=design.max_discordant, fixed_size=size, fixed_critical=critical,
        fixed_power=fixed_power)


# Where a path stands, and the closing look.

def closing_boundaries(boundary: Boundary) -> Tuple[int, ...]:
    """For each n = 0..N the closing threshold c_n: the least c with P(crossing the pass
    boundary before n) + P(no crossing before n, wins at n >= c) <= alpha under theta0,
    futility ignored: what the design's last scheduled look passes when it holds n < N
    discordant units (c_n <= passing[n]; c_N = passing[N] for a boundary no point of which
    can be lowered, as :func:`design_boundary` makes them)."""
    design = check_design(boundary.design)
    win, loss, base = _weights(design.theta0)
    alpha = design.alpha
    thresholds = [1]
    row = [1]
    before = 0  # the weight of crossing before n, over base**(n - 1)
    for n in range(1, design.max_discordant + 1):
        arrivals = _step(row, win, loss)
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

def _discordance_weights(units: int, rate: Fraction) -> Tuple[List[int], int]:
    """(weights, base**units) of the number of discordant units among ``units``, each
    discordant with chance ``rate`` = win / base independently: weights[d] =
    C(units, d) win**d loss**(units - d)."""
    win, loss, base = _weights(Fraction(rate))
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
    expected = Fraction(looks[0])
    for previous, current in zip(looks, looks[1:]):
        weights, total = _discordance_weights(previous, Fraction(rate))
        still = sum(weight * undecided[min(count, size)] for count, weight in enumerate(weights))
        expected += (current - previous) * Fraction(still, total * powers[size])
    passed = [0] * (size + 1)  # P(passed by n), over base**N
    running = 0
    for n in range(size + 1):
        running += law.passed[n] * powers[size - n]
        passed[n] = running
    weights, total = _discordance_weights(looks[-1], Fraction(rate))
    passing = 0
    for count, weight in enumerate(weights):
        reached = min(count, size)
        through = passed[reached]
        if reached < size:
            through += law.closed[reached] * powers[size - reached]
        passing += weight * through
    return Fraction(passing, total * powers[size]), expected


def fixed_units(alpha: Fraction, theta0: Fraction, theta1: Fraction, power: Fraction,
                rate: Fraction, limit: int = 4 * MAX_DISCORDANT,
                margin: float = SCREEN_MARGIN) -> Tuple[int, float]:
    """(U, its power as a double): the least number of units U whose fixed design, the exact
    one-sided binomial test at alpha on however many of them are discordant (each with
    chance ``rate``), has power at least ``power`` at theta1: the fixed gate's cost in tasks
    or trial pairs, to set beside :func:`looks_characteristics`.

    No U below the fixed design in discordant units (:func:`fixed_design`) can reach the
    power, since every smaller number of discordant units falls short; from there each U is
    screened in doubles made with + - * only (the same bits on every platform): the law of
    the discordant count by the binomial recurrence, each count's power from the exact
    critical values. Their error is below 1e-11 at 40,000 units, far inside ``margin``
    (1e-9): a U whose screened power lies within ``margin`` of the target is decided in
    exact integers instead."""
    alpha, power, rate = Fraction(alpha), Fraction(power), Fraction(rate)
    start, _, _ = fixed_design(alpha, theta0, theta1, power, limit)
    win0, loss0, base0 = _weights(Fraction(theta0))
    chance1, chance = to_float(Fraction(theta1)), to_float(rate)
    target = to_float(power)
    criticals = [critical_value(0, alpha, theta0)]
    powers = [1.0 if criticals[0] == 0 else 0.0]  # each count's power, screened
    null, alternative, law = [1], [1.0], [1.0]
    for units in range(1, limit + 1):
        null = _step(null, win0, loss0)
        alternative = _float_step(alternative, chance1)
        law = _float_step(law, chance)
        criticals.append(_least_tail(null, alpha * base0 ** units))
        powers.append(sum(alternative[criticals[-1]:]))
        if units < start:
            continue
        screened = sum(map(mul, law, powers))
        if screened < target - margin:
            continue
        if screened > target + margin:
            return units, screened
        exact = _mixed_power(units, rate, theta1, criticals)
        if exact >= power:
            return units, to_float(exact)
    raise ValueError("no fixed design of at most %d units reaches that power" % limit)


def _float_step(row: List[float], chance: float) -> List[float]:
    """The binomial recurrence in doubles: cell s gets row[s] (1 - chance) + row[s - 1]
    chance."""
    stay = 1.0 - chance
    return list(map(add, [cell * stay for cell in row] + [0.0],
                    [0.0] + [cell * chance for cell in row]))


def _least_tail(row: Sequence[int], allowed: Fraction) -> int:
    """The least c with sum(row[c:]) <= allowed (len(row): none), in C-level sums."""
    tails = list(accumulate(reversed(row)))  # tails[k] = sum(row[len - 1 - k:])
    count = bisect_right(tails, allowed)  # how many top cells fit (the tails increase)
    return len(row) - count


def _mixed_power(units: int, rate: Fraction, theta1: Fraction,
                 criticals: Sequence[int]) -> Fraction:
    """sum over d of P(D = d) P(Binomial(d, theta1) >= criticals[d]), D ~ Binomial(units,
    rate), exactly."""
    win1, loss1, base1 = _weights(Fraction(theta1))
    weights, total = _discordance_weights(units, rate)
    row = [1]
    mixed = 0
    for count, weight in enumerate(weights):
        if count:
            row = _step(row, win1, loss1)
        mixed += weight * sum(row[criticals[count]:]) * base1 ** (units - count)
    return Fraction(mixed, total * base1 ** units)
