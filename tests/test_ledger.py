"""The ledger of looks (--ledger): each refusal of a package that breaks a sequential
design's chain has its code and names the look, task, role and trial; the ledger is written
only after a decision and never for an INCOMPARABLE look; a fixed design's candidate judged
again is named with its looks counted and its false pass (exactly for nested looks, best of
k for fresh runs, Bonferroni otherwise)."""

import copy
import hashlib
import json
import os
import unittest
from fractions import Fraction

from proagents_bench.contract.ledger import LEDGER_V1_SHAPE
from proagents_bench.errors import ContractErrors
from proagents_bench.evaluation.ledger import (batch_sha256, chain_sha256, head_sha256,
                                               record_digest)
from proagents_bench.jsonio.canonical_reference import reference_text
from proagents_bench.stats.sequential_fixed import repeated_look_false_pass
from proagents_bench import ledgered, pipeline
from tests.sequential_support import Design, controlled_run, even, inputs, strong
from tests.support import TempDir, load_example, run_cli

ODD = 1  # a pool position whose task is discordant in the ``strong`` run


def read(path):
    with open(path, "rb") as handle:
        return handle.read()


def refusal(test, design, **judged):
    before = read(design.ledger_path)
    with test.assertRaises(ContractErrors) as raised:
        design.judge(**judged)
    test.assertEqual(read(design.ledger_path), before)  # never written
    return raised.exception.errors


