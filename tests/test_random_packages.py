"""Seeded random packages: the harness's metrics against a deliberately naive recomputation.

The naive side works on the plain JSON (floats from ``json.loads``) with loops that mirror the
contract's sentences one by one, and exact fractions from the decimal text; nothing of the
package under test is reused but the synthetic generator.
"""

import math
import random
import unittest
from fractions import Fraction

from proagents_bench.stats.bootstrap import paired_interval, task_clusters
from devtools.synthetic import make_package
from tests import oracles
from tests.support import run_package


def naive_trial_pass(case, record):
    def norm(text):
        return " ".join(text.casefold().split())
    status_ok = record["status"] == "success"
    final_ok = record["final_state"] is not None and (
        norm(record["final_state"]) == norm(case["expected_final_state"]))
    side_ok = not (set(record["side_effects"]) & set(case["forbidden_side_effects"]))
    tools_ok = set(record["tools_used"]) <= set(case["allowed_tools"])
    return status_ok, final_ok, side_ok, tools_ok


def exact(value):
    return Fraction(repr(value)) if isinstance(value, float) else Fraction(value)


def naive_metrics(spec, cases, system):
    gates = spec["gates"]
    tests = [case for case in cases["cases"] if case["split"] == "test"]
    trial_count = system["protocol"]["trial_count"]
    per_task = {}
    checks = []
    for case in tests:
        outcomes = []
        for trial in range(1, trial_count + 1):
            record = [r for r in system["records"]
                      if r["case_id"] == case["id"] and r["trial_id"] == trial][0]
            result = naive_trial_pass(case, record)
            checks.append(result)
            outcomes.append(all(result))
        per_task[case["id"]] = outcomes
    passing = {cid: Fraction(sum(o), len(o)) >= exact(gates["task_min_trial_success_rate"])
               for cid, o in per_task.items()}
    latencies = sorted(exact(r["latency_ms"]) for r in system["records"])
    n = len(latencies)
    slices = {}
    for case in tests:
        slices.setdefault(case["slice"], []).append(passing[case["id"]])
    slice_rates = [Fraction(sum(v), len(v)) for v in slices.values()]
    return {
        "task_count": len(tests),
        "trial_count": n,
        "primary_task_success_rate": float(Fraction(sum(passing.values()), len(tests))),
        "trial_stability_rate": float(Fraction(
            sum(1 for o in per_task.values() if all(o) or not any(o)), len(tests))),
        "final_state_trial_rate": float(Fraction(sum(c[1] for c in checks), n)),
        "side_effect_free_trial_rate": float(Fraction(sum(c[2] for c in checks), n)),
        "unknown_trial_count": sum(1 for r in system["records"] if r["status"] == "unknown"),
        "mean_latency_ms": float(sum(latencies) / n),
        "p95_latency_ms": float(latencies[math.ceil(0.95 * n) - 1]),
        "mean_cost_units": float(sum(exact(r["cost_units"]) for r in system["records"]) / n),
        "slice_task_success_gap": float(max(slice_rates) - min(slice_rates)),
        "critical_failures": [case["id"] for case in tests if case["critical"] and Fraction(
            sum(per_task[case["id"]]), trial_count) < exact(
                gates["critical_task_min_trial_success_rate"])],
        "passes": [1 if passing[case["id"]] else 0 for case in tests],
    }


def naive_interval(differences, samples, seed, confidence):
    rng = random.Random(seed)
    n = len(differences)
    means = []
    for _ in range(samples):
        total = 0
        for _ in range(n):
            while True:
                index = rng.getrandbits(n.bit_length())
                if index < n:
                    break
            total += differences[index]
        means.append(Fraction(total, n))
    means.sort()
    tail = (1 - exact(confidence)) / 2
    low_rank = max(1, math.ceil(tail * samples))
    high_rank = max(1, math.ceil((1 - tail) * samples))
    return [float(means[low_rank - 1]), float(means[high_rank - 1])]


class RandomPackageTests(unittest.TestCase):
    def test_metrics_match_a_naive_computation(self):
        for seed in range(1, 9):
            rng = random.Random(seed)
            tasks = rng.randint(1, 25)
            trials = rng.randint(2, 6)
            spec, cases, results = make_package(tasks, trial_count=trials, seed=seed,
                                                samples=100 + seed,
                                                candidate_skill=rng.random())
            with self.subTest(seed=seed, tasks=tasks, trials=trials):
                run = run_package(self, spec, cases, results)
                self.assertIn(run.status, (0, 1), run.stderr)
                document = run.document
                expected = {}
                for role, system in zip(("baseline", "candidate"), results["systems"]):
                    expected[role] = naive_metrics(spec, cases, system)
                    actual = document[role + "_metrics"]
                    for key, value in expected[role].items():
                        if key != "passes":
                            self.assertEqual(actual[key], value, key)
                differences = [c - b for c, b in zip(expected["candidate"]["passes"],
                                                     expected["baseline"]["passes"])]
                bootstrap = spec["bootstrap"]
                settings = (bootstrap["samples"], bootstrap["seed"],
                            exact(bootstrap["confidence"]))
                # The naive loop is the index resampler, draw for draw; the document's
                # interval comes from the default (multinomial) resampler on the same
                # differences, which tests/test_bootstrap.py holds to the same distribution.
                by_index = paired_interval(task_clusters(differences), *settings,
                                           resample=oracles.index_resample)
                self.assertEqual([float(by_index.low), float(by_index.high)],
                                 naive_interval(differences, bootstrap["samples"],
                                                bootstrap["seed"], bootstrap["confidence"]))
                default = paired_interval(task_clusters(differences), *settings)
                self.assertEqual(document["comparison"]["paired_bootstrap_interval"],
                                 [float(default.low), float(default.high)])
                self.assertEqual(document["comparison"]["paired_task_success_delta"],
                                 float(Fraction(sum(differences), len(differences))))
                if expected["candidate"]["critical_failures"]:
                    self.assertEqual(document["action"], "BLOCK")

    def test_shuffled_records_give_the_same_decision(self):
        spec, cases, results = make_package(12, trial_count=3, seed=5)
        first = run_package(self, spec, cases, results).document
        random.Random(3).shuffle(results["systems"][1]["records"])
        results["systems"].reverse()
        second = run_package(self, spec, cases, results).document
        for key in ("action", "reasons", "baseline_metrics", "candidate_metrics", "comparison"):
            self.assertEqual(first[key], second[key], key)
        # The inputs differ, so their fingerprint must too.
        self.assertNotEqual(first["evidence_fingerprint"], second["evidence_fingerprint"])


if __name__ == "__main__":
    unittest.main()
