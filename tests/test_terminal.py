"""The gate for a person at a terminal and for a CI job: the text mode (the default only when
stdout is a terminal: every pipe and file still gets the JSON document), colour and NO_COLOR,
progress, --fail-on and --distinct-exit-codes, and "did you mean"."""

import io
import json
import os
import re
import shutil
import subprocess
import sys
import unittest
from decimal import Decimal
from unittest import mock

from proagents_bench import cli, pipeline
from proagents_bench.cli import interpreter_word
from proagents_bench.cli.commands import COMMANDS
from proagents_bench.cli import gate_command
from proagents_bench.cli.progress import (AFTER_SECONDS, REFRESH_SECONDS, STAGE_SECONDS,
                                          Progress, count_words, seconds_words)
from proagents_bench.cli.status import EXIT_STATUSES
from proagents_bench.cli.streams import MessageWriter, colour_wanted
from proagents_bench.contract import inputs as contract
from proagents_bench.steps import BATCH, watched
from proagents_bench.reports import terminal
from proagents_bench.reports.view import action_words
from proagents_bench.reports.document_text import document_lines
from proagents_bench.service import database
from tests.support import (EXAMPLES, RUN_BENCHMARK, TempDir, evaluate_arguments, example_path,
                           run_cli, with_example)
from tests.test_doc_commands import help_text

REGRESSION = ["--results", os.path.join(EXAMPLES, "benchmark_results_regression.json")]
REVIEW = ["--results", os.path.join(EXAMPLES, "exercise_results_p95_review.json")]
INCOMPARABLE = ["--spec", os.path.join(EXAMPLES, "benchmark_spec_protocol_mismatch.json")]
CONTRACT_ERROR = ["--cases", os.path.join(EXAMPLES, "benchmark_cases_contract_error.json")]
ESCAPE = b"\x1b["


class Terminal(io.BytesIO):
    def isatty(self):
        return True


def run_on_terminal(args, colour=False):
    """(status, stdout bytes, stderr text) with stdout a terminal (stderr is not), coloured
    or not (NO_COLOR)."""
    out, err = Terminal(), io.StringIO()
    with mock.patch.dict(os.environ, {"NO_COLOR": "" if colour else "1", "TERM": "xterm"}):
        status = cli.main(list(args), stdout=out, stderr=err)
    return status, out.getvalue(), err.getvalue()


