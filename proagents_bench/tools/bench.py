"""The gate's benchmark: the gate against a bare ``json.load`` of the same files.

``python -B run_benchmark.py bench gate --tasks 10000 --trials 5 --samples 10000`` generates a
valid synthetic package (:func:`proagents_bench.tools.synthetic.make_package`: the same bytes
for the same arguments on every Python), writes its three files to a temporary folder, then
runs, each in a fresh child process of the same interpreter and one after the other:

- the gate, exactly as a user runs it (``python -B -m proagents_bench --spec ... --cases ...
  --results ...``, its JSON document written to a file), and
- a bare ``json.load`` of the same three files, keeping all three values, as the floor that
  any reader of these files pays (the gate keeps them too), and
- a bare ``json.load`` that drops each value at once: less work for the garbage collector and
  nothing left to free at exit, so about a third faster, and the stricter yardstick;

and prints the wall-clock time of each (interpreter start to exit), their ratio, and the peak
resident memory of each child, taken from the kernel's accounting of that child alone
(``os.wait4``, the per-child form of ``getrusage(RUSAGE_CHILDREN)``; Unix only: elsewhere the
memory columns say so). Last, it times the paired bootstrap alone, in this process, on the
package's real task differences (read back from the gate's document).

``--repeat N`` runs each child N times and reports the median (the machines this runs on are
often shared); ``--python EXE`` runs the children under another interpreter (``pypy3``);
``--keep DIR`` writes the package and the gate's document to DIR and leaves them there;
``--write DIR`` only writes the package, for pointing your own pipeline (or a profiler) at it;
``--reports`` also times the gate writing all three reports. Nothing here is a test: the unit
tests only check that the command runs. Results go to a ``say`` callback: the command line
prints them.
"""

from __future__ import annotations

import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from fractions import Fraction
from typing import TYPE_CHECKING, Callable, Dict, List, Optional, Sequence, Tuple

from ..stats.bootstrap import paired_interval, task_clusters
from .synthetic import make_package

if TYPE_CHECKING:  # for annotations only
    import argparse
    from resource import struct_rusage  # POSIX only

PACKAGE_ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
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


# The end of a bare read script (``import_bench``, ``harness_bench``): the baseline's logs
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
        [PACKAGE_ROOT] + [p for p in [environment.get("PYTHONPATH")] if p])
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


def describe_interpreter(python: str) -> str:
    """'CPython 3.11.7 on Linux x86_64', say, for the interpreter ``python``."""
    query = ("import platform; print(platform.python_implementation(), "
             "platform.python_version(), 'on', platform.system(), platform.machine())")
    try:
        found = subprocess.run([python, "-c", query], stdout=subprocess.PIPE,
                               stdin=subprocess.DEVNULL, timeout=60)
    except (OSError, subprocess.SubprocessError) as problem:
        return "unknown: %s" % problem
    return found.stdout.decode("utf-8", "replace").strip() or "unknown"


def median_run(runs: Sequence["Run"]) -> "Run":
    peaks = [run.peak for run in runs if run.peak is not None]
    cpus = [run.cpu for run in runs if run.cpu is not None]
    return Run(statistics.median(run.seconds for run in runs),
               statistics.median(peaks) if peaks else None, runs[-1].status,
               statistics.median(cpus) if cpus else None)


def time_bootstrap(document_path: str, samples: int, seed: int, confidence: Fraction,
                   repeat: int = 3) -> Tuple[int, float]:
    """(task count, seconds of the fastest of ``repeat`` bootstraps) on the document's tasks."""
    with open(document_path, "rb") as handle:
        document = json.load(handle)
    passes = {}
    for role in ("baseline", "candidate"):
        passes[role] = [1 if task["task_pass"] else 0
                        for task in document[role + "_metrics"]["task_results"]]
    differences = [c - b for c, b in zip(passes["candidate"], passes["baseline"])]
    clusters = task_clusters(differences)
    timings = []
    for _ in range(repeat):
        started = time.perf_counter()
        paired_interval(clusters, samples, seed, confidence)
        timings.append(time.perf_counter() - started)
    return len(differences), min(timings)


def megabytes(value: Optional[float]) -> str:
    """A peak memory for the report, or why there is none."""
    return "%.0f MB" % (value / 1e6) if value is not None else "not measured on this platform"


