"""A sequential design on the command line: a CI-like loop from ``init --sequential`` to a
decision, each look's package the batch the decision before it named, judged by the gate with
``--ledger`` until the design closes; the ledger written with the reports, never on a contract
error, never over an input; ``plan --sequential`` proposing a design and writing it into a spec
v5."""

import json
import os
import re
import unittest
from fractions import Fraction

from devtools.sequential_packages import look_package, make_run
from devtools.synthetic import make_package, make_protocol
from proagents_bench.contract.ledger import LEDGER_V1_SHAPE
from proagents_bench.contract.sequential import design_of
from tests.support import ROOT, TempDir, run_cli


def read_json(path):
    with open(path, "rb") as handle:
        return json.loads(handle.read().decode("utf-8"))


class CiLoopTests(unittest.TestCase):
    def test_from_init_to_a_decision_look_by_look(self):
        folder = TempDir(self)
        cases, run = make_run(40, 3, 0.45, 0.85, seed=17)  # the team's tasks and its runs
        cases_path = folder.write_json("cases.json", cases)
        bench = os.path.join(folder.path, "bench")
        started = run_cli(["init", "--sequential", "--cases", cases_path, "--directory", bench,
                           "--effect", "0.18", "--discordance", "0.3", "--looks", "4"])
        self.assertEqual(started.status, 0, started.stdout)
        design = started.document["sequential"]
        self.assertEqual((design["win_share"], design["pool"]), (0.8, 40))
        spec_path = os.path.join(bench, "benchmark_spec.json")
        spec = read_json(spec_path)
        # Before the first look the team sets what is its own: the protocol it runs under,
        # its baseline's id, its gates (the design itself stays as init froze it).
        spec["protocol"] = make_protocol(spec["protocol"]["trial_count"])
        spec["baseline_system_id"] = "baseline"
        spec["gates"].update(min_primary_task_success_rate=0, min_final_state_trial_rate=0,
                             min_side_effect_free_trial_rate=0, min_trial_stability_rate=0,
                             max_slice_task_success_gap=1, max_mean_latency_ms=100000,
                             max_p95_latency_ms=100000, max_mean_cost_units=10,
                             critical_task_min_trial_success_rate=0.6)
        with open(spec_path, "wb") as handle:
            handle.write(json.dumps(spec, indent=2).encode("ascii"))
        ledger = os.path.join(bench, "ledger.json")
        batch = design["first_look"]["tasks"]
        statuses, states = [], []
        for look in range(1, len(design["looks"]) + 1):
            package = look_package(spec, run, look)  # the harness runs the batch named
            named = {record["case_id"] for record in package["systems"][1]["records"]}
            self.assertLessEqual(set(batch), named)
            results = folder.write_json("look%d.json" % look, package)
            decision_path = os.path.join(folder.path, "decision%d.json" % look)
            judged = run_cli(["--spec", spec_path, "--cases", cases_path, "--results", results,
                              "--ledger", ledger, "--output", decision_path, "--markdown",
                              os.path.join(folder.path, "summary%d.md" % look)])
            statuses.append(judged.status)
            sequential = read_json(decision_path)["sequential"]
            states.append(sequential["state"])
            if sequential["state"] != "continue":
                break
            batch = sequential["next_batch"]["new_tasks"]["case_ids"]
        self.assertEqual(states, ["continue", "continue", "pass"])
        self.assertEqual(statuses, [1, 1, 0])  # continue is REVIEW (exit 1); only a PASS is 0
        written = read_json(ledger)
        self.assertEqual(list(LEDGER_V1_SHAPE.iter_errors(written)), [])
        self.assertEqual(([look["state"] for look in written["looks"]], written["closed"]),
                         (states, True))
        again = run_cli(["--spec", spec_path, "--cases", cases_path, "--results",
                         folder.write_json("look4.json", look_package(spec, run, 4)),
                         "--ledger", ledger])
        self.assertEqual([error["code"] for error in again.document["errors"]],
                         ["ledger.closed"])