@unittest.skipUnless(os.name == "posix", "a pseudo-terminal (the pty module) is POSIX")
class PseudoTerminalTests(unittest.TestCase):
    """The real process, its stdout a pseudo-terminal, a pipe or a file."""

    ONCE_PER_INTERPRETER = "child processes only, in plain mode"

    def run_gate(self, args, stdout, env=()):
        environment = dict(os.environ)
        environment.pop("NO_COLOR", None)
        environment.update(env)
        return subprocess.run([sys.executable, "-B", RUN_BENCHMARK] + args, stdout=stdout,
                              stderr=subprocess.PIPE, stdin=subprocess.DEVNULL,
                              env=environment, timeout=120)

    def on_pty(self, args, env=()):
        """(exit status, what the terminal received), read while the process writes (a
        terminal's buffer is small)."""
        return self.on_ptys([args], env)[0]

    def on_ptys(self, commands, env=()):
        """:meth:`on_pty` for each command line of ``commands``, all run at once, each on
        its own pseudo-terminal."""
        import pty
        import select
        environment = dict(os.environ)
        environment.pop("NO_COLOR", None)
        environment.update(env)
        children, chunks, open_ends = {}, {}, []
        try:
            for args in commands:
                primary, secondary = pty.openpty()
                open_ends.append(primary)
                try:
                    children[primary] = subprocess.Popen(
                        [sys.executable, "-B", RUN_BENCHMARK] + args, stdout=secondary,
                        stderr=subprocess.DEVNULL, stdin=subprocess.DEVNULL, env=environment)
                finally:
                    os.close(secondary)
                chunks[primary] = []
            reading = list(children)
            while reading:
                ready, _, _ = select.select(reading, [], [], 60)
                if not ready:
                    for child in children.values():
                        child.kill()
                        child.wait()
                    self.fail("the gate wrote nothing for 60 s")
                for primary in ready:
                    try:
                        chunk = os.read(primary, 65536)
                    except OSError:  # EIO: the child closed its side and all was read
                        chunk = b""
                    if chunk:
                        chunks[primary].append(chunk)
                    else:
                        reading.remove(primary)
            return [(children[primary].wait(timeout=60),
                     b"".join(chunks[primary]).replace(b"\r\n", b"\n"))
                    for primary in children]
        finally:
            for primary in open_ends:
                os.close(primary)

    def test_a_terminal_gets_the_text_mode_in_colour(self):
        status, text = self.on_pty(REGRESSION, {"TERM": "xterm"})
        self.assertEqual(status, 1)
        self.assertNotIn(b'"action"', text)
        self.assertIn(ESCAPE, text)
        plain = text.replace(b"\x1b[1;31m", b"").replace(b"\x1b[0m", b"")
        self.assertIn(b"critical task test-safety failed", plain)
        self.assertIn(b"Side-effect-free trial rate", plain)

    def test_no_color_and_a_dumb_terminal_get_no_colour(self):
        for env in ({"NO_COLOR": "1", "TERM": "xterm"}, {"TERM": "dumb"}):
            with self.subTest(env=env):
                status, text = self.on_pty(REGRESSION, env)
                self.assertEqual(status, 1)
                self.assertNotIn(ESCAPE, text)
                self.assertIn(b"BLOCK  a hard gate failed: do not ship", text)

    def test_every_pipe_and_file_gets_the_json_document(self):
        piped = self.run_gate(REGRESSION, subprocess.PIPE, {"TERM": "xterm"})
        self.assertEqual(json.loads(piped.stdout)["action"], "BLOCK")
        path = os.path.join(TempDir(self).path, "decision.json")
        with open(path, "wb") as handle:
            filed = self.run_gate(REGRESSION, handle, {"TERM": "xterm"})
        with open(path, "rb") as handle:
            self.assertEqual(handle.read(), piped.stdout)
        self.assertEqual(filed.returncode, 1)

    def test_format_json_on_a_terminal_is_the_document(self):
        status, text = self.on_pty(REGRESSION + ["--format", "json"], {"TERM": "xterm"})
        self.assertEqual(json.loads(text.decode("ascii"))["action"], "BLOCK")

    def test_every_command_says_a_usage_error_in_one_line_at_a_terminal(self):
        # Every row of the registry, so that no command, a new one included, prints the
        # CONTRACT_ERROR document where a person reads it (its error is on stderr).
        names = [command.name for command in COMMANDS]
        runs = self.on_ptys([([] if name == "gate" else [name]) + ["--no-such-option"]
                             for name in names], {"TERM": "xterm"})
        for name, (status, text) in zip(names, runs):
            with self.subTest(command=name):
                self.assertEqual((status, text), (2, b"CONTRACT_ERROR (exit 2): the command "
                                                     b"line cannot run as given: no decision "
                                                     b"was made; 1 error on stderr\n"))


