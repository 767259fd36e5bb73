"""The JSON-lines importer: the generic format, read through a v2 mapping's ``lines``
pointers (``make_jsonl_logs.py`` writes the example's regression package as such a log), and
its contract errors, each at its line."""

import json
import os
import unittest

from proagents_bench.contract.mapping import mapping_errors
from proagents_bench.importers.jsonl import MISSING, pointer_path, resolve
from proagents_bench.importers.source import READ_CHUNK_BYTES, LogSource
from tests.importers import make_jsonl_logs
from tests.importers.support import EXAMPLE_CASES, fixture, load_json, read_bytes, records, \
    run_import
from tests.support import TempDir, example_path, run_cli, with_example

BASELINE = fixture("jsonl_baseline.jsonl")
CANDIDATE = fixture("jsonl_candidate.jsonl")
MAPPING = fixture("jsonl_mapping.json")


def lines_of(path):
    return [json.loads(line) for line in read_bytes(path).decode("utf-8").splitlines()
            if line.strip()]


def write_lines(folder, name, lines):
    """A log of ``lines`` (objects, or raw text kept as it is)."""
    text = "".join((line if isinstance(line, str) else json.dumps(line)) + "\n"
                   for line in lines)
    return folder.write_bytes(name, text.encode("utf-8"))


def padded_line(value, length):
    """The line of ``value`` with a ``pad`` key, ``length`` bytes long with its newline."""
    short = len(json.dumps(dict(value, pad="")).encode("utf-8")) + 1
    return json.dumps(dict(value, pad="x" * (length - short)))


def errors_of(run):
    return [(error["code"], error.get("line"), error.get("path"))
            for error in run.document["errors"]]


