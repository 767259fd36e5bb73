"""The candidate's log read in a forked process gives what reading it here gives: the same
records, the same errors; a child that fails is replaced by reading here."""

import os
import unittest

from proagents_bench.cli import parallel
from proagents_bench.errors import ContractErrors
from proagents_bench.importers.package import import_logs, run_here
from proagents_bench.importers.settings import default_settings
from proagents_bench.importers.source import LogSource
from tests.importers.support import changed_eval, fixture
from tests.support import TempDir

FORKS = hasattr(os, "fork")


def imported(candidate, background):
    return import_logs([LogSource(fixture("baseline.eval")), LogSource(candidate)],
                       default_settings(), None, True, ("b", "c"), background)


@unittest.skipUnless(FORKS, "no os.fork on this platform")
class ForkedReadingTests(unittest.TestCase):
    def test_a_forked_reading_gives_the_same_package(self):
        here = imported(fixture("candidate.eval"), run_here)
        forked = imported(fixture("candidate.eval"), parallel.forking_background(1, 0))
        self.assertEqual(here.results, forked.results)
        self.assertEqual(here.cases, forked.cases)

    def test_a_forked_reading_gives_the_same_errors(self):
        def rename(name, value):
            if name == "samples/test-privacy_epoch_1.json":
                value["id"] = 2.5
        bad = changed_eval(TempDir(self), "bad.eval", rename, source="candidate.eval")
        outcomes = []
        for background in (run_here, parallel.forking_background(1, 0)):
            with self.assertRaises(ContractErrors) as caught:
                imported(bad, background)
            outcomes.append([error.as_dict() for error in caught.exception.errors])
        self.assertEqual(outcomes[0], outcomes[1])
        self.assertEqual(outcomes[0][0]["code"], "import.sample_id")

    def test_a_child_that_fails_is_replaced_by_reading_here(self):
        parent = os.getpid()

        def read():
            if os.getpid() != parent:
                raise RuntimeError("a bug in the child")
            return "read here"
        self.assertEqual(parallel.forking_background(1, 0)(read)(), "read here")

    def test_small_logs_are_read_here(self):
        self.assertIs(parallel.forking_background(1000), run_here)


if __name__ == "__main__":
    unittest.main()
