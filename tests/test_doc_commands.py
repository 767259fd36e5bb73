"""Every ``run_benchmark.py`` and ``python -m devtools`` command in the README's and
docs/*.md's code blocks, run.

Each line of a fenced code block that runs ``run_benchmark.py`` (the product) or ``-m
devtools`` (the development commands, run through the product's dispatcher with their own
table) with ``python``/``python3`` is one of three kinds:

- a **synopsis** (it has ``[``, ``|`` or a placeholder such as ``F``, ``LOG``, ``DIR``): its
  command must exist, and every option it names must be in that command's ``--help``;
- a **command** that is run as written, in the order the document gives, in one temporary
  working folder per document (the project's own files, ``examples/...`` and
  ``tests/...``, are read where they are; every other relative path, such as ``results.json``
  or ``service-data``, is made in that folder, so a later command reads what an earlier one
  wrote). Its exit status must be the one the document claims (``test $? -eq N`` after it in
  a POSIX block, ``if ($LASTEXITCODE -ne N)`` on the next line in a PowerShell block); a
  command that claims none must succeed or decide (exit 0 or 1, never a contract error, a
  crash or a failed write);
- an **exception** (:data:`NOT_RUN_HERE`): a command that starts a server, needs one, runs
  for minutes, or is run as written by another test; each with its reason.
"""

import contextlib
import functools
import glob
import io
import os
import re
import shlex
import unittest

from devtools import bench_command
from devtools.commands import BENCH, NO_COMMAND, PROGRAM
from devtools.commands import COMMANDS as DEVELOPMENT_COMMANDS
from proagents_bench import cli
from proagents_bench.cli.commands import COMMANDS, GATE
from proagents_bench.service import database
from tests.support import ROOT, TempDir

DOCUMENTS = ["README.md"] + sorted(
    os.path.relpath(path, ROOT).replace(os.sep, "/")
    for path in glob.glob(os.path.join(ROOT, "docs", "*.md")))

# The commands this test does not run, by the words that start them (after
# ``run_benchmark.py`` or ``-m devtools``), each with why; a command starting with none of
# these is run.
NOT_RUN_HERE = (
    (("serve",), "starts the service and runs until stopped: tests/test_service*.py start the "
                 "real server on a free port (here its data folder's database is made as "
                 "serve makes it at start, for the commands after it: serve_started)"),
    (("submit",), "needs a running service: tests/test_service.py submits to one"),
    (("bench",), "a measurement that runs for minutes: tests/devtools/test_*.py run each "
                 "bench on a small size"),
    (("publish",), "rewrites the project's generated files: tests/test_schema.py checks that "
                   "none is stale"),
    (("health", "--spec", "examples/benchmark_spec.json", "--cases",
      "examples/benchmark_cases.json", "--data"),
     "needs a service's database holding scored submissions, which only a running service "
     "stores: tests/test_service_maintenance.py runs it on one"),
)
# Lines that run run_benchmark.py but are not commands of this project's CLI to run here.
OTHER_RUNNERS = (
    ("test_run_benchmark.py", "the test suite itself (test_run_benchmark.py; this test is "
                              "part of it)"),
    ("proagents-bench/run_benchmark.py", "the CI jobs of docs/ci.md: tests/test_user_docs.py "
                                         "runs them as a CI runner does"),
)

_RUNS = re.compile(r"(?:^|\s)(?:python3?|pypy3)\s+(?:-\S+\s+)*?(\S*run_benchmark\.py|-m\s+devtools)"
                   r"(?=\s|$)(.*)$")
DEVTOOLS = re.compile(r"^-m\s+devtools$")
_FENCE = re.compile(r"^```([^\n]*)\n(.*?)^```", re.S | re.M)
_CLAIM_SH = re.compile(r";\s*test \$\? -eq (\d+)")
_CLAIM_PS = re.compile(r"if \(\$LASTEXITCODE -ne (\d+)\)")
_PLACEHOLDER = re.compile(r"^[A-Z][A-Z_]*$")


