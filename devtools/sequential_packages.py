"""Synthetic sequential designs and their looks, for tests and benchmarks: a spec v5 whose
``sequential`` block is frozen on a synthetic cases file, and each look's results package
cut from one whole run (every pool task, every trial of the last look), so that the looks of
one run share their trials exactly as a real run's looks do.
"""

from __future__ import annotations

import copy
import json
import random
from fractions import Fraction
from typing import Dict, List, Optional, Sequence, Tuple

from proagents_bench.contract.sequential import pool_order, pool_sha256
from proagents_bench.contract.vocabulary import (CASES_V1, RESULTS_V1, SPEC_V5, TRUNCATED_SPRT,
                                                 TEST_SPLIT)
from proagents_bench.jsonio import JSONObject
from proagents_bench.stats.sequential_fixed import fixed_design

from .synthetic import make_cases, make_protocol, make_records, make_spec

# The example order seed of the synthetic designs.
ORDER_SEED = 20240917


def test_ids(cases: JSONObject) -> List[str]:
    return [case["id"] for case in cases["cases"] if case["split"] == TEST_SPLIT]


def make_design_spec(cases: JSONObject, looks: Sequence[Tuple[int, int]], unit: str = "task",
                     win_share: str = "0.7", power: str = "0.8",
                     max_discordant: Optional[int] = None, futility: bool = True,
                     margin: str = "0", seed: int = ORDER_SEED,
                     samples: int = 1000) -> JSONObject:
    """A spec v5 with a sequential design on ``cases``' test split: its looks (tasks,
    trials), the gates loose but the interval gate of the design's level at ``margin``
    (strict), and by default the largest sample 1.5 times the fixed design of its power."""
    spec = make_spec(trial_count=looks[-1][1], samples=samples)
    spec["schema_version"] = SPEC_V5
    spec["bootstrap"].update({"unit": "task", "lower_bound": "strict"})
    spec["gates"].update({
        "min_primary_task_success_rate": 0, "min_final_state_trial_rate": 0,
        "min_side_effect_free_trial_rate": 0, "min_trial_stability_rate": 0,
        "max_slice_task_success_gap": 1, "max_mean_latency_ms": 100000,
        "max_p95_latency_ms": 100000, "max_mean_cost_units": 10,
        "critical_task_min_trial_success_rate": 0.6, "task_min_trial_success_rate": 0.6,
        "min_paired_delta_ci_low": -1 if unit != "task" else float(margin),
        "min_trial_delta_ci_low": -1 if unit == "task" else float(margin)})
    if max_discordant is None:
        theta0 = Fraction(1, 2) if Fraction(margin) >= 0 else (1 + Fraction(margin)) / 2
        fixed, _, _ = fixed_design(Fraction(1, 40), theta0, Fraction(win_share),
                                   Fraction(power))
        max_discordant = -(-3 * fixed // 2)
    spec["sequential"] = {
        "method": TRUNCATED_SPRT, "unit": unit, "power": float(power),
        "win_share": float(win_share), "max_discordant": max_discordant,
        "futility": futility, "order_seed": seed,
        "pool_sha256": pool_sha256(pool_order(test_ids(cases), seed)),
        "looks": [{"tasks": tasks, "trials": trials} for tasks, trials in looks]}
    return spec


def make_run(task_count: int, trial_count: int, baseline_skill: float,
             candidate_skill: float, seed: int = 1) -> Tuple[JSONObject, JSONObject]:
    """(cases, results): a whole run, every test task with ``trial_count`` trials of each
    system (the last look's), from which each look is cut (:func:`look_package`)."""
    cases = make_cases(task_count, seed=seed, critical_share=0)
    cases["schema_version"] = CASES_V1
    rng = random.Random(seed)
    systems = [{"system_id": system_id, "role": system_id,
                "protocol": make_protocol(trial_count),
                "records": make_records(cases, trial_count, skill, rng)}
               for system_id, skill in (("baseline", baseline_skill),
                                        ("candidate", candidate_skill))]
    results = {"schema_version": RESULTS_V1, "benchmark_id": "synthetic-benchmark",
               "benchmark_version": "1.0.0", "dataset_version": cases["dataset_version"],
               "result_set_version": "synthetic-run-%d" % seed, "systems": systems}
    return cases, results


def look_package(spec: JSONObject, run: JSONObject, look: int) -> JSONObject:
    """Look ``look`` (1-based) of the spec's design, cut from the whole ``run``: the first
    ``tasks`` tasks of the frozen pool, trial ids 1..``trials`` of each, for both systems."""
    design = spec["sequential"]
    tasks, trials = (design["looks"][look - 1]["tasks"], design["looks"][look - 1]["trials"])
    case_ids = {record["case_id"] for record in run["systems"][0]["records"]}
    kept = set(pool_order(sorted(case_ids), design["order_seed"])[:tasks])
    package = copy.deepcopy(run)
    package["result_set_version"] = "%s-look-%d" % (run["result_set_version"], look)
    for system in package["systems"]:
        system["protocol"]["trial_count"] = trials
        system["records"] = [record for record in system["records"]
                             if record["case_id"] in kept and record["trial_id"] <= trials]
    return package


# The shipped example of a sequential design (examples/sequential_*.json): 40 test tasks, a
# task-level design planning for a win share of 0.8 in four looks of 10 tasks, a run whose
# candidate passes at its third look.
EXAMPLE_LOOKS = [(10, 3), (20, 3), (30, 3), (40, 3)]
EXAMPLE_SEED = 17


def example_files() -> Dict[str, bytes]:
    """{file name in examples/: bytes} of the shipped sequential example: its spec, cases and
    the packages of its first three looks (the third decides)."""
    cases, run = make_run(40, 3, 0.45, 0.85, seed=EXAMPLE_SEED)
    spec = make_design_spec(cases, EXAMPLE_LOOKS, win_share="0.8")
    spec["claim"] = ("On 40 synthetic order-support tasks the candidate passes more of the "
                     "tasks where the two systems differ than the baseline, judged look by look "
                     "by a sequential design.")
    files = {"sequential_spec.json": spec, "sequential_cases.json": cases}
    for look in (1, 2, 3):
        files["sequential_look%d.json" % look] = look_package(spec, run, look)
    return {name: (json.dumps(value, indent=2, sort_keys=False) + "\n").encode("ascii")
            for name, value in files.items()}
