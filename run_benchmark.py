"""The release gate's command line: ``python -B run_benchmark.py [--spec F] [--cases F]
[--results F] [--candidate ID]``. Everything else lives in the ``proagents_bench`` package."""

from __future__ import annotations

import os
import signal
import sys

TYPE_CHECKING = False  # True for the type checker only: nothing else loads before the signals
if TYPE_CHECKING:
    from types import FrameType
    from typing import NoReturn, Optional


def _stop(number: int, frame: Optional[FrameType]) -> NoReturn:
    os._exit(128 + number)  # nothing is written yet: no output, no traceback


# Until the gate takes its signals over (its first step), Ctrl-C or SIGTERM ends the run.
for _number in (signal.SIGINT, getattr(signal, "SIGTERM", None)):
    if _number is not None:
        signal.signal(_number, _stop)

# Work from any directory: the package sits beside this file.
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from proagents_bench.cli import run  # noqa: E402  (needs the path above)

if __name__ == "__main__":
    run()
