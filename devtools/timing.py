"""What every benchmark of :mod:`devtools.bench_command` shares: the synthetic package written
to files, the children timed whole (interpreter start to exit, each a fresh process of the
interpreter given), their medians, and the lines that report them.

A child's wall-clock time is measured around it; its peak resident memory and CPU seconds
come from the kernel's accounting of that child alone (``os.wait4``, the per-child form of
``getrusage(RUSAGE_CHILDREN)``; Unix only: elsewhere the memory columns say so). The children
of a benchmark run in rounds, each once per round (A B C A B C ...), so that a load that
comes and goes on a shared machine weighs on each alike; the report gives each one's median
(``--repeat N`` rounds). Nothing here is a test.
"""

from __future__ import annotations

import contextlib
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from typing import (TYPE_CHECKING, Callable, Dict, Iterator, List, NamedTuple, Optional,
                    Sequence, Tuple)

from . import ROOT
from .synthetic import make_package

if TYPE_CHECKING:  # for annotations only
    from resource import struct_rusage  # POSIX only

FILES = ("spec", "cases", "results")

# What the bare json.load child runs: read every file given, keep every value.
JSON_LOAD_SCRIPT = (
    "import json, sys\n"
    "values = []\n"
    "for path in sys.argv[1:]:\n"
    "    with open(path, 'rb') as handle:\n"
    "        values.append(json.load(handle))\n"
)
# The stricter floor: each value dropped as soon as it is read.
JSON_LOAD_DROPPED_SCRIPT = (
    "import json, sys\n"
    "for path in sys.argv[1:]:\n"
    "    with open(path, 'rb') as handle:\n"
    "        json.load(handle)\n"
)


# The end of a bare read script (``import_bench``, ``harness_logs``): the baseline's logs
# read here and the candidate's in a forked process when the import would fork too (the
# script defines ``read``, ``baseline``, ``candidate``, ``fork_bytes`` and ``log_bytes``, the
# baseline's size), never a child left running into the next timed one.
FORKED_READ = (
    "child = os.fork() if hasattr(os, 'fork') and log_bytes >= fork_bytes else None\n"
    "if child == 0:\n"
    "    status = 1\n"
    "    try:\n"
    "        read(candidate)\n"
    "        status = 0\n"
    "    except BaseException:\n"
    "        traceback.print_exc()\n"
    "    finally:\n"
    "        os._exit(status)\n"
    "try:\n"
    "    read(baseline)\n"
    "except BaseException:\n"
    "    if child:\n"
    "        os.kill(child, signal.SIGKILL)\n"
    "        os.waitpid(child, 0)\n"
    "    raise\n"
    "if child is None:\n"
    "    read(candidate)\n"
    "elif os.waitpid(child, 0)[1]:\n"
    "    sys.exit('the bare read of the candidate log failed')\n"
)


def write_package(directory: str, tasks: int, trials: int, samples: int,
                  seed: int) -> Dict[str, str]:
    """Write the synthetic package's three files to ``directory``; return their paths."""
    spec, cases, results = make_package(tasks, trial_count=trials, samples=samples, seed=seed)
    os.makedirs(directory, exist_ok=True)
    paths = {}
    for kind, value in zip(FILES, (spec, cases, results)):
        paths[kind] = os.path.join(directory, kind + ".json")
        with open(paths[kind], "w", encoding="utf-8") as handle:
            json.dump(value, handle)  # the compact form most tools write
    return paths


class Run:
    """One child's wall-clock seconds, peak resident bytes (None if unknown), status, and
    the CPU seconds (user and system) it and its own children used (None if unknown)."""

    def __init__(self, seconds: float, peak: Optional[float], status: int,
                 cpu: Optional[float] = None) -> None:
        self.seconds = seconds
        self.peak = peak
        self.status = status
        self.cpu = cpu


def _peak_bytes(usage: struct_rusage) -> int:
    # ru_maxrss is in kilobytes on Linux and the BSDs, in bytes on macOS.
    return usage.ru_maxrss * (1 if sys.platform == "darwin" else 1024)


def run_child(command: List[str], stdout_path: Optional[str] = None,
              stderr_path: Optional[str] = None) -> "Run":
    """Run ``command``; return its :class:`Run` (stderr is passed through, or written to
    ``stderr_path``)."""
    environment = dict(os.environ)
    environment["PYTHONPATH"] = os.pathsep.join(
        [ROOT] + [p for p in [environment.get("PYTHONPATH")] if p])
    written = open(stdout_path, "wb") if stdout_path else None
    output = written if written is not None else subprocess.DEVNULL
    errors = open(stderr_path, "wb") if stderr_path else None
    try:
        started = time.perf_counter()
        child = subprocess.Popen(command, stdout=output, stdin=subprocess.DEVNULL,
                                 stderr=errors, env=environment)
        if hasattr(os, "wait4"):
            # wait4 reports this child's own peak (RUSAGE_CHILDREN would be the largest of
            # every child so far).
            _pid, raw_status, usage = os.wait4(child.pid, 0)
            seconds = time.perf_counter() - started
            child.returncode = _exit_status(raw_status)
            return Run(seconds, _peak_bytes(usage), child.returncode,
                       usage.ru_utime + usage.ru_stime)
        status = child.wait()
        return Run(time.perf_counter() - started, None, status)
    finally:
        if written is not None:
            written.close()
        if errors is not None:
            errors.close()


