"""The decision documents of every shipped example and exercise, held to golden copies.

``tests/golden/NAME.json`` is the exact stdout of ``run_benchmark.py ARGS`` for each scenario
below, and ``NAME.status`` its exit status. A change that alters a single byte of a decision
must show up here as a changed golden file, on purpose.
"""

import os
import unittest

from tests.support import ROOT, run_cli

GOLDEN = os.path.join(ROOT, "tests", "golden")

SCENARIOS = {
    "pass": [],
    "regression": ["--results", "examples/benchmark_results_regression.json",
                   "--candidate", "candidate-regression"],
    "protocol_mismatch": ["--spec", "examples/benchmark_spec_protocol_mismatch.json"],
    "contract_error": ["--cases", "examples/benchmark_cases_contract_error.json"],
    "spec_v2_family": ["--spec", "examples/benchmark_spec_v2_family.json"],
    "spec_v3_strict": ["--spec", "examples/benchmark_spec_v3_strict.json"],
    "spec_v4_trial": ["--spec", "examples/benchmark_spec_v4_trial.json",
                      "--results", "examples/exercise_results_unstable_task.json"],
    "exercise_missing_trial": ["--results", "examples/exercise_results_missing_trial.json"],
    "exercise_p95_review": ["--results", "examples/exercise_results_p95_review.json"],
    "exercise_unstable_task": ["--results", "examples/exercise_results_unstable_task.json"],
    "exercise_critical_privacy": ["--results",
                                  "examples/exercise_results_critical_privacy.json"],
    "sequential_look1": ["--spec", "examples/sequential_spec.json",
                         "--cases", "examples/sequential_cases.json",
                         "--results", "examples/sequential_look1.json"],
    "sequential_look3": ["--spec", "examples/sequential_spec.json",
                         "--cases", "examples/sequential_cases.json",
                         "--results", "examples/sequential_look3.json"],
}


def run_scenario(arguments):
    """Run a scenario from the project folder, as the README shows it."""
    previous = os.getcwd()
    os.chdir(ROOT)
    try:
        return run_cli(arguments)
    finally:
        os.chdir(previous)


def golden(name, suffix):
    with open(os.path.join(GOLDEN, name + suffix), "rb") as handle:
        return handle.read()


class GoldenTests(unittest.TestCase):
    def test_every_scenario_matches_its_golden_copy(self):
        for name, arguments in sorted(SCENARIOS.items()):
            with self.subTest(name=name):
                run = run_scenario(arguments)
                self.assertEqual(str(run.status).encode("ascii") + b"\n",
                                 golden(name, ".status"))
                self.assertEqual(run.stdout, golden(name, ".json"))


def write_golden_copies():
    """Rewrite the golden copies from the current code (then review the diff)."""
    for name, arguments in sorted(SCENARIOS.items()):
        run = run_scenario(arguments)
        with open(os.path.join(GOLDEN, name + ".json"), "wb") as handle:
            handle.write(run.stdout)
        with open(os.path.join(GOLDEN, name + ".status"), "wb") as handle:
            handle.write(str(run.status).encode("ascii") + b"\n")


if __name__ == "__main__":
    unittest.main()
