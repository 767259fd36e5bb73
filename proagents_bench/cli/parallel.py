"""Work in a forked process while this one does its own: the evidence fingerprint while the
pipeline grades, compares and decides (on a large package it is about a third of the work,
and a second core is usually idle); half of the packages of ``health`` (see
:func:`in_background`); and the import's candidate log while the baseline's is read (see
:func:`forking_background`, at the end).

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
import pickle
import signal
import threading
from typing import Callable, List, Optional

from ..errors import ContractErrors
from ..jsonio.gcpause import CollectorPaused
from ..pipeline import PendingFingerprint, fingerprint_here

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


def _forked(produce: Callable[[], bytes]) -> Optional["_Child"]:
    """Run ``produce`` in a forked child, which writes the bytes it returns to a pipe and
    ends (it takes no signal handler of the parent's: a Ctrl-C ends it at once); return the
    parent's side of it, or None when no pipe or no fork could be made (the caller then does
    the work itself). A child whose work fails ends with status 1."""
    try:
        read_end, write_end = os.pipe()
    except OSError:
        return None
    try:
        child = os.fork()
    except OSError:
        os.close(read_end)
        os.close(write_end)
        return None
    if child == 0:  # the child: produce, write, end (nothing else runs here)
        status = 1
        try:
            for number in (signal.SIGINT, signal.SIGTERM):
                signal.signal(number, signal.SIG_DFL)
            os.close(read_end)
            data = memoryview(produce())
            while data:
                data = data[os.write(write_end, data):]
            status = 0
        finally:
            os._exit(status)
    os.close(write_end)
    return _Child(child, read_end)


class _Child:
    """A forked child from the parent's side: what it wrote, collected once, or the child
    ended unread. Either way its pipe is closed and it is reaped, exactly once."""

    def __init__(self, pid: int, read_end: int) -> None:
        self.pid = pid
        self.read_end = read_end

    def collect(self, limit: Optional[int] = None) -> Optional[bytes]:
        """What the child wrote (read until it ends, or until more than ``limit`` bytes came),
        when it ended with status 0; else None."""
        pid, self.pid = self.pid, 0
        chunks: Optional[List[bytes]] = []
        received = 0
        try:
            while limit is None or received <= limit:
                chunk = os.read(self.read_end, 1 << 20)
                if not chunk:
                    break
                chunks.append(chunk)
                received += len(chunk)
        except OSError:
            chunks = None
        finally:
            os.close(self.read_end)
            try:
                _pid, status = os.waitpid(pid, 0)
            except OSError:
                status = -1
        return b"".join(chunks) if chunks is not None and status == 0 else None

    def end(self) -> None:
        """End the child unread (a run that gave up on its work)."""
        if self.pid:
            pid, self.pid = self.pid, 0
            try:
                os.close(self.read_end)
            except OSError:
                pass
            try:
                os.kill(pid, signal.SIGKILL)
                os.waitpid(pid, 0)
            except OSError:
                pass

    def __del__(self):  # the last resort, for a run stopped in between (a signal)
        self.end()


def _start_in_child(*arguments) -> PendingFingerprint:
    child = _forked(lambda: fingerprint_here(*arguments)().encode("ascii"))
    if child is None:
        return fingerprint_here(*arguments)
    return _Result(child, arguments)


class _Result(PendingFingerprint):
    """The parent's side: the fingerprint, once the child has written it (or computed here
    if the child failed); the child is ended at once when the run abandons it."""

    def __init__(self, child: _Child, arguments: tuple) -> None:
        self.child = child
        self.arguments = arguments
        self.value: Optional[str] = None

    def __call__(self) -> str:
        if self.value is None:
            received = self.child.collect(_FINGERPRINT_CHARS)
            text = "" if received is None else received.decode("ascii", "replace")
            if len(text) != _FINGERPRINT_CHARS or not text.startswith("sha256:"):
                text = fingerprint_here(*self.arguments)()
            self.value = text
        return self.value

    def abandon(self) -> None:
        if self.value is None:
            self.child.end()


# -- health's second half of the packages -----------------------------------------------------


def in_background(input_bytes: int, threshold: int = FORK_INPUT_BYTES) -> Callable:
    """A ``background`` for :func:`proagents_bench.maintenance.health.measure`: the second
    half of the packages read in a forked process while this one reads the first (reading is
    bound by decoding and checking JSON, one core per process), when the packages are large
    enough and the platform allows; else read here. Its outcome comes back pickled, as the
    import's candidate log does (:func:`forking_background`)."""
    if input_bytes < threshold or not hasattr(os, "fork") or threading.active_count() != 1:
        return _here
    return _read_in_child


def _here(read: Callable) -> Callable:
    return read


# -- the import's second log ------------------------------------------------------------------

# A baseline log smaller than this is imported with its candidate in this process.
FORK_LOG_BYTES = 16 << 20


def forking_background(log_bytes: int, threshold: int = FORK_LOG_BYTES) -> Callable:
    """A ``background`` for :func:`proagents_bench.importers.package.import_logs`: the
    candidate's log read in a forked process while this one reads the baseline's (the
    import is bound by decoding JSON, one core per log), when the logs are large enough and
    the platform allows; else read here."""
    # Imported here: the gate imports this module for its fingerprint, and never needs the
    # importers (a run compiles every module it imports when no bytecode is cached).
    from ..importers.package import run_here
    if log_bytes < threshold or not hasattr(os, "fork") or threading.active_count() != 1:
        return run_here
    return _read_in_child


def _read_in_child(read: Callable) -> Callable:
    def produce() -> bytes:
        try:
            outcome = ("read", read())
        except ContractErrors as failure:
            outcome = ("errors", failure.errors, failure.omitted)
        return pickle.dumps(outcome, pickle.HIGHEST_PROTOCOL)

    child = _forked(produce)
    if child is None:
        return read
    return _Reading(child, read)


class _Reading:
    """The parent's side: the child's outcome (the log read, or its contract errors); read
    here instead if the child failed. Either way the same result."""

    def __init__(self, child: _Child, read: Callable) -> None:
        self.child = child
        self.read = read

    def __call__(self):
        received = self.child.collect()
        try:
            # The bytes come from this program's own child, never from outside.
            with CollectorPaused():
                outcome = pickle.loads(received) if received is not None else None
        except Exception:  # noqa: BLE001 - a child that wrote something else: read here
            outcome = None
        if not isinstance(outcome, tuple) or not outcome:
            return self.read()
        if outcome[0] == "errors":
            raise ContractErrors(outcome[1], outcome[2])
        return outcome[1]
