"""tau2-bench's results folder (``Results.save(path, format="dir")``: ``results.json`` beside
``simulations/<simulation id>.json``), read one simulation file at a time: the same records
as the run's monolithic ``results.json``, and every malformed folder a contract error naming
the file inside the folder and the JSON path."""

import hashlib
import json
import os
import shutil
import unittest

from tests.importers.support import fixture, load_json, read_bytes, records, run_import
from tests.support import TempDir

BASELINE = fixture("tau2_baseline.json")
CANDIDATE = fixture("tau2_candidate.json")
FOLDER = fixture("tau2_candidate_dir")
MAPPING = fixture("tau2_mapping.json")
FIRST = "simulations/sim-0-0.json"


def manifest_sha256(folder):
    """What ``sha256sum results.json simulations/*.json | sha256sum`` prints (C locale)."""
    names = ["results.json"] + ["simulations/" + name for name in
                                sorted(os.listdir(os.path.join(folder, "simulations")))]
    lines = "".join("%s  %s\n" % (hashlib.sha256(read_bytes(
        os.path.join(folder, *name.split("/")))).hexdigest(), name) for name in names)
    return hashlib.sha256(lines.encode("utf-8")).hexdigest()


class FolderTests(unittest.TestCase):
    def test_a_folder_gives_the_records_of_its_results_json(self):
        _run, from_file = run_import(self, BASELINE, CANDIDATE, "--mapping", MAPPING)
        run, from_folder = run_import(self, BASELINE, FOLDER, "--mapping", MAPPING)
        self.assertEqual(run.status, 0, run.stderr)
        self.assertEqual(records(from_folder, "candidate"), records(from_file, "candidate"))
        provenance = from_folder["systems"][1]["provenance"]
        self.assertEqual(provenance["log_format"], "tau2-results-dir")
        self.assertEqual(provenance["log_file"], "tau2_candidate_dir")
        self.assertEqual(provenance["log_sha256"], manifest_sha256(FOLDER))
        self.assertEqual(provenance["log_bytes"], sum(
            os.path.getsize(os.path.join(root, name))
            for root, _dirs, names in os.walk(FOLDER) for name in names))
        self.assertEqual(run.document["systems"][1]["log_format"], "tau2-results-dir")


class BadFolderTests(unittest.TestCase):
    def copy(self):
        target = os.path.join(TempDir(self).path, "run")
        shutil.copytree(FOLDER, target)
        return target

    def assert_error(self, candidate, code, file_suffix, path):
        run, written = run_import(self, BASELINE, candidate, "--mapping", MAPPING)
        self.assertEqual(run.status, 2, run.stdout[:500])
        self.assertIsNone(written)
        self.assertNotIn("Traceback", run.stderr)
        errors = run.document["errors"]
        self.assertIn((code, path), [(error["code"], error["path"]) for error in errors],
                      errors)
        error = next(error for error in errors if error["code"] == code)
        self.assertTrue(error["file"].replace(os.sep, "/").endswith(file_suffix),
                        error["file"])
        return error

    def edit(self, folder, name, change):
        path = os.path.join(folder, *name.split("/"))
        value = load_json(path)
        change(value)
        with open(path, "w", encoding="utf-8") as handle:
            json.dump(value, handle)

    def test_malformed_folders(self):
        def no_results(folder):
            os.remove(os.path.join(folder, "results.json"))
            return "import.format", "run", "$"

        def no_simulations(folder):
            shutil.rmtree(os.path.join(folder, "simulations"))
            return "import.format", "run", "$"

        def file_missing(folder):
            os.remove(os.path.join(folder, "simulations", "sim-0-1.json"))
            return "import.missing_field", "run/results.json", "$.simulation_index[1].id"

        def file_not_indexed(folder):
            shutil.copy(os.path.join(folder, *FIRST.split("/")),
                        os.path.join(folder, "simulations", "stray.json"))
            return "import.format", "run/simulations/stray.json", "$"

        def bad_duration(folder):
            self.edit(folder, FIRST, lambda value: value.update(duration=-1))
            return "import.field_type", "run/" + FIRST, "$.duration"

        def bad_task_id(folder):
            self.edit(folder, FIRST, lambda value: value.update(task_id=1.5))
            return "import.sample_id", "run/" + FIRST, "$.task_id"

        def not_json(folder):
            with open(os.path.join(folder, *FIRST.split("/")), "wb") as handle:
                handle.write(b"{\n  oops")
            return "import.json", "run/" + FIRST, "$"

        def newer_version(folder):
            self.edit(folder, "results.json", lambda value: value.update(format_version=2))
            return "import.format_version", "run/results.json", "$.format_version"

        def bad_index(folder):
            self.edit(folder, "results.json", lambda value: value.update(simulation_index=3))
            return "import.field_type", "run/results.json", "$.simulation_index"

        def duplicate(folder):
            shutil.copy(os.path.join(folder, *FIRST.split("/")),
                        os.path.join(folder, "simulations", "sim-copy.json"))
            self.edit(folder, "results.json", lambda value: value["simulation_index"].append(
                {"id": "sim-copy", "task_id": "0", "trial": 0}))
            return "import.duplicate_sample", "run/simulations/sim-copy.json", "$"

        for make in (no_results, no_simulations, file_missing, file_not_indexed, bad_duration,
                     bad_task_id, not_json, newer_version, bad_index, duplicate):
            with self.subTest(make.__name__):
                folder = self.copy()
                code, file_suffix, path = make(folder)
                self.assert_error(folder, code, file_suffix, path)

    def test_a_damaged_simulation_file_is_the_only_error(self):
        # The files after it are read: no case the folder holds is said to be missing.
        folder = self.copy()
        with open(os.path.join(folder, *FIRST.split("/")), "wb") as handle:
            handle.write(b"{\n  \"id\": \"sim-0-0\", oops")
        run, written = run_import(self, BASELINE, folder, "--mapping", MAPPING)
        self.assertIsNone(written)
        self.assertEqual([(error["code"], os.path.relpath(error["file"], folder).replace(
            os.sep, "/")) for error in run.document["errors"]], [("import.json", FIRST)])

    def test_the_results_json_of_a_folder_names_the_folder_to_pass(self):
        error = self.assert_error(os.path.join(self.copy(), "results.json"), "import.format",
                                  "run/results.json", "$")
        self.assertIn("pass the folder", error["message"])

    def test_an_output_inside_the_folder_is_refused(self):
        folder = self.copy()
        before = read_bytes(os.path.join(folder, "results.json"))
        for output in (os.path.join(folder, "results.json"),
                       os.path.join(folder, "simulations", "new.json")):
            with self.subTest(os.path.relpath(output, folder)):
                run, _written = run_import(self, BASELINE, folder, "--mapping", MAPPING,
                                           output=output)
                self.assertEqual(run.status, 2, run.stdout[:500])
                self.assertEqual(run.document["errors"][0]["code"], "cli.report_path")
                self.assertFalse(os.path.exists(os.path.join(folder, "simulations",
                                                             "new.json")))
        self.assertEqual(read_bytes(os.path.join(folder, "results.json")), before)

    @unittest.skipUnless(hasattr(os, "mkfifo"), "no FIFOs here")
    def test_a_simulation_fifo_is_refused_not_waited_on(self):
        folder = self.copy()
        os.remove(os.path.join(folder, *FIRST.split("/")))
        os.mkfifo(os.path.join(folder, *FIRST.split("/")))
        self.assert_error(folder, "import.unreadable", "run/" + FIRST, "$")


if __name__ == "__main__":
    unittest.main()
