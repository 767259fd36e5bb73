"""The diff command (proagents_bench/maintenance/versions.py, contract/changes.py and
cli/diff_command.py): every field of a case and every part of a spec changed on its own and
classified by what it breaks; a new file that changes answers under the old dataset_version
(or the protocol under the old protocol_version) refused with exit 2; the shipped next
version of the example's cases classified change by change; which records of a package stay
comparable."""

import copy
import os
import unittest

from proagents_bench.contract import changes as kinds
from proagents_bench.contract.inputs import CASE
from tests.support import EXAMPLES, TempDir, load_example, run_cli

CASES = os.path.join(EXAMPLES, "benchmark_cases.json")
NEXT = os.path.join(EXAMPLES, "benchmark_cases_next.json")
SPEC = os.path.join(EXAMPLES, "benchmark_spec.json")
PASS = os.path.join(EXAMPLES, "benchmark_results_pass.json")

# A new value for every field of a test case (test-refund) and of a train case.
NEW_VALUES = {
    "expected_final_state": "refund_denied",
    "allowed_tools": ["lookup_order", "reply_customer"],
    "forbidden_side_effects": ["cancel_order", "refund_order"],
    "critical": True,
    "initial_state": "order 2002 delivered damaged",
    "family_id": "family-refund-new",
    "slice": "returns",
    "task_type": "return",
}


def edited(change, dataset_version="orders-2026-08"):
    cases = load_example("benchmark_cases.json")
    change(cases)
    if dataset_version is not None:
        cases["dataset_version"] = dataset_version
    return cases


def case(cases, case_id):
    return next(item for item in cases["cases"] if item["id"] == case_id)


def diff(test, new, old=None, arguments=()):
    folder = TempDir(test)
    old_path = CASES if old is None else folder.write_json("old.json", old)
    return run_cli(["diff", old_path, folder.write_json("new.json", new)] + list(arguments))


class CaseFieldTests(unittest.TestCase):
    def test_every_field_of_a_test_case_is_classified_and_refused_when_it_must_be(self):
        for field, value in NEW_VALUES.items():
            expected = kinds.TEST_CASE_FIELDS[field]
            with self.subTest(field=field):
                new = edited(lambda cases: case(cases, "test-refund").__setitem__(field, value))
                run = diff(self, new)
                self.assertEqual(run.status, 0, run.stderr)
                tasks = run.document["tasks"]
                self.assertEqual([(task["case_id"], task["change"], task["breaks"])
                                  for task in tasks],
                                 [("test-refund", "changed", [expected.code])])
                self.assertEqual(tasks[0]["fields"][0]["field"], field)
                same = diff(self, edited(lambda cases: case(cases, "test-refund").__setitem__(
                    field, value), dataset_version=None))
                if expected.refused == "dataset_version":
                    self.assertEqual(same.status, 2)
                    error = same.document["errors"][0]
                    self.assertEqual((error["code"], error["path"]),
                                     ("diff.same_dataset_version", "$.dataset_version"))
                    self.assertIsNotNone(error["line"])
                    self.assertIn('"test-refund" (%s)' % expected.code, error["message"])
                else:
                    self.assertEqual(same.status, 0, same.stderr)

    def test_the_answers_and_grading_rules_are_exactly_these_fields(self):
        refused = sorted(field for field, change in kinds.TEST_CASE_FIELDS.items()
                         if change in (kinds.ANSWER, kinds.GRADING_RULE))
        self.assertEqual(refused, ["allowed_tools", "critical", "expected_final_state",
                                   "forbidden_side_effects"])
        # Every field of a case has its kind (or is the id, or the split and what follows it).
        known = set(kinds.TEST_CASE_FIELDS) | {"id", "split", kinds.FOLLOWS_SPLIT}
        self.assertEqual(sorted(field.key for field in CASE.fields if field.key not in known),
                         [])

    def test_a_train_case_changes_nothing_ranked_but_its_family(self):
        for field, value in NEW_VALUES.items():
            with self.subTest(field=field):
                run = diff(self, edited(lambda cases: case(
                    cases, "train-refund-basic").__setitem__(field, value),
                    dataset_version=None))
                self.assertEqual(run.status, 0, run.stderr)
                self.assertEqual(run.document["tasks"][0]["breaks"], [
                    "contamination" if field == "family_id" else "public_case"])

    def test_a_set_in_another_order_is_no_change(self):
        new = edited(lambda cases: case(cases, "test-refund")["allowed_tools"].reverse(),
                     dataset_version=None)
        run = diff(self, new)
        self.assertEqual((run.status, run.document["tasks"]), (0, []))