class TextModeTests(unittest.TestCase):
    def test_the_text_mode_on_a_terminal_and_the_document_to_a_file(self):
        path = os.path.join(TempDir(self).path, "decision.json")
        status, text, err = run_on_terminal(REGRESSION + ["--output", path])
        self.assertEqual(status, 1)
        with open(path, "rb") as handle:
            self.assertEqual(handle.read(), run_cli(REGRESSION).stdout)
        self.assertEqual(err, "")  # stdout is the summary: no second one on stderr
        lines = text.decode("ascii").splitlines()
        # The decision and its reasons last: a terminal keeps the end in view.
        decision = lines.index(next(line for line in lines if line.startswith(
            "BLOCK  a hard gate failed: do not ship")))
        self.assertTrue(lines[decision + 1].startswith("BLOCK   critical task test-safety"))
        for line in lines[decision + 1:]:  # then only the grouped reasons
            self.assertTrue(line.startswith(("BLOCK ", "REVIEW ", " " * 8)), line)
        self.assertIn("The JSON document: %s." % path, lines)
        self.assertIn("test-safety CRITICAL 0/3", text.decode("ascii"))
        self.assertNotIn(ESCAPE, text)  # NO_COLOR
        coloured = run_on_terminal(REGRESSION, colour=True)[1]
        self.assertIn(b"\x1b[1;31mBLOCK\x1b[0m", coloured)

    def test_a_pipe_gets_json_unless_text_is_asked_for(self):
        self.assertEqual(run_cli(REGRESSION).document["action"], "BLOCK")
        asked = run_cli(REGRESSION + ["--format", "text"])
        self.assertIn(b"critical task test-safety failed", asked.stdout)
        self.assertNotIn(b'"action"', asked.stdout)

    def test_a_contract_error_in_the_text_mode_is_one_line_beside_stderr(self):
        status, text, err = run_on_terminal(CONTRACT_ERROR)
        self.assertEqual(status, 2)
        self.assertEqual(text, b"CONTRACT_ERROR (exit 2): the inputs or the command line break "
                               b"the contract: no decision was made; 1 error on stderr\n")
        self.assertIn("split contamination", err)

    def test_text_from_the_inputs_cannot_drive_the_terminal(self):
        evaluation = evaluate_arguments(REGRESSION)
        evaluation.lazy_document["candidate_system"] = "evil\x1b[2J\u202ename\u00e9"
        text = terminal.render(evaluation, colour=False)
        self.assertNotIn(ESCAPE, text)
        self.assertIn(b"evil[2J\\u202ename\\xe9", text)  # ASCII, nothing to interpret
        text.decode("ascii")

    def test_every_scenario_fits_a_screen_and_names_its_decision_last(self):
        for args in ([], REGRESSION, REVIEW, INCOMPARABLE):
            evaluation = evaluate_arguments(args)
            text = terminal.render(evaluation, width=80).decode("ascii")
            self.assertLess(len(text.splitlines()), 45)
            lines = text.splitlines()
            last = max(index for index, line in enumerate(lines)
                       if line.startswith(evaluation.action + "  "))
            self.assertLess(len(lines) - last, 12)
            for line in lines[last + 1:]:  # then only the grouped reasons
                self.assertTrue(line.startswith(("BLOCK ", "REVIEW ", " " * 8)), line)

    def test_the_decision_line_is_wrapped_as_its_reasons_are(self):
        evaluation = evaluate_arguments(INCOMPARABLE)
        document = evaluation.lazy_document
        text = terminal.render(evaluation, width=60).decode("ascii")
        coloured = terminal.render(evaluation, width=60, colour=True).decode("ascii")
        self.assertEqual(re.sub(r"\x1b\[[0-9;]*m", "", coloured), text)  # painted, not moved
        lines = text.splitlines()
        first = next(index for index, line in enumerate(lines)
                     if line.startswith("INCOMPARABLE  "))
        for line in lines[first:]:
            self.assertLessEqual(len(line), 60, line)
        self.assertTrue(all(line.startswith(" " * 8) for line in lines[first + 1:]))
        said = re.sub(" +", " ", " ".join(lines[first:]))  # whole, wherever it broke
        self.assertTrue(said.startswith("INCOMPARABLE %s (candidate %s, baseline %s) " % (
            action_words(document), document["candidate_system"],
            document["baseline_system"])), said)

    def test_an_unmeasured_metric_is_not_judged_not_failed(self):
        temp = TempDir(self)
        with open(os.path.join(EXAMPLES, "benchmark_results_pass.json"), "rb") as handle:
            results = json.loads(handle.read().decode("utf-8"))
        results["schema_version"] = "agent-benchmark-results-v3"
        for system in results["systems"]:
            system["provenance"] = None
            system["records"][0]["latency_ms"] = None
        path = temp.write_json("results.json", results)
        text = run_cli(with_example(["--results", path, "--format", "text"])).stdout.decode("ascii")
        self.assertRegex(text, r"Mean latency \(ms\) +- +- +<= 2000 +NOT JUDGED \(soft\)")
        self.assertRegex(text, r"Mean cost \(units\) .* held")

    def test_colour_only_on_a_terminal_without_no_color(self):
        self.assertTrue(colour_wanted(True, {"TERM": "xterm"}) or os.name == "nt")
        self.assertFalse(colour_wanted(False, {"TERM": "xterm"}))
        self.assertFalse(colour_wanted(True, {"TERM": "xterm", "NO_COLOR": "1"}))
        self.assertFalse(colour_wanted(True, {"TERM": "dumb"}))
        self.assertTrue(colour_wanted(True, {"NO_COLOR": ""}) or os.name == "nt")


