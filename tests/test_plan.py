"""``plan``: what it measures, Miller's formula, the least-cost design, the command line (its
power held to a simulation of the gate itself: tests/devtools/test_plan_check.py)."""

import json
import math
import os
import statistics
import unittest
from fractions import Fraction as F

from devtools.synthetic import make_package
from proagents_bench.planning.measured import measure
from proagents_bench.planning.planner import Planner, plan, settings_from_spec
from proagents_bench.stats.exact import normal_quantile
from proagents_bench.stats.power import TaskPrior, linked_difference
from tests.support import (ROOT, TempDir, evaluate_arguments, evaluate_package,
                           load_example, outcome_package, run_cli, run_package)


def planner_for(test, package, effect=F(1, 10), **options):
    evaluation = evaluate_package(test, *package)
    measured = measure(evaluation)
    settings = settings_from_spec(evaluation.spec, measured, effect, **options)
    return Planner(measured, settings)


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
        measured = measure(evaluate_arguments([]))
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
        self.assertAlmostEqual(var[2] - (var[2] - var[4]) / (1 / 2 - 1 / 4) / 2,
                               float(model.between(effect)), places=10)
        for k in (2, 5):
            distribution = model.differences(k, effect)
            self.assertAlmostEqual(distribution.variance, model.sd(k, effect) ** 2, places=12)
            self.assertAlmostEqual(distribution.mean, float(effect), places=12)


def beta_binomial_quadrature(a, b, trials, chance_of, points=4000):
    """P(C - B = v) when p ~ Beta(a, b), B ~ Binomial(K, p), C ~ Binomial(K, chance_of(p)),
    by the midpoint rule over p: the plain reading of "both systems share p"."""
    out = [0.0] * (2 * trials + 1)
    log_beta = math.lgamma(a) + math.lgamma(b) - math.lgamma(a + b)
    total = 0.0
    for index in range(points):
        p = (index + 0.5) / points
        weight = math.exp((a - 1) * math.log(p) + (b - 1) * math.log(1 - p) - log_beta)
        total += weight
        q = chance_of(p)
        base = [math.comb(trials, x) * p ** x * (1 - p) ** (trials - x)
                for x in range(trials + 1)]
        cand = [math.comb(trials, x) * q ** x * (1 - q) ** (trials - x)
                for x in range(trials + 1)]
        for c, chance_c in enumerate(cand):
            for b_count, chance_b in enumerate(base):
                out[c - b_count + trials] += weight * chance_c * chance_b
    return [value / total for value in out]