class EndToEndTests(unittest.TestCase):
    def test_the_fixtures_are_what_their_script_writes(self):
        for name, data in make_jsonl_logs.files().items():
            self.assertEqual(read_bytes(fixture(name)), data, name)

    def test_a_jsonl_log_goes_to_the_examples_decision_with_two_commands(self):
        folder = TempDir(self)
        results = os.path.join(folder.path, "results.json")
        run = run_cli(["import", "--baseline", BASELINE, "--candidate", CANDIDATE,
                       "--mapping", MAPPING, "--cases", EXAMPLE_CASES, "--output", results])
        self.assertEqual(run.status, 0, run.stderr)
        gate = run_cli(with_example(["--cases", EXAMPLE_CASES, "--results", results,
                                     "--format", "json"]))
        example = run_cli(["--cases", EXAMPLE_CASES, "--results",
                           example_path("benchmark_results_regression.json"), "--format",
                           "json"])
        self.assertEqual(gate.status, 1, gate.stderr)
        self.assertEqual(gate.document["action"], "BLOCK")
        for key in ("action", "primary_reason", "reasons", "findings", "comparison"):
            self.assertEqual(gate.document[key], example.document[key], key)
        for key in ("baseline_metrics", "candidate_metrics"):
            # A v3 package's metrics also count the trials whose latency or cost is null.
            imported = dict(gate.document[key])
            self.assertEqual((imported.pop("unmeasured_cost_trial_count"),
                              imported.pop("unmeasured_latency_trial_count")), (0, 0))
            self.assertEqual(imported, example.document[key], key)

    def test_every_line_is_a_record_as_the_pointers_say(self):
        run, written = run_import(self, BASELINE, CANDIDATE, "--mapping", MAPPING)
        self.assertEqual(run.status, 0, run.stderr)
        example = load_json(example_path("benchmark_results_regression.json"))
        for index, role in enumerate(("baseline", "candidate")):
            # The same records, each list of names sorted (as every importer writes them).
            expected = [dict(record, tools_used=sorted(record["tools_used"]),
                             side_effects=sorted(record["side_effects"]))
                        for record in example["systems"][index]["records"]]
            self.assertEqual(records(written, role), sorted(
                expected, key=lambda record: (record["case_id"], record["trial_id"])))
        system = written["systems"][1]
        self.assertEqual(system["system_id"], "candidate-regression")
        self.assertEqual((system["provenance"]["log_format"], system["provenance"]["harness"]),
                         ("jsonl", "jsonl"))
        self.assertEqual(system["protocol"], example["systems"][1]["protocol"])

    def test_success_decided_by_a_reward(self):
        folder = TempDir(self)
        lines = [{"case": "test-%d" % case, "try": trial, "reward": reward, "model": "m"}
                 for case, rewards in ((1, (1, 0.5)), (2, (0.99, 1.0))) for trial, reward
                 in enumerate(rewards, 1)]
        mapping = dict(load_json(MAPPING), lines={
            "case_id": "/case", "trial_id": "/try", "success": {"pointer": "/reward",
                                                                "at_least": 1}})
        mapping["protocol"] = dict(mapping["protocol"], trial_count=2)
        path = folder.write_json("mapping.json", mapping)
        cases = os.path.join(folder.path, "cases.json")
        # The candidate's log: the same trials in another order (the same bytes would be a
        # run compared with itself, import.same_log).
        run, written = run_import(self, write_lines(folder, "a.jsonl", lines),
                                  write_lines(folder, "b.jsonl", lines[::-1]), "--mapping", path,
                                  "--baseline-id", "a", "--candidate-id", "b",
                                  "--write-cases", cases)
        self.assertEqual(run.status, 0, run.stderr)
        self.assertEqual([record["final_state"] for record in records(written, "baseline")],
                         ["passed", "failed", "failed", "passed"])
        self.assertEqual({case["expected_final_state"] for case in load_json(cases)["cases"]},
                         {"passed"})
        mapping["lines"]["success"] = {"pointer": "/reward", "equals": 1}
        run, written = run_import(self, write_lines(folder, "a.jsonl", lines),
                                  write_lines(folder, "b.jsonl", lines[::-1]), "--mapping",
                                  folder.write_json("mapping.json", mapping),
                                  "--baseline-id", "a", "--candidate-id", "b")
        self.assertEqual([record["final_state"] for record in records(written, "baseline")],
                         ["passed", "failed", "failed", "passed"])

    def test_built_cases_need_an_expected_final_state(self):
        folder = TempDir(self)
        cases = os.path.join(folder.path, "cases.json")
        run, _written = run_import(self, BASELINE, CANDIDATE, "--mapping", MAPPING,
                                   "--write-cases", cases)
        self.assertEqual(run.status, 2)
        self.assertIn("name it in the mapping's lines.expected_final_state",
                      run.document["errors"][0]["message"])
        mapping = load_json(MAPPING)
        mapping["lines"]["expected_final_state"] = "/answer"
        mapping["lines"]["metadata"] = "/task"
        run, _written = run_import(self, BASELINE, CANDIDATE, "--mapping",
                                   folder.write_json("mapping.json", mapping),
                                   "--write-cases", cases)
        self.assertEqual(run.status, 0, run.stderr)
        built = {case["id"]: case for case in load_json(cases)["cases"]}
        self.assertEqual(built["test-refund"]["expected_final_state"], "refund_issued")

    def test_a_line_of_any_length_is_read_whole(self):
        # The format is told from the first line, read in chunks of 1 MiB: a first (or second)
        # line a byte short of a chunk, one chunk, a byte over and two chunks gives the
        # fixture's records.
        _run, expected = run_import(self, BASELINE, CANDIDATE, "--mapping", MAPPING)
        lines = lines_of(BASELINE)
        folder = TempDir(self)
        for length in (READ_CHUNK_BYTES - 1, READ_CHUNK_BYTES, READ_CHUNK_BYTES + 1,
                       READ_CHUNK_BYTES + 2, 2 * READ_CHUNK_BYTES + 5):
            for place in (0, 1):
                with self.subTest(length=length, line=place + 1):
                    padded = list(lines)
                    padded[place] = padded_line(lines[place], length)
                    log = write_lines(folder, "padded.jsonl", padded)
                    with open(log, "rb") as handle:
                        for _skipped in range(place):
                            handle.readline()
                        self.assertEqual(len(handle.readline()), length)
                    run, written = run_import(self, log, CANDIDATE, "--mapping", MAPPING)
                    self.assertEqual(run.status, 0, run.stdout[:300])
                    self.assertEqual(records(written, "baseline"), records(expected, "baseline"))

    def test_a_second_line_is_anything_but_whitespace_after_the_first_line(self):
        folder = TempDir(self)
        long_line = b'{"a": "' + b"x" * (2 * READ_CHUNK_BYTES) + b'"}'
        for label, data, several in (
                ("one long line", long_line, False),
                ("one long line, then blanks", long_line + b"\n  \n\n", False),
                ("two lines", long_line + b"\n{}\n", True),
                ("a chunk to the newline", b"{" + b" " * (READ_CHUNK_BYTES - 3) + b"}\n{}", True),
                ("a chunk without it", b"{" + b" " * (READ_CHUNK_BYTES - 2) + b"}\n ", False)):
            with self.subTest(label):
                source = LogSource(folder.write_bytes("log.jsonl", data))
                self.assertEqual(source.has_second_line(), several)
                self.assertIsInstance(source.first_line(), dict)

    def test_a_log_of_one_line_is_read_with_the_lines_mapping(self):
        folder = TempDir(self)
        line = lines_of(BASELINE)[0]
        mapping = dict(load_json(MAPPING))
        mapping["protocol"] = dict(mapping["protocol"], trial_count=2)
        mapping["lines"] = dict(mapping["lines"], first_trial=1)
        # The candidate's line with a trailing space: other bytes (not import.same_log).
        other = (line if isinstance(line, str) else json.dumps(line)) + " "
        run, _written = run_import(self, write_lines(folder, "a.jsonl", [line]),
                                   write_lines(folder, "b.jsonl", [other]), "--mapping",
                                   folder.write_json("mapping.json", mapping),
                                   "--candidate-id", "other")
        # Read as JSON lines: one trial of the two the protocol asks for.
        self.assertEqual(run.status, 2)
        self.assertEqual({error[0] for error in errors_of(run)}, {"import.incomplete_run"})


