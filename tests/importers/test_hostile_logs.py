"""Hostile logs: values and files a harness would never write but a damaged or crafted log
may hold. Each is a contract error (exit 2) naming the log, the zip entry and the JSON path;
never a traceback, an internal error (exit 3) or a hang."""

import json
import os
import struct
import sys
import unittest
from unittest import mock

from proagents_bench.importers.values import state_text
from proagents_bench.errors import ContractErrors
from proagents_bench.importers import source
from proagents_bench.importers.source import MAX_LOG_DEPTH, LogError
from tests.importers.support import eval_entries, fixture, read_bytes, run_import, write_eval
from tests.support import TempDir

IDS = ("--baseline-id", "b", "--candidate-id", "c")
SAMPLE = "samples/test-cancel_epoch_1.json"
PLACEHOLDER = "@@literal@@"

# (label, the sample's key, the literal written there, the JSON path the error names)
NUMBER_CORPUS = (
    ("NaN time", ("working_time",), "NaN", "$.working_time"),
    ("infinite time", ("working_time",), "Infinity", "$.working_time"),
    ("negative infinite time", ("working_time",), "-Infinity", "$.working_time"),
    ("huge exponent", ("working_time",), "1e999999999", "$.working_time"),
    ("a float beyond milliseconds", ("working_time",), "1e306", "$.working_time"),
    ("an integer of 5000 digits", ("working_time",), "9" * 5000, "$.working_time"),
    ("an integer of a million digits", ("working_time",), "7" * 1000000, "$.working_time"),
    ("huge token count", ("model_usage", "mockllm/model", "total_tokens"), "9" * 400,
     "$.model_usage[\"mockllm/model\"].total_tokens"),
    ("NaN token count", ("model_usage", "mockllm/model", "total_tokens"), "NaN",
     "$.model_usage[\"mockllm/model\"].total_tokens"),
)


def _with_literal(entries, entry, keys, literal):
    """``entries`` with ``entry``'s value at ``keys`` replaced by the raw JSON ``literal``."""
    changed = []
    for name, data in entries:
        if name == entry:
            value = json.loads(data.decode("utf-8"))
            target = value
            for key in keys[:-1]:
                target = target[key]
            target[keys[-1]] = PLACEHOLDER
            data = json.dumps(value).replace(json.dumps(PLACEHOLDER), literal).encode()
        changed.append((name, data))
    return changed


def _first_tool_event():
    events = json.loads(dict((info.filename, data) for info, data in eval_entries())[
        SAMPLE].decode("utf-8"))["events"]
    return next(index for index, event in enumerate(events) if event.get("event") == "tool")


def _central_record(data, entry):
    """The offset of ``entry``'s central directory record in the zip ``data``."""
    name = entry.encode("utf-8")
    position = 0
    while True:
        position = data.find(b"PK\x01\x02", position)
        if position < 0:
            raise AssertionError("no central record for " + entry)
        name_length = struct.unpack_from("<H", data, position + 28)[0]
        if bytes(data[position + 46:position + 46 + name_length]) == name:
            return position
        position += 4


def _patch_declared_size(path, entry, size):
    """Make the central directory record of ``entry`` declare ``size`` uncompressed bytes
    (zipfile trusts it); a size of 2^32 or more is declared as ZIP64 does: 0xFFFFFFFF, and
    the size in a ZIP64 extra field."""
    data = bytearray(read_bytes(path))
    position = _central_record(data, entry)
    name_length = struct.unpack_from("<H", data, position + 28)[0]
    if size < 1 << 32:
        struct.pack_into("<I", data, position + 24, size)
        with open(path, "wb") as handle:
            handle.write(bytes(data))
        return
    # ZIP64: 0xFFFFFFFF in the record, the size in an extra field (id 1) appended to it.
    extra_length, comment_length = struct.unpack_from("<HH", data, position + 30)
    struct.pack_into("<I", data, position + 24, 0xFFFFFFFF)
    extra = struct.pack("<HHQ", 1, 8, size)
    end = position + 46 + name_length + extra_length
    struct.pack_into("<H", data, position + 30, extra_length + len(extra))
    data[end:end] = extra
    # The end-of-central-directory record: the directory grew by len(extra) bytes.
    eocd = data.rfind(b"PK\x05\x06")
    directory_size = struct.unpack_from("<I", data, eocd + 12)[0]
    struct.pack_into("<I", data, eocd + 12, directory_size + len(extra))
    with open(path, "wb") as handle:
        handle.write(bytes(data))


