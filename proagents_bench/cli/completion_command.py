"""``completion bash|zsh|powershell``: the shell completion script, generated from the parsers.

Every command's parser is built as it is for a run, and its options read back: what each
takes (nothing, one of its choices, a path, or a value no shell can guess) and, for
``team`` and ``phase``, their actions. The script holds that table and a small function that
finds the program among the words typed (``run_benchmark.py`` as a script of ``python``,
``python3`` or ``py``, or the installed ``proagents-bench``), then completes the command,
an option, a choice, or a path. So it never lags behind the parsers: it is printed anew from
them. bash and zsh (through zsh's ``bashcompinit``) share one script; PowerShell registers a
native argument completer. The interpreters' names are registered too (the docs run
``python -B run_benchmark.py``); where ``run_benchmark.py`` is not among the words, bash hands
over to bash-completion's own Python completion when it is loaded, and every shell otherwise
completes a path; a path (a file option's value, diff's OLD and NEW) is the shell's own path
completion, as the script leaves it no match (``-o default``).
"""

from __future__ import annotations

import argparse
from typing import TYPE_CHECKING, Dict, List, NamedTuple, Sequence

from .commands import COMMANDS, GATE
from .status import EXIT_PASS

if TYPE_CHECKING:  # for annotations only
    from . import Outcome, Session
    from .usage import Parser

SHELLS = ("bash", "zsh", "powershell")
# The metavars of values that are paths (a file or a folder), which the shell completes.
PATH_METAVARS = frozenset(("FILE", "LOG", "PATH", "OLD", "NEW", "DIR"))
# What an option takes besides its choices: nothing, a path, a value to type.
FLAG, PATH, VALUE = "@flag", "@path", "@value"
# The names the program is run by, and the interpreters it is run with.
PROGRAMS = ("run_benchmark.py", "proagents-bench")
PYTHONS = ("python", "python3", "py", "pypy3")


def add_arguments(parser: Parser) -> None:
    parser.description = ("Print the shell completion script of this command line, generated "
                          "from its parsers: commands, options, their choices and paths.")
    parser.epilog = ("bash: source <(python3 -B run_benchmark.py completion bash), or add "
                     "that line to ~/.bashrc; zsh: the same with zsh, in ~/.zshrc; "
                     "PowerShell: python run_benchmark.py completion powershell | Out-String "
                     "| Invoke-Expression, in $PROFILE.")
    parser.add_argument("shell", choices=SHELLS, help="the shell: " + ", ".join(SHELLS))


class Table(NamedTuple):
    """What the script completes: the commands' names (the gate's, the default, is ""),
    the words each command offers (its options, and its actions), and what each option
    takes, by ``"COMMAND OPTION"``: :data:`FLAG`, :data:`PATH`, :data:`VALUE`, or its
    choices separated by spaces."""

    commands: List[str]
    words: Dict[str, List[str]]
    values: Dict[str, str]


def table(program: str) -> Table:
    """The table of every command's parser (see :class:`Table`)."""
    others = [command.name for command in COMMANDS if command is not GATE]
    words: Dict[str, List[str]] = {}
    values: Dict[str, str] = {}
    for command in COMMANDS:
        name = "" if command is GATE else command.name
        parser = command.parser(program, others if command is GATE else None)
        found = words.setdefault(name, [])
        _read(parser, name, found, values)
        if command is GATE:
            found.extend(others)
    return Table(others, {name: sorted(set(found), key=found.index)
                          for name, found in words.items()}, values)


def _read(parser: argparse.ArgumentParser, name: str, words: List[str],
          values: Dict[str, str]) -> None:
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            for action_name, subparser in action.choices.items():
                words.append(action_name)
                _read(subparser, name, words, values)
            continue
        if not action.option_strings and action.choices:  # a positional of fixed words
            words.extend(str(choice) for choice in action.choices)
        for option in action.option_strings:
            words.append(option)
            values["%s %s" % (name, option)] = _takes(action)


def _takes(action: argparse.Action) -> str:
    if action.nargs == 0:
        return FLAG
    if action.choices:
        return " ".join(str(choice) for choice in action.choices)
    if action.metavar in PATH_METAVARS:
        return PATH
    return VALUE


def run(options: argparse.Namespace, session: Session) -> Outcome:
    from . import Outcome
    found = table(session.program)
    script = powershell(found) if options.shell == "powershell" else bash(found,
                                                                          options.shell)
    return Outcome(EXIT_PASS, script.encode("ascii"))


def _shell_words(words: Sequence[str]) -> str:
    return " ".join(words)


def bash(found: Table, shell: str = "bash") -> str:
    """The bash script (``zsh``: the same, after zsh's bashcompinit)."""
    word_cases = "".join('    "%s") echo "%s";;\n' % (name, _shell_words(words))
                         for name, words in found.words.items())
    value_cases = "".join('    "%s") echo "%s";;\n' % (key, takes)
                          for key, takes in sorted(found.values.items()))
    lines = ["# %s completion for proagents-bench, generated from its parsers by "
             "`run_benchmark.py completion %s`." % (shell, shell)]
    if shell == "zsh":
        lines.append("autoload -U +X bashcompinit && bashcompinit")
    return "\n".join(lines) + "\n" + _BASH % {
        "commands": _shell_words(found.commands), "words": word_cases, "values": value_cases,
        "programs": "|".join("*" + name for name in PROGRAMS), "names": " ".join(PROGRAMS),
        "pythons": " ".join(PYTHONS)}


