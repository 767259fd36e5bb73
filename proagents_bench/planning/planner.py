"""The plan: what it is asked (:class:`Settings`, each not given taken from the spec), the
designs searched on the model (:class:`Planner`: the gate's power, Miller's formula, the
least-cost design that reaches the power, or the most powerful within the limits) and the
plan's document (:func:`plan`, with its :func:`notes`)."""

from __future__ import annotations

from fractions import Fraction
from math import sqrt
from typing import List, Optional, Tuple

from ..contract.gates import GATE_BY_KEY
from ..contract.inputs import small_sample_rules
from ..contract.vocabulary import INCLUSIVE, STRICT
from ..evaluation.decision import claims_improvement
from ..jsonio import JSONObject
from ..stats.exact import normal_quantile, to_float
from ..stats.power import Rule, gate_power, miller_power, miller_tasks
from .measured import Measured, PlanError
from .model import Model, shown

TRIAL_GATE = GATE_BY_KEY["min_trial_delta_ci_low"]
MAX_TRIALS = 100  # the protocol's trial_count bound
# The most tasks a plan considers: --max-tasks at most, and the search for what more tasks
# would buy up to it (beyond, the plan says only that no design of so many reaches the power).
MAX_PLANNED_TASKS = 10 ** 9
# The effects' precision when the smallest detectable effect is searched for.
EFFECT_TOLERANCE = 1e-4


class Settings:
    """What the plan is asked: the effect, the power, the gate's rule, the limits, the
    costs."""

    def __init__(self, effect: Fraction, power: Fraction, confidence: Fraction,
                 gate: Fraction, strict: bool, small_sample: bool, max_tasks: int,
                 max_trials: int, budget: Optional[Fraction], cost_per_task: Fraction,
                 like: str) -> None:
        check_limits(power, confidence, gate, max_tasks, max_trials, budget, cost_per_task)
        if effect <= gate:
            raise PlanError("the effect (%s) must be above the gate (%s): no number of tasks "
                            "detects it" % (shown(effect), shown(gate)))
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


def check_limits(power: Optional[Fraction], confidence: Optional[Fraction],
                 gate: Optional[Fraction], max_tasks: Optional[int], max_trials: int,
                 budget: Optional[Fraction], cost_per_task: Fraction) -> None:
    """A PlanError for a setting outside its range (one not given, None, is not checked):
    the fixed plan's and ``plan --sequential``'s, which takes the same limits and costs."""
    if power is not None and not 0 < power < 1:
        raise PlanError("the power lies strictly between 0 and 1")
    if confidence is not None and not 0 < confidence < 1:
        raise PlanError("the confidence lies strictly between 0 and 1")
    if gate is not None and not -1 <= gate <= 1:
        raise PlanError("the gate lies in -1..1")
    if (max_tasks is not None and not 2 <= max_tasks <= MAX_PLANNED_TASKS) or \
            not 2 <= max_trials <= MAX_TRIALS:
        raise PlanError("2..%d tasks, and 2..%d trials" % (MAX_PLANNED_TASKS, MAX_TRIALS))
    if (budget is not None and budget <= 0) or cost_per_task < 0:
        raise PlanError("the budget is above 0 and the cost per task at least 0")
    for name, value in (("budget", budget), ("cost per task", cost_per_task)):
        if value is not None:
            amount(value, "the %s" % name)


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


def cost_per_trial(measured: Measured) -> Tuple[Fraction, bool]:
    """(what a trial of both systems costs, whether that counts trials): the two systems'
    measured costs per trial; with no cost recorded (every cost_units 0), or one left
    unmeasured (null in results v3), 2, counting the trials instead."""
    known = [Fraction(cost) for cost in measured.costs if cost is not None]
    counted = len(known) < len(measured.costs) or sum(known) <= 0
    return (Fraction(2) if counted else sum(known, Fraction(0))), counted


def measured_document(measured: Measured, counted_in_trials: bool) -> JSONObject:
    """The plan document's ``measured``: what the package says."""
    return {
        "tasks": measured.tasks, "trials": measured.trials,
        "success_rate": {"baseline": to_float(measured.rates[0]),
                         "candidate": to_float(measured.rates[1])},
        "difference": to_float(measured.difference),
        "within_task_variance": {"baseline": to_float(measured.within[0]),
                                 "candidate": to_float(measured.within[1])},
        "between_task_variance": {"baseline": to_float(measured.between_systems[0]),
                                  "candidate": to_float(measured.between_systems[1]),
                                  "difference": to_float(measured.between)},
        "cost_per_trial": {"baseline": measured.costs[0], "candidate": measured.costs[1]},
        "cost_counted_in_trials": counted_in_trials,
    }


class Planner:
    """The plan's computations on a model and settings (see :func:`plan`). Costs are exact
    (Fractions): a design of many tasks with costs near the double's limit is compared and
    checked against the budget without rounding or overflow."""

    def __init__(self, measured: Measured, settings: Settings) -> None:
        self.measured = measured
        self.settings = settings
        self.model = Model(measured, settings.like)
        self.per_trial, self.counted_in_trials = cost_per_trial(measured)

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
                         spec["schema_version"], TRIAL_GATE.key, shown(settings.gate)))
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
                         "false (false_pass_rate null)" % (shown(settings.gate),
                                                           shown(model.mean)))
        reached = model.between(settings.effect)
        if settings.like == "candidate" and reached < measured.between:
            found.append("the model spreads the tasks' true differences less than measured "
                         "(between-task variance %s, measured %s: the baseline's tasks vary "
                         "too little to carry it), so its power is too high" % (
                             shown(reached), shown(measured.between)))
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
        "measured": measured_document(measured, planner.counted_in_trials),
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


