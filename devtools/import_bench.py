"""The importer's benchmark: ``import`` of two synthetic logs against the gate on the package
it writes.

``python -B -m devtools bench import --tasks 100000 --epochs 5`` writes, to a temporary
folder, a baseline's and a candidate's log (Inspect AI ``.eval`` logs, :mod:`.eval_logs`, or
with ``--format`` the logs of another harness: :mod:`.import_formats`, :mod:`.harness_logs`),
the cases file, the spec and the mapping; then times, each in a fresh child process
(:mod:`.timing`), the import exactly as a user runs it, the gate on what it wrote, and a bare
read of both logs (below), and prints each one's wall-clock time, the peak resident memory of
the import and the gate, and the ratios. ``--repeat N`` reports medians, ``--python EXE``
runs the children under another interpreter, ``--keep DIR`` keeps every file,
``--template-log LOG`` takes a real ``.eval`` log's samples as the templates. Nothing here is
a test.

The bare read (every entry's bytes read where the zip's directory says, inflated by
``zlib`` and decoded by ``json.loads``, nothing checked or kept) is the floor of any reader
that decodes every sample, and it reads as the import does: the candidate's log in a forked
process where ``os.fork`` exists. So the import's time over the bare read's is the
importer's own cost, and the bare read's over the gate's is what no importer of these logs
that decodes them with the standard library can go below.
"""

from __future__ import annotations

import os
import time
import zipfile
from typing import TYPE_CHECKING, Callable, List

from proagents_bench.cli.parallel import FORK_LOG_BYTES
from proagents_bench.cli.usage import UsageError
from proagents_bench.contract.harnesses import INSPECT_EVAL, PROMPTFOO_JSON

from . import harness_logs, import_formats
from .eval_logs import TemplateError, read_templates, write_format_logs, zstd_speeds
from .timing import (FORKED_READ, Child, failure, interpreter, peak_ratio, report_rows, rounds,
                     time_children, workspace)

if TYPE_CHECKING:  # for annotations only
    import argparse

# The floor any reader of these logs pays: every entry's bytes read where the zip directory
# says they are, inflated and decoded, nothing checked or kept; the second log in a forked
# process when the import would fork too (os.fork, and a baseline log of at least the size
# given), as the import reads it.
BARE_READ_SCRIPT = (
    "import json, os, signal, struct, sys, traceback, zipfile, zlib\n"
    "KIND = sys.argv[4] if len(sys.argv) > 4 else 'zip'\n"
    "def read(path):\n"
    "    if KIND != 'zip':  # a JSON log decoded whole, or a JSON-lines log line by line\n"
    "        with open(path, 'rb') as log:\n"
    "            if KIND == 'json':\n"
    "                json.loads(log.read())\n"
    "            for line in (log if KIND == 'lines' else ()):\n"
    "                if line.strip():\n"
    "                    json.loads(line)\n"
    "        return\n"
    "    with zipfile.ZipFile(path) as log, open(path, 'rb') as raw:\n"
    "        for info in log.infolist():\n"
    "            raw.seek(info.header_offset + 26)\n"
    "            name_bytes, extra_bytes = struct.unpack('<HH', raw.read(4))\n"
    "            raw.seek(name_bytes + extra_bytes, 1)\n"
    "            data = raw.read(info.compress_size)\n"
    "            if info.compress_type == zipfile.ZIP_DEFLATED:\n"
    "                data = zlib.decompress(data, -15)\n"
    "            json.loads(data)\n"
    "baseline, candidate, fork_bytes = sys.argv[1], sys.argv[2], int(sys.argv[3])\n"
    "log_bytes = os.path.getsize(baseline)\n"
) + FORKED_READ
# Every writer's candidate differs from its baseline on one task in 50, the first being task 7
# (counted from 0: ``task % 50 == 7``): fewer tasks would compare a system with itself.
MIN_TASKS = 8
MIN_TASKS_WHY = ("the candidate differs from the baseline first on the eighth task: with "
                 "fewer, the two systems' logs are alike")
# The most trials per system ``bench import`` writes: the package the import writes of them
# (about 380 bytes a record, two systems) stays well within the 1 GiB the gate reads; twice
# the largest run the docs measure.
MAX_TRIALS_PER_SYSTEM = 1000000
# The runs of each child whose median is reported.
MAX_REPEAT = 100


def argument_problems(options: argparse.Namespace) -> List[str]:
    """What is wrong with ``bench import``'s arguments beyond the bounds of each number
    (:data:`devtools.bench_command.BENCHES`), each said as a usage error, before anything is
    written: the trials per system (when the tasks and epochs are each within bounds), and a
    template log with another format."""
    problems = []
    if options.tasks >= MIN_TASKS and 2 <= options.epochs <= 100 and (
            options.tasks * options.epochs > MAX_TRIALS_PER_SYSTEM):
        problems.append("--tasks times --epochs must be at most %d trials per system (the "
                        "package of more nears the 1 GiB the gate reads), got %d" % (
                            MAX_TRIALS_PER_SYSTEM, options.tasks * options.epochs))
    if options.template_log is not None and options.format != INSPECT_EVAL:
        problems.append("--template-log takes the samples of an .eval log: it needs "
                        "--format %s" % INSPECT_EVAL)
    return problems


