"""The command line: the only code that prints or chooses an exit status.

``run_benchmark.py [gate options]`` runs the gate, its options unchanged; the other commands
are named first: ``run_benchmark.py COMMAND ...`` (the rows of :mod:`.commands`). Every
command is a module with ``add_arguments(parser)`` and ``run(options, session) -> Outcome``;
this module parses its arguments (a usage error is the one ``cli.usage`` outcome, exit 2),
gives it the streams, turns its outcome into bytes on stdout, lines on stderr and an exit
status (:mod:`.status`), and catches everything, so that a crash can never look like a
decision: a bug is exit 3 with one stderr line, a failed write exit 4, a signal 130 or 143.
A command that writes reports (its parser has ``outputs``) runs guarded: no report or
``--output`` of an earlier run outlives a run that ends without a result
(:mod:`.report_files`).

:func:`run` takes the signals over before any command's modules are imported, so a Ctrl-C
during the imports ends the run without a traceback too.
"""

from __future__ import annotations

import os
import sys
import time
from typing import (TYPE_CHECKING, Any, BinaryIO, Callable, List, Optional, Sequence, TextIO,
                    Union)

from ..version import VERSION
from .commands import COMMANDS, GATE, Command
from .status import EXIT_CONTRACT_ERROR, EXIT_INTERNAL_ERROR, EXIT_INTERRUPTED, EXIT_OUTPUT_FAILURE
from .streams import (DocumentWriter, Interrupted, MessageWriter, OutputError, SignalGuard,
                      reserve_standard_descriptors)

if TYPE_CHECKING:  # for annotations only
    import argparse

    from ..errors import ContractError
    from ..jsonio import BytesLike
    from .report_files import Targets
    from .usage import UsageError

# argparse quotes the arguments it refuses: a usage message shows this much of them.
MAX_USAGE_CHARS = 1000


class Outcome:
    """What a command ends with: its exit status, the bytes for stdout (one bytes object or a
    list of chunks), the lines for stderr, and optionally what its work is made of, ``kept``
    alive until the process ends (see :func:`run`), a CONTRACT_ERROR's ``errors`` (and how
    many more were ``omitted``), and what to do ``after`` stdout is written whole."""

    def __init__(self, status: int, output: Union[bytes, Sequence[BytesLike]] = b"",
                 lines: Sequence[str] = (), kept: object = None,
                 errors: Sequence[ContractError] = (), omitted: int = 0,
                 after: Optional[Callable[[], None]] = None) -> None:
        self.status = status
        self.output = output
        self.lines = list(lines)
        self.kept = kept  # what the command's work is made of (see run())
        self.errors = list(errors)  # a CONTRACT_ERROR outcome's errors, and how many more
        self.omitted = omitted
        self.after = after  # called once stdout is written whole (a progress's last line)


class Session:
    """What a command may use: ``messages`` (stderr lines, never failing), ``stdout`` (for a
    command that reports as it goes; checked writes, see streams.py), ``guard`` (its
    ``deferred`` sections finish before a signal acts), ``program`` (the name the command
    line was invoked as, for help texts), ``command`` (the program as a person pastes it
    where they ran it, for the commands a message tells them to run; see
    :func:`pasted_command`), ``arguments`` (the command's own, as given) and ``targets``
    (the reports and ``--output`` it writes, :class:`~.report_files.Targets`; none for a
    command that writes no reports)."""

    # A command's reports render what that command decides (an Evaluation, a Health, a
    # Release): which one, only the command knows.
    targets: Targets[Any]

    def __init__(self, messages: MessageWriter, stdout: DocumentWriter, guard: SignalGuard,
                 program: str, command: Optional[str] = None,
                 arguments: Sequence[str] = ()) -> None:
        self.messages = messages
        self.stdout = stdout
        self.guard = guard
        self.program = program
        self.command = pasted_command(program) if command is None else command
        self.arguments = list(arguments)
        self.started = time.monotonic()

    def elapsed(self) -> float:
        """The wall seconds since the run started (a JUnit report's ``time``)."""
        return time.monotonic() - self.started

    def say(self, line: str) -> None:
        """One line of a command's report on stdout (ASCII; anything else escaped)."""
        self.stdout.write((line + "\n").encode("ascii", "backslashreplace"))


