"""The harness rows (proagents_bench/contract/harnesses.py) are the one description of every
log format: each row's reader (importers/readers.py) reads the format it is named for, and the results'
provenance, the mapping's schema, the dispatch, the import command's help and its error for
an unknown log all say what the rows say."""

import importlib.util
import unittest
from unittest import mock

from proagents_bench.cli.commands import COMMAND_BY_NAME
from proagents_bench.contract import harness_docs, harnesses
from proagents_bench.contract.inputs import PROVENANCE
from proagents_bench.contract.mapping import COST, FINAL_STATE
from proagents_bench.contract.publish import schema
from proagents_bench.importers import formats, inspect_log, readers
from proagents_bench.importers.settings import default_settings, load_settings
from proagents_bench.importers.source import LogSource
from tests.support import TempDir

from .support import fixture

# A fixture log of every format (a new row needs one here).
FIXTURE_OF_FORMAT = {
    harnesses.INSPECT_EVAL: "baseline.eval",
    harnesses.INSPECT_JSON: "baseline.json",
    harnesses.TAU2_JSON: "tau2_baseline.json",
    harnesses.TAU2_DIR: "tau2_candidate_dir",
    harnesses.SWEBENCH_SUMMARY: "swebench_baseline_run1.json",
    harnesses.HARBOR_JOB: "harbor_baseline_job",
    harnesses.PROMPTFOO_JSON: "promptfoo_baseline.json",
    harnesses.JSONL: "jsonl_baseline.jsonl",
}
# The mapping a format's fixture is read with (a format of JSON lines without keys of its own
# is told only with its mapping key).
MAPPING_OF_FORMAT = {harnesses.JSONL: "jsonl_mapping.json"}


def settings_of(log_format):
    mapping = MAPPING_OF_FORMAT.get(log_format)
    return load_settings(fixture(mapping)) if mapping else default_settings()


def _enum(shape):
    return list(shape.shape.enum)


