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
from typing import (TYPE_CHECKING, Callable, Dict, Generic, List, Optional, Sequence, Tuple,
                    TypeVar, Union)

try:
    import fcntl
except ImportError:  # Windows: no fork either
    _F_SETPIPE_SZ: Optional[int] = None
else:  # Linux's F_SETPIPE_SZ (named by the module since Python 3.10; 1031 before)
    _F_SETPIPE_SZ = getattr(fcntl, "F_SETPIPE_SZ", 1031)

from ..errors import ContractErrors
from ..jsonio.gcpause import CollectorPaused
from ..pipeline import PendingFingerprint, fingerprint_here

if TYPE_CHECKING:  # for annotations only
    from decimal import Decimal

    from ..importers.package import ImportedSystem
    from ..jsonio import BytesLike, JSONObject
    from ..pipeline import Fingerprinter

    # What a fingerprint is made of: spec, cases, results, the candidate's id, the Decimals.
    FingerprintArguments = Tuple[JSONObject, JSONObject, JSONObject, str,
                                 Optional[List[Decimal]]]
    from ..maintenance.health import Reading

    # Reads a log: what the import's background runs.
    Read = Callable[[], ImportedSystem]
    # Reads the second half of health's packages.
    ReadPackages = Callable[[], List[Reading]]

# What a read in a child gives back (a log's system, health's readings).
_Outcome = TypeVar("_Outcome")

# Inputs smaller than this (the three files' bytes together) are fingerprinted in process.
FORK_INPUT_BYTES = 8 << 20

# "sha256:" and 64 hex digits.
_FINGERPRINT_CHARS = 71


def forking_fingerprinter(input_bytes: int) -> Fingerprinter:
    """A ``fingerprinter`` for :func:`proagents_bench.pipeline.evaluate`: forked when the
    inputs are large enough and the platform allows, else the pipeline's own."""
    if (input_bytes < FORK_INPUT_BYTES or not hasattr(os, "fork")
            or threading.active_count() != 1):
        return fingerprint_here
    return _start_in_child


def _forked(produce: Callable[[], Union[BytesLike, List[BytesLike]]],
            wide: bool = False) -> Optional[_Child]:
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
        chunks: List[bytes] = []
        failed = False
        received = 0
        try:
            while limit is None or received <= limit:
                chunk = os.read(self.read_end, 1 << 20)
                if not chunk:
                    break
                chunks.append(chunk)
                received += len(chunk)
        except OSError:
            failed = True
        finally:
            succeeded = self.reap()
        return b"".join(chunks) if not failed and succeeded else None

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

    def __del__(self) -> None:  # the last resort, for a run stopped in between (a signal)
        self.end()


def _start_in_child(spec: JSONObject, cases: JSONObject, results: JSONObject,
                    candidate_id: str, decimals: Optional[List[Decimal]]) -> PendingFingerprint:
    arguments: FingerprintArguments = (spec, cases, results, candidate_id, decimals)
    child = _forked(lambda: fingerprint_here(*arguments)().encode("ascii"))
    if child is None:
        return fingerprint_here(*arguments)
    return _Result(child, arguments)


class _Result(PendingFingerprint):
    """The parent's side: the fingerprint, once the child has written it (or computed here
    if the child failed); the child is ended at once when the run abandons it."""

    def __init__(self, child: _Child, arguments: FingerprintArguments) -> None:
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


def in_background(input_bytes: int, threshold: int = FORK_INPUT_BYTES
                  ) -> Callable[[ReadPackages], ReadPackages]:
    """A ``background`` for :func:`proagents_bench.maintenance.health.measure`: the second
    half of the packages read in a forked process while this one reads the first (reading is
    bound by decoding and checking JSON, one core per process), when the packages are large
    enough and the platform allows; else read here. Its outcome comes back pickled, as the
    import's candidate log does (:func:`forking_background`)."""
    if input_bytes < threshold or not hasattr(os, "fork") or threading.active_count() != 1:
        return _here
    return _read_in_child


def _here(read: ReadPackages) -> ReadPackages:
    return read


# -- the import's second log ------------------------------------------------------------------

# A baseline log smaller than this is imported with its candidate in this process.
FORK_LOG_BYTES = 16 << 20


def forking_background(log_bytes: int,
                       threshold: int = FORK_LOG_BYTES) -> Callable[[Read], Read]:
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


