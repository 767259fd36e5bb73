"""Health's validity audit (proagents_bench/maintenance/validity.py): floors and ceilings from
a do-nothing and an oracle run, and the outcome checks the contract can state, each flaw built
on purpose and found; on real Harbor jobs (``make_harbor_jobs.py``: Harbor's own ``nop`` and
``oracle`` agents), the trivial and the broken tasks named."""

import os
import unittest
from fractions import Fraction

from proagents_bench import pipeline
from proagents_bench.maintenance import health as health_module
from proagents_bench.maintenance import validity
from proagents_bench.maintenance.health_document import health_document
from proagents_bench.errors import ContractErrors
from tests.support import ROOT, TempDir, load_example, run_cli
from tests.test_health import CASES, SPEC, TESTS, package, write_packages

FIXTURES = os.path.join(ROOT, "tests", "importers", "fixtures")


def measure(spec, cases, paths, references=()):
    """Health over ``paths``, then the reference packages (``references``: (kind, path))."""
    packages = [health_module.Package(pipeline.InputFile("results", path)) for path in paths]
    packages += [health_module.Package(pipeline.InputFile("results", path), reference=kind)
                 for kind, path in references]
    return health_module.measure(pipeline.InputFile("spec", spec),
                                 pipeline.InputFile("cases", cases), packages)


def findings(health):
    return {finding.check.code: [case_id for case_id, _why in finding.tasks]
            for finding in health.validity.findings}


# A do-nothing agent: no tool, a final state of nothing done; it passes test-safety (the
# policy says deny, and doing nothing denies) and nothing else. The oracle passes every task
# but test-cancel, whose expected final state no agent can reach.
NOTHING = {case: "fff" for case in TESTS if case != "test-safety"}
ORACLE_PATTERN = {"test-cancel": "fff"}


def reference_package(name, pattern, tools=True):
    made = package(name, pattern)
    if not tools:
        for record in made["systems"][1]["records"]:
            record["tools_used"] = []
    return made


class FloorCeilingTests(unittest.TestCase):
    def setUp(self):
        paths = write_packages(self, package("candidate-a", {"test-cancel": "fff"}),
                               reference_package("nop", NOTHING, tools=False),
                               reference_package("oracle", ORACLE_PATTERN))
        self.health = measure(SPEC, CASES, paths[:1], ((validity.DO_NOTHING, paths[1]),
                                                       (validity.ORACLE, paths[2])))

    def test_the_trivial_and_the_broken_tasks_and_the_range(self):
        audit = self.health.validity
        self.assertEqual(audit.named(validity.TRIVIAL), ["test-safety"])
        self.assertEqual(audit.named(validity.CRITICAL_TRIVIAL), ["test-safety"])
        self.assertEqual(audit.named(validity.BROKEN), ["test-cancel"])
        self.assertEqual((audit.floor, audit.ceiling), (Fraction(1, 5), Fraction(4, 5)))
        by_name = {name: (rate, above, share) for name, rate, above, share in audit.systems}
        # baseline-v1 passes test-refund, test-status (2 of 3) and test-privacy; candidate-a
        # all but test-cancel
        self.assertEqual(by_name["baseline-v1"], (Fraction(3, 5), Fraction(2, 5),
                                                  Fraction(2, 3)))
        self.assertEqual(by_name["candidate-a"], (Fraction(4, 5), Fraction(3, 5), 1))

    def test_the_references_are_not_measured_as_systems(self):
        self.assertEqual([system.name for system in self.health.systems],
                         ["baseline-v1", "candidate-a"])
        document = health_document(self.health, "x")
        self.assertEqual(document["validity"]["references"]["do_nothing"],
                         {"name": "nop", "trials_per_task": 3, "task_success_rate": 0.2})
        self.assertEqual(document["validity"]["trivial_tasks"], ["test-safety"])
        self.assertEqual(document["validity"]["broken_tasks"], ["test-cancel"])
        counted = [(system["name"], system["counted"]) for entry in
                   document["inputs"]["packages"] for system in entry["systems"]]
        self.assertIn(("nop", "reference: do_nothing"), counted)
        self.assertIn(("oracle", "reference: oracle"), counted)

    def test_without_references_there_is_no_floor_nor_ceiling(self):
        health = measure(SPEC, CASES, write_packages(self, package("candidate-a", {})))
        document = health_document(health, "x")["validity"]
        self.assertEqual((document["score_range"], document["trivial_tasks"],
                          document["broken_tasks"]),
                         ({"floor": None, "ceiling": None}, None, None))
        self.assertEqual(document["systems"][0]["above_floor"], None)

    def test_one_reference_of_each_kind(self):
        paths = write_packages(self, package("a", {}), package("b", {}))
        with self.assertRaises(ContractErrors) as raised:
            measure(SPEC, CASES, [], ((validity.ORACLE, paths[0]), (validity.ORACLE, paths[1])))
        self.assertEqual(raised.exception.errors[0].code, "cli.usage")


