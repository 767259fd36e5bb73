"""The planner checked against the gate itself, and timed (``python -B -m devtools bench plan``).

**A world** is a stated way benchmarks arise, independent of the planner's arithmetic: each
task's baseline chance p and the candidate's chance p' on the same task are drawn once per
task, and every trial of either system passes with its chance, independently. Two worlds:

- :class:`BetaWorld`: p ~ Beta(alpha, beta) and p' = min(max(p + effect, 0), 1), the world the
  planner's users describe ("success chances Beta(2, 2), the candidate 0.1 better"). The
  planner does not assume it (its link fixes a share of the baseline's failures; it measures
  everything else from a pilot package), so a plan made from a pilot of this world and held
  to the gate on this world's benchmarks checks the planner's model, not only its sums;
- :class:`ModelWorld`: the planner's own model (:class:`proagents_bench.planning.model.Model`)
  written as the process it describes: p from the baseline's prior, on a share of tasks p'
  the link of p, on the rest the link of an unrelated draw from the candidate's prior. Held
  to the gate, it checks the planner's arithmetic (its normal limits, its lattice
  correction) where the model is exact.

:func:`gate_passes` writes a world's benchmarks as packages (a spec v4 whose trial-level gate
is the planner's, every other gate open; one ``random.Random(seed)`` draws everything),
judges each with :func:`proagents_bench.pipeline.evaluate`, the code the command line runs,
and counts the benchmarks on which the trial-level gate held (the decision has no finding of
``min_trial_delta_ci_low``). :func:`compare` holds the planner's power to that share: they
agree when they differ by at most three Monte Carlo standard errors of the share,
sqrt(share (1 - share) / N), plus :data:`ALLOWANCE` for the planner's own approximations.

:func:`plan_benchmark` times ``plan`` as a user runs it, each in a fresh child process: on the
shipped example and on a synthetic package of ``--tasks`` tasks; with ``--simulate N`` it also
runs :func:`check_world` on N benchmarks per design.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import tempfile
import time
from fractions import Fraction
from math import sqrt
from typing import Callable, List, NamedTuple, Optional, Sequence, Tuple, Union

from proagents_bench.contract.vocabulary import CASES_V1, RESULTS_V1
from proagents_bench.jsonio import JSONObject
from proagents_bench.pipeline import Evaluation, InputFile, evaluate
from proagents_bench.planning.measured import measure
from proagents_bench.planning.model import Model
from proagents_bench.planning.planner import TRIAL_GATE, Planner, settings_from_spec
from .timing import Child, failure, interpreter, rounds, time_children, write_package
from .synthetic import make_protocol, make_spec

# The planner's allowance beside the Monte Carlo error: its normal limits of the bootstrap's
# bound and of the randomization test, and its continuity correction to the lattice.
ALLOWANCE = 0.02
# Chances of one task: (the baseline's, the candidate's), drawn by a world.
Chances = Callable[[random.Random], Tuple[float, float]]


class BetaWorld:
    """p ~ Beta(alpha, beta) per task, the candidate's p' = min(max(p + effect, 0), 1) on
    the same task (module docstring)."""

    def __init__(self, alpha: float, beta: float) -> None:
        self.alpha = alpha
        self.beta = beta

    def at(self, effect: Fraction) -> Chances:
        shift = float(effect)

        def chances(rng: random.Random) -> Tuple[float, float]:
            p = rng.betavariate(self.alpha, self.beta)
            return p, min(max(p + shift, 0.0), 1.0)
        return chances

    def __str__(self) -> str:
        return "p ~ Beta(%g, %g), p' = p + effect" % (self.alpha, self.beta)


class ModelWorld:
    """The planner's model as a process (module docstring)."""

    def __init__(self, model: Model) -> None:
        self.model = model

    def at(self, effect: Fraction) -> Chances:
        model = self.model
        shares = (float(model.share(effect)), float(model.candidate_share(effect)))
        linked = float(model.linked(effect))

        def draw(rng: random.Random, system: int) -> float:
            prior = model.priors[system]
            if prior.b is None:
                return prior.a
            return rng.betavariate(prior.a, prior.b)

        def link(p: float, share: float) -> float:
            return share + (1.0 - share) * p if share >= 0 else (1.0 + share) * p

        def chances(rng: random.Random) -> Tuple[float, float]:
            p = draw(rng, 0)
            if rng.random() < linked:
                return p, link(p, shares[0])
            return p, link(draw(rng, 1), shares[1])
        return chances

    def __str__(self) -> str:
        return "the planner's model"


