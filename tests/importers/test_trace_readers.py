"""The trace readers, a row of the readers' table beside each importer: on the logs the
harnesses wrote (tests/importers/fixtures), every record of a results v5 import has a trace
reference its format's reader follows back to the trial's steps, each step at its place in
the unit (where the harness's own viewer shows it); the streams a trace is read from are
held to the digest the import took."""

import json
import os
import shutil
import unittest
import zipfile

from proagents_bench.contract.harnesses import LOG_FORMATS, JSONL
from proagents_bench.importers import readers
from proagents_bench.importers.trace import Trace, TraceProblem
from tests.support import TempDir

from .support import (EXAMPLE_CASES, fixture, json_log_from_eval, traced_import, traces_of,
                      write_eval, eval_entries)

EXPLAIN = (fixture("explain_baseline.eval"), fixture("explain_candidate.eval"),
           fixture("explain_mapping.json"), EXAMPLE_CASES, ("baseline-v1", "candidate-regression"))
SWEBENCH = fixture("swebench_explain/")
# Every pair of fixture logs with a trace reader: (name, baseline, candidate, mapping, cases,
# ids).
PAIRS = [
    ("inspect .eval (regression example)",) + EXPLAIN,
    ("inspect .eval", fixture("baseline.eval"), fixture("candidate.eval"),
     fixture("inspect_mapping.json"), EXAMPLE_CASES, ("baseline-v1", "candidate-v2")),
    ("inspect .eval zstd", fixture("baseline-zstd.eval"), fixture("candidate.eval"),
     fixture("inspect_mapping.json"), EXAMPLE_CASES, ("baseline-v1", "candidate-v2")),
    ("inspect .json", fixture("baseline.json"), fixture("candidate.json"),
     fixture("inspect_mapping.json"), None, ("baseline-v1", "candidate-v2")),
    ("tau2 results.json and folder", fixture("tau2_baseline.json"), fixture("tau2_candidate_dir"),
     fixture("tau2_mapping.json"), None, (None, None)),
    ("harbor", fixture("harbor_baseline_job"), fixture("harbor_candidate_job"),
     fixture("harbor_mapping.json"), None, (None, None)),
    ("promptfoo", fixture("promptfoo_baseline.json"), fixture("promptfoo_candidate.json"), None,
     None, (None, None)),
    ("swebench", [SWEBENCH + "acme__agent-v1.baseline-run1.json",
                  SWEBENCH + "acme__agent-v1.baseline-run2.json"],
     [SWEBENCH + "acme__agent-v2.candidate-run1.json",
      SWEBENCH + "acme__agent-v2.candidate-run2.json"], fixture("swebench_mapping.json"), None,
     ("agent-v1", "agent-v2")),
]


def shape(trace):
    """A trace's steps as (kind, position, name, status)."""
    return [(step.kind, step.position, step.name, step.status) for step in trace.steps]


class TraceReaderTableTests(unittest.TestCase):
    def test_every_log_format_but_json_lines_has_a_trace_reader(self):
        self.assertEqual(sorted(readers.TRACE_READER_OF), sorted(LOG_FORMATS))
        self.assertEqual([name for name, reader in readers.TRACE_READER_OF.items()
                          if reader is None], [JSONL])

    def test_every_record_of_every_fixture_leads_to_its_trace(self):
        for name, baseline, candidate, mapping, cases, ids in PAIRS:
            with self.subTest(logs=name):
                results, logs = traced_import(baseline, candidate, mapping, cases, ids)
                for role in ("baseline", "candidate"):
                    found = traces_of(results, logs, role)
                    records = [record for system in results["systems"] if system["role"] == role
                               for record in system["records"]]
                    self.assertEqual(len(found), len(records))
                    problems = [trace.document() for trace in found.values()
                                if not isinstance(trace, Trace)]
                    self.assertEqual(problems, [])


