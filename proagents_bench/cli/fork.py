"""A forked child, and the one the gate starts: the evidence fingerprint computed in a forked
process while this one validates, grades, compares and decides (on a large package it is
about a third of the work, and a second core is usually idle). The other commands' children
(health's packages, the import's second log, a release's benchmarks) are in
:mod:`.parallel`, which builds on :func:`forked`; the gate imports this module only.

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
import sys
import threading
from typing import TYPE_CHECKING, Callable, List, Optional, Tuple, Union

try:
    import fcntl
except ImportError:  # Windows: no fork either
    _F_SETPIPE_SZ: Optional[int] = None
else:  # Linux's F_SETPIPE_SZ (named by the module since Python 3.10; 1031 before)
    _F_SETPIPE_SZ = getattr(fcntl, "F_SETPIPE_SZ", 1031)

from ..pipeline import PendingFingerprint, fingerprint_here

if TYPE_CHECKING:  # for annotations only
    from decimal import Decimal

    from ..jsonio import BytesLike, JSONObject
    from ..pipeline import Fingerprinter

    # What a fingerprint is made of: spec, cases, results, the candidate's id, the Decimals.
    FingerprintArguments = Tuple[JSONObject, JSONObject, JSONObject, str,
                                 Optional[List[Decimal]]]

# Inputs smaller than this (the three files' bytes together) are fingerprinted in process.
FORK_INPUT_BYTES = 8 << 20

# "sha256:" and 64 hex digits.
_FINGERPRINT_CHARS = 71

# A pipe that carries a lot (a release's benchmark decision, tens of megabytes) is widened to
# this, where the platform lets a process do so (Linux's F_SETPIPE_SZ, up to its
# pipe-max-size, 1 MiB by default): a sixteenth of the reads and wake-ups of the default
# 64 KiB.
WIDE_PIPE_BYTES = 1 << 20


def can_fork() -> bool:
    """Whether work can go to forked children here: POSIX, and no other thread running."""
    return hasattr(os, "fork") and threading.active_count() == 1


def forking_fingerprinter(input_bytes: int) -> Fingerprinter:
    """A ``fingerprinter`` for :func:`proagents_bench.pipeline.evaluate`: forked when the
    inputs are large enough and the platform allows, else the pipeline's own."""
    if input_bytes < FORK_INPUT_BYTES or not can_fork():
        return fingerprint_here
    return _start_in_child


def forked(produce: Callable[[], Union[BytesLike, List[BytesLike]]],
           wide: bool = False) -> Optional[Child]:
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
        widen(write_end)
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
    return Child(child, read_end)


class Child:
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
    child = forked(lambda: fingerprint_here(*arguments)().encode("ascii"))
    if child is None:
        return fingerprint_here(*arguments)
    return _Result(child, arguments)


class _Result(PendingFingerprint):
    """The parent's side: the fingerprint, once the child has written it (or computed here
    if the child failed); the child is ended at once when the run abandons it."""

    def __init__(self, child: Child, arguments: FingerprintArguments) -> None:
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


def widen(descriptor: int) -> None:
    """Widen a pipe on Linux; elsewhere, or when refused, it stays as it is."""
    if _F_SETPIPE_SZ is None or not sys.platform.startswith("linux"):
        return
    try:
        fcntl.fcntl(descriptor, _F_SETPIPE_SZ, WIDE_PIPE_BYTES)
    except OSError:
        pass
