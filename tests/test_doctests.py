"""The examples in the package's docstrings are tests too: each module below is run through
:mod:`doctest` (``format_path``, the quoting of input values, pass^k, the nearest-rank rule,
the binomial sampler's contract, McNemar's p-value, the chart ticks, the terminal-safe line)."""

import doctest
import unittest
from importlib import import_module

MODULES = (
    "proagents_bench.text",
    "proagents_bench.errors",
    "proagents_bench.stats.quantiles",
    "proagents_bench.stats.passk",
    "proagents_bench.stats.paired",
    "proagents_bench.stats.exact_tests",
    "proagents_bench.stats.student",
    "proagents_bench.stats.binomial",
    "proagents_bench.stats.multiplicity",
    "proagents_bench.contract.sequential",
    "proagents_bench.reports.svg",
    "proagents_bench.reports.charts",
    "proagents_bench.reports.words",
    "proagents_bench.cli.streams",
    "proagents_bench.service.budget",
    "proagents_bench.service.feedback",
)


def load_tests(loader, tests, pattern):
    for name in MODULES:
        tests.addTests(doctest.DocTestSuite(import_module(name)))
    return tests


class DoctestCountTests(unittest.TestCase):
    def test_every_listed_module_has_examples(self):
        finder = doctest.DocTestFinder()
        for name in MODULES:
            with self.subTest(module=name):
                examples = sum(len(test.examples) for test in finder.find(import_module(name)))
                self.assertGreater(examples, 0)


if __name__ == "__main__":
    unittest.main()