class SplitAndMembershipTests(unittest.TestCase):
    def test_moves_additions_and_removals(self):
        def into_test(cases):
            moved = case(cases, "dev-status-tracking")
            moved.update(split="test", is_private=True)

        def between_public_splits(cases):
            case(cases, "train-cancel-basic")["split"] = "development"

        def added(cases):
            extra = copy.deepcopy(case(cases, "test-refund"))
            extra.update(id="test-extra", family_id="family-extra")
            cases["cases"].append(extra)

        def removed(cases):
            cases["cases"] = [item for item in cases["cases"] if item["id"] != "test-cancel"]

        def removed_train(cases):
            cases["cases"] = [item for item in cases["cases"]
                              if item["id"] != "train-cancel-basic"]

        for change, expected, refused in (
                (into_test, ("dev-status-tracking", "changed", ["test_set", "contamination"]),
                 True),
                (between_public_splits, ("train-cancel-basic", "changed", ["contamination"]),
                 False),
                (added, ("test-extra", "added", ["test_set"]), True),
                (removed, ("test-cancel", "removed", ["test_set"]), True),
                (removed_train, ("train-cancel-basic", "removed", ["public_case"]), False)):
            with self.subTest(change.__name__):
                run = diff(self, edited(change))
                self.assertEqual(run.status, 0, run.stderr)
                task = run.document["tasks"][0]
                self.assertEqual((task["case_id"], task["change"], task["breaks"]), expected)
                same = diff(self, edited(change, dataset_version=None))
                self.assertEqual(same.status, 2 if refused else 0)


class ShippedNextVersionTests(unittest.TestCase):
    def test_every_change_of_the_shipped_next_version_is_classified(self):
        run = run_cli(["diff", CASES, NEXT])
        self.assertEqual(run.status, 0, run.stderr)
        document = run.document
        self.assertEqual(document["action"], "DIFF")
        self.assertEqual([(task["case_id"], task["change"], task["breaks"],
                           [field["field"] for field in task["fields"]])
                          for task in document["tasks"]], [
            ("train-cancel-basic", "removed", ["public_case"], []),
            ("dev-status-tracking", "changed", ["test_set", "contamination"], ["split"]),
            ("test-cancel", "changed", ["grading_rule"], ["critical"]),
            ("test-status", "changed", ["grouping"], ["slice"]),
            ("test-safety", "changed", ["answer"], ["forbidden_side_effects"]),
            ("test-privacy", "changed", ["answer"], ["allowed_tools"]),
            ("test-address", "added", ["test_set"], [])])
        self.assertEqual([(field["field"], field["breaks"]) for field in document["header"]],
                         [("dataset_version", ["version"])])
        self.assertEqual(document["requires"], ["a new dataset_version",
                                                "a contamination check"])
        self.assertEqual(document["summary"]["breaks"], {
            "answer": 2, "grading_rule": 1, "test_set": 2, "contamination": 1, "grouping": 1,
            "public_case": 1, "version": 1})

    def test_which_records_of_an_old_package_stay_comparable(self):
        run = run_cli(["diff", CASES, NEXT, "--spec", SPEC, "--results", PASS])
        self.assertEqual(run.status, 0, run.stderr)
        found = run.document["packages"][0]
        statuses = {task["case_id"]: task["records"] for task in found["tasks"]}
        self.assertEqual(statuses, {"test-refund": "comparable",
                                    "test-cancel": "comparable_other_gate",
                                    "test-status": "comparable",
                                    "test-safety": "not_comparable",
                                    "test-privacy": "not_comparable"})
        self.assertEqual([(system["system_id"], system["comparable_records"],
                           system["records"]) for system in found["systems"]],
                         [("baseline-v1", 9, 15), ("candidate-pass", 9, 15)])
        self.assertEqual(found["new_test_tasks_without_records"],
                         ["dev-status-tracking", "test-address"])

    def test_an_answer_change_regrades_the_trials_it_flips(self):
        new = edited(lambda cases: case(cases, "test-refund").__setitem__(
            "expected_final_state", "refund_denied"))
        run = diff(self, new, arguments=["--spec", SPEC, "--results", PASS])
        self.assertEqual(run.status, 0, run.stderr)
        found = run.document["packages"][0]
        refund = next(task for task in found["tasks"] if task["case_id"] == "test-refund")
        self.assertEqual((refund["records"], refund["trials"], refund["regraded_differently"]),
                         ("not_comparable", 6, 6))
        self.assertEqual([system["regraded_differently"] for system in found["systems"]],
                         [3, 3])

    def test_results_need_the_spec_and_must_be_of_the_old_cases(self):
        self.assertEqual(run_cli(["diff", CASES, NEXT, "--results", PASS]).status, 2)
        folder = TempDir(self)
        other = load_example("benchmark_results_pass.json")
        other["dataset_version"] = "orders-2026-10"
        path = folder.write_json("other.json", other)
        run = run_cli(["diff", CASES, NEXT, "--spec", SPEC, "--results", path])
        self.assertEqual(run.status, 2)
        self.assertEqual((run.document["errors"][0]["file"], run.document["errors"][0]["code"]),
                         (path, "version.mismatch"))


def spec_with(change):
    spec = load_example("benchmark_spec.json")
    change(spec)
    return spec