class SequentialLedgerTests(unittest.TestCase):
    def setUp(self):
        cases, run = controlled_run(100, 3, even)
        self.design = Design(TempDir(self).path, cases, run)
        self.first = self.design.judge(1)
        self.second = self.design.judge(2)

    def test_each_look_is_recorded_with_its_trials_digests(self):
        ledger = self.design.ledger()
        self.assertEqual(list(LEDGER_V1_SHAPE.iter_errors(ledger)), [])
        self.assertEqual([look["look"] for look in ledger["looks"]], [1, 2])
        self.assertEqual((ledger["kind"], ledger["closed"]), ("sequential", False))
        second = ledger["looks"][1]
        self.assertEqual((second["tasks"], second["units"], second["state"]),
                         (20, 20, "continue"))
        self.assertEqual(second["evidence_fingerprint"],
                         self.second.document["evidence_fingerprint"])
        entry = second["records"][0]
        self.assertEqual((entry["role"], entry["first_trial_id"], len(entry["sha256"])),
                         ("baseline", 1, 3))
        record = next(record for record in self.design.package(2)["systems"][0]["records"]
                      if record["case_id"] == entry["case_id"] and record["trial_id"] == 2)
        self.assertEqual(entry["sha256"][1], record_digest(record))
        without = dict(record)
        del without["trial_id"]
        self.assertEqual(entry["sha256"][1], hashlib.sha256(
            reference_text(without).encode("utf-8")).hexdigest())
        self.assertEqual(len(second["records"]), 20)  # the batch only: 10 tasks x 2 roles
        self.assertEqual(self.second.document["ledger"], {
            "kind": "sequential", "looks_before": 1, "recorded": True, "repeated_look": None})
        self.assertEqual(self.second.document["inputs"]["ledger"]["file"], "ledger.json")

    def test_the_last_look_judged_again_unchanged_adds_nothing(self):
        again = self.design.judge(2)
        self.assertIsNone(again.ledger)
        self.assertEqual(again.document["ledger"]["recorded"], False)
        self.assertEqual(again.action, self.second.action)

    def test_a_changed_trial_is_refused(self):
        package = self.design.package(3)
        package["systems"][1]["records"][0]["latency_ms"] = 101
        errors = refusal(self, self.design, package=package)
        self.assertEqual([error.code for error in errors], ["ledger.trial_changed"])
        self.assertIn("recorded by look 1", errors[0].message)
        self.assertIn("candidate, trial 1", errors[0].message)
        self.assertEqual(errors[0].file, "ledger.json")
        self.assertIsInstance(errors[0].line, int)

    def test_a_trial_dropped_between_looks_is_refused(self):
        # look 3 without one trial of look 1: nothing is dropped to make a denominator
        # smaller, with or without a ledger
        package = self.design.package(3)
        dropped = package["systems"][1]["records"].pop(0)
        errors = refusal(self, self.design, package=package)
        self.assertEqual([error.code for error in errors], ["coverage.missing"])
        self.assertIn("%s trial %d" % (json.dumps(dropped["case_id"]), dropped["trial_id"]),
                      errors[0].message)
        # the same trial dropped and its place taken by a rerun: the ledger names it
        package = self.design.package(3)
        records = package["systems"][1]["records"]
        rerun = dict(records[0], latency_ms=records[0]["latency_ms"] + 1)
        records[0] = rerun
        errors = refusal(self, self.design, package=package)
        self.assertEqual([error.code for error in errors], ["ledger.trial_changed"])
        self.assertIn("task %s, candidate, trial %d (recorded by look 1)" % (
            json.dumps(rerun["case_id"]), rerun["trial_id"]), errors[0].message)

    def test_a_reordered_trial_is_refused(self):
        run = copy.deepcopy(self.design.run)
        case_id = run["systems"][0]["records"][0]["case_id"]
        for record in run["systems"][0]["records"]:  # two distinct trials of one task
            if record["case_id"] == case_id and record["trial_id"] in (1, 2):
                record["latency_ms"] = 250 if record["trial_id"] == 1 else 300
        fresh = Design(TempDir(self).path, self.design.cases, run)
        fresh.judge(1)
        swapped = fresh.package(2)
        for record in swapped["systems"][0]["records"]:
            if record["case_id"] == case_id and record["trial_id"] in (1, 2):
                record["trial_id"] = 3 - record["trial_id"]
        errors = refusal(self, fresh, package=swapped)
        self.assertEqual([error.code for error in errors], ["ledger.trial_reordered"])
        self.assertIn("baseline, trial 1 (recorded by look 1) is now the package's trial 2",
                      errors[0].message)

    def test_a_dropped_look_is_refused(self):
        errors = refusal(self, self.design, look=1)
        self.assertEqual([error.code for error in errors], ["ledger.trial_dropped"])
        self.assertIn("already holds look 2", errors[0].message)
        # the first missing trials named as a whole range, never a cut-off "trials 1-"
        first = self.design.ledger()["looks"][1]["records"][0]
        self.assertTrue(errors[0].message.endswith(
            "its trials are missing, the first of them task %s's baseline trials 1 to 3" %
            json.dumps(first["case_id"])), errors[0].message)

    def test_a_skipped_look_is_refused(self):
        errors = refusal(self, self.design, look=4)
        self.assertEqual([error.code for error in errors], ["ledger.look_not_allowed"])
        self.assertIn("the next is look 3 of 10: the first 30 tasks", errors[0].message)
        fresh = Design(TempDir(self).path, self.design.cases, self.design.run)
        with self.assertRaises(ContractErrors) as raised:
            fresh.judge(2)
        self.assertEqual(raised.exception.errors[0].code, "ledger.look_not_allowed")
        self.assertIn("a new ledger starts at look 1", raised.exception.errors[0].message)

    def test_a_design_changed_after_the_first_look_is_refused(self):
        for part, change in (("the design", ("sequential", "max_discordant", 90)),
                             ("the spec", ("claim", None, "another claim"))):
            with self.subTest(part):
                spec = copy.deepcopy(self.design.spec)
                key, inner, value = change
                if inner is None:
                    spec[key] = value
                else:
                    spec[key][inner] = value
                errors = refusal(self, self.design, look=3, spec=spec)
                self.assertEqual([error.code for error in errors], ["ledger.design_changed"])
                self.assertEqual(errors[0].file, "spec.json")

    def test_another_run_is_refused(self):
        package = self.design.package(3)
        package["systems"][1]["system_id"] = "another-candidate"
        errors = refusal(self, self.design, package=package)
        self.assertEqual([error.code for error in errors], ["ledger.other_run"])

    def test_a_ledger_edited_by_hand_is_refused(self):
        ledger = self.design.ledger()
        ledger["looks"][0]["records"][0]["sha256"][0] = "0" * 64
        self.design.write_ledger(ledger)
        errors = refusal(self, self.design, look=3)
        self.assertEqual([error.code for error in errors], ["ledger.damaged"])

    def test_a_ledger_that_is_no_ledger_is_a_contract_error(self):
        self.design.write_ledger({"schema_version": "proagents-bench-ledger-v1"})
        errors = refusal(self, self.design, look=3)
        self.assertEqual({error.code for error in errors}, {"schema.missing_key"})
        self.design.write_ledger(load_example("benchmark_spec.json"))
        errors = refusal(self, self.design, look=3)
        self.assertEqual([error.code for error in errors], ["version.unsupported"])


