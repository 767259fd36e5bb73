"""The health command's benchmark: ``health`` over many packages against a bare ``json.load``
of the same files.

``python -B -m devtools bench health --packages 20 --tasks 10000 --trials 5`` writes a
synthetic benchmark (:func:`devtools.synthetic.make_health_packages`: the same bytes for the
same arguments) to a temporary folder: a spec, a cases file and ``--packages`` results
packages that share one baseline, each with its own candidate. Then it times, each in a
fresh child process (:mod:`.timing`, as :mod:`.gate_bench` times the gate):

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
from typing import TYPE_CHECKING, Callable, Dict, List, TypedDict

from .synthetic import make_health_packages
from .timing import (JSON_LOAD_DROPPED_SCRIPT, JSON_LOAD_SCRIPT, Child, Run, failure,
                     generated, interpreter, peak_ratio, report_rows, rounds, time_children,
                     workspace, written_only)

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
    def write(folder: str) -> List[str]:
        paths = write_benchmark(folder, options.tasks, options.trials, options.packages,
                                options.seed)
        return [paths["spec"], paths["cases"]] + paths["packages"]

    what = ("%d packages of %d tasks x %d trials x 2 systems (one baseline shared): %d "
            "records" % (options.packages, options.tasks, options.trials,
                         options.packages * 2 * options.tasks * options.trials))
    if written_only(options.write, write, what, say):
        return True
    with workspace(options.keep) as folder:
        files = generated(folder, write, what, say)
        say(interpreter(options.python))
        document = os.path.join(folder, "health.json")
        children = [
            Child("health", [options.python, "-B", "-m", "proagents_bench", "health",
                             "--spec", files[0], "--cases", files[1], "--results"] + files[2:],
                  document),
            Child("json.load kept", [options.python, "-B", "-c", JSON_LOAD_SCRIPT] + files),
            Child("json.load dropped",
                  [options.python, "-B", "-c", JSON_LOAD_DROPPED_SCRIPT] + files)]
        digests = set()

        def after(number: int, child: Child, run: Run) -> None:
            """Each run of health's document: its digest, and the document kept as
            ``health-N.json`` with ``--keep``."""
            if child.stdout == document and run.status == 0:
                digests.add(_digest(document))
                if options.keep:
                    os.replace(document, os.path.join(folder, "health-%d.json" % number))

        runs = time_children(children, options.repeat, after)
        failed = failure(children, runs)
        if failed is not None:
            say(failed)
            return False
        health, load, dropped = runs
        for line in report_rows([
                ("health (python -B -m proagents_bench health)", health,
                 rounds(options.repeat)),
                ("bare json.load of the same files, kept", load, ""),
                ("bare json.load, each value dropped", dropped, "")]):
            say(line)
        say("ratio: health takes %.2fx the time of json.load kept, %.2fx of json.load dropped%s"
            % (health.seconds / load.seconds, health.seconds / dropped.seconds,
               peak_ratio(health, dropped, " and %.2fx its peak memory")))
        say("the same bytes in every run: %s" % ("yes" if len(digests) == 1 else
                                                  "NO (%d different documents)" % len(digests)))
        if options.keep:
            say("kept the benchmark and the documents in %s" % options.keep)
    return len(digests) == 1