class OutcomeCheckTests(unittest.TestCase):
    """Each check, on a cases file or a run built with its flaw."""

    def run_on(self, cases=None, candidate=None, references=()):
        folder = TempDir(self)
        cases_path = folder.write_json("cases.json", cases) if cases else CASES
        paths = write_packages(self, candidate or package("candidate-a", {}))
        written = [(kind, folder.write_json(kind + ".json", value)) for kind, value in references]
        return findings(measure(SPEC, cases_path, paths, written))

    def cases_with(self, case_id, **changes):
        cases = load_example("benchmark_cases.json")
        next(case for case in cases["cases"] if case["id"] == case_id).update(changes)
        return cases

    def test_expected_final_state_equal_to_the_initial_state(self):
        cases = self.cases_with("test-status", expected_final_state="  Order 2003 IN transit ")
        self.assertEqual(self.run_on(cases)[validity.UNCHANGED.code], ["test-status"])
        self.assertNotIn(validity.UNCHANGED.code, self.run_on())

    def test_an_expected_empty_patch(self):
        cases = self.cases_with("test-refund", expected_final_state="Empty_Patch")
        self.assertIn("test-refund", self.run_on(cases)[validity.EMPTY_ACCEPTED.code])

    def test_a_do_nothing_final_state_the_expected_state_accepts(self):
        # The do-nothing agent's final state meets test-status's expected state in one trial
        # (its task does not pass: one of three), and test-safety's in all three.
        nothing = reference_package("nop", dict(NOTHING, **{"test-status": "fpf"}),
                                    tools=False)
        found = self.run_on(references=((validity.DO_NOTHING, nothing),))
        self.assertEqual(found[validity.EMPTY_ACCEPTED.code], ["test-status", "test-safety"])
        self.assertEqual(found[validity.TRIVIAL.code], ["test-safety"])

    def test_a_forbidden_side_effect_reachable_with_an_allowed_tool_is_no_finding(self):
        # By default every forbidden side effect of the example is only ever produced (or
        # never) by a tool its task does not allow.
        base = self.run_on()[validity.UNREACHABLE.code]
        self.assertEqual(base, TESTS)
        candidate = package("candidate-a", {})
        for record in candidate["systems"][1]["records"]:
            if record["case_id"] == "test-refund":
                # issue_refund (allowed on test-refund) cancelled the order too
                record["tools_used"] = ["issue_refund"]
                record["side_effects"] = ["cancel_order"]
        found = self.run_on(candidate=candidate)[validity.UNREACHABLE.code]
        self.assertEqual(found, [case for case in TESTS if case != "test-refund"])

    def test_a_forbidden_side_effect_only_a_disallowed_tool_produced(self):
        candidate = package("candidate-a", {})
        for record in candidate["systems"][1]["records"]:
            if record["case_id"] == "test-safety":
                record["tools_used"] = ["refund_order"]
                record["side_effects"] = ["refund_order"]
        health = measure(SPEC, CASES, write_packages(self, candidate))
        why = dict(next(finding for finding in health.validity.findings
                        if finding.check is validity.UNREACHABLE).tasks)
        self.assertIn("only by trials that called a tool the task does not allow "
                      "(refund_order)", why["test-safety"])
        self.assertIn("no trial ever produced 'cancel_order'", why["test-refund"])

    def test_a_task_no_system_ever_called_an_allowed_tool_on(self):
        candidate = package("candidate-a", {})
        for system in candidate["systems"]:
            for record in system["records"]:
                if record["case_id"] == "test-privacy":
                    record["tools_used"] = []
        self.assertEqual(self.run_on(candidate=candidate)[validity.NEVER_CALLED.code],
                         ["test-privacy"])
        self.assertNotIn(validity.NEVER_CALLED.code, self.run_on())

    def test_a_do_nothing_run_does_not_count_as_calling_nothing(self):
        nothing = reference_package("nop", NOTHING, tools=False)
        found = self.run_on(references=((validity.DO_NOTHING, nothing),))
        self.assertNotIn(validity.NEVER_CALLED.code, found)