def unmeasured(package, keep=None):
    """``package`` with every trial not in ``keep`` (case id, role, trial id) of status
    unknown, as init's results template writes them: nothing measured."""
    for system in package["systems"]:
        for record in system["records"]:
            if (record["case_id"], system["role"], record["trial_id"]) not in (keep or ()):
                record["status"] = "unknown"
    return package


class UnmeasuredLookTests(unittest.TestCase):
    """A package that carries no outcome (every trial it adds unknown) is not a look."""

    def setUp(self):
        cases, run = controlled_run(100, 3, strong)
        self.design = Design(TempDir(self).path, cases, run)

    def test_a_template_is_refused_and_the_first_look_then_recorded(self):
        with self.assertRaises(ContractErrors) as raised:
            self.design.judge(package=unmeasured(self.design.package(1)))
        errors = raised.exception.errors
        self.assertEqual([error.code for error in errors], ["ledger.look_unmeasured"])
        self.assertIn("the package is look 1 of 10, and all 60 trials it adds, both "
                      "systems', have status \"unknown\"", errors[0].message)
        self.assertEqual(errors[0].file, "results.json")
        self.assertFalse(os.path.exists(self.design.ledger_path))  # nothing recorded
        # without the ledger it is judged as ever (the template's check)
        checked = self.design.judge(package=unmeasured(self.design.package(1)), ledger=False)
        self.assertEqual(checked.document["sequential"]["look"], 1)
        first = self.design.judge(1)  # the real look 1 is look 1
        self.assertEqual((first.action, first.document["sequential"]["state"]),
                         ("REVIEW", "continue"))
        self.assertEqual(len(self.design.ledger()["looks"]), 1)

    def test_a_batch_with_nothing_measured_is_refused_after_measured_looks(self):
        self.design.judge(1)
        package = self.design.package(2)
        batch = {record["case_id"] for record in package["systems"][0]["records"]} - {
            record["case_id"] for record in self.design.package(1)["systems"][0]["records"]}
        earlier = {(record["case_id"], system["role"], record["trial_id"])
                   for system in package["systems"] for record in system["records"]
                   if record["case_id"] not in batch}
        errors = refusal(self, self.design, package=unmeasured(package, earlier))
        self.assertEqual([error.code for error in errors], ["ledger.look_unmeasured"])
        # one trial of the batch measured: the package carries an outcome, and is a look
        one = sorted(batch)[0]
        package = unmeasured(self.design.package(2), earlier | {(one, "baseline", 1)})
        self.assertEqual(self.design.judge(package=package).document["sequential"]["look"], 2)
        self.assertEqual(len(self.design.ledger()["looks"]), 2)


class ClosedLedgerTests(unittest.TestCase):
    def test_no_look_after_the_design_decided(self):
        cases, run = controlled_run(100, 3, strong)
        design = Design(TempDir(self).path, cases, run)
        actions = [design.judge(look).action for look in (1, 2, 3)]
        self.assertEqual(actions, ["REVIEW", "REVIEW", "PASS"])
        self.assertTrue(design.ledger()["closed"])
        self.assertEqual(design.judge(3).action, "PASS")  # the deciding look again: unchanged
        errors = refusal(self, design, look=4)
        self.assertEqual([error.code for error in errors], ["ledger.closed"])
        self.assertIn("decided at look 3 (PASS, state pass)", errors[0].message)


