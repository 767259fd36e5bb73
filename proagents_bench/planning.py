"""How many tasks and trials to run: the planner behind ``run_benchmark.py plan``.

It reads a results package the way the gate does (:func:`proagents_bench.pipeline.evaluate`:
loaded, validated, graded), measures what a plan needs, and answers for the **trial-level
paired difference** (candidate minus baseline per-task trial success rate, the difference
Miller's K-samples formula is about, gated by spec v4's ``min_trial_delta_ci_low``):

- **measured**: each system's success rate and within-task variance (the mean of the unbiased
  per-task x (K - x) / (K (K - 1))), the between-task variance of the true per-task difference
  (the sample variance of the observed differences less the within-task part, Miller 2024,
  "Adding Error Bars to Evals", arXiv:2411.00640, sections 3 and 4.2), and each system's mean
  cost per trial;
- **now**: the benchmark as it is (its tasks and trials): Miller's power and minimum detectable
  effect (section 5), and the gate's own power, false-pass rate and smallest detectable effect;
- **recommended**: the tasks x trials that reach the power at the least cost, within the tasks
  available, the trials the protocol allows and the budget.

The gate's own power needs a model of the next run (:mod:`proagents_bench.stats.power`):
tasks are drawn from the package's tasks; on a task, each system's per-trial success
probability is its posterior given the task's observed trials, under a Beta prior fitted to
the system's measured mean and between-task variance by the method of moments (empirical
Bayes); the planned candidate is the package's candidate (or, with ``like="baseline"``, the
baseline) with a share of its failing trials fixed (or of its passing trials broken) so that
its mean exceeds the baseline's by the target effect. So the between-task variance of the
difference, the within-task variances and the discreteness of K trials are all the
measured ones, and the gate's rule (its bootstrap bound, its small-sample rules) is applied
to them.
"""

from __future__ import annotations

from fractions import Fraction
from math import sqrt
from typing import Dict, List, Optional, Sequence, SupportsFloat, Tuple

from .contract.gates import GATE_BY_KEY
from .contract.inputs import small_sample_rules
from .contract.vocabulary import INCLUSIVE, STRICT
from .evaluation.decision import claims_improvement
from .jsonio import JSONObject
from .pipeline import Evaluation
from .stats.exact import normal_quantile, to_float
from .stats.power import (Differences, Rule, TaskPrior, difference_distribution, gate_power,
                          miller_power, miller_tasks, shifted_moments)

TRIAL_GATE = GATE_BY_KEY["min_trial_delta_ci_low"]
MAX_TRIALS = 100  # the protocol's trial_count bound
# The least prior concentration a + b the method of moments may give (a between-task
# variance near its maximum mu (1 - mu) would give 0: tasks always or never passed).
MIN_CONCENTRATION = Fraction(1, 100)
# The effects' precision when the smallest detectable effect is searched for.
EFFECT_TOLERANCE = 1e-4


class PlanError(ValueError):
    """A plan that cannot be made (said in words: the package or the settings)."""


class Measured:
    """What the package says: per-task passing trials of both systems, K, the components."""

    def __init__(self, baseline: Sequence[int], candidate: Sequence[int], trials: int,
                 costs: Tuple[Optional[float], Optional[float]]) -> None:
        tasks = len(baseline)
        if tasks < 2:
            raise PlanError("the package has %d test task; a plan needs at least 2 to measure "
                            "a variance" % tasks)
        self.baseline = list(baseline)
        self.candidate = list(candidate)
        self.tasks = tasks
        self.trials = trials
        self.costs = costs
        k = trials
        self.rates = tuple(Fraction(sum(counts), tasks * k) for counts in (baseline, candidate))
        self.within = tuple(Fraction(sum(x * (k - x) for x in counts), tasks * k * (k - 1))
                            for counts in (baseline, candidate))
        differences = [c - b for b, c in zip(baseline, candidate)]
        self.difference = Fraction(sum(differences), tasks * k)
        self.between = max(_sample_variance(differences, k)
                           - (self.within[0] + self.within[1]) / k, Fraction(0))
        self.between_systems = tuple(max(_sample_variance(counts, k) - within / k, Fraction(0))
                                     for counts, within in zip((baseline, candidate),
                                                               self.within))

    def miller_sd(self, trials: int) -> float:
        """sqrt(omega2 + (w_baseline + w_candidate) / K): Miller's per-task sd at K trials."""
        return sqrt(to_float(self.between + (self.within[0] + self.within[1]) / trials))


