"""Packaging: the project's own build backend makes a correct wheel with nothing installed.

``pip install .`` runs :mod:`build_backend.proagents_build` (pyproject.toml's
``backend-path``); these tests call the same hooks pip calls and read what they build.
"""

import base64
import csv
import hashlib
import importlib.util
import io
import os
import tarfile
import unittest
import zipfile
from unittest import mock

from proagents_bench.contract.vocabulary import SCHEMA_KINDS
from proagents_bench.version import VERSION
from tests.support import ROOT, TempDir


def load_backend():
    path = os.path.join(ROOT, "build_backend", "proagents_build.py")
    spec = importlib.util.spec_from_file_location("proagents_build", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


class BuildBackendTests(unittest.TestCase):
    def setUp(self):
        self.backend = load_backend()
        self.folder = TempDir(self).path

    def test_pyproject_uses_the_backend_and_requires_nothing(self):
        with open(os.path.join(ROOT, "pyproject.toml"), "rb") as handle:
            text = handle.read().decode("utf-8")
        self.assertIn('requires = []', text)
        self.assertIn('build-backend = "proagents_build"', text)
        self.assertIn('backend-path = ["build_backend"]', text)
        for hook in ("get_requires_for_build_wheel", "get_requires_for_build_sdist",
                     "get_requires_for_build_editable"):
            self.assertEqual(getattr(self.backend, hook)(), [])

    def test_the_wheel_holds_the_package_schemas_script_and_a_correct_record(self):
        name = self.backend.build_wheel(self.folder)
        self.assertEqual(name, "proagents_bench-%s-py3-none-any.whl" % VERSION)
        with zipfile.ZipFile(os.path.join(self.folder, name)) as archive:
            names = archive.namelist()
            files = {entry: archive.read(entry) for entry in names}
        info = "proagents_bench-%s.dist-info/" % VERSION
        for kind in SCHEMA_KINDS:
            self.assertIn("proagents_bench/contract/schemas/%s.schema.json" % kind, names)
            self.assertIn("proagents_bench/py.typed", names)
        for module in ("__init__.py", "__main__.py", "cli/__init__.py", "contract/publish.py",
                       "reports/html.py", "stats/bootstrap.py"):
            self.assertIn("proagents_bench/" + module, names)
        # The development package (and the tests, which import it) stay out of the wheel.
        self.assertFalse([entry for entry in names
                          if entry.startswith(("tests/", "examples/", "devtools/"))])
        metadata = files[info + "METADATA"].decode("utf-8")
        self.assertIn("\nVersion: %s\n" % VERSION, metadata)
        self.assertIn("Name: proagents-bench", metadata)
        self.assertNotIn("Requires-Dist", metadata)
        self.assertIn(b"proagents-bench = proagents_bench.cli:run",
                      files[info + "entry_points.txt"])
        self.assertEqual(names[-1], info + "RECORD")
        rows = list(csv.reader(io.StringIO(files[info + "RECORD"].decode("utf-8"))))
        self.assertEqual(sorted(row[0] for row in rows), sorted(names))
        for entry, digest, size in rows:
            if entry == info + "RECORD":
                self.assertEqual((digest, size), ("", ""))
                continue
            expected = base64.urlsafe_b64encode(hashlib.sha256(files[entry]).digest())
            self.assertEqual(digest, "sha256=" + expected.rstrip(b"=").decode("ascii"))
            self.assertEqual(int(size), len(files[entry]))

    def test_the_wheel_is_the_same_bytes_every_time(self):
        first = self.backend.build_wheel(self.folder)
        with open(os.path.join(self.folder, first), "rb") as handle:
            data = handle.read()
        again = TempDir(self).path
        self.backend.build_wheel(again)
        with open(os.path.join(again, first), "rb") as handle:
            self.assertEqual(handle.read(), data)

    def test_the_sdist_can_build_the_wheel_again_and_be_tested(self):
        name = self.backend.build_sdist(self.folder)
        with tarfile.open(os.path.join(self.folder, name)) as archive:
            names = archive.getnames()
        base = "proagents_bench-%s/" % VERSION
        for needed in ("PKG-INFO", "pyproject.toml", "README.md", "docs/contract.md", "LICENSE",
                       "build_backend/proagents_build.py", "proagents_bench/version.py",
                       "proagents_bench/contract/schemas/spec.schema.json",
                       "run_benchmark.py", "test_run_benchmark.py", "tests/support.py",
                       "tests/test_packaging.py", "tests/golden/pass.json",
                       "devtools/__main__.py", "devtools/synthetic.py",
                       "tests/devtools/test_bench.py",
                       "examples/benchmark_spec.json", ".agents/skills/run-release-gate/SKILL.md"):
            self.assertIn(base + needed, names)
        self.assertFalse([entry for entry in names if "__pycache__" in entry])


    def test_the_editable_wheel_points_at_this_checkout(self):
        name = self.backend.build_editable(self.folder)
        with zipfile.ZipFile(os.path.join(self.folder, name)) as archive:
            self.assertEqual(archive.read("_proagents_bench_editable.pth").decode("utf-8"),
                             self.backend.ROOT + "\n")


class ProjectTableTests(unittest.TestCase):
    """pyproject.toml's static [project] table, as standard tools read it."""

    def setUp(self):
        self.backend = load_backend()
        with open(os.path.join(ROOT, "pyproject.toml"), "rb") as handle:
            self.text = handle.read().decode("utf-8")

    def test_the_table_is_static_and_complete(self):
        project = self.backend.project()
        self.assertEqual(project["name"], "proagents-bench")
        self.assertEqual(project["version"], VERSION)
        for key in ("description", "license", "requires-python", "classifiers", "readme"):
            self.assertTrue(project[key], key)
        self.assertNotIn("dynamic", project)
        self.assertEqual(project["scripts"], {"proagents-bench": "proagents_bench.cli:run"})

    def test_the_small_reader_agrees_with_tomllib(self):
        try:
            import tomllib
        except ImportError:
            self.skipTest("tomllib is Python 3.11+")
        with mock.patch.dict("sys.modules", {"tomllib": None}):
            small = self.backend.read_pyproject(self.text)
        parsed = tomllib.loads(self.text)
        self.assertEqual(small["project"], {key: value for key, value in parsed["project"].items()
                                            if key != "scripts"})
        self.assertEqual(small["project.scripts"], parsed["project"]["scripts"])
        self.assertEqual(small["build-system"], parsed["build-system"])

    def test_a_version_that_differs_from_the_package_refuses_to_build(self):
        with mock.patch.object(self.backend, "version", return_value="9.9.9"):
            with self.assertRaises(RuntimeError):
                self.backend.project()


if __name__ == "__main__":
    unittest.main()