class FixedLedgerTests(unittest.TestCase):
    """A fixed design (v4 here) judged again with --ledger."""

    def setUp(self):
        cases, run = controlled_run(90, 3, strong)
        self.design = Design(TempDir(self).path, cases, run, looks=[(30, 3), (60, 3), (90, 3)])
        self.fixed = copy.deepcopy(self.design.spec)
        self.fixed["schema_version"] = "agent-benchmark-spec-v4"
        del self.fixed["sequential"]

    def judge(self, package):
        """The fixed gate on ``package``, with the cases cut to its test tasks (a fixed
        design's package holds every test task of its cases file)."""
        named = {record["case_id"] for record in package["systems"][0]["records"]}
        cases = copy.deepcopy(self.design.cases)
        cases["cases"] = [case for case in cases["cases"]
                          if case["split"] != "test" or case["id"] in named]
        files = inputs(self.fixed, cases, package)
        evaluation = ledgered.evaluate(files, pipeline.InputFile(
            "ledger", self.design.ledger_path, "ledger.json"))
        if evaluation.ledger is not None:
            with open(self.design.ledger_path, "wb") as handle:
                handle.write(evaluation.ledger)
        return evaluation

    def test_nested_looks_are_counted_with_their_exact_false_pass(self):
        documents = [self.judge(self.design.package(look)).document for look in (1, 2, 3)]
        self.assertEqual([document["action"] for document in documents],
                         ["PASS", "REVIEW", "REVIEW"])
        last = documents[-1]
        repeated = last["ledger"]["repeated_look"]
        self.assertEqual((repeated["looks"], repeated["method"]), (3, "nested_mcnemar"))
        sizes = [15, 30, 45]
        self.assertEqual(repeated["false_pass"], float(repeated_look_false_pass(
            sizes, Fraction(1, 40))))
        self.assertIn("candidate candidate was already judged on a subset of these trials "
                      "(look 1: 30 tasks x 3 trials, PASS; look 2: 60 tasks x 3 trials, "
                      "REVIEW)", last["primary_reason"])
        self.assertIn("15, 30 and 45 discordant tasks", last["primary_reason"])
        self.assertIn("repeated_look", [finding["code"] for finding in last["findings"]])
        self.assertEqual(self.design.ledger()["kind"], "fixed")

    def test_the_same_package_judged_again_is_no_new_look(self):
        first = self.judge(self.design.package(1))
        again = self.judge(self.design.package(1))
        self.assertEqual((first.action, again.action), ("PASS", "PASS"))
        self.assertIsNone(again.ledger)

    def test_a_fresh_rerun_is_best_of_k(self):
        self.judge(self.design.package(1))
        rerun = self.design.package(1)
        for system in rerun["systems"]:
            for record in system["records"]:
                record["latency_ms"] = 99  # the same outcomes, other trials
        document = self.judge(rerun).document
        repeated = document["ledger"]["repeated_look"]
        self.assertEqual((document["action"], repeated["method"]), ("REVIEW", "best_of_k"))
        self.assertAlmostEqual(repeated["false_pass"], 1 - (1 - 0.025) ** 2)
        self.assertIn("the best of 2 independent runs", document["primary_reason"])

    def test_looks_sharing_some_trials_are_bonferroni(self):
        self.judge(self.design.package(2))
        partly = self.design.package(2)
        for record in partly["systems"][1]["records"][:30]:
            record["latency_ms"] = 99
        document = self.judge(partly).document
        repeated = document["ledger"]["repeated_look"]
        self.assertEqual((repeated["method"], repeated["false_pass"]), ("bonferroni", 0.05))

    def test_a_package_with_nothing_measured_is_no_judgment(self):
        # init's template judged with --ledger would otherwise make the real package's
        # PASS a "best of 2" REVIEW
        with self.assertRaises(ContractErrors) as raised:
            self.judge(unmeasured(self.design.package(1)))
        self.assertEqual([error.code for error in raised.exception.errors],
                         ["ledger.look_unmeasured"])
        self.assertIn("all 180 trials of the package, both systems'",
                      raised.exception.errors[0].message)
        self.assertFalse(os.path.exists(self.design.ledger_path))
        document = self.judge(self.design.package(1)).document
        self.assertEqual((document["action"], document["ledger"]["repeated_look"]),
                         ("PASS", None))

    def test_another_candidate_is_not_a_repeated_look(self):
        self.judge(self.design.package(1))
        other = self.design.package(2)
        other["systems"][1]["system_id"] = "another-candidate"
        document = self.judge(other).document
        self.assertEqual(document["action"], "PASS")
        self.assertIsNone(document["ledger"]["repeated_look"])
        self.assertEqual(document["ledger"]["looks_before"], 1)

    def test_a_fixed_ledger_refuses_a_sequential_design(self):
        self.judge(self.design.package(1))
        errors = refusal(self, self.design, look=1)
        self.assertEqual([error.code for error in errors], ["ledger.design_changed"])


