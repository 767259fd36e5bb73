"""Proposing a sequential design (stats/sequential_plan.py, contract/sequential_proposal.py,
planning/sequential.py, init's scaffold): the largest sample, the looks in tasks and trials, the exact expected and worst
costs beside the fixed design of the same power, and a written design the gate rebuilds
exactly."""

import json
import unittest
from fractions import Fraction as F

from devtools.sequential_packages import make_run
from devtools.synthetic import make_package
from proagents_bench import pipeline
from proagents_bench.contract.sequential import boundary_sha256, design_of
from proagents_bench.importers.scaffold import SequentialChoice, blank_package
from proagents_bench.contract.sequential_proposal import (SequentialPlanError, order_seed,
                                                          propose)
from proagents_bench.planning.sequential import costs
from proagents_bench.stats.sequential_looks import looks_characteristics
from proagents_bench.stats.sequential_plan import (expected_cost, feasible_boundary,
                                                   look_units, schedule)
from tests.sequential_support import inputs

ALPHA, BETA, HALF = F(1, 40), F(1, 5), F(1, 2)


class ScheduleTests(unittest.TestCase):
    def test_a_task_level_design_adds_equal_batches_of_tasks_within_the_pool(self):
        self.assertEqual(schedule(296, 10, "task", "tasks", 500, 3),
                         [(30 * k, 3) for k in range(1, 11)])
        self.assertEqual(schedule(491, 10, "task", "tasks", 300, 3),
                         [(30 * k, 3) for k in range(1, 11)])
        self.assertEqual(schedule(296, 10, "task", "tasks", 2, 3), [(1, 3), (2, 3)])
        with self.assertRaises(ValueError):
            schedule(296, 10, "task", "trials", 500, 3)

    def test_a_trial_level_design_grows_trials_tasks_or_both(self):
        self.assertEqual(schedule(890, 10, "trial", "trials", 89, 10),
                         [(89, trials) for trials in range(2, 11)])
        self.assertEqual(schedule(600, 4, "trial", "tasks", 500, 3),
                         [(50, 3), (100, 3), (150, 3), (200, 3)])
        both = schedule(890, 10, "trial", "both", 89, 10)
        self.assertEqual(both[-1], (89, 10))
        for before, after in zip(both, both[1:]):
            self.assertTrue(after[0] >= before[0] and after[1] >= before[1]
                            and after != before)


class CostTests(unittest.TestCase):
    def test_the_worked_example_of_the_docs(self):
        # 500 tasks, 10 looks of 30, discordance 0.25, theta1 0.7: N 74, expected 94.0 tasks
        # with no effect and 143.7 at it, the fixed design 206 tasks
        boundary = feasible_boundary(ALPHA, BETA, HALF, F(7, 10))
        self.assertEqual(boundary.design.max_discordant, 74)
        looks = schedule(296, 10, "task", "tasks", 500, 3)
        null = expected_cost(boundary, looks, "task", F(1, 4), HALF)
        effect = expected_cost(boundary, looks, "task", F(1, 4), F(7, 10))
        self.assertEqual((round(float(null.tasks), 1), round(float(effect.tasks), 1)),
                         (94.0, 143.7))
        self.assertEqual(effect.trials, 3 * effect.tasks)
        units = look_units(looks, "task")
        self.assertEqual((effect.pass_chance, effect.units),
                         looks_characteristics(boundary, units, F(1, 4), F(7, 10)))

    def test_expected_trials_follow_the_looks_reached(self):
        boundary = feasible_boundary(ALPHA, BETA, HALF, F(4, 5))
        looks = [(10, 2), (10, 3), (20, 3)]
        cost = expected_cost(boundary, looks, "trial", F(3, 10), F(4, 5))
        _pass, units = looks_characteristics(boundary, [20, 30, 60], F(3, 10), F(4, 5))
        self.assertEqual(cost.units, units)
        self.assertEqual(cost.trials, cost.units)  # one trial per system per trial pair
        self.assertLessEqual(cost.tasks, 20)


