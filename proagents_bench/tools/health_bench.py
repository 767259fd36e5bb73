"""The health command's benchmark: ``health`` over many packages against a bare ``json.load``
of the same files.

``python -B run_benchmark.py bench health --packages 20 --tasks 10000 --trials 5`` writes a
synthetic benchmark (:func:`proagents_bench.tools.synthetic.make_health_packages`: the same
bytes for the same arguments) to a temporary folder: a spec, a cases file and ``--packages``
results packages that share one baseline, each with its own candidate. Then it runs, each in
a fresh child process and one after the other (as :mod:`.bench` runs the gate's):

- ``health`` as a user runs it (``python -B -m proagents_bench health --spec ... --cases ...
  --results ...``, its JSON document written to a file);
- a bare ``json.load`` of the same files keeping every value, and one dropping each value as
  soon as it is read (the floor any reader of these files pays: ``health`` reads one package
  at a time and keeps a few numbers per task);

and prints the wall-clock time and peak memory of each (medians of ``--repeat`` runs), their
ratios, and whether every run of ``health`` wrote the same bytes. Nothing here is a test.
"""

from __future__ import annotations

import hashlib
import json
import os
import tempfile
import time
from typing import TYPE_CHECKING, Callable, Dict, List, TypedDict

from .bench import (JSON_LOAD_DROPPED_SCRIPT, JSON_LOAD_SCRIPT, describe_interpreter, megabytes,
                    median_run, run_child)
from .synthetic import make_health_packages

if TYPE_CHECKING:  # for annotations only
    import argparse


class Written(TypedDict):
    """The files :func:`write_benchmark` wrote: the spec, the cases, the packages."""
    spec: str
    cases: str
    packages: List[str]


def write_benchmark(directory: str, tasks: int, trials: int, packages: int,
                    seed: int) -> Written:
    """Write the spec, the cases and the packages to ``directory``; return their paths
    (``packages``: a list)."""
    spec, cases, made = make_health_packages(tasks, trials, packages, seed)
    os.makedirs(directory, exist_ok=True)
    paths: Dict[str, str] = {}
    for kind, value in (("spec", spec), ("cases", cases)):
        paths[kind] = os.path.join(directory, kind + ".json")
        with open(paths[kind], "w", encoding="utf-8") as handle:
            json.dump(value, handle)
    written: List[str] = []
    for number, value in enumerate(made, 1):
        written.append(os.path.join(directory, "results-%02d.json" % number))
        with open(written[-1], "w", encoding="utf-8") as handle:
            json.dump(value, handle)
    return {"spec": paths["spec"], "cases": paths["cases"], "packages": written}


def _digest(path: str) -> str:
    with open(path, "rb") as handle:
        return hashlib.sha256(handle.read()).hexdigest()


def health_benchmark(options: argparse.Namespace, say: Callable[[str], None]) -> bool:
    """Run the benchmark with ``options`` (packages, tasks, trials, seed, repeat, python, keep,
    write: the command line's ``bench health``), telling each result line to ``say``; return
    True when every child ran."""
    if options.write:
        started = time.perf_counter()
        paths = write_benchmark(options.write, options.tasks, options.trials, options.packages,
                                options.seed)
        say("wrote %s, %s and %d packages in %s (%.1f s)" % (
            paths["spec"], paths["cases"], len(paths["packages"]), options.write,
            time.perf_counter() - started))
        return True
    with tempfile.TemporaryDirectory(prefix="proagents-bench-") as scratch:
        folder = options.keep or scratch
        started = time.perf_counter()
        paths = write_benchmark(folder, options.tasks, options.trials, options.packages,
                                options.seed)
        files = [paths["spec"], paths["cases"]] + list(paths["packages"])
        size = sum(os.path.getsize(path) for path in files)
        records = options.packages * 2 * options.tasks * options.trials
        say("%d packages of %d tasks x %d trials x 2 systems (one baseline shared): %d records, "
            "%.1f MB in %d files (generated in %.1f s)" % (
                options.packages, options.tasks, options.trials, records, size / 1e6,
                len(files), time.perf_counter() - started))
        say("interpreter: %s (%s)" % (options.python, describe_interpreter(options.python)))
        health_command = [options.python, "-B", "-m", "proagents_bench", "health", "--spec",
                          paths["spec"], "--cases", paths["cases"], "--results"] + list(
            paths["packages"])
        load_command = [options.python, "-B", "-c", JSON_LOAD_SCRIPT] + files
        dropped_command = [options.python, "-B", "-c", JSON_LOAD_DROPPED_SCRIPT] + files
        health_runs, load_runs, dropped_runs, digests = [], [], [], set()
        for number in range(max(options.repeat, 1)):
            document = os.path.join(folder, "health-%d.json" % number)
            health_runs.append(run_child(health_command, document))
            if health_runs[-1].status == 0:
                digests.add(_digest(document))
            if not options.keep:
                os.remove(document)
            load_runs.append(run_child(load_command))
            dropped_runs.append(run_child(dropped_command))
        health, load = median_run(health_runs), median_run(load_runs)
        dropped = median_run(dropped_runs)
        if health.status != 0 or load.status != 0 or dropped.status != 0:
            say("a child failed: health exit %s, json.load exit %s and %s" % (
                health.status, load.status, dropped.status))
            return False
        label = "median of %d" % len(health_runs) if len(health_runs) > 1 else "one run"
        say("health (python -B -m proagents_bench health):  %7.2f s   peak %s   (%s)" % (
            health.seconds, megabytes(health.peak), label))
        say("bare json.load of the same files, kept:        %7.2f s   peak %s" % (
            load.seconds, megabytes(load.peak)))
        say("bare json.load, each value dropped:            %7.2f s   peak %s" % (
            dropped.seconds, megabytes(dropped.peak)))
        memory = (" and %.2fx its peak memory" % (health.peak / dropped.peak)
                  if health.peak and dropped.peak else "")
        say("ratio: health takes %.2fx the time of json.load kept, %.2fx of json.load dropped%s"
            % (health.seconds / load.seconds, health.seconds / dropped.seconds, memory))
        say("the same bytes in every run: %s" % ("yes" if len(digests) == 1 else
                                                  "NO (%d different documents)" % len(digests)))
        if options.keep:
            say("kept the benchmark and the documents in %s" % options.keep)
    return len(digests) == 1