def rechained(ledger):
    """``ledger`` (edited) with every digest and ``closed`` made consistent again, as
    someone who edits a ledger with this module's functions at hand would: what the ledger
    cannot catch, the gate's other checks must."""
    chain = head_sha256(ledger)
    for look in ledger["looks"]:
        look["batch_sha256"] = batch_sha256(look["records"])
        chain = look["chain_sha256"] = chain_sha256(chain, look)
    return ledger


def cases_regraded(cases, final_state):
    """``cases`` with every test case's expected final state ``final_state``, every tool
    allowed and nothing forbidden; ids, splits and versions unchanged."""
    cases = copy.deepcopy(cases)
    tools = sorted({tool for case in cases["cases"] for tool in case["allowed_tools"]})
    for case in cases["cases"]:
        if case["split"] == "test":
            case.update(expected_final_state=final_state, allowed_tools=tools,
                        forbidden_side_effects=[])
    return cases


class ChainAttackTests(unittest.TestCase):
    """What a reviewer did to a chain of looks, each refused (exit 2), never a decision."""

    def setUp(self):
        cases, run = controlled_run(100, 3, strong)
        self.design = Design(TempDir(self).path, cases, run)
        self.design.judge(1)
        self.design.judge(2)

    def test_cases_changed_between_looks_are_refused(self):
        ledger = self.design.ledger()
        self.assertEqual(ledger["design"]["cases_sha256"], hashlib.sha256(
            reference_text(self.design.cases).encode("utf-8")).hexdigest())
        self.assertEqual(ledger["looks"][1]["cases_sha256"], ledger["design"]["cases_sha256"])
        cases = cases_regraded(self.design.cases, "regraded")
        errors = refusal(self, self.design, look=3, cases=cases)
        self.assertEqual([error.code for error in errors], ["ledger.design_changed"])
        self.assertEqual(errors[0].file, "cases.json")
        self.assertIn("the cases file changed after the first look", errors[0].message)

    def test_the_shipped_design_with_regraded_cases_is_refused(self):
        # the reviewer's repro: looks 1 and 2 of the shipped design, then look 3 with every
        # test case expecting the candidate's most common final state
        folder = TempDir(self)
        shipped = ["--spec", "examples/sequential_spec.json",
                   "--ledger", os.path.join(folder.path, "ledger.json")]
        for look in (1, 2):
            self.assertEqual(run_cli(shipped + [
                "--cases", "examples/sequential_cases.json",
                "--results", "examples/sequential_look%d.json" % look]).status, 1)
        results = load_example("sequential_look3.json")
        states = [record["final_state"] for record in results["systems"][1]["records"]
                  if record["final_state"] is not None]
        cases = cases_regraded(load_example("sequential_cases.json"),
                               max(sorted(set(states)), key=states.count))
        before = read(os.path.join(folder.path, "ledger.json"))
        run = run_cli(shipped + ["--cases", folder.write_json("cases.json", cases),
                                 "--results", "examples/sequential_look3.json"])
        self.assertEqual(run.status, 2, run.stderr)
        self.assertIn("cases.json:1:1: $: the cases file changed after the first look",
                      run.stderr)
        self.assertEqual(read(os.path.join(folder.path, "ledger.json")), before)

    def test_an_earlier_looks_path_other_than_recorded_is_refused(self):
        # the chain made consistent over changed counts: the package's path is not the one
        # the ledger recorded
        ledger = self.design.ledger()
        ledger["looks"][0]["wins"] -= 1
        self.design.write_ledger(rechained(ledger))
        for look in (2, 3):  # the last look again, and the next
            with self.subTest(look=look):
                errors = refusal(self, self.design, look=look)
                self.assertEqual([error.code for error in errors], ["ledger.path_changed"])
                self.assertEqual(errors[0].path, ("looks", 0, "wins"))
                self.assertIn("the ledger's look 1 recorded 10 units, 5 discordant, 4 won",
                              errors[0].message)
                self.assertEqual(errors[0].file, "ledger.json")

    def test_regraded_cases_with_the_ledger_rewritten_to_match_are_refused(self):
        # the cases' digests in the ledger replaced and the chain made again: the earlier
        # looks' path, recomputed under the new cases, is not the one recorded
        cases = cases_regraded(self.design.cases, "regraded")
        digest = hashlib.sha256(reference_text(cases).encode("utf-8")).hexdigest()
        ledger = self.design.ledger()
        for record in [ledger["design"]] + ledger["looks"]:
            record["cases_sha256"] = digest
        self.design.write_ledger(rechained(ledger))
        errors = refusal(self, self.design, look=3, cases=cases)
        self.assertEqual([error.code for error in errors], ["ledger.path_changed"])
        self.assertIn("the ledger's look 1 recorded 10 units, 5 discordant, 5 won by the "
                      "candidate; the package gives 10, 0 and 0", errors[0].message)

    def test_every_member_of_the_ledger_is_chained(self):
        edits = {
            "closed": lambda ledger: ledger.update(closed=True),
            "design": lambda ledger: ledger["design"].update(alpha="1/20"),
            "benchmark": lambda ledger: ledger.update(benchmark_id="other"),
            "action": lambda ledger: ledger["looks"][0].update(action="PASS"),
            "state": lambda ledger: ledger["looks"][0].update(state="pass"),
            "wins": lambda ledger: ledger["looks"][1].update(wins=0),
            "spec digest": lambda ledger: ledger["looks"][1].update(spec_sha256="0" * 64),
        }
        original = self.design.ledger()
        for name, edit in sorted(edits.items()):
            with self.subTest(name):
                ledger = copy.deepcopy(original)
                edit(ledger)
                self.design.write_ledger(ledger)
                errors = refusal(self, self.design, look=3)
                self.assertEqual([error.code for error in errors], ["ledger.damaged"])
        self.design.write_ledger(original)  # the ledger as written reads back
        self.assertEqual(self.design.judge(3).document["ledger"]["looks_before"], 2)

    def test_a_closed_ledger_reopened_by_hand_is_refused(self):
        self.design.judge(3)  # PASS: closed
        ledger = self.design.ledger()
        self.assertEqual((ledger["closed"], ledger["looks"][-1]["state"]), (True, "pass"))
        ledger["closed"] = False
        self.design.write_ledger(ledger)
        errors = refusal(self, self.design, look=4)
        self.assertEqual([error.code for error in errors], ["ledger.damaged"])
        self.assertEqual(errors[0].path, ("closed",))
        # reopened consistently (its state too, every digest made again): the path the
        # package gives crossed the pass boundary at look 3
        ledger["looks"][-1]["state"] = "continue"
        self.design.write_ledger(rechained(ledger))
        errors = refusal(self, self.design, look=4)
        self.assertEqual([error.code for error in errors], ["ledger.closed"])
        self.assertEqual(errors[0].path, ("looks", 2, "state"))
        self.assertIn("crossed a boundary at look 3", errors[0].message)

    def test_the_spec_and_its_recorded_digest_swapped_together_are_refused(self):
        spec = copy.deepcopy(self.design.spec)
        spec["claim"] = "another claim"
        ledger = self.design.ledger()
        ledger["design"]["spec_sha256"] = hashlib.sha256(
            reference_text(spec).encode("utf-8")).hexdigest()
        self.design.write_ledger(ledger)
        errors = refusal(self, self.design, look=3, spec=spec)
        self.assertEqual([error.code for error in errors], ["ledger.damaged"])

    def test_a_sequential_ledger_without_its_design_is_a_contract_error(self):
        ledger = self.design.ledger()
        ledger["design"] = None
        path = self.design.write_ledger(rechained(ledger)) or self.design.ledger_path
        errors = refusal(self, self.design, look=3)
        self.assertEqual([(error.code, error.path) for error in errors],
                         [("ledger.design_kind", ("design",))])
        self.assertIn("design must be an object in a ledger of kind sequential",
                      errors[0].message)
        spec = os.path.join(self.design.folder, "spec.json")
        cases = os.path.join(self.design.folder, "cases.json")
        results = os.path.join(self.design.folder, "look3.json")
        for name, value in ((spec, self.design.spec), (cases, self.design.cases),
                            (results, self.design.package(3))):
            with open(name, "w") as handle:
                json.dump(value, handle)
        run = run_cli(["--spec", spec, "--cases", cases, "--results", results,
                       "--ledger", path])
        self.assertEqual(run.status, 2, run.stderr)
        self.assertIn("ledger.json:4:13: $.design: design must be an object", run.stderr)

    def test_an_earlier_look_without_records_is_a_contract_error(self):
        ledger = self.design.ledger()
        ledger["looks"][1]["records"] = []
        self.design.write_ledger(rechained(ledger))
        errors = refusal(self, self.design, look=1)
        self.assertEqual([(error.code, error.path) for error in errors],
                         [("schema.too_few_items", ("looks", 1, "records"))])


