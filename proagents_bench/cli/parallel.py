"""Work in forked processes while this one does its own, for the commands besides the gate:
half of the packages of ``health`` (see :func:`in_background`); the import's candidate log
while the baseline's is read (see :func:`forking_background`); and a release's benchmarks,
each in its own process, as many at once as there are cores (see :func:`forked_map`, at the
end). The fork itself, and the gate's fingerprint child, are :mod:`.fork`'s.

As there: only the command line does this, on POSIX, with ``os.fork``, in a process with no
other thread; whenever anything goes wrong with a child, its work is done in this process,
for the same result.
"""

from __future__ import annotations

import os
import pickle
import selectors
import struct
from typing import (TYPE_CHECKING, Callable, Dict, Generic, List, Optional, Sequence, Tuple,
                    TypeVar)

from ..errors import ContractErrors
from ..jsonio.gcpause import CollectorPaused
from .fork import FORK_INPUT_BYTES, WIDE_PIPE_BYTES, Child, can_fork, forked

if TYPE_CHECKING:  # for annotations only
    from ..importers.package import ImportedSystem
    from ..jsonio import BytesLike
    from ..maintenance.health import Reading

    # Reads a log: what the import's background runs.
    Read = Callable[[], ImportedSystem]
    # Reads the second half of health's packages.
    ReadPackages = Callable[[], List[Reading]]

# What a read in a child gives back (a log's system, health's readings).
_Outcome = TypeVar("_Outcome")


# -- health's second half of the packages -----------------------------------------------------


def in_background(input_bytes: int, threshold: int = FORK_INPUT_BYTES
                  ) -> Callable[[ReadPackages], ReadPackages]:
    """A ``background`` for :func:`proagents_bench.maintenance.health.measure`: the second
    half of the packages read in a forked process while this one reads the first (reading is
    bound by decoding and checking JSON, one core per process), when the packages are large
    enough and the platform allows; else read here. Its outcome comes back pickled, as the
    import's candidate log does (:func:`forking_background`)."""
    if input_bytes < threshold or not can_fork():
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
    # Imported here: health and the release import this module too, and need no importer (a
    # run compiles every module it imports when no bytecode is cached).
    from ..importers.package import run_here
    if log_bytes < threshold or not can_fork():
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

    child = forked(produce)
    if child is None:
        return read
    return _Reading(child, read)


class _Reading(Generic[_Outcome]):
    """The parent's side: the child's outcome (the log read, or its contract errors); read
    here instead if the child failed. Either way the same result."""

    def __init__(self, child: Child, read: Callable[[], _Outcome]) -> None:
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


# A child of forked_map first writes how many bytes follow.
_LENGTH = struct.Struct(">Q")
_READV: Optional[Callable[[int, Sequence[memoryview]], int]] = getattr(os, "readv", None)


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
                child = forked(framed(tasks[index]), wide=True)
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

    def __init__(self, index: int, child: Child) -> None:
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
