"""Submission budgets: N scored submissions per rolling window, written ``N/WINDOW``
(``3/24h``, ``10/7d``, ``1/30m``, ``5/3600s``).

The window rolls: at time ``now`` a team has spent the scored submissions received after
``now - window``. When it has spent all N, the next one is refused until the oldest of those
leaves the window, which is what ``Retry-After`` says (whole seconds, rounded up).
"""

from __future__ import annotations

import math
import re
from typing import Sequence, Tuple

UNITS = {"s": 1, "m": 60, "h": 3600, "d": 86400}
_BUDGET = re.compile(r"([0-9]{1,6})/([0-9]{1,6})([smhd])\Z")
MAX_WINDOW_SECONDS = 366 * 86400


class BudgetError(ValueError):
    """A budget that is not ``N/WINDOW``; the message says what is expected."""


def parse(text: str) -> Tuple[int, int]:
    """(count, window in seconds) of ``N/WINDOW``.

    >>> parse("3/24h")
    (3, 86400)
    """
    match = _BUDGET.match(text.strip())
    if not match:
        raise BudgetError("a budget is N/WINDOW, such as 3/24h (units s, m, h, d), not %r"
                          % text)
    count = int(match.group(1))
    window = int(match.group(2)) * UNITS[match.group(3)]
    if window < 1 or window > MAX_WINDOW_SECONDS:
        raise BudgetError("a budget's window is 1 second to 366 days, not %r" % text)
    return count, window


def describe(count: int, window_seconds: int) -> str:
    """``N/WINDOW`` in the largest unit that divides the window.

    >>> describe(3, 86400), describe(2, 90)
    ('3/24h', '2/90s')
    """
    for unit in ("d", "h", "m"):
        if window_seconds % UNITS[unit] == 0 and not (unit == "d" and window_seconds < 172800):
            return "%d/%d%s" % (count, window_seconds // UNITS[unit], unit)
    return "%d/%ds" % (count, window_seconds)


def retry_after(counted_times: Sequence[float], window_seconds: int, now: float) -> int:
    """Whole seconds until the oldest counted submission leaves the window (at least 1)."""
    oldest = min(counted_times)
    return max(1, int(math.ceil(oldest + window_seconds - now)))
