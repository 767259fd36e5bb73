"""The command registry and its dispatcher (proagents_bench/cli/commands.py, cli/__init__.py):
every command a row, parsed by the dispatcher, a usage error (found while parsing or later)
the one ``cli.usage`` outcome, and every command that writes reports guarded, so that a
refused command line still replaces each report it names."""

import os
import unittest
from unittest import mock

from proagents_bench import cli
from proagents_bench.cli import commands
from proagents_bench.cli.usage import UsageError
from tests.support import TempDir, run_cli


class RegistryTests(unittest.TestCase):
    def test_each_command_once_in_the_order_a_team_meets_them(self):
        self.assertEqual([command.name for command in commands.COMMANDS], [
            "gate", "init", "import", "explain", "plan", "release", "health", "diff", "serve",
            "team", "submit", "phase", "backup", "restore", "completion"])
        self.assertIs(commands.COMMANDS[0], commands.GATE)
        self.assertEqual(commands.COMMAND_BY_NAME["serve"].name, "serve")

    def test_each_description_is_one_short_line(self):
        # The list of commands shows each on one line beside its name.
        for command in commands.COMMANDS:
            with self.subTest(command=command.name):
                text = command.description
                self.assertTrue(text and "\n" not in text and len(text) <= 80, text)
                self.assertEqual(text, text.strip())

    def test_the_gate_is_no_command_word(self):
        # The gate runs when the first argument names no other command: "gate" is not one.
        run = run_cli(["gate"])
        self.assertEqual(run.status, 2)
        self.assertEqual(run.document["errors"][0]["message"],
                         "unrecognized arguments: gate (see --help)")


class UsageTests(unittest.TestCase):
    def test_every_command_turns_a_bad_option_into_the_one_usage_outcome(self):
        for command in commands.COMMANDS:
            words = [] if command is commands.GATE else [command.name]
            with self.subTest(command=command.name):
                run = run_cli(words + ["--no-such-option"])
                self.assertEqual(run.status, 2)
                error = run.document["errors"][0]
                self.assertEqual(error["code"], "cli.usage")
                hint = "--help" if command is commands.GATE else command.name + " --help"
                self.assertTrue(error["message"].endswith("(see %s)" % hint), error["message"])

    def test_a_long_usage_message_is_cut_for_every_command(self):
        # argparse quotes the arguments it refuses: a megabyte of them is not repeated.
        word = "x" * 5000
        for words in ([word], ["team", "add", "t", "--data", "d", word],
                      ["diff", "old.json", "new.json", word]):
            with self.subTest(command=words[0][:4]):
                run = run_cli(words)
                message = run.document["errors"][0]["message"]
                self.assertEqual(run.status, 2)
                self.assertIn("... (cut) (see ", message)
                self.assertLess(len(message), cli.MAX_USAGE_CHARS + 40)

    def test_a_usage_error_found_after_parsing_is_the_same_outcome(self):
        def refuse(options, session):
            raise UsageError("--name was given an empty value")

        with mock.patch("proagents_bench.cli.submit_command.run", side_effect=refuse):
            run = run_cli(["submit", "--url", "http://127.0.0.1:1", "--results", "r.json"])
        self.assertEqual(run.status, 2)
        self.assertEqual(run.document["errors"][0]["message"],
                         "--name was given an empty value (see submit --help)")


class GuardedTests(unittest.TestCase):
    """A command line that its command refuses still replaces every report it names: each
    command that writes reports runs guarded by the dispatcher."""

    def test_a_refused_command_line_replaces_the_reports_of_every_reporting_command(self):
        for words in ([], ["health"], ["release"], ["diff"]):
            with self.subTest(command=words[:1]):
                folder = TempDir(self).path
                report = os.path.join(folder, "report.html")
                output = os.path.join(folder, "document.json")
                for path in (report, output):
                    with open(path, "wb") as handle:
                        handle.write(b"an earlier run's PASS")
                names = ["--html", report] if words != ["diff"] else []
                run = run_cli(words + ["--no-such-option", "--output", output] + names)
                self.assertEqual(run.status, 2)
                with open(output, "rb") as handle:
                    self.assertIn(b'"CONTRACT_ERROR"', handle.read())
                if names:
                    with open(report, "rb") as handle:
                        page = handle.read()
                    self.assertIn(b"CONTRACT_ERROR", page)
                    self.assertNotIn(b"an earlier run's PASS", page)

    def test_a_command_without_reports_never_touches_a_path_it_names(self):
        # import's --output is the package it writes, not a report: a refused import line
        # leaves it as it was.
        folder = TempDir(self).path
        output = os.path.join(folder, "results.json")
        with open(output, "wb") as handle:
            handle.write(b"an earlier import")
        run = run_cli(["import", "--no-such-option", "--output", output])
        self.assertEqual(run.status, 2)
        with open(output, "rb") as handle:
            self.assertEqual(handle.read(), b"an earlier import")


if __name__ == "__main__":
    unittest.main()
