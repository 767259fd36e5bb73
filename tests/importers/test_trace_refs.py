"""Results v5: the import asked for trace references writes, in every record, where its
trial's trace is (the log by its index in the provenance, the unit as the harness names it,
the digest of the bytes the trace is read from), and nothing else changes: the gate decides
a v5 package as the same records without them, and an import not asked writes exactly what
it wrote before (v3, or v4 for several logs)."""

import hashlib
import json
import unittest
import zipfile

from proagents_bench import pipeline
from proagents_bench.contract.vocabulary import RESULTS_V5
from tests.support import TempDir

from .support import EXAMPLE_CASES, EXAMPLE_SPEC, fixture, load_json, run_import, traced_import

EXPLAIN = (fixture("explain_baseline.eval"), fixture("explain_candidate.eval"),
           fixture("explain_mapping.json"), EXAMPLE_CASES)
IDS = ("baseline-v1", "candidate-regression")


def decision(test, results):
    path = TempDir(test).write_json("results.json", results)
    document = pipeline.evaluate([pipeline.InputFile("spec", EXAMPLE_SPEC),
                                  pipeline.InputFile("cases", EXAMPLE_CASES),
                                  pipeline.InputFile("results", path)]).document
    for key in ("evidence_fingerprint", "inputs"):
        del document[key]
    return document


class TraceReferenceTests(unittest.TestCase):
    def test_an_eval_log_s_references_are_its_sample_entries_and_their_digests(self):
        results, _logs = traced_import(*EXPLAIN, ids=IDS)
        self.assertEqual(results["schema_version"], RESULTS_V5)
        with zipfile.ZipFile(EXPLAIN[1]) as archive:
            for record in results["systems"][1]["records"]:
                trace = record["trace"]
                entry = "samples/%s_epoch_%d.json" % (record["case_id"], record["trial_id"])
                self.assertEqual(trace, {
                    "log": 0, "unit": "sample", "id": record["case_id"],
                    "epoch": record["trial_id"], "index": None, "entry": entry,
                    "sha256": hashlib.sha256(archive.read(entry)).hexdigest()})

    def test_each_log_of_a_system_is_named_by_its_index(self):
        folder = fixture("swebench_explain/")
        results, _logs = traced_import(
            [folder + "acme__agent-v1.baseline-run1.json",
             folder + "acme__agent-v1.baseline-run2.json"],
            [folder + "acme__agent-v2.candidate-run1.json",
             folder + "acme__agent-v2.candidate-run2.json"], fixture("swebench_mapping.json"),
            ids=("agent-v1", "agent-v2"))
        records = results["systems"][0]["records"]
        self.assertEqual([(record["trial_id"], record["trace"]["log"], record["trace"]["entry"])
                          for record in records if record["case_id"] == "acme__widgets-201"],
                         [(1, 0, "logs/run_evaluation/baseline-run1/acme__agent-v1/"
                                 "acme__widgets-201"),
                          (2, 1, "logs/run_evaluation/baseline-run2/acme__agent-v1/"
                                 "acme__widgets-201")])

    def test_a_whole_log_s_reference_carries_the_log_s_digest(self):
        results, _logs = traced_import(fixture("promptfoo_baseline.json"),
                                       fixture("promptfoo_candidate.json"))
        for system in results["systems"]:
            digest = system["provenance"]["logs"][0]["log_sha256"]
            self.assertEqual({record["trace"]["sha256"] for record in system["records"]},
                             {digest})
            self.assertEqual(sorted(record["trace"]["index"] for record in system["records"]),
                             list(range(9)))

    def test_the_gate_decides_a_v5_package_as_the_same_records_without_references(self):
        results, _logs = traced_import(*EXPLAIN, ids=IDS)
        without = json.loads(json.dumps(results))
        without["schema_version"] = "agent-benchmark-results-v4"
        for system in without["systems"]:
            for record in system["records"]:
                del record["trace"]
        self.assertEqual(decision(self, results), decision(self, without))
        self.assertEqual(decision(self, results)["action"], "BLOCK")

    def test_an_import_not_asked_writes_what_it_wrote_before(self):
        run, written = run_import(self, EXPLAIN[0], EXPLAIN[1], "--mapping", EXPLAIN[2],
                                  "--cases", EXPLAIN[3], "--baseline-id", IDS[0],
                                  "--candidate-id", IDS[1])
        self.assertEqual(run.status, 0, run.stderr)
        self.assertEqual(written["schema_version"], "agent-benchmark-results-v3")
        self.assertNotIn("trace", written["systems"][0]["records"][0])
        traced, _logs = traced_import(*EXPLAIN, ids=IDS)
        for mine, theirs in zip(traced["systems"], written["systems"]):
            self.assertEqual([{key: value for key, value in record.items() if key != "trace"}
                              for record in mine["records"]], theirs["records"])
        self.assertEqual(load_json(fixture("explain_mapping.json"))["side_effect_tools"],
                         ["issue_refund", "cancel_order", "refund_order", "share_customer_data"])


if __name__ == "__main__":
    unittest.main()
