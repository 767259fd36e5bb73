"""The process's standard streams and signals, as the command line uses them.

The decision document must reach stdout whole or the run must say that it did not: a cut-off
PASS is worse than no gate. So:

- :class:`DocumentWriter` writes bytes to a file descriptor with ``os.write`` and checks
  every call: a partial write is continued, ``EAGAIN`` on a non-blocking descriptor (as
  Node.js hands to child processes) waits until the descriptor is writable, and any other
  failure (``ENOSPC`` on a full disk or ``/dev/full``, ``EFBIG`` beyond ``ulimit -f``,
  ``EPIPE`` when the reader went away, ``EBADF``) raises :class:`OutputError`. Nothing is
  buffered in user space, so there is nothing left to flush; a stream object (the tests'
  ``BytesIO``) is written the same way and then flushed, a failed flush being a failed write.
- :class:`MessageWriter` writes stderr lines and never fails: a closed or broken stderr loses
  the messages but changes neither the exit status nor stdout. Every line is made safe for a
  terminal first (:func:`terminal_line`): no input can end a line, clear a screen or move the
  cursor.
- :func:`reserve_standard_descriptors` opens the null device on any of descriptors 0, 1 and 2
  that is closed (``>&-``), so that no file the run opens later lands on descriptor 1 or 2 and
  receives what was meant for stdout or stderr; it reports whether stdout was closed.
- :class:`SignalGuard` turns the first SIGINT or SIGTERM into :class:`Interrupted` (exit 130
  or 143) and ignores later ones, so that cleanup is never interrupted a second time; inside
  :meth:`SignalGuard.deferred` a signal is only recorded and raised when the section ends
  (the renames that publish reports are all done or none).
"""

from __future__ import annotations

import errno
import os
import select
import shutil
import signal
import time
from contextlib import contextmanager
from typing import (TYPE_CHECKING, BinaryIO, Dict, Iterator, List, Mapping, Optional, Sequence,
                    TextIO)

if TYPE_CHECKING:  # for annotations only
    from signal import _HANDLER
    from types import FrameType

    from ..jsonio import BytesLike

from .status import EXIT_INTERRUPTED, EXIT_TERMINATED

# How long one wait for a non-blocking descriptor to become writable lasts before it is
# retried (the wait itself is unbounded, as a blocking write's would be: a slow reader is
# not an error; a signal still ends it).
_WRITABLE_POLL_SECONDS = 1.0

_REASONS: Dict[Optional[int], str] = {  # by errno, which an OSError may lack
    errno.ENOSPC: "no space left on the device",
    errno.EFBIG: "the file size limit was reached",
    errno.EPIPE: "the reader closed the pipe",
    errno.EBADF: "the descriptor is closed",
    errno.EDQUOT: "the disk quota is exceeded",
    errno.EIO: "an input/output error",
}


class OutputError(Exception):
    """The document could not be written completely; ``reason`` says why in plain words."""

    def __init__(self, reason: str) -> None:
        self.reason = reason
        super().__init__(reason)


def _reason(problem: BaseException) -> str:
    return _REASONS.get(getattr(problem, "errno", None)) or getattr(
        problem, "strerror", None) or str(problem) or type(problem).__name__


def _wait_writable(descriptor: int) -> None:
    try:
        select.select([], [descriptor], [], _WRITABLE_POLL_SECONDS)
    except (OSError, ValueError):
        time.sleep(0.01)  # select cannot watch this descriptor (Windows pipes): poll


