"""The release's benchmark, and the docs' tables of false alarms.

``python -B -m devtools bench release --benchmarks 5 --tasks 10000 --trials 5`` writes that
many synthetic packages (:func:`devtools.timing.write_package`, a different seed each: 2 x
tasks x trials records per package) and a manifest naming them (the first critical, the
others supporting), then runs, each in a fresh child process of the same interpreter, one
after the other:

- the gate on each package, one after another, as a release engineer without the release
  command runs them (their times summed), and
- the release command on the manifest, deciding the benchmarks in parallel (``--jobs 0``:
  one per core), and
- the release command with ``--jobs 1`` (one benchmark after another in one process),

and prints the wall-clock time of each (interpreter start to exit, documents written to
files), the release's time over the gates' sum, and whether each benchmark's decision inside
the release document is byte for byte its gate's. ``--repeat N`` reports medians. Nothing
here is a test.

:func:`false_alarm_tables` writes docs/release.md's tables of the chance of a false alarm
(exact, from :mod:`proagents_bench.stats.multiplicity`); ``publish`` keeps them current.
"""

from __future__ import annotations

import argparse
import json
import os
from fractions import Fraction
from typing import Callable, List, Sequence

from proagents_bench.cli.parallel import usable_cores
from proagents_bench.stats.multiplicity import false_alarm_rate, independent_false_alarm

from .timing import (FILES, Child, Run, failure, interpreter, median_run, report_rows, rounds,
                     run_child, workspace, write_package)

# The tables' level, benchmark counts and discordant task counts.
TABLE_LEVEL = Fraction(1, 20)
TABLE_GATES = (1, 2, 3, 4, 5, 10)
TABLE_DISCORDANT = (10, 20, 50, 200)
TABLE_BENCHMARKS = (1, 2, 3, 5, 10)


def _exact_decimal(value: Fraction) -> str:
    """A fraction as its exact decimal when it has one (its denominator divides a power of
    10), else as numerator/denominator."""
    rest = value.denominator
    for prime in (2, 5):
        while rest % prime == 0:
            rest //= prime
    if rest != 1:
        return "%d/%d" % (value.numerator, value.denominator)
    digits = 0
    while (value * 10 ** digits).denominator != 1:
        digits += 1
    text = str((value * 10 ** digits).numerator).rjust(digits + 1, "0")
    return "%s.%s" % (text[:-digits], text[-digits:]) if digits else text


def _percent(value: Fraction) -> str:
    return "%.2f%%" % (100 * float(value))


def false_alarm_tables() -> str:
    """Markdown: the chance of a false alarm of K independent gates each at level a, and of a
    release of K benchmarks with n discordant tasks each and no true difference, with and
    without Holm's adjustment, all exact."""
    level = TABLE_LEVEL
    lines = ["| benchmarks K | unadjusted: 1 - (1 - a)^K | | with Holm: 1 - (1 - a/K)^K "
             "(at most a) | |", "|---:|---:|---:|---:|---:|"]
    for gates in TABLE_GATES:
        alone = independent_false_alarm(level, gates)
        # Holm rejects something exactly when the smallest p-value is at most a / K.
        adjusted = independent_false_alarm(level / gates, gates)
        lines.append("| %d | %s | %s | %s | %s |" % (
            gates, _exact_decimal(alone), _percent(alone), _exact_decimal(adjusted),
            _percent(adjusted)))
    lines += ["", "The release's own tests: the exact chance that it reports some regression or "
                  "improvement when no benchmark has a true difference, for K benchmarks of n "
                  "discordant test tasks each, at family-wise level %s; each cell unadjusted "
                  "(every benchmark alone, each direction at %s) / with Holm:" % (
                      _exact_decimal(level), _exact_decimal(level / 2)), "",
              "| benchmarks K | " + " | ".join("n = %d" % count for count in TABLE_DISCORDANT)
              + " |", "|---:|" + "---:|" * len(TABLE_DISCORDANT)]
    for benchmarks in TABLE_BENCHMARKS:
        cells = []
        for count in TABLE_DISCORDANT:
            counts = [count] * benchmarks
            cells.append("%s / %s" % (_percent(false_alarm_rate(counts, level, False)),
                                      _percent(false_alarm_rate(counts, level, True))))
        lines.append("| %d | %s |" % (benchmarks, " | ".join(cells)))
    return "\n".join(lines) + "\n"


def write_release(folder: str, benchmarks: int, tasks: int, trials: int, samples: int,
                  seed: int) -> str:
    """Write ``benchmarks`` synthetic packages and a manifest naming them to ``folder``;
    return the manifest's path."""
    entries = []
    for index in range(benchmarks):
        name = "bench-%d" % (index + 1)
        write_package(os.path.join(folder, name), tasks, trials, samples, seed + index)
        entries.append(dict({kind: "%s/%s.json" % (name, kind) for kind in FILES},
                            name=name, tier="critical" if index == 0 else "supporting"))
    manifest = {"schema_version": "proagents-bench-release-v1", "release_id": "bench",
                "family_wise_level": 0.05, "benchmarks": entries}
    path = os.path.join(folder, "release.json")
    with open(path, "w", encoding="utf-8") as handle:
        json.dump(manifest, handle, indent=2)
    return path


