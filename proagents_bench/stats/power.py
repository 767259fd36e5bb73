"""The power of the gate's rule on the trial-level paired difference, for planning how many
tasks and trials to run (``run_benchmark.py plan``; the model and its measured inputs are in
:mod:`proagents_bench.planning`).

**Miller's formula.** With n tasks of K trials each, the paired difference of per-task trial
success rates has variance (omega2 + w / K) / n, omega2 the between-task variance of the true
per-task differences and w the sum of the two systems' within-task (Bernoulli) variances:
Miller 2024, "Adding Error Bars to Evals" (arXiv:2411.00640), section 3 (the K-samples formula)
with section 4.2's pairing; a one-sided level alpha/2 test then has power
Phi(delta sqrt(n) / sd - z_{1-alpha/2}) and the minimum detectable effect is (z_{1-alpha/2} +
z_power) sd / sqrt(n) (section 5). :func:`miller_power`, :func:`miller_tasks`.

**The gate's own power** (:func:`gate_power`) takes the distribution of one task's count
difference Delta = C - B in {-K..K} (:func:`difference_distribution`) and the gate's rule: the
bootstrap interval's low end above (``strict``) or at (``inclusive``) the gate, and with the
small-sample rules of spec v3 on an estimable standard error and, where a pass claims
improvement, the one-sided sign-flip randomization test on the tasks' differences. The counts
(P, N) of tasks with Delta > 0 and Delta < 0 are Multinomial(n; pi+, pi-, pi0), and

- up to :data:`EXACT_MAX_TASKS` tasks the power is summed over every (P, N) of non-negligible
  probability, exactly in what depends on the counts alone (no discordant task, or fewer than
  the test needs to reject at all: 2**-(P+N) > alpha/2; every difference the same), and by a
  normal limit given (P, N) for the rest: the mean difference is normal over the magnitudes
  (or fixed, when every magnitude is one size), the bootstrap's percentile low end is about
  mean - z_{1-alpha/2} sigma_plugin / sqrt(n) (sigma_plugin the n-denominator standard
  deviation: about sqrt((n-1)/n) of the usual one, with z, not t), and the randomization
  test rejects about when sum d >= z_{1-alpha/2} sqrt(sum d**2) plus half a lattice step;
- beyond it, by the normal limit of the mean difference against the same two thresholds
  taken at their expected second moments.

Only + - * /, square roots and :mod:`.normal`'s exponential are used (each of the first two
is correctly rounded in IEEE arithmetic; the exponential is computed from them), so every
figure is the same on every platform.
"""

from __future__ import annotations

from fractions import Fraction
from math import comb, sqrt
from typing import Callable, List, Optional, Sequence, Tuple

from .binomial import pmf, power
from .normal import normal_cdf

EXACT_MAX_TASKS = 100
# Probabilities below this are left out of the sums (their total is below 1e-12).
NEGLIGIBLE = 1e-16
# One trial-count distribution per number of trials m = 0..K: P(X_m = x), for the successes
# among m trials of one system on one task.
def polya_table(trials: int, chance: Callable[[int, int], float]) -> List[List[float]]:
    """Row m: the distribution of the successes X_m among m trials, where the (m+1)-th trial
    succeeds with ``chance(x, m)`` after x successes: a binomial for a fixed p (chance p),
    a beta-binomial for p ~ Beta(a, b) ((a + x) / (a + b + m): Polya's urn)."""
    rows = [[1.0]]
    for m in range(trials):
        previous = rows[-1]
        row = [0.0] * (m + 2)
        for x, probability in enumerate(previous):
            success = chance(x, m)
            row[x] += probability * (1.0 - success)
            row[x + 1] += probability * success
        rows.append(row)
    return rows


class TaskPrior:
    """One system's per-trial success probability on one task: Beta(a, b), or the point p
    (``b`` None: a = p)."""

    def __init__(self, a: float, b: Optional[float]) -> None:
        self.a = a
        self.b = b

    def mean(self) -> float:
        return self.a if self.b is None else self.a / (self.a + self.b)

    def second_moment(self) -> float:
        if self.b is None:
            return self.a * self.a
        total = self.a + self.b
        return self.a * (self.a + 1.0) / (total * (total + 1.0))

    def table(self, trials: int) -> List[List[float]]:
        if self.b is None:
            p = self.a
            return polya_table(trials, lambda x, m: p)
        a, total = self.a, self.a + self.b
        return polya_table(trials, lambda x, m: (a + x) / (total + m))