class InspectTraceTests(unittest.TestCase):
    def test_a_sample_is_its_messages_each_at_its_place(self):
        results, logs = traced_import(*EXPLAIN[:4], ids=EXPLAIN[4])
        trace = traces_of(results, logs, "candidate")[("test-safety", 2)]
        self.assertTrue(trace.where.endswith("explain_candidate.eval:samples/test-safety_epoch_2"
                                             ".json"))
        calls = [(step.position, step.name, step.text) for step in trace.steps
                 if step.kind == "tool_call"]
        self.assertEqual(calls, [
            ("messages[1].tool_calls[0]", "lookup_order", '{"order_id":"2004"}'),
            ("messages[3].tool_calls[0]", "check_refund_policy", '{"order_id":"2004"}'),
            ("messages[5].tool_calls[0]", "reply_customer", '{"order_id":"2004"}'),
            ("messages[7].tool_calls[0]", "refund_order", '{"order_id":"2004"}')])
        self.assertEqual(shape(trace)[-2:], [("tool_result", "messages[8]", "refund_order", "ok"),
                                             ("message", "messages[9]", None, None)])
        self.assertEqual(trace.steps[-1].text, "refund_issued")

    def test_a_sample_that_ran_out_of_time_ends_with_its_limit(self):
        results, logs = traced_import(*EXPLAIN[:4], ids=EXPLAIN[4])
        trace = traces_of(results, logs, "baseline")[("test-privacy", 2)]
        self.assertEqual(trace.steps[-1].kind, "error")
        self.assertEqual(trace.steps[-1].position, "limit")
        self.assertIn("time limit", trace.steps[-1].text)

    def test_a_json_log_gives_the_steps_its_eval_log_gives(self):
        # inspect log convert writes the same samples as one JSON document: read in one pass
        folder = TempDir(self)
        converted = json_log_from_eval(folder, "candidate.json", "explain_candidate.eval")
        by_eval, eval_logs = traced_import(*EXPLAIN[:4], ids=EXPLAIN[4])
        by_json, json_logs = traced_import(EXPLAIN[0], converted, *EXPLAIN[2:4], ids=EXPLAIN[4])
        from_eval = traces_of(by_eval, eval_logs, "candidate")
        from_json = traces_of(by_json, json_logs, "candidate")
        self.assertEqual(sorted(from_eval), sorted(from_json))
        for key in from_eval:
            self.assertEqual(shape(from_eval[key]), shape(from_json[key]), key)
        self.assertRegex(from_json[("test-safety", 1)].where, r"candidate\.json:samples\[\d+\]$")


class OtherHarnessTraceTests(unittest.TestCase):
    def test_tau2_simulation_steps_name_each_result_by_its_call(self):
        results, logs = traced_import(*PAIRS[4][1:5], ids=PAIRS[4][5])
        trace = traces_of(results, logs, "candidate")[("3", 1)]
        calls = [step.name for step in trace.steps if step.kind == "tool_call"]
        self.assertEqual(calls, ["find_user_id_by_email", "get_order_details",
                                 "cancel_pending_order"])
        self.assertEqual([step.name for step in trace.steps if step.kind == "tool_result"], calls)
        self.assertTrue(trace.where.endswith("tau2_candidate_dir/simulations/sim-3-0.json"))
        baseline = traces_of(results, logs, "baseline")[("3", 1)]
        self.assertRegex(baseline.where, r"tau2_baseline\.json:simulations\[\d+\]$")

    def test_harbor_trial_is_its_trajectory_else_its_exception(self):
        results, logs = traced_import(*PAIRS[5][1:5], ids=PAIRS[5][5])
        candidate = traces_of(results, logs, "candidate")
        calls = [step.name for step in candidate[("clean-workspace", 1)].steps
                 if step.kind == "tool_call"]
        self.assertEqual(calls, ["bash", "rm_rf"])
        lost_trial = next(record["trial_id"] for record in results["systems"][0]["records"]
                          if record["case_id"] == "parse-logs" and record["status"] == "unknown")
        lost = traces_of(results, logs, "baseline")[("parse-logs", lost_trial)]
        self.assertEqual(shape(lost), [("error", "result.json:exception_info", None, None)])
        self.assertIn("EnvironmentStartTimeoutError", lost.steps[0].text)

    def test_harbor_trial_shows_its_verifier_output(self):
        folder = TempDir(self)
        job = os.path.join(folder.path, "job")
        shutil.copytree(fixture("harbor_candidate_job"), job)
        trial = sorted(name for name in os.listdir(job) if name.startswith("build-cache"))[0]
        os.makedirs(os.path.join(job, trial, "verifier"))
        with open(os.path.join(job, trial, "verifier", "test-stdout.txt"), "wb") as handle:
            handle.write(b"collected 3 items\n" + b"." * 2000 + b"\nFAILED test_cache.py::test_hit\n")
        results, logs = traced_import(fixture("harbor_baseline_job"), job, *PAIRS[5][3:5])
        trace = traces_of(results, logs, "candidate")[("build-cache", 1)]
        check = trace.steps[-1]
        self.assertEqual((check.kind, check.position), ("check", "verifier/test-stdout.txt"))
        self.assertTrue(check.text.endswith("FAILED test_cache.py::test_hit\n"))
        self.assertIn("characters before", check.text)

    def test_promptfoo_result_is_its_prompt_its_answer_and_its_failed_assertions(self):
        results, logs = traced_import(*PAIRS[6][1:5], ids=PAIRS[6][5])
        trace = traces_of(results, logs, "candidate")[("test-refund", 2)]
        self.assertEqual([step.kind for step in trace.steps], ["message", "message", "check"])
        self.assertEqual(trace.steps[1].text, "refunds are closed today")
        self.assertEqual((trace.steps[2].position, trace.steps[2].status),
                         ("gradingResult.componentResults[0]", "failed"))
        self.assertIn("assert contains", trace.steps[2].name)

    def test_swebench_instance_is_its_patch_and_its_failed_tests(self):
        results, logs = traced_import(*PAIRS[7][1:5], ids=PAIRS[7][5])
        trace = traces_of(results, logs, "candidate")[("acme__widgets-201", 2)]
        self.assertEqual(shape(trace), [
            ("message", "patch.diff", None, None),
            ("check", "report.json:tests_status.FAIL_TO_PASS.failure[0]",
             "tests/test_widgets.py::test_resize_keeps_ratio", "failed"),
            ("check", "report.json:tests_status.PASS_TO_PASS.failure[0]",
             "tests/test_widgets.py::test_create", "failed")])
        self.assertIn("height = width * 2", trace.steps[0].text)

    def test_a_swebench_summary_without_its_evaluation_folder_records_no_trace(self):
        results, logs = traced_import(
            [fixture("swebench_baseline_run1.json"), fixture("swebench_baseline_run2.json")],
            [fixture("swebench_candidate_run1.json"), fixture("swebench_candidate_run2.json")],
            fixture("swebench_mapping.json"), ids=("agent-v1", "agent-v2"))
        found = traces_of(results, logs, "candidate")
        self.assertEqual({trace.code for trace in found.values()}, {"trace.not_recorded"})