class SpecDiffTests(unittest.TestCase):
    def run_specs(self, new):
        folder = TempDir(self)
        return run_cli(["diff", SPEC, folder.write_json("spec.json", new)])

    def test_each_part_of_a_spec_is_classified(self):
        def protocol(spec):
            spec["protocol"].update(max_steps=12, protocol_version="order-protocol-2")

        for change, expected in (
                (protocol, [("protocol.protocol_version", ["protocol"]),
                            ("protocol.max_steps", ["protocol"])]),
                (lambda spec: spec["gates"].update(max_mean_latency_ms=3000),
                 [("gates.max_mean_latency_ms", ["decision_rule"])]),
                (lambda spec: spec["bootstrap"].update(samples=2000),
                 [("bootstrap.samples", ["decision_rule"])]),
                (lambda spec: spec.update(claim="Another claim."), [("claim", ["wording"])]),
                (lambda spec: spec.update(baseline_system_id="baseline-v2"),
                 [("baseline_system_id", ["baseline"])]),
                (lambda spec: spec.update(benchmark_version="1.1.0"),
                 [("benchmark_version", ["version"])])):
            with self.subTest(expected):
                run = self.run_specs(spec_with(change))
                self.assertEqual(run.status, 0, run.stderr)
                self.assertEqual(run.document["kind"], "spec")
                self.assertEqual([(field["field"], field["breaks"])
                                  for field in run.document["header"]], expected)

    def test_a_protocol_change_under_the_old_protocol_version_is_refused(self):
        run = self.run_specs(spec_with(lambda spec: spec["protocol"].update(max_steps=12)))
        self.assertEqual(run.status, 2)
        error = run.document["errors"][0]
        self.assertEqual((error["code"], error["path"]),
                         ("diff.same_protocol_version", "$.protocol.protocol_version"))
        self.assertIn("protocol.max_steps changed", error["message"])

    def test_a_number_written_otherwise_is_no_change(self):
        run = self.run_specs(spec_with(lambda spec: spec["protocol"].update(
            timeout_seconds=float(spec["protocol"]["timeout_seconds"]))))
        self.assertEqual((run.status, run.document["header"]), (0, []))

    def test_two_benchmarks_or_two_kinds_are_not_compared(self):
        run = self.run_specs(spec_with(lambda spec: spec.update(benchmark_id="other")))
        self.assertEqual((run.status, run.document["errors"][0]["code"]),
                         (2, "diff.other_benchmark"))
        mixed = run_cli(["diff", CASES, SPEC])
        self.assertEqual((mixed.status, mixed.document["errors"][0]["code"]), (2, "cli.usage"))

    def test_a_broken_file_is_a_contract_error_naming_it(self):
        folder = TempDir(self)
        broken = folder.write_json("broken.json", dict(load_example("benchmark_cases.json"),
                                                       cases=[]))
        run = run_cli(["diff", CASES, broken])
        self.assertEqual(run.status, 2)
        self.assertEqual(run.document["errors"][0]["file"], broken)
        contaminated = os.path.join(EXAMPLES, "benchmark_cases_contract_error.json")
        run = run_cli(["diff", CASES, contaminated])
        self.assertEqual((run.status, run.document["errors"][0]["code"]),
                         (2, "cases.split_contamination"))


class OutputTests(unittest.TestCase):
    def test_the_output_file_never_outlives_its_run_nor_names_an_input(self):
        folder = TempDir(self)
        output = os.path.join(folder.path, "diff.json")
        self.assertEqual(run_cli(["diff", CASES, NEXT, "--output", output]).stdout, b"")
        with open(output, "rb") as handle:
            self.assertIn(b'"action": "DIFF"', handle.read())
        broken = folder.write_json("broken.json", dict(load_example("benchmark_cases.json"),
                                                       cases=[]))
        self.assertEqual(run_cli(["diff", CASES, broken, "--output", output]).status, 2)
        with open(output, "rb") as handle:
            self.assertIn(b'"action": "CONTRACT_ERROR"', handle.read())
        refused = run_cli(["diff", CASES, NEXT, "--output", NEXT])
        self.assertEqual((refused.status, refused.document["errors"][0]["code"]),
                         (2, "cli.report_path"))


class TextModeTests(unittest.TestCase):
    def test_the_text_mode_ends_with_what_the_new_file_requires(self):
        run = run_cli(["diff", CASES, NEXT, "--format", "text"])
        lines = run.stdout.decode("ascii").splitlines()
        self.assertEqual(lines[-1], "DIFF  The new cases file requires a new dataset_version "
                                    "and a contamination check.")
        self.assertIn("  test-safety  changed  [answer]", lines)

    def test_a_diff_that_breaks_nothing_ends_with_a_sentence_saying_so(self):
        run = run_cli(["diff", CASES, CASES, "--format", "text"])
        self.assertEqual(run.stdout.decode("ascii").splitlines()[-1],
                         "DIFF  Nothing breaks: the new cases file requires no new version, "
                         "and every record stays comparable.")


if __name__ == "__main__":
    unittest.main()
