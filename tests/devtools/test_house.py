"""The development package's own house rules: each module small enough to read whole (450
lines, as the product's), and every bench kind tested here on a small size."""

import glob
import os
import re
import unittest

from devtools.bench_command import BENCHES
from tests.support import ROOT

MAX_MODULE_LINES = 450


class HouseTests(unittest.TestCase):
    def test_no_module_is_over_450_lines(self):
        long = {}
        for path in glob.glob(os.path.join(ROOT, "devtools", "*.py")):
            with open(path, "rb") as handle:
                lines = handle.read().count(b"\n")
            if lines > MAX_MODULE_LINES:
                long[os.path.basename(path)] = lines
        self.assertEqual(long, {})

    def test_every_bench_kind_runs_in_a_test(self):
        ran = set()
        for path in glob.glob(os.path.join(ROOT, "tests", "devtools", "test_*.py")):
            with open(path, "rb") as handle:
                text = handle.read().decode("utf-8")
            ran.update(re.findall(r'run_devtools\(\["bench", "([a-z-]+)"', text))
        self.assertEqual(sorted(bench.kind for bench in BENCHES if bench.kind not in ran), [])


if __name__ == "__main__":
    unittest.main()
