"""The maintainers' page (docs/maintaining.md): its two commands run as written, the outputs
it quotes are what they print, and the README links it."""

import os
import re
import shlex
import unittest
from unittest import mock

from tests.support import ROOT, TempDir, run_cli

DOC = os.path.join(ROOT, "docs", "maintaining.md")


def page():
    with open(DOC, "rb") as handle:
        return handle.read().decode("utf-8")


def commands():
    """The two commands of the page's first ``sh`` block, as argument lists (the validity
    audit's block, later, is held by tests/test_validity_audit.py)."""
    blocks = re.findall(r"```sh\n(.*?)```", page(), re.S)
    return [shlex.split(line) for line in blocks[0].splitlines() if line]


def quoted(after):
    """The lines of the plain block that follows the words ``after``."""
    text = page()
    block = re.search(re.escape(after) + r".*?```\n(.*?)```", text, re.S).group(1)
    return [line for line in block.splitlines() if line and line != "..."]


def as_written(arguments, folder):
    """A documented command's arguments, as written but for a written file, which goes to
    ``folder``."""
    return [os.path.join(folder, argument) if argument.endswith(".html") else argument
            for argument in arguments[3:]]


def run_in_project(arguments):
    """Run the command line from the project folder, as the page says."""
    before = os.getcwd()
    os.chdir(ROOT)
    try:
        return run_cli(arguments)
    finally:
        os.chdir(before)


class MaintainingDocsTests(unittest.TestCase):
    def test_the_two_commands_run_as_written(self):
        found = commands()
        self.assertEqual([command[:4] for command in found],
                         [["python3", "-B", "run_benchmark.py", "health"],
                          ["python3", "-B", "run_benchmark.py", "diff"]])
        folder = TempDir(self).path
        health = run_in_project(as_written(found[0], folder))
        self.assertEqual(health.status, 0, health.stderr)
        self.assertEqual(health.document["system_count"], 7)
        self.assertEqual([item["case_id"] for item in health.document["audit"]],
                         ["test-status", "test-safety", "test-refund"])
        self.assertTrue(os.path.isfile(os.path.join(folder, "health.html")))
        diff = run_in_project(as_written(found[1], folder))
        self.assertEqual(diff.status, 0, diff.stderr)
        self.assertEqual(diff.document["action"], "DIFF")

    def test_the_outputs_it_quotes_are_what_the_commands_print(self):
        folder = TempDir(self).path
        found = commands()
        with mock.patch.dict(os.environ, {"COLUMNS": "100"}):
            printed = [run_in_project(as_written(command, folder) + ["--format", "text"]).stdout
                       .decode("ascii").splitlines() for command in found]
        for lines, after in ((printed[0], "At a terminal it ends:"),
                             (printed[1], "PASS package recorded under the old one:")):
            with self.subTest(after):
                expected = quoted(after)
                self.assertTrue(expected)
                for line in expected:
                    self.assertIn(line, lines)

    def test_the_readme_links_it(self):
        with open(os.path.join(ROOT, "README.md"), "rb") as handle:
            readme = handle.read().decode("utf-8")
        section = readme[readme.index("## Where to go next"):]
        self.assertIn("[docs/maintaining.md](docs/maintaining.md)", section)


if __name__ == "__main__":
    unittest.main()
