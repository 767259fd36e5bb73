"""Pausing CPython's cyclic garbage collector while millions of objects are made.

The collector would walk the loaded files again and again while they are built; none of
those objects form cycles. PyPy's collector copes, and slows down when told to stop, so it is
left alone there.
"""

from __future__ import annotations

import gc
import platform
from typing import TYPE_CHECKING, Optional, Type

if TYPE_CHECKING:  # for annotations only
    from types import TracebackType

_PAUSE = platform.python_implementation() == "CPython"


class CollectorPaused:
    """Context manager: no cyclic garbage collection inside (CPython only); on leaving, the
    objects made inside go straight to the oldest generation and collection resumes."""

    def __enter__(self) -> CollectorPaused:
        self.paused = _PAUSE and gc.isenabled()
        if self.paused:
            gc.disable()
        return self

    def __exit__(self, kind: Optional[Type[BaseException]], error: Optional[BaseException],
                 traceback: Optional[TracebackType]) -> None:
        if self.paused:
            # Hand the new objects straight to the oldest generation: the first collection
            # afterwards would traverse millions of young acyclic objects (1 s for 200 MB)
            # and soon trigger a full one. Not if anyone froze objects, to keep those frozen.
            if not gc.get_freeze_count():
                gc.freeze()
                gc.unfreeze()
            gc.enable()