def _sample_variance(counts: Sequence[int], scale: int) -> Fraction:
    """The sample variance (n - 1 denominator) of counts / scale, exactly from integer sums."""
    tasks = len(counts)
    total = sum(counts)
    squares = sum(count * count for count in counts)
    return Fraction(tasks * squares - total * total, tasks * (tasks - 1) * scale * scale)


def fitted_prior(mean: Fraction, between: Fraction) -> Tuple[Optional[Fraction], Fraction]:
    """(concentration a + b, mean) of the Beta prior with this mean and variance (method of
    moments: Var(p) = mu (1 - mu) / (a + b + 1)); concentration None for no between-task
    variance (every task's p is mu)."""
    if between <= 0 or mean in (0, 1):
        return None, mean
    concentration = mean * (1 - mean) / between - 1
    return max(concentration, MIN_CONCENTRATION), mean


class Model:
    """The planning model (module docstring): task types with their weights and the two
    systems' posteriors, and the shift that gives the target effect."""

    def __init__(self, measured: Measured, like: str = "candidate") -> None:
        if like not in ("candidate", "baseline"):
            raise PlanError("like is candidate or baseline")
        self.measured = measured
        self.like = like
        k = measured.trials
        priors = [fitted_prior(rate, between) for rate, between in
                  zip(measured.rates, measured.between_systems)]
        self.priors = priors
        kinds: Dict[Tuple[int, int], int] = {}
        template = measured.candidate if like == "candidate" else measured.baseline
        for b, c in zip(measured.baseline, template):
            kinds[(b, c)] = kinds.get((b, c), 0) + 1
        self.types = []
        for (b, c), count in sorted(kinds.items()):
            candidate_prior = priors[1] if like == "candidate" else priors[0]
            self.types.append((count / measured.tasks, _posterior(priors[0], b, k),
                               _posterior(candidate_prior, c, k)))
        self.template_rate = measured.rates[1] if like == "candidate" else measured.rates[0]
        self._cache: Dict[Tuple[int, float], Differences] = {}

    def shift(self, effect: Fraction) -> float:
        """The share of the template's failing trials fixed (> 0) or passing trials broken
        (< 0) that makes the planned candidate's mean the baseline's plus ``effect``."""
        target = self.measured.rates[0] + Fraction(effect)
        if not 0 <= target <= 1:
            raise PlanError("an effect of %s would put the candidate's success rate at %s, "
                            "outside 0..1" % (_show(effect), _show(target)))
        base = self.template_rate
        if target >= base:
            return 0.0 if base == 1 else to_float((target - base) / (1 - base))
        return to_float((target - base) / base)

    def differences(self, trials: int, effect: Fraction) -> Differences:
        shift = self.shift(effect)
        key = (trials, shift)
        if key not in self._cache:
            self._cache[key] = Differences(
                difference_distribution(self.types, trials, shift), trials)
        return self._cache[key]

    def sd(self, trials: int, effect: Fraction) -> float:
        """The model's per-task sd of the trial-level difference at ``trials`` trials, from
        the posteriors' moments (no distribution needed)."""
        shift = self.shift(effect)
        first = second = 0.0
        for weight, baseline, candidate in self.types:
            mean_c, square_c = shifted_moments(candidate, shift)
            mean_b, square_b = baseline.mean(), baseline.second_moment()
            k = trials
            c2 = square_c * (1.0 - 1.0 / k) + mean_c / k  # E[(C/K)**2]
            b2 = square_b * (1.0 - 1.0 / k) + mean_b / k
            first += weight * (mean_c - mean_b)
            second += weight * (c2 - 2.0 * mean_c * mean_b + b2)
        return sqrt(max(second - first * first, 0.0))


def _posterior(prior: Tuple[Optional[Fraction], Fraction], passed: int,
               trials: int) -> TaskPrior:
    concentration, mean = prior
    if concentration is None:
        return TaskPrior(to_float(mean), None)
    return TaskPrior(to_float(concentration * mean + passed),
                     to_float(concentration * (1 - mean) + trials - passed))


def _show(value: SupportsFloat) -> str:
    return "%.6g" % float(value)


