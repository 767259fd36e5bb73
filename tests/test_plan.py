"""``plan``: what it measures, Miller's formula, the gate's own power held to a simulation of
the gate itself (within its Monte Carlo error), the least-cost design, the command line."""

import json
import math
import statistics
import unittest
from fractions import Fraction as F

from proagents_bench import planning
from proagents_bench.stats.exact import normal_quantile
from proagents_bench.tools.plan_check import simulate_gate
from proagents_bench.tools.synthetic import make_package
from tests.support import (TempDir, evaluate_arguments, evaluate_package, outcome_package,
                           run_cli, run_package)


def planner_for(test, package, effect=F(1, 10), **options):
    evaluation = evaluate_package(test, *package)
    measured = planning.measure(evaluation)
    settings = planning.settings_from_spec(evaluation.spec, measured, effect, **options)
    return planning.Planner(measured, settings)


def v3(package, lower_bound="strict"):
    spec = package[0]
    spec["schema_version"] = "agent-benchmark-spec-v3"
    spec["bootstrap"].update(unit="task", lower_bound=lower_bound)
    return package


class MeasuredTests(unittest.TestCase):
    def test_the_examples_components_by_hand(self):
        document = evaluate_arguments([]).document
        counts = {role: [round(task["trial_success_rate"] * 3)
                         for task in document[role + "_metrics"]["task_results"]]
                  for role in ("baseline", "candidate")}
        measured = planning.measure(evaluate_arguments([]))
        self.assertEqual((measured.baseline, measured.candidate),
                         (counts["baseline"], counts["candidate"]))
        for role, index in (("baseline", 0), ("candidate", 1)):
            rates = [x / 3 for x in counts[role]]
            within = statistics.mean(x * (3 - x) / 6 for x in counts[role])
            self.assertAlmostEqual(float(measured.within[index]), within, places=12)
            self.assertAlmostEqual(float(measured.between_systems[index]),
                                   max(statistics.variance(rates) - within / 3, 0), places=12)
        differences = [(c - b) / 3 for b, c in zip(counts["baseline"], counts["candidate"])]
        within = float(measured.within[0] + measured.within[1])
        self.assertAlmostEqual(float(measured.between),
                               max(statistics.variance(differences) - within / 3, 0), places=12)
        self.assertEqual(measured.costs, (document["baseline_metrics"]["mean_cost_units"],
                                          document["candidate_metrics"]["mean_cost_units"]))

    def test_millers_formula(self):
        planner = planner_for(self, make_package(40, trial_count=4, seed=9))
        measured, settings = planner.measured, planner.settings
        z, z_power = normal_quantile(F(39, 40)), normal_quantile(F(4, 5))
        for tasks, trials in ((40, 4), (100, 2), (25, 10)):
            sd = math.sqrt(float(measured.between)
                           + float(measured.within[0] + measured.within[1]) / trials)
            power, mde = planner.miller(tasks, trials)
            self.assertAlmostEqual(mde, (z + z_power) * sd / math.sqrt(tasks), places=12)
            self.assertAlmostEqual(power, statistics.NormalDist().cdf(
                float(settings.effect) * math.sqrt(tasks) / sd - z), places=12)
        # More trials buy less and less: the within-task part shrinks as 1/K.
        self.assertGreater(planner.miller(40, 8)[0], planner.miller(40, 2)[0])

    def test_the_models_variance_follows_millers_structure(self):
        # Var(d) at K trials is omega2 + w / K: three K give two equal slopes.
        model = planner_for(self, make_package(30, trial_count=3, seed=4)).model
        effect = F(1, 20)
        var = {k: model.sd(k, effect) ** 2 for k in (2, 4, 8)}
        self.assertAlmostEqual((var[2] - var[4]) / (1 / 2 - 1 / 4),
                               (var[4] - var[8]) / (1 / 4 - 1 / 8), places=10)
        for k in (2, 5):
            distribution = model.differences(k, effect)
            self.assertAlmostEqual(distribution.variance, model.sd(k, effect) ** 2, places=12)
            self.assertAlmostEqual(distribution.mean, float(model.measured.rates[0] + effect)
                                   - float(model.measured.rates[0]), places=12)


class GatePowerTests(unittest.TestCase):
    """The planner's power of the gate against the gate's own code on simulated benchmarks
    (tools/plan_check.simulate_gate): 250 benchmarks each, so the Monte Carlo standard error
    is at most 0.032; the planner must lie within three of them and 0.02 (its own
    approximation of the bootstrap's low end)."""

    REPLICATES = 250
    SAMPLES = 200

    def assert_matches(self, planner, tasks, trials, effect):
        share, error = simulate_gate(planner, tasks, trials, effect, self.REPLICATES,
                                     self.SAMPLES, seed=18)
        predicted = planner.power(tasks, trials, effect)
        self.assertLessEqual(abs(predicted - share), 3 * error + 0.02,
                             (tasks, trials, effect, predicted, share, error))
        return predicted, share

    def test_the_strict_gate_with_the_small_sample_rules(self):
        planner = planner_for(self, v3(make_package(60, trial_count=3, seed=5,
                                                    candidate_skill=0.65)))
        self.assertTrue(planner.settings.rule.tested)
        # Ten tasks: the randomization test holds most passes back (the bound alone would
        # pass about a third of them).
        predicted, _ = self.assert_matches(planner, 10, 3, planner.settings.effect)
        self.assertLess(predicted, 0.1)
        self.assert_matches(planner, 30, 3, planner.settings.effect)
        false_passes, _ = self.assert_matches(planner, 20, 3, F(0))
        self.assertLessEqual(false_passes, 0.025 + 0.005)

    def test_an_inclusive_gate_below_zero(self):
        planner = planner_for(self, v3(make_package(60, trial_count=3, seed=5,
                                                    candidate_skill=0.65), "inclusive"),
                              gate=F(-1, 20))
        self.assertFalse(planner.settings.rule.tested)
        self.assert_matches(planner, 20, 3, planner.settings.effect)

    def test_the_normal_limit_agrees_with_the_exact_sum_where_they_meet(self):
        planner = planner_for(self, v3(make_package(60, trial_count=3, seed=5)))
        for tasks in (80, 100):
            for effect in (F(1, 10), F(0)):
                exact = planner.power(tasks, 3, effect, "exact")
                normal = planner.power(tasks, 3, effect, "normal")
                self.assertLess(abs(exact - normal), 0.02, (tasks, effect, exact, normal))


