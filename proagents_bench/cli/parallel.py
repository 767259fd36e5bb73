"""Work in a forked process while this one does its own: the evidence fingerprint while the
pipeline grades, compares and decides (on a large package it is about a third of the work,
and a second core is usually idle); half of the packages of ``health`` (see
:func:`in_background`); the import's candidate log while the baseline's is read (see
:func:`forking_background`); and a release's benchmarks, each in its own process, as many
at once as there are cores (see :func:`forked_map`, at the end).

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
import selectors
import signal
import struct
import sys
import threading
from typing import Callable, Dict, List, Optional, Sequence

try:
    import fcntl
except ImportError:  # Windows: no fork either
    fcntl = None

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


def _forked(produce: Callable[[], object], wide: bool = False) -> Optional["_Child"]:
    """Run ``produce`` in a forked child, which writes the bytes it returns (one bytes-like
    object, or a list of them, written one after the other) to a pipe and ends (it takes no
    signal handler of the parent's: a Ctrl-C ends it at once); return the parent's side of
    it, or None when no pipe or no fork could be made (the caller then does the work
    itself). A child whose work fails ends with status 1. ``wide``: the pipe is widened
    where the platform allows (:data:`WIDE_PIPE_BYTES`), for children that write a lot."""
    try:
        read_end, write_end = os.pipe()
    except OSError:
        return None
    if wide:
        _widen(write_end)
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
            produced = produce()
            for piece in produced if isinstance(produced, list) else [produced]:
                data = memoryview(piece)
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
            succeeded = self.reap()
        return b"".join(chunks) if chunks is not None and succeeded else None

    def reap(self) -> bool:
        """Close the pipe and wait for the child (once): whether it ended with status 0."""
        pid, self.pid = self.pid, 0
        os.close(self.read_end)
        try:
            _pid, status = os.waitpid(pid, 0)
        except OSError:
            status = -1
        return status == 0

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


# -- a release's benchmarks ---------------------------------------------------------------------

def usable_cores() -> int:
    """The cores this process may run on (its CPU affinity where the platform says, else
    every core the machine has)."""
    if hasattr(os, "sched_getaffinity"):
        try:
            return max(len(os.sched_getaffinity(0)), 1)
        except OSError:
            pass
    return max(os.cpu_count() or 1, 1)


def can_fork() -> bool:
    """Whether work can go to forked children here: POSIX, and no other thread running."""
    return hasattr(os, "fork") and threading.active_count() == 1


# A pipe that carries a benchmark's decision (tens of megabytes) is widened to this, where
# the platform lets a process do so (Linux's F_SETPIPE_SZ, up to its pipe-max-size, 1 MiB by
# default): a sixteenth of the reads and wake-ups of the default 64 KiB.
WIDE_PIPE_BYTES = 1 << 20
_F_SETPIPE_SZ = getattr(fcntl, "F_SETPIPE_SZ", 1031) if fcntl is not None else None
# A child of forked_map first writes how many bytes follow.
_LENGTH = struct.Struct(">Q")
_READV = getattr(os, "readv", None)


def _widen(descriptor: int) -> None:
    """Widen a pipe on Linux; elsewhere, or when refused, it stays as it is."""
    if _F_SETPIPE_SZ is None or not sys.platform.startswith("linux"):
        return
    try:
        fcntl.fcntl(descriptor, _F_SETPIPE_SZ, WIDE_PIPE_BYTES)
    except OSError:
        pass


def forked_map(tasks: Sequence[Callable[[], List[bytes]]],
               workers: int) -> List[Optional[bytearray]]:
    """Run each task in a forked child, at most ``workers`` at once, and return what each
    returned (a list of bytes-like pieces), joined, in the tasks' order: None for a task
    whose child could not be forked or did not end well (its caller does that task itself,
    for the same bytes). A child first writes the length of what follows, and the parent
    reads it straight into one buffer of that size (no chunk is copied twice); every
    child's pipe is read as it writes (a child never waits on a full pipe while another is
    read), a new child starts as soon as one ends, and any child still running when this
    returns or raises (a signal) is ended."""
    results: List[Optional[bytearray]] = [None] * len(tasks)
    pending = list(range(len(tasks)))
    running: Dict[int, list] = {}  # read end -> [index, child, length, buffer, filled]
    selector = selectors.DefaultSelector()

    def framed(task: Callable[[], List[bytes]]) -> Callable[[], List[bytes]]:
        def produce() -> List[bytes]:
            pieces = task()
            return [_LENGTH.pack(sum(len(piece) for piece in pieces))] + pieces
        return produce

    try:
        while pending or running:
            while pending and len(running) < max(workers, 1):
                index = pending.pop(0)
                child = _forked(framed(tasks[index]), wide=True)
                if child is not None:
                    selector.register(child.read_end, selectors.EVENT_READ)
                    running[child.read_end] = [index, child, bytearray(), None, 0]
            if not running:
                continue
            for key, _events in selector.select():
                state = running[key.fd]
                try:
                    more = _read_framed(key.fd, state)
                except OSError:  # a broken pipe: its task is done by the caller
                    more, state[3] = False, None
                if more:
                    continue
                selector.unregister(key.fd)
                del running[key.fd]
                index, child, _head, buffer, filled = state
                if buffer is None or filled != len(buffer):
                    child.end()
                elif child.reap():
                    results[index] = buffer
    finally:
        for state in running.values():
            state[1].end()
        selector.close()
    return results


def _read_framed(descriptor: int, state: list) -> bool:
    """Read what is ready of a framed child's pipe into ``state`` ([index, child, the length
    prefix read so far, the buffer or None, bytes filled]); False at the end of the pipe."""
    if state[3] is None:
        chunk = os.read(descriptor, _LENGTH.size - len(state[2]))
        if not chunk:
            return False
        state[2] += chunk
        if len(state[2]) == _LENGTH.size:
            state[3] = bytearray(_LENGTH.unpack(bytes(state[2]))[0])
        return True
    view = memoryview(state[3])[state[4]:]
    if not view:  # everything announced is here: the end should follow
        return bool(os.read(descriptor, 1)) and _overflow(state)
    count = _read_into(descriptor, view)
    state[4] += count
    return count > 0


def _read_into(descriptor: int, view: memoryview) -> int:
    """Read what is ready into ``view``; how many bytes came (0: the end). ``os.readv``
    reads straight into it; where there is none (PyPy 3.9), a read and a copy."""
    if _READV is not None:
        return _READV(descriptor, [view])
    chunk = os.read(descriptor, min(len(view), WIDE_PIPE_BYTES))
    view[:len(chunk)] = chunk
    return len(chunk)


def _overflow(state: list) -> bool:
    """A child wrote more than it announced: what it wrote is not used."""
    state[3] = None
    return False
