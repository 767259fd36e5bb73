"""The leaderboard page as a browser lays it out: after a phase closes, the final board comes
first and whole, at 1280 and at 390 pixels wide (no sideways scroll, every row on the first
screen), measured in headless Chromium.

The page forbids scripts (its Content-Security-Policy), so the test loads it as the
``srcdoc`` of a frame of the given size inside a page of its own, whose script measures the
frame's layout and writes the figures into the document Chromium prints (``--dump-dom``).
The test is skipped, saying why, where Chromium is not installed (CI installs it).
"""

import html
import json
import os
import re
import shutil
import subprocess
import unittest

from .service_support import Service, failing, submission_bytes
from .support import TempDir, example_package
from .test_service_phases import close_phase, open_phase

# The widths the page is looked at: a laptop's and a phone's (with their screen heights).
SCREENS = ((1280, 900), (390, 844))
CHROMIUM_TIMEOUT = 120

# The page that frames the page measured (its size, its text) and measures it with a script
# (the body of a function of the frame's document ``frame`` and the figures ``shown``).
MEASURING_PAGE = """<!DOCTYPE html><html><head><meta charset="utf-8"></head>
<body style="margin:0"><iframe id="page" width="%d" height="%d" style="border:0"
srcdoc="%s"></iframe><pre id="measured"></pre>
<script>
/* Measured at the page's own load, which comes after the frame's: a listener on the frame
   added after it had loaded (a race under load) would never be called. */
window.addEventListener("load", function () {
  var page = document.getElementById("page");
  var frame = page.contentDocument, root = frame.documentElement;
  var shown = {width: root.clientWidth, height: page.contentWindow.innerHeight};
  (function (frame, shown) { %s })(frame, shown);
  shown.page_width = root.scrollWidth;
  document.getElementById("measured").textContent = JSON.stringify(shown);
});
</script></body></html>"""

# The boards: per heading, the table after it (its box, its rows, its cells cut).
BOARDS = """
  shown.boards = [];
  frame.querySelectorAll("h2").forEach(function (heading) {
    var next = heading.nextElementSibling;
    var table = next && next.tagName == "TABLE" ? next : null;
    var board = {title: heading.firstChild.textContent,
                 top: heading.getBoundingClientRect().top, table: null, overflowing: 0};
    if (table) {
      var box = table.getBoundingClientRect();
      board.table = {left: box.left, right: box.right, bottom: box.bottom,
                     width: table.clientWidth, content_width: table.scrollWidth,
                     rows: table.querySelectorAll("tbody tr").length};
      table.querySelectorAll("th, td").forEach(function (cell) {
        if (cell.scrollWidth > cell.clientWidth + 1) board.overflowing += 1;
      });
    }
    shown.boards.push(board);
  });
"""


def chromium():
    """The Chromium executable, or None."""
    for name in ("chromium", "chromium-browser", "google-chrome"):
        found = shutil.which(name)
        if found:
            return found
    return None


def measure(test, page, width, height, script=BOARDS):
    """The layout of ``page`` (HTML text) in a frame of ``width`` x ``height`` pixels, as
    headless Chromium lays it out: the frame's width and height (without scroll bars), the
    page's whole width, and what ``script`` measures (by default per board its heading and
    its table's box)."""
    return measured_in_chromium(test, MEASURING_PAGE % (
        width, height, html.escape(page, quote=True), script), width, height)


def measured_in_chromium(test, wrapper_page, width, height):
    """What the script of ``wrapper_page`` (a page framing the pages measured, whose script
    writes its figures as JSON into its ``<pre id="measured">``) measured, as headless
    Chromium lays it out in a window a little larger than ``width`` x ``height``."""
    folder = TempDir(test).path
    wrapper = os.path.join(folder, "measure.html")
    with open(wrapper, "wb") as handle:
        handle.write(wrapper_page.encode("utf-8"))
    # The window is a little larger than the frame (headless Chromium keeps its window at
    # least 500 pixels wide); the frame is the screen measured.
    completed = subprocess.run(
        [chromium(), "--headless", "--no-sandbox", "--disable-gpu",
         "--user-data-dir=" + os.path.join(folder, "profile"),
         "--window-size=%d,%d" % (max(width, 500) + 40, height + 200), "--dump-dom",
         "file://" + wrapper.replace(os.sep, "/")],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, stdin=subprocess.DEVNULL,
        timeout=CHROMIUM_TIMEOUT)
    found = re.search(r'<pre id="measured">(.*?)</pre>',
                      completed.stdout.decode("utf-8", "replace"), re.S)
    if found is None or not found.group(1):
        raise AssertionError("Chromium measured nothing: %s" % completed.stderr.decode(
            "utf-8", "replace")[-2000:])
    return json.loads(html.unescape(found.group(1)))


def closed_phase_page(test):
    """The page of a service whose phase closed: six teams on the final board (one with a
    long name, one whose choice was INCOMPARABLE), nobody on every test case yet."""
    service = Service(test)
    test.assertEqual(open_phase(service).status, 0)
    results = example_package()[2]
    incomparable = example_package()[2]
    for system in incomparable["systems"]:
        system["protocol"]["max_steps"] = 99
    for number, (name, level) in enumerate((
            ("alpha", "ladder"), ("beta-team-with-a-rather-long-name", "rounded"),
            ("gamma", "verdict"), ("delta", "full"), ("epsilon", "ladder"),
            ("zeta", "full"))):
        token = service.team(name, level=level)
        body = (submission_bytes(incomparable) if name == "zeta" else submission_bytes(
            failing(results, ["test-cancel", "test-safety"][:number % 3])))
        test.assertEqual(service.submit(token, body).status, 200)
    service.team("idle")
    test.assertEqual(close_phase(service).status, 0)
    return service.call("GET", "/").body.decode("utf-8")


@unittest.skipIf(chromium() is None, "Chromium is not installed (chromium on PATH): the page's "
                                     "layout cannot be measured here")
class FinalBoardLayoutTests(unittest.TestCase):
    def test_the_final_board_comes_first_and_whole_at_1280_and_390_pixels(self):
        page = closed_phase_page(self)
        self.assertIn("INCOMPARABLE", page)
        for width, height in SCREENS:
            with self.subTest(width=width):
                shown = measure(self, page, width, height)
                first = shown["boards"][0]
                self.assertEqual(first["title"], "phase spring, final board")
                table = first["table"]
                self.assertEqual(table["rows"], 6)
                # Whole across: inside the screen, nothing wider than its box, no cell
                # cut, and the page itself never scrolls sideways.
                self.assertGreaterEqual(table["left"], 0)
                self.assertLessEqual(table["right"], shown["width"], shown)
                self.assertLessEqual(table["content_width"], table["width"], shown)
                self.assertEqual(first["overflowing"], 0, shown)
                self.assertLessEqual(shown["page_width"], shown["width"], shown)
                # Whole down: every row on the first screen.
                self.assertLessEqual(table["bottom"], shown["height"], shown)
                self.assertEqual(shown["boards"][1]["title"], "every test case (current)")


if __name__ == "__main__":
    unittest.main()