def _read_in_child(read: Callable[[], _Outcome]) -> Callable[[], _Outcome]:
    def produce() -> bytes:
        outcome: Tuple[object, ...]
        try:
            outcome = ("read", read())
        except ContractErrors as failure:
            outcome = ("errors", failure.errors, failure.omitted)
        return pickle.dumps(outcome, pickle.HIGHEST_PROTOCOL)

    child = _forked(produce)
    if child is None:
        return read
    return _Reading(child, read)


class _Reading(Generic[_Outcome]):
    """The parent's side: the child's outcome (the log read, or its contract errors); read
    here instead if the child failed. Either way the same result."""

    def __init__(self, child: _Child, read: Callable[[], _Outcome]) -> None:
        self.child = child
        self.read = read

    def __call__(self) -> _Outcome:
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
        read: _Outcome = outcome[1]  # what the child's read() returned
        return read


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
# A child of forked_map first writes how many bytes follow.
_LENGTH = struct.Struct(">Q")
_READV: Optional[Callable[[int, Sequence[memoryview]], int]] = getattr(os, "readv", None)


def _widen(descriptor: int) -> None:
    """Widen a pipe on Linux; elsewhere, or when refused, it stays as it is."""
    if _F_SETPIPE_SZ is None or not sys.platform.startswith("linux"):
        return
    try:
        fcntl.fcntl(descriptor, _F_SETPIPE_SZ, WIDE_PIPE_BYTES)
    except OSError:
        pass


def forked_map(tasks: Sequence[Callable[[], List[BytesLike]]],
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
    running: Dict[int, _Framed] = {}  # by the child's read end
    selector = selectors.DefaultSelector()

    def framed(task: Callable[[], List[BytesLike]]) -> Callable[[], List[BytesLike]]:
        def produce() -> List[BytesLike]:
            pieces = task()
            head: List[BytesLike] = [_LENGTH.pack(sum(len(piece) for piece in pieces))]
            return head + pieces
        return produce

    try:
        while pending or running:
            while pending and len(running) < max(workers, 1):
                index = pending.pop(0)
                child = _forked(framed(tasks[index]), wide=True)
                if child is not None:
                    selector.register(child.read_end, selectors.EVENT_READ)
                    running[child.read_end] = _Framed(index, child)
            if not running:
                continue
            for key, _events in selector.select():
                state = running[key.fd]
                try:
                    more = _read_framed(key.fd, state)
                except OSError:  # a broken pipe: its task is done by the caller
                    more, state.buffer = False, None
                if more:
                    continue
                selector.unregister(key.fd)
                del running[key.fd]
                buffer, child = state.buffer, state.child
                if buffer is None or state.filled != len(buffer):
                    child.end()
                elif child.reap():
                    results[state.index] = buffer
    finally:
        for state in running.values():
            state.child.end()
        selector.close()
    return results


class _Framed:
    """A running child of :func:`forked_map`: its task's ``index``, the ``child``, the
    length prefix read so far (``head``), the ``buffer`` of the announced length (None until
    the prefix is read, or after the child wrote too much) and the bytes ``filled`` in it."""

    __slots__ = ("index", "child", "head", "buffer", "filled")

    def __init__(self, index: int, child: _Child) -> None:
        self.index = index
        self.child = child
        self.head = bytearray()
        self.buffer: Optional[bytearray] = None
        self.filled = 0


def _read_framed(descriptor: int, state: _Framed) -> bool:
    """Read what is ready of a framed child's pipe into ``state``; False at the end of the
    pipe."""
    if state.buffer is None:
        chunk = os.read(descriptor, _LENGTH.size - len(state.head))
        if not chunk:
            return False
        state.head += chunk
        if len(state.head) == _LENGTH.size:
            length: int = _LENGTH.unpack(bytes(state.head))[0]
            state.buffer = bytearray(length)
        return True
    view = memoryview(state.buffer)[state.filled:]
    if not view:  # everything announced is here: the end should follow
        return bool(os.read(descriptor, 1)) and _overflow(state)
    count = _read_into(descriptor, view)
    state.filled += count
    return count > 0


def _read_into(descriptor: int, view: memoryview) -> int:
    """Read what is ready into ``view``; how many bytes came (0: the end). ``os.readv``
    reads straight into it; where there is none (PyPy 3.9), a read and a copy."""
    if _READV is not None:
        return _READV(descriptor, [view])
    chunk = os.read(descriptor, min(len(view), WIDE_PIPE_BYTES))
    view[:len(chunk)] = chunk
    return len(chunk)


def _overflow(state: _Framed) -> bool:
    """A child wrote more than it announced: what it wrote is not used."""
    state.buffer = None
    return False
