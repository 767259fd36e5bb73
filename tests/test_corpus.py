"""The fixture corpora: every damaged file states the errors it must produce.

``corpus/invalid/KIND/NAME.json`` is a damaged KIND file (spec, cases or results); the other
two files of its package are the shipped example's (named on the command line). ``NAME.errors`` beside it lists, one per
line, the ``code path`` of every error it must produce, and no other error may appear.
``corpus/valid/KIND/NAME.json`` must be accepted: a decision, never a contract error.
"""

import glob
import os
import unittest

from tests.support import codes, run_cli, with_example

CORPUS = os.path.join(os.path.dirname(os.path.abspath(__file__)), "corpus")
KINDS = ("spec", "cases", "results")


def corpus_files(validity):
    for kind in KINDS:
        for path in sorted(glob.glob(os.path.join(CORPUS, validity, kind, "*.json"))):
            yield kind, path


def expected_errors(path):
    with open(path[:-len(".json")] + ".errors", "rb") as handle:
        lines = handle.read().decode("utf-8").splitlines()
    return [tuple(line.split(" ", 1)) for line in lines if line.strip()]


class InvalidCorpusTests(unittest.TestCase):
    def test_every_damaged_file_produces_exactly_its_stated_errors(self):
        files = list(corpus_files("invalid"))
        self.assertGreater(len(files), 50)
        for kind, path in files:
            with self.subTest(file="%s/%s" % (kind, os.path.basename(path))):
                run = run_cli(with_example(["--" + kind, path]))
                self.assertEqual(run.status, 2, run.stdout[:500])
                self.assertEqual(sorted(codes(run)), sorted(expected_errors(path)))
                for error in run.document["errors"]:
                    self.assertEqual(error["file"], path)
                    self.assertIn(path, run.stderr)
                    self.assertTrue(error["message"])
                    if not error["code"].startswith(("file.", "encoding.invalid")):
                        self.assertIsInstance(error["line"], int)
                        self.assertIsInstance(error["column"], int)

    def test_every_damaged_file_has_its_expectations(self):
        for kind, path in corpus_files("invalid"):
            with self.subTest(file=path):
                self.assertTrue(expected_errors(path))


class ValidCorpusTests(unittest.TestCase):
    def test_every_valid_file_is_accepted(self):
        files = list(corpus_files("valid"))
        self.assertGreater(len(files), 10)
        for kind, path in files:
            with self.subTest(file="%s/%s" % (kind, os.path.basename(path))):
                run = run_cli(with_example(["--" + kind, path]))
                self.assertIn(run.status, (0, 1), run.stderr)
                self.assertIn(run.document["action"], ("PASS", "REVIEW", "BLOCK"))


if __name__ == "__main__":
    unittest.main()
