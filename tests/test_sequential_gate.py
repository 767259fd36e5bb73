"""A spec v5's sequential design at the gate: the contract of the design (its rules, the
frozen pool, a package that is one of its looks), the path of discordant units in frozen
order, and the decision at each look: continue (REVIEW, exit 1, the next batch named
exactly), PASS only where the boundary is crossed and every other gate holds, futility, the
last look, a BLOCK; v5 with ``sequential`` null decides as v4."""

import copy
import json
import os
import unittest

from devtools.sequential_packages import make_design_spec, make_run, test_ids
from proagents_bench import pipeline
from proagents_bench.contract.sequential import design_of, pool_order
from proagents_bench.errors import ContractErrors
from proagents_bench.evaluation.decision import decide
from proagents_bench.evaluation.looks import Looks
from proagents_bench.evaluation.sequential import POSITIVE_MARGIN, TRIAL_NULL
from proagents_bench.stats.sequential_looks import closing_boundaries
from tests.sequential_support import Design, controlled_run, even, inputs, strong, weak
from tests.support import ROOT, TempDir, load_example


def codes_of(callable_, *arguments):
    try:
        callable_(*arguments)
    except ContractErrors as failure:
        return [(error.code, error.file) for error in failure.errors], failure.errors
    raise AssertionError("no contract error")


