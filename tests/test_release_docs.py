"""The release's docs (docs/release.md) hold: its one command decides the shipped example plus
an imported Inspect AI benchmark and an imported tau2-bench benchmark, run exactly as written;
the commands that decide one of them alone give that benchmark's decision byte for byte; the
manifest it shows is the shipped one; the README links the page."""

import json
import os
import re
import shlex
import shutil
import subprocess
import sys
import unittest

from tests.support import ROOT, TempDir


def docs():
    with open(os.path.join(ROOT, "docs", "release.md"), "rb") as handle:
        return handle.read().decode("utf-8")


def shell_blocks():
    return re.findall(r"```sh\n(.*?)```", docs(), re.S)


def run_line(line, cwd):
    """One documented command line (``python3 -B run_benchmark.py ...; test ...``), run as
    written with this interpreter, from ``cwd``; (status, stdout, stderr)."""
    command = shlex.split(line.split(";")[0])
    if command[:3] != ["python3", "-B", "run_benchmark.py"]:
        raise AssertionError("not a documented command: %r" % line)
    completed = subprocess.run([sys.executable, "-B", os.path.join(ROOT, "run_benchmark.py")]
                               + command[3:], cwd=cwd, stdout=subprocess.PIPE,
                               stderr=subprocess.PIPE, stdin=subprocess.DEVNULL, timeout=300)
    return completed.returncode, completed.stdout, completed.stderr.decode("utf-8", "replace")


def gate_bytes(decision):
    return (json.dumps(decision, ensure_ascii=True, sort_keys=True, indent=2) + "\n").encode(
        "ascii")


class ReleaseDocsTests(unittest.TestCase):
    ONCE_PER_INTERPRETER = "child processes only, in plain mode"

    @classmethod
    def setUpClass(cls):
        """The docs' one command, run once as written from the project folder."""
        cls.blocks = shell_blocks()
        cls.lines = [line for line in cls.blocks[0].splitlines() if line.strip()]
        cls.status, stdout, cls.stderr = run_line(cls.lines[0], ROOT)
        cls.release = json.loads(stdout.decode("ascii"))

    def test_the_one_command_decides_the_example_and_two_imported_benchmarks(self):
        self.assertEqual(len(self.blocks), 2)
        self.assertEqual(len(self.lines), 1)
        self.assertIn("test $? -eq 1", self.lines[0])
        self.assertEqual(self.status, 1, self.stderr)
        release = self.release
        self.assertEqual(release["action"], "BLOCK")
        self.assertEqual([(row["name"], row["evidence"], row["action"], row["tier_effect"])
                          for row in release["benchmarks"]],
                         [("orders-example", "files", "PASS", "PASS"),
                          ("orders-inspect", "import", "BLOCK", "BLOCK"),
                          ("tau2-retail", "import", "BLOCK", "REVIEW")])
        self.assertIn("proagents-bench release", self.stderr)  # --summary
        # Each decision inside it is byte for byte its gate's alone: the example's, from the
        # project folder; the imported ones, from a folder holding the same files at the same
        # relative paths (the import writes its package where it runs).
        example = subprocess.run(
            [sys.executable, "-B", os.path.join(ROOT, "run_benchmark.py"), "--spec",
             "examples/benchmark_spec.json", "--cases", "examples/benchmark_cases.json",
             "--results", "examples/benchmark_results_pass.json"], cwd=ROOT,
            stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, timeout=300).stdout
        self.assertEqual(gate_bytes(release["benchmarks"][0]["decision"]), example)
        folder = self.mirror(["tau2_spec.json", "tau2_baseline.json", "tau2_candidate.json",
                              "tau2_mapping.json"])
        fixtures = "tests/importers/fixtures/"
        for line in (
                "python3 -B run_benchmark.py import --baseline %stau2_baseline.json --candidate "
                "%stau2_candidate.json --mapping %stau2_mapping.json --write-cases "
                "tau2-retail.cases.json --output tau2-retail.results.json" % (
                    (fixtures,) * 3),
                "python3 -B run_benchmark.py --spec %stau2_spec.json --cases "
                "tau2-retail.cases.json --results tau2-retail.results.json" % fixtures):
            status, stdout, stderr = run_line(line, folder)
        self.assertEqual(status, 1, stderr)
        self.assertEqual(gate_bytes(release["benchmarks"][2]["decision"]), stdout)

    def test_deciding_one_benchmark_alone_gives_its_decision_byte_for_byte(self):
        lines = [line for line in shell_blocks()[1].splitlines() if line.strip()]
        self.assertEqual(len(lines), 2)
        folder = self.mirror(["test_only_spec.json", "test_only_baseline.eval",
                              "test_only_candidate.eval"])
        statuses = []
        for line in lines:
            status, stdout, stderr = run_line(line, folder)
            statuses.append(status)
        self.assertEqual(statuses, [0, 1], stderr)
        decision = self.release["benchmarks"][1]["decision"]
        self.assertEqual(gate_bytes(decision), stdout)

    def mirror(self, fixtures):
        """A folder holding these import fixtures at their paths in the project."""
        folder = TempDir(self).path
        target = os.path.join(folder, "tests", "importers", "fixtures")
        os.makedirs(target)
        for name in fixtures:
            shutil.copy(os.path.join(ROOT, "tests", "importers", "fixtures", name), target)
        return folder

    def test_the_manifest_shown_is_the_shipped_one(self):
        block = re.search(r"## The manifest.*?```json\n(.*?)```", docs(), re.S).group(1)
        with open(os.path.join(ROOT, "examples", "release_manifest.json"), "rb") as handle:
            self.assertEqual(json.loads(block), json.loads(handle.read().decode("utf-8")))

    def test_the_readme_links_the_page_and_the_speed_is_measured(self):
        with open(os.path.join(ROOT, "README.md"), "rb") as handle:
            readme = handle.read().decode("utf-8")
        self.assertIn("[docs/release.md](docs/release.md)", readme.split(
            "## Where to go next")[1].split("##")[0])
        speed = docs().split("<!-- BEGIN release speed -->")[1].split(
            "<!-- END release speed -->")[0]
        self.assertIn("| 5 gates, one after another |", speed)


if __name__ == "__main__":
    unittest.main()
