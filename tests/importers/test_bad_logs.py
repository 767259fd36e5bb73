"""Every malformed log is a contract error (exit 2) naming the log, the zip entry where there
is one, and the JSON path; never a traceback, and nothing written."""

import json
import os
import unittest
import zipfile

from tests.importers.support import (EXAMPLE_CASES, changed_eval, eval_entries, fixture, records,
                                     load_json, read_bytes, run_import, write_eval)
from tests.support import TempDir

IDS = ("--baseline-id", "b", "--candidate-id", "c")
CANDIDATE = fixture("candidate.eval")


class BadLogTests(unittest.TestCase):
    def assert_error(self, baseline, code, file_suffix, path, *arguments):
        run, written = run_import(self, baseline, CANDIDATE, *(IDS + arguments))
        self.assertEqual(run.status, 2, run.stdout[:500])
        self.assertIsNone(written)
        self.assertNotIn("Traceback", run.stderr)
        self.assertNotIn("INTERNAL", run.stderr)
        errors = run.document["errors"]
        self.assertIn((code, path), [(error["code"], error["path"]) for error in errors],
                      errors)
        error = next(error for error in errors if error["code"] == code)
        self.assertTrue(error["file"].endswith(file_suffix), error["file"])
        self.assertIn(error["file"], run.stderr)
        return error

    def change(self, change, name="changed.eval"):
        return changed_eval(TempDir(self), name, change)

    def test_a_truncated_zip(self):
        folder = TempDir(self)
        data = read_bytes(fixture("baseline.eval"))
        path = folder.write_bytes("truncated.eval", data[:len(data) // 2])
        self.assert_error(path, "import.zip_corrupt", "truncated.eval", "$")

    def test_a_damaged_zip_entry_names_the_entry(self):
        folder = TempDir(self)
        data = bytearray(read_bytes(fixture("baseline.eval")))
        entries = eval_entries()
        offset = 0
        for info, _data in entries:  # the compressed bytes of the first sample entry
            if info.filename.startswith("samples/"):
                offset = info.header_offset + 30 + len(info.filename.encode()) + len(
                    info.extra) + 10
                break
        data[offset] ^= 0xFF
        data[offset + 1] ^= 0xFF
        path = folder.write_bytes("damaged.eval", bytes(data))
        error = self.assert_error(path, "import.zip_corrupt", ".json", "$")
        self.assertIn("damaged.eval:samples/", error["file"])

    def test_a_compression_nobody_reads_says_how_to_convert_the_log(self):
        folder = TempDir(self)
        path = os.path.join(folder.path, "odd.eval")
        with zipfile.ZipFile(path, "w", zipfile.ZIP_STORED) as archive:
            for info, data in eval_entries():
                archive.writestr(info.filename, data)
        data = bytearray(read_bytes(path))
        with zipfile.ZipFile(path) as archive:
            infos = archive.infolist()
        header = next(info for info in infos if info.filename == "header.json")
        data[header.header_offset + 8] = 97  # the local header's method: none zipfile knows
        for index in range(bytes(data).index(b"PK\x01\x02"), len(data) - 57):
            if data[index:index + 4] == b"PK\x01\x02" and data[index + 46:index + 57] == (
                    b"header.json"):
                data[index + 10] = 97  # the central directory's method for that entry
        path = folder.write_bytes("odd.eval", bytes(data))
        error = self.assert_error(path, "import.zip_compression", "odd.eval:header.json", "$")
        self.assertIn("inspect log convert", error["message"])

    def test_a_damaged_zstd_entry_names_the_entry(self):
        folder = TempDir(self)
        data = bytearray(read_bytes(fixture("baseline-zstd.eval")))
        with zipfile.ZipFile(fixture("baseline-zstd.eval")) as archive:
            info = next(info for info in archive.infolist()
                        if info.filename == "samples/test-cancel_epoch_1.json")
        start = info.header_offset + 30 + len(info.filename) + len(info.extra)
        for offset in range(start + 20, start + info.compress_size - 8, 7):
            data[offset] ^= 0x5A
        path = folder.write_bytes("damaged-zstd.eval", bytes(data))
        self.assert_error(path, "import.zip_corrupt",
                          "damaged-zstd.eval:samples/test-cancel_epoch_1.json", "$")

    def test_a_newer_major_format_version(self):
        def newer(name, value):
            if name == "header.json":
                value["version"] = 3
        error = self.assert_error(self.change(newer), "import.format_version",
                                  "changed.eval:header.json", "$.version")
        self.assertIn("newer", error["message"])

    def test_a_log_without_a_version(self):
        def without(name, value):
            if name == "header.json":
                del value["version"]
        self.assert_error(self.change(without), "import.format_version",
                          "changed.eval:header.json", "$.version")

    def test_a_sample_id_that_is_neither_a_string_nor_an_integer(self):
        for bad in (1.5, True, None, "  ", ["x"]):
            def change(name, value, bad=bad):
                if name == "samples/test-refund_epoch_2.json":
                    value["id"] = bad
            with self.subTest(id=bad):
                self.assert_error(self.change(change), "import.sample_id",
                                  "changed.eval:samples/test-refund_epoch_2.json", "$.id")

    def test_a_bad_epoch(self):
        def change(name, value):
            if name == "samples/test-refund_epoch_2.json":
                value["epoch"] = 0
        self.assert_error(self.change(change), "import.sample_epoch",
                          "changed.eval:samples/test-refund_epoch_2.json", "$.epoch")

    def test_a_duplicate_sample_and_epoch(self):
        def change(name, value):
            if name == "samples/test-refund_epoch_2.json":
                return [(name, value), ("samples/copy.json", value)]
        error = self.assert_error(self.change(change), "import.duplicate_sample",
                                  "changed.eval:samples/copy.json", "$")
        self.assertIn("test-refund_epoch_2.json", error["message"])

    def test_a_missing_field_the_record_needs(self):
        def change(name, value):
            if name == "samples/test-cancel_epoch_1.json":
                del value["epoch"]
        self.assert_error(self.change(change), "import.sample_epoch",
                          "changed.eval:samples/test-cancel_epoch_1.json", "$.epoch")

    def test_a_sample_without_its_times_or_a_price_is_unmeasured_never_zero(self):
        def change(name, value):
            if name == "samples/test-cancel_epoch_1.json":
                del value["working_time"]
                del value["total_time"]
            if name == "samples/test-cancel_epoch_2.json":
                for usage in value["model_usage"].values():
                    usage["total_cost"] = None  # a model Inspect knows no price of
        folder = TempDir(self)
        mapping = folder.write_json("mapping.json", {
            "schema_version": "proagents-bench-import-mapping-v1",
            "cost": {"source": "total_cost"}})
        run, written = run_import(self, self.change(change), fixture("candidate.eval"), *IDS,
                                  "--mapping", mapping)
        self.assertEqual(run.status, 0, run.stderr)
        cancel = [(record["trial_id"], record["latency_ms"] is None,
                   record["cost_units"] is None) for record in records(written, "baseline")
                  if record["case_id"] == "test-cancel"]
        self.assertEqual(cancel, [(1, True, False), (2, False, True), (3, False, False)])

    def test_a_field_of_the_wrong_type(self):
        def change(name, value):
            if name == "samples/test-cancel_epoch_1.json":
                value["working_time"] = "fast"
        self.assert_error(self.change(change), "import.field_type",
                          "changed.eval:samples/test-cancel_epoch_1.json", "$.working_time")

    def test_a_missing_field_the_mapping_needs(self):
        folder = TempDir(self)
        mapping = folder.write_json("mapping.json", {
            "schema_version": "proagents-bench-import-mapping-v1",
            "final_state": {"source": "score_answer", "key": "judge"}})
        self.assert_error(fixture("baseline.eval"), "import.missing_field",
                          "baseline.eval:samples/train-refund-basic_epoch_1.json",
                          "$.scores.judge", "--mapping", mapping)

    def test_an_entry_that_is_not_json_is_placed_at_its_line(self):
        entries = [(info.filename, data) for info, data in eval_entries()]
        entries = [(name, b"{\n  \"id\": oops}" if name == "samples/test-cancel_epoch_1.json"
                    else data) for name, data in entries]
        path = write_eval(TempDir(self), "broken.eval", entries)
        error = self.assert_error(path, "import.json",
                                  "broken.eval:samples/test-cancel_epoch_1.json", "$")
        self.assertEqual((error["line"], error["column"]), (2, 9))

    def test_bytes_that_are_not_utf8_are_placed_at_their_line_and_column(self):
        # The column counts characters, as a JSON error's: "é" is one, a byte-order mark none.
        entries = [(name, b'{\n  "id": "t\xc3\xa9st\xff"}' if name == "samples/test-cancel_epoch_1.json"
                    else data) for name, data in ((info.filename, data)
                                                  for info, data in eval_entries())]
        path = write_eval(TempDir(self), "broken.eval", entries)
        error = self.assert_error(path, "import.json",
                                  "broken.eval:samples/test-cancel_epoch_1.json", "$")
        self.assertEqual((error["line"], error["column"]), (2, 14))
        self.assertIn("byte sequence starting with 0xFF at byte offset 16", error["message"])
        folder = TempDir(self)
        for name in ("baseline.json", "tau2_baseline.json", "promptfoo_baseline.json",
                     "swebench_baseline_run1.json"):
            for bom in (b"", b"\xef\xbb\xbf"):
                with self.subTest(log=name, bom=bool(bom)):
                    lines = read_bytes(fixture(name)).split(b"\n")
                    indent = len(lines[2]) - len(lines[2].lstrip())
                    lines[2] = lines[2][:indent] + b"\xc3\xa9\xff" + lines[2][indent:]
                    path = folder.write_bytes(name, bom + b"\n".join(lines))
                    error = self.assert_error(path, "import.json", name, "$")
                    self.assertEqual((error["line"], error["column"]), (3, indent + 2))
                    self.assertIn("at byte offset %d" % (
                        len(bom) + len(lines[0]) + len(lines[1]) + 2 + indent + 2),
                        error["message"])

    def test_a_zip_that_is_not_an_inspect_log(self):
        path = write_eval(TempDir(self), "other.eval", [("readme.txt", b"hello")])
        self.assert_error(path, "import.format", "other.eval", "$")

    def test_a_json_file_that_is_no_log(self):
        folder = TempDir(self)
        for name, data in (("other.json", b'{"hello": 1}'), ("list.json", b"[1]"),
                           ("text.json", b"not json"), ("empty.json", b"")):
            with self.subTest(name=name):
                path = folder.write_bytes(name, data)
                code = "import.json" if name == "text.json" else "import.format"
                self.assert_error(path, code, name, "$")

    def test_a_missing_log(self):
        self.assert_error(os.path.join(TempDir(self).path, "absent.eval"), "import.unreadable",
                          "absent.eval", "$")

    def test_a_folder_that_is_no_tau2_results_folder(self):
        error = self.assert_error(TempDir(self).path, "import.format", "", "$")
        self.assertIn("no results.json", error["message"])

    def test_samples_that_do_not_match_the_cases(self):
        def drop(name, value):  # a run of every case but one (its header says so)
            if name.startswith("samples/test-privacy_"):
                return []
            if name == "header.json":
                value["eval"]["dataset"]["sample_ids"].remove("test-privacy")
        error = self.assert_error(self.change(drop), "import.cases_mismatch", "changed.eval",
                                  "$", "--cases", EXAMPLE_CASES)
        self.assertIn("test-privacy", error["message"])

    def test_a_sample_of_a_case_the_cases_file_lacks(self):
        def rename(name, value):
            if name == "samples/test-privacy_epoch_1.json":
                value["id"] = "test-unknown"
        self.assert_error(self.change(rename), "import.cases_mismatch",
                          "changed.eval:samples/test-privacy_epoch_1.json", "$",
                          "--cases", EXAMPLE_CASES)

    def test_logs_whose_test_samples_differ(self):
        def drop(name, value):  # a run of every case but one (its header says so)
            if name.startswith("samples/test-privacy_"):
                return []
            if name == "header.json":
                value["eval"]["dataset"]["sample_ids"].remove("test-privacy")
        error = self.assert_error(self.change(drop), "import.cases_mismatch", "candidate.eval",
                                  "$")
        self.assertIn("test-privacy", error["message"])

    def test_metadata_of_the_wrong_kind(self):
        def change(name, value):
            if name == "samples/test-privacy_epoch_1.json":
                value["metadata"]["split"] = "holdout"
        self.assert_error(self.change(change), "import.metadata",
                          "changed.eval:samples/test-privacy_epoch_1.json", "$.metadata.split")

    def test_a_fractional_time_limit_of_the_log(self):
        def change(name, value):
            if name == "header.json":
                value["eval"]["config"]["time_limit"] = 30.5
        run, written = run_import(self, self.change(change), CANDIDATE, *IDS)
        self.assertEqual(run.status, 0, run.stderr)
        self.assertEqual(written["systems"][0]["protocol"]["timeout_seconds"], 30.5)

    def test_a_protocol_the_log_cannot_give(self):
        def change(name, value):
            if name == "header.json":
                value["eval"]["config"]["epochs"] = 1
                del value["eval"]["config"]["message_limit"]
        run, _written = run_import(self, self.change(change), CANDIDATE, *IDS)
        self.assertEqual(run.status, 2)
        found = {(error["code"], error["message"].split(" (")[0].split(":")[0]) for error in
                 run.document["errors"]}
        self.assertIn(("import.protocol", "the protocol's trial_count would be 1"), found)
        self.assertIn(("import.missing_field", "the log does not record the protocol's "
                       "max_steps"), found)


class CommandLineTests(unittest.TestCase):
    def test_equal_system_ids_are_refused(self):
        run, written = run_import(self, fixture("baseline.eval"), CANDIDATE)
        self.assertEqual(run.status, 2)
        self.assertEqual(run.document["errors"][0]["code"], "import.system_id")
        self.assertIsNone(written)

    def test_an_output_that_names_an_input_is_refused(self):
        folder = TempDir(self)
        path = folder.write_bytes("baseline.eval", read_bytes(fixture("baseline.eval")))
        from tests.support import run_cli
        run = run_cli(["import", "--baseline", path, "--candidate", CANDIDATE, "--output",
                       path] + list(IDS))
        self.assertEqual(run.status, 2)
        self.assertEqual(run.document["errors"][0]["code"], "cli.report_path")
        self.assertEqual(read_bytes(path), read_bytes(fixture("baseline.eval")))

    def test_cases_and_write_cases_together_are_a_usage_error(self):
        run, _written = run_import(self, fixture("baseline.eval"), CANDIDATE, *IDS,
                                   "--cases", EXAMPLE_CASES, "--write-cases", "x.json")
        self.assertEqual(run.status, 2)
        self.assertEqual(run.document["errors"][0]["code"], "cli.usage")

    def test_missing_options_are_a_usage_error(self):
        from tests.support import run_cli
        run = run_cli(["import", "--baseline", fixture("baseline.eval")])
        self.assertEqual(run.status, 2)
        self.assertEqual(run.document["errors"][0]["code"], "cli.usage")


class MappingErrorTests(unittest.TestCase):
    def mapping_error(self, mapping, code, path):
        folder = TempDir(self)
        mapping_path = folder.write_json("mapping.json", dict(
            {"schema_version": "proagents-bench-import-mapping-v1"}, **mapping))
        run, written = run_import(self, fixture("baseline.eval"), CANDIDATE, *IDS,
                                  "--mapping", mapping_path)
        self.assertEqual(run.status, 2, run.stdout[:300])
        self.assertIsNone(written)
        errors = [(error["code"], error["path"], error["file"]) for error in
                  run.document["errors"]]
        self.assertIn((code, path, mapping_path), errors)
        error = next(error for error in run.document["errors"] if error["code"] == code)
        self.assertIsInstance(error["line"], int)

    def test_an_unknown_key(self):
        self.mapping_error({"side_effects": []}, "schema.unknown_key", "$.side_effects")

    def test_a_wrong_type(self):
        self.mapping_error({"side_effect_tools": "refund_order"}, "schema.type",
                           "$.side_effect_tools")

    def test_a_source_of_the_other_harness(self):
        self.mapping_error({"final_state": {"source": "db_check"}},
                           "mapping.final_state_source", "$.final_state.source")
        self.mapping_error({"cost": {"source": "agent_cost"}}, "mapping.cost_source",
                           "$.cost.source")

    def test_a_store_source_without_its_key(self):
        self.mapping_error({"final_state": {"source": "store"}}, "mapping.final_state_key",
                           "$.final_state")

    def test_a_protocol_value_the_log_contradicts(self):
        folder = TempDir(self)
        mapping_path = folder.write_json("mapping.json", {
            "schema_version": "proagents-bench-import-mapping-v1",
            "protocol": {"max_steps": 9}})
        run, _written = run_import(self, fixture("baseline.eval"), CANDIDATE, *IDS,
                                   "--mapping", mapping_path)
        self.assertEqual(run.status, 2)
        self.assertEqual([(error["code"], error["path"], error["file"], error["line"])
                          for error in run.document["errors"]],
                         [("mapping.protocol_conflict", "$.protocol.max_steps", mapping_path,
                           4)] * 2)

    def test_exact_numbers_of_the_mapping_are_written_as_json_numbers(self):
        def change(name, value):
            if name == "header.json":
                del value["eval"]["config"]["time_limit"]
        folder = TempDir(self)
        mapping_path = folder.write_bytes("mapping.json", (
            b'{"schema_version": "proagents-bench-import-mapping-v1", '
            b'"protocol": {"timeout_seconds": 0.5}}'))
        baseline = changed_eval(folder, "baseline.eval", change)
        candidate = changed_eval(folder, "candidate.eval", change, source="candidate.eval")
        run, written = run_import(self, baseline, candidate, *IDS, "--mapping", mapping_path)
        self.assertEqual(run.status, 0, run.stderr)
        self.assertEqual([system["protocol"]["timeout_seconds"]
                          for system in written["systems"]], [0.5, 0.5])

    def test_a_wrong_schema_version(self):
        self.mapping_error({"schema_version": "agent-benchmark-spec-v1"},
                           "version.unsupported", "$.schema_version")

    def test_the_mapping_schema_is_published(self):
        from tests.support import run_cli
        run = run_cli(["--schema", "mapping"])
        self.assertEqual(run.status, 0)
        schema = json.loads(run.stdout.decode("ascii"))
        self.assertEqual(schema["$id"], "urn:proagents-bench:schema:mapping")
        for version in ("proagents-bench-import-mapping-v1", "proagents-bench-import-mapping-v2"):
            self.assertIn("side_effect_tools", schema["$defs"][version]["properties"])
        self.assertNotIn("lines", schema["$defs"]["proagents-bench-import-mapping-v1"][
            "properties"])
        self.assertIn("lines", schema["$defs"]["proagents-bench-import-mapping-v2"][
            "properties"])
        shipped = load_json(os.path.join(os.path.dirname(os.path.dirname(os.path.dirname(
            os.path.abspath(__file__)))), "proagents_bench", "contract", "schemas",
            "mapping.schema.json"))
        self.assertEqual(shipped, schema)


if __name__ == "__main__":
    unittest.main()