def shifted_counts(prior: TaskPrior, trials: int, shift: float) -> List[float]:
    """The distribution of a task's passing trials among ``trials`` when each trial's success
    chance is p' = shift + (1 - shift) p (shift >= 0: a share of the failures fixed) or
    (1 + shift) p (shift < 0: a share of the successes broken), p from ``prior``: the fixed
    (or broken) trials are Binomial(K, |shift|), the others follow the prior's table."""
    table = prior.table(trials)
    ordinary = polya_table(trials, lambda x, m: 1.0 - abs(shift))[trials]  # P(M = m)
    counts = [0.0] * (trials + 1)
    for m, weight in enumerate(ordinary):
        if weight == 0.0:
            continue
        offset = trials - m if shift >= 0 else 0
        for x, probability in enumerate(table[m]):
            counts[offset + x] += weight * probability
    return counts


def shifted_moments(prior: TaskPrior, shift: float) -> Tuple[float, float]:
    """(E[p'], E[p'**2]) of the shifted success chance (see :func:`shifted_counts`)."""
    mean, second = prior.mean(), prior.second_moment()
    if shift >= 0:
        keep = 1.0 - shift
        return (shift + keep * mean,
                shift * shift + 2.0 * shift * keep * mean + keep * keep * second)
    keep = 1.0 + shift
    return keep * mean, keep * keep * second


def difference_distribution(tasks: Sequence[Tuple[float, TaskPrior, TaskPrior]], trials: int,
                            shift: float) -> List[float]:
    """P(Delta = v) for v = -K..K (index v + K) of a task drawn from ``tasks`` ((weight,
    baseline prior, candidate prior), weights summing to 1): Delta = C - B, C the candidate's
    passing trials under ``shift``, B the baseline's, independent given the task."""
    result = [0.0] * (2 * trials + 1)
    for weight, baseline, candidate in tasks:
        base = baseline.table(trials)[trials]
        cand = shifted_counts(candidate, trials, shift)
        for c, chance_c in enumerate(cand):
            if chance_c == 0.0:
                continue
            scaled = weight * chance_c
            for b, chance_b in enumerate(base):
                result[c - b + trials] += scaled * chance_b
    return result


def linked_difference(prior: TaskPrior, trials: int, shift: float) -> List[float]:
    """P(Delta = v) for v = -K..K (index v + K) when the two systems share the task's chance:
    the baseline's p drawn once from ``prior``, the candidate's p' = shift + (1 - shift) p
    (shift >= 0) or (1 + shift) p (shift < 0) on the same task, every trial independent given
    them.

    For shift >= 0, let x = 1 - p: each baseline trial fails with chance x (J of the K fail),
    and each candidate trial falls in the same branch with chance x (L of the K), where the
    link then fixes it with chance ``shift``. So B = K - J, C = K - L + Binomial(L, shift) and
    Delta = J - L + Binomial(L, shift), J and L independent Binomial(K, x) given x. Over the
    prior, P(J = i, L = l) = C(K, i) C(K, l) / C(2K, i + l) times P(i + l of 2K draws with
    one chance x fall in the branch) (a hypergeometric share of the prior's row 2K: Polya's
    urn), and the sum over l of each l's part convolved l times with Bernoulli(shift) is
    taken by Horner's rule: O(K**2) in all. For shift < 0 the branch is a pass (x = p), the
    link breaks it, and Delta = -(J - L + Binomial(L, -shift))."""
    k = trials
    share = abs(shift)
    if prior.b is None:
        branch = TaskPrior(1.0 - prior.a if shift >= 0 else prior.a, None)
    else:
        branch = (TaskPrior(prior.b, prior.a) if shift >= 0
                  else TaskPrior(prior.a, prior.b))
    row = branch.table(2 * k)[2 * k]  # P(n of the 2K draws fall in the branch)
    each = [float(comb(k, i)) for i in range(k + 1)]
    pairs = [float(comb(2 * k, n)) for n in range(2 * k + 1)]
    result = [0.0] * (2 * k + 1)  # index D + K, D = J - L + Binomial(L, share)
    for l in range(k, -1, -1):
        if l < k:  # convolve what the larger l left with Bernoulli(share)
            for index in range(2 * k, 0, -1):
                result[index] = (1.0 - share) * result[index] + share * result[index - 1]
            result[0] *= 1.0 - share
        scale = each[l]
        for i in range(k + 1):
            result[i - l + k] += scale * each[i] / pairs[i + l] * row[i + l]
    return result if shift >= 0 else result[::-1]


