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
  available, the trials the protocol allows and the budget; when none does, the most
  powerful design within them and what more tasks would buy (``with_more_tasks``).

**The effect.** A trial-level effect delta is E[p'] - E[p]: the candidate's chance that a
trial passes, less the baseline's, averaged over the benchmark's tasks (p and p' the two
systems' chances on one task). The gate's trial-level mean difference estimates it.

The gate's own power needs a model of the next run (:class:`Model`,
:mod:`proagents_bench.stats.power`), in which **the two systems share each task's
difficulty**: each task's baseline chance p is drawn once, from a Beta prior fitted to the
baseline's measured success rate and between-task variance by the method of moments; the
candidate's chance on the same task is p' = p + s (1 - p) (the candidate fixes a share s of
the baseline's failing trials) for an effect delta >= 0, s = delta / (1 - E[p]), or p' =
(1 + s) p (it breaks a share -s of the passing ones), s = delta / E[p], for delta < 0; every
trial of either system then passes with its chance, independently. How much the true
difference p' - p varies between tasks is the one thing the link alone does not say: with
``like="baseline"`` only as the link makes it vary (s**2 Var(p)); with ``like="candidate"``
(the default) as much as the package's candidate measured (omega2), by linking p' to p on a
share of the tasks and, on the rest, taking it as the package's candidate's chance on an
unrelated task (from a Beta fitted to the candidate) moved to the same mean
(:meth:`Model.linked`; a note says when even every task unlinked spreads less than
measured). So the model's per-task variance of the difference at K trials is omega2 +
(E[p (1 - p)] + E[p' (1 - p')]) / K, Miller's structure with the measured components; the
distribution of one task's K-trial difference is exact under it, and the gate's rule (its
bootstrap bound, its small-sample rules) is applied to it. (An earlier model drew each
system's chance apart, from its own posterior given the task's trials: with few trials that
spreads the differences far more than measured, and understated the gate's power.)
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
from .stats.exact import normal_quantile, sqrt_float, to_float
from .stats.power import (Differences, Rule, TaskPrior, gate_power, miller_power,
                          miller_tasks, mixed_difference)

TRIAL_GATE = GATE_BY_KEY["min_trial_delta_ci_low"]
MAX_TRIALS = 100  # the protocol's trial_count bound
# The most tasks a plan considers: --max-tasks at most, and the search for what more tasks
# would buy up to it (beyond, the plan says only that no design of so many reaches the power).
MAX_PLANNED_TASKS = 10 ** 9
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
    """The planning model (module docstring): each task's baseline chance p from the
    baseline's fitted prior; the candidate's chance on the same task link(p) on a share
    ``linked`` of the tasks, and on the rest the candidate's own link of an unrelated chance q
    from the candidate's fitted prior. A link fixes a share of the failing trials (> 0) or
    breaks a share of the passing ones (< 0), set so that the candidate's mean chance is the
    baseline's plus the effect."""

    def __init__(self, measured: Measured, like: str = "candidate") -> None:
        if like not in ("candidate", "baseline"):
            raise PlanError("like is candidate or baseline")
        self.measured = measured
        self.like = like
        self.means = measured.rates
        fitted = [fitted_prior(rate, between) for rate, between in
                  zip(measured.rates, measured.between_systems)]
        self.concentrations = (fitted[0][0], fitted[1][0])
        self.priors = (_prior(*fitted[0]), _prior(*fitted[1]))
        # Var(p) under each prior: the measured between-task variance, unless the method of
        # moments was floored (or there is none).
        self.variances = (_prior_variance(*fitted[0]), _prior_variance(*fitted[1]))
        self.mean, self.prior, self.variance = self.means[0], self.priors[0], self.variances[0]
        self._cache: Dict[Tuple[int, Fraction], Differences] = {}

    def _share(self, system: int, effect: Fraction) -> Fraction:
        """The link's share that moves ``system``'s mean chance to the baseline's plus
        ``effect`` exactly: (target - mean) / (1 - mean) fixed, or / mean broken."""
        effect = Fraction(effect)
        target = self.mean + effect
        if not 0 <= target <= 1:
            raise PlanError("an effect of %s would put the candidate's success rate at %s, "
                            "outside 0..1" % (_show(effect), _show(target)))
        mean = self.means[system]
        if target == mean:
            return Fraction(0)
        return (target - mean) / (1 - mean) if target > mean else (target - mean) / mean

    def share(self, effect: Fraction) -> Fraction:
        """s: on a linked task, the share of the baseline's failing trials the candidate
        fixes (> 0) or of its passing trials it breaks (< 0): E[p' - p] = s (1 - E[p]) or
        s E[p], the effect."""
        return self._share(0, effect)

    def candidate_share(self, effect: Fraction) -> Fraction:
        """t: on an unlinked task, the share that moves the package's candidate to the
        effect (its failing trials fixed, or passing ones broken)."""
        return self._share(1, effect)

    def _spreads(self, effect: Fraction) -> Tuple[Fraction, Fraction]:
        """(Var(p' - p) on a linked task, on an unlinked one): s**2 Var(p), and Var(p) +
        (1 - |t|)**2 Var(q) (p and q apart); both have mean the effect."""
        share, other = abs(self.share(effect)), abs(self.candidate_share(effect))
        return (share * share * self.variances[0],
                self.variances[0] + (1 - other) ** 2 * self.variances[1])

    def linked(self, effect: Fraction) -> Fraction:
        """The share of tasks on which the candidate's chance is linked to the baseline's:
        1 for ``like="baseline"``; for ``like="candidate"`` the share that makes the model's
        between-task variance of the difference (:meth:`between`) the measured one, within
        what the model can reach (0..1)."""
        if self.like == "baseline":
            return Fraction(1)
        together, apart = self._spreads(effect)
        if apart <= together:
            return Fraction(1)
        free = (self.measured.between - together) / (apart - together)
        return 1 - min(max(free, Fraction(0)), Fraction(1))

    def between(self, effect: Fraction) -> Fraction:
        """The model's between-task variance of the true difference p' - p."""
        together, apart = self._spreads(effect)
        linked = self.linked(effect)
        return linked * together + (1 - linked) * apart

    def differences(self, trials: int, effect: Fraction) -> Differences:
        effect = Fraction(effect)
        key = (trials, effect)
        if key not in self._cache:
            linked = self.linked(effect)
            self._cache[key] = Differences(mixed_difference(
                self.priors, trials, to_float(self.share(effect)),
                to_float(self.candidate_share(effect)), to_float(linked)), trials)
        return self._cache[key]

    def sd(self, trials: int, effect: Fraction) -> float:
        """The model's per-task sd of the trial-level difference at ``trials`` trials:
        sqrt(between + (E[p (1 - p)] + E[p' (1 - p')]) / K), exactly (Miller's structure)."""
        effect = Fraction(effect)
        share, other = abs(self.share(effect)), abs(self.candidate_share(effect))
        linked = self.linked(effect)
        mean, moved = self.mean, self.mean + effect
        spread = (linked * (1 - share) ** 2 * self.variances[0]
                  + (1 - linked) * (1 - other) ** 2 * self.variances[1])  # Var(p')
        within = mean * (1 - mean) - self.variances[0] + moved * (1 - moved) - spread
        return sqrt_float(self.between(effect) + within / trials)

    def describe(self, effect: Fraction) -> JSONObject:
        """The model's parameters at ``effect``, for the plan's document."""
        return {
            "baseline_prior": _describe_prior(self.concentrations[0], self.means[0]),
            "candidate_prior": _describe_prior(self.concentrations[1], self.means[1]),
            "link_share": to_float(self.share(effect)),
            "candidate_share": to_float(self.candidate_share(effect)),
            "linked_share": to_float(self.linked(effect)),
            "between_task_variance": to_float(self.between(effect)),
        }


def _prior_variance(concentration: Optional[Fraction], mean: Fraction) -> Fraction:
    return Fraction(0) if concentration is None else mean * (1 - mean) / (concentration + 1)


def _describe_prior(concentration: Optional[Fraction], mean: Fraction) -> JSONObject:
    """A prior as its Beta(alpha, beta), or the point every task's chance is."""
    if concentration is None:
        return {"alpha": None, "beta": None, "point": to_float(mean)}
    return {"alpha": to_float(concentration * mean), "beta": to_float(concentration * (1 - mean)),
            "point": None}


def _prior(concentration: Optional[Fraction], mean: Fraction) -> TaskPrior:
    if concentration is None:
        return TaskPrior(to_float(mean), None)
    return TaskPrior(to_float(concentration * mean), to_float(concentration * (1 - mean)))


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
        if not 2 <= max_tasks <= MAX_PLANNED_TASKS or not 2 <= max_trials <= MAX_TRIALS:
            raise PlanError("2..%d tasks, and 2..%d trials" % (MAX_PLANNED_TASKS, MAX_TRIALS))
        if (budget is not None and budget <= 0) or cost_per_task < 0:
            raise PlanError("the budget is above 0 and the cost per task at least 0")
        for name, value in (("budget", budget), ("cost per task", cost_per_task)):
            if value is not None:
                amount(value, "the %s" % name)
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


def amount(value: Fraction, what: str) -> float:
    """A cost (exact) as the JSON number the plan writes; a PlanError when it lies beyond the
    largest double (about 1.8e308), which a JSON number cannot carry faithfully."""
    try:
        return to_float(value)
    except OverflowError:
        raise PlanError("%s, %s cost units, lies beyond the largest number the plan's "
                        "document can hold (about 1.8e308): give costs in a larger unit" % (
                            what, _show_exact(value)))


def _show_exact(value: Fraction) -> str:
    """A positive exact value in scientific notation, whatever its size (no float)."""
    digits = len(str(value.numerator)) - len(str(value.denominator))
    exponent = digits if value >= Fraction(10) ** digits else digits - 1
    mantissa = value / Fraction(10) ** exponent
    return "%.6ge%+d" % (to_float(mantissa), exponent)


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
    """The plan's computations on a model and settings (see :func:`plan`). Costs are exact
    (Fractions): a design of many tasks with costs near the double's limit is compared and
    checked against the budget without rounding or overflow."""

    def __init__(self, measured: Measured, settings: Settings) -> None:
        self.measured = measured
        self.settings = settings
        self.model = Model(measured, settings.like)
        # No cost recorded (every cost_units 0), or left unmeasured (null in results v3):
        # count trials instead.
        known = [Fraction(cost) for cost in measured.costs if cost is not None]
        self.counted_in_trials = len(known) < len(measured.costs) or sum(known) <= 0
        self.per_trial = Fraction(2) if self.counted_in_trials else sum(known, Fraction(0))

    def cost(self, tasks: int, trials: int) -> Fraction:
        return tasks * (self.settings.cost_per_task + trials * self.per_trial)

    def affordable(self, tasks: int, trials: int) -> bool:
        budget = self.settings.budget
        return budget is None or self.cost(tasks, trials) <= budget

    def power(self, tasks: int, trials: int, effect: Optional[Fraction] = None,
              method: Optional[str] = None) -> float:
        effect = self.settings.effect if effect is None else effect
        return gate_power(tasks, self.model.differences(trials, effect), self.settings.rule,
                          method)

    def false_pass_rate(self, tasks: int, trials: int) -> Optional[float]:
        """The gate's power when the true difference is the gate itself; None when no
        candidate can be that much worse than the baseline (a gate below minus the
        baseline's success rate: every possible difference lies above it, so no pass is
        false)."""
        if self.settings.gate < -self.model.mean:
            return None
        return self.power(tasks, trials, self.settings.gate)

    def miller(self, tasks: int, trials: int) -> Tuple[float, float]:
        """(Miller's power at the effect, Miller's MDE) with the measured components."""
        sd = self.measured.miller_sd(trials)
        rule = self.settings.rule
        return (miller_power(float(self.settings.effect), rule.gate, sd, tasks, rule.z),
                rule.gate + (rule.z + self.settings.z_power) * sd / sqrt(tasks))

    def smallest_effect(self, tasks: int, trials: int) -> Optional[float]:
        """The least effect above the gate (and above minus the baseline's rate, the least
        possible) that the gate detects with the power at (tasks, trials), by bisection to
        EFFECT_TOLERANCE; None when even the largest possible effect does not reach it."""
        target = float(self.settings.power)
        low = max(self.settings.gate, -self.model.mean)
        high = 1 - self.model.mean
        if high <= low or self.power(tasks, trials, high) < target:
            return None
        while high - low > EFFECT_TOLERANCE:
            middle = (low + high) / 2
            if self.power(tasks, trials, middle) >= target:
                high = middle
            else:
                low = middle
        return float(high)

    def least_tasks(self, trials: int, start: int, top: int) -> Optional[int]:
        """The fewest tasks (2..top) whose gate power reaches the target at ``trials``
        trials: bisection in a bracket around Miller's ``start`` (widened until it holds the
        answer). The power grows with the tasks but for the discreteness of small samples,
        so the answer is the least of a bracket's passing ends, not a global search."""
        target = float(self.settings.power)
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
        return {"tasks": tasks, "trials": trials,
                "cost": amount(self.cost(tasks, trials), "the cost of %d tasks x %d trials"
                               % (tasks, trials)),
                "power": self.power(tasks, trials), "miller_power": miller_power_value,
                "within_budget": self.affordable(tasks, trials)}

    def candidates(self, top: int) -> List[Tuple[Fraction, int, int]]:
        """(cost, trials, Miller's tasks) for every trial count whose Miller tasks are at
        most ``top``, by Miller's formula on the model's sd, cheapest first."""
        rule = self.settings.rule
        found = []
        for trials in range(2, self.settings.max_trials + 1):
            real = miller_tasks(float(self.settings.effect), rule.gate,
                                self.model.sd(trials, self.settings.effect), rule.z,
                                self.settings.z_power)
            if not real < top:
                continue
            tasks = max(2, int(real) + 1)
            if tasks <= top:
                found.append((self.cost(tasks, trials), trials, tasks))
        return sorted(found)

    def cheapest(self, top: int, within_budget: bool, tried: int = 2
                 ) -> Optional[Tuple[int, int]]:
        """(tasks, trials) of the least-cost design with at most ``top`` tasks that reaches
        the power (and, ``within_budget``, that the budget pays for): Miller's cheapest
        trial counts, each refined to the fewest tasks by the gate's own power."""
        best = None
        for _cost, trials, tasks in self.candidates(top)[:tried]:
            least = self.least_tasks(trials, tasks, top)
            if least is None or (within_budget and not self.affordable(least, trials)):
                continue
            cost = self.cost(least, trials)
            if best is None or (cost, trials) < (best[0], best[1]):
                best = (cost, trials, least)
        return None if best is None else (best[2], best[1])

    def recommended(self) -> Optional[JSONObject]:
        """The least-cost design within the limits (tasks, trials, budget) that reaches the
        power."""
        found = self.cheapest(self.settings.max_tasks, True)
        return None if found is None else self.design(*found)

    def with_more_tasks(self) -> Optional[JSONObject]:
        """When no design within the limits reaches the power: the least-cost one that does
        with more tasks than ``max_tasks`` (up to MAX_PLANNED_TASKS; the budget is said, not
        applied), what more tasks would buy; None when none does, or when the tasks are not
        what binds (the least-cost design has no more tasks than the limit: the budget
        binds)."""
        found = self.cheapest(MAX_PLANNED_TASKS, False)
        if found is None or found[0] <= self.settings.max_tasks:
            return None
        design = self.design(*found)
        design["tasks_beyond_limit"] = found[0] - self.settings.max_tasks
        return design

    def best_within_limits(self) -> JSONObject:
        """When nothing reaches the power: the most powerful design the limits allow (the
        most tasks the budget pays for at each trial count, judged by Miller's power; the
        best two, and the benchmark as it is, by the gate's)."""
        options = []
        for trials in range(2, self.settings.max_trials + 1):
            tasks = self.settings.max_tasks
            if self.settings.budget is not None:
                each = self.settings.cost_per_task + trials * self.per_trial
                tasks = min(tasks, self.settings.budget // each)
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


def notes(spec: JSONObject, settings: Settings, planner: Optional[Planner] = None
          ) -> List[str]:
    """What the reader of a plan must know about the spec it was made for, and about the
    model where it cannot follow the measurement."""
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
    if planner is not None:
        model, measured = planner.model, planner.measured
        if settings.gate < -model.mean:
            found.append("the gate (%s) lies below minus the baseline's success rate (%s): "
                         "no candidate's true difference can be that low, so no pass is "
                         "false (false_pass_rate null)" % (_show(settings.gate),
                                                           _show(model.mean)))
        reached = model.between(settings.effect)
        if settings.like == "candidate" and reached < measured.between:
            found.append("the model spreads the tasks' true differences less than measured "
                         "(between-task variance %s, measured %s: the baseline's tasks vary "
                         "too little to carry it), so its power is too high" % (
                             _show(reached), _show(measured.between)))
    return found


def plan(measured: Measured, settings: Settings, spec: JSONObject) -> JSONObject:
    """The plan as JSON-ready values (see the module docstring and the docs), with its
    :func:`notes` on ``spec``."""
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
        "model": planner.model.describe(settings.effect),
        "now": {
            "tasks": tasks, "trials": trials,
            "cost": amount(planner.cost(tasks, trials), "the cost of the benchmark as it is"),
            "power": planner.power(tasks, trials),
            "miller_power": miller_now,
            "false_pass_rate": planner.false_pass_rate(tasks, trials),
            "smallest_detectable_effect": planner.smallest_effect(tasks, trials),
            "miller_minimum_detectable_effect": miller_mde,
        },
        "recommended": recommended,
        "best_within_limits": None if recommended is not None else planner.best_within_limits(),
        "with_more_tasks": None if recommended is not None else planner.with_more_tasks(),
        "notes": notes(spec, settings, planner),
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
