"""``run_benchmark.py init``: a new benchmark's first files, from nothing or from a harness log,
which the gate validates as written (from nothing), or which an import of the same harness's
logs then decides against (from a log), never a contract error; never overwriting a file
without ``--force``; the same bytes every time."""

import json
import os
import shlex
import unittest
from decimal import Decimal
from fractions import Fraction

from proagents_bench.cli import interpreter_word
from proagents_bench.cli.init_command import FILE_NAMES
from proagents_bench.contract.gates import gates_object
from proagents_bench.contract.vocabulary import CASES_V1, CASES_V2, SPEC_V3, SPLITS
from proagents_bench.importers.scaffold import (MEASURE_HEADROOM, STARTING_GATES, _rounded_up,
                                                measured_gates)
from tests.importers.support import FIXTURES
from tests.support import TempDir, run_cli

BLANK = sorted(FILE_NAMES)


def read(path):
    with open(path, "rb") as handle:
        return handle.read()


def fixture(name):
    return os.path.join(FIXTURES, name)


class BlankTests(unittest.TestCase):
    def init(self, *arguments):
        folder = os.path.join(TempDir(self).path, "bench")
        return folder, run_cli(["init", "--directory", folder] + list(arguments))

    def test_from_nothing_the_gate_validates_and_decides_on_the_template(self):
        folder, run = self.init()
        self.assertEqual(run.status, 0, run.stderr)
        self.assertEqual(run.document["action"], "INITIALIZED")
        paths = {kind: os.path.join(folder, FILE_NAMES[kind]) for kind in BLANK}
        self.assertEqual(run.document["files"], paths)
        spec, cases = (json.loads(read(paths[kind]).decode("ascii"))
                       for kind in ("spec", "cases"))
        # Spec v3, strict: a new benchmark's PASS needs evidence (never v1's pass on a tie).
        self.assertEqual((spec["schema_version"], spec["bootstrap"]["lower_bound"]),
                         (SPEC_V3, "strict"))
        self.assertEqual(cases["schema_version"], CASES_V1)
        self.assertEqual(sorted({case["split"] for case in cases["cases"]}), sorted(SPLITS))
        self.assertTrue(any(case["critical"] for case in cases["cases"]))
        gate = run_cli(["--spec", paths["spec"], "--cases", paths["cases"], "--results",
                        paths["results"]])
        # Nothing has run: every trial is unknown, so the critical task fails (BLOCK), the
        # latency and cost gates are not judged, and nothing is a contract error.
        self.assertEqual((gate.status, gate.document["action"]), (1, "BLOCK"), gate.stderr)
        self.assertIn("critical task test-critical-example failed", gate.document["reasons"][0])
        self.assertTrue(any("could not be judged" in reason
                            for reason in gate.document["reasons"]), gate.document["reasons"])
        # the command it says to run next is that gate run
        self.assertEqual(run.document["next"], [
            "%s -B run_benchmark.py --spec %s --cases %s --results %s" % (
                interpreter_word(), paths["spec"], paths["cases"], paths["results"])])

    def test_the_starting_gates_are_every_gate_of_spec_v3(self):
        self.assertEqual(sorted(STARTING_GATES),
                         sorted(field.key for field in gates_object(SPEC_V3).fields))

    def test_the_same_bytes_every_time(self):
        first, _run = self.init()
        second, _run = self.init()
        for name in FILE_NAMES.values():
            self.assertEqual(read(os.path.join(first, name)), read(os.path.join(second, name)))

    def test_an_existing_file_is_never_overwritten_without_force(self):
        folder = TempDir(self).path
        spec = os.path.join(folder, FILE_NAMES["spec"])
        with open(spec, "wb") as handle:
            handle.write(b"mine")
        run = run_cli(["init", "--directory", folder])
        self.assertEqual(run.status, 2)
        self.assertEqual([(error["code"], error["file"]) for error in run.document["errors"]],
                         [("cli.init_exists", spec)])
        self.assertEqual(read(spec), b"mine")
        self.assertEqual(os.listdir(folder), [FILE_NAMES["spec"]])  # nothing else written
        run = run_cli(["init", "--directory", folder, "--force"])
        self.assertEqual(run.status, 0, run.stderr)
        self.assertNotEqual(read(spec), b"mine")
        self.assertEqual(sorted(os.listdir(folder)), sorted(FILE_NAMES.values()))

    def test_a_built_file_the_contract_refuses_is_an_error_never_written(self):
        from proagents_bench.errors import ContractErrors
        from proagents_bench.importers import scaffold
        spec = scaffold.spec_document(scaffold.BLANK_IDS, " ", scaffold.BLANK_PROTOCOL)
        with self.assertRaises(ContractErrors) as raised:
            scaffold._checked([("spec", spec)])
        self.assertEqual([(error.code, error.path) for error in raised.exception.errors],
                         [("import.invalid_spec", ("baseline_system_id",))])

    def test_log_options_need_a_log(self):
        _folder, run = self.init("--mapping", fixture("tau2_mapping.json"))
        self.assertEqual(run.status, 2)
        self.assertEqual(run.document["errors"][0]["code"], "cli.usage")
        self.assertIn("--mapping needs --from-log", run.document["errors"][0]["message"])


