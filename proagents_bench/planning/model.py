"""The planning model: the next run of the benchmark, as the gate would see it.

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
from typing import Dict, Optional, SupportsFloat, Tuple

from ..jsonio import JSONObject
from ..stats.exact import sqrt_float, to_float
from ..stats.power import Differences, TaskPrior, mixed_difference
from .measured import Measured, PlanError

# The least prior concentration a + b the method of moments may give (a between-task
# variance near its maximum mu (1 - mu) would give 0: tasks always or never passed).
MIN_CONCENTRATION = Fraction(1, 100)


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
                            "outside 0..1" % (shown(effect), shown(target)))
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


def shown(value: SupportsFloat) -> str:
    """A value in a message, six significant digits."""
    return "%.6g" % float(value)