class UnledgeredLookTests(unittest.TestCase):
    """A look after the first judged without --ledger: REVIEW at most, said."""

    def setUp(self):
        cases, run = controlled_run(100, 3, strong)
        self.design = Design(TempDir(self).path, cases, run)

    def test_a_passing_look_without_its_ledger_is_a_review(self):
        document = self.design.judge(3, ledger=False).document
        self.assertEqual((document["action"], document["sequential"]["state"]),
                         ("REVIEW", "pass"))
        self.assertTrue(document["primary_reason"].startswith(
            "no ledger: the package is look 3 of 10: the first 30 tasks of the frozen pool, "
            "trial ids 1-3 of each, judged without --ledger"), document["primary_reason"])
        finding = [finding for finding in document["findings"]
                   if finding["code"] == "sequential_unledgered"]
        self.assertEqual([(item["observed"], item["severity"]) for item in finding],
                         [(3, "review")])
        # with its ledger the same look passes
        self.assertEqual([self.design.judge(look).action for look in (1, 2, 3)],
                         ["REVIEW", "REVIEW", "PASS"])

    def test_a_continuing_look_says_so_too_and_look_1_is_as_ever(self):
        second = self.design.judge(2, ledger=False).document
        self.assertEqual(second["action"], "REVIEW")
        self.assertIn("sequential_unledgered", [item["code"] for item in second["findings"]])
        first = self.design.judge(1, ledger=False).document
        self.assertNotIn("sequential_unledgered", [item["code"] for item in first["findings"]])
        self.assertNotIn("no ledger", " ".join(first["reasons"]))


