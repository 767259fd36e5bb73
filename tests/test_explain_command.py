"""``run_benchmark.py explain``: the two commands (import --trace-refs, then explain) on logs
Inspect AI wrote, as a team runs them. JSON in a pipe (held to its contract and its JSON
Schema), text at a terminal, the gate's reports with the explanation in them, the exit status
the decision's; a trace that cannot be read said on stderr and in the document, the decision
unchanged; a bad command line or file is the usual contract error, and no report outlives it.
"""

import json
import os
import unittest

from proagents_bench.contract.explanation import EXPLANATION
from proagents_bench.contract.publish import schema
from proagents_bench.reports.markdown import text as markdown_text
from tests.importers.support import (EXAMPLE_CASES, EXAMPLE_SPEC, changed_eval, eval_entries,
                                     fixture, read_bytes, write_eval)
from tests.schema_check import schema_errors
from tests.support import TempDir, example_path, run_cli

BASELINE, CANDIDATE = fixture("explain_baseline.eval"), fixture("explain_candidate.eval")
IMPORT = ["import", "--baseline", BASELINE, "--candidate", CANDIDATE, "--mapping",
          fixture("explain_mapping.json"), "--cases", EXAMPLE_CASES, "--baseline-id",
          "baseline-v1", "--candidate-id", "candidate-regression", "--trace-refs"]


# Each harness's walk: (import's arguments beyond the logs, explain's spec and cases, the
# failing task, where the candidate left the baseline's path, where it broke the rule).
HARNESS_WALKS = [
    ("inspect", BASELINE, CANDIDATE, IMPORT[5:], EXAMPLE_SPEC, EXAMPLE_CASES, "test-safety",
     "messages[7].tool_calls[0]", "messages[7].tool_calls[0]"),
    ("tau2", fixture("tau2_baseline.json"), fixture("tau2_candidate_dir"),
     ["--mapping", fixture("tau2_mapping.json"), "--write-cases", "cases.json",
      "--trace-refs"], fixture("tau2_spec.json"), "cases.json", "3",
     "messages[5].tool_calls[0]", "messages[5].tool_calls[0]"),
    ("harbor", fixture("harbor_baseline_job"), fixture("harbor_candidate_job"),
     ["--mapping", fixture("harbor_mapping.json"), "--cases", fixture("harbor_cases.json"),
      "--trace-refs"], fixture("harbor_spec.json"), fixture("harbor_cases.json"),
     "clean-workspace", "steps[2].tool_calls[0]", "steps[2].tool_calls[0]"),
]


class EveryFormatTests(unittest.TestCase):
    def test_each_harness_s_failing_task_named_in_all_three_formats(self):
        for (name, baseline, candidate, options, spec, cases, task, diverged,
             broke) in HARNESS_WALKS:
            with self.subTest(harness=name):
                folder = TempDir(self)
                local = [os.path.join(folder.path, value) if value == "cases.json" else value
                         for value in options]
                results = os.path.join(folder.path, "results.json")
                run = run_cli(["import", "--baseline", baseline, "--candidate", candidate] +
                              local + ["--output", results])
                self.assertEqual(run.status, 0, run.stderr)
                cases = os.path.join(folder.path, cases) if cases == "cases.json" else cases
                page = os.path.join(folder.path, "report.html")
                summary = os.path.join(folder.path, "summary.md")
                run = run_cli(["explain", "--spec", spec, "--cases", cases, "--results",
                               results, "--baseline", baseline, "--candidate", candidate,
                               "--format", "text", "--html", page, "--markdown", summary])
                self.assertEqual(run.status, 1, run.stderr)
                text = " ".join(run.stdout.decode("ascii").split())
                self.assertIn("at %s <- first divergence" % diverged, text)
                self.assertIn("rule broken: forbidden side effect", text)
                self.assertIn(" at %s" % broke, text)
                html = read_bytes(page).decode("utf-8")
                self.assertIn('<details id="why-%s">' % task, html)
                self.assertIn('<tr class="%s first">' % ("changed" if name == "harbor" else
                                                        "candidate_only"), html)
                self.assertIn("rule broken: forbidden side effect", html)
                markdown = read_bytes(summary).decode("utf-8")
                line = next(line for line in markdown.splitlines()
                            if line.startswith("- %s" % task))
                self.assertIn("left the baseline's path", line)
                self.assertIn(markdown_text("forbidden side effect"), line)
                self.assertIn(markdown_text("at %s" % broke), line)