class ModelTests(unittest.TestCase):
    """The planning model: both systems share each task's chance."""

    def test_the_linked_difference_is_the_shared_chance_integrated(self):
        for a, b, trials, share in ((2.3, 1.7, 3, 0.25), (2.3, 1.7, 4, -0.3), (3.0, 5.0, 5, 0.0),
                                    (1.5, 2.5, 2, 1.0), (0.6, 0.8, 3, 0.4)):
            def link(p):
                return share + (1 - share) * p if share >= 0 else (1 + share) * p
            exact = linked_difference(TaskPrior(a, b), trials, share)
            reference = beta_binomial_quadrature(a, b, trials, link)
            self.assertAlmostEqual(sum(exact), 1.0, places=12)
            for mine, theirs in zip(exact, reference):
                # the midpoint rule's own error near p = 0 and 1 (a or b below 1 there)
                self.assertAlmostEqual(mine, theirs, delta=2e-4 if min(a, b) < 1 else 1e-6,
                                       msg=(a, b, trials, share))

    def test_a_candidate_like_the_baseline_differs_only_by_its_trials(self):
        # At no effect the candidate's chance is the baseline's on every task: the difference
        # is symmetric and its variance the within-task part alone, 2 E[p (1 - p)] / K. (Two
        # chances drawn apart would add 2 Var(p) between tasks.)
        planner = planner_for(self, make_package(40, trial_count=3, seed=2), like="baseline")
        model = planner.model
        self.assertEqual(model.between(F(0)), 0)
        self.assertGreater(model.variance, 0)
        for trials in (2, 3, 7):
            distribution = model.differences(trials, F(0)).distribution
            for low, high in zip(distribution, reversed(distribution)):
                self.assertAlmostEqual(low, high, places=14)
            within = model.mean * (1 - model.mean) - model.variance
            self.assertAlmostEqual(model.differences(trials, F(0)).variance,
                                   float(2 * within / trials), places=12)

    def test_the_spread_of_the_differences_is_the_measured_one(self):
        planner = planner_for(self, make_package(60, trial_count=3, seed=10,
                                                 candidate_skill=0.65))
        model, measured = planner.model, planner.measured
        self.assertGreater(measured.between, 0)
        for effect in (F(1, 10), F(0), F(-1, 20)):
            linked = model.linked(effect)
            self.assertTrue(0 < linked < 1, linked)
            self.assertEqual(model.between(effect), measured.between)
        share = model.share(F(1, 10))
        self.assertEqual(share, F(1, 10) / (1 - measured.rates[0]))
        baseline_like = planner_for(self, make_package(60, trial_count=3, seed=10,
                                                       candidate_skill=0.65),
                                    like="baseline").model
        self.assertEqual(baseline_like.between(F(1, 10)), share ** 2 * model.variance)

    def test_a_spread_the_model_cannot_reach_is_said(self):
        # The candidate passes exactly the tasks the baseline fails: the differences vary
        # more than two unrelated chances can make them (a negative correlation).
        package = outcome_package([0, 2] * 6, [2, 0] * 6, trials=2, version=4)
        evaluation = evaluate_package(self, *package)
        measured = measure(evaluation)
        settings = settings_from_spec(evaluation.spec, measured, F(1, 10))
        answer = plan(measured, settings, evaluation.spec)
        model = answer["model"]
        self.assertEqual(model["linked_share"], 0.0)
        self.assertLess(model["between_task_variance"], float(measured.between))
        self.assertIn("spreads the tasks' true differences less than measured",
                      " ".join(answer["notes"]))
        # A package whose systems are not so opposed gets no such note.
        package = outcome_package([0, 2] * 6, [1, 2] * 6, trials=2, version=4)
        evaluation = evaluate_package(self, *package)
        measured = measure(evaluation)
        answer = plan(measured, settings_from_spec(
            evaluation.spec, measured, F(1, 10)), evaluation.spec)
        self.assertNotIn("less than measured", " ".join(answer["notes"]))

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

    def test_what_more_tasks_would_buy(self):
        unlimited = self.planner(max_tasks=10000)
        chosen = unlimited.recommended()
        few = self.planner(max_tasks=6)
        self.assertIsNone(few.recommended())
        more = few.with_more_tasks()
        self.assertEqual((more["tasks"], more["trials"]), (chosen["tasks"], chosen["trials"]))
        self.assertEqual(more["tasks_beyond_limit"], more["tasks"] - 6)
        self.assertGreaterEqual(more["power"], 0.8)
        self.assertLess(few.power(more["tasks"] - 1, more["trials"]), 0.8)
        self.assertIsNone(unlimited.with_more_tasks())  # nothing beyond: the limit held it
        # When the budget binds, more tasks buy nothing: the cheapest design is within the
        # tasks and beyond the budget.
        poor = self.planner(max_tasks=10000, budget=F(chosen["cost"]) / 2)
        self.assertIsNone(poor.recommended())
        self.assertIsNone(poor.with_more_tasks())
        # An effect no billion tasks detect: none.
        tiny = self.planner(F(1, 10 ** 12), max_tasks=6)
        self.assertIsNone(tiny.with_more_tasks())

    def test_costs_are_exact(self):
        planner = self.planner(max_tasks=300, cost_per_task=F(1, 10))
        per_trial = sum(F(cost) for cost in planner.measured.costs)
        self.assertEqual(planner.cost(7, 3), 7 * (F(1, 10) + 3 * per_trial))
        budget = planner.cost(7, 3)
        limited = self.planner(max_tasks=300, cost_per_task=F(1, 10), budget=budget)
        self.assertTrue(limited.affordable(7, 3))
        self.assertFalse(limited.affordable(8, 3))

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
        # ... and says what more tasks would buy, marked as beyond the 5 available
        more = document["with_more_tasks"]
        self.assertGreater(more["tasks"], 5)
        self.assertEqual(more["tasks_beyond_limit"], more["tasks"] - 5)
        self.assertIn("more tasks:  %5d tasks x %3d trials" % (more["tasks"], more["trials"]),
                      run.stderr)
        self.assertIn("(%d more tasks than the 5 available)" % (more["tasks"] - 5),
                      run.stderr)
        self.assertEqual(run_cli(["plan", "--summary"]).stdout, run.stdout)
        wider = json.loads(run_cli(["plan", "--max-tasks", "1000"]).stdout)
        self.assertEqual((wider["recommended"]["tasks"], wider["recommended"]["trials"]),
                         (more["tasks"], more["trials"]))
        self.assertIsNone(wider["with_more_tasks"])
        self.assertEqual(document["model"]["between_task_variance"],
                         document["measured"]["between_task_variance"]["difference"])

    def test_the_docs_summary_is_the_commands_output(self):
        with open(os.path.join(ROOT, "docs", "statistics.md"), "rb") as handle:
            docs = handle.read().decode("utf-8")
        command = ["plan", "--spec", "examples/benchmark_spec_v3_strict.json", "--summary"]
        self.assertTrue("`%s` says on stderr" % " ".join(command) in " ".join(docs.split()),
                        "docs/statistics.md no longer names the command")
        run = run_cli(command)
        self.assertEqual(run.status, 0, run.stderr)
        self.assertTrue("```\n%s```" % run.stderr in docs,
                        "docs/statistics.md's summary is not the command's:\n" + run.stderr)

    def test_extreme_settings_are_answered_or_refused_clearly(self):
        for arguments, status, check in (
                (["--power", "1e-100"], 0,
                 lambda document: document["recommended"]["tasks"] == 2),
                (["--effect", "1e-300"], 0,
                 lambda document: document["with_more_tasks"] is None),
                (["--budget", "1e308"], 0,
                 lambda document: document["settings"]["budget"] == 1e308),
                (["--power", "1/3"], 0,
                 lambda document: document["settings"]["power"] == 1 / 3),
                (["--confidence", "0.999999999999999999999999999999"], 0,
                 lambda document: document["now"]["power"] < 0.2),
                (["--effect", "1e-5000000"], 2, "from 1e-1000 to 1e1000"),
                (["--effect", "1" * 101], 2, "at most 100 characters"),
                (["--cost-per-task", "1e308"], 2, "beyond the largest number"),
                (["--budget", "1e400"], 2, "the budget, 1e+400 cost units"),
                (["--max-tasks", "10000000000"], 2, "2..1000000000 tasks")):
            with self.subTest(arguments=arguments):
                run = run_cli(["plan", "--summary"] + arguments)
                self.assertEqual(run.status, status, run.stderr)
                self.assertNotIn("Traceback", run.stderr)
                if callable(check):
                    self.assertTrue(check(run.document), run.document)
                elif check is not None:
                    self.assertIn(check, run.document["errors"][0]["message"])

    def test_a_gate_below_every_possible_difference(self):
        run = run_cli(["plan", "--summary", "--gate=-1"])
        self.assertEqual(run.status, 0, run.stderr)
        self.assertIsNone(run.document["now"]["false_pass_rate"])
        self.assertIn("false passes none possible", run.stderr)
        self.assertIn("gate (-1) lies below minus the baseline's success rate",
                      " ".join(run.document["notes"]))
        self.assertNotIn("an effect of -1", run.stderr)
        # The effect, not the gate, is what an effect's message names.
        run = run_cli(["plan", "--gate=-1", "--effect=-0.9"])
        self.assertEqual(run.status, 2)
        self.assertIn("an effect of -0.9 would put", run.document["errors"][0]["message"])

    def test_costs_at_the_doubles_limit(self):
        # The gate takes cost_units up to the largest double and averages them exactly; the
        # plan, whose design costs would pass that limit, says so (exit 2).
        results = load_example("benchmark_results_pass.json")
        values = [1.7e308, 1.7976931348623157e308, 1e308, 5e-324]
        records = [record for system in results["systems"] for record in system["records"]]
        for index, record in enumerate(records):
            record["cost_units"] = values[index % 4]
        paths = TempDir(self).package(None, None, results)
        run = run_cli(paths)
        self.assertEqual(run.status, 1, run.stderr)
        for role, system in zip(("baseline", "candidate"), results["systems"]):
            exact = sum((F(record["cost_units"]) for record in system["records"]), F(0))
            self.assertEqual(run.document[role + "_metrics"]["mean_cost_units"],
                             float(exact / len(system["records"])))
        run = run_cli(["plan"] + paths)
        self.assertEqual(run.status, 2, run.stderr)
        self.assertEqual(run.document["errors"][0]["code"], "cli.plan")
        self.assertIn("the cost of the benchmark as it is, 3.49815e+309 cost units, lies "
                      "beyond the largest number", run.document["errors"][0]["message"])
        # Costs a design can still state are planned as usual, compared exactly.
        for record in records:
            record["cost_units"] = 1e300
        paths = TempDir(self).package(None, None, results)
        run = run_cli(["plan", "--budget", "1e305"] + paths)
        self.assertEqual(run.status, 0, run.stderr)
        self.assertEqual(run.document["now"]["cost"], 5 * 3 * 2e300)

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