class DesignContractTests(unittest.TestCase):
    """The spec v5 rules of a design, each refused with its code."""

    def setUp(self):
        self.cases, self.run = make_run(60, 3, 0.6, 0.7)

    def refused(self, spec, results=None):
        package = results if results is not None else Design(
            TempDir(self).path, self.cases, self.run).package(1)
        found, errors = codes_of(pipeline.evaluate, inputs(spec, self.cases, package))
        return [code for code, _file in found], errors

    def spec(self, looks=((10, 3), (20, 3)), **design):
        return make_design_spec(self.cases, list(looks), **design)

    def test_looks_that_do_not_grow_are_refused(self):
        for looks, unit in (([(20, 3), (10, 3)], "task"), ([(10, 3), (10, 3)], "task"),
                            ([(10, 2), (20, 3)], "task"), ([(10, 3), (20, 2)], "trial")):
            with self.subTest(looks=looks, unit=unit):
                spec = self.spec()
                spec["sequential"]["unit"] = unit
                spec["sequential"]["looks"] = [{"tasks": tasks, "trials": trials}
                                               for tasks, trials in looks]
                codes, errors = self.refused(spec)
                self.assertIn("sequential.looks", codes)
                self.assertTrue(all(error.file == "spec.json" for error in errors))

    def test_a_design_that_cannot_be_built_is_refused_with_the_reason(self):
        for change, where in (({"win_share": 0.5}, "win_share"), ({"power": 0.5}, "power"),
                              ({"max_discordant": 6}, "max_discordant")):
            with self.subTest(change=change):
                spec = self.spec()
                spec["sequential"].update(change)
                codes, errors = self.refused(spec)
                self.assertEqual(codes, ["sequential.design"])
                self.assertEqual(errors[0].path[-1], where)
        spec = self.spec()
        spec["sequential"]["max_discordant"] = 6
        _codes, errors = self.refused(spec)
        self.assertIn("cannot reach power 4/5", errors[0].message)
        self.assertIn("raise max_discordant", errors[0].message)
        spec = self.spec()
        spec["gates"]["min_paired_delta_ci_low"] = -1
        self.assertEqual(self.refused(spec)[0], ["sequential.design"])

    def test_a_pool_changed_after_the_design_is_refused(self):
        spec = self.spec()
        cases = copy.deepcopy(self.cases)
        tests = [case for case in cases["cases"] if case["split"] == "test"]
        tests[0]["id"] = "renamed"
        found, _errors = codes_of(pipeline.evaluate, inputs(spec, cases, self.run))
        self.assertEqual(found, [("sequential.pool", "cases.json")])
        spec = self.spec(looks=[(10, 3), (61, 3)])
        found, _errors = codes_of(pipeline.evaluate, inputs(spec, self.cases, self.run))
        self.assertEqual(found, [("sequential.pool", "cases.json")])

    def test_a_package_that_is_no_look_of_the_design_is_refused(self):
        spec = self.spec()
        design = Design(TempDir(self).path, self.cases, self.run, looks=[(10, 3), (20, 3)])
        whole = design.package(2)
        pool = pool_order(test_ids(self.cases), spec["sequential"]["order_seed"])
        # 15 tasks: no look; the right count, not the first of the pool; another trial count
        fifteen = copy.deepcopy(whole)
        for system in fifteen["systems"]:
            system["records"] = [record for record in system["records"]
                                 if record["case_id"] in pool[:15]]
        shifted = copy.deepcopy(self.run)
        for system in shifted["systems"]:
            system["records"] = [record for record in system["records"]
                                 if record["case_id"] in pool[5:15]]
        fewer = copy.deepcopy(design.package(1))
        for system in fewer["systems"]:
            system["protocol"]["trial_count"] = 2
            system["records"] = [record for record in system["records"]
                                 if record["trial_id"] <= 2]
        for name, package, words in (("15 tasks", fifteen, "name 15 test tasks"),
                                     ("not the first", shifted, "not the first 10"),
                                     ("2 trials", fewer, "ran 2 trials")):
            with self.subTest(name):
                codes, errors = self.refused(spec, package)
                self.assertEqual(codes, ["sequential.look"])
                self.assertIn(words, errors[0].message)
                self.assertIn("1: 10 x 3; 2: 20 x 3", errors[0].message)

    def test_the_baseline_under_another_trial_count_is_incomparable(self):
        design = Design(TempDir(self).path, self.cases, self.run, looks=[(10, 2), (20, 3)],
                        unit="trial")
        package = design.package(1)
        baseline = package["systems"][0]
        baseline["protocol"]["trial_count"] = 3
        baseline["records"] = [record for record in self.run["systems"][0]["records"]
                               if record["case_id"] in {r["case_id"] for r in
                                                        baseline["records"]}]
        evaluation = design.judge(package=package)
        self.assertEqual(evaluation.action, "INCOMPARABLE")
        self.assertIn("baseline.trial_count: expected=2, actual=3",
                      evaluation.document["primary_reason"])
        self.assertEqual(evaluation.document["sequential"]["state"], "incomparable")
        self.assertIsNone(evaluation.ledger)  # an INCOMPARABLE look is not recorded

    def test_a_v5_spec_without_a_design_decides_as_v4(self):
        spec = load_example("benchmark_spec_v4_trial.json")
        cases, results = load_example("benchmark_cases.json"), load_example(
            "benchmark_results_pass.json")
        v4 = pipeline.evaluate(inputs(spec, cases, results)).document
        spec["schema_version"] = "agent-benchmark-spec-v5"
        spec["sequential"] = None
        v5 = pipeline.evaluate(inputs(spec, cases, results)).document
        self.assertIsNone(v5.pop("sequential"))
        for document in (v4, v5):
            document.pop("evidence_fingerprint")
            document.pop("inputs")
        self.assertEqual(v4, v5)
        del spec["sequential"]
        found, _errors = codes_of(pipeline.evaluate, inputs(spec, cases, results))
        self.assertEqual(found, [("schema.missing_key", "spec.json")])