class LineErrorTests(unittest.TestCase):
    def bad(self, lines, expected, mapping=MAPPING, *arguments):
        folder = TempDir(self)
        run, written = run_import(self, write_lines(folder, "log.jsonl", lines), CANDIDATE,
                                  "--mapping", mapping, *arguments)
        self.assertEqual(run.status, 2, run.stdout[:300])
        self.assertIsNone(written)
        found = errors_of(run)
        for error in expected:
            self.assertIn(error, found)
        return run

    def test_a_line_that_is_not_json_names_its_line_and_column(self):
        lines = lines_of(BASELINE)
        run = self.bad(lines[:2] + ['{"task": {"id": "test-x"}, "attempt": 0,,}'] + lines[3:],
                       [("import.json", 3, "$")])
        self.assertEqual(run.document["errors"][0]["column"], 41)

    def test_a_line_that_is_not_utf8_names_its_line_and_column(self):
        lines = lines_of(BASELINE)
        folder = TempDir(self)
        text = ("".join(json.dumps(line) + "\n" for line in lines)).encode("utf-8")
        for bom in (b"", b"\xef\xbb\xbf"):
            for number in (1, 3):
                with self.subTest(line=number, bom=bool(bom)):
                    broken = text.split(b"\n")
                    broken[number - 1] = broken[number - 1].replace(b'"task"', b'"t\xc3\xa9\xff"')
                    run, written = run_import(self, folder.write_bytes(
                        "log.jsonl", bom + b"\n".join(broken)), CANDIDATE, "--mapping", MAPPING)
                    self.assertIsNone(written)
                    error = run.document["errors"][0]
                    self.assertEqual((error["code"], error["line"]), ("import.json", number))
                    byte = broken[number - 1].index(b"\xff")
                    self.assertEqual(error["column"], byte)  # "é" is one character of two bytes
                    # A first line that is not UTF-8 cannot tell the log's format: the log's
                    # error, at the same place.
                    self.assertIn("starting with 0xFF at byte offset %d" % (byte + len(bom))
                                  if number == 1 else "starting with 0xFF at byte %d of the "
                                  "line" % (byte + 1), error["message"])

    def test_a_line_that_is_not_an_object(self):
        lines = lines_of(BASELINE)
        self.bad(lines[:1] + ["[1, 2]"] + lines[2:], [("import.field_type", 2, "$")])

    def test_blank_lines_are_skipped_and_counted(self):
        lines = lines_of(BASELINE)
        broken = dict(lines[3], task={})
        self.bad(lines[:3] + ["", "   "] + [broken] + lines[4:],
                 [("import.missing_field", 6, "$.task.id")])

    def test_bad_fields_at_their_line_and_path(self):
        lines = lines_of(BASELINE)
        changes = [({"attempt": "two"}, ("import.sample_epoch", 1, "$.attempt")),
                   ({"attempt": -1}, ("import.sample_epoch", 2, "$.attempt")),
                   ({"task": {"id": " "}}, ("import.sample_id", 3, "$.task.id")),
                   ({"outcome": "exploded"}, ("import.status_value", 4, "$.outcome")),
                   ({"answer": 7}, ("import.field_type", 5, "$.answer")),
                   ({"calls": "lookup_order"}, ("import.field_type", 6, "$.calls")),
                   ({"writes": [""]}, ("import.field_type", 7, "$.writes[0]")),
                   ({"elapsed_ms": -3}, ("import.field_type", 8, "$.elapsed_ms")),
                   ({"usd": True}, ("import.field_type", 9, "$.usd")),
                   ({"run": {"model": "other"}}, ("import.system_id", 10, "$.run.model"))]
        broken = [dict(line, **change) for line, (change, _error) in zip(lines, changes)]
        self.bad(broken + lines[len(changes):], [error for _change, error in changes])

    def test_a_status_the_values_name_and_a_missing_one(self):
        lines = lines_of(BASELINE)
        lines[0]["outcome"] = "crashed"
        del lines[1]["outcome"]
        folder = TempDir(self)
        run, written = run_import(self, write_lines(folder, "log.jsonl", lines), CANDIDATE,
                                  "--mapping", MAPPING)
        self.assertEqual(run.status, 0, run.stderr)
        statuses = {record["trial_id"]: record["status"] for record in
                    records(written, "baseline") if record["case_id"] == "test-refund"}
        self.assertEqual(statuses, {1: "success", 2: "unknown", 3: "error"})

    def test_a_trial_twice_names_both_lines(self):
        lines = lines_of(BASELINE)
        run = self.bad(lines[:5] + [lines[0]] + lines[5:], [("import.duplicate_sample", 6, "$")])
        self.assertIn("also at line 1", run.document["errors"][0]["message"])

    def test_a_missing_trial_is_an_incomplete_run_or_unknown(self):
        lines = lines_of(BASELINE)
        run = self.bad(lines[:4] + lines[5:], [("import.incomplete_run", None, "$")])
        self.assertIn('the first case "test-cancel" trial 2', run.document["errors"][0][
            "message"])
        folder = TempDir(self)
        run, written = run_import(self, write_lines(folder, "log.jsonl", lines[:4] + lines[5:]),
                                  CANDIDATE, "--mapping", MAPPING, "--missing-as", "unknown")
        self.assertEqual(run.status, 0, run.stderr)
        self.assertEqual(written["systems"][0]["provenance"]["recorded_unknown"],
                         [{"case_id": "test-cancel", "trial_id": 2}])

    def test_without_the_lines_mapping(self):
        folder = TempDir(self)
        run, _written = run_import(self, BASELINE, CANDIDATE)
        self.assertEqual(errors_of(run)[0][0], "import.lines_mapping")
        v1 = folder.write_json("v1.json", {"schema_version": "proagents-bench-import-mapping-v1"})
        run, _written = run_import(self, BASELINE, CANDIDATE, "--mapping", v1)
        self.assertEqual(errors_of(run)[0][0], "import.lines_mapping")

    def test_a_log_of_blank_lines_is_not_json(self):
        folder = TempDir(self)
        empty = folder.write_bytes("empty.jsonl", b"\n")
        run, _written = run_import(self, empty, CANDIDATE, "--mapping", MAPPING)
        self.assertEqual(run.status, 2)
        self.assertIn("import.json", [error[0] for error in errors_of(run)])