class DocumentWriter:
    """Writes bytes completely to a file descriptor (or a binary stream) or raises
    :class:`OutputError`; counts what was written."""

    def __init__(self, descriptor: int = 1, stream: Optional[BinaryIO] = None) -> None:
        self.descriptor = descriptor
        self.stream = stream
        self.written = 0

    def write(self, data: BytesLike) -> None:
        if self.stream is not None:
            self._write_stream(self.stream, data)
            return
        view = memoryview(data)
        while view:
            try:
                count = os.write(self.descriptor, view)
            except BlockingIOError:
                _wait_writable(self.descriptor)
                continue
            except OSError as problem:
                raise OutputError(_reason(problem))
            if count <= 0:
                raise OutputError("the write made no progress")
            self.written += count
            view = view[count:]

    def _write_stream(self, stream: BinaryIO, data: BytesLike) -> None:
        view = memoryview(data)
        while view:
            try:
                count: Optional[int] = stream.write(view)
            except BlockingIOError as problem:
                count = problem.characters_written
                if not count:
                    time.sleep(0.01)
            except (OSError, ValueError) as problem:
                raise OutputError(_reason(problem))
            if count is None:  # a raw stream that would block
                time.sleep(0.01)
                continue
            self.written += count
            view = view[count:]

    def isatty(self) -> bool:
        """Whether the document goes to a terminal (a person reads it, not a program)."""
        try:
            if self.stream is not None:
                return bool(self.stream.isatty())
            return os.isatty(self.descriptor)
        except (OSError, ValueError, AttributeError):
            return False

    def finish(self) -> None:
        """Flush what a stream buffers; a failed flush is a failed write."""
        if self.stream is not None:
            try:
                self.stream.flush()
            except (OSError, ValueError) as problem:
                raise OutputError(_reason(problem))


def terminal_line(text: str) -> str:
    r"""``text`` as one line that is safe on any terminal: every character that is not
    printable (line breaks, escape sequences, bidirectional controls, lone surrogates) is
    written as a backslash escape.

    >>> print(terminal_line("a\nERROR: b\x1b[2J\u202ec"))
    a\nERROR: b\x1b[2J\u202ec
    """
    if text.isprintable():
        return text
    out: List[str] = []
    for char in text:
        if char.isprintable():
            out.append(char)
        elif char in "\n\t\r":
            out.append({"\n": "\\n", "\t": "\\t", "\r": "\\r"}[char])
        elif ord(char) < 0x100:
            out.append("\\x%02x" % ord(char))
        elif ord(char) < 0x10000:
            out.append("\\u%04x" % ord(char))
        else:
            out.append("\\U%08x" % ord(char))
    return "".join(out)


class MessageWriter:
    """stderr lines that never fail the run (see the module docstring). ``stream`` is a text
    stream, or None when there is no stderr."""

    def __init__(self, stream: Optional[TextIO]) -> None:
        self.stream = stream
        self.open_status = 0  # the length of the status line on the screen, or 0

    def isatty(self) -> bool:
        try:
            return bool(self.stream is not None and self.stream.isatty())
        except (OSError, ValueError, AttributeError):
            return False

    def say(self, lines: Sequence[str]) -> None:
        """Write ``lines``, each made one terminal-safe line, in the stream's encoding (in
        place of the status line, if one is on the screen)."""
        if not lines or self.stream is None:
            return
        self._write(self._erased() + "".join(terminal_line(line) + "\n" for line in lines))

    def status(self, line: str) -> None:
        """Show ``line`` as the status line, rewritten in place (a terminal only: the caller
        makes sure), cut to the terminal's width so that it never wraps; the next line
        written replaces it."""
        if self.stream is None:
            return
        width = shutil.get_terminal_size((80, 24)).columns - 1
        text = terminal_line(line)[:max(width, 20)]
        self._write("\r" + text + " " * max(self.open_status - len(text), 0))
        self.open_status = len(text)

    def _erased(self) -> str:
        """What clears the status line on the screen (nothing when there is none)."""
        if not self.open_status:
            return ""
        erase, self.open_status = "\r%s\r" % (" " * self.open_status), 0
        return erase

    def _write(self, text: str) -> None:
        if self.stream is None:
            return
        encoding = getattr(self.stream, "encoding", None) or "ascii"
        try:
            text = text.encode(encoding, "backslashreplace").decode(encoding)
        except (LookupError, UnicodeError):
            text = text.encode("ascii", "backslashreplace").decode("ascii")
        try:
            self.stream.write(text)
            self.stream.flush()
        except Exception:  # noqa: BLE001 - a broken stderr must never change the outcome
            pass


def colour_wanted(terminal: bool, environ: Optional[Mapping[str, str]] = None) -> bool:
    """Whether to colour text written to a stream that ``terminal`` says is a terminal: never
    when it is not, nor when ``NO_COLOR`` is set to anything (https://no-color.org), nor on a
    ``TERM=dumb`` terminal, nor on a Windows console that does not take ANSI sequences."""
    environ = os.environ if environ is None else environ
    if not terminal or environ.get("NO_COLOR") or environ.get("TERM") == "dumb":
        return False
    return os.name != "nt" or _windows_console_takes_ansi()


