"""The evidence fingerprint in a forked process, while the pipeline grades, compares and
decides: on a large package it is about a third of the work, and a second core is usually idle.

Only the command line does this (it owns the process): on POSIX, with ``os.fork``, in a
process with no other thread, and for inputs of at least FORK_INPUT_BYTES (below that a fork
costs more than it saves). The pipeline starts it as soon as the three files are loaded,
so that it overlaps with validation too; a package that then fails a check ends the child
unread. The child inherits the parsed files (shared pages, copied only as
it touches them), computes the very same fingerprint with the very same function, writes its
71 ASCII characters to a pipe and ends; it takes no signal handler of the parent's (a Ctrl-C
ends it at once). Whenever anything goes wrong with the child (no fork, a failed fork, a
child that dies or writes something else), the parent computes the fingerprint itself: the
document is the same bytes either way.
"""

from __future__ import annotations

import os
import signal
import threading
from typing import Callable, Optional

from ..pipeline import fingerprint_here

# Inputs smaller than this (the three files' bytes together) are fingerprinted in process.
FORK_INPUT_BYTES = 8 << 20

# "sha256:" and 64 hex digits.
_FINGERPRINT_CHARS = 71


def forking_fingerprinter(input_bytes: int) -> Callable:
    """A ``fingerprinter`` for :func:`proagents_bench.pipeline.evaluate`: forked when the
    inputs are large enough and the platform allows, else the pipeline's own."""
    if (input_bytes < FORK_INPUT_BYTES or not hasattr(os, "fork")
            or threading.active_count() != 1):
        return fingerprint_here
    return _start_in_child


def _start_in_child(*arguments) -> Callable[[], str]:
    try:
        read_end, write_end = os.pipe()
    except OSError:
        return fingerprint_here(*arguments)
    try:
        child = os.fork()
    except OSError:
        os.close(read_end)
        os.close(write_end)
        return fingerprint_here(*arguments)
    if child == 0:  # the child: compute, write, end (nothing else runs here)
        status = 1
        try:
            for number in (signal.SIGINT, signal.SIGTERM):
                signal.signal(number, signal.SIG_DFL)
            os.close(read_end)
            text = fingerprint_here(*arguments)().encode("ascii")
            while text:
                text = text[os.write(write_end, text):]
            status = 0
        finally:
            os._exit(status)
    os.close(write_end)
    return _Result(child, read_end, arguments)


class _Result:
    """The parent's side: the fingerprint, once the child has written it (or computed here
    if the child failed); the child is reaped either way."""

    def __init__(self, child: int, read_end: int, arguments: tuple) -> None:
        self.child = child
        self.read_end = read_end
        self.arguments = arguments
        self.value: Optional[str] = None

    def __call__(self) -> str:
        if self.value is None:
            self.value = self._collect()
        return self.value

    def _collect(self) -> str:
        received = b""
        try:
            while len(received) <= _FINGERPRINT_CHARS:
                chunk = os.read(self.read_end, 128)
                if not chunk:
                    break
                received += chunk
        except OSError:
            received = b""
        finally:
            os.close(self.read_end)
            try:
                _pid, status = os.waitpid(self.child, 0)
            except OSError:
                status = -1
        text = received.decode("ascii", "replace")
        if status != 0 or len(text) != _FINGERPRINT_CHARS or not text.startswith("sha256:"):
            return fingerprint_here(*self.arguments)()
        return text

    def __del__(self):  # a run stopped before the fingerprint was needed: end the child
        if self.value is None and self.child:
            try:
                os.close(self.read_end)
            except OSError:
                pass
            try:
                os.kill(self.child, signal.SIGKILL)
                os.waitpid(self.child, 0)
            except OSError:
                pass
