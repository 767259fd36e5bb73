"""The sequential design's tables (devtools/sequential_tables.py, docs/statistics.md): what
docs/statistics.md says of them holds, row by row: the guarantee at most alpha in every
design, the expected cost at the planned effect within 70% of the fixed design of the same
power unit by unit and with 20 batches, between 67% and 72% with 10, above 70% with 5; and
``bench sequential`` prints the tables the docs hold (publish keeps those current)."""

import os
import unittest
from fractions import Fraction

from devtools import sequential_tables
from proagents_bench.stats.discordant_paths import HALF, ever_crossing
from tests.devtools.support import run_devtools
from tests.support import ROOT


class GuaranteeTableTests(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.rows = sequential_tables.guarantee_rows()

    def test_every_design_of_the_grid_keeps_its_alpha_exactly(self):
        self.assertEqual(len(self.rows), 12)
        for row in self.rows:
            with self.subTest(alpha=row.alpha, win_share=row.win_share, factor=row.factor):
                boundary = sequential_tables.design(row.alpha, row.win_share, row.factor)
                self.assertLessEqual(ever_crossing(boundary.passing, HALF), row.alpha)
                expected, fixed = float(row.cells[7]), int(row.cells[9])
                self.assertLess(expected / fixed, 0.69)  # 61-68%, as the docs say
                self.assertGreaterEqual(float(row.cells[5].rstrip("%")), 80)


class BatchTableTests(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.rows = sequential_tables.batch_rows()

    def savings(self, batches):
        return {(row.alpha, row.win_share): row.saving for row in self.rows
                if row.batches == batches}

    def test_twenty_batches_cost_at_most_70_percent_of_the_fixed_design(self):
        for key, saving in self.savings(20).items():
            with self.subTest(design=key):
                self.assertLessEqual(saving, Fraction(7, 10))
                self.assertGreaterEqual(saving, Fraction(63, 100))

    def test_ten_batches_cost_67_to_72_percent(self):
        savings = self.savings(10)
        above = sorted(key for key, saving in savings.items() if saving > Fraction(7, 10))
        self.assertEqual(above, [(Fraction(1, 40), Fraction(3, 5)),
                                 (Fraction(1, 20), Fraction(3, 5))])
        self.assertTrue(all(Fraction(67, 100) <= saving <= Fraction(72, 100)
                            for saving in savings.values()))

    def test_five_batches_cost_more_than_70_percent(self):
        for key, saving in self.savings(5).items():
            with self.subTest(design=key):
                self.assertGreater(saving, Fraction(7, 10))
                self.assertLess(saving, Fraction(79, 100))

    def test_the_pass_chance_with_no_effect_stays_within_alpha(self):
        for row in self.rows:
            with self.subTest(alpha=row.alpha, win_share=row.win_share, batches=row.batches):
                self.assertLessEqual(Fraction(row.cells[4].rstrip("%")) / 100, row.alpha)


class PrintedTablesTests(unittest.TestCase):
    def test_bench_sequential_prints_the_docs_tables(self):
        run = run_devtools(["bench", "sequential", "--table", "repeated"])
        self.assertEqual(run.status, 0, run.stderr)
        printed = run.stdout.decode("ascii")
        self.assertEqual(printed.strip(), sequential_tables.table("repeated").strip())
        with open(os.path.join(ROOT, "docs", "statistics.md"), "rb") as handle:
            self.assertIn(printed.strip(), handle.read().decode("utf-8"))


if __name__ == "__main__":
    unittest.main()