class Settings:
    """What the plan is asked: the effect, the power, the gate's rule, the limits, the
    costs."""

    def __init__(self, effect: Fraction, power: Fraction, confidence: Fraction,
                 gate: Fraction, strict: bool, small_sample: bool, max_tasks: int,
                 max_trials: int, budget: Optional[Fraction], cost_per_task: Fraction,
                 like: str) -> None:
        if not 0 < power < 1:
            raise PlanError("the power lies strictly between 0 and 1")
        if not 0 < confidence < 1:
            raise PlanError("the confidence lies strictly between 0 and 1")
        if not -1 <= gate <= 1:
            raise PlanError("the gate lies in -1..1")
        if effect <= gate:
            raise PlanError("the effect (%s) must be above the gate (%s): no number of tasks "
                            "detects it" % (_show(effect), _show(gate)))
        if max_tasks < 2 or not 2 <= max_trials <= MAX_TRIALS:
            raise PlanError("at least 2 tasks, and 2..%d trials" % MAX_TRIALS)
        if (budget is not None and budget <= 0) or cost_per_task < 0:
            raise PlanError("the budget is above 0 and the cost per task at least 0")
        self.effect = effect
        self.power = power
        self.confidence = confidence
        self.gate = gate
        self.strict = strict
        self.small_sample = small_sample
        self.max_tasks = max_tasks
        self.max_trials = max_trials
        self.budget = budget
        self.cost_per_task = cost_per_task
        self.like = like
        tail = (1 - confidence) / 2
        self.rule = Rule(gate, strict, tail, normal_quantile(1 - tail), small_sample,
                         claims_improvement(gate, strict))
        self.z_power = normal_quantile(power)


def settings_from_spec(spec: JSONObject, measured: Measured, effect: Fraction,
                       power: Fraction = Fraction(4, 5), confidence: Optional[Fraction] = None,
                       gate: Optional[Fraction] = None, lower_bound: Optional[str] = None,
                       max_tasks: Optional[int] = None, max_trials: int = MAX_TRIALS,
                       budget: Optional[Fraction] = None, cost_per_task: Fraction = Fraction(0),
                       like: str = "candidate") -> Settings:
    """The settings, each not given taken from the spec: its confidence, its trial-level gate
    (spec v4; else 0), its lower-bound rule (v3 on; else inclusive) and small-sample rules,
    and the package's test tasks as the tasks available."""
    bootstrap = spec["bootstrap"]
    if gate is None:
        gate = Fraction(spec["gates"].get(TRIAL_GATE.key, 0))
    rule = lower_bound or bootstrap.get("lower_bound", INCLUSIVE)
    return Settings(
        Fraction(effect), Fraction(power),
        Fraction(bootstrap["confidence"]) if confidence is None else Fraction(confidence),
        Fraction(gate), rule == STRICT, small_sample_rules(spec),
        measured.tasks if max_tasks is None else max_tasks, max_trials, budget,
        Fraction(cost_per_task), like)


