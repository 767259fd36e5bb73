"""The HTML reports as a browser lays them out, at a laptop's width (1280 px) and a phone's
(390 px): whole, measured in headless Chromium.

At each width, the gate's report of a package of five trials a task (the grid then has a dozen
trial columns beside the task, its slice and both verdicts), the health page and the release
page: the page never scrolls sideways, no table or chart is cut at the edge of its scroll
container, and no text of a chart leaves the chart or the screen (the bootstrap's
``observed`` label, the slice bars' values). Each page is the ``srcdoc`` of a frame of that
width inside a page of the test's own, whose script measures the frames and writes the
figures into the document Chromium prints (``--dump-dom``), as the leaderboard page's test
does. Skipped, saying why, where Chromium is not installed (CI installs it).
"""

import html
import os
import unittest

from devtools.synthetic import make_package
from tests.support import TempDir, run_cli
from tests.test_service_page import chromium, measured_in_chromium

# The widths the reports are looked at: a laptop's and a phone's.
WIDTHS = (1280, 390)
HEIGHT = 900

MEASURING_PAGE = """<!DOCTYPE html><html><head><meta charset="utf-8"></head>
<body style="margin:0">%s<pre id="measured"></pre>
<script>
var frames = document.querySelectorAll("iframe"), found = {};
function measure(frame) {
  var page = frame.contentDocument, root = page.documentElement, view = root.clientWidth;
  var shown = {width: view, page_width: root.scrollWidth, cut: [], charts: 0};
  page.querySelectorAll(".scroll").forEach(function (box) {
    if (box.offsetParent === null) return;
    if (box.scrollWidth > box.clientWidth + 1) {
      var inner = box.querySelector("table, svg:not([style*='none'])");
      shown.cut.push({what: inner ? inner.getAttribute("class") : "?",
                      width: box.clientWidth, content: box.scrollWidth});
    }
  });
  page.querySelectorAll("svg.chart").forEach(function (chart) {
    var box = chart.getBoundingClientRect();
    if (!box.width) return;  /* the chart of the other width, not shown */
    shown.charts += 1;
    chart.querySelectorAll("text").forEach(function (text) {
      var it = text.getBoundingClientRect();
      if (it.left < box.left - 0.5 || it.right > box.right + 0.5 || it.left < 0 ||
          it.right > view)
        shown.cut.push({what: chart.getAttribute("aria-label"), text: text.textContent});
    });
  });
  return shown;
}
/* Measured at the page's own load, which comes after every frame's: a listener on a frame
   added after that frame had loaded (a race under load) would never be called. */
window.addEventListener("load", function () {
  frames.forEach(function (frame) { found[frame.id] = measure(frame); });
  document.getElementById("measured").textContent = JSON.stringify(found);
});
</script></body></html>"""
FRAME = '<iframe id="%s" width="%d" height="%d" style="border:0" srcdoc="%s"></iframe>'


def measure(test, pages, width):
    """The layout of each of ``pages`` ({name: HTML text}) in a frame ``width`` pixels wide,
    as headless Chromium lays it out: {name: {width, page_width, cut, charts}}."""
    frames = "".join(FRAME % (name, width, HEIGHT, html.escape(text, quote=True))
                     for name, text in pages.items())
    return measured_in_chromium(test, MEASURING_PAGE % frames, width, HEIGHT)


def report_pages(test):
    """The gate's report of a package of 40 tasks of five trials (a BLOCK with failing tasks
    of every slice), the health page of that package, and the example release's page."""
    folder = TempDir(test)
    spec, cases, results = make_package(40, trial_count=5)
    inputs = []
    for kind, value in (("spec", spec), ("cases", cases), ("results", results)):
        inputs += ["--" + kind, folder.write_json(kind + ".json", value)]
    paths = {name: os.path.join(folder.path, name + ".html")
             for name in ("gate", "health", "release")}
    runs = [run_cli(inputs + ["--html", paths["gate"]]),
            run_cli(["health"] + inputs[:4] + ["--results", inputs[5], "--html",
                                               paths["health"]]),
            run_cli(["release", "--html", paths["release"]])]
    for run in runs:
        test.assertIn(run.status, (0, 1), run.stderr)
    pages = {}
    for name, path in paths.items():
        with open(path, "rb") as handle:
            pages[name] = handle.read().decode("utf-8")
    test.assertIn('<th colspan="5">Candidate candidate: trials</th>', pages["gate"])
    return pages


@unittest.skipIf(chromium() is None, "Chromium is not installed (chromium on PATH): the "
                                     "reports' layout cannot be measured here")
class ReportLayoutTests(unittest.TestCase):
    def test_every_report_is_whole_at_1280_and_390_pixels(self):
        pages = report_pages(self)
        for width in WIDTHS:
            measured = measure(self, pages, width)
            for name in pages:
                with self.subTest(width=width, page=name):
                    shown = measured[name]
                    self.assertLessEqual(shown["page_width"], shown["width"], shown)
                    self.assertEqual(shown["cut"], [], shown)
                    if name == "gate":
                        self.assertEqual(shown["charts"], 4)  # one of each width's charts


if __name__ == "__main__":
    unittest.main()