class HostileLogTests(unittest.TestCase):
    def assert_error(self, baseline, code, file_suffix, path, candidate=None):
        # A tau2 run records no timeout: the mapping gives it, so the header holds.
        mapping = (("--mapping", fixture("tau2_mapping.json")) if candidate is not None
                   and "tau2" in candidate else ())
        run, written = run_import(self, baseline, candidate or fixture("candidate.eval"), *IDS,
                                  *mapping)
        self.assertEqual(run.status, 2, run.stdout[:500])
        self.assertIsNone(written)
        self.assertNotIn("Traceback", run.stderr)
        errors = run.document["errors"]
        self.assertIn((code, path), [(error["code"], error["path"]) for error in errors],
                      errors)
        error = next(error for error in errors if error["code"] == code)
        self.assertTrue(error["file"].endswith(file_suffix), error["file"])
        return error

    def test_numbers_no_record_can_hold(self):
        entries = [(info.filename, data) for info, data in eval_entries()]
        folder = TempDir(self)
        for label, keys, literal, path in NUMBER_CORPUS:
            with self.subTest(label):
                log = write_eval(folder, "numbers.eval",
                                 _with_literal(entries, SAMPLE, keys, literal))
                self.assert_error(log, "import.field_type", "numbers.eval:" + SAMPLE, path)

    def test_a_huge_number_in_the_eval_config(self):
        entries = [(info.filename, data) for info, data in eval_entries()]
        for literal in ("1e999999999", "9" * 5000):
            with self.subTest(literal[:12]):
                log = write_eval(TempDir(self), "config.eval", _with_literal(
                    entries, "header.json", ("eval", "config", "epochs"), literal))
                self.assert_error(log, "import.field_type", "config.eval:header.json",
                                  "$.eval.config.epochs")

    def test_a_huge_number_in_a_tau2_results_file(self):
        text = read_bytes(fixture("tau2_baseline.json")).decode("utf-8")
        log = json.loads(text)
        folder = TempDir(self)
        for key, literal in (("duration", "1e999999999"), ("agent_cost", "9" * 100000),
                             ("agent_cost", "NaN"), ("duration", "-1")):
            with self.subTest(key=key, literal=literal[:12]):
                log["simulations"][0][key] = PLACEHOLDER
                data = json.dumps(log).replace(json.dumps(PLACEHOLDER), literal)
                path = folder.write_bytes("tau2.json", data.encode("utf-8"))
                self.assert_error(path, "import.field_type", "tau2.json",
                                  "$.simulations[0].%s" % key,
                                  candidate=fixture("tau2_candidate.json"))
                log = json.loads(text)

    def test_protocol_values_the_gate_cannot_read_are_placed_in_the_log(self):
        text = read_bytes(fixture("tau2_baseline.json")).decode("utf-8")
        folder = TempDir(self)
        for literal in ("9" * 99, "-5", "0"):
            with self.subTest(literal[:12]):
                path = folder.write_bytes("tau2.json", text.replace(
                    '"max_steps": 100', '"max_steps": ' + literal).encode("utf-8"))
                self.assert_error(path, "import.protocol", "tau2.json", "$.info.max_steps",
                                  candidate=fixture("tau2_candidate.json"))

    def test_an_integer_cost_beyond_what_the_gate_reads(self):
        folder = TempDir(self)
        mapping = folder.write_json("mapping.json", {
            "schema_version": "proagents-bench-import-mapping-v1",
            "cost": {"source": "agent_cost", "scale": 10 ** 9},
            "protocol": {"timeout_seconds": 300}})
        log = json.loads(read_bytes(fixture("tau2_baseline.json")).decode("utf-8"))
        log["simulations"][0]["agent_cost"] = 10 ** 12
        path = folder.write_bytes("tau2.json", json.dumps(log).encode("utf-8"))
        run, written = run_import(self, path, fixture("tau2_candidate.json"), *IDS,
                                  "--mapping", mapping)
        self.assertEqual(run.status, 2, run.stdout[:500])
        self.assertIn(("import.field_type", "$.simulations[0].agent_cost"),
                      [(error["code"], error["path"]) for error in run.document["errors"]])

    def test_values_the_gate_would_refuse_in_the_package(self):
        header = [(info.filename, data) for info, data in eval_entries()]
        for label, entry, keys, literal, code, path in (
                ("an epoch beyond 2**53", SAMPLE, ("epoch",), "9" * 30, "import.sample_epoch",
                 "$.epoch"),
                ("a lone surrogate in a tool name", SAMPLE, ("events", _first_tool_event(),
                                                             "function"),
                 '"t\\udfff"', "import.field_type", "$"),
                ("a lone surrogate in an answer", SAMPLE, ("scores", "match", "answer"),
                 '"x\\ud800"', "import.field_type", "$"),
                ("a lone surrogate in the model", "header.json", ("eval", "model"),
                 '"m\\ud800"', "import.invalid_result", "$.systems[0].system_id")):
            with self.subTest(label):
                entries = _with_literal(header, entry, keys, literal)
                log = write_eval(TempDir(self), "refused.eval", entries)
                ids = IDS if entry == SAMPLE else ()
                run, written = run_import(self, log, fixture("candidate.eval"), *ids)
                self.assertEqual(run.status, 2, run.stdout[:500])
                self.assertIsNone(written)
                errors = [(error["code"], error["path"]) for error in run.document["errors"]]
                self.assertIn((code, path), errors)

    def test_a_cost_scale_beyond_a_float(self):
        folder = TempDir(self)
        mapping = folder.write_json("mapping.json", {
            "schema_version": "proagents-bench-import-mapping-v1",
            "cost": {"source": "agent_cost", "scale": 1e300},
            "protocol": {"timeout_seconds": 300}})
        log = json.loads(read_bytes(fixture("tau2_baseline.json")).decode("utf-8"))
        log["simulations"][0]["agent_cost"] = 1e300
        path = folder.write_bytes("tau2.json", json.dumps(log).encode("utf-8"))
        run, written = run_import(self, path, fixture("tau2_candidate.json"), *IDS,
                                  "--mapping", mapping)
        self.assertEqual(run.status, 2, run.stdout[:500])
        errors = run.document["errors"]
        self.assertIn(("import.field_type", "$.simulations[0].agent_cost"),
                      [(error["code"], error["path"]) for error in errors])

    def test_a_nested_bom_or_non_utf8_sample(self):
        entries = [(info.filename, data) for info, data in eval_entries()]
        folder = TempDir(self)
        for label, data, code in (
                ("deep arrays", b"[" * 200000 + b"]" * 200000, "import.json"),
                ("deep objects", b'{"a":' * 100000 + b"1" + b"}" * 100000, "import.json"),
                ("not UTF-8", b"\xff\xfe{}", "import.json"),
                ("empty", b"", "import.json"),
                ("an array", b"[]", "import.format")):
            with self.subTest(label):
                log = write_eval(folder, "odd.eval", [
                    (name, data if name == SAMPLE else original)
                    for name, original in entries])
                self.assert_error(log, code, "odd.eval:" + SAMPLE, "$")

    def test_sample_ids_of_other_types(self):
        entries = [(info.filename, data) for info, data in eval_entries()]
        folder = TempDir(self)
        for literal in ("1.5", "true", "null", "[]", "\"  \""):
            with self.subTest(literal):
                log = write_eval(folder, "ids.eval",
                                 _with_literal(entries, SAMPLE, ("id",), literal))
                self.assert_error(log, "import.sample_id", "ids.eval:" + SAMPLE, "$.id")

    def test_zip_entries_that_lie_about_their_size(self):
        entries = [(info.filename, data) for info, data in eval_entries()]
        folder = TempDir(self)
        bomb = b"[" + b" " * (64 << 20) + b"]"  # 64 MiB of JSON that deflates to 64 KiB
        for label, declared, code in (("a bomb declaring 1 KiB", 1024, "import.zip_corrupt"),
                                      ("an entry declaring 2^40 bytes", 1 << 40,
                                       "import.too_large")):
            with self.subTest(label):
                log = write_eval(folder, "lying.eval", [
                    (name, bomb if name == SAMPLE else data) for name, data in entries])
                _patch_declared_size(log, SAMPLE, declared)
                self.assert_error(log, code, "lying.eval:" + SAMPLE, "$")

    def test_an_encrypted_entry(self):
        entries = [(info.filename, data) for info, data in eval_entries()]
        log = write_eval(TempDir(self), "locked.eval", entries)
        data = bytearray(read_bytes(log))
        position = _central_record(data, SAMPLE)
        flags = struct.unpack_from("<H", data, position + 8)[0]
        struct.pack_into("<H", data, position + 8, flags | 1)  # bit 0: encrypted
        with open(log, "wb") as handle:
            handle.write(bytes(data))
        error = self.assert_error(log, "import.zip_compression", "locked.eval:" + SAMPLE, "$")
        self.assertIn("encrypted", error["message"])

    def test_an_entry_name_that_climbs_out_is_only_a_name(self):
        entries = [(info.filename, data) for info, data in eval_entries()]
        sample = dict(entries)[SAMPLE]
        log = write_eval(TempDir(self), "climb.eval",
                         entries + [("samples/../../climb_epoch_1.json", sample)])
        error = self.assert_error(log, "import.duplicate_sample",
                                  "climb.eval:samples/../../climb_epoch_1.json", "$")
        self.assertIn(SAMPLE, error["message"])

    def test_a_final_state_too_deep_to_write_is_a_contract_error(self):
        # It decoded, but writing it again could reach the recursion limit (PyPy's json
        # encoder recurses in Python): a final state nests MAX_LOG_DEPTH deep at most.
        for depth, refused in ((MAX_LOG_DEPTH - 1, False), (MAX_LOG_DEPTH + 1, True),
                               (sys.getrecursionlimit() + 100, True)):
            value = []
            for _level in range(depth):
                value = [value]
            with self.subTest(depth=depth):
                if not refused:
                    self.assertTrue(state_text(value, (), SAMPLE).startswith("[[["))
                    continue
                with self.assertRaises(LogError) as raised:
                    state_text(value, ("scores", "match", "answer"), SAMPLE)
                self.assertEqual((raised.exception.code, raised.exception.path,
                                  raised.exception.entry),
                                 ("import.field_type", ("scores", "match", "answer"), SAMPLE))

    def test_a_log_nested_deeper_than_the_limit_is_refused_before_decoding_on_pypy(self):
        deep = b"[" * (MAX_LOG_DEPTH + 1) + b"]" * (MAX_LOG_DEPTH + 1)
        with mock.patch.object(source, "ON_PYPY", True), \
                mock.patch.object(source.json, "loads", side_effect=AssertionError("decoded")):
            with self.assertRaises(ContractErrors) as raised:
                source.decode_json(deep, source.LogSource("deep.json"), SAMPLE)
        self.assertIn("nested more than", raised.exception.errors[0].message)

    def test_a_package_larger_than_the_gate_reads_is_not_written(self):
        from proagents_bench.cli import import_command
        with mock.patch.object(import_command, "MAX_FILE_BYTES", 1000):
            run, written = run_import(self, fixture("baseline.eval"), fixture("candidate.eval"),
                                      *IDS)
        self.assertEqual(run.status, 2, run.stdout[:300])
        self.assertIsNone(written)
        self.assertEqual(run.document["errors"][0]["code"], "import.too_large")

    @unittest.skipUnless(hasattr(os, "mkfifo"), "no FIFOs here")
    def test_a_fifo_is_refused_not_waited_on(self):
        path = os.path.join(TempDir(self).path, "pipe.eval")
        os.mkfifo(path)
        error = self.assert_error(path, "import.unreadable", "pipe.eval", "$")
        self.assertIn("not a regular file", error["message"])


if __name__ == "__main__":
    unittest.main()