def _windows_console_takes_ansi() -> bool:
    """Turn on the console's ANSI processing (Windows 10 and later); False when it cannot."""
    try:
        import ctypes
        kernel32 = getattr(ctypes, "windll").kernel32  # Windows only (and its stubs)
        handle = kernel32.GetStdHandle(-11)  # STD_OUTPUT_HANDLE
        mode = ctypes.c_uint32()
        if not kernel32.GetConsoleMode(handle, ctypes.byref(mode)):
            return False
        virtual_terminal = 0x0004  # ENABLE_VIRTUAL_TERMINAL_PROCESSING
        return bool(mode.value & virtual_terminal) or bool(
            kernel32.SetConsoleMode(handle, mode.value | virtual_terminal))
    except Exception:  # noqa: BLE001 - no ctypes, no console: no colour
        return False


def reserve_standard_descriptors() -> bool:
    """Open the null device on every closed one of descriptors 0, 1, 2 (see the module
    docstring); return True when descriptor 1, stdout, was closed."""
    stdout_closed = False
    for descriptor in (0, 1, 2):
        try:
            os.fstat(descriptor)
            continue
        except OSError:
            pass
        if descriptor == 1:
            stdout_closed = True
        try:
            opened = os.open(os.devnull, os.O_RDWR)
        except OSError:
            continue
        if opened != descriptor:  # a lower one was closed too and took it: move it
            os.dup2(opened, descriptor)
            os.close(opened)
    return stdout_closed


class Interrupted(BaseException):
    """SIGINT or SIGTERM arrived; ``status`` is the exit status the run ends with. A
    BaseException, like KeyboardInterrupt, so that no ``except Exception`` swallows it."""

    def __init__(self, signal_number: int) -> None:
        self.signal_number = signal_number
        self.status = EXIT_TERMINATED if signal_number == getattr(
            signal, "SIGTERM", None) else EXIT_INTERRUPTED
        super().__init__(signal_number)


def _handled_signals() -> List[int]:
    return [number for number in (getattr(signal, "SIGINT", None),
                                  getattr(signal, "SIGTERM", None)) if number is not None]


class SignalGuard:
    """SIGINT and SIGTERM as :class:`Interrupted`, once (see the module docstring)."""

    def __init__(self) -> None:
        self.received: Optional[int] = None
        self.raised = False
        self._deferring = 0
        self._previous: Dict[int, _HANDLER] = {}

    def install(self) -> SignalGuard:
        """Take over SIGINT and SIGTERM (only possible in the main thread; elsewhere the
        guard stays passive). Returns self, or raises :class:`Interrupted` once both are
        taken over when a signal came while they were: a signal that lands between the first
        handler's installation and the second's return (PyPy's ``signal.signal`` runs Python
        code after installing) would otherwise leave the second's previous handler unknown
        and escape the caller's guard."""
        with self.deferred():
            for number in _handled_signals():
                try:
                    self._previous[number] = signal.signal(number, self._handle)
                except (ValueError, OSError):  # not the main thread, or not supported here
                    pass
        return self

    def _handle(self, number: int, frame: Optional[FrameType]) -> None:
        if self.received is not None:
            return  # the first signal decides; cleanup runs undisturbed
        self.received = number
        if not self._deferring:
            self.raised = True
            raise Interrupted(number)

    @contextmanager
    def deferred(self) -> Iterator[None]:
        """A section that a signal does not cut short: it is raised when the section ends."""
        self._deferring += 1
        try:
            yield
        finally:
            self._deferring -= 1
        if self.received is not None and not self._deferring and not self.raised:
            self.raised = True
            raise Interrupted(self.received)

    def quiet(self) -> None:
        """From now on a signal is only recorded (the run is finishing: nothing it could stop
        is left, and a traceback would be the only effect)."""
        self._deferring += 1

    def restore(self) -> None:
        """Give the signals back to the handlers they had before :meth:`install`."""
        for number, previous in self._previous.items():
            try:
                signal.signal(number, previous)
            except (ValueError, OSError, TypeError):
                pass
        self._previous = {}

