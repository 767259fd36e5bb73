"""The gate's benchmark: the gate against a bare ``json.load`` of the same files.

``python -B -m devtools bench gate --tasks 10000 --trials 5 --samples 10000`` generates a
valid synthetic package (:func:`devtools.synthetic.make_package`: the same bytes for the same
arguments on every Python), writes its three files to a temporary folder, then times, each
in a fresh child process of the same interpreter (:mod:`.timing`):

- the gate, exactly as a user runs it (``python -B -m proagents_bench --spec ... --cases ...
  --results ...``, its JSON document written to a file), and
- a bare ``json.load`` of the same three files, keeping all three values, as the floor that
  any reader of these files pays (the gate keeps them too), and
- a bare ``json.load`` that drops each value at once: less work for the garbage collector and
  nothing left to free at exit, so about a third faster, and the stricter yardstick;

and prints the wall-clock time of each, their ratio, and the peak resident memory of each.
Last, it times the paired bootstrap alone, in this process, on the package's real task
differences (read back from the gate's document).

``--repeat N`` reports medians of N runs (the machines this runs on are often shared);
``--python EXE`` runs the children under another interpreter (``pypy3``); ``--keep DIR``
writes the package and the gate's document to DIR and leaves them there; ``--write DIR``
only writes the package, for pointing your own pipeline (or a profiler) at it; ``--reports``
also times the gate writing all three reports. Nothing here is a test: the unit tests only
check that the command runs. Results go to a ``say`` callback: the command line prints them.
"""

from __future__ import annotations

import json
import os
import time
from fractions import Fraction
from typing import TYPE_CHECKING, Callable, List, Tuple

from proagents_bench.stats.bootstrap import paired_interval, task_clusters

from .timing import (FILES, JSON_LOAD_DROPPED_SCRIPT, JSON_LOAD_SCRIPT, Child, failure,
                     generated, interpreter, peak_ratio, report_rows, rounds, time_children,
                     workspace, write_package, written_only)

if TYPE_CHECKING:  # for annotations only
    import argparse


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


def gate_benchmark(options: argparse.Namespace, say: Callable[[str], None]) -> bool:
    """Run the gate benchmark with ``options`` (tasks, trials, samples, seed, repeat, python,
    keep, write, reports: the command line's ``bench gate``), telling each result line to
    ``say``; return True when every child ran."""
    def write(folder: str) -> List[str]:
        paths = write_package(folder, options.tasks, options.trials, options.samples,
                              options.seed)
        return [paths[kind] for kind in FILES]

    what = "package: %d tasks x %d trials x 2 systems = %d records, %d bootstrap samples" % (
        options.tasks, options.trials, 2 * options.tasks * options.trials, options.samples)
    if written_only(options.write, write, what, say):
        return True
    with workspace(options.keep) as folder:
        files = generated(folder, write, what, say)
        spec, cases, results = files
        say(interpreter(options.python))
        document = os.path.join(folder, "decision.json")
        gate = [options.python, "-B", "-m", "proagents_bench", "--spec", spec, "--cases", cases,
                "--results", results]
        children = [
            Child("gate", gate, document, worked=(0, 1)),
            Child("json.load kept", [options.python, "-B", "-c", JSON_LOAD_SCRIPT] + files),
            Child("json.load dropped",
                  [options.python, "-B", "-c", JSON_LOAD_DROPPED_SCRIPT] + files)]
        if options.reports:
            children.append(Child("gate with reports", gate + [
                "--html", os.path.join(folder, "report.html"),
                "--markdown", os.path.join(folder, "summary.md"),
                "--junit-xml", os.path.join(folder, "junit.xml")], document, worked=(0, 1)))
        runs = time_children(children, options.repeat)
        failed = failure(children, runs)
        if failed is not None:
            say(failed)
            return False
        gated, load, dropped = runs[:3]
        rows = [("gate (python -B -m proagents_bench)", gated, "exit %d; %s" % (
                    gated.status, rounds(options.repeat))),
                ("bare json.load of the same files", load, ""),
                ("bare json.load, each value dropped", dropped, "the gate takes %.2fx its time"
                 % (gated.seconds / dropped.seconds))]
        if options.reports:
            reports = runs[3]
            rows.append(("gate with --html, --markdown and --junit-xml", reports,
                         "%.2fx the plain gate's time%s" % (
                             reports.seconds / gated.seconds,
                             peak_ratio(reports, gated, " and %.2fx its peak memory"))))
        for line in report_rows(rows):
            say(line)
        say("ratio: the gate takes %.2fx the time of json.load%s" % (
            gated.seconds / load.seconds, peak_ratio(gated, load, " and %.2fx the peak memory")))
        tasks, seconds = time_bootstrap(document, options.samples, options.seed,
                                        Fraction(95, 100))
        say("bootstrap alone (%d tasks, %d samples, multinomial, in this process): %.3f s "
            "(fastest of 3)" % (tasks, options.samples, seconds))
        if options.keep:
            say("kept the package and the gate's document in %s" % options.keep)
    return True
