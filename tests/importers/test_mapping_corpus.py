"""The mapping corpus: every damaged mapping states the errors it must produce.

``corpus/invalid/NAME.json`` is a damaged mapping, imported with the fixture Inspect logs;
``NAME.errors`` beside it lists, one per line, the ``code path`` of every error it must
produce, and no other error may appear. ``corpus/valid/NAME.json`` must be accepted.
"""

import glob
import os
import unittest

from tests.importers.support import fixture, run_import

CORPUS = os.path.join(os.path.dirname(os.path.abspath(__file__)), "corpus")
LOGS = (fixture("baseline.eval"), fixture("candidate.eval"))
IDS = ("--baseline-id", "b", "--candidate-id", "c")


def corpus(validity):
    return sorted(glob.glob(os.path.join(CORPUS, validity, "*.json")))


def expected_errors(path):
    with open(path[:-len(".json")] + ".errors", "rb") as handle:
        lines = handle.read().decode("utf-8").splitlines()
    return sorted(tuple(line.split(" ", 1)) for line in lines if line.strip())


class MappingCorpusTests(unittest.TestCase):
    def test_every_damaged_mapping_produces_exactly_its_stated_errors(self):
        files = corpus("invalid")
        self.assertGreater(len(files), 8)
        for path in files:
            with self.subTest(mapping=os.path.basename(path)):
                run, written = run_import(self, *LOGS, "--mapping", path, *IDS)
                self.assertEqual(run.status, 2, run.stdout[:300])
                self.assertIsNone(written)
                self.assertEqual(sorted((error["code"], error["path"])
                                        for error in run.document["errors"]),
                                 expected_errors(path))
                for error in run.document["errors"]:
                    self.assertEqual(error["file"], path)
                    self.assertIsInstance(error["line"], int)

    def test_every_valid_mapping_is_accepted(self):
        files = corpus("valid")
        self.assertGreater(len(files), 1)
        for path in files:
            with self.subTest(mapping=os.path.basename(path)):
                run, written = run_import(self, *LOGS, "--mapping", path, *IDS)
                self.assertEqual(run.status, 0, run.stderr)
                self.assertEqual(written["systems"][0]["provenance"]["log_file"],
                                 "baseline.eval")


if __name__ == "__main__":
    unittest.main()
