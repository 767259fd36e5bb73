"""The commands' argument parser: argparse, with its errors raised (every command turns them
into exit 2 and a CONTRACT_ERROR document) instead of printed, no abbreviated long options
(``--result`` must never mean ``--results``), and a "did you mean" for a mistyped option, a
mistyped choice and a mistyped command, found with :func:`~proagents_bench.text.nearest`.
"""

from __future__ import annotations

import argparse
import re
from typing import TYPE_CHECKING, Any, Iterable, List, NoReturn, Optional, Sequence, Tuple

from ..text import nearest

if TYPE_CHECKING:  # for annotations only
    from .report_files import Outputs

_UNRECOGNIZED = "unrecognized arguments: "
_INVALID_CHOICE = re.compile(r"^argument (.+?): invalid choice: '?(.*?)'? \(")


class UsageError(Exception):
    """A command-line error (argparse's own error, turned into exit 2 with a document)."""


def did_you_mean(word: str, known: Iterable[str], what: str = "") -> str:
    """`` (did you mean --results?)`` for the known word closest to ``word``, or "". Options
    are compared without their dashes, which every option shares: with them ``--bogus``
    came within the cutoff of ``--jobs``.

    >>> did_you_mean("--resluts", ["--results", "--spec"])
    ' (did you mean --results?)'
    >>> did_you_mean("serv", ["serve", "submit"], "the command ")
    ' (did you mean the command serve?)'
    >>> did_you_mean("--xyz", ["--results"]), did_you_mean("--bogus", ["--jobs"])
    ('', '')
    """
    bare = {name.lstrip("-"): name for name in sorted(set(known))}
    found = nearest(word.lstrip("-"), bare)
    return " (did you mean %s%s?)" % (what, bare[found]) if found else ""


class Parser(argparse.ArgumentParser):
    """See the module docstring. ``commands`` are the words a first argument may be instead
    of an option (the gate's parser: the other commands), suggested for a mistyped one;
    ``program`` is the command line's name, as invoked (a command's ``prog`` adds its own).
    ``outputs`` are the reports and ``--output`` of a command that writes them
    (:func:`~.report_files.add_output_options`), which no run may leave behind. ``listed``:
    (name, description) of every command, in order, which the help ends with (the gate's:
    the commands' list)."""

    def __init__(self, *arguments: Any, commands: Sequence[str] = (), program: str = "",
                 listed: Sequence[Tuple[str, str]] = (),
                 **keywords: Any) -> None:  # argparse.ArgumentParser's own arguments
        keywords.setdefault("allow_abbrev", False)
        super().__init__(*arguments, **keywords)
        self.commands = list(commands)
        self.program = program or self.prog
        self.outputs: Optional[Outputs] = None
        self.listed = list(listed)

    def format_help(self) -> str:
        """argparse's help, then the commands a line each (``listed``), wrapped to the
        width argparse wraps to."""
        import shutil
        import textwrap
        text = super().format_help()
        if not self.listed:
            return text
        width = max(shutil.get_terminal_size().columns - 2, 40)
        column = max(len(name) for name, _description in self.listed) + 4
        lines = ["Commands (the first takes no command word; %s COMMAND --help: a "
                 "command's options):" % self.program]
        for name, description in self.listed:
            lines.extend(textwrap.wrap(description, width, initial_indent=(
                "  " + name).ljust(column), subsequent_indent=" " * column))
        return text + "\n" + "\n".join(lines) + "\n"

    def error(self, message: str) -> NoReturn:
        raise UsageError(message + self.suggestion(message))

    def suggestion(self, message: str) -> str:
        """What argparse's ``message`` may have meant, or ""."""
        if "did you mean" in message or "maybe you meant" in message:
            return ""  # a Python whose argparse suggests by itself
        if message.startswith(_UNRECOGNIZED):
            for word in message[len(_UNRECOGNIZED):].split():
                if word.startswith("-"):
                    found = did_you_mean(word.split("=", 1)[0], self.option_names())
                else:
                    found = did_you_mean(word, self.commands, "the command ")
                if found:
                    return found
            return ""
        match = _INVALID_CHOICE.match(message)
        if match:
            return did_you_mean(match.group(2), self._choices_of(match.group(1)))
        return ""

    def option_names(self) -> List[str]:
        """Every option of this parser and of its subcommands' parsers (argparse reports
        a subcommand's unknown option from the top parser)."""
        names = list(self._option_string_actions)
        for action in self._actions:
            if isinstance(action, argparse._SubParsersAction):
                for parser in action.choices.values():
                    names.extend(parser.option_names() if isinstance(parser, Parser)
                                 else parser._option_string_actions)
        return names

    def _choices_of(self, name: str) -> List[str]:
        """The choices of the argument argparse calls ``name`` in its messages."""
        for action in self._actions:
            names = ["/".join(action.option_strings), action.metavar, action.dest]
            if action.choices and name in [item for item in names if item]:
                return [str(choice) for choice in action.choices]
        return []


def choice_list(text: str, known: Sequence[str], alone: Optional[str] = None) -> List[str]:
    """A comma-separated list of ``known`` words (``--fail-on block,incomparable``), for
    argparse's ``type=``: unknown, repeated or empty words are refused with a "did you mean";
    ``alone`` is a word that must stand alone (``none``)."""
    words = [word.strip().lower() for word in text.split(",")]
    for word in words:
        if word not in known and word != alone:
            raise argparse.ArgumentTypeError("%r is not one of %s%s" % (
                word, ", ".join(list(known) + ([alone] if alone else [])),
                did_you_mean(word, list(known) + ([alone] if alone else []))))
    if len(set(words)) != len(words):
        raise argparse.ArgumentTypeError("a word is given twice in %r" % text)
    if alone in words and len(words) > 1:
        raise argparse.ArgumentTypeError("%r stands alone" % alone)
    return [] if words == [alone] else words