class PathTests(unittest.TestCase):
    """The discordant units in the design's frozen order."""

    def test_task_units_enter_in_pool_order(self):
        # the candidate wins the tasks at positions 1, 3, 5 ...; loses those at 2, 6, 10 ...
        def outcome(role, position, trial):
            if position % 4 == 2:
                return role == "baseline"
            return role == "candidate" or position % 2 == 0
        cases, run = controlled_run(40, 3, outcome)
        design = Design(TempDir(self).path, cases, run, looks=[(20, 3), (40, 3)])
        document = design.judge(2, ledger=False).document["sequential"]
        expected = [1 if position % 2 else 0 for position in range(40)
                    if position % 2 or position % 4 == 2]
        self.assertEqual(document["discordant"], len(expected))
        self.assertEqual(document["wins"], sum(expected))
        self.assertEqual([(point["units"], point["discordant"], point["wins"])
                          for point in document["path"]],
                         [(20, 15, 10), (40, 30, 20)])

    def test_trial_units_add_the_old_tasks_new_trials_first(self):
        # each (task, trial) passes or not by a fixed pseudo-random rule per system
        def outcome(role, position, trial):
            return (position * 7 + trial * 3 + (5 if role == "candidate" else 0)) % 4 < 2
        cases, run = controlled_run(20, 3, outcome)
        looks = [(10, 2), (10, 3), (20, 3)]
        design = Design(TempDir(self).path, cases, run, looks=looks, unit="trial",
                        win_share="0.7", futility=False, max_discordant=200)
        pool = pool_order(test_ids(cases), design.spec["sequential"]["order_seed"])
        expected, ends, before = [], [], (0, 0)
        for tasks, trials in looks:  # the documented order, enumerated independently
            units = [(position, trial) for position in range(before[0])
                     for trial in range(before[1] + 1, trials + 1)]
            units += [(position, trial) for position in range(before[0], tasks)
                      for trial in range(1, trials + 1)]
            for position, trial in units:
                base, cand = outcome("baseline", position, trial), outcome(
                    "candidate", position, trial)
                if base != cand:
                    expected.append(1 if cand else 0)
            ends.append(len(expected))
            before = (tasks, trials)
        evaluation = design.judge(3, ledger=False)
        self.assertEqual(evaluation.looks.judgment.path.outcomes, expected)
        self.assertEqual([point["discordant"] for point in
                          evaluation.document["sequential"]["path"]], ends)
        self.assertIn(TRIAL_NULL, evaluation.document["limitations"])
        first = design.judge(1, ledger=False).document["sequential"]
        self.assertEqual(first["next_batch"], {
            "look": 2, "tasks": 10, "trials": 3, "new_tasks": None,
            "new_trials": {"first": 3, "last": 3, "tasks": 10}, "units": 10})
        second = design.judge(2, ledger=False).document["sequential"]
        self.assertEqual(second["next_batch"]["new_tasks"],
                         {"first": 11, "last": 20, "case_ids": pool[10:20]})
        self.assertEqual(second["next_batch"]["units"], 30)

    def test_a_baseline_trial_of_unknown_status_counts_as_a_success(self):
        cases, run = controlled_run(10, 2, lambda role, position, trial: role == "candidate")
        design = Design(TempDir(self).path, cases, run, looks=[(10, 2)], unit="trial",
                        win_share="0.9")
        package = design.package(1)
        for record in package["systems"][0]["records"]:
            if record["trial_id"] == 1:
                record["status"] = "unknown"
        document = design.judge(package=package, ledger=False).document["sequential"]
        self.assertEqual(document["path"], [{"look": 1, "units": 20, "discordant": 10,
                                             "wins": 10}])