def _exit_status(raw_status: int) -> int:
    if hasattr(os, "waitstatus_to_exitcode"):  # Python 3.9+
        return os.waitstatus_to_exitcode(raw_status)
    return raw_status >> 8  # pragma: no cover


def interpreter(python: str) -> str:
    """``interpreter: EXE (CPython 3.11.7 on Linux x86_64)``, say, for the interpreter
    ``python`` the children run under."""
    query = ("import platform; print(platform.python_implementation(), "
             "platform.python_version(), 'on', platform.system(), platform.machine())")
    try:
        found = subprocess.run([python, "-c", query], stdout=subprocess.PIPE,
                               stdin=subprocess.DEVNULL, timeout=60)
        described = found.stdout.decode("utf-8", "replace").strip() or "unknown"
    except (OSError, subprocess.SubprocessError) as problem:
        described = "unknown: %s" % problem
    return "interpreter: %s (%s)" % (python, described)


@contextlib.contextmanager
def workspace(keep: Optional[str]) -> Iterator[str]:
    """The folder a benchmark writes its files to: ``--keep``'s, left in place, else a
    temporary one, removed at the end."""
    if keep:
        yield keep
        return
    with tempfile.TemporaryDirectory(prefix="proagents-bench-") as scratch:
        yield scratch


def generated(folder: str, write: Callable[[str], Sequence[str]], what: str,
              say: Callable[[str], None]) -> List[str]:
    """The files ``write(folder)`` writes (their paths); ``say`` what they are (``what``),
    their size and how long they took."""
    started = time.perf_counter()
    files = list(write(folder))
    say("%s; %.1f MB in %d files (generated in %.1f s)" % (
        what, sum(map(os.path.getsize, files)) / 1e6, len(files), time.perf_counter() - started))
    return files


def written_only(folder: Optional[str], write: Callable[[str], Sequence[str]], what: str,
                 say: Callable[[str], None]) -> bool:
    """With ``--write DIR`` (``folder``): the files written there and said, nothing timed
    (True); without it, False."""
    if not folder:
        return False
    generated(folder, write, what, say)
    say("written to %s; nothing timed" % folder)
    return True


def median_run(runs: Sequence["Run"]) -> "Run":
    peaks = [run.peak for run in runs if run.peak is not None]
    cpus = [run.cpu for run in runs if run.cpu is not None]
    return Run(statistics.median(run.seconds for run in runs),
               statistics.median(peaks) if peaks else None, runs[-1].status,
               statistics.median(cpus) if cpus else None)


def megabytes(value: Optional[float]) -> str:
    """A peak memory for the report, or why there is none."""
    return "%.0f MB" % (value / 1e6) if value is not None else "not measured on this platform"


class Child(NamedTuple):
    """A child process a benchmark times: its ``name`` in the report, its ``command``, where
    its stdout goes (a file; else nowhere) and its stderr (a file; else passed through), and
    the exit statuses of a run that ``worked``."""
    name: str
    command: List[str]
    stdout: Optional[str] = None
    stderr: Optional[str] = None
    worked: Tuple[int, ...] = (0,)


def time_children(children: Sequence[Child], repeat: int,
                  after: Optional[Callable[[int, Child, Run], None]] = None) -> List[Run]:
    """The median :class:`Run` of each child, in order, over ``repeat`` rounds (at least
    one) that run every child once, one after another; ``after(round, child, run)`` is
    called after each run."""
    runs: List[List[Run]] = [[] for _ in children]
    for number in range(max(repeat, 1)):
        for child, found in zip(children, runs):
            found.append(run_child(child.command, child.stdout, child.stderr))
            if after is not None:
                after(number, child, found[-1])
    return [median_run(found) for found in runs]


def failure(children: Sequence[Child], runs: Sequence[Run]) -> Optional[str]:
    """``a child failed: gate exit 3, json.load kept exit 0, ...`` when a child's median run
    ended with a status of no run that worked, else None."""
    if all(run.status in child.worked for child, run in zip(children, runs)):
        return None
    return "a child failed: " + ", ".join("%s exit %s" % (child.name, run.status)
                                           for child, run in zip(children, runs))


def rounds(repeat: int) -> str:
    """What a reported time is: ``median of N`` runs, or ``one run``."""
    return "median of %d" % repeat if repeat > 1 else "one run"


def report_rows(rows: Sequence[Tuple[str, Run, str]], cpu: bool = False) -> List[str]:
    """One line per (label, run, note), the times aligned: ``LABEL:  12.34 s   peak 345 MB
    (note)``; with ``cpu``, the CPU seconds of the run and its own children too."""
    width = max(len(label) for label, _run, _note in rows) + 1
    return ["%-*s %7.2f s%s   peak %s%s" % (
        width, label + ":", run.seconds,
        "   CPU %s" % ("%6.2f s" % run.cpu if run.cpu is not None else "not measured")
        if cpu else "", megabytes(run.peak), "   (%s)" % note if note else "")
        for label, run, note in rows]


def peak_ratio(run: Run, other: Run, text: str) -> str:
    """``text % (run's peak / other's)`` (`` and %.2fx its peak memory``) where both peaks
    are measured, else ''."""
    return text % (run.peak / other.peak) if run.peak and other.peak else ""