def gate_benchmark(options: argparse.Namespace, say: Callable[[str], None]) -> bool:
    """Run the gate benchmark with ``options`` (tasks, trials, samples, seed, repeat, python,
    keep, write, reports: the command line's ``bench gate``), telling each result line to
    ``say``; return True when every child ran."""
    if options.write:
        started = time.perf_counter()
        paths = write_package(options.write, options.tasks, options.trials, options.samples,
                              options.seed)
        say("wrote %s (%.1f s)" % (", ".join(paths[kind] for kind in FILES),
                                   time.perf_counter() - started))
        return True
    with tempfile.TemporaryDirectory(prefix="proagents-bench-") as scratch:
        folder = options.keep or scratch
        started = time.perf_counter()
        paths = write_package(folder, options.tasks, options.trials, options.samples,
                              options.seed)
        size = sum(os.path.getsize(paths[kind]) for kind in FILES)
        records = 2 * options.tasks * options.trials
        say("package: %d tasks x %d trials x 2 systems = %d records, %d bootstrap samples; "
            "%.1f MB in 3 files (generated in %.1f s)" % (
                options.tasks, options.trials, records, options.samples, size / 1e6,
                time.perf_counter() - started))
        say("interpreter: %s (%s)" % (options.python, describe_interpreter(options.python)))
        document = os.path.join(folder, "decision.json")
        gate_command = [options.python, "-B", "-m", "proagents_bench",
                        "--spec", paths["spec"], "--cases", paths["cases"],
                        "--results", paths["results"]]
        load_command = [options.python, "-B", "-c", JSON_LOAD_SCRIPT] + [
            paths[kind] for kind in FILES]
        dropped_command = [options.python, "-B", "-c", JSON_LOAD_DROPPED_SCRIPT] + [
            paths[kind] for kind in FILES]
        report_command = gate_command + [
            "--html", os.path.join(folder, "report.html"),
            "--markdown", os.path.join(folder, "summary.md"),
            "--junit-xml", os.path.join(folder, "junit.xml")]
        gate_runs, load_runs, dropped_runs, report_runs = [], [], [], []
        for _ in range(max(options.repeat, 1)):
            gate_runs.append(run_child(gate_command, document))
            load_runs.append(run_child(load_command))
            dropped_runs.append(run_child(dropped_command))
            if options.reports:
                report_runs.append(run_child(report_command, document))
        gate, load = median_run(gate_runs), median_run(load_runs)
        dropped = median_run(dropped_runs)
        if gate.status not in (0, 1) or load.status != 0 or dropped.status != 0:
            say("a child failed: gate exit %s, json.load exit %s and %s" % (
                gate.status, load.status, dropped.status))
            return False
        label = "median of %d" % len(gate_runs) if len(gate_runs) > 1 else "one run"
        say("gate (python -B -m proagents_bench):  %7.2f s   peak %s   (exit %d; %s)" % (
            gate.seconds, megabytes(gate.peak), gate.status, label))
        say("bare json.load of the same files:      %7.2f s   peak %s" % (
            load.seconds, megabytes(load.peak)))
        memory = (" and %.2fx the peak memory" % (gate.peak / load.peak)
                  if gate.peak and load.peak else "")
        say("ratio: the gate takes %.2fx the time of json.load%s" % (
            gate.seconds / load.seconds, memory))
        say("bare json.load, each value dropped:    %7.2f s   peak %s   (the gate takes %.2fx "
            "its time)" % (dropped.seconds, megabytes(dropped.peak),
                           gate.seconds / dropped.seconds))
        if report_runs:
            reports = median_run(report_runs)
            say("gate with --html, --markdown and --junit-xml: %7.2f s   peak %s   (%.2fx the "
                "plain gate's time%s)" % (
                    reports.seconds, megabytes(reports.peak), reports.seconds / gate.seconds,
                    " and %.2fx its peak memory" % (reports.peak / gate.peak)
                    if reports.peak and gate.peak else ""))
        tasks, seconds = time_bootstrap(document, options.samples, options.seed,
                                        Fraction(95, 100))
        say("bootstrap alone (%d tasks, %d samples, multinomial, in this process): %.3f s "
            "(fastest of 3)" % (tasks, options.samples, seconds))
        if options.keep:
            say("kept the package and the gate's document in %s" % options.keep)
    return True