class ExplainCommandTests(unittest.TestCase):
    def setUp(self):
        self.folder = TempDir(self)
        self.results = os.path.join(self.folder.path, "results.json")
        run = run_cli(IMPORT + ["--output", self.results])
        self.assertEqual(run.status, 0, run.stderr)

    def explain(self, *arguments, logs=True, results=None):
        given = ["explain", "--spec", EXAMPLE_SPEC, "--cases", EXAMPLE_CASES, "--results",
                 results or self.results]
        if logs:
            given += ["--baseline", BASELINE, "--candidate", CANDIDATE]
        return run_cli(given + list(arguments))

    def test_json_in_a_pipe_held_to_its_contract_and_schema(self):
        run = self.explain()
        self.assertEqual(run.status, 1, run.stderr)  # BLOCK, as the gate decides
        document = run.document
        self.assertEqual(list(EXPLANATION.iter_errors(document)), [])
        published = schema("explanation")
        self.assertEqual(schema_errors(document, published, published), [])
        gate = run_cli(["--spec", EXAMPLE_SPEC, "--cases", EXAMPLE_CASES, "--results",
                        self.results]).document
        self.assertEqual(document["decision"], {"action": gate["action"],
                                                "reasons": gate["reasons"]})
        self.assertEqual([task["case_id"] for task in document["tasks"]], ["test-safety"])
        self.assertEqual(document["tasks"][0]["first_divergence"]["candidate"]["position"],
                         "messages[7].tool_calls[0]")

    def test_text_at_a_terminal_names_the_divergence_and_the_rule(self):
        run = self.explain("--format", "text")
        self.assertEqual(run.status, 1)
        text = run.stdout.decode("ascii")
        self.assertIn("+ candidate refund_order {\"order_id\":\"2004\"} at "
                      "messages[7].tool_calls[0]  <- first divergence", text)
        self.assertIn("rule broken: forbidden side effect refund_order at "
                      "messages[7].tool_calls[0]", text)
        # last, where a terminal keeps them in view: the decision and its reasons
        self.assertIn("BLOCK  explained: 1 task  (candidate candidate-regression, baseline "
                      "baseline-v1)", text)
        self.assertTrue(" ".join(text.split()).endswith("lower bound -0.4 is below 0"))

    def test_the_reports_are_the_gate_s_with_the_explanation_in_them(self):
        page = os.path.join(self.folder.path, "report.html")
        summary = os.path.join(self.folder.path, "summary.md")
        run = self.explain("--html", page, "--markdown", summary, "--case", "test-refund")
        self.assertEqual(run.status, 1, run.stderr)
        html = read_bytes(page).decode("utf-8")
        self.assertIn('<details id="why-test-safety">', html)
        self.assertIn('<details id="why-test-refund">', html)
        self.assertIn('(why: <a href="#why-test-safety">test-safety</a>)', html)
        self.assertEqual(html.count('href="#why-test-refund"'), 0)  # asked for, no reason
        markdown = read_bytes(summary).decode("utf-8")
        self.assertLess(markdown.index("### Reasons"), markdown.index("### Why:"))
        self.assertLess(markdown.index("### Why:"), markdown.index("### Metrics"))
        gate_page = os.path.join(self.folder.path, "gate.html")
        run_cli(["--spec", EXAMPLE_SPEC, "--cases", EXAMPLE_CASES, "--results", self.results,
                 "--html", gate_page])
        self.assertNotIn("why-", read_bytes(gate_page).decode("utf-8"))

    @unittest.skipUnless(hasattr(os, "mkfifo") and os.path.exists(os.devnull),
                         "POSIX FIFOs and devices")
    def test_a_log_that_is_a_fifo_or_a_device_is_refused_before_it_blocks(self):
        # The results hold trace references, so each log would be opened: a FIFO's open
        # would block for ever, a device read as a log of no bytes.
        fifo = os.path.join(self.folder.path, "log.fifo")
        os.mkfifo(fifo)
        for role, path in (("--baseline", fifo), ("--candidate", fifo),
                           ("--baseline", os.devnull)):
            with self.subTest(role=role, path=path):
                arguments = ["--baseline", BASELINE, "--candidate", CANDIDATE]
                arguments[arguments.index(role) + 1] = path
                run = self.explain(*arguments, logs=False)
                self.assertEqual(run.status, 2, run.stderr)
                error = run.document["errors"][0]
                self.assertEqual((error["code"], error["file"]), ("import.unreadable", path))
                self.assertIn("not a regular file or a folder", error["message"])

    def test_logs_not_given_or_changed_are_said_and_the_decision_stands(self):
        run = self.explain(logs=False)
        self.assertEqual(run.status, 1)
        self.assertEqual({problem["code"] for problem in run.document["problems"]},
                         {"trace.log_missing"})
        self.assertIn("proagents-bench explain: trace.log_missing: explain_baseline.eval: the "
                      "baseline's logs were not given", run.stderr)
        entries = [(info.filename, data.replace(b"refund_order", b"refund_ordex")
                    if "test-safety_epoch_1" in info.filename else data)
                   for info, data in eval_entries("explain_candidate.eval")]
        changed = write_eval(self.folder, "changed.eval", entries)
        run = run_cli(["explain", "--spec", EXAMPLE_SPEC, "--cases", EXAMPLE_CASES,
                       "--results", self.results, "--baseline", BASELINE, "--candidate",
                       changed])
        self.assertEqual(run.status, 1)
        problem = run.document["problems"][0]
        self.assertEqual((problem["code"], problem["where"]),
                         ("trace.log_changed", changed + ":samples/test-safety_epoch_1.json"))
        self.assertEqual(run.document["decision"]["action"], "BLOCK")

    def test_what_was_cut_to_keep_a_trace_small_is_said(self):
        # test-safety's first candidate trial: a long first message and 1,200 more messages
        # after its own (a text cut to its bound, the messages to theirs, the steps to theirs)
        def grow(name, sample):
            if name == "samples/test-safety_epoch_1.json":
                sample["messages"][0]["content"] = "order 2004 " * 500
                sample["messages"] += [{"role": "user", "content": "still there?"}] * 1200
        changed = changed_eval(self.folder, "grown.eval", grow, "explain_candidate.eval")
        results = os.path.join(self.folder.path, "grown.json")
        run = run_cli(IMPORT[:4] + [changed] + IMPORT[5:] + ["--output", results])
        self.assertEqual(run.status, 0, run.stderr)
        run = run_cli(["explain", "--spec", EXAMPLE_SPEC, "--cases", EXAMPLE_CASES, "--results",
                       results, "--baseline", BASELINE, "--candidate", changed])
        self.assertEqual(run.status, 1, run.stderr)
        safety = run.document["tasks"][0]
        self.assertEqual(safety["traces"]["candidate"]["cuts"], [
            "$.messages[0].content: a string of 5,500 bytes in the log cut to its first 400 "
            "characters", "$.messages: an array cut to its first 1000 items (210 more)",
            "1004 steps, of which the first 1000 are kept"])
        self.assertEqual(safety["first_divergence"]["candidate"]["position"],
                         "messages[7].tool_calls[0]")
        # the text shown is marked as cut, never with a count the excerpt did not keep
        first = safety["traces"]["candidate"]["steps"][0]["text"]
        self.assertEqual(first, ("order 2004 " * 500)[:300] + " [...]")
        text = " ".join(run_cli(["explain", "--spec", EXAMPLE_SPEC, "--cases", EXAMPLE_CASES,
                                 "--results", results, "--baseline", BASELINE, "--candidate",
                                 changed, "--format", "text"]).stdout.decode("ascii").split())
        self.assertIn("cut (candidate): 1004 steps, of which the first 1000 are kept", text)

    def test_exit_status_as_the_gate_s(self):
        self.assertEqual(self.explain("--fail-on", "none").status, 0)
        self.assertEqual(self.explain("--distinct-exit-codes").status, 11)
        passing = run_cli(["explain", "--spec", EXAMPLE_SPEC, "--cases", EXAMPLE_CASES,
                           "--results", example_path("benchmark_results_pass.json")])
        self.assertEqual((passing.status, passing.document["tasks"]), (0, []))

    def test_a_bad_command_line_or_file_is_a_contract_error_and_no_report_outlives_it(self):
        page = self.folder.write_bytes("report.html", b"an earlier run's report")
        for arguments, code in ((["--case", "test-nowhere"], "cli.usage"),
                                (["--case", "train-refund-basic"], "cli.usage"),
                                (["--baseline", ""], "cli.usage"),
                                (["--candidate", BASELINE], "cli.usage")):
            with self.subTest(arguments=arguments):
                run = self.explain("--html", page, *arguments)
                self.assertEqual(run.status, 2, run.stderr)
                self.assertEqual({error["code"] for error in run.document["errors"]}, {code})
                self.assertIn("CONTRACT_ERROR", read_bytes(page).decode("utf-8"))
        broken = self.folder.write_bytes("broken.json", b"{")
        run = self.explain(results=broken)
        self.assertEqual((run.status, run.document["action"]), (2, "CONTRACT_ERROR"))
        run = run_cli(["explain", "--spec", EXAMPLE_SPEC, "--cases", EXAMPLE_CASES])
        self.assertEqual(run.status, 2)
        self.assertIn("--results", run.stderr)

    def test_the_schema_is_published(self):
        run = run_cli(["--schema", "explanation"])
        self.assertEqual(run.status, 0)
        self.assertEqual(json.loads(run.stdout.decode("ascii")), schema("explanation"))


if __name__ == "__main__":
    unittest.main()