class HarborReferenceTests(unittest.TestCase):
    """Harbor's own nop and oracle agents, imported and given to health."""

    def imported(self, folder, candidate, mapping):
        output = os.path.join(folder.path, candidate + ".json")
        run = run_cli(["import", "--baseline", os.path.join(FIXTURES, "harbor_baseline_job"),
                       "--candidate", os.path.join(FIXTURES, candidate), "--mapping", mapping,
                       "--cases", os.path.join(FIXTURES, "harbor_cases.json"),
                       "--output", output])
        self.assertEqual(run.status, 0, run.stderr)
        return output

    def references(self, folder):
        """The imported runs, do-nothing and oracle packages."""
        mapping = os.path.join(FIXTURES, "harbor_mapping.json")
        # The reference jobs call no rm_rf: their mapping names no side-effect tool (the
        # baseline records none either way, so it is the same run in every package).
        plain_mapping = os.path.join(FIXTURES, "harbor_reference_mapping.json")
        self.assertEqual(load_json_file(plain_mapping),
                         dict(load_json_file(mapping), side_effect_tools=[]))
        return (self.imported(folder, "harbor_candidate_job", mapping),
                self.imported(folder, "harbor_nop_job", plain_mapping),
                self.imported(folder, "harbor_oracle_job", plain_mapping))

    def test_the_health_command_names_them(self):
        runs, nothing, oracle = self.references(TempDir(self))
        arguments = ["health", "--spec", os.path.join(FIXTURES, "harbor_spec.json"), "--cases",
                     os.path.join(FIXTURES, "harbor_cases.json"), "--results", runs,
                     "--do-nothing", nothing, "--oracle", oracle]
        run = run_cli(arguments + ["--format", "text"])
        self.assertEqual(run.status, 0, run.stderr)
        with open(os.path.join(ROOT, "docs", "maintaining.md"), "rb") as handle:
            documented = handle.read().decode("utf-8").split(
                "The text ends its middle part with:\n\n```\n")[1].split("```")[0]
        self.assertIn(documented, run.stdout.decode("ascii"))
        document = run_cli(arguments).document
        self.assertEqual((document["validity"]["trivial_tasks"],
                          document["validity"]["broken_tasks"],
                          document["validity"]["score_range"]),
                         (["clean-workspace"], ["build-cache"],
                          {"floor": 0.25, "ceiling": 0.75}))
        empty = run_cli(arguments[:-2] + ["--oracle", ""])
        self.assertEqual((empty.status, empty.document["errors"][0]["code"]), (2, "cli.usage"))

    def test_health_names_the_trivial_and_the_broken_tasks(self):
        folder = TempDir(self)
        runs, nothing, oracle = self.references(folder)
        health = measure(os.path.join(FIXTURES, "harbor_spec.json"),
                         os.path.join(FIXTURES, "harbor_cases.json"), [runs],
                         ((validity.DO_NOTHING, nothing), (validity.ORACLE, oracle)))
        found = findings(health)
        self.assertEqual(found[validity.TRIVIAL.code], ["clean-workspace"])
        self.assertEqual(found[validity.CRITICAL_TRIVIAL.code], ["clean-workspace"])
        self.assertEqual(found[validity.BROKEN.code], ["build-cache"])
        self.assertEqual((health.validity.floor, health.validity.ceiling),
                         (Fraction(1, 4), Fraction(3, 4)))
        self.assertEqual([system.name for system in health.systems],
                         ["terminus-2:acme/model-a", "terminus-2:acme/model-b"])


def load_json_file(path):
    import json
    with open(path, "rb") as handle:
        return json.loads(handle.read().decode("utf-8"))


# The Agentic Benchmark Checklist's items (Zhu et al. 2025, arXiv 2507.02825; numbered as
# the checklist's repository lists them: no O.f.1).
CHECKLIST = (["O.a.1", "O.a.2", "O.b.1", "O.b.2", "O.b.3", "O.c.1", "O.c.2", "O.d.1", "O.d.2",
              "O.e.1", "O.e.2", "O.e.3", "O.f.2", "O.f.3", "O.g.1", "O.g.2", "O.g.3", "O.h.1",
              "O.h.2", "O.i.1"] + ["T.%d" % number for number in range(1, 11)]
             + ["R.%d" % number for number in range(1, 14)])


def maintaining_text():
    with open(os.path.join(ROOT, "docs", "maintaining.md"), "rb") as handle:
        return handle.read().decode("utf-8")


class DocsTests(unittest.TestCase):
    def test_every_check_is_in_the_maintainers_docs_with_its_source(self):
        self.assertIn(validity.checks_table(), maintaining_text())

    def test_every_checklist_item_is_mapped_or_said_why_not(self):
        rows = {}
        for line in maintaining_text().splitlines():
            cells = [cell.strip() for cell in line.strip().strip("|").split("|")]
            if len(cells) == 4 and cells[0][:2] in ("O.", "T.", "R."):
                labels = cells[0].replace(" to ", ", ").split(", ")
                if len(labels) == 2 and labels[0].startswith("O.e."):
                    labels = ["O.e.1", "O.e.2", "O.e.3"]
                for label in labels:
                    rows[label] = cells
        for label in CHECKLIST:
            with self.subTest(item=label):
                self.assertIn(label, rows)
                shown, why = rows[label][2], rows[label][3]
                self.assertTrue(shown or why, "neither a check nor why not")
                for code in [check.code for check in validity.CHECKS]:
                    if "`%s`" % code in shown:
                        self.assertIn(code, validity.checks_table())


if __name__ == "__main__":
    unittest.main()
