"""explain's HTML report as a browser lays it out, every task unfolded: at 1280 and at 390
pixels wide each alignment of tool calls is whole across (both systems' columns on the
screen, the first divergence with them, nothing cut, no sideways scroll), measured in
headless Chromium as the service's page is (tests/test_service_page.py; skipped, saying why,
where Chromium is not installed)."""

import os
import unittest

from tests.importers.support import EXAMPLE_CASES, EXAMPLE_SPEC, read_bytes
from tests.support import TempDir, run_cli
from tests.test_explain_command import BASELINE, CANDIDATE, IMPORT

from .test_service_page import SCREENS, chromium, measure

# Every fold opened; per alignment table, its box against its scroll container's.
ALIGNMENTS = """
  frame.querySelectorAll("details").forEach(function (fold) { fold.open = true; });
  shown.tables = [];
  frame.querySelectorAll("table.alignment").forEach(function (table) {
    var box = table.getBoundingClientRect(), first = table.querySelector("tr.first");
    shown.tables.push({right: box.right, width: table.parentNode.clientWidth,
                       content_width: table.scrollWidth,
                       first_right: first ? first.getBoundingClientRect().right : null});
  });
"""


@unittest.skipIf(chromium() is None, "Chromium is not installed (chromium on PATH): the page's "
                                     "layout cannot be measured here")
class AlignmentLayoutTests(unittest.TestCase):
    def test_the_alignment_is_whole_across_at_1280_and_390_pixels(self):
        folder = TempDir(self)
        results = os.path.join(folder.path, "results.json")
        self.assertEqual(run_cli(IMPORT + ["--output", results]).status, 0)
        page = os.path.join(folder.path, "report.html")
        run = run_cli(["explain", "--spec", EXAMPLE_SPEC, "--cases", EXAMPLE_CASES,
                       "--results", results, "--baseline", BASELINE, "--candidate", CANDIDATE,
                       "--case", "test-refund", "--html", page])
        self.assertEqual(run.status, 1, run.stderr)
        for width, height in SCREENS:
            with self.subTest(width=width):
                shown = measure(self, read_bytes(page).decode("utf-8"), width, height,
                                ALIGNMENTS)
                self.assertEqual(len(shown["tables"]), 2, shown)
                for table in shown["tables"]:
                    self.assertLessEqual(table["content_width"], table["width"], shown)
                    self.assertLessEqual(table["right"], shown["width"], shown)
                    self.assertIsNotNone(table["first_right"])
                    self.assertLessEqual(table["first_right"], shown["width"], shown)
                self.assertLessEqual(shown["page_width"], shown["width"], shown)


if __name__ == "__main__":
    unittest.main()