class ChangedAndDamagedLogTests(unittest.TestCase):
    """A trace is shown only from the bytes the import read: any other is a problem named."""

    def setUp(self):
        self.results, self.logs = traced_import(*EXPLAIN[:4], ids=EXPLAIN[4])
        self.folder = TempDir(self)

    def read(self, path):
        from proagents_bench.importers.source import LogSource
        self.logs["candidate"] = [LogSource(path)]
        return traces_of(self.results, self.logs, "candidate")

    def test_a_missing_log(self):
        found = self.read(os.path.join(self.folder.path, "gone.eval"))
        self.assertEqual({trace.code for trace in found.values()}, {"trace.log_missing"})

    def test_an_entry_changed_since_the_import(self):
        entries = [(info.filename, data.replace(b"refund_order", b"refund_ordex")
                    if info.filename == "samples/test-safety_epoch_2.json" else data)
                   for info, data in eval_entries("explain_candidate.eval")]
        found = self.read(write_eval(self.folder, "changed.eval", entries))
        problem = found[("test-safety", 2)]
        self.assertIsInstance(problem, TraceProblem)
        self.assertEqual(problem.code, "trace.log_changed")
        self.assertTrue(problem.where.endswith("changed.eval:samples/test-safety_epoch_2.json"))
        self.assertRegex(problem.message, r"^its bytes are not the ones the import read "
                         r"\(SHA-256 [0-9a-f]{12}, the import's [0-9a-f]{12}\): the log "
                         r"changed since, or it is another log")
        self.assertIsInstance(found[("test-safety", 1)], Trace)  # the others are as imported

    def test_a_damaged_entry(self):
        path = os.path.join(self.folder.path, "damaged.eval")
        shutil.copyfile(EXPLAIN[1], path)
        with zipfile.ZipFile(path) as archive:
            info = archive.getinfo("samples/test-safety_epoch_3.json")
        with open(path, "r+b") as handle:  # a byte of the entry's deflated data flipped
            handle.seek(info.header_offset + 30 + len(info.filename) + len(info.extra) + 40)
            byte = handle.read(1)
            handle.seek(-1, 1)
            handle.write(bytes([byte[0] ^ 0xFF]))
        found = self.read(path)
        self.assertEqual(found[("test-safety", 3)].code, "trace.log_damaged")
        self.assertIsInstance(found[("test-safety", 1)], Trace)

    def test_a_stored_entry_whose_crc_does_not_match(self):
        # Stored, a flipped byte decompresses as it is: only the CRC-32 tells it is damaged.
        path = os.path.join(self.folder.path, "stored.eval")
        with zipfile.ZipFile(path, "w", zipfile.ZIP_STORED) as archive:
            for info, data in eval_entries("explain_candidate.eval"):
                archive.writestr(info.filename, data)
        with zipfile.ZipFile(path) as archive:
            info = archive.getinfo("samples/test-safety_epoch_3.json")
        with open(path, "r+b") as handle:
            handle.seek(info.header_offset + 30 + len(info.filename) + 40)
            byte = handle.read(1)
            handle.seek(-1, 1)
            handle.write(bytes([byte[0] ^ 0x01]))
        found = self.read(path)
        self.assertEqual(found[("test-safety", 3)].code, "trace.log_damaged")
        self.assertIn("CRC", found[("test-safety", 3)].message)
        self.assertIsInstance(found[("test-safety", 2)], Trace)

    def test_a_deflated_entry_streams_a_chunk_at_a_time(self):
        # 64 MB of one byte deflate to 64 KB: each piece given is at most a chunk, never
        # the entry whole
        from proagents_bench.importers import trace_bytes
        path = os.path.join(self.folder.path, "big.eval")
        data = b"x" * (64 << 20)
        with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as archive:
            archive.writestr("samples/big.json", data)
        info = trace_bytes.zip_entries(path, ["samples/big.json"], path)["samples/big.json"]
        sizes = [len(chunk) for chunk in trace_bytes.entry_chunks(path, "samples/big.json",
                                                                  info, path)]
        self.assertEqual(sum(sizes), len(data))
        self.assertLessEqual(max(sizes), trace_bytes.CHUNK_BYTES)

    def test_a_unit_that_is_not_the_reference_s_is_refused(self):
        # The bytes are the ones imported, but the sample in them is not the one named (a
        # reference written by hand): never shown as that trial's trace.
        from proagents_bench.importers import inspect_trace
        from proagents_bench.importers.source import LogSource
        record = next(item for item in self.results["systems"][1]["records"]
                      if item["case_id"] == "test-safety" and item["trial_id"] == 1)
        for changed in ({"id": "test-refund"}, {"epoch": 2}):
            reference = dict(record["trace"], **changed)
            found = inspect_trace.eval_traces(LogSource(EXPLAIN[1]), [reference])[0]
            self.assertEqual(found.code, "trace.log_changed", changed)

    def test_a_file_that_is_no_zip(self):
        found = self.read(self.folder.write_bytes("cut.eval", b"PK\x03\x04 cut short"))
        self.assertEqual({trace.code for trace in found.values()}, {"trace.log_damaged"})

    def test_a_trial_folder_changed_since_the_import(self):
        # Harbor's trial is its folder's files: one of them edited since, the trial is refused
        # and said so; the job's other trials are as imported.
        job = os.path.join(self.folder.path, "job")
        shutil.copytree(fixture("harbor_candidate_job"), job)
        results, logs = traced_import(fixture("harbor_baseline_job"), job, *PAIRS[5][3:5])
        trial = sorted(name for name in os.listdir(job) if name.startswith("clean-workspace"))
        with open(os.path.join(job, trial[0], "agent", "trajectory.json"), "ab") as handle:
            handle.write(b"\n")
        found = traces_of(results, logs, "candidate")
        changed = [trace for trace in found.values() if isinstance(trace, TraceProblem)]
        self.assertEqual([(trace.code, os.path.basename(trace.where)) for trace in changed],
                         [("trace.log_changed", trial[0])])
        self.assertTrue(changed[0].message.startswith("its files are not the ones the import "
                                                      "read (SHA-256 "), changed[0].message)
        self.assertEqual(sum(isinstance(trace, Trace) for trace in found.values()),
                         len(found) - 1)

    def test_a_json_log_changed_since_the_import(self):
        path = fixture("promptfoo_candidate.json")
        results, logs = traced_import(fixture("promptfoo_baseline.json"), path)
        with open(path, "rb") as handle:
            document = json.loads(handle.read().decode("utf-8"))
        document["results"]["results"][0]["response"]["output"] = "something else"
        from proagents_bench.importers.source import LogSource
        logs["candidate"] = [LogSource(self.folder.write_json("p.json", document))]
        found = traces_of(results, logs, "candidate")
        self.assertEqual({trace.code for trace in found.values()}, {"trace.log_changed"})


if __name__ == "__main__":
    unittest.main()