class PointerTests(unittest.TestCase):
    def test_the_mapping_takes_json_pointers_only(self):
        base = {"schema_version": "proagents-bench-import-mapping-v2",
                "lines": {"case_id": "/task/id", "trial_id": "/attempt"}}
        for pointer in ("/a", "/a~1b/m~0n/1", "/", "//x", "/~01~1"):
            value = dict(base, lines=dict(base["lines"], case_id=pointer))
            self.assertEqual(mapping_errors(value), [], pointer)
        for pointer in ("a", "", "/a~2", "/x~", "#/a"):
            value = dict(base, lines=dict(base["lines"], case_id=pointer))
            self.assertEqual([(error.code, error.path) for error in mapping_errors(value)],
                             [("schema.pattern" if pointer else "schema.blank_string",
                               ("lines", "case_id"))], pointer)


    def test_json_pointers_as_rfc_6901_says(self):
        value = {"a/b": {"m~n": [10, 20]}, "": 1, "01": 2}
        self.assertEqual(pointer_path("/a~1b/m~0n/1"), ("a/b", "m~n", "1"))
        self.assertEqual(resolve(value, "/a~1b/m~0n/1"), 20)
        self.assertEqual(resolve(value, "/"), 1)
        self.assertEqual(resolve(value, "/01"), 2)
        for pointer in ("/a~1b/m~0n/01", "/a~1b/m~0n/2", "/a~1b/m~0n/-", "/x", "/01/x"):
            self.assertIs(resolve(value, pointer), MISSING, pointer)


if __name__ == "__main__":
    unittest.main()
