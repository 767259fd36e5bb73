"""Progress on a terminal: each stage of a long run, with a count, on stderr.

A person who starts the gate on a million records at a terminal must see that it works and
how far it is; a CI log or a pipe must never receive a line of it. So a :class:`Progress`
exists only when stderr is a terminal (never on stdout, which carries the document), and it
speaks only in a run that lasts: once the run has taken :data:`AFTER_SECONDS`, or from the
start when the inputs are so large (:data:`EAGER_BYTES`) that the run will take longer than
that (loading them is the first stage, and a lone C-level decode gives no chance to speak in
the middle of it). Each stage is one line, ``proagents-bench: grading: 1,000,000 trials
(11.2 s)``, so a run writes a handful of lines, never a flood.
"""

from __future__ import annotations

import time
from typing import Callable, List, Optional

# Progress speaks once the run has taken this long, ...
AFTER_SECONDS = 2.0
# ... or from the start when the inputs are at least this large (about two seconds of this
# project's measured throughput: 27 MB decide in 1.8 s on its 2-core machine).
EAGER_BYTES = 32 * 1024 * 1024


def count_words(count: Optional[int], unit: str) -> str:
    """``268 MB``, ``12 KB``, ``512 bytes``, ``1,000,000 records``, or "".

    >>> count_words(281018368, "bytes"), count_words(1000000, "records")
    ('268 MB', '1,000,000 records')
    """
    if count is None:
        return ""
    if unit == "bytes":
        for size, name in ((1 << 30, "GB"), (1 << 20, "MB"), (1 << 10, "KB")):
            if count >= size:
                return "%.0f %s" % (count / size, name)
        return "%d bytes" % count
    return "{:,} {}".format(count, unit).strip()


class Progress:
    """The pipeline's ``progress(stage, count, unit)`` callback, writing through ``say``
    (the stderr writer's, one line per call) when the run has become long (see the module
    docstring). ``eager``: speak from the start."""

    def __init__(self, say: Callable[[List[str]], object], eager: bool = False,
                 clock: Callable[[], float] = time.monotonic) -> None:
        self.say = say
        self.eager = eager
        self.clock = clock
        self.started = clock()
        self.spoke = False

    def __call__(self, stage: str, count: Optional[int] = None, unit: str = "") -> None:
        elapsed = self.clock() - self.started
        if not (self.eager or elapsed >= AFTER_SECONDS):
            return
        words = count_words(count, unit)
        self.say(["proagents-bench: %s%s (%.1f s)" % (stage, ": " + words if words else "",
                                                     elapsed)])
        self.spoke = True

    def done(self, what: str) -> None:
        """The last line, once stdout is written, in a run that spoke before."""
        if self.spoke:
            self.say(["proagents-bench: %s (%.1f s)" % (what, self.clock() - self.started)])