class DocCommand:
    """One line of a code block that runs run_benchmark.py or the development commands."""

    def __init__(self, document, line_number, runner, words, claimed):
        self.document = document
        self.line_number = line_number
        self.runner = runner
        self.words = words
        self.claimed = claimed

    @property
    def where(self):
        return "%s:%d: %s" % (self.document, self.line_number, " ".join(self.words))

    @property
    def synopsis(self):
        return any(word.startswith("[") or "|" in word or _PLACEHOLDER.match(word)
                   for word in self.words)

    @property
    def development(self):
        """Whether the line runs the development commands (``python -B -m devtools``)."""
        return bool(DEVTOOLS.match(self.runner))

    @property
    def commands(self):
        """The names of the commands of the line's command line (the first word that names
        one; else the gate runs, or the development tools' list)."""
        return [command.name for command in (DEVELOPMENT_COMMANDS if self.development
                                             else COMMANDS) if command is not GATE]

    @property
    def main(self):
        """The dispatcher of the line's command line (:func:`proagents_bench.cli.main`, with
        the development commands' table for ``-m devtools``)."""
        return functools.partial(cli.main, program=PROGRAM, commands=DEVELOPMENT_COMMANDS,
                                 default=NO_COMMAND) if self.development else cli.main

    def reason_not_run(self):
        for runner, reason in OTHER_RUNNERS:
            if self.runner.replace("\\", "/").endswith(runner):
                return reason
        for start, reason in NOT_RUN_HERE:
            if tuple(self.words[:len(start)]) == start:
                return reason
        return None


def doc_commands(document):
    """Every line of ``document``'s code blocks that runs run_benchmark.py, in order."""
    with open(os.path.join(ROOT, *document.split("/")), "rb") as handle:
        text = handle.read().decode("utf-8")
    found = []
    for block in _FENCE.finditer(text):
        first_line = text.count("\n", 0, block.start(2)) + 1
        lines = block.group(2).splitlines()
        powershell = block.group(1).strip() == "powershell"
        for index, line in enumerate(lines):
            match = _RUNS.search(line)
            if not match:
                continue
            rest = match.group(2)
            claimed = _CLAIM_SH.search(rest)
            if claimed:
                rest = rest[:claimed.start()]
            elif index + 1 < len(lines):
                claimed = _CLAIM_PS.search(lines[index + 1])
            if powershell:  # .\examples\x.json is examples/x.json
                rest = re.sub(r"(^|\s)\.\\", r"\1", rest).replace("\\", "/")
            rest = rest.split("  #")[0]
            try:
                words = shlex.split(rest)
            except ValueError:  # a synopsis in words ("the gate's options"): its words
                words = rest.split()
            found.append(DocCommand(document, first_line + index, match.group(1), words,
                                    int(claimed.group(1)) if claimed else None))
    return found


def run_in(folder, words, main=cli.main):
    """Run the CLI (``main``) in this process as if from ``folder``: a path of the project
    (an existing ``examples/...``, ``tests/...``) is read where it is; the rest is relative
    to ``folder``. Return (status, stderr)."""
    arguments = [os.path.join(ROOT, *word.split("/"))
                 if not os.path.isabs(word) and "/" in word and os.path.exists(
                     os.path.join(ROOT, *word.split("/"))) else word
                 for word in words]
    before = os.getcwd()
    os.chdir(folder)
    try:
        stdout, stderr = io.BytesIO(), io.StringIO()
        status = main(arguments, stdout=stdout, stderr=stderr)
    finally:
        os.chdir(before)
    return status, stderr.getvalue()


def serve_started(folder, words):
    """What a ``serve`` line, not run here, leaves for the lines after it (``team``,
    ``phase`` and ``backup`` refuse a data folder without one): its ``--data`` folder's
    database, made as serve makes it at start."""
    database.open_database(os.path.join(folder, words[words.index("--data") + 1]))


def help_text(words, main=cli.main):
    """``run_benchmark.py WORDS --help`` (through ``main``): printed by the gate to its
    stdout, by argparse to sys.stdout and ended with SystemExit by the other commands."""
    stdout, printed = io.BytesIO(), io.StringIO()
    with contextlib.redirect_stdout(printed):
        try:
            main(list(words) + ["--help"], stdout=stdout, stderr=io.StringIO())
        except SystemExit:
            pass
    return stdout.getvalue().decode("ascii") + printed.getvalue()