class InitNextStepsTests(unittest.TestCase):
    def test_the_template_is_checked_without_the_ledger_and_each_look_with_it(self):
        folder = TempDir(self)
        bench = os.path.join(folder.path, "bench")
        cases = os.path.join(ROOT, "examples", "sequential_cases.json")
        started = run_cli(["init", "--sequential", "--cases", cases, "--effect", "0.18",
                           "--looks", "4", "--directory", bench])
        self.assertEqual(started.status, 0, started.stderr)
        first = started.document["sequential"]["first_look"]["tasks"]
        ledger = os.path.join(bench, "ledger.json")
        # the first look's tasks named at the terminal, not only in the JSON document
        self.assertIn("look 1 runs 10 tasks x 3 trials: %s, %s and %s; judge each look "
                      "with --ledger %s" % (", ".join(first[:8]), first[8], first[9], ledger),
                      started.stderr)
        check, look = started.document["next"]
        self.assertNotIn("--ledger", check)
        self.assertTrue(look.endswith("--results LOOK_RESULTS --ledger %s" % ledger), look)
        lines = started.stderr.splitlines()
        at = lines.index("next: " + check)
        self.assertIn("without --ledger: nothing has run in it, so it is not a look",
                      lines[at + 1])
        self.assertEqual(lines[at + 2], "then, each look (a package of every trial of the "
                         "looks before and the new batch): " + look)
        words = check.split()[3:]
        self.assertEqual(run_cli(words).status, 1)  # the template's check: a BLOCK
        refused = run_cli(words + ["--ledger", ledger])  # never a look
        self.assertEqual((refused.status, [error["code"] for error in
                                           refused.document["errors"]]),
                         (2, ["ledger.look_unmeasured"]))
        self.assertFalse(os.path.exists(ledger))


class LedgerOptionTests(unittest.TestCase):
    def setUp(self):
        self.folder = TempDir(self)
        cases, self.run = make_run(40, 3, 0.45, 0.85, seed=17)
        from devtools.sequential_packages import make_design_spec
        self.spec = make_design_spec(cases, [(10, 3), (20, 3), (30, 3), (40, 3)],
                                     win_share="0.8")
        self.arguments = ["--spec", self.folder.write_json("spec.json", self.spec),
                          "--cases", self.folder.write_json("cases.json", cases)]
        self.ledger = os.path.join(self.folder.path, "ledger.json")

    def look(self, number, *more):
        results = self.folder.write_json("look%d.json" % number,
                                         look_package(self.spec, self.run, number))
        return run_cli(self.arguments + ["--results", results, "--ledger", self.ledger] +
                       list(more))

    def test_the_ledger_is_written_only_after_a_decision(self):
        self.assertEqual(self.look(1).status, 1)
        before = read_json(self.ledger)
        skipped = self.look(3)
        self.assertEqual(skipped.status, 2)
        self.assertEqual(skipped.document["errors"][0]["code"], "ledger.look_not_allowed")
        self.assertEqual(read_json(self.ledger), before)
        self.assertEqual(self.look(2).status, 1)
        self.assertEqual(len(read_json(self.ledger)["looks"]), 2)

    def test_the_ledger_is_a_file_of_its_own(self):
        results = self.folder.write_json("look1.json", look_package(self.spec, self.run, 1))
        for ledger, code in ((results, "cli.report_path"), ("", "cli.usage"),
                             ("-", "cli.usage")):
            with self.subTest(ledger=ledger):
                run = run_cli(self.arguments + ["--results", results, "--ledger", ledger])
                self.assertEqual(run.status, 2)
                self.assertEqual(run.document["errors"][0]["code"], code)
        run = self.look(1, "--html", self.ledger)
        self.assertEqual((run.status, run.document["errors"][0]["code"]),
                         (2, "cli.report_path"))
        self.assertFalse(os.path.exists(self.ledger))


