"""Run the gate as a process with a fault injected at a chosen point (for the tests only).

    python -B tests/fault_driver.py POINT N SIGNAL -- GATE ARGUMENTS...

sends SIGNAL (INT or TERM) to this very process just before the N-th call of POINT:
``write`` (os.write: the document going to stdout, here in chunks of 32 KB instead of 1 MB,
so that a small document takes many writes), ``replace`` (os.replace: a report being
published), ``fsync`` (a report's temporary file being flushed) or ``evaluate`` (the pipeline).
Python runs the handler as soon as the call returns, so the signal lands exactly there. Then
the gate runs as ``run_benchmark.py`` does and exits with its status. N = 0 sends nothing and
counts: the last line on stderr is then ``calls: C``, the number of calls of POINT the whole
run made (so that a test can aim at the first, a middle and the last one).
"""

import os
import signal
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, ROOT)

from proagents_bench import cli, pipeline  # noqa: E402  (needs the path above)
from proagents_bench.render import document as render  # noqa: E402

POINTS = {"write": (os, "write"), "replace": (os, "replace"), "fsync": (os, "fsync"),
          "evaluate": (pipeline, "evaluate")}


def inject(point, count, number):
    owner, name = POINTS[point]
    real = getattr(owner, name)
    calls = [0]

    def patched(*args, **kwargs):
        calls[0] += 1
        if calls[0] == count:
            os.kill(os.getpid(), number)
        return real(*args, **kwargs)

    setattr(owner, name, patched)
    if count == 0:  # the gate ends with os._exit, after flushing stderr: say the count there
        end = os._exit

        def exit_saying_count(status):
            sys.stderr.write("calls: %d\n" % calls[0])
            sys.stderr.flush()
            end(status)

        os._exit = exit_saying_count


def main():
    point, count, name = sys.argv[1], int(sys.argv[2]), sys.argv[3]
    if sys.argv[4] != "--":
        raise SystemExit("usage: fault_driver.py POINT N SIGNAL -- ARGS...")
    inject(point, count, getattr(signal, "SIG" + name))
    render.CHUNK_CHARACTERS = 1 << 15
    sys.argv = [sys.argv[0]] + sys.argv[5:]
    cli.run()


if __name__ == "__main__":
    main()