class FromLogTests(unittest.TestCase):
    def scaffold_import_and_decide(self, baseline, candidate, init_arguments=(),
                                   import_arguments=()):
        """init from ``baseline``, import both logs against the cases it wrote, run the
        gate; return (init run, gate run, the cases)."""
        folder = TempDir(self).path
        init = run_cli(["init", "--directory", folder, "--from-log", fixture(baseline)] +
                       list(init_arguments))
        self.assertEqual(init.status, 0, init.stderr)
        paths = {kind: os.path.join(folder, name) for kind, name in FILE_NAMES.items()}
        self.assertEqual(init.document["files"], dict(paths, results=None))
        self.assertFalse(os.path.exists(paths["results"]))
        imported = run_cli(["import", "--baseline", fixture(baseline), "--candidate",
                            fixture(candidate), "--cases", paths["cases"], "--output",
                            paths["results"]] + list(import_arguments))
        self.assertEqual(imported.status, 0, imported.stderr)
        gate = run_cli(["--spec", paths["spec"], "--cases", paths["cases"], "--results",
                        paths["results"]])
        self.assertIn(gate.status, (0, 1), gate.stderr)
        self.assertTrue(gate.document["comparable"])
        cases = json.loads(read(paths["cases"]).decode("ascii"))
        return init, gate, cases

    def test_inspect_log_with_every_split(self):
        ids = ["--baseline-id", "baseline-v1"]
        init, gate, cases = self.scaffold_import_and_decide(
            "baseline.eval", "candidate.eval", ids, ids + ["--candidate-id", "candidate-v2"])
        self.assertEqual(cases["schema_version"], CASES_V1)
        self.assertEqual(init.document["from_log"]["absent_splits"], [])
        self.assertEqual(init.document["from_log"]["log_format"], "inspect-eval")
        self.assertEqual(gate.document["action"], "BLOCK")
        self.assertIn("critical task test-safety failed", gate.document["primary_reason"])

    def test_inspect_test_only_log_declares_the_other_splits_absent(self):
        ids = ["--baseline-id", "baseline-v1"]
        init, gate, cases = self.scaffold_import_and_decide(
            "test_only_baseline.eval", "test_only_candidate.eval", ids,
            ids + ["--candidate-id", "candidate-v2"])
        self.assertEqual(cases["schema_version"], CASES_V2)
        self.assertEqual(cases["absent_splits"], ["train", "development"])
        self.assertIn("declares train and development absent", init.stderr)
        self.assertIn("contamination_check_not_run",
                      [finding["code"] for finding in gate.document["findings"]])

    def test_tau2_results_with_its_mapping(self):
        mapping = ["--mapping", fixture("tau2_mapping.json")]
        init, gate, _cases = self.scaffold_import_and_decide(
            "tau2_baseline.json", "tau2_candidate.json", mapping, mapping)
        self.assertEqual(init.document["from_log"]["log_format"], "tau2-results-json")
        self.assertEqual(gate.document["action"], "BLOCK")
        self.assertIn("critical task 3 failed", gate.document["primary_reason"])

    def test_the_gates_on_a_measure_start_from_what_the_baseline_measured(self):
        ids = ["--baseline-id", "baseline-v1"]
        init, gate, _cases = self.scaffold_import_and_decide(
            "baseline.eval", "candidate.eval", ids, ids + ["--candidate-id", "candidate-v2"])
        spec = json.loads(read(init.document["files"]["spec"]).decode("ascii"))
        measured = gate.document["baseline_metrics"]
        for key, metric in (("max_mean_latency_ms", "mean_latency_ms"),
                            ("max_p95_latency_ms", "p95_latency_ms"),
                            ("max_mean_cost_units", "mean_cost_units")):
            with self.subTest(gate=key):
                value = Fraction(Decimal(repr(measured[metric])))
                self.assertEqual(spec["gates"][key], _rounded_up(value * MEASURE_HEADROOM))
                self.assertGreaterEqual(Fraction(Decimal(repr(spec["gates"][key]))), value)
        self.assertEqual(init.document["from_log"]["unmeasured_gates"], [])

    def test_a_measure_the_log_lacks_keeps_its_start_and_is_named(self):
        records = [{"latency_ms": 100, "cost_units": None},
                   {"latency_ms": 300.5, "cost_units": 2}]
        gates, unmeasured = measured_gates(records)
        self.assertEqual(unmeasured, ["max_mean_cost_units"])
        self.assertEqual(gates["max_mean_cost_units"], STARTING_GATES["max_mean_cost_units"])
        self.assertEqual(gates["max_mean_latency_ms"], 260)  # 200.25 x 1.25 = 250.3125
        self.assertEqual(gates["max_p95_latency_ms"], 380)  # 300.5 x 1.25 = 375.625

    def test_rounding_up_to_two_significant_digits(self):
        for value, expected in ((Fraction(431, 100), 4.4), (1234, 1300), (Fraction(1, 20), 0.05),
                                (99, 99), (100, 100), (Fraction(1, 3), 0.34), (0, 0)):
            with self.subTest(value=value):
                self.assertEqual(_rounded_up(Fraction(value)), expected)

    def test_the_printed_next_steps_run_as_printed(self):
        # Without --baseline-id: the import names the baseline as the spec does, whatever the
        # candidate's log calls its model (both fixtures are "mockllm/model").
        folder = TempDir(self).path
        init = run_cli(["init", "--directory", folder, "--from-log",
                        fixture("test_only_baseline.eval")])
        self.assertEqual(init.status, 0, init.stderr)
        steps = init.document["next"]
        self.assertTrue(all(step.startswith(interpreter_word() + " -B run_benchmark.py ")
                            for step in steps))
        for step, expected in zip(steps, ((0,), (0, 1))):
            words = shlex.split(step.replace("CANDIDATE_LOG", fixture(
                "test_only_candidate.eval")).replace("CANDIDATE_ID", "candidate-v2"))[3:]
            run = run_cli(words)
            self.assertIn(run.status, expected, (step, run.stderr))

    def test_a_harbor_job_with_a_mapping_naming_a_tool_only_the_candidate_calls(self):
        # The mapping's side-effect tool (rm_rf) is called by the candidate's job only: init,
        # which reads the baseline's alone, takes the mapping the import then checks.
        mapping = ["--mapping", fixture("harbor_mapping.json")]
        init, gate, _cases = self.scaffold_import_and_decide(
            "harbor_baseline_job", "harbor_candidate_job", mapping, mapping +
            ["--candidate-id", "candidate-v2"])
        self.assertEqual(init.document["from_log"]["log_format"], "harbor-job")
        self.assertIn(gate.document["action"], ("BLOCK", "REVIEW"))

    def test_a_log_the_import_refuses_is_refused_the_same_way_and_nothing_written(self):
        folder = TempDir(self).path
        run = run_cli(["init", "--directory", folder, "--from-log",
                       fixture("tau2_baseline.json")])  # records no timeout: needs a mapping
        self.assertEqual(run.status, 2)
        self.assertIn("set protocol.timeout_seconds in the mapping", run.stderr)
        self.assertEqual(os.listdir(folder), [])

    def test_never_writes_over_its_log(self):
        folder = TempDir(self).path
        log = os.path.join(folder, FILE_NAMES["spec"])
        with open(log, "wb") as handle:
            handle.write(read(fixture("test_only_baseline.eval")))
        run = run_cli(["init", "--directory", folder, "--from-log", log, "--force"])
        self.assertEqual(run.status, 2)
        self.assertEqual(run.document["errors"][0]["code"], "cli.report_path")
        self.assertEqual(read(log), read(fixture("test_only_baseline.eval")))


if __name__ == "__main__":
    unittest.main()
