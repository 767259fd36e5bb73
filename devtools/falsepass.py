"""The bootstrap lower-bound gate's false-pass rate with no true difference, by exact
enumeration: the tables of the docs (``python -B -m devtools bench false-pass``).

**The null.** Each test task's success probability p is drawn from Beta(alpha, beta)
(Beta(2, 2) unless told otherwise) and is the same for both systems; each system passes the
task with chance p, independently. So a task is discordant (one system passes it, the other
fails) with chance q = 2 E[p (1 - p)] = 2 alpha beta / ((alpha + beta) (alpha + beta + 1))
(2/5 for Beta(2, 2)), in either direction with chance 1/2: among n tasks the number of
discordant ones D is Binomial(n, q), and the gains A given D are Binomial(D, 1/2).

**With family effects.** Families of m near-duplicate tasks: p is drawn once per family and
each system passes all m tasks of a family or none (with chance p). This is the extreme of
outcomes correlated within a family: G families behave as G independent units above, and a
task-level rule sees each family's outcome m times.

**The rules**, all for the gate ``min_paired_delta_ci_low = 0`` at confidence c, judged with
the ideal bootstrap (B -> infinity, :mod:`proagents_bench.stats.ideal_bootstrap`; the gate's
own B resamples add their Monte Carlo noise around it):

- ``v1``: the ``inclusive`` rule (v1, v2, and v3 with ``inclusive``): the lower bound at or
  above 0;
- ``v3-bootstrap``: ``strict``, the lower bound above 0, and nothing else (v3 before the
  small-sample rules);
- ``v3``: ``strict`` with the small-sample rules of spec v3 on (the resampling unit's standard
  error estimable, at least :data:`~proagents_bench.stats.paired.MIN_FAMILIES` families under
  the family unit, and McNemar's exact one-sided test rejecting at (1 - c) / 2).

Each rule is monotone in the gains given the discordant units (a gain in place of a loss
never turns a pass into a failure), except that a standard error is not estimable when every
unit's difference is the same; so given D the passing gains are {a >= a*(D)} less those
points, a*(D) found by bisection. The rate given D is the exact sum of C(D, a) / 2**D over
them, and the average rate the sum over D of P(D) times it: every figure is an exact
fraction, rounded only for the table.
"""

from __future__ import annotations

from fractions import Fraction
from math import comb
from typing import TYPE_CHECKING, Callable, Iterable, List, Sequence, Tuple

from proagents_bench.evaluation.decision import claims_improvement
from proagents_bench.stats.bootstrap import paired_interval, task_clusters
from proagents_bench.stats.exact_tests import sign_test_rejects
from proagents_bench.stats.ideal_bootstrap import bound_passes
from proagents_bench.stats.paired import MIN_FAMILIES

if TYPE_CHECKING:  # for annotations only
    import argparse

GATE = Fraction(0)
RULES = ("v1", "v3-bootstrap", "v3")


def discordance(alpha: Fraction, beta: Fraction) -> Fraction:
    """q = 2 E[p (1 - p)] for p ~ Beta(alpha, beta)."""
    alpha, beta = Fraction(alpha), Fraction(beta)
    return 2 * alpha * beta / ((alpha + beta) * (alpha + beta + 1))


def estimable(units: int, gains: int, losses: int, unit: str) -> bool:
    """Whether the resampling unit's standard error is estimable for these counts, as
    :func:`proagents_bench.stats.paired.unit_standard_error` decides it (a test holds the two
    together): two units at least, not every unit's difference the same, and under the
    family unit (families of equal size) at least MIN_FAMILIES families."""
    if units < 2 or gains == units or losses == units or gains + losses == 0:
        return False
    return unit != "family" or units >= MIN_FAMILIES


class Rule:
    """One rule of the gate (module docstring) on counts of -1/0/+1 units."""

    def __init__(self, name: str, unit: str, confidence: Fraction) -> None:
        if name not in RULES:
            raise ValueError("unknown rule %r" % name)
        self.name = name
        self.unit = unit
        self.tail = (1 - Fraction(confidence)) / 2
        self.strict = name != "v1"

    def monotone_part(self, units: int, gains: int, losses: int) -> bool:
        """The parts of the rule that are monotone in the gains: the bound and the test."""
        if not bound_passes(units, gains, losses, GATE, self.strict, self.tail):
            return False
        if self.name == "v3" and claims_improvement(GATE, self.strict):
            return sign_test_rejects(gains, losses, self.tail)
        return True

    def passes(self, units: int, gains: int, losses: int) -> bool:
        if self.name == "v3" and not estimable(units, gains, losses, self.unit):
            return False
        return self.monotone_part(units, gains, losses)


