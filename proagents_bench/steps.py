"""How far a long stage is: the loops that take seconds on a large package (the check of every
record, the coverage pass, grading) count what they have done, and whoever watches hears it
(the command line's progress, on a terminal only).

The count travels in a context variable, not as an argument through every shape and rule:
no check's signature changes, and where nobody watches (the suite, the service, a pipe) a
loop pays one lookup per :data:`BATCH` items. A watcher is told how many more items were
done (``advance(count)``), never the data; what it prints is the command line's business.
"""

from __future__ import annotations

from contextlib import contextmanager
from contextvars import ContextVar
from typing import Callable, Iterator, Optional

# advance(count): ``count`` more items of the current stage are done.
Advance = Callable[[int], None]

# A counting loop tells its watcher every this many items (a few milliseconds of work).
BATCH = 1 << 15

_WATCHER: ContextVar[Optional[Advance]] = ContextVar("proagents_bench_steps", default=None)


@contextmanager
def watched(advance: Optional[Advance]) -> Iterator[None]:
    """Within the block, every counting loop tells ``advance`` (None: nobody)."""
    token = _WATCHER.set(advance)
    try:
        yield
    finally:
        _WATCHER.reset(token)


def watcher() -> Optional[Advance]:
    """The ``advance`` of the block that watches, or None."""
    return _WATCHER.get()
