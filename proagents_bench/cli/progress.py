"""Progress on a terminal: each stage of a long run, with a count, on stderr; inside a stage
that takes seconds, how far it is and about how long it has left.

A person who starts the gate on a million records at a terminal must see that it works and
how far it is; a CI log or a pipe must never receive a line of it. So a :class:`Progress`
exists only when stderr is a terminal (never on stdout, which carries the document), and it
speaks only in a run that lasts: once the run has taken :data:`AFTER_SECONDS`, or from the
start when the inputs are so large (:data:`EAGER_BYTES`) that the run will take longer than
that. Each stage is one line, ``proagents-bench: grading: 1,000,000 trials (11.2 s)``, so a
run writes a handful of lines, never a flood.

Inside a stage whose loops count what they did (:mod:`proagents_bench.steps`: the check of
every record, the coverage pass, grading), once the stage has lasted
:data:`STAGE_SECONDS`, one more line below it is rewritten in place at most every
:data:`REFRESH_SECONDS`: ``proagents-bench: grading: 45%, about 6 s left``; the next line
written replaces it, so what stays on the screen is the stages' lines. A stage that cannot
count (loading a file: one C-level decode) gets an estimate instead, from the rate at which
this run did the same before (loaded the files before it): ``loading results: 132 MB, about
3 s``. Either estimate is what it says, about: it assumes the rest goes as fast as what was
measured.
"""

from __future__ import annotations

import time
from typing import Callable, Dict, List, Optional, Tuple

from ..steps import Advance

# Progress speaks once the run has taken this long, ...
AFTER_SECONDS = 2.0
# ... or from the start when the inputs are at least this large (about two seconds of this
# project's measured throughput: 27 MB decide in 1.8 s on its 2-core machine).
EAGER_BYTES = 32 * 1024 * 1024
# Inside a stage: its fraction and estimate once it has lasted this long, rewritten at most
# this often.
STAGE_SECONDS = 1.0
REFRESH_SECONDS = 0.5
# A stage's rate counts toward an estimate of the next stage of its unit only when it moved
# at least this much (a tiny file's load says nothing of a large one's).
MIN_RATED = {"bytes": 1 << 20}


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


def seconds_words(seconds: float) -> str:
    """``about 3 s``, ``about 2 min``: an estimate, rounded as one.

    >>> seconds_words(2.4), seconds_words(0.2), seconds_words(150)
    ('about 3 s', 'about 1 s', 'about 3 min')
    """
    if seconds >= 90:
        return "about %d min" % int(seconds / 60 + 0.5)
    return "about %d s" % max(int(seconds + 0.99), 1)


class Progress:
    """The pipeline's ``progress(stage, count, unit, work)`` callback, writing through
    ``say`` (the stderr writer's, one line per call) when the run has become long (see the
    module docstring), and through ``status`` (a line rewritten in place; None: no such
    line) how far a counting stage is. ``eager``: speak from the start. A stage's ``work``
    is how many items its loops count (none: a stage that cannot count, estimated from the
    rate of the stages of its unit before); the call returns the ``advance`` its loops
    tell, or None when it has nothing to count."""

    def __init__(self, say: Callable[[List[str]], object], eager: bool = False,
                 clock: Callable[[], float] = time.monotonic,
                 status: Optional[Callable[[str], object]] = None) -> None:
        self.say = say
        self.eager = eager
        self.clock = clock
        self.status = status
        self.started = clock()
        self.spoke = False
        self.stage = ""
        self.stage_started = self.started
        self.unit = ""
        self.count: Optional[int] = None
        self.work = 0
        self.done_work = 0
        self.counting: Optional[Tuple[float, int]] = None  # (when, done) the first count came
        self.shown = self.started
        # Units a second of the stages before, by what they do (the stage's first word:
        # "loading"), for the estimate of a stage that cannot count.
        self.rates: Dict[str, float] = {}

    def __call__(self, stage: str, count: Optional[int] = None, unit: str = "",
                 work: Optional[int] = None) -> Optional[Advance]:
        now = self.clock()
        self._rate(now)
        elapsed = now - self.started
        self.stage, self.stage_started, self.unit, self.count = stage, now, unit, count
        self.work = work or 0
        self.done_work = 0
        self.counting = None
        self.shown = now
        if self.eager or elapsed >= AFTER_SECONDS:
            words = count_words(count, unit)
            rate = self.rates.get(self._kind())
            if words and rate and not self.work:
                words += ", " + seconds_words((count or 0) / rate)
            self.say(["proagents-bench: %s%s (%.1f s)" % (stage, ": " + words if words else "",
                                                         elapsed)])
            self.spoke = True
        return self.advance if self.work and self.status is not None else None

    def advance(self, count: int) -> None:
        """``count`` more items of the current stage are done: rewrite the status line with
        the fraction and the time left, when the stage has lasted and the last rewrite is
        old enough."""
        self.done_work += count
        now = self.clock()
        if self.counting is None:
            self.counting = (now, self.done_work)  # the rate is measured from here
        if (now - self.stage_started < STAGE_SECONDS or now - self.shown < REFRESH_SECONDS
                or self.status is None or not self.work):
            return
        if not (self.eager or now - self.started >= AFTER_SECONDS):
            return
        self.shown = now
        done = min(self.done_work, self.work)
        since, first = self.counting
        left = ((now - since) * (self.work - done) / (done - first)
                if first < done < self.work and now > since else None)
        self.status("proagents-bench: %s: %d%%%s" % (
            self.stage, 100 * done // self.work,
            ", " + seconds_words(left) + " left" if left is not None else ""))

    def _kind(self) -> str:
        """What the current stage does, for its rate: the first word of its name and its
        unit (``loading bytes``)."""
        return "%s %s" % (self.stage.partition(" ")[0], self.unit)

    def _rate(self, now: float) -> None:
        """Keep the rate of the stage that ends now, for the estimates of later ones."""
        took = now - self.stage_started
        if self.count and took > 0 and self.count >= MIN_RATED.get(self.unit, 1):
            self.rates[self._kind()] = self.count / took

    def done(self, what: str) -> None:
        """The last line, once stdout is written, in a run that spoke before."""
        if self.spoke:
            self.say(["proagents-bench: %s (%.1f s)" % (what, self.clock() - self.started)])