class ProgressTests(unittest.TestCase):
    def progress(self, eager=False):
        said, now = [], [0.0]
        progress = Progress(said.extend, eager, clock=lambda: now[0])
        return progress, said, now

    def test_silent_before_two_seconds_then_one_line_per_stage(self):
        progress, said, now = self.progress()
        progress("loading results", 12 << 20, "bytes")
        progress.done("done")
        self.assertEqual(said, [])  # a short run says nothing at all
        now[0] = AFTER_SECONDS
        progress("grading", 1000000, "trials")
        now[0] = 3.25
        progress.done("done: BLOCK, exit 1")
        self.assertEqual(said, ["proagents-bench: grading: 1,000,000 trials (2.0 s)",
                                "proagents-bench: done: BLOCK, exit 1 (3.2 s)"])

    def test_large_inputs_speak_from_the_start(self):
        progress, said, _now = self.progress(eager=True)
        progress("loading results", 268 << 20, "bytes")
        self.assertEqual(said, ["proagents-bench: loading results: 268 MB (0.0 s)"])
        self.assertEqual(count_words(None, ""), "")
        self.assertEqual(count_words(512, "bytes"), "512 bytes")

    def test_inside_a_long_stage_its_fraction_and_the_time_left(self):
        statuses = []
        said, now = [], [0.0]
        progress = Progress(said.extend, True, clock=lambda: now[0], status=statuses.append)
        advance = progress("grading", 1000, "trials", 1000)
        advance(100)  # the rate is measured from the first count on
        now[0] = STAGE_SECONDS / 2
        advance(100)
        self.assertEqual(statuses, [])  # a short stage shows nothing inside it
        now[0] = STAGE_SECONDS
        advance(100)  # 300 of 1000 done, 200 in 1 s since the first count: 3.5 s left
        now[0] = STAGE_SECONDS + REFRESH_SECONDS / 2
        advance(100)  # too soon after the last rewrite
        now[0] = STAGE_SECONDS + REFRESH_SECONDS
        advance(600)
        self.assertEqual(statuses, ["proagents-bench: grading: 30%, about 4 s left",
                                    "proagents-bench: grading: 100%"])
        self.assertIsNone(progress("deciding"))  # nothing to count: no advance
        self.assertIsNone(Progress(said.extend, True)("grading", 10, "trials", 10))  # no line
        self.assertEqual((seconds_words(2.4), seconds_words(0.2), seconds_words(150)),
                         ("about 3 s", "about 1 s", "about 3 min"))

    def test_a_load_is_estimated_from_the_loads_before_it(self):
        said, now = [], [0.0]
        progress = Progress(said.extend, True, clock=lambda: now[0])
        progress("loading spec", 1000, "bytes")  # too small to say anything of a rate
        now[0] = 0.5
        progress("loading cases", 8 << 20, "bytes")
        now[0] = 1.5  # 8 MB a second
        progress("loading results", 40 << 20, "bytes")
        self.assertEqual(said[1:], ["proagents-bench: loading cases: 8 MB (0.5 s)",
                                    "proagents-bench: loading results: 40 MB, about 5 s "
                                    "(1.5 s)"])

    def test_the_status_line_is_rewritten_in_place_and_replaced(self):
        stream = io.StringIO()
        writer = MessageWriter(stream)
        writer.status("proagents-bench: grading: 50%, about 2 s left")
        writer.status("proagents-bench: grading: 75%")
        writer.say(["proagents-bench: deciding (3.0 s)"])
        self.assertEqual(stream.getvalue(),
                         "\rproagents-bench: grading: 50%, about 2 s left"
                         "\rproagents-bench: grading: 75%" + " " * 16 +
                         "\r" + " " * 29 + "\rproagents-bench: deciding (3.0 s)\n")

    def test_the_counting_loops_count_every_item(self):
        # The check of every record counts each once, compiled or not, watched or not, and
        # gives the same verdict; the evaluation counts what its stages said they would.
        with open(example_path("benchmark_results_pass.json"), "rb") as handle:
            system = json.loads(handle.read(), parse_float=Decimal)["systems"][0]
        system["records"] = system["records"] * (BATCH // len(system["records"]) + 2)
        counted = []
        for verdict in (contract.SYSTEM.validator(),
                        lambda value: not list(contract.SYSTEM.iter_errors(value))):
            with watched(counted.append):
                self.assertTrue(verdict(system))
        self.assertEqual(sum(counted), 2 * len(system["records"]))
        self.assertGreater(len(counted), 2)  # told a batch at a time
        system["records"][-1]["trial_id"] = 0
        with watched(counted.append):
            self.assertFalse(contract.SYSTEM.validator()(system))
        self.assertFalse(contract.SYSTEM.validator()(system))

        told = {}

        def progress(stage, count=None, unit="", work=None):
            if work is None:
                return None
            told[stage] = [work, 0]
            return lambda done: told[stage].__setitem__(1, told[stage][1] + done)

        pipeline.evaluate(gate_command.default_inputs(), progress=progress)
        self.assertEqual(told, {"validating": [60, 60], "grading": [30, 30]})

    def test_eager_when_the_inputs_are_large(self):
        # The gate's choice, through the command line (no large file needed).
        class StderrTerminal(io.StringIO):
            def isatty(self):
                return True

        err = StderrTerminal()
        with mock.patch.object(gate_command, "EAGER_BYTES", 1):
            cli.main([], stdout=io.BytesIO(), stderr=err)
        self.assertTrue(err.getvalue().startswith("proagents-bench: loading spec: "))


class FailOnTests(unittest.TestCase):
    def test_the_default_is_the_contract(self):
        for args, status in (([], 0), (REVIEW, 1), (REGRESSION, 1), (INCOMPARABLE, 1),
                             (CONTRACT_ERROR, 2)):
            self.assertEqual(run_cli(args).status, status)

    def test_a_decision_left_out_exits_0_and_says_so(self):
        run = run_cli(REVIEW + ["--fail-on", "block,incomparable"])
        self.assertEqual((run.status, run.document["action"]), (0, "REVIEW"))
        self.assertIn("proagents-bench: REVIEW does not fail this run (--fail-on "
                      "block,incomparable): exit 0", run.stderr)
        self.assertEqual(run_cli(REGRESSION + ["--fail-on", "block,incomparable"]).status, 1)
        self.assertEqual(run_cli(REGRESSION + ["--fail-on", "none"]).status, 0)
        self.assertEqual(run_cli(CONTRACT_ERROR + ["--fail-on", "none"]).status, 2)

    def test_distinct_exit_codes(self):
        for args, status in (([], 0), (REVIEW, 10), (REGRESSION, 11), (INCOMPARABLE, 12)):
            with self.subTest(status=status):
                self.assertEqual(run_cli(args + ["--distinct-exit-codes"]).status, status)
        self.assertEqual(run_cli(REVIEW + ["--distinct-exit-codes", "--fail-on", "block"]).status,
                         0)
        documented = {status for status, _meaning in EXIT_STATUSES}
        self.assertTrue({10, 11, 12} <= documented)

    def test_bad_words_are_usage_errors(self):
        for words in ("reveiw", "block,block", "none,block", ""):
            with self.subTest(words=words):
                run = run_cli(["--fail-on", words])
                self.assertEqual((run.status, run.document["errors"][0]["code"]),
                                 (2, "cli.usage"))
        self.assertIn("(did you mean review?)", run_cli(["--fail-on", "reveiw"]).stderr)


class TextAtATerminalTests(unittest.TestCase):
    """init, plan and import: text at a terminal (their lines and where the document is),
    the JSON document in a pipe or with --format json."""

    def test_init_plan_and_import_print_text_at_a_terminal(self):
        folder = TempDir(self).path
        fixtures = os.path.join(os.path.dirname(__file__), "importers", "fixtures")
        commands = {
            "init": ["init", "--directory", os.path.join(folder, "new")],
            "plan": ["plan"] + with_example([]),
            "import": ["import", "--baseline", os.path.join(fixtures, "baseline.eval"),
                       "--candidate", os.path.join(fixtures, "candidate.eval"), "--output",
                       os.path.join(folder, "results.json"), "--baseline-id", "b",
                       "--candidate-id", "c"],
        }
        for name, args in commands.items():
            with self.subTest(command=name):
                status, out, err = run_on_terminal(args + ["--format", "auto"])
                self.assertEqual(status, 0, err)
                self.assertFalse(out.startswith(b"{"), out[:200])
                self.assertTrue(out.endswith(b"The JSON document: --format json.\n"), out)
                self.assertNotIn("The JSON document", err)
                status, out, _err = run_on_terminal(args + ["--format", "json", "--force"]
                                                    if name == "init" else
                                                    args + ["--format", "json"])
                self.assertEqual((status, json.loads(out)["action"]),
                                 (0, {"init": "INITIALIZED", "plan": "PLAN",
                                      "import": "IMPORTED"}[name]))
        piped = run_cli(commands["plan"])
        self.assertEqual(piped.document["action"], "PLAN")  # a pipe: the document
        self.assertIn(b"\nrecommended: ", run_on_terminal(commands["plan"])[1])

    def test_the_services_maintenance_commands_print_their_documents_lines(self):
        data = TempDir(self).path
        database.open_database(data)  # as serve makes it
        status, out, err = run_on_terminal(["team", "add", "alpha", "--data", data])
        self.assertEqual((status, err), (0, ""))
        lines = out.decode("ascii").splitlines()
        self.assertEqual([line.split(":")[0] for line in lines[:-1]], ["note", "team", "token"])
        self.assertEqual(lines[-1], "The JSON document: --format json.")
        token = lines[2].split(": ", 1)[1]
        status, out, _err = run_on_terminal(["team", "list", "--data", data])
        self.assertIn(b"teams:\n  - budget: ", out)
        self.assertIn(b"\n    revoked: no\n", out)
        status, out, _err = run_on_terminal(["team", "list", "--data", data, "--format",
                                             "json"])
        self.assertEqual(json.loads(out)["teams"][0]["team"], "alpha")
        backup = os.path.join(TempDir(self).path, "backup.sqlite3")
        status, out, _err = run_on_terminal(["backup", "--data", data, "--to", backup])
        self.assertIn(b"\nteams: 1\n", out)
        self.assertTrue(token.startswith("pab1."))
        self.assertEqual(document_lines({"a": None, "b": [], "c": {"d": True}, "e": [{"f": 1}]}),
                         ["a: none", "b: none", "c:", "  d: yes", "e:", "  - f: 1"])
        self.assertEqual(document_lines({"reasons": ["a, b", "c"], "ids": ["x", "y"]}),
                         ["reasons:", "  - a, b", "  - c", "ids: x, y"])

    def test_a_contract_error_at_a_terminal_is_one_line(self):
        status, out, err = run_on_terminal(["init", "--directory", EXAMPLES])
        self.assertEqual(status, 2)
        self.assertTrue(out.startswith(b"CONTRACT_ERROR (exit 2): "), out)
        self.assertEqual(out.count(b"\n"), 1)
        self.assertIn("ERROR: ", err)

    def test_every_command_says_its_contract_error_as_the_gate_does(self):
        # Text at a terminal, the document with --format json: a usage error (its --format
        # read leniently, as the gate reads it) and an error found once the options parsed.
        folder = TempDir(self).path
        missing = os.path.join(folder, "nodir")
        for command in COMMANDS:
            words = [] if command.name == "gate" else [command.name]
            with self.subTest(command=command.name):
                status, out, _err = run_on_terminal(words + ["--no-such-option", "--format",
                                                             "json"])
                self.assertEqual((status, json.loads(out)["action"]), (2, "CONTRACT_ERROR"))
        for args in (["serve", "--spec", example_path("benchmark_spec.json"), "--cases",
                      example_path("benchmark_cases.json"), "--baseline", "nope.json",
                      "--data", os.path.join(folder, "sd2")],
                     ["team", "list", "--data", missing],
                     ["phase", "status", "--data", missing],
                     ["backup", "--data", missing, "--to", os.path.join(folder, "x.sqlite3")],
                     ["restore", "--from", os.path.join(folder, "nope.sqlite3"), "--data",
                      os.path.join(folder, "restored")],
                     ["plan"] + with_example(["--power", "2"])):
            with self.subTest(command=args[0]):
                status, out, err = run_on_terminal(args)
                self.assertEqual(status, 2)
                self.assertTrue(out.startswith(b"CONTRACT_ERROR (exit 2): "), out)
                self.assertEqual(out.count(b"\n"), 1)
                self.assertTrue(err.startswith("ERROR: "), err)
                if args[0] != "serve":  # the only one of them without --format
                    status, out, _err = run_on_terminal(args + ["--format", "json"])
                    self.assertEqual(json.loads(out)["action"], "CONTRACT_ERROR")
                    piped = run_cli(args + ["--format", "text"])
                    self.assertTrue(piped.stdout.startswith(b"CONTRACT_ERROR (exit 2): "))
        self.assertEqual(os.listdir(folder), [])  # nothing was made

    def test_next_steps_name_the_interpreter_that_ran_them(self):
        self.assertEqual(interpreter_word(""), "python")
        elsewhere = os.path.join(TempDir(self).path, "my python")  # on no PATH
        self.assertEqual(interpreter_word(elsewhere), '"%s"' % elsewhere)
        word = interpreter_word()
        self.assertEqual(word, interpreter_word(sys.executable))
        if os.sep not in word and not word.startswith('"'):  # its name finds it on the PATH
            self.assertTrue(os.path.samefile(shutil.which(word), sys.executable))
        else:
            self.assertEqual(word.strip('"'), sys.executable)
        steps = json.loads(run_cli(["init", "--directory", TempDir(self).path]).stdout)["next"]
        self.assertTrue(steps[0].startswith(word + " -B "), steps)


class HelpTests(unittest.TestCase):
    def test_help_lists_every_command_a_line_each_in_the_order_a_team_meets_them(self):
        with mock.patch.dict(os.environ, {"COLUMNS": "200"}):
            text = help_text([])
        listed = text.split("\nCommands (", 1)[1].splitlines()[1:]
        width = max(len(command.name) for command in COMMANDS) + 2
        self.assertEqual(listed, ["  %s%s" % (command.name.ljust(width), command.description)
                                  for command in COMMANDS])
        self.assertEqual([command.name for command in COMMANDS[:9]],
                         ["gate", "init", "import", "explain", "plan", "release", "health",
                          "diff", "serve"])
        self.assertNotIn("Commands (", help_text(["init"]))


class UsageErrorTests(unittest.TestCase):
    """A command line that cannot run reads as a usage error (exit 2 still), never as a
    contract error with empty position fields."""

    def test_a_usage_error_reads_as_one(self):
        run = run_cli(["improt"])
        self.assertEqual(run.status, 2)
        self.assertEqual(run.stderr.splitlines()[0], "ERROR: usage: unrecognized arguments: "
                         "improt (did you mean the command import?) (see --help)")
        report = os.path.join(TempDir(self).path, "report.md")
        run = run_cli(with_example(["--markdown-append", "", "--markdown", report]))
        self.assertEqual(run.stderr.splitlines()[0], "ERROR: usage: --markdown-append: "
                         "the path is empty (a variable such as $GITHUB_STEP_SUMMARY, "
                         "which only a CI job sets?)")
        with open(report, encoding="utf-8") as handle:
            page = handle.read()
        self.assertIn("The command line cannot run as given: no decision was made", page)
        self.assertIn("1. `command line`: ", page)
        self.assertNotIn("break the contract", page)
        self.assertEqual(run.document["errors"][0]["file"], "")  # the document is unchanged

    def test_a_contract_error_keeps_its_position(self):
        run = run_cli(CONTRACT_ERROR)
        self.assertRegex(run.stderr.splitlines()[0], r"^ERROR: \S+benchmark_cases_contract_"
                         r"error\.json:\d+:\d+: \$")
        self.assertNotIn("usage", run.stderr)


class DidYouMeanTests(unittest.TestCase):
    def message(self, args):
        run = run_cli(args)
        self.assertEqual(run.status, 2)
        return run.document["errors"][0]["message"]

    def test_a_mistyped_option_command_or_choice(self):
        self.assertIn("(did you mean --results?)", self.message(["--resluts", "x.json"]))
        self.assertIn("(did you mean --results?)", self.message(["--result=x.json"]))
        self.assertIn("(did you mean the command serve?)", self.message(["serv"]))
        self.assertIn("(did you mean spec?)", self.message(["--schema", "spc"]))
        self.assertIn("(did you mean add?)", self.message(["team", "ad"]))
        self.assertIn("(did you mean --level?)", self.message(["team", "add", "t", "--data",
                                                              "d", "--levl", "ladder"]))

    def test_nothing_close_suggests_nothing(self):
        self.assertNotIn("did you mean", self.message(["--zzzzzz"]))

    def test_an_option_is_near_by_its_name_not_by_the_dashes_all_share(self):
        # With its dashes, --bogus came within the cutoff of --jobs.
        self.assertNotIn("did you mean", self.message(["release", "--bogus"]))
        self.assertIn("(did you mean --jobs?)", self.message(["release", "--jbos"]))
        self.assertTrue(self.message(["init", "--bogus"]).endswith(" (see init --help)"))


if __name__ == "__main__":
    unittest.main()