class PlanTests(unittest.TestCase):
    def test_plan_proposes_a_design_and_writes_it_into_a_spec_v5(self):
        folder = TempDir(self)
        spec, cases, results = make_package(300, 3, seed=4, baseline_skill=0.6,
                                            candidate_skill=0.7)
        arguments = ["plan", "--spec", folder.write_json("spec.json", spec), "--cases",
                     folder.write_json("cases.json", cases), "--results",
                     folder.write_json("results.json", results)]
        written = os.path.join(folder.path, "spec_v5.json")
        run = run_cli(arguments + ["--sequential", "--write-spec", written])
        self.assertEqual(run.status, 0, run.stdout[:400])
        sequential = run.document["sequential"]
        self.assertEqual(sequential["measured_discordance"]["units"], 300)
        self.assertEqual(sequential["written_spec"], written)
        spec_v5 = read_json(written)
        self.assertEqual(spec_v5["schema_version"], "agent-benchmark-spec-v5")
        self.assertEqual(spec_v5["sequential"], sequential["design"])
        self.assertEqual(spec_v5["protocol"]["trial_count"], sequential["protocol_trial_count"])
        self.assertLess(sequential["expected"]["effect"]["trials"],
                        sequential["worst"]["trials"])
        # the written spec is a valid spec whose design the gate rebuilds
        check = run_cli(["--spec", written, "--cases", os.path.join(folder.path, "cases.json"),
                         "--results", os.path.join(folder.path, "results.json")])
        self.assertIn(check.status, (0, 1))  # the pilot holds the pool: the last look
        self.assertEqual(check.document["sequential"]["look"],
                         len(sequential["design"]["looks"]))
        self.assertEqual(check.document["sequential"]["boundary_sha256"],
                         sequential["boundary_sha256"])
        self.assertIsNotNone(design_of(spec_v5))
        refused = run_cli(arguments + ["--unit", "trial"])
        self.assertEqual(refused.document["errors"][0]["code"], "cli.usage")
        over = run_cli(arguments + ["--sequential", "--write-spec",
                                    os.path.join(folder.path, "spec.json")])
        self.assertEqual(over.document["errors"][0]["code"], "cli.report_path")

    def test_under_a_design_no_fixed_plan_is_made_against_a_gate_the_design_replaces(self):
        # the shipped design's spec keeps its trial-level gate at -1 (no condition): a fixed
        # plan against it recommended 3 tasks x 2 trials at "power 0.88"
        examples = os.path.join(ROOT, "examples")
        files = [item for kind, name in (("--spec", "sequential_spec.json"),
                                         ("--cases", "sequential_cases.json"),
                                         ("--results", "sequential_look3.json"))
                 for item in (kind, os.path.join(examples, name))]
        spec = read_json(os.path.join(examples, "sequential_spec.json"))
        proposed = run_cli(["plan", "--sequential", "--effect", "0.4", "--looks", "4",
                            "--summary"] + files)
        own = run_cli(["plan", "--summary"] + files)  # the spec's own design
        for run, is_proposed in ((proposed, True), (own, False)):
            with self.subTest(proposed=is_proposed):
                self.assertEqual(run.status, 0, run.stdout[:400])
                document = run.document
                self.assertEqual(document["metric"], "sequential_design")
                for key in ("now", "recommended", "best_within_limits", "with_more_tasks",
                            "model"):
                    self.assertNotIn(key, document)
                self.assertEqual(document["measured"]["tasks"], 30)
                found = document["sequential"]
                self.assertEqual((found["proposed"], found["replaces"]),
                                 (is_proposed, "min_paired_delta_ci_low"))
                lines = run.stderr.splitlines()
                self.assertFalse([line for line in lines
                                  if line.startswith(("recommended:", "now:"))], lines)
                self.assertIn("decides, at the task level (its boundary in place of "
                              "min_paired_delta_ci_low): the fixed plan of the trial-level "
                              "gate is not made", lines[0])
                self.assertTrue(lines[1].startswith("measured: 30 tasks x 3 trials"))
                self.assertTrue(lines[2].startswith("sequential design (truncated SPRT"))
        # the proposal asked for is the spec's own design but for its pool's order: the same
        # costs; the spec's own is costed as the gate rebuilds it
        first, second = proposed.document["sequential"], own.document["sequential"]
        for key in ("expected", "worst", "fixed", "win_share", "boundary_sha256"):
            self.assertEqual(first[key], second[key], key)
        self.assertEqual(second["design"], spec["sequential"])
        self.assertIn("the spec's design is costed as written", second["notes"][-1])

    def test_a_gate_of_the_other_level_the_design_leaves_is_said(self):
        folder = TempDir(self)
        spec, cases, results = make_package(300, 3, seed=4, baseline_skill=0.6,
                                            candidate_skill=0.7)
        spec["schema_version"] = "agent-benchmark-spec-v4"
        spec["bootstrap"].update(unit="task", lower_bound="strict")
        spec["gates"]["min_trial_delta_ci_low"] = 0.0
        run = run_cli(["plan", "--sequential", "--spec", folder.write_json("spec.json", spec),
                       "--cases", folder.write_json("cases.json", cases), "--results",
                       folder.write_json("results.json", results)])
        self.assertEqual(run.status, 0, run.stdout[:400])
        self.assertIn("the spec's min_trial_delta_ci_low (0) stays a condition of a PASS "
                      "beside the boundary", run.document["sequential"]["notes"][-1])

    def test_plan_costs_the_design_by_task_and_trial_and_holds_it_to_the_budget(self):
        examples = os.path.join(ROOT, "examples")
        arguments = ["plan", "--sequential", "--effect", "0.4", "--looks", "4",
                     "--cost-per-task", "2", "--budget", "50"] + [
            item for kind, name in (("--spec", "sequential_spec.json"),
                                    ("--cases", "sequential_cases.json"),
                                    ("--results", "sequential_look3.json"))
            for item in (kind, os.path.join(examples, name))]
        run = run_cli(arguments)
        self.assertEqual(run.status, 0, run.stdout[:400])
        measured, sequential = run.document["measured"], run.document["sequential"]
        per_trial = sum(Fraction(str(value))
                        for value in measured["cost_per_trial"].values())
        for row in [sequential["worst"], sequential["fixed"]] + list(
                sequential["expected"].values()):
            with self.subTest(row=row):
                self.assertAlmostEqual(row["cost"], float(
                    2 * Fraction(row["tasks"]) + Fraction(row["trials"]) * per_trial), 9)
        self.assertEqual((sequential["worst"]["tasks"], sequential["worst"]["trials"]),
                         (40, 120))
        self.assertIn("the worst case costs 84.9607, above the budget 50", sequential["notes"][-1])
        within = run_cli([item if item != "50" else "100" for item in arguments])
        self.assertFalse([note for note in within.document["sequential"]["notes"]
                          if "budget" in note])

    def test_the_fixed_plans_limits_and_costs_hold_under_sequential_too(self):
        # Each was once taken silently (or overflowed, exit 3) by plan --sequential.
        for arguments, message in (
                (["--confidence", "0"], "the confidence lies strictly between 0 and 1"),
                (["--confidence", "-1"], "the confidence lies strictly between 0 and 1"),
                (["--confidence", "1e308"], "the confidence lies strictly between 0 and 1"),
                (["--gate", "1e308"], "the gate lies in -1..1"),
                (["--gate", "-1.5"], "the gate lies in -1..1"),
                (["--budget", "0"], "the budget is above 0"),
                (["--budget", "-1"], "the budget is above 0"),
                (["--cost-per-task", "-1"], "the cost per task at least 0"),
                (["--cost-per-task", "1e308"], "beyond the largest number"),
                (["--max-tasks", str(10 ** 30)], "2..1000000000 tasks"),
                (["--max-tasks", "1"], "2..1000000000 tasks"),
                (["--max-trials", str(10 ** 30)], "and 2..100 trials")):
            with self.subTest(arguments=arguments):
                run = run_cli(["plan", "--sequential", "--format", "json"] + arguments)
                self.assertEqual(run.status, 2, run.stderr)
                self.assertEqual(run.document["errors"][0]["code"], "cli.plan")
                self.assertIn(message, run.document["errors"][0]["message"])