class FixedRejudgedTests(unittest.TestCase):
    """A fixed design's package judged again under another spec or cases file."""

    def test_the_same_trials_under_a_loosened_spec_are_a_repeated_look(self):
        folder = TempDir(self)
        ledger = os.path.join(folder.path, "ledger.json")
        package = ["--cases", "examples/benchmark_cases.json",
                   "--results", "examples/benchmark_results_pass.json", "--ledger", ledger,
                   "--output", os.path.join(folder.path, "decision.json")]

        def judged(spec):
            run = run_cli(["--spec", spec] + package)
            with open(os.path.join(folder.path, "decision.json"), "rb") as handle:
                return run.status, json.loads(handle.read().decode("utf-8"))

        status, strict = judged("examples/benchmark_spec_v3_strict.json")
        self.assertEqual((status, strict["action"], strict["ledger"]["recorded"]),
                         (1, "REVIEW", True))
        status, loose = judged("examples/benchmark_spec.json")
        self.assertEqual((status, loose["action"]), (1, "REVIEW"))
        self.assertEqual(loose["ledger"]["recorded"], True)
        repeated = loose["ledger"]["repeated_look"]
        self.assertEqual((repeated["looks"], repeated["method"]), (2, "bonferroni"))
        self.assertIn("repeated_look", [item["code"] for item in loose["findings"]])
        # the same spec, cases and trials again: no new look
        status, again = judged("examples/benchmark_spec.json")
        self.assertEqual(again["ledger"]["recorded"], False)
        self.assertEqual(again["ledger"]["repeated_look"]["looks"], 2)

    def test_the_same_trials_under_other_cases_are_a_repeated_look(self):
        cases, run = controlled_run(30, 3, strong)
        design = Design(TempDir(self).path, cases, run, looks=[(30, 3)])
        spec = copy.deepcopy(design.spec)
        spec["schema_version"] = "agent-benchmark-spec-v4"
        del spec["sequential"]
        self.assertEqual(design.judge(package=run, spec=spec).action, "PASS")
        other = copy.deepcopy(cases)
        other["cases"][0]["task_type"] += "-renamed"
        document = design.judge(package=run, spec=spec, cases=other).document
        self.assertEqual(document["action"], "REVIEW")
        self.assertEqual(document["ledger"]["repeated_look"]["looks"], 2)


if __name__ == "__main__":
    unittest.main()