_BASH = """_proagents_bench_words() {
  case "$1" in
%(words)s  esac
}
_proagents_bench_takes() {
  case "$1" in
%(values)s    *) echo "@value";;
  esac
}
_proagents_bench() {
  local i start=-1 command="" cur prev takes
  for ((i = 0; i < COMP_CWORD; i++)); do
    case "${COMP_WORDS[i]}" in %(programs)s) start=$i; break;; esac
  done
  cur="${COMP_WORDS[COMP_CWORD]}"
  if [ "$start" -lt 0 ]; then  # not this program: Python's own completion, or a path
    COMPREPLY=()
    if [ -n "$BASH_VERSION" ] && declare -F _python >/dev/null 2>&1; then
      _python "$@"
    fi
    return
  fi
  prev="${COMP_WORDS[COMP_CWORD-1]}"
  if [ $((start + 1)) -lt "$COMP_CWORD" ]; then
    case " %(commands)s " in
      *" ${COMP_WORDS[start+1]} "*) command="${COMP_WORDS[start+1]}";;
    esac
  fi
  if [ "$COMP_CWORD" -gt $((start + 1)) ] && [[ "$prev" == -* ]]; then
    takes="$(_proagents_bench_takes "$command $prev")"
    case "$takes" in
      @path|@value) COMPREPLY=(); return;;  # the shell's own path completion
      @flag) ;;
      *) COMPREPLY=($(compgen -W "$takes" -- "$cur")); return;;
    esac
  fi
  if [[ "$cur" == -* ]] || [ -z "$command" -a "$COMP_CWORD" -eq $((start + 1)) ]; then
    COMPREPLY=($(compgen -W "$(_proagents_bench_words "$command")" -- "$cur"))
  else  # a command's actions (team add, ...), else a path
    takes="$(_proagents_bench_words "$command" | tr ' ' '\\n' | grep -v '^-')"
    COMPREPLY=($(compgen -W "$takes" -- "$cur"))  # none: the shell's path completion
  fi
}
complete -o default -F _proagents_bench %(names)s %(pythons)s
"""


def _powershell_list(words: Sequence[str]) -> str:
    return "@(%s)" % ", ".join("'%s'" % word.replace("'", "''") for word in words)


def powershell(found: Table) -> str:
    """The PowerShell script: a native argument completer."""
    words = "".join("    '%s' = %s\n" % (name, _powershell_list(listed))
                    for name, listed in found.words.items())
    values = "".join("    '%s' = '%s'\n" % (key, takes)
                     for key, takes in sorted(found.values.items()))
    return _POWERSHELL % {"words": words, "values": values,
                          "commands": _powershell_list(found.commands),
                          "names": _powershell_list(PROGRAMS + PYTHONS)}


_POWERSHELL = """# PowerShell completion for proagents-bench, generated from its parsers by
# `run_benchmark.py completion powershell`.
$ProagentsBenchWords = @{
%(words)s}
$ProagentsBenchTakes = @{
%(values)s}
$ProagentsBenchCommands = %(commands)s
Register-ArgumentCompleter -Native -CommandName %(names)s -ScriptBlock {
  param($wordToComplete, $commandAst, $cursorPosition)
  $typed = @($commandAst.CommandElements | Where-Object {
    $_.Extent.StartOffset -lt $cursorPosition } | ForEach-Object { $_.Extent.Text })
  if ($wordToComplete -ne '' -and $typed.Count -gt 0) {
    $typed = @($typed | Select-Object -First ($typed.Count - 1))
  }
  $start = -1
  for ($i = 0; $i -lt $typed.Count; $i++) {
    if ($typed[$i] -like '*run_benchmark.py' -or $typed[$i] -eq 'proagents-bench') {
      $start = $i; break
    }
  }
  if ($start -lt 0) { return }  # not this program: PowerShell's own path completion
  $command = ''
  if ($typed.Count -gt $start + 1 -and $ProagentsBenchCommands -contains $typed[$start + 1]) {
    $command = $typed[$start + 1]
  }
  $prev = $typed[$typed.Count - 1]
  if ($typed.Count -gt $start + 1 -and $prev -like '-*') {
    $takes = $ProagentsBenchTakes["$command $prev"]
    if ($takes -eq '@path' -or $takes -eq '@value') { return }
    if ($takes -and $takes -ne '@flag') {
      return $takes -split ' ' | Where-Object { $_ -like "$wordToComplete*" } |
        ForEach-Object { [System.Management.Automation.CompletionResult]::new(
          $_, $_, 'ParameterValue', $_) }
    }
  }
  $offered = $ProagentsBenchWords[$command]
  if ($wordToComplete -notlike '-*' -and -not ($command -eq '' -and
      $typed.Count -eq $start + 1)) {
    $offered = @($offered | Where-Object { $_ -notlike '-*' })  # a command's actions
    if ($offered.Count -eq 0) { return }  # else a path: PowerShell's own completion
  }
  $offered | Where-Object { $_ -like "$wordToComplete*" } |
    ForEach-Object { [System.Management.Automation.CompletionResult]::new(
      $_, $_, 'ParameterName', $_) }
}
"""
