"""docs/release.md's tables of the chance of a false alarm (devtools/release_bench.py, kept
current by ``publish``), each cell held to the exact chance it states."""

import unittest
from fractions import Fraction

from devtools import release_bench
from proagents_bench.stats.multiplicity import independent_false_alarm


class FalseAlarmTableTests(unittest.TestCase):
    def test_the_docs_table_writes_each_chance_exactly(self):
        table = release_bench.false_alarm_tables().split("\n\n")[0].splitlines()[2:]
        self.assertEqual(len(table), len(release_bench.TABLE_GATES))
        level = release_bench.TABLE_LEVEL
        for gates, line in zip(release_bench.TABLE_GATES, table):
            cells = [cell.strip() for cell in line.strip("|").split("|")]
            self.assertEqual(int(cells[0]), gates)
            self.assertEqual(Fraction(cells[1]), independent_false_alarm(level, gates))
            # Holm over K independent continuous tests alarms when the least p is <= a / K.
            holm_chance = Fraction(cells[3])
            self.assertEqual(holm_chance, 1 - (1 - level / gates) ** gates)
            self.assertLessEqual(holm_chance, level)


if __name__ == "__main__":
    unittest.main()