class Planner:
    """The plan's computations on a model and settings (see :func:`plan`)."""

    def __init__(self, measured: Measured, settings: Settings) -> None:
        self.measured = measured
        self.settings = settings
        self.model = Model(measured, settings.like)
        # No cost recorded (every cost_units 0), or left unmeasured (null in results v3):
        # count trials instead.
        known = [cost for cost in measured.costs if cost is not None]
        self.counted_in_trials = len(known) < len(measured.costs) or sum(known) <= 0
        self.per_trial = 2.0 if self.counted_in_trials else sum(known)

    def cost(self, tasks: int, trials: int) -> float:
        return tasks * (float(self.settings.cost_per_task) + trials * self.per_trial)

    def affordable(self, tasks: int, trials: int) -> bool:
        budget = self.settings.budget
        return budget is None or self.cost(tasks, trials) <= float(budget) * (1 + 1e-12)

    def power(self, tasks: int, trials: int, effect: Optional[Fraction] = None,
              method: Optional[str] = None) -> float:
        effect = self.settings.effect if effect is None else effect
        return gate_power(tasks, self.model.differences(trials, effect), self.settings.rule,
                          method)

    def miller(self, tasks: int, trials: int) -> Tuple[float, float]:
        """(Miller's power at the effect, Miller's MDE) with the measured components."""
        sd = self.measured.miller_sd(trials)
        rule = self.settings.rule
        return (miller_power(float(self.settings.effect), rule.gate, sd, tasks, rule.z),
                rule.gate + (rule.z + self.settings.z_power) * sd / sqrt(tasks))

    def smallest_effect(self, tasks: int, trials: int) -> Optional[float]:
        """The least effect above the gate that the gate detects with the power at (tasks,
        trials), by bisection to EFFECT_TOLERANCE; None when even the largest possible
        effect does not reach it."""
        target = float(self.settings.power)
        low = self.settings.gate
        high = 1 - self.measured.rates[0]
        if high <= low or self.power(tasks, trials, high) < target:
            return None
        while high - low > EFFECT_TOLERANCE:
            middle = (low + high) / 2
            if self.power(tasks, trials, middle) >= target:
                high = middle
            else:
                low = middle
        return float(high)

    def least_tasks(self, trials: int, start: int) -> Optional[int]:
        """The fewest tasks (2..max_tasks) whose gate power reaches the target at ``trials``
        trials: bisection in a bracket around Miller's ``start`` (widened until it holds the
        answer). The power grows with the tasks but for the discreteness of small samples,
        so the answer is the least of a bracket's passing ends, not a global search."""
        target = float(self.settings.power)
        top = self.settings.max_tasks
        high = min(max(start + start // 4, 2), top)
        while self.power(high, trials) < target:
            if high == top:
                return None
            high = min(2 * high, top)
        low = max(min(start - start // 4, high - 1), 1)
        while low > 1 and self.power(low, trials) >= target:
            high, low = low, max(low // 2, 1)
        while high - low > 1:
            middle = (low + high) // 2
            if self.power(middle, trials) >= target:
                high = middle
            else:
                low = middle
        return high

    def design(self, tasks: int, trials: int) -> JSONObject:
        miller_power_value, _ = self.miller(tasks, trials)
        return {"tasks": tasks, "trials": trials, "cost": self.cost(tasks, trials),
                "power": self.power(tasks, trials), "miller_power": miller_power_value,
                "within_budget": self.affordable(tasks, trials)}

    def candidates(self) -> List[Tuple[float, int, int]]:
        """(cost, trials, Miller's tasks) for every trial count, by Miller's formula on the
        model's sd, cheapest first."""
        rule = self.settings.rule
        found = []
        for trials in range(2, self.settings.max_trials + 1):
            real = miller_tasks(float(self.settings.effect), rule.gate,
                                self.model.sd(trials, self.settings.effect), rule.z,
                                self.settings.z_power)
            tasks = max(2, int(real) + 1) if real != float("inf") else None
            if tasks is None or tasks > self.settings.max_tasks:
                continue
            found.append((self.cost(tasks, trials), trials, tasks))
        return sorted(found)

    def recommended(self, tried: int = 2) -> Optional[JSONObject]:
        """The least-cost design that reaches the power: Miller's cheapest trial counts,
        each refined to the fewest tasks by the gate's own power."""
        best = None
        for _cost, trials, tasks in self.candidates()[:tried]:
            least = self.least_tasks(trials, tasks)
            if least is None or not self.affordable(least, trials):
                continue
            cost = self.cost(least, trials)
            if best is None or (cost, trials) < (best[0], best[1]):
                best = (cost, trials, least)
        if best is None:
            return None
        return self.design(best[2], best[1])

    def best_within_limits(self) -> JSONObject:
        """When nothing reaches the power: the most powerful design the limits allow (the
        most tasks the budget pays for at each trial count, judged by Miller's power; the
        best two, and the benchmark as it is, by the gate's)."""
        options = []
        for trials in range(2, self.settings.max_trials + 1):
            tasks = self.settings.max_tasks
            if self.settings.budget is not None:
                each = float(self.settings.cost_per_task) + trials * self.per_trial
                tasks = min(tasks, int(float(self.settings.budget) / each))
            if tasks < 2:
                continue
            options.append((-self.miller(tasks, trials)[0], trials, tasks))
        chosen = [(tasks, trials) for _, trials, tasks in sorted(options)[:2]]
        now = (min(self.measured.tasks, self.settings.max_tasks), self.measured.trials)
        if self.affordable(*now) and now[1] <= self.settings.max_trials and now not in chosen:
            chosen.append(now)
        designs = [self.design(tasks, trials) for tasks, trials in chosen]
        if not designs:
            raise PlanError("the budget does not pay for 2 tasks of 2 trials")
        return max(designs, key=lambda design: (design["power"], -design["cost"]))


def notes(spec: JSONObject, settings: Settings) -> List[str]:
    """What the reader of a plan must know about the spec it was made for."""
    found = []
    if TRIAL_GATE.key not in spec["gates"]:
        found.append("this spec (%s) has no %s: the plan is for that gate of spec v4 at %s, "
                     "judged by the spec's bootstrap settings" % (
                         spec["schema_version"], TRIAL_GATE.key, _show(settings.gate)))
    if spec["bootstrap"].get("unit") == "family":
        found.append("the spec resamples families; the plan counts tasks as independent "
                     "units, so its power is too high where a family's tasks are alike")
    if not settings.rule.claims and settings.gate >= 0:
        found.append("an inclusive gate at 0 passes a candidate no better than its baseline "
                     "(see false_pass_rate): a strict one asks for evidence of improvement")
    return found


def plan(measured: Measured, settings: Settings) -> JSONObject:
    """The plan as JSON-ready values (see the module docstring and the docs)."""
    planner = Planner(measured, settings)
    tasks, trials = measured.tasks, measured.trials
    miller_now, miller_mde = planner.miller(tasks, trials)
    recommended = planner.recommended()
    return {
        "action": "PLAN",
        "metric": "trial_level_success_rate_difference",
        "settings": {
            "effect": to_float(settings.effect), "power": to_float(settings.power),
            "confidence": to_float(settings.confidence), "gate": to_float(settings.gate),
            "lower_bound": STRICT if settings.strict else INCLUSIVE,
            "small_sample_rules": settings.small_sample,
            "claims_improvement": settings.rule.claims,
            "max_tasks": settings.max_tasks, "max_trials": settings.max_trials,
            "budget": None if settings.budget is None else to_float(settings.budget),
            "cost_per_task": to_float(settings.cost_per_task), "candidate_like": settings.like,
        },
        "measured": {
            "tasks": tasks, "trials": trials,
            "success_rate": {"baseline": to_float(measured.rates[0]),
                             "candidate": to_float(measured.rates[1])},
            "difference": to_float(measured.difference),
            "within_task_variance": {"baseline": to_float(measured.within[0]),
                                     "candidate": to_float(measured.within[1])},
            "between_task_variance": {"baseline": to_float(measured.between_systems[0]),
                                      "candidate": to_float(measured.between_systems[1]),
                                      "difference": to_float(measured.between)},
            "cost_per_trial": {"baseline": measured.costs[0], "candidate": measured.costs[1]},
            "cost_counted_in_trials": planner.counted_in_trials,
        },
        "now": {
            "tasks": tasks, "trials": trials, "cost": planner.cost(tasks, trials),
            "power": planner.power(tasks, trials),
            "miller_power": miller_now,
            "false_pass_rate": planner.power(tasks, trials, settings.gate),
            "smallest_detectable_effect": planner.smallest_effect(tasks, trials),
            "miller_minimum_detectable_effect": miller_mde,
        },
        "recommended": recommended,
        "best_within_limits": None if recommended is not None else planner.best_within_limits(),
    }


def measure(evaluation: Evaluation) -> Measured:
    """The :class:`Measured` of an evaluated package (a
    :class:`~proagents_bench.pipeline.Evaluation`): per-task passing trials of both systems,
    the trial count, each system's mean cost per trial (None where a results v3 package left
    a cost unmeasured)."""
    document = evaluation.lazy_document
    if not document["comparable"]:
        raise PlanError("the systems ran under different protocols (%s): nothing can be "
                        "measured" % "; ".join(document["comparison"]["protocol_mismatches"]))
    trials = evaluation.spec["protocol"]["trial_count"]
    counts = []
    for role in ("baseline", "candidate"):
        results = document[role + "_metrics"]["task_results"]
        counts.append([int(task["trial_success_rate"] * trials + 0.5) for task in results])
    costs = (document["baseline_metrics"]["mean_cost_units"],
             document["candidate_metrics"]["mean_cost_units"])
    return Measured(counts[0], counts[1], trials, costs)
