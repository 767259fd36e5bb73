"""A submission is read and checked once; its decision on every test case and on a phase's
part of them is made from that one check. Held here to the way the service made it from
files (``tests/oracles.py``: the baseline's text spliced into the submission's, both cut
down to the part, the gate run on them): byte for byte where the document names the part's
own files (what the ``full`` level shows), and in every member but ``inputs`` and
``evidence_fingerprint`` where it names the package's (what the other levels read: none of
the two). On the service's own fixtures and on seeded random parts of three synthetic
packages: spec and results v1; v3 with family clusters, trials recorded as unknown and
unmeasured latencies; v4 with the trial-level gate."""

import copy
import json
import random
import unittest

from proagents_bench import pipeline
from proagents_bench.cli import gate_command
from proagents_bench.jsonio.dump import document_bytes
from fractions import Fraction

from proagents_bench.service import parts
from proagents_bench.service.benchmark import Benchmark
from devtools.synthetic import make_package

from . import oracles
from .service_support import candidate_only, evidence_package, write_benchmark
from .support import TempDir, example_package
from .test_package_evidence import PROVENANCE, system

SPLITS = 20  # seeded random parts of each synthetic package
NAMED_ONLY_BY_THE_FILES = ("inputs", "evidence_fingerprint")


def _v3_package():
    """Spec v3 (family clusters, the strict lower bound), results v3: a trial of each system
    recorded as unknown, some latencies not measured."""
    spec, cases, results = make_package(24, trial_count=3, seed=21, samples=300)
    spec["schema_version"] = "agent-benchmark-spec-v3"
    spec["bootstrap"].update(unit="family", lower_bound="strict")
    results["schema_version"] = "agent-benchmark-results-v3"
    for number, chosen in enumerate(results["systems"]):
        chosen["provenance"] = copy.deepcopy(PROVENANCE)
        record = chosen["records"][3 + 7 * number]
        record.update(status="unknown", final_state=None, side_effects=[], tools_used=[],
                      latency_ms=None, cost_units=None)
        chosen["provenance"].update(missing_as="unknown", recorded_unknown=[
            {"case_id": record["case_id"], "trial_id": record["trial_id"]}])
        for other in chosen["records"][::5]:
            other["latency_ms"] = None
    # A number of the baseline's alone whose canonical form is not its double's text
    # (0.00001234, not 1.234e-05): the evidence fingerprint must know every Decimal.
    system(results, "baseline")["records"][1]["cost_units"] = 1.234e-05
    return spec, cases, results


def _v4_package():
    """Spec v4 (the trial-level gate, family clusters), results v4 (provenance null)."""
    spec, cases, results = make_package(30, trial_count=4, seed=22, samples=300,
                                        candidate_skill=0.7)
    spec["schema_version"] = "agent-benchmark-spec-v4"
    spec["bootstrap"].update(unit="family", lower_bound="strict")
    spec["gates"]["min_trial_delta_ci_low"] = -0.2
    results["schema_version"] = "agent-benchmark-results-v4"
    for chosen in results["systems"]:
        chosen["provenance"] = None
    return spec, cases, results


PACKAGES = {
    "v1": lambda: make_package(40, trial_count=3, seed=11, samples=300),
    "v3": _v3_package,
    "v4": _v4_package,
}


class PartTests(unittest.TestCase):
    def held_to_the_files(self, spec, cases, results, parts_to_try, submissions=None):
        """Every submission (the package's candidate by default) decided on every test
        case and on each part, against the oracle."""
        paths = write_benchmark(TempDir(self).path, cases, results, spec)
        benchmark = Benchmark(*paths)
        files = []
        for path in paths:
            with open(path, "rb") as handle:
                files.append(handle.read())
        for body in submissions or [json.dumps(candidate_only(results), indent=1).encode()]:
            submission = benchmark.check(body)
            whole = submission.decide()
            self.assertEqual(document_bytes(whole), document_bytes(
                oracles.part_by_cut_files(*files, body).document))
            for test_ids in parts_to_try:
                part = parts.Part(benchmark.cases_document, test_ids)
                with self.subTest(part=sorted(test_ids)):
                    expected = oracles.part_by_cut_files(*files, body, part.test_ids).document
                    named = submission.decide(part, described=True)
                    self.assertEqual(document_bytes(named), document_bytes(expected))
                    plain = submission.decide(part)
                    for key in NAMED_ONLY_BY_THE_FILES:
                        self.assertEqual(plain[key], whole[key])
                        del plain[key], expected[key]
                    self.assertEqual(document_bytes(plain), document_bytes(expected))

    def test_the_service_fixtures(self):
        spec, cases, results = example_package()
        incomparable = candidate_only(results)
        incomparable["systems"][0]["protocol"]["max_steps"] = 9
        tests = [case["id"] for case in cases["cases"] if case["split"] == "test"]
        self.held_to_the_files(spec, cases, results, [tests[:2], tests[2:], tests[1:2]], [
            json.dumps(candidate_only(results), indent=1).encode("utf-8"),
            json.dumps(incomparable).encode("utf-8")])
        evidence_cases, evidence_results = evidence_package()
        self.held_to_the_files(spec, evidence_cases, evidence_results, [tests[:3], tests[3:]])

    def test_seeded_random_parts(self):
        for name, make in sorted(PACKAGES.items()):
            spec, cases, results = make()
            tests = [case["id"] for case in cases["cases"] if case["split"] == "test"]
            rng = random.Random(name)
            tried = []
            for number in range(SPLITS):
                if number % 2:  # the service's own split: by family, from a secret seed
                    share = rng.choice(["0.2", "0.5", "0.7"])
                    tried.append(parts.split_test_cases(cases, rng.getrandbits(128).to_bytes(
                        16, "big"), Fraction(share)))
                else:  # any part at all
                    tried.append(rng.sample(tests, rng.randint(1, len(tests) - 1)))
            with self.subTest(package=name):
                self.held_to_the_files(spec, cases, results, tried)


class TwoStepTests(unittest.TestCase):
    """The pipeline's two steps, as the service uses them."""

    def test_a_given_document_is_never_changed_and_only_a_given_one_counts_as_checked(self):
        spec, cases, results = gate_command.default_inputs()
        given = results.load()
        checked = pipeline.check([spec, cases, pipeline.InputFile(
            "results", shown="results.json", document=given)])
        self.assertEqual(checked.documents["results"].text, given.text)
        self.assertTrue(given.text and given.decimals is not None)
        self.assertEqual(checked.documents["spec"].text, "")  # loaded here: released
        with self.assertRaises(TypeError):
            pipeline.InputFile("cases", cases.path, checked=True)

    def test_a_part_holds_a_test_case(self):
        checked = pipeline.check(gate_command.default_inputs())
        self.assertEqual(document_bytes(checked.decide().document),
                         document_bytes(pipeline.evaluate(gate_command.default_inputs())
                                        .document))
        with self.assertRaises(ValueError):
            checked.decide(frozenset(["train-refund-basic"]))


if __name__ == "__main__":
    unittest.main()