def check_spec(trials: int, gate: Fraction, strict: bool, confidence: Fraction,
               samples: int, seed: int) -> JSONObject:
    """A spec v4 whose trial-level gate is ``gate`` under the ``strict`` or inclusive rule
    (with v4's small-sample rules) and whose every other gate is open."""
    spec = make_spec(trial_count=trials, samples=samples, seed=seed)
    spec["schema_version"] = "agent-benchmark-spec-v4"
    spec["gates"].update({
        "task_min_trial_success_rate": 0.5, "critical_task_min_trial_success_rate": 1.0,
        "min_primary_task_success_rate": 0, "min_final_state_trial_rate": 0,
        "min_side_effect_free_trial_rate": 0, "min_trial_stability_rate": 0,
        "max_slice_task_success_gap": 1, "max_mean_latency_ms": 1000000,
        "max_p95_latency_ms": 1000000, "max_mean_cost_units": 1000000,
        "min_paired_delta_ci_low": -1, TRIAL_GATE.key: _number(gate)})
    spec["bootstrap"].update({"confidence": _number(confidence), "unit": "task",
                              "lower_bound": "strict" if strict else "inclusive"})
    return spec


def _number(value: Fraction) -> object:
    return int(value) if value.denominator == 1 else float(value)


def _cases(tasks: int) -> JSONObject:
    """``tasks`` test cases (and the one train and development case the contract asks)."""
    splits = ["train", "development"] + ["test"] * tasks
    return {"schema_version": CASES_V1, "benchmark_id": "synthetic-benchmark",
            "benchmark_version": "1.0.0", "dataset_version": "synthetic-data-1",
            "cases": [{"id": "%s-%06d" % (split, index), "family_id": "family-%06d" % index,
                       "split": split, "slice": "all", "critical": False,
                       "task_type": "synthetic", "is_private": split == "test",
                       "initial_state": "task %d" % index, "expected_final_state": "done",
                       "allowed_tools": ["act"], "forbidden_side_effects": ["harm"]}
                      for index, split in enumerate(splits)]}


def package(spec: JSONObject, tasks: int, chances: Chances, rng: random.Random,
            label: str) -> List[InputFile]:
    """The three inputs of one benchmark of ``tasks`` tasks drawn by ``chances``: every
    trial passes or fails its final state with its system's chance on the task."""
    trials = spec["protocol"]["trial_count"]
    cases = _cases(tasks)
    records: Tuple[List[JSONObject], List[JSONObject]] = ([], [])
    for case in cases["cases"][2:]:
        pair = chances(rng)
        for role, chance in enumerate(pair):
            for trial in range(1, trials + 1):
                records[role].append({
                    "case_id": case["id"], "trial_id": trial, "status": "success",
                    "final_state": "done" if rng.random() < chance else "wrong",
                    "side_effects": [], "tools_used": ["act"], "latency_ms": 100,
                    "cost_units": 0.01})
    results = {"schema_version": RESULTS_V1, "benchmark_id": spec["benchmark_id"],
               "benchmark_version": spec["benchmark_version"],
               "dataset_version": cases["dataset_version"], "result_set_version": label,
               "systems": [{"system_id": role, "role": role, "protocol": make_protocol(trials),
                            "records": records[index]}
                           for index, role in enumerate(("baseline", "candidate"))]}
    return [InputFile(kind, shown="%s %s" % (label, kind),
                      data=json.dumps(value).encode("ascii"))
            for kind, value in (("spec", spec), ("cases", cases), ("results", results))]


def trial_gate_held(evaluation: Evaluation) -> bool:
    """Whether the decision holds the trial-level gate (no finding of it)."""
    return not any(finding.code == TRIAL_GATE.key for finding in evaluation.decision.findings)


def gate_passes(spec: JSONObject, tasks: int, chances: Chances, benchmarks: int,
                seed: int) -> int:
    """How many of ``benchmarks`` benchmarks of ``tasks`` tasks drawn by ``chances`` the gate
    passes on its trial-level gate; each package's bootstrap seed differs."""
    rng = random.Random(seed)
    held = 0
    for number in range(benchmarks):
        spec = dict(spec, bootstrap=dict(spec["bootstrap"], seed=seed * 1000003 + number))
        held += trial_gate_held(evaluate(package(spec, tasks, chances, rng,
                                                 "check-%d-%d" % (seed, number))))
    return held


class Check(NamedTuple):
    """The planner's power (``predicted``) beside the gate's share of passes at one design:
    ``passed`` of ``benchmarks``."""
    tasks: int
    trials: int
    effect: Fraction
    predicted: float
    passed: int
    benchmarks: int

    @property
    def share(self) -> float:
        return self.passed / self.benchmarks

    @property
    def error(self) -> float:
        """The Monte Carlo standard error of the share (at least that of one pass in N)."""
        return sqrt(max(self.share * (1 - self.share), 1.0 / self.benchmarks) / self.benchmarks)

    @property
    def tolerance(self) -> float:
        return 3 * self.error + ALLOWANCE

    @property
    def agrees(self) -> bool:
        return abs(self.predicted - self.share) <= self.tolerance

    def line(self) -> str:
        return ("%6d tasks x %3d trials, effect %.4f: plan %.4f, gate %d of %d = %.4f "
                "+- %.4f: %s" % (
                    self.tasks, self.trials, self.effect, self.predicted, self.passed,
                    self.benchmarks, self.share, self.error,
                    "agrees" if self.agrees else "DISAGREES (beyond %.4f)" % self.tolerance))