def conditional_rates(rule: Rule, units: int, size: int = 1) -> List[Fraction]:
    """P(pass | D discordant units) for D = 0..units under the null, exactly; the rule sees
    each unit ``size`` times (a task rule on families of ``size`` duplicate tasks)."""
    rates = []
    for discordant in range(units + 1):
        def check(gains: int) -> bool:
            return rule.monotone_part(units * size, gains * size,
                                      (discordant - gains) * size)
        low, high = 0, discordant + 1  # the least passing gains lie in [low, high]
        while low < high:
            middle = (low + high) // 2
            if check(middle):
                high = middle
            else:
                low = middle + 1
        passing = 0
        for gains in range(low, discordant + 1):
            losses = discordant - gains
            if rule.name != "v3" or estimable(units * size, gains * size, losses * size,
                                              rule.unit):
                passing += comb(discordant, gains)
        rates.append(Fraction(passing, 2 ** discordant))
    return rates


def outcome_chances(units: int, discordant_chance: Fraction
                    ) -> List[Tuple[int, int, Fraction]]:
    """(gains, losses, P(gains, losses)) of n units under the null, every outcome with a
    gain: the trinomial of q/2, q/2 and 1 - q. (Without a gain every resampled mean is at
    most 0, so a strict bound above 0 never passes.)"""
    q = Fraction(discordant_chance)
    return [(gains, losses, comb(units, gains) * comb(units - gains, losses)
             * (q / 2) ** (gains + losses) * (1 - q) ** (units - gains - losses))
            for gains in range(1, units + 1) for losses in range(units - gains + 1)]


class SeedRates:
    """The false-pass rates of the strict gate at 0 with the gate's own B resamples, one
    bootstrap seed each (:func:`seed_rates`): ``bootstrap`` the bootstrap alone's, ``v3``
    with the small-sample rules, each a list of exact fractions in seed order; ``v3_given``
    the largest rate of v3 given the number D of discordant units over every seed."""

    def __init__(self, bootstrap: List[Fraction], v3: List[Fraction],
                 v3_given: Fraction) -> None:
        self.bootstrap = bootstrap
        self.v3 = v3
        self.v3_given = v3_given


def seed_rates(units: int, samples: int, seeds: Sequence[int], confidence: Fraction,
               alpha: Fraction, beta: Fraction) -> SeedRates:
    """The null's average false-pass rate of the strict gate at 0 (tasks the unit) when the
    bound is the gate's own: :func:`proagents_bench.stats.bootstrap.paired_interval` of the
    outcome's differences with ``samples`` resamples and each seed of ``seeds``, the code the
    comparison runs. Each outcome (gains, losses) is decided for every seed and weighted by
    its exact chance: nothing but the bootstrap's own draws is random, and each rate is exact
    given them."""
    tail = (1 - Fraction(confidence)) / 2
    outcomes = outcome_chances(units, discordance(alpha, beta))
    bootstrap: List[Fraction] = []
    v3: List[Fraction] = []
    worst = Fraction(0)
    for seed in seeds:
        alone = with_rules = Fraction(0)
        given = [Fraction(0)] * (units + 1)
        for gains, losses, chance in outcomes:
            differences = [1] * gains + [-1] * losses + [0] * (units - gains - losses)
            low = paired_interval(task_clusters(differences), samples, seed,
                                  Fraction(confidence)).low
            if low <= GATE:
                continue
            alone += chance
            if estimable(units, gains, losses, "task") and sign_test_rejects(gains, losses,
                                                                             tail):
                with_rules += chance
                given[gains + losses] += Fraction(comb(gains + losses, gains),
                                                  2 ** (gains + losses))
        bootstrap.append(alone)
        v3.append(with_rules)
        worst = max([worst] + given)
    return SeedRates(bootstrap, v3, worst)


def seed_table(task_counts: Sequence[int], samples: int, seeds: int, confidence: Fraction,
               alpha: Fraction, beta: Fraction,
               progress: Callable[[str], None] = lambda line: None) -> List[str]:
    """The docs' third table (Markdown lines): for each n, the strict bootstrap-alone rule's
    ideal average rate beside its rates with the gate's ``samples`` resamples over seeds
    0..``seeds`` - 1 (least, median, mean, largest, and the share of seeds above the tail),
    and v3's largest average rate and largest rate given D over those seeds."""
    tail = (1 - Fraction(confidence)) / 2
    q = discordance(alpha, beta)
    header = ["| test tasks | v3 `strict`, bootstrap alone: ideal | with %d resamples: least | "
              "median | mean | largest | seeds above %s | v3 `strict` (small-sample rules): "
              "largest | given D, largest |" % (samples, percent(tail)),
              "|---:|---:|---:|---:|---:|---:|---:|---:|---:|"]

    def row(tasks: int) -> Tuple[str, List[str]]:
        ideal = average_rate(conditional_rates(Rule("v3-bootstrap", "task", confidence),
                                               tasks), q)
        rates = seed_rates(tasks, samples, range(seeds), confidence, alpha, beta)
        ordered = sorted(rates.bootstrap)
        middle = len(ordered) // 2
        median = (ordered[middle] if len(ordered) % 2
                  else (ordered[middle - 1] + ordered[middle]) / 2)
        above = Fraction(sum(1 for rate in ordered if rate > tail), len(ordered))
        return "%d" % tasks, [percent(ideal), percent(ordered[0]), percent(median),
                              percent(sum(ordered, Fraction(0)) / len(ordered)),
                              percent(ordered[-1]), "%d%%" % round(100 * above),
                              percent(max(rates.v3)), percent(rates.v3_given)]

    return _table(header, (row(tasks) for tasks in task_counts), progress)