class DesignTests(unittest.TestCase):
    def planner(self, effect=F(3, 20), **options):
        return planner_for(self, v3(make_package(40, trial_count=3, seed=2,
                                                 candidate_skill=0.7)), effect, **options)

    def test_the_recommended_design_is_the_cheapest_that_reaches_the_power(self):
        planner = self.planner(F(1, 4), max_tasks=60, max_trials=5, cost_per_task=F(1, 10))
        chosen = planner.recommended()
        self.assertIsNotNone(chosen)
        self.assertGreaterEqual(chosen["power"], 0.8)
        self.assertEqual(chosen["power"], planner.power(chosen["tasks"], chosen["trials"]))
        self.assertLess(planner.power(chosen["tasks"] - 1, chosen["trials"]), 0.8)
        cheapest = None
        for trials in range(2, 6):
            for tasks in range(2, 61):
                if planner.power(tasks, trials) >= 0.8:
                    cost = planner.cost(tasks, trials)
                    cheapest = cost if cheapest is None else min(cheapest, cost)
                    break
        self.assertLessEqual(chosen["cost"], cheapest * 1.02)

    def test_limits_and_budget(self):
        unlimited = self.planner(max_tasks=300).recommended()
        few = self.planner(max_tasks=6)
        self.assertIsNone(few.recommended())
        best = few.best_within_limits()
        self.assertLessEqual(best["tasks"], 6)
        poor = self.planner(max_tasks=300, budget=F(unlimited["cost"]) / 2)
        self.assertIsNone(poor.recommended())
        self.assertLessEqual(poor.best_within_limits()["cost"], unlimited["cost"] / 2)
        self.assertLess(poor.best_within_limits()["power"], 0.8)

    def test_the_smallest_detectable_effect(self):
        planner = self.planner()
        effect = planner.smallest_effect(40, 3)
        self.assertGreaterEqual(planner.power(40, 3, F(effect)), 0.8)
        self.assertLess(planner.power(40, 3, F(effect) - F(1, 1000)), 0.8)


class CommandTests(unittest.TestCase):
    def test_plan_on_the_example(self):
        run = run_cli(["plan", "--summary"])
        self.assertEqual(run.status, 0, run.stderr)
        self.assertTrue(run.stdout.isascii())
        document = json.loads(run.stdout)
        self.assertEqual(run.stdout, (json.dumps(document, sort_keys=True, indent=2,
                                                 ensure_ascii=True) + "\n").encode("ascii"))
        self.assertEqual(document["action"], "PLAN")
        self.assertEqual((document["measured"]["tasks"], document["measured"]["trials"]),
                         (5, 3))
        self.assertIsNone(document["recommended"])  # 5 tasks cannot detect 0.1
        self.assertIn("no min_trial_delta_ci_low", " ".join(document["notes"]))
        self.assertIn("recommended: none within the limits", run.stderr)
        self.assertEqual(run_cli(["plan", "--summary"]).stdout, run.stdout)
        wider = json.loads(run_cli(["plan", "--max-tasks", "1000"]).stdout)
        self.assertGreater(wider["recommended"]["tasks"], 5)

    def test_an_unmeasured_cost_counts_trials(self):
        from tests.test_package_evidence import results_v3, system

        def change(results):
            system(results, "candidate")["records"][3]["cost_units"] = None
        run = run_package(self, results=results_v3(change), arguments=())
        self.assertEqual(run.status, 1)
        paths = TempDir(self).package(None, None, results_v3(change))
        run = run_cli(["plan", "--summary"] + paths)
        self.assertEqual(run.status, 0, run.stderr)
        measured = run.document["measured"]
        self.assertIsNone(measured["cost_per_trial"]["candidate"])
        self.assertTrue(measured["cost_counted_in_trials"])
        self.assertEqual(run.document["now"]["cost"], 5 * 3 * 2)
        self.assertIn("unmeasured (no cost known: cost counts trials)", run.stderr)

    def test_bad_settings_and_packages_are_contract_errors(self):
        for arguments, code in ((["--effect", "0"], "cli.plan"),
                                (["--power", "1"], "cli.plan"),
                                (["--effect", "x"], "cli.usage"),
                                (["--max-trials", "101"], "cli.plan")):
            run = run_cli(["plan"] + arguments)
            self.assertEqual((run.status, run.document["errors"][0]["code"]), (2, code),
                             arguments)
        spec, cases, results = outcome_package([1], [2])
        run = run_package(self, spec, cases, results, arguments=())
        self.assertEqual(run.status, 1)  # the gate decides it; the planner refuses it
        paths = TempDir(self).package(spec, cases, results)
        run = run_cli(["plan"] + paths)
        self.assertEqual(run.status, 2)
        self.assertIn("at least 2", run.document["errors"][0]["message"])


if __name__ == "__main__":
    unittest.main()