def program_name(argv0: Optional[str] = None) -> str:
    """The name the command line was invoked as: ``run_benchmark.py``, ``proagents-bench`` or
    ``python -m proagents_bench``."""
    argv0 = sys.argv[0] if argv0 is None else argv0
    name = os.path.basename(argv0 or "")
    if name in ("__main__.py", "-m", "-c", ""):
        return "python -m proagents_bench"
    return name


def pasted_command(argv0: str) -> str:
    """The program as a command a person pastes where they ran it: the interpreter that runs
    this (:func:`interpreter_word`), ``-B`` and the script as they named it
    (``../run_benchmark.py``: it may not be executable, and is never on the PATH), the
    installed command's name, or ``python -m proagents_bench``."""
    name = program_name(argv0)
    return interpreter_word() + " -B " + command_word(argv0) if name.endswith(".py") else name


def interpreter_word(executable: Optional[str] = None) -> str:
    """The interpreter that runs this (``executable``: default ``sys.executable``) as a person
    types it: its name when that name on the PATH is this very interpreter (``python3`` on
    most POSIX machines, where ``python`` may be missing or another Python; ``python`` on
    Windows), else its whole path; ``python`` when it is unknown."""
    import shutil
    executable = sys.executable if executable is None else executable
    if not executable:
        return "python"
    name = os.path.basename(executable)
    name = name[:-4] if name.lower().endswith(".exe") else name
    found = shutil.which(name)
    try:
        if found and os.path.samefile(found, executable):
            return name
    except OSError:
        pass
    return command_word(executable)


def command_word(text: str) -> str:
    """A path or value as one word of a command line (quoted when it holds a space or a
    quote, or is empty)."""
    return text if text and not any(char in text for char in " \"'") else '"%s"' % (
        text.replace('"', '\\"'))


def run(commands: Sequence[Command] = COMMANDS, default: Command = GATE,
        program: Optional[str] = None) -> None:
    """The console entry point (``run_benchmark.py``, ``python -m proagents_bench``, the
    installed ``proagents-bench``): exit with :func:`main`'s status (``commands``,
    ``default`` and ``program`` as there).

    Once everything is written, the process ends at once (``os._exit``), without freeing
    what the command kept: a large package's values are millions of objects, and freeing
    them one by one only to end the process costs a tenth of a second per 100,000 records.
    stdout is written and checked through its descriptor before (streams.py); stderr's
    buffer is flushed here, and a failure to flush it never changes the status."""
    kept: List[object] = []
    status = main(restore_signals=False, program=program, kept=kept, commands=commands,
                  default=default)
    for stream in (sys.stdout, sys.stderr):
        try:
            stream.flush()
        except Exception:  # noqa: BLE001 - a closed or broken stream changes nothing here
            pass
    os._exit(status)


def main(argv: Optional[Sequence[str]] = None, stdout: Optional[BinaryIO] = None,
         stderr: Optional[TextIO] = None, restore_signals: bool = True,
         program: Optional[str] = None, kept: Optional[List[object]] = None,
         commands: Sequence[Command] = COMMANDS, default: Command = GATE) -> int:
    """Run a command; return the exit status. ``stdout`` takes bytes and ``stderr`` text; by
    default the process's own (stdout written through its descriptor, see streams.py).
    ``kept``, when given, receives what the command's work is made of (see :func:`run`).
    ``commands`` (default :data:`~.commands.COMMANDS`) are the rows a first argument names,
    ``default`` the one that runs when it names none of the others. ``program`` is the name
    the help texts and messages give the command line (default: as it was invoked)."""
    guard = SignalGuard()
    try:
        guard.install()  # within the try: a signal during the installation is an interruption
        given = program
        program = program or (program_name() if argv is None else "run_benchmark.py")
        pasted = pasted_command(sys.argv[0] if argv is None and given is None else program)
        return _main(list(sys.argv[1:] if argv is None else argv), stdout, stderr, guard,
                     program, pasted, kept, commands, default)
    except Interrupted as interrupted:  # a signal in the instants around _main's handling
        return interrupted.status
    finally:
        guard.quiet()
        if restore_signals:
            guard.restore()