class DocCommandTests(unittest.TestCase):
    def test_the_documents_hold_commands_of_each_kind(self):
        everything = [command for document in DOCUMENTS for command in doc_commands(document)]
        self.assertGreater(len([command for command in everything if command.synopsis]), 10)
        self.assertGreater(len([command for command in everything if not command.synopsis
                                and command.reason_not_run() is None]), 15)
        self.assertIn("README.md", {command.document for command in everything})

    def test_every_command_runs_as_the_documents_say(self):
        for document in DOCUMENTS:
            folder = TempDir(self).path
            for command in doc_commands(document):
                if command.words[:1] == ["serve"] and not command.synopsis:
                    serve_started(folder, command.words)
                if command.synopsis or command.reason_not_run() is not None:
                    continue
                with self.subTest(command=command.where):
                    status, stderr = run_in(folder, command.words, command.main)
                    if command.claimed is not None:
                        self.assertEqual(status, command.claimed, stderr[-2000:])
                    else:
                        self.assertIn(status, (0, 1), stderr[-2000:])

    def test_every_synopsis_names_a_command_and_its_options(self):
        helps = {}
        for document in DOCUMENTS:
            for command in doc_commands(document):
                if not command.synopsis or command.reason_not_run() in (
                        reason for _runner, reason in OTHER_RUNNERS):
                    continue
                name = command.words[0] if command.words and command.words[0] in (
                    command.commands) else ""
                with self.subTest(command=command.where):
                    # a command of actions (team add|rotate, phase open|close): theirs too
                    actions = tuple(command.words[1].split("|")) if name and len(
                        command.words) > 1 and re.match(r"^[a-z][a-z|-]*$",
                                                        command.words[1]) else ()
                    key = (command.development, name, actions)
                    if key not in helps:
                        helps[key] = "".join(
                            help_text([name] if name else [], command.main) if not actions
                            else help_text([name, action], command.main)
                            for action in actions or ("",))
                    if not name:  # the gate's synopsis names no command
                        self.assertTrue(command.words[0].startswith(("[", "-")),
                                        "not a command: %s" % command.words[0])
                    for word in command.words:
                        for option in re.findall(r"--[a-z][a-z-]*", word):
                            self.assertIn(option, helps[key], "%s has no %s" % (
                                " ".join((name,) + actions) or "the gate", option))

    def test_every_bench_command_is_one_the_bench_takes(self):
        # Not run here (minutes each), but parsed as the bench parses them, every number
        # within its bounds: the figures the docs quote come from commands that run.
        benches = [command for document in DOCUMENTS for command in doc_commands(document)
                   if command.development and command.words[:1] == ["bench"]
                   and not command.synopsis]
        self.assertGreater(len(benches), 10)
        for command in benches:
            with self.subTest(command=command.where):
                options = BENCH.parser(PROGRAM).parse_args(command.words[1:])
                self.assertEqual(bench_command.problems(options), [])

    def test_each_exception_has_a_reason_and_is_used(self):
        starts = [command.words[:6] for document in DOCUMENTS
                  for command in doc_commands(document) if not command.synopsis]
        for start, reason in NOT_RUN_HERE + OTHER_RUNNERS:
            # the tests that run it instead
            tests = re.findall(r"(?:tests/(?:\w+/)?)?[\w*]*test_[\w*]+\.py", reason)
            self.assertTrue(tests, reason)
            for pattern in tests:
                self.assertTrue(glob.glob(os.path.join(ROOT, *pattern.split("/"))), pattern)
        for start, reason in NOT_RUN_HERE:
            self.assertTrue(any(tuple(words[:len(start)]) == start for words in starts),
                            "no document command starts with %s" % " ".join(start))
        self.assertLess(len(NOT_RUN_HERE), 12)  # small, or the documents are not tested


if __name__ == "__main__":
    unittest.main()