def mixed_difference(priors: Tuple[TaskPrior, TaskPrior], trials: int, shift: float,
                     candidate_shift: float, linked: float) -> List[float]:
    """P(Delta = v) when a share ``linked`` of tasks link the candidate's chance to the
    baseline's by ``shift`` (:func:`linked_difference`) and on the rest the candidate's chance
    is the link by ``candidate_shift`` of an unrelated chance from the candidate's prior
    (``priors``: the baseline's and the candidate's; :func:`difference_distribution`)."""
    if linked >= 1.0:
        return linked_difference(priors[0], trials, shift)
    apart = difference_distribution([(1.0, priors[0], priors[1])], trials, candidate_shift)
    if linked <= 0.0:
        return apart
    together = linked_difference(priors[0], trials, shift)
    return [linked * a + (1.0 - linked) * b for a, b in zip(together, apart)]


class Differences:
    """The moments of d = Delta / K that the power needs, from P(Delta = v)."""

    def __init__(self, distribution: Sequence[float], trials: int) -> None:
        self.distribution = list(distribution)
        self.trials = trials
        positive = [(v / trials, p) for v, p in zip(range(-trials, trials + 1), distribution)
                    if v > 0]
        negative = [(-v / trials, p) for v, p in zip(range(-trials, trials + 1), distribution)
                    if v < 0]
        self.gain = sum(p for _, p in positive)
        self.loss = sum(p for _, p in negative)
        self.positive = _conditional(positive, self.gain)
        self.negative = _conditional(negative, self.loss)
        self.mean = self.gain * self.positive[0] - self.loss * self.negative[0]
        second = self.gain * self.positive[1] + self.loss * self.negative[1]
        self.variance = max(second - self.mean * self.mean, 0.0)
        # P(every one of n same-signed differences equal), from the magnitudes' chances
        self.positive_chances = [p / self.gain for _, p in positive if p > 0] if self.gain else []
        self.negative_chances = [p / self.loss for _, p in negative if p > 0] if self.loss else []


def _conditional(pairs: Sequence[Tuple[float, float]], total: float) -> Tuple[float, float]:
    """(E[m], E[m**2]) of the magnitudes given their sign."""
    if total <= 0.0:
        return 0.0, 0.0
    return (sum(m * p for m, p in pairs) / total, sum(m * m * p for m, p in pairs) / total)


class Rule:
    """The gate's rule on the trial-level difference: the gate value, strict or inclusive,
    the tail (1 - confidence) / 2 exactly and its z, whether the small-sample rules apply and
    whether a pass claims improvement (so the one-sided test must reject)."""

    def __init__(self, gate: Fraction, strict: bool, tail: Fraction, z: float,
                 small_sample: bool, claims: bool) -> None:
        self.exact_gate = Fraction(gate)
        self.gate = float(self.exact_gate)
        self.strict = strict
        self.tail = tail
        self.z = z
        self.small_sample = small_sample
        self.claims = claims
        # The fewest units whose one-sided test can reject at all: 2**-N <= tail.
        self.fewest_units = 0
        while Fraction(1, 2 ** self.fewest_units) > tail:
            self.fewest_units += 1

    @property
    def tested(self) -> bool:
        return self.small_sample and self.claims