class DecisionTests(unittest.TestCase):
    """The decision at each look."""

    def loop(self, outcome, looks=None, **design):
        cases, run = controlled_run(100, 3, outcome)
        self.design = Design(TempDir(self).path, cases, run, **(
            dict(design, looks=looks) if looks else design))
        found = []
        for look in range(1, len(self.design.spec["sequential"]["looks"]) + 1):
            evaluation = self.design.judge(look)
            found.append(evaluation)
            if evaluation.document["sequential"]["closed"]:
                break
        return found

    def test_the_design_continues_with_review_and_names_the_next_batch(self):
        first = self.loop(strong)[0]
        document = first.document
        self.assertEqual(first.action, "REVIEW")
        sequential = document["sequential"]
        self.assertEqual((sequential["state"], sequential["closed"]), ("continue", False))
        pool = pool_order(test_ids(self.design.cases),
                          self.design.spec["sequential"]["order_seed"])
        self.assertEqual(sequential["next_batch"], {
            "look": 2, "tasks": 20, "trials": 3, "units": 10, "new_trials": None,
            "new_tasks": {"first": 11, "last": 20, "case_ids": pool[10:20]}})
        self.assertTrue(document["primary_reason"].startswith(
            "sequential design continues after look 1 of 10: 5 discordant tasks, 5 won by "
            "the candidate and 0 by the baseline; no pass is possible yet (the earliest is "
            "11 wins of 11 discordant tasks)"))
        self.assertIn("Next batch, look 2: tasks 11-20 of the frozen pool (%s and %s), each "
                      "with trials 1-3, for both systems" % (", ".join(pool[10:19]), pool[19]),
                      document["primary_reason"])
        self.assertIn("sequential_continue", [finding["code"] for finding in
                                              document["findings"]])

    def test_a_pass_where_the_boundary_is_crossed(self):
        looks = self.loop(strong)
        self.assertEqual([evaluation.action for evaluation in looks],
                         ["REVIEW", "REVIEW", "PASS"])
        sequential = looks[-1].document["sequential"]
        self.assertEqual((sequential["state"], sequential["closed"], sequential["decided_at"],
                          sequential["wins"], sequential["next_batch"]),
                         ("pass", True, 11, 11, None))
        self.assertLessEqual(sequential["exact_false_pass"], sequential["alpha"])
        self.assertEqual(looks[-1].document["primary_reason"],
                         "sequential design passed at look 3 of 10: at the 11th discordant "
                         "task the candidate had won 11 (the pass boundary there is 11); the "
                         "design's exact false pass is 2.4843%, at most 2.5% at any stopping "
                         "it allows")

    def test_the_boundary_crossed_with_a_soft_gate_failed_is_review(self):
        cases, run = controlled_run(100, 3, strong)
        design = Design(TempDir(self).path, cases, run)
        design.spec["gates"]["max_mean_latency_ms"] = 50
        evaluations = [design.judge(look) for look in (1, 2, 3)]
        self.assertEqual(evaluations[0].document["sequential"]["state"], "continue")
        self.assertIn("soft gate max_mean_latency_ms failed",
                      evaluations[0].document["reasons"][1])
        last = evaluations[-1]
        self.assertEqual((last.action, last.document["sequential"]["state"]),
                         ("REVIEW", "pass"))
        self.assertTrue(last.document["primary_reason"].startswith(
            "sequential design: the pass boundary was crossed at look 3 of 10"))
        self.assertIn("max_mean_latency_ms", last.document["reasons"][1])

    def test_futility_closes_the_design(self):
        looks = self.loop(weak)
        last = looks[-1].document
        self.assertEqual((looks[-1].action, last["sequential"]["state"]),
                         ("REVIEW", "futility"))
        boundary = design_of(self.design.spec).boundary()
        self.assertLessEqual(last["sequential"]["wins"],
                             boundary.futile[last["sequential"]["decided_at"]])
        self.assertIn("stopped for futility", last["primary_reason"])

    def test_the_last_look_undecided_is_exhausted(self):
        looks = self.loop(even, looks=[(10, 3), (20, 3)])
        self.assertEqual(len(looks), 2)
        sequential = looks[-1].document["sequential"]
        self.assertEqual((looks[-1].action, sequential["state"], sequential["discordant"],
                          sequential["wins"]), ("REVIEW", "exhausted", 10, 5))
        closing = closing_boundaries(design_of(self.design.spec).boundary())
        self.assertEqual(sequential["pass_at"], closing[10])
        self.assertIn("reached its last look (look 2 of 2) undecided",
                      looks[-1].document["primary_reason"])

    def test_a_block_closes_the_design(self):
        cases, run = controlled_run(100, 3, strong)
        design = Design(TempDir(self).path, cases, run)
        pool = pool_order(test_ids(cases), design.spec["sequential"]["order_seed"])
        critical = pool[15]
        for case in cases["cases"]:
            if case["id"] == critical:
                case["critical"] = True
        for record in run["systems"][1]["records"]:
            if record["case_id"] == critical:
                record["status"] = "error"
        self.assertEqual(design.judge(1).action, "REVIEW")
        second = design.judge(2)
        self.assertEqual((second.action, second.document["sequential"]["state"]),
                         ("BLOCK", "blocked"))
        self.assertIn("closed at look 2 of 10", second.document["reasons"][-1])

    def test_the_boundary_replaces_its_levels_interval_gate(self):
        cases, run = controlled_run(100, 3, strong)
        design = Design(TempDir(self).path, cases, run)
        self.assertEqual(Looks(design.spec, cases, 0, None).replaced(),
                         ["min_paired_delta_ci_low"])
        above = make_design_spec(cases, [(10, 3), (20, 3)], margin="0.05")
        self.assertEqual(Looks(above, cases, 0, None).replaced(), [])
        evaluation = Design(TempDir(self).path, cases, run, looks=[(10, 3), (20, 3)],
                            margin="0.05").judge(1, ledger=False)
        self.assertIn(POSITIVE_MARGIN, evaluation.document["limitations"])
        # the gate left out: no finding of it even where it fails
        fixed = pipeline.check(inputs(design.spec, cases, design.package(1)))
        evaluation = fixed.decide()
        self.assertNotIn("min_paired_delta_ci_low",
                         [finding["code"] for finding in evaluation.document["findings"]])

    def test_a_part_of_the_test_cases_is_decided_under_a_fixed_design_only(self):
        cases, run = controlled_run(100, 3, strong)
        design = Design(TempDir(self).path, cases, run)
        checked = pipeline.check(inputs(design.spec, cases, design.package(1)))
        with self.assertRaises(ValueError):
            checked.decide(test_ids={case["id"] for case in checked.test_cases[:3]})

    def test_health_pools_only_looks_that_hold_every_test_case(self):
        from tests.support import run_cli
        cases, run = controlled_run(40, 3, strong)
        folder = TempDir(self)
        design = Design(folder.path, cases, run, looks=[(10, 3), (40, 3)])
        arguments = ["health", "--spec", folder.write_json("spec.json", design.spec),
                     "--cases", folder.write_json("cases.json", cases), "--results"]
        first = folder.write_json("look1.json", design.package(1))
        last = folder.write_json("look2.json", design.package(2))
        refused = run_cli(arguments + [first, last, "--format", "json"])
        self.assertEqual(refused.status, 2)
        self.assertEqual([error["code"] for error in refused.document["errors"]],
                         ["health.partial_look"])
        self.assertEqual(run_cli(arguments + [last, "--format", "json"]).status, 0)

    def test_the_shipped_example_is_the_generated_one(self):
        from devtools.sequential_packages import example_files
        for name, data in sorted(example_files().items()):
            with self.subTest(name=name):
                with open(os.path.join(ROOT, "examples", name), "rb") as handle:
                    self.assertEqual(handle.read(), data)

    def test_exit_codes_stay_the_contracts(self):
        from tests.support import run_cli
        cases, run = controlled_run(100, 3, strong)
        folder = TempDir(self)
        design = Design(folder.path, cases, run)
        arguments = ["--spec", folder.write_json("spec.json", design.spec),
                     "--cases", folder.write_json("cases.json", cases)]
        looks = [["--results", folder.write_json("look%d.json" % look, design.package(look))]
                 for look in (1, 2, 3)]
        ledger = ["--ledger", os.path.join(folder.path, "ledger.json")]
        statuses = [run_cli(arguments + look + ledger).status for look in looks]
        self.assertEqual(statuses, [1, 1, 0])
        # the passing look without its ledger: REVIEW at most (exit 1)
        self.assertEqual(run_cli(arguments + looks[2]).status, 1)


if __name__ == "__main__":
    unittest.main()