class DocsTests(unittest.TestCase):
    def test_the_docs_show_exactly_what_plan_sequential_prints(self):
        with open(os.path.join(ROOT, "docs", "statistics.md"), "rb") as handle:
            text = handle.read().decode("utf-8")
        command = ("python3 -B run_benchmark.py plan --spec examples/sequential_spec.json "
                   "--cases examples/sequential_cases.json --results "
                   "examples/sequential_look3.json --sequential --effect 0.4 --looks 4 "
                   "--write-spec spec_v5.json --summary")
        after = text.split("```sh\n%s\n```\n" % command, 1)[1]
        shown = re.search(r"^```\n(.*?)^```", after, re.S | re.M).group(1)
        words = [os.path.join(ROOT, word) if word.startswith("examples/") else word
                 for word in command.split()[3:]]
        words[words.index("spec_v5.json")] = os.path.join(TempDir(self).path, "spec_v5.json")
        run = run_cli(words)
        self.assertEqual(run.status, 0, run.stdout[:400])
        self.assertEqual(run.stderr.splitlines(), shown.splitlines())

    def test_a_batch_of_more_runs_imported_as_several_logs_is_the_next_look(self):
        # docs/importing.md, "The looks of a sequential design": each look's package the
        # import of every batch's log so far; the ledger finds the earlier trials unchanged
        with open(os.path.join(ROOT, "docs", "importing.md"), "rb") as handle:
            text = handle.read().decode("utf-8")
        section = text.split("### The looks of a sequential design", 1)[1]
        block = re.search(r"^```sh\n(.*?)^```", section, re.S | re.M).group(1)
        folder = TempDir(self).path
        documents = []
        for line in block.splitlines():
            words = line.split(";")[0].split()[3:]
            words = [os.path.join(ROOT, word) if word.startswith("tests/") else
                     os.path.join(folder, word) if word.endswith(".json") else word
                     for word in words]
            gate = "--ledger" in words
            decision = os.path.join(folder, "decision%d.json" % (len(documents) + 1))
            run = run_cli(words + (["--output", decision] if gate else []))
            self.assertEqual(run.status, 1 if gate else 0, run.stderr[-2000:])
            if gate:
                documents.append(read_json(decision))
        first, second = documents
        self.assertEqual(first["sequential"]["state"], "continue")
        self.assertIn("Next batch, look 2: trial 3 of tasks 1-5 of the frozen pool",
                      first["primary_reason"])
        self.assertIn("`Next batch, look 2: trial 3 of tasks 1-5 of the frozen pool`", section)
        self.assertEqual((second["action"], second["sequential"]["state"],
                          second["sequential"]["decided_at"]), ("REVIEW", "pass", 7))
        self.assertEqual(second["ledger"]["looks_before"], 1)
        self.assertTrue(read_json(os.path.join(folder, "seq-ledger.json"))["closed"])


if __name__ == "__main__":
    unittest.main()