class HarnessRowTests(unittest.TestCase):
    def test_every_format_has_a_fixture(self):
        self.assertEqual(sorted(FIXTURE_OF_FORMAT), sorted(harnesses.LOG_FORMATS))

    def test_each_fixture_is_told_by_its_row_and_read_by_its_reader(self):
        for log_format in harnesses.LOG_FORMATS_TABLE:
            with self.subTest(log_format.name):
                source = LogSource(fixture(FIXTURE_OF_FORMAT[log_format.name]))
                settings = settings_of(log_format.name)
                found, _value = formats.recognise(source, settings)
                self.assertIs(found, log_format)
                run, trials = formats.open_log(source, settings)
                try:
                    self.assertEqual(run.log_format, log_format.name)
                    self.assertEqual(run.harness,
                                     harnesses.HARNESS_OF_FORMAT[log_format.name].name)
                    self.assertTrue(next(iter(trials)).record["case_id"])
                finally:
                    formats.close_trials(trials)

    def test_the_provenance_names_the_rows_formats_and_harnesses(self):
        fields = {field.key: field for field in PROVENANCE.fields}
        self.assertEqual(list(fields["log_format"].shape.enum), list(harnesses.LOG_FORMATS))
        for harness in harnesses.HARNESSES:
            self.assertIn("`%s`" % harness.name, fields["harness"].meaning)

    def test_the_mapping_takes_every_rows_sources(self):
        for shape, names in ((FINAL_STATE, "final_state_names"), (COST, "cost_names")):
            source = next(field for field in shape.fields if field.key == "source")
            self.assertEqual(list(source.shape.enum), [
                name for harness in harnesses.HARNESSES for name in getattr(harness, names)])
            for harness in harnesses.HARNESSES:
                self.assertIn("%s: `%s` (default)" % (harness.title, getattr(harness, names)[0]),
                              source.meaning)
        self.assertIn(harness_docs.sources_text("final_state"), str(schema("mapping")))

    def test_the_import_help_and_the_unknown_log_error_name_every_format(self):
        description = COMMAND_BY_NAME["import"].parser("run_benchmark.py").description
        expected = harnesses.expected_formats()
        for harness in harnesses.HARNESSES:
            for log_format in harness.formats:
                self.assertIn(log_format.help_name, description)
                self.assertIn(log_format.what, expected)
        folder = TempDir(self).path
        path = folder + "/log.json"
        with open(path, "wb") as handle:
            handle.write(b'{"something": "else"}')
        with self.assertRaises(Exception) as raised:
            formats.recognise(LogSource(path))
        self.assertEqual(raised.exception.errors[0].message,
                         "not a log this importer reads: expected " + expected)

    def test_a_log_of_json_lines_is_told_by_its_first_line(self):
        recognition = harnesses.Recognition(harnesses.LINES, keys=("run",))
        folder = TempDir(self).path
        cases = {b'{"run": 1}\n{"x": 2}\n': True, b'{"other": 1}\n': False,
                 b"[" * 100000 + b"\n": False, b"\xff\xfe{}\n": False, b"not json\n": False,
                 b'{"run": 1, "more": [\n1]}': False}
        for data, expected in cases.items():
            with self.subTest(data[:20]):
                path = folder + "/log.jsonl"
                with open(path, "wb") as handle:
                    handle.write(data)
                first = LogSource(path).first_line()
                self.assertEqual(recognition.matches_first_line(first), expected)
                self.assertFalse(harnesses.Recognition(
                    harnesses.JSON, keys=("run",)).matches_first_line(first))

    def test_every_format_has_one_reader_and_every_reader_a_format(self):
        rows = readers.READERS
        self.assertEqual(sorted(readers.READER_OF), sorted(harnesses.LOG_FORMATS))
        self.assertEqual(readers.reader_problems(rows, harnesses.LOG_FORMATS), [])
        stray = readers.FormatReader("x-log", inspect_log.read_json_log)
        self.assertEqual(readers.reader_problems(rows[1:] + rows[2:3] + (stray,),
                                                 harnesses.LOG_FORMATS),
                         ["the log format %s has no reader" % rows[0].log_format,
                          "the log format %s has 2 readers" % rows[2].log_format,
                          "a reader of x-log, which no harness row declares"])

    def test_a_format_without_a_reader_fails_when_the_readers_are_imported(self):
        # The registry, executed afresh (not put in sys.modules) against harness rows with
        # one more format.
        spec = importlib.util.spec_from_file_location("proagents_bench.importers.readers_copy",
                                                      readers.__file__)
        copy = importlib.util.module_from_spec(spec)
        with mock.patch.object(harnesses, "LOG_FORMATS", harnesses.LOG_FORMATS + ("x-log",)):
            with self.assertRaises(RuntimeError) as raised:
                spec.loader.exec_module(copy)
        self.assertIn("the log format x-log has no reader", str(raised.exception))

    def test_a_harness_row_must_fill_every_docs_cell(self):
        row = harnesses.Harness("h", "H", [], [harnesses.Source("s")], [harnesses.Source("c")],
                                "case", "trial", "run")
        with self.assertRaises(ValueError) as raised:
            harness_docs.HarnessDocs(row, "unit", "", defaults={}, records={},
                                     side_effects_default="none")
        self.assertIn("harness h: no docs cell for benchmark_id", str(raised.exception))

    def test_every_harness_has_one_docs_row_and_every_docs_row_a_harness(self):
        rows = harness_docs.HARNESS_DOCS
        self.assertEqual(sorted(harness_docs.DOCS_OF), sorted(harness.name for harness in
                                                              harnesses.HARNESSES))
        self.assertEqual(harness_docs.docs_problems(rows, harnesses.HARNESSES), [])
        stray = harnesses.Harness("h", "H", [], [], [], "case", "trial", "run")
        self.assertEqual(harness_docs.docs_problems(
            rows[1:] + rows[2:3] + (harness_docs.HarnessDocs(
                stray, "unit", "", {key: "" for key in harness_docs.DEFAULT_ROWS},
                {key: "" for key in harness_docs.RECORD_ROWS}, "none"),),
            harnesses.HARNESSES),
            ["harness %s has no docs row" % rows[0].harness.name,
             "harness %s has 2 docs rows" % rows[2].harness.name,
             "a docs row of harness h, which is not in the table"])
        copy = importlib.util.module_from_spec(importlib.util.spec_from_file_location(
            "proagents_bench.contract.harness_docs_copy", harness_docs.__file__))
        with mock.patch.object(harnesses, "HARNESSES", harnesses.HARNESSES + (stray,)):
            with self.assertRaises(RuntimeError) as raised:
                copy.__spec__.loader.exec_module(copy)
        self.assertIn("harness h has no docs row", str(raised.exception))

if __name__ == "__main__":
    unittest.main()