def import_benchmark(options: argparse.Namespace, say: Callable[[str], None]) -> bool:
    """Run the import benchmark (tasks, epochs, repeat, python, keep, format, template_log:
    the command line's ``bench import``), telling each result line to ``say``; return True
    when every child ran. The bare read reads the candidate's log in a forked process from
    the baseline log's size the import forks at (:data:`FORK_LOG_BYTES`), as the import
    does. A template log that cannot be read is a :class:`UsageError`."""
    templates = None
    if options.template_log is not None:
        try:
            templates = read_templates(options.template_log)
        except TemplateError as problem:
            raise UsageError("--template-log: %s" % problem) from None
        for line in zstd_speeds(options.template_log, max(options.repeat, 3)):
            say(line)
    log_format = options.format
    with workspace(options.keep) as folder:
        started = time.perf_counter()
        samples = options.tasks * options.epochs
        if log_format in harness_logs.WRITERS:
            written, paths = harness_logs.WRITERS[log_format](folder, options.tasks,
                                                              options.epochs)
            logs = {role: list(written[role]) for role in ("baseline", "candidate")}
            say("logs (%s): %d tasks x %d trials = %d trials per system in %d log%s each; "
                "%.1f MB of JSON per system (written in %.1f s)" % (
                    log_format, options.tasks, options.epochs, samples, len(logs["baseline"]),
                    "" if len(logs["baseline"]) == 1 else "s",
                    sum(map(_tree_bytes, logs["baseline"])) / 1e6,
                    time.perf_counter() - started))
            read_command = [options.python, "-B", "-c", harness_logs.BARE_READ_SCRIPT] + [
                os.pathsep.join(logs[role]) for role in ("baseline", "candidate")] + [
                    str(FORK_LOG_BYTES)]
        else:
            paths = write_format_logs(folder, log_format, options.tasks, options.epochs,
                                      templates)
            if log_format == INSPECT_EVAL:
                say("logs: %d tasks x %d epochs = %d samples per log, 2 logs; %.1f MB zipped, "
                    "%.1f MB of sample JSON each (written in %.1f s)" % (
                        options.tasks, options.epochs, samples,
                        os.path.getsize(paths["baseline"]) / 1e6,
                        _json_bytes(paths["baseline"]) / 1e6, time.perf_counter() - started))
            else:
                say("logs: %s, %d tasks x %d epochs = %d trials per log, 2 logs; %.1f MB each "
                    "(written in %.1f s)" % (log_format, options.tasks, options.epochs,
                                             samples, os.path.getsize(paths["baseline"]) / 1e6,
                                             time.perf_counter() - started))
            logs = {role: [paths[role]] for role in ("baseline", "candidate")}
            read_command = [options.python, "-B", "-c", BARE_READ_SCRIPT, paths["baseline"],
                            paths["candidate"], str(FORK_LOG_BYTES),
                            import_formats.BARE_READ_KIND[log_format]]
        say(interpreter(options.python))
        results = os.path.join(folder, "results.json")
        import_command = [options.python, "-B", "-m", "proagents_bench", "import"] + [
            argument for role in ("baseline", "candidate") for path in logs[role]
            for argument in ("--" + role, path)] + [
                          "--mapping", paths["mapping"], "--cases", paths["cases"],
                          "--baseline-id", "baseline", "--candidate-id", "candidate",
                          "--output", results]
        gate_command = [options.python, "-B", "-m", "proagents_bench", "--spec", paths["spec"],
                        "--cases", paths["cases"], "--results", results]
        children = [
            # The import's summary lines on stderr are kept with its document, not shown.
            Child("import", import_command, os.path.join(folder, "import.json"),
                  os.path.join(folder, "import.stderr")),
            Child("gate", gate_command, os.path.join(folder, "decision.json"), worked=(0, 1)),
            Child("bare read", read_command)]
        imported, gate, bare = runs = time_children(children, options.repeat)
        if imported.status != 0:
            with open(os.path.join(folder, "import.stderr"), "rb") as handle:
                say(handle.read().decode("utf-8", "replace").rstrip())
        failed = failure(children, runs)
        if failed is not None:
            say(failed)
            return False
        for line in report_rows([
                ("import (both logs)", imported, rounds(options.repeat)),
                ("gate on its output", gate, "exit %d; results %.1f MB" % (
                    gate.status, os.path.getsize(results) / 1e6)),
                ("bare read of both logs", bare, "%s, on the import's cores" % (
                    "inflate + json.loads of every entry" if log_format == INSPECT_EVAL else
                    "json.loads of the whole log" if log_format == PROMPTFOO_JSON else
                    "json.loads of every file" if log_format in harness_logs.WRITERS else
                    "json.loads of every line"))]):
            say(line)
        say("ratio: the import takes %.2fx the time of the gate%s" % (
            imported.seconds / gate.seconds,
            peak_ratio(imported, gate, " and %.2fx its peak memory")))
        say("floor: the bare read takes %.2fx the time of the gate; the import %.2fx the "
            "time of the bare read" % (bare.seconds / gate.seconds,
                                       imported.seconds / bare.seconds))
        if options.keep:
            say("kept the logs, the package and the documents in %s" % options.keep)
    return True


def _tree_bytes(path: str) -> int:
    """The bytes of a log: a file's, or every file's of a folder."""
    if not os.path.isdir(path):
        return os.path.getsize(path)
    return sum(os.path.getsize(os.path.join(root, name)) for root, _folders, names in
               os.walk(path) for name in names)


def _json_bytes(path: str) -> int:
    with zipfile.ZipFile(path) as log:
        return sum(info.file_size for info in log.infolist())