def _spliced_in(release_path: str, documents: Sequence[str]) -> bool:
    """Whether each gate's document stands in the release document byte for byte, indented
    as a benchmark's ``decision`` is (three levels deep)."""
    with open(release_path, "rb") as handle:
        release = handle.read()
    for path in documents:
        with open(path, "rb") as handle:
            expected = handle.read()[:-1].replace(b"\n", b"\n" + b"  " * 3)
        if expected not in release:
            return False
    return True


def release_benchmark(options: argparse.Namespace, say: Callable[[str], None]) -> bool:
    """Run the release benchmark with ``options`` (benchmarks, tasks, trials, samples, seed,
    repeat, python, keep: the command line's ``bench release``), telling each result line to
    ``say``; return True when every child ran."""
    with workspace(options.keep) as folder:
        manifest = write_release(folder, options.benchmarks, options.tasks, options.trials,
                                 options.samples, options.seed)
        size = sum(os.path.getsize(os.path.join(folder, "bench-%d" % (index + 1),
                                                kind + ".json"))
                   for index in range(options.benchmarks) for kind in FILES)
        say("release: %d benchmarks, each %d tasks x %d trials x 2 systems = %d records, %d "
            "bootstrap samples; %.1f MB in all" % (
                options.benchmarks, options.tasks, options.trials,
                2 * options.tasks * options.trials, options.samples, size / 1e6))
        say("%s; %s cores usable here" % (interpreter(options.python), usable_cores()))
        base = [options.python, "-B", "-m", "proagents_bench"]
        gates: List[List[str]] = []
        documents = []
        for index in range(options.benchmarks):
            name = os.path.join(folder, "bench-%d" % (index + 1))
            gates.append(base + [item for kind in FILES for item in (
                "--" + kind, os.path.join(name, kind + ".json"))])
            documents.append(os.path.join(folder, "decision-%d.json" % (index + 1)))
        release_document = os.path.join(folder, "release-decision.json")
        children = [Child("gates", [], worked=(0, 1)),
                    Child("release", base + ["release", "--manifest", manifest],
                          release_document, worked=(0, 1)),
                    Child("release --jobs 1", base + ["release", "--manifest", manifest,
                                                      "--jobs", "1"], release_document,
                          worked=(0, 1))]
        runs: List[List[Run]] = [[] for _ in children]
        for _ in range(max(options.repeat, 1)):
            # The gates one after another, as one run; then each release.
            runs[0].append(_sum([run_child(command, document)
                                 for command, document in zip(gates, documents)]))
            for child, found in zip(children[1:], runs[1:]):
                found.append(run_child(child.command, child.stdout))
        gates_run, release_run, serial_run = medians = [median_run(found) for found in runs]
        failed = failure(children, medians)
        if failed is not None:
            say(failed)
            return False
        say("times: %s; CPU: user and system seconds of the process and its children" %
            rounds(options.repeat))
        for line in report_rows([
                ("%d gates, one after another" % options.benchmarks, gates_run,
                 "exit %d" % gates_run.status),
                ("release (benchmarks in parallel)", release_run, "exit %d" % release_run.status),
                ("release --jobs 1 (one after another)", serial_run,
                 "exit %d" % serial_run.status)], cpu=True):
            say(line)
        say("ratio: the release takes %.2fx the time of the gates one after another "
            "(--jobs 1: %.2fx)%s" % (
                release_run.seconds / gates_run.seconds, serial_run.seconds / gates_run.seconds,
                "; CPU %.2fx (--jobs 1: %.2fx)" % (release_run.cpu / gates_run.cpu,
                                                   serial_run.cpu / gates_run.cpu)
                if gates_run.cpu and release_run.cpu and serial_run.cpu else ""))
        say("each benchmark's decision inside the release is byte for byte its gate's: %s" % (
            "yes" if _spliced_in(release_document, documents) else "NO"))
        if options.keep:
            say("kept the packages, the manifest and the documents in %s" % options.keep)
    return True


def _sum(runs: Sequence[Run]) -> Run:
    """The runs one after another as one: their seconds summed, the largest peak, the worst
    status."""
    peaks = [run.peak for run in runs if run.peak is not None]
    cpus = [run.cpu for run in runs if run.cpu is not None]
    return Run(sum(run.seconds for run in runs), max(peaks) if peaks else None,
               max(run.status for run in runs), sum(cpus) if len(cpus) == len(runs) else None)
