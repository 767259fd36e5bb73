"""Shell completion: ``completion bash|zsh|powershell`` prints a script generated from the
parsers; bash (and zsh, where installed) run it on the words a person typed."""

import argparse
import os
import shutil
import subprocess
import unittest

from proagents_bench.cli.commands import COMMANDS, GATE
from proagents_bench.cli.completion_command import PATH, table
from tests.support import ROOT, TempDir, run_cli

# Each case: the words typed (the last being completed) and what the script offers.
CASES = (
    (["python3", "-B", "run_benchmark.py", "i"], ["init", "import"]),
    (["python", "-B", "run_benchmark.py", "--fo"], ["--format"]),
    (["python3", "-B", "run_benchmark.py", "--format", ""], ["auto", "json", "text", "github"]),
    (["python3", "-B", "run_benchmark.py", "--schema", "re"],
     ["results", "release", "release-decision"]),
    (["python3", "-B", "run_benchmark.py", "init", "--dir"], ["--directory"]),
    (["python3", "run_benchmark.py", "team", ""], ["add", "rotate", "revoke", "set", "list"]),
    (["python3", "-B", "run_benchmark.py", "completion", ""], ["bash", "zsh", "powershell"]),
    (["python3", "-B", "run_benchmark.py", "--summary", "--o"], ["--output"]),
    (["./run_benchmark.py", "pl"], ["plan"]),
    (["proagents-bench", "health", "--missing-as", ""], ["error", "unknown"]),
    # a path: no match, so that the shell completes it itself (-o default)
    (["python3", "-B", "run_benchmark.py", "--spec", "exa"], []),
    (["python3", "-B", "run_benchmark.py", "diff", "exa"], []),
    (["python3", "-B", "other.py", "--sp"], []),  # not this program
)

DRIVER = """
source "$1"; shift
COMP_WORDS=("$@"); COMP_CWORD=$(( ${#COMP_WORDS[@]} - 1 )); COMPREPLY=()
_proagents_bench "${COMP_WORDS[0]}" "${COMP_WORDS[COMP_CWORD]}" "${COMP_WORDS[COMP_CWORD-1]}"
printf '%s\\n' "${COMPREPLY[@]}"
"""


def script(shell):
    run = run_cli(["completion", shell])
    if run.status != 0:
        raise AssertionError(run.stderr)
    return run.stdout.decode("ascii")


class CompletionTests(unittest.TestCase):
    def test_the_table_is_every_parsers_options_and_choices(self):
        found = table("run_benchmark.py")
        others = [command.name for command in COMMANDS if command is not GATE]
        self.assertEqual(found.commands, others)
        for command in COMMANDS:
            name = "" if command is GATE else command.name
            parser = command.parser("run_benchmark.py", others if command is GATE else None)
            with self.subTest(command=command.name):
                for action in parser._actions:
                    if isinstance(action, argparse._SubParsersAction):
                        self.assertTrue(set(action.choices) <= set(found.words[name]))
                        continue
                    for option in action.option_strings:
                        self.assertIn(option, found.words[name])
        self.assertEqual(found.values[" --spec"], PATH)
        self.assertEqual(found.values["init --directory"], PATH)
        self.assertEqual(found.values[" --summary"], "@flag")
        self.assertEqual(found.values["plan --effect"], "@value")

    @unittest.skipUnless(shutil.which("bash"), "bash is not installed")
    def test_bash_completes_commands_options_choices_and_leaves_paths_to_the_shell(self):
        path = os.path.join(TempDir(self).path, "completion.bash")
        with open(path, "w", encoding="ascii") as handle:
            handle.write(script("bash"))
        for words, offered in CASES:
            with self.subTest(words=words):
                completed = subprocess.run(["bash", "-c", DRIVER, "driver", path] + words,
                                           cwd=ROOT, stdout=subprocess.PIPE,
                                           stderr=subprocess.PIPE, timeout=60)
                self.assertEqual(completed.stderr, b"")
                self.assertEqual(completed.stdout.decode("ascii").split(), offered)
        registered = subprocess.run(["bash", "-c", 'source "$1"; complete -p', "driver", path],
                                    stdout=subprocess.PIPE, timeout=60).stdout.decode("ascii")
        for name in ("run_benchmark.py", "proagents-bench", "python", "python3", "py"):
            self.assertIn("complete -o default -F _proagents_bench %s\n" % name, registered)

    @unittest.skipUnless(shutil.which("zsh"), "zsh is not installed")
    def test_zsh_runs_the_same_function_through_bashcompinit(self):
        path = os.path.join(TempDir(self).path, "completion.zsh")
        with open(path, "w", encoding="ascii") as handle:
            handle.write(script("zsh"))
        # zsh's compgen leaves the matching to zsh's completion (its own prefix match), so
        # outside a completion widget the words are all offered: the command's own, here.
        completed = subprocess.run(
            ["zsh", "-f", "-c", 'autoload -U compinit && compinit -u -D; source "$1"; '
             'setopt ksharrays; COMP_WORDS=(python3 -B run_benchmark.py team ""); '
             'COMP_CWORD=4; _proagents_bench; print -l -- "${COMPREPLY[@]}"; '
             'print -- "${_comps[python3]}"', "driver", path],
            cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE, timeout=60)
        self.assertEqual(completed.stderr, b"")
        lines = completed.stdout.decode("ascii").splitlines()
        self.assertEqual(lines[:-1], ["add", "rotate", "revoke", "set", "list"])
        self.assertEqual(lines[-1], "_bash_complete -o default -F _proagents_bench")

    def test_powershell_registers_a_native_completer_with_the_same_table(self):
        text = script("powershell")
        self.assertIn("Register-ArgumentCompleter -Native -CommandName @('run_benchmark.py', "
                      "'proagents-bench', 'python', 'python3', 'py', 'pypy3')", text)
        found = table("run_benchmark.py")
        for name, words in found.words.items():
            self.assertIn("    '%s' = @(%s)\n" % (name, ", ".join(
                "'%s'" % word for word in words)), text)
        self.assertIn("    ' --format' = 'auto json text github'\n", text)
        self.assertEqual(text.count("{"), text.count("}"))

    def test_an_unknown_shell_is_a_usage_error(self):
        run = run_cli(["completion", "fish"])
        self.assertEqual(run.status, 2)
        self.assertIn("ERROR: usage: argument shell: invalid choice", run.stderr)


if __name__ == "__main__":
    unittest.main()
