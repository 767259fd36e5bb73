"""Did-you-mean past the command line: a misspelled key of an input is one error naming the key
meant (contract/containers.py), and a missing input file names the file beside it that was
most likely meant (jsonio/paths.py), for every file input of every command."""

import os
import unittest

from proagents_bench.contract.inputs import RECORD
from proagents_bench.jsonio import load, paths
from proagents_bench.text import nearest
from tests.support import TempDir, example_package, example_path, run_cli


def record_shape():
    """The results v1 record's object shape."""
    return RECORD


def errors_of(shape, value):
    return [(error.code, "/".join(map(str, error.path)), error.message)
            for error in shape.iter_errors(value)]


class NearKeyTests(unittest.TestCase):
    def setUp(self):
        # As the loader reads it (numbers as the contract's checks take them).
        loaded = load.load_file(example_path("benchmark_results_pass.json")).value
        self.record = dict(loaded["systems"][0]["records"][0])

    def test_a_misspelled_required_key_is_one_error_naming_the_key_meant(self):
        self.record["final_stat"] = self.record.pop("final_state")
        self.assertEqual(errors_of(record_shape(), self.record), [(
            "schema.unknown_key", "final_stat", 'unknown key "final_stat" in record: did you '
            'mean "final_state"? (a required key, missing)')])

    def test_a_far_unknown_key_and_a_missing_key_stay_two_errors(self):
        self.record["remark"] = self.record.pop("final_state")
        found = errors_of(record_shape(), self.record)
        self.assertEqual([(code, path) for code, path, _message in found], [
            ("schema.missing_key", "final_state"), ("schema.unknown_key", "remark")])
        self.assertIn("(allowed: case_id, trial_id", found[1][2])

    def test_a_key_near_one_present_is_no_misspelling_of_it(self):
        # final_state is there: final_stat is a stray key, not the missing one.
        self.record["final_stat"] = "x"
        found = errors_of(record_shape(), self.record)
        self.assertEqual([code for code, _path, _message in found], ["schema.unknown_key"])
        self.assertIn("allowed:", found[0][2])

    def test_two_misspellings_of_one_key_name_it_once(self):
        self.record["final_stat"] = self.record.pop("final_state")
        self.record["final_states"] = "x"
        found = errors_of(record_shape(), self.record)
        self.assertEqual(sorted(path for _code, path, _message in found),
                         ["final_stat", "final_states"])
        self.assertEqual(sum("did you mean" in message for _c, _p, message in found), 1)

    def test_the_gate_places_the_one_error_at_the_misspelled_key(self):
        spec, cases, results = example_package()
        record = results["systems"][0]["records"][2]
        record["final_stat"] = record.pop("final_state")
        folder = TempDir(self)
        run = run_cli(folder.package(spec, cases, results))
        self.assertEqual(run.status, 2)
        [error] = run.document["errors"]
        self.assertEqual((error["code"], error["path"]), (
            "schema.unknown_key", "$.systems[0].records[2].final_stat"))
        self.assertIsInstance(error["line"], int)
        self.assertIn('did you mean "final_state"?', error["message"])


class NearFileTests(unittest.TestCase):
    def setUp(self):
        self.folder = TempDir(self).path
        for name in ("benchmark_cases.json", "benchmark_spec.json", "notes.txt"):
            open(os.path.join(self.folder, name), "wb").close()

    def test_the_file_beside_a_missing_one_is_suggested_as_the_path_was_written(self):
        missing = os.path.join(self.folder, "benchmark_case.json")
        self.assertEqual(paths.near_file(missing), ' (did you mean "%s"?)' % os.path.join(
            self.folder, "benchmark_cases.json"))
        self.assertEqual(paths.near_file(missing, "shown/benchmark_case.json"),
                         ' (did you mean "shown/benchmark_cases.json"?)')

    def test_nothing_is_suggested_for_a_far_name_or_a_missing_folder(self):
        self.assertEqual(paths.near_file(os.path.join(self.folder, "results.jsonl")), "")
        self.assertEqual(paths.near_file(os.path.join(self.folder, "no", "cases.json")), "")

    def test_a_file_name_must_be_nearer_than_a_word(self):
        # Names share ".json": "base.jsonl" is no misspelling of "p5_cases.json".
        self.assertIsNone(nearest("base.jsonl", ["p5_cases.json"], 0.8))
        self.assertEqual(nearest("base.jsonl", ["p5_cases.json"]), "p5_cases.json")


if __name__ == "__main__":
    unittest.main()
