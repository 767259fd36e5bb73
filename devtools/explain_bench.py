"""``bench explain``: ``explain`` on logs whose samples shown are as large as Inspect AI's can
be, against the gate on the same package and against a bare read of one such sample.

The logs are the import benchmark's ``.eval`` logs (:mod:`.eval_logs`: the candidate calls
the forbidden tool on one task in 50, which ``explain`` then explains), imported with their
trace references; then every sample of the first of those tasks in the candidate's log (one
epoch of which ``explain`` shows) is made ``--sample-mb`` megabytes of JSON by model events of the size Inspect writes (each repeating
the conversation so far), and the package's references take the new entries' digests (the
records do not change: model events call no tool). Timed whole, each in a fresh interpreter:
``explain`` (its JSON document to a file), the gate on the same three files, and the bare read
of one large sample (``zipfile`` and ``json.loads``, all that reading it whole would cost).
Nothing here is a test.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import subprocess
import sys
import zipfile
from typing import Callable, List

from proagents_bench.importers.package import import_logs, load_cases
from proagents_bench.importers.settings import load_settings
from proagents_bench.importers.source import LogSource
from proagents_bench.jsonio.dump import document_bytes

from . import ROOT
from .eval_logs import _entry, write_logs
from .timing import (Child, failure, generated, interpreter, peak_ratio, report_rows, rounds,
                     time_children, workspace)

# One model event as Inspect writes one: its input, the conversation so far (40 messages of
# 1 KB here), and its output.
_EVENT = {"event": "model", "model": "mockllm/model", "input": [
    {"role": "user" if number % 2 else "assistant", "content": "x" * 1000 + str(number)}
    for number in range(40)], "output": {"completion": "y" * 200}}
# The samples made large: every epoch of the first task explained (explain shows one of them).
GROWN = "samples/task-000007_"
BARE_READ = ("import json, sys, zipfile\n"
             "with zipfile.ZipFile(sys.argv[1]) as log:\n"
             "    json.loads(log.read(sys.argv[2]))\n")


def write(folder: str, tasks: int, epochs: int, sample_mb: int) -> List[str]:
    """The logs, the spec, the cases and the v5 package, in ``folder``; their paths."""
    paths = write_logs(folder, tasks, epochs)
    settings = load_settings(paths["mapping"])
    settings.trace_refs = True
    results = import_logs([LogSource(paths["baseline"]), LogSource(paths["candidate"])],
                          settings, load_cases(paths["cases"]),
                          system_ids=("baseline", "candidate")).results
    digests = {}
    grown = os.path.join(folder, "candidate-grown.eval")
    event = json.dumps(_EVENT)
    count = max(sample_mb * 1024 * 1024 // len(event), 1)
    with zipfile.ZipFile(paths["candidate"]) as old, zipfile.ZipFile(
            grown, "w", zipfile.ZIP_DEFLATED, compresslevel=1) as new:
        for info in old.infolist():
            data = old.read(info)
            if info.filename.startswith(GROWN):
                head, tail = data.split(b'"events": [', 1)
                data = b"".join([head, b'"events": [', ",".join([event] * count).encode(
                    "ascii"), b",", tail])
                digests[info.filename] = hashlib.sha256(data).hexdigest()
            new.writestr(_entry(info.filename), data, compresslevel=1)
    os.replace(grown, paths["candidate"])
    candidate = results["systems"][1]
    with open(paths["candidate"], "rb") as handle:
        log = handle.read()
    candidate["provenance"]["logs"][0].update(log_sha256=hashlib.sha256(log).hexdigest(),
                                              log_bytes=len(log))
    for record in candidate["records"]:
        record["trace"]["sha256"] = digests.get(record["trace"]["entry"],
                                                record["trace"]["sha256"])
    paths["results"] = os.path.join(folder, "results.json")
    with open(paths["results"], "wb") as handle:
        handle.write(document_bytes(results))
    return [paths[name] for name in ("baseline", "candidate", "spec", "cases", "results")]


def _written_apart(folder: str, tasks: int, epochs: int, sample_mb: int) -> List[str]:
    """:func:`write`, run in a child process: the children timed next are started by this
    one, and a child's peak memory counts what it held when it was forked."""
    script = ("import json, sys; sys.path.insert(0, sys.argv[1]); "
              "from devtools.explain_bench import write; "
              "print(json.dumps(write(sys.argv[2], *map(int, sys.argv[3:]))))")
    found = subprocess.run([sys.executable, "-B", "-c", script, ROOT, folder, str(tasks),
                            str(epochs), str(sample_mb)], stdout=subprocess.PIPE,
                           stdin=subprocess.DEVNULL, check=True)
    paths: List[str] = json.loads(found.stdout.decode("utf-8"))
    return paths


def explain_benchmark(options: argparse.Namespace, say: Callable[[str], None]) -> bool:
    say(interpreter(options.python))
    with workspace(options.keep) as folder:
        baseline, candidate, spec, cases, results = generated(
            folder, lambda where: _written_apart(where, options.tasks, options.epochs,
                                                 options.sample_mb),
            "two .eval logs of %d tasks x %d epochs, the candidate's samples of task 7 (every "
            "epoch) %d MB of JSON each" % (options.tasks, options.epochs, options.sample_mb), say)
        program = os.path.join(ROOT, "run_benchmark.py")
        files = ["--spec", spec, "--cases", cases, "--results", results]
        children = [
            Child("explain", [options.python, "-B", program, "explain"] + files + [
                "--baseline", baseline, "--candidate", candidate, "--output",
                os.path.join(folder, "explained.json")], worked=(1,)),
            Child("gate", [options.python, "-B", program] + files + [
                "--output", os.path.join(folder, "decision.json")], worked=(1,)),
            Child("bare read of one sample", [options.python, "-B", "-c", BARE_READ, candidate,
                                              "samples/task-000007_epoch_1.json"]),
        ]
        runs = time_children(children, options.repeat)
        problem = failure(children, runs)
        if problem:
            say(problem)
            return False
        explained, gate, bare = runs
        say("%s, each child a fresh interpreter:" % rounds(options.repeat))
        for line in report_rows([
                ("explain", explained, "%.2fx the gate's time%s" % (
                    explained.seconds / gate.seconds,
                    peak_ratio(explained, gate, ", %.2fx its peak memory"))),
                ("gate", gate, ""),
                ("bare read of one sample", bare, peak_ratio(
                    bare, explained, "%.1fx explain's peak memory"))]):
            say(line)
    return True


def main() -> None:  # pragma: no cover - for a run by hand
    sys.exit("run it as: python -B -m devtools bench explain")