def _main(argv: List[str], stdout: Optional[BinaryIO], stderr: Optional[TextIO],
          guard: SignalGuard, program: str, pasted: str, kept: Optional[List[object]],
          commands: Sequence[Command], default: Command) -> int:
    messages = MessageWriter(stderr if stderr is not None else sys.stderr)
    if stdout is None:
        if reserve_standard_descriptors():
            messages.say([output_failure("stdout is closed")])
            return EXIT_OUTPUT_FAILURE
        writer = DocumentWriter(descriptor=1)
    else:
        writer = DocumentWriter(stream=stdout)
    try:
        named = {command.name: command for command in commands if command is not default}
        if argv and argv[0] in named:
            command, arguments, others = named[argv[0]], argv[1:], None
        else:
            command, arguments, others = default, argv, list(named)
        outcome = run_command(command, Session(messages, writer, guard, program, pasted,
                                               arguments), others)
        if kept is not None:
            kept.append(outcome.kept)
        messages.say(outcome.lines)
        output = outcome.output
        for chunk in [output] if isinstance(output, bytes) else output:
            writer.write(chunk)  # a large decision comes in chunks (Evaluation.chunks)
        writer.finish()
        if outcome.after is not None:
            outcome.after()
    except OutputError as failure:
        messages.say([output_failure(failure.reason, writer.written)])
        return EXIT_OUTPUT_FAILURE
    except (Interrupted, KeyboardInterrupt) as interrupted:
        messages.say(["interrupted%s" % (
            ": stdout holds an incomplete document" if writer.written else "")])
        return getattr(interrupted, "status", EXIT_INTERRUPTED)
    except Exception as bug:  # noqa: BLE001 - the one place that turns any bug into exit 3
        messages.say([internal_error_line(bug)])
        return EXIT_INTERNAL_ERROR
    return outcome.status


def run_command(command: Command, session: Session,
                others: Optional[Sequence[str]] = None) -> Outcome:
    """Parse ``session.arguments`` by the command's parser and run it (``others``: for the
    default command, the names of the others). A usage error, found while parsing or
    later, is the one ``cli.usage`` outcome, pointing at the command's own help; a command
    that writes reports runs guarded (:func:`~.report_files.guarded`), and every other
    command's CONTRACT_ERROR is said as the gate says it (:func:`~.report_files.said`)."""
    from .report_files import Targets, guarded, said
    from .usage import UsageError
    parser = command.parser(session.program, others)
    outputs = parser.outputs
    session.targets = Targets(session, *outputs) if outputs else Targets(session)
    hint = "--help" if others is not None else command.name + " --help"
    given: List[argparse.Namespace] = []  # the options, once they parsed

    def parsed() -> Outcome:
        try:
            given.append(parser.parse_args(session.arguments))
            return command.load().run(given[0], session)
        except UsageError as usage:
            return usage_outcome(usage, hint)

    if outputs:  # its reports, its --output and stdout: Targets.contract_error says it
        return guarded(session.arguments, session.targets, parsed)
    return said(parsed(), given[0] if given else None, session)


def usage_outcome(usage: UsageError, hint: str = "--help") -> Outcome:
    """Exit 2: a command-line error, and where its help is (``hint``); argparse's message
    cut at :data:`MAX_USAGE_CHARS` (it quotes the arguments it refuses)."""
    from ..errors import ContractError
    text = str(usage)
    if len(text) > MAX_USAGE_CHARS:
        text = text[:MAX_USAGE_CHARS] + "... (cut)"
    return contract_error_outcome([ContractError("cli.usage", "%s (see %s)" % (text, hint))])


def internal_error_line(bug: BaseException) -> str:
    """The one stderr line of an internal error (exit 3)."""
    return ("INTERNAL ERROR: %s: %s (this is a bug in proagents-bench %s; please report it "
            "with the command and input files)" % (type(bug).__name__, bug, VERSION))


def contract_error_outcome(errors: Sequence[ContractError], omitted: int = 0) -> Outcome:
    """Exit 2: the CONTRACT_ERROR document on stdout, an ``ERROR:`` line per error on stderr
    (and one for the errors left out of a capped list)."""
    from ..render.document import contract_error_document, dumps
    lines = [error.stderr_line() for error in errors]
    if omitted:
        lines.append("ERROR: %d more error%s not shown" % (omitted, "" if omitted == 1 else "s"))
    return Outcome(EXIT_CONTRACT_ERROR, dumps(contract_error_document(errors, omitted, VERSION)),
                   lines, errors=errors, omitted=omitted)


def output_failure(reason: str, written: int = 0) -> str:
    return ("ERROR: <stdout>: the output document could not be written completely: %s%s; "
            "it is not a decision (exit %d)" % (
                reason, " after %d bytes" % written if written else "", EXIT_OUTPUT_FAILURE))
