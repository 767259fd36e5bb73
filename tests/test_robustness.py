"""Malformed input of every kind gets exit 2 naming the file, never a traceback (exit 3).

Seeded mutations of the example package: values replaced by every JSON type at random paths,
keys dropped and added, bytes truncated and flipped. Whatever the mutation, the gate either
decides (0 or 1) or reports contract errors (2) that name a file, a path and a code.
"""

import copy
import json
import random
import unittest

from tests.support import TempDir, example_package, run_cli

REPLACEMENTS = (None, True, False, 0, -1, 1.5, 1e300, 2 ** 53 - 1, "", " ", "x", "success",
                [], [None], ["a", "a"], {}, {"k": 1}, [[[[[]]]]], "\u00e9\U0001F4E6")


def paths(value, prefix=()):
    yield prefix
    if isinstance(value, dict):
        for key, item in value.items():
            yield from paths(item, prefix + (key,))
    elif isinstance(value, list):
        for index, item in enumerate(value):
            yield from paths(item, prefix + (index,))


def mutate(value, rng):
    candidates = [path for path in paths(value) if path]
    path = candidates[rng.getrandbits(30) % len(candidates)]
    parent = value
    for step in path[:-1]:
        parent = parent[step]
    choice = rng.getrandbits(8) % 4
    if choice == 0 and isinstance(parent, dict):
        del parent[path[-1]]
    elif choice == 1 and isinstance(parent, dict):
        parent["unexpected_%d" % rng.getrandbits(8)] = 1
    else:
        parent[path[-1]] = copy.deepcopy(REPLACEMENTS[rng.getrandbits(8) % len(REPLACEMENTS)])


class MutationTests(unittest.TestCase):
    def assert_handled(self, run):
        self.assertIn(run.status, (0, 1, 2), run.stderr)
        self.assertNotIn("Traceback", run.stderr)
        document = run.document
        if run.status == 2:
            self.assertEqual(document["action"], "CONTRACT_ERROR")
            self.assertTrue(document["errors"])
            for error in document["errors"]:
                self.assertTrue(error["file"] and error["code"] and error["path"])
        else:
            self.assertIn(document["action"], ("PASS", "REVIEW", "BLOCK", "INCOMPARABLE"))

    def test_structural_mutations(self):
        rng = random.Random(2026)
        temp = TempDir(self)
        for iteration in range(120):
            parts = list(example_package())
            target = iteration % 3
            for _ in range(1 + rng.getrandbits(2)):
                mutate(parts[target], rng)
            with self.subTest(iteration=iteration):
                self.assert_handled(run_cli(temp.package(*parts)))

    def test_byte_mutations(self):
        rng = random.Random(7)
        temp = TempDir(self)
        spec, cases, results = example_package()
        raw = json.dumps(spec, indent=2).encode("utf-8")
        for iteration in range(120):
            data = bytearray(raw)
            if iteration % 2:
                del data[rng.getrandbits(16) % len(data):]
            else:
                for _ in range(1 + rng.getrandbits(2)):
                    data[rng.getrandbits(16) % len(data)] = rng.getrandbits(8)
            args = temp.package(spec, cases, results)
            args[1] = temp.write_bytes("mutated.json", bytes(data))
            with self.subTest(iteration=iteration):
                self.assert_handled(run_cli(args))


if __name__ == "__main__":
    unittest.main()