def average_rate(rates: Sequence[Fraction], discordant_chance: Fraction) -> Fraction:
    """sum over D of Binomial(D; n, q) P(pass | D): the false-pass rate under the null."""
    units = len(rates) - 1
    q = Fraction(discordant_chance)
    return sum((comb(units, d) * q ** d * (1 - q) ** (units - d) * rate
                for d, rate in enumerate(rates)), Fraction(0))


def worst_given(rates: Sequence[Fraction]) -> Tuple[Fraction, int]:
    """(the largest rate given D, the least D with it)."""
    worst = max(rates)
    return worst, rates.index(worst)


def percent(value: Fraction) -> str:
    """An exact fraction as a percentage with two decimals, rounded half to even."""
    hundredths = round(Fraction(value) * 10000)
    return "%d.%02d%%" % divmod(hundredths, 100)


def _cells(rates: Sequence[Fraction], q: Fraction) -> List[str]:
    worst, at = worst_given(rates)
    return [percent(average_rate(rates, q)), "%s (D = %d)" % (percent(worst), at)]


def _table(header: Sequence[str], rows: Iterable[Tuple[str, List[str]]],
           progress: Callable[[str], None]) -> List[str]:
    """Markdown lines: the header, then one row per (label, cells), each told to
    ``progress`` as soon as it is known (rows are computed as they are drawn)."""
    lines = list(header)
    for line in lines:
        progress(line)
    for label, cells in rows:
        lines.append("| %s | %s |" % (label, " | ".join(cells)))
        progress(lines[-1])
    return lines


def task_table(task_counts: Sequence[int], confidence: Fraction, alpha: Fraction,
               beta: Fraction, progress: Callable[[str], None] = lambda line: None
               ) -> List[str]:
    """The docs' first table (Markdown lines): independent tasks, each rule's average rate
    and its worst rate given the number D of discordant tasks. ``progress`` hears each line
    as soon as it is known."""
    q = discordance(alpha, beta)
    header = ["| test tasks | v1 `inclusive`: average | given D, at worst | v3 `strict`, "
              "bootstrap alone: average | given D, at worst | v3 `strict` (small-sample "
              "rules): average | given D, at worst |", "|---:|---:|---:|---:|---:|---:|---:|"]
    rows = (("%d" % tasks, [cell for name in RULES for cell in _cells(
        conditional_rates(Rule(name, "task", confidence), tasks), q)])
        for tasks in task_counts)
    return _table(header, rows, progress)


def family_table(family_counts: Sequence[int], family_size: int, confidence: Fraction,
                 alpha: Fraction, beta: Fraction,
                 progress: Callable[[str], None] = lambda line: None) -> List[str]:
    """The docs' second table (Markdown lines): families of ``family_size`` duplicate tasks;
    v1 and v3 resampling tasks, v3 resampling families; rates given the number D of
    discordant families."""
    q = discordance(alpha, beta)
    header = ["| families (tasks) | v1 `inclusive`, task unit: average | given D, at worst | "
              "v3 `strict`, task unit: average | given D, at worst | v3 `strict`, family "
              "unit: average | given D, at worst |", "|---:|---:|---:|---:|---:|---:|---:|"]
    chosen = (("v1", "task"), ("v3", "task"), ("v3", "family"))
    rows = (("%d (%d)" % (families, families * family_size), [
        cell for name, unit in chosen for cell in _cells(conditional_rates(
            Rule(name, unit, confidence), families, family_size if unit == "task" else 1), q)])
        for families in family_counts)
    return _table(header, rows, progress)


def false_pass_benchmark(options: argparse.Namespace, say: Callable[[str], None]) -> bool:
    """``bench false-pass``: the tables of independent tasks (``options.tasks``) and of
    families (``options.families`` of ``options.family_size``), and with ``options.seeds``
    the strict gate's rates with its own bootstrap at each seed, all at
    ``options.confidence`` with p ~ Beta(``options.beta``); ``say`` each line."""
    alpha, beta = options.beta
    confidence = options.confidence
    say("Independent tasks; p ~ Beta(%s, %s), so a task is discordant with chance %s; gate "
        "min_paired_delta_ci_low = 0 at confidence %s, ideal bootstrap; exact:" % (
            alpha, beta, discordance(alpha, beta), float(confidence)))
    say("")
    task_table(options.tasks, confidence, alpha, beta, say)
    say("")
    say("Families of %d near-duplicate tasks (each system passes all of a family or none, "
        "with chance p); D counts discordant families:" % options.family_size)
    say("")
    family_table(options.families, options.family_size, confidence, alpha, beta, say)
    if options.seeds:
        say("")
        say("Independent tasks, the strict gate with the gate's own bootstrap of %d resamples "
            "at each seed 0..%d; exact given each seed's draws:" % (options.samples,
                                                                     options.seeds - 1))
        say("")
        seed_table(options.tasks, options.samples, options.seeds, confidence, alpha, beta, say)
    return True
