"""The planner checked against the gate itself, and timed (``run_benchmark.py bench plan``).

:func:`simulate_gate` draws benchmarks from the planner's own model (tasks drawn from the
package's task types, each system's passing trials from their exact distributions under the
model, only ``random.Random(seed).random()`` used) and judges each with the gate's own code:
the trial-level statistics the comparison computes (its bootstrap, its standard error, its
one-sided test: :func:`proagents_bench.evaluation.comparison.trial_level_statistics`) and the
decision's verdict on the interval gate
(:func:`proagents_bench.evaluation.decision.interval_holds`). The share of passes estimates the
gate's power, with its Monte Carlo standard error, against which the planner's figure is held
(the tests do so on a small package; ``bench plan --simulate N`` on any).

:func:`plan_benchmark` times ``plan`` as a user runs it, each in a fresh child process: on the
shipped example and on a synthetic package of ``--tasks`` tasks.
"""

from __future__ import annotations

import argparse
import os
import random
import tempfile
import time
from bisect import bisect_right
from fractions import Fraction
from math import sqrt
from typing import Callable, List, Sequence, Tuple

from ..evaluation.comparison import trial_level_statistics
from ..evaluation.decision import interval_holds
from ..pipeline import InputFile, evaluate
from ..planning import TRIAL_GATE, Planner, measure, settings_from_spec
from ..stats.power import shifted_counts
from .bench import describe_interpreter, median_run, run_child, write_package


def _cumulative(chances: Sequence[float]) -> List[float]:
    total, cumulative = 0.0, []
    for chance in chances:
        total += chance
        cumulative.append(total)
    return cumulative


def _draw(cumulative: List[float], uniform: float) -> int:
    """The index whose cumulative chance first exceeds ``uniform`` (rescaled to the total)."""
    return min(bisect_right(cumulative, uniform * cumulative[-1]), len(cumulative) - 1)


def simulate_gate(planner: Planner, tasks: int, trials: int, effect: Fraction,
                  replicates: int, samples: int, seed: int) -> Tuple[float, float]:
    """(share of the simulated benchmarks the gate passes, its Monte Carlo standard error)
    at ``tasks`` tasks of ``trials`` trials and the target ``effect`` (module docstring)."""
    model, settings = planner.model, planner.settings
    shift = model.shift(effect)
    weights = _cumulative([weight for weight, _, _ in model.types])
    baseline = [_cumulative(prior.table(trials)[trials]) for _, prior, _ in model.types]
    candidate = [_cumulative(shifted_counts(prior, trials, shift))
                 for _, _, prior in model.types]
    rng = random.Random(seed)
    uniform = rng.random
    families = ["task-%d" % index for index in range(tasks)]
    passed = 0
    for replicate in range(replicates):
        counts = []
        for _ in range(tasks):
            kind = _draw(weights, uniform())
            counts.append(_draw(candidate[kind], uniform()) - _draw(baseline[kind], uniform()))
        bootstrap = {"samples": samples, "seed": seed * 1000003 + replicate,
                     "confidence": settings.confidence}
        level = trial_level_statistics(counts, trials, families, "task", bootstrap,
                                       settings.small_sample)
        passed += interval_holds(TRIAL_GATE, settings.gate, level.evidence(), settings.strict,
                                 settings.small_sample)
    share = passed / replicates
    return share, sqrt(max(share * (1 - share), 1.0 / replicates) / replicates)


def plan_benchmark(options: argparse.Namespace, say: Callable[[str], None]) -> bool:
    """Time ``plan`` on the example and on a synthetic package of ``options.tasks`` tasks
    (``options.trials`` trials), ``options.repeat`` times each (the median is reported);
    with ``options.simulate`` benchmarks, also hold the synthetic package's plan to the
    simulated gate (:func:`check_plan`). True when every child ran."""
    base = [options.python, "-B", "-m", "proagents_bench", "plan"]
    say("interpreter: %s (%s)" % (options.python, describe_interpreter(options.python)))
    with tempfile.TemporaryDirectory(prefix="proagents-bench-") as scratch:
        started = time.perf_counter()
        paths = write_package(scratch, options.tasks, options.trials, 1000, 1)
        say("synthetic package: %d tasks x %d trials (written in %.1f s)" % (
            options.tasks, options.trials, time.perf_counter() - started))
        runs = {"the shipped example": base,
                "the synthetic package": base + ["--spec", paths["spec"], "--cases",
                                                 paths["cases"], "--results", paths["results"],
                                                 "--max-tasks", str(10 * options.tasks)]}
        for label, command in runs.items():
            output = os.path.join(scratch, "plan.json")
            timed = median_run([run_child(command, output)
                                for _ in range(max(options.repeat, 1))])
            if timed.status != 0:
                say("plan on %s failed: exit %s" % (label, timed.status))
                return False
            say("plan on %s: %.3f s (median of %d, interpreter start to exit)" % (
                label, timed.seconds, max(options.repeat, 1)))
        if options.simulate:
            inputs = [InputFile(kind, paths[kind]) for kind in ("spec", "cases", "results")]
            evaluation = evaluate(inputs)
            measured = measure(evaluation)
            planner = Planner(measured, settings_from_spec(
                evaluation.spec, measured, Fraction(1, 10), max_tasks=10 * options.tasks))
            # The recommended design at the effect, the package as it is at its smallest
            # detectable effect and at no difference (the false-pass rate).
            designs = []
            chosen = planner.recommended()
            if chosen is not None:
                designs.append((chosen["tasks"], chosen["trials"], planner.settings.effect))
            smallest = planner.smallest_effect(measured.tasks, measured.trials)
            for effect in ([] if smallest is None else [Fraction(smallest)]) + [
                    planner.settings.gate]:
                designs.append((measured.tasks, measured.trials, effect))
            check_plan(planner, designs, options.simulate, 1000, 2027, say)
    return True


def check_plan(planner: Planner, designs: Sequence[Tuple[int, int, Fraction]],
               replicates: int, samples: int, seed: int, say: Callable[[str], None]) -> None:
    """Say the planner's power beside the simulated gate's at each (tasks, trials, effect)."""
    for tasks, trials, effect in designs:
        share, error = simulate_gate(planner, tasks, trials, effect, replicates, samples, seed)
        say("%5d tasks x %3d trials, effect %.4f: plan %.4f, simulated gate %.4f +- %.4f (%d "
            "benchmarks, %d bootstrap samples)" % (
                tasks, trials, effect, planner.power(tasks, trials, effect), share, error,
                replicates, samples))