class ProposalTests(unittest.TestCase):
    def setUp(self):
        spec, cases, results = make_package(300, 3, seed=4)
        spec["schema_version"] = "agent-benchmark-spec-v5"
        spec["sequential"] = None
        spec["bootstrap"].update(unit="task", lower_bound="strict")
        spec["gates"].update(min_paired_delta_ci_low=0, min_trial_delta_ci_low=0)
        self.spec, self.cases, self.results = spec, cases, results
        self.ids = [case["id"] for case in cases["cases"] if case["split"] == "test"]

    def test_the_written_design_is_the_one_the_gate_rebuilds(self):
        for unit in ("task", "trial"):
            with self.subTest(unit=unit):
                proposal = propose(self.spec, self.ids, unit, F(1, 10), F(3, 10))
                self.assertEqual(proposal.block["win_share"], 0.6666)
                spec = dict(self.spec, sequential=proposal.block)
                spec["protocol"] = dict(spec["protocol"],
                                        trial_count=proposal.looks[-1][1])
                files = inputs(json.loads(json.dumps(spec)), self.cases, self.results)
                loaded, _cases = pipeline.load_benchmark(files[0], files[1])
                rebuilt = design_of(loaded.value).boundary()
                self.assertEqual(boundary_sha256(rebuilt), boundary_sha256(proposal.boundary))
                self.assertEqual(proposal.block["order_seed"],
                                 order_seed("synthetic-benchmark", "1.0.0"))

    def test_the_fixed_design_has_the_sequential_designs_power(self):
        proposal = propose(self.spec, self.ids, "task", F(1, 10), F(3, 10))
        found = costs(proposal)
        self.assertLess(found.effect.tasks, found.fixed[0])
        self.assertLess(found.null.tasks, found.effect.tasks)
        self.assertEqual(found.worst, (300, 900))

    def test_a_design_that_cannot_be_proposed_says_why(self):
        for effect, rate, words in ((F(0), F(3, 10), "must lie above 0.5"),
                                    (F(1, 10), F(0), "discordance rate is 0"),
                                    (F(1), F(3, 10), "and below 1")):
            with self.subTest(effect=effect, rate=rate):
                with self.assertRaises(SequentialPlanError) as raised:
                    propose(self.spec, self.ids, "task", effect, rate)
                self.assertIn(words, str(raised.exception))


class InitTests(unittest.TestCase):
    def test_init_writes_a_spec_v5_whose_template_is_its_first_look(self):
        for unit in ("task", "trial"):
            with self.subTest(unit=unit):
                files = blank_package(SequentialChoice(unit=unit, looks=5))
                spec = json.loads(dict(files)["spec"])
                self.assertEqual(spec["schema_version"], "agent-benchmark-spec-v5")
                self.assertEqual(spec["sequential"]["unit"], unit)
                evaluation = pipeline.evaluate([pipeline.InputFile(kind, None, kind, data=data)
                                                for kind, data in files])
                self.assertEqual(evaluation.document["sequential"]["look"], 1)
                self.assertEqual(evaluation.action, "BLOCK")  # nothing has run yet

    def test_init_freezes_a_design_on_a_cases_file_of_ones_own(self):
        cases, _run = make_run(40, 3, 0.5, 0.7)
        files = dict(blank_package(SequentialChoice(), cases))
        self.assertEqual(sorted(files), ["results", "spec"])
        spec = json.loads(files["spec"])
        self.assertEqual(spec["benchmark_id"], cases["benchmark_id"])
        loaded, _cases = pipeline.load_benchmark(*inputs(spec, cases, {})[:2])
        self.assertEqual(design_of(loaded.value).block["pool_sha256"],
                         spec["sequential"]["pool_sha256"])

    def test_init_without_a_design_writes_spec_v3_as_before(self):
        spec = json.loads(dict(blank_package())["spec"])
        self.assertEqual(spec["schema_version"], "agent-benchmark-spec-v3")


if __name__ == "__main__":
    unittest.main()
