"""The import docs (docs/importing.md): its mapping example is a valid mapping, and its
walks (from a test-only Inspect log, from Inspect's and promptfoo's default output, from an
Inspect eval, from a tau2 run, from a Harbor job of 0.26 and of 0.21, from SWE-bench runs, whole
and on part of a dataset, from promptfoo results, from JSON lines) run as written."""

import json
import os
import re
import shlex
import unittest

from proagents_bench.contract.mapping import mapping_errors
from proagents_bench.jsonio import load
from tests.support import ROOT, TempDir, run_cli


def readme_section():
    with open(os.path.join(ROOT, "docs", "importing.md"), "rb") as handle:
        return handle.read().decode("utf-8")


class ReadmeTests(unittest.TestCase):
    def test_the_complete_mapping_example_is_valid(self):
        block = re.search(r"## The mapping file.*?```json\n(.*?)```", readme_section(),
                          re.S).group(1)
        document = load.parse_bytes(block.encode("utf-8"), "README")
        self.assertEqual(mapping_errors(document.value), [])
        for field in ("protocol", "side_effect_tools", "side_effect_store_keys", "final_state",
                      "cost", "metadata_keys", "cases"):
            self.assertIn(field, document.value)

    def test_every_walk_runs_as_written(self):
        blocks = re.findall(r"```sh\n(.*?)```", readme_section(), re.S)
        # The looks of a sequential design (two imports, each judged with the ledger the
        # one before wrote) run in one folder, as tests/test_doc_commands.py runs them.
        looks = [block for block in blocks if "--ledger" in block]
        self.assertEqual(len(looks), 1)
        blocks = [block for block in blocks if block not in looks]
        # Inspect AI (a test-only log, its default output, an eval), tau2-bench, Harbor (0.26,
        # 0.21), SWE-bench (whole runs, a run on part of a dataset), promptfoo (a config's and
        # its default output), JSON lines; then explain (on Inspect AI, tau2-bench, Harbor);
        # then --failure-origins (an Inspect AI run with errored samples).
        self.assertEqual(len(blocks), 15)
        for block in blocks:
            folder = TempDir(self)
            lines = [line for line in block.splitlines() if line.strip()]
            self.assertEqual(len(lines), 2)
            statuses = []
            for line in lines:
                command = shlex.split(line.split(";")[0])
                self.assertEqual(command[:3], ["python3", "-B", "run_benchmark.py"])
                arguments = [argument if not argument.endswith(".json") or "/" in argument
                             else os.path.join(folder.path, argument)
                             for argument in command[3:]]
                arguments = [os.path.join(ROOT, argument) if "/" in argument else argument
                             for argument in arguments]
                run = run_cli(arguments)
                document = run.document  # explain's: the decision it explains
                statuses.append((run.status, document["decision"]["action"] if document[
                    "action"] == "EXPLAINED" else document["action"]))
            # Each walk says the decision it expects (``|| echo "BLOCK expected"``), which the
            # gate, or explain, decides.
            expected = re.search(r'echo "(\w+) expected"', lines[1]).group(1)
            self.assertEqual(statuses, [(0, "IMPORTED"), (1, expected)])

    def test_the_json_lines_example_is_the_fixtures_line_and_mapping(self):
        section = readme_section().split("## The JSON-lines format")[1].split("\n## ")[0]
        line, mapping = re.findall(r"```json\n(.*?)```", section, re.S)
        with open(os.path.join(ROOT, "tests", "importers", "fixtures",
                               "jsonl_baseline.jsonl"), "rb") as handle:
            first = handle.readline().decode("utf-8")
        self.assertEqual(json.loads(line), json.loads(first))
        document = load.parse_bytes(mapping.encode("utf-8"), "README")
        self.assertEqual(mapping_errors(document.value), [])
        with open(os.path.join(ROOT, "tests", "importers", "fixtures", "jsonl_mapping.json"),
                  "rb") as handle:
            fixture = json.loads(handle.read().decode("utf-8"))
        self.assertEqual(json.loads(mapping)["lines"], fixture["lines"])


if __name__ == "__main__":
    unittest.main()