def compare(planner: Planner, spec: JSONObject, chances_at: Callable[[Fraction], Chances],
            tasks: int, trials: int, effect: Fraction, benchmarks: int, seed: int) -> Check:
    """The planner's power at (``tasks``, ``trials``, ``effect``) against the gate on
    ``benchmarks`` benchmarks of the world ``chances_at(effect)``; ``spec`` is the spec
    whose gate the planner's settings describe (:func:`check_spec`)."""
    spec = dict(spec, protocol=make_protocol(trials))
    passed = gate_passes(spec, tasks, chances_at(effect), benchmarks, seed)
    return Check(tasks, trials, effect, planner.power(tasks, trials, effect), passed,
                 benchmarks)


def pilot_planner(spec: JSONObject, tasks: int, chances: Chances, seed: int,
                  effect: Fraction, max_tasks: int) -> Planner:
    """The planner as ``plan`` makes it from one pilot benchmark of ``tasks`` tasks drawn by
    ``chances`` under ``spec`` (its gate, rule and confidence are the plan's)."""
    evaluation = evaluate(package(spec, tasks, chances, random.Random(seed), "pilot"))
    measured = measure(evaluation)
    return Planner(measured, settings_from_spec(evaluation.spec, measured, effect,
                                                max_tasks=max_tasks))


def check_world(world: BetaWorld, pilot_tasks: int, trials: int, effect: Fraction,
                benchmarks: int, seed: int, say: Callable[[str], None],
                samples: int = 1000) -> bool:
    """Plan from one pilot benchmark of ``world`` at ``effect`` (strict gate at 0 with the
    small-sample rules, 95%), then hold the plan to the gate on ``benchmarks`` fresh
    benchmarks of the world at: the recommended design, 100 tasks x 3 trials and 30 x 3 at the
    effect, and the recommended design at no difference (the false passes). True when every
    design agrees."""
    spec = check_spec(trials, Fraction(0), True, Fraction(95, 100), samples, seed)
    planner = pilot_planner(spec, pilot_tasks, world.at(effect), seed, effect,
                            max(10 * pilot_tasks, 1000))
    say("world: %s; pilot %d tasks x %d trials, %d bootstrap samples; each design judged on "
        "%d benchmarks" % (world, pilot_tasks, trials, samples, benchmarks))
    designs: List[Tuple[int, int, Fraction]] = [(100, 3, effect), (30, 3, effect)]
    chosen = planner.recommended()
    if chosen is not None:
        designs[:0] = [(chosen["tasks"], chosen["trials"], effect),
                       (chosen["tasks"], chosen["trials"], Fraction(0))]
    agreed = True
    for number, (tasks, design_trials, design_effect) in enumerate(designs):
        check = compare(planner, spec, world.at, tasks, design_trials, design_effect,
                        benchmarks, seed + 1 + number)
        say(check.line())
        agreed = agreed and check.agrees
    return agreed


def plan_benchmark(options: argparse.Namespace, say: Callable[[str], None]) -> bool:
    """Time ``plan`` on the example and on a synthetic package of ``options.tasks`` tasks
    (``options.trials`` trials), ``options.repeat`` times each (the median is reported);
    with ``options.simulate`` benchmarks per design, also hold a plan to the gate
    (:func:`check_world`: a pilot of ``options.tasks`` x ``options.trials`` from Beta(2, 2)
    at +0.1). True when every child ran and every design agreed."""
    base = [options.python, "-B", "-m", "proagents_bench", "plan"]
    say(interpreter(options.python))
    with tempfile.TemporaryDirectory(prefix="proagents-bench-") as scratch:
        started = time.perf_counter()
        paths = write_package(scratch, options.tasks, options.trials, 1000, 1)
        say("synthetic package: %d tasks x %d trials (written in %.1f s)" % (
            options.tasks, options.trials, time.perf_counter() - started))
        children = [
            Child("plan on the shipped example", base, os.path.join(scratch, "example.json")),
            Child("plan on the synthetic package", base + [
                "--spec", paths["spec"], "--cases", paths["cases"], "--results",
                paths["results"], "--max-tasks", str(10 * options.tasks)],
                os.path.join(scratch, "synthetic.json"))]
        runs = time_children(children, options.repeat)
        failed = failure(children, runs)
        if failed is not None:
            say(failed)
            return False
        for child, run in zip(children, runs):
            say("%s: %.3f s (%s, interpreter start to exit)" % (
                child.name, run.seconds, rounds(options.repeat)))
    if options.simulate:
        return check_world(BetaWorld(2.0, 2.0), options.tasks, options.trials,
                           Fraction(1, 10), options.simulate, 2027, say)
    return True


def check_designs(planner: Planner, spec: JSONObject,
                  world: Optional[Union[BetaWorld, ModelWorld]],
                  designs: Sequence[Tuple[int, int, Fraction]], benchmarks: int,
                  seed: int) -> List[Check]:
    """:func:`compare` at each design, on the planner's own model as a world unless another
    is given."""
    chances_at = (world or ModelWorld(planner.model)).at
    return [compare(planner, spec, chances_at, tasks, trials, effect, benchmarks,
                    seed + number)
            for number, (tasks, trials, effect) in enumerate(designs)]