def _lattice_reach(tasks: int, diffs: "Differences", rule: Rule) -> float:
    """The bootstrap's means lie on multiples of 1 / (n K): its low end passes when it
    reaches the least such multiple that passes, so the continuous bound is taken to pass
    half a step below it (a continuity correction). That point."""
    lattice = tasks * diffs.trials
    scaled = rule.exact_gate * lattice
    reach = (scaled.numerator // scaled.denominator + 1 if rule.strict
             else -((-scaled.numerator) // scaled.denominator))
    return (reach - 0.5) / lattice


def _threshold(tasks: int, second: float, mean: float, reach: float, diffs: "Differences",
               rule: Rule) -> float:
    """The least mean difference that passes, given the plug-in second moment of d: the
    bootstrap's low end (about mean - z sqrt((second - mean**2) / n)) at or beyond ``reach``
    (:func:`_lattice_reach`), and for a tested rule the randomization test's normal limit
    (sum d >= z sqrt(sum d**2) plus half a lattice step, 1/K)."""
    bound = reach + rule.z * sqrt(max(second - mean * mean, 0.0) / tasks)
    if not rule.tested:
        return bound
    test = (rule.z * sqrt(tasks * second) + 1.0 / diffs.trials) / tasks
    return max(bound, test)


def _all_equal(chances: Sequence[float], count: int) -> float:
    return sum(power(p, count) for p in chances)


def exact_power(tasks: int, diffs: "Differences", rule: Rule) -> float:
    """The gate's power, summed over the counts (P, N) of tasks better and worse (module
    docstring)."""
    gains_pmf = pmf(tasks, diffs.gain)
    rest_chance = diffs.loss / (1.0 - diffs.gain) if diffs.gain < 1.0 else 0.0
    (m_up, s_up), (m_down, s_down) = diffs.positive, diffs.negative
    reach = _lattice_reach(tasks, diffs, rule)
    total = 0.0
    for gains, gains_chance in enumerate(gains_pmf):
        if gains_chance < NEGLIGIBLE:
            continue
        losses_pmf = pmf(tasks - gains, rest_chance)
        for losses, losses_chance in enumerate(losses_pmf):
            weight = gains_chance * losses_chance
            if weight < NEGLIGIBLE:
                continue
            if rule.small_sample:
                if tasks < 2 or gains + losses == 0:
                    continue
                if gains == tasks:
                    weight *= 1.0 - _all_equal(diffs.positive_chances, tasks)
                elif losses == tasks:
                    weight *= 1.0 - _all_equal(diffs.negative_chances, tasks)
                if rule.tested and gains + losses < rule.fewest_units:
                    continue
            mean = (gains * m_up - losses * m_down) / tasks
            second = (gains * s_up + losses * s_down) / tasks
            spread = gains * (s_up - m_up * m_up) + losses * (s_down - m_down * m_down)
            margin = mean - _threshold(tasks, second, mean, reach, diffs, rule)
            if spread <= 1e-24:
                total += weight if margin > 0.0 else 0.0
                continue
            score = margin * tasks / sqrt(spread)
            if score > 8.5:  # Phi is 1 within 1e-17
                total += weight
            elif score > -8.5:
                total += weight * normal_cdf(score)
    return min(total, 1.0)


def normal_limit_power(tasks: int, diffs: "Differences", rule: Rule) -> float:
    """The gate's power by the normal limit of the mean difference, its thresholds at their
    expected second moments (module docstring)."""
    if diffs.variance <= 0.0:
        return 1.0 if diffs.mean > rule.gate else 0.0
    second = diffs.variance * (tasks - 1) / tasks + diffs.mean * diffs.mean
    threshold = _threshold(tasks, second, diffs.mean, _lattice_reach(tasks, diffs, rule),
                           diffs, rule)
    return normal_cdf((diffs.mean - threshold) * sqrt(tasks) / sqrt(diffs.variance))


def gate_power(tasks: int, diffs: "Differences", rule: Rule,
               method: Optional[str] = None) -> float:
    """The power of the gate's ``rule`` with ``tasks`` tasks whose differences follow
    ``diffs``: the exact sum up to EXACT_MAX_TASKS tasks, the normal limit beyond (or as
    ``method`` says: ``exact`` or ``normal``)."""
    chosen = method or ("exact" if tasks <= EXACT_MAX_TASKS else "normal")
    if chosen == "exact":
        return exact_power(tasks, diffs, rule)
    return normal_limit_power(tasks, diffs, rule)


def miller_power(effect: float, gate: float, sd: float, tasks: int, z: float) -> float:
    """Phi((effect - gate) sqrt(n) / sd - z): Miller's normal power of the one-sided test at
    the gate (sd the per-task standard deviation of the difference)."""
    if sd <= 0.0:
        return 1.0 if effect > gate else 0.0
    return normal_cdf((effect - gate) * sqrt(tasks) / sd - z)


def miller_tasks(effect: float, gate: float, sd: float, z: float, z_power: float) -> float:
    """n = ((z + z_power) sd / (effect - gate))**2: Miller's tasks for the power (section 5),
    as a real number (inf when the effect is not above the gate, or the tasks beyond the
    double's range; 0 when z + z_power <= 0, a power that no task is needed for)."""
    if effect <= gate:
        return float("inf")
    factor = z + z_power
    if factor <= 0.0:  # a power at most 1 - Phi(z): any number of tasks has it
        return 0.0
    ratio = factor * sd / (effect - gate)
    return ratio * ratio  # inf, never an exception, beyond the double's range
