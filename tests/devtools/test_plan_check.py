"""The planner's power held to a simulation of the gate itself (devtools/plan_check.py),
within its Monte Carlo error: on the planner's own model as a process, and on a world it does
not assume; and ``bench plan``, which times ``plan`` and checks it so."""

import unittest
from fractions import Fraction as F

from devtools import plan_check
from devtools.synthetic import make_package
from tests.devtools.support import run_devtools
from tests.test_plan import planner_for, v3


class GatePowerTests(unittest.TestCase):
    """The planner's power against the gate itself: benchmarks drawn from the planner's model
    as a process (devtools/plan_check.ModelWorld), written as packages and decided by
    pipeline.evaluate, 200 each; the planner must lie within three Monte Carlo standard errors
    of the share of passes (at most 0.035 each) and 0.02 (its own approximations)."""

    BENCHMARKS = 200

    def assert_agrees(self, planner, designs):
        spec = plan_check.check_spec(3, planner.settings.gate, planner.settings.strict,
                                     planner.settings.confidence, 200, 18)
        checks = plan_check.check_designs(planner, spec, None, designs, self.BENCHMARKS, 18)
        for check in checks:
            self.assertTrue(check.agrees, check.line())
        return checks

    def test_the_strict_gate_with_the_small_sample_rules(self):
        planner = planner_for(self, v3(make_package(60, trial_count=3, seed=5,
                                                    candidate_skill=0.65)))
        self.assertTrue(planner.settings.rule.tested)
        effect = planner.settings.effect
        few, many, none = self.assert_agrees(planner, [(10, 3, effect), (30, 3, effect),
                                                       (20, 3, F(0))])
        # Ten tasks: the randomization test holds most passes back.
        self.assertLess(few.predicted, 0.1)
        self.assertGreater(many.predicted, few.predicted)
        self.assertLessEqual(none.predicted, 0.025 + 0.005)

    def test_an_inclusive_gate_below_zero(self):
        planner = planner_for(self, v3(make_package(60, trial_count=3, seed=5,
                                                    candidate_skill=0.65), "inclusive"),
                              gate=F(-1, 20))
        self.assertFalse(planner.settings.rule.tested)
        self.assert_agrees(planner, [(20, 3, planner.settings.effect)])


class WorldTests(unittest.TestCase):
    """The plan held to the gate on a world it does not assume (devtools/plan_check.BetaWorld):
    success chances Beta(2, 2) per task, the candidate's the baseline's plus 0.1 on the same
    task. The plan is made from a pilot benchmark of that world, as a user makes it; the gate
    judges 200 fresh benchmarks of it. A model that draws the two systems' chances apart
    said 0.54 to 0.62 for 100 tasks x 3 trials here, where the gate passes about 0.73."""

    def test_the_plan_holds_in_a_world_where_both_systems_share_each_task(self):
        effect = F(1, 10)
        world = plan_check.BetaWorld(2.0, 2.0)
        spec = plan_check.check_spec(3, F(0), True, F(95, 100), 400, 31)
        planner = plan_check.pilot_planner(spec, 1000, world.at(effect), 31, effect, 10000)
        check = plan_check.compare(planner, spec, world.at, 100, 3, effect, 200, 32)
        self.assertTrue(check.agrees, check.line())


class BenchPlanTests(unittest.TestCase):
    def test_the_bench_checks_a_plan_against_the_gate(self):
        run = run_devtools(["bench", "plan", "--tasks", "40", "--trials", "3", "--repeat", "1",
                       "--simulate", "30"])
        self.assertEqual(run.status, 0, run.stderr)
        lines = run.stdout.decode("ascii").splitlines() + run.stderr.splitlines()
        checks = [line for line in lines if ": plan " in line and " gate " in line]
        self.assertGreaterEqual(len(checks), 2, lines)
        for line in checks:
            self.assertTrue(line.endswith("agrees"), line)


if __name__ == "__main__":
    unittest.main()
