"""The importer's benchmark: ``import`` of two synthetic Inspect AI ``.eval`` logs (or, with
``--format``, the logs of another harness: :mod:`.import_formats`, :mod:`.harness_bench`) against the gate on the
package it writes.

``python -B run_benchmark.py bench import --tasks 100000 --epochs 5`` writes, to a temporary
folder, a baseline and a candidate ``.eval`` log (deflate; one ``samples/<id>_epoch_<n>.json``
entry per task and epoch, each shaped like the samples Inspect AI writes for a tool-using
agent: messages, tool and model events, scores, store, model usage; about 4 KB of JSON, the
same bytes for the same arguments), the cases file, the spec and the mapping; then runs, each
in a fresh child process and one after the other, the import exactly as a user runs it, the
gate on what it wrote, and a bare read of both logs (below), and prints each one's
wall-clock time, the peak resident memory of the import and the gate, and the ratios.
``--repeat N`` reports medians, ``--python EXE`` runs the children under another
interpreter, ``--keep DIR`` keeps every file. ``--template-log LOG`` takes the samples of a
real ``.eval`` log as the templates instead (each task is one of them in turn, by entry
name, with its id and epoch replaced; both logs alike): a sample as a real harness writes
it is often several times the synthetic one's bytes (Inspect AI 0.3.285 writes 17 to 29 KB
for the order agent of ``tests/importers/fixtures``: every model event repeats its input),
and the import's time follows the bytes. ``--format promptfoo-results-json`` or
``--format jsonl`` writes the same tasks and epochs as promptfoo results files or JSON-lines
logs instead (:mod:`.import_formats`). Nothing here is a test.

The bare read (every entry's bytes read where the zip's directory says, inflated by
``zlib`` and decoded by ``json.loads``, nothing checked or kept) is the floor of any reader
that decodes every sample, and it reads as the import does: the candidate's log in a forked
process where ``os.fork`` exists. So the import's time over the bare read's is the
importer's own cost, and the bare read's over the gate's is what no importer of these logs
that decodes them with the standard library can go below.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import tempfile
import time
import zipfile
from typing import TYPE_CHECKING, Callable, Dict, List, Optional

from ..errors import ContractErrors
from ..importers import zstd
from ..importers.inspect_eval import LOCAL_HEADER, ZSTD_METHOD, eval_samples
from ..importers.source import LogSource
from ..contract.harnesses import INSPECT_EVAL, PROMPTFOO_JSON
from . import harness_bench, import_formats
from .bench import FORKED_READ, describe_interpreter, median_run, megabytes, run_child

if TYPE_CHECKING:  # for annotations only
    from ..jsonio import JSONObject

# A sample of the order agent, as Inspect AI writes one (keys it does not read included, so
# the decoding cost is a real log's); the placeholders are filled per task and epoch.
SAMPLE_TEMPLATE = {
    "id": "@ID@", "epoch": "@EPOCH@",
    "input": "[@ID@] order @ORDER@ delivered damaged, within refund window",
    "target": "refund_issued", "sandbox": None, "files": None, "setup": None,
    "messages": [
        {"id": "m1", "content": "[@ID@] order @ORDER@ delivered damaged", "source": "input",
         "role": "user"},
        {"id": "m2", "content": "tool call for tool lookup_order", "source": "generate",
         "role": "assistant", "tool_calls": [
             {"id": "call_1", "function": "lookup_order", "arguments": {"order_id": "@ORDER@"},
              "type": "function"}], "model": "mockllm"},
        {"id": "m3", "content": "lookup_order(@ORDER@): ok", "role": "tool",
         "tool_call_id": "call_1", "function": "lookup_order"},
        {"id": "m4", "content": "tool call for tool @TOOL@", "source": "generate",
         "role": "assistant", "tool_calls": [
             {"id": "call_2", "function": "@TOOL@", "arguments": {"order_id": "@ORDER@"},
              "type": "function"}], "model": "mockllm"},
        {"id": "m5", "content": "@TOOL@(@ORDER@): ok", "role": "tool",
         "tool_call_id": "call_2", "function": "@TOOL@"},
        {"id": "m6", "content": "@ANSWER@", "source": "generate", "role": "assistant",
         "model": "mockllm"},
    ],
    "output": {"model": "mockllm", "choices": [{"message": {
        "id": "m6", "content": "@ANSWER@", "source": "generate", "role": "assistant",
        "model": "mockllm"}, "stop_reason": "stop"}], "completion": "@ANSWER@",
        "usage": {"input_tokens": 160, "output_tokens": 20, "total_tokens": 180,
                  "total_cost": 0.001}, "time": 0.00021},
    "scores": {"match": {"value": "@VALUE@", "answer": "@ANSWER@",
                         "explanation": "@ANSWER@", "history": []}},
    "metadata": {"split": "test", "family_id": "family-@ID@", "slice": "refunds",
                 "critical": False, "task_type": "refund"},
    "store": {"side_effects": ["@TOOL@"]},
    "events": [
        {"uuid": "e1", "span_id": "s1", "timestamp": "2026-07-21T09:00:00.000001+00:00",
         "working_start": 0.001, "event": "sample_init", "sample": {"input": "[@ID@]",
                                                                    "target": "refund_issued"},
         "state": {"messages": [], "tools": [], "store": {}}},
        {"uuid": "e2", "span_id": "s1", "timestamp": "2026-07-21T09:00:00.000002+00:00",
         "working_start": 0.002, "event": "model", "model": "mockllm/model", "role": None,
         "input": [], "tools": [
             {"name": name, "description": "Act on an order.", "parameters": {
                 "type": "object", "properties": {"order_id": {"type": "string"}},
                 "required": ["order_id"]}}
             for name in ("lookup_order", "issue_refund", "refund_order")],
         "tool_choice": "auto", "config": {},
         "output": {"model": "mockllm", "completion": "", "usage": {"total_tokens": 120}},
         "retries": 0, "cache": None, "completed": "2026-07-21T09:00:00.000003+00:00",
         "working_time": 0.0002},
        {"uuid": "e3", "span_id": "s2", "timestamp": "2026-07-21T09:00:00.000004+00:00",
         "working_start": 0.003, "event": "tool", "type": "function", "id": "call_1",
         "function": "lookup_order", "arguments": {"order_id": "@ORDER@"},
         "result": "lookup_order(@ORDER@): ok", "events": [],
         "completed": "2026-07-21T09:00:00.000005+00:00", "working_time": 0.0011},
        {"uuid": "e4", "span_id": "s3", "timestamp": "2026-07-21T09:00:00.000006+00:00",
         "working_start": 0.004, "event": "tool", "type": "function", "id": "call_2",
         "function": "@TOOL@", "arguments": {"order_id": "@ORDER@"},
         "result": "@TOOL@(@ORDER@): ok", "events": [],
         "completed": "2026-07-21T09:00:00.000007+00:00", "working_time": 0.0012},
        {"uuid": "e5", "span_id": "s3", "timestamp": "2026-07-21T09:00:00.000008+00:00",
         "working_start": 0.005, "event": "store", "changes": [
             {"op": "add", "path": "/side_effects", "value": ["@TOOL@"]}]},
        {"uuid": "e6", "span_id": "s4", "timestamp": "2026-07-21T09:00:00.000009+00:00",
         "working_start": 0.006, "event": "score", "score": {
             "value": "@VALUE@", "answer": "@ANSWER@", "explanation": "@ANSWER@"},
         "target": "refund_issued", "intermediate": False},
    ],
    "model_usage": {"mockllm/model": {"input_tokens": 480, "output_tokens": 60,
                                      "total_tokens": 540, "total_cost": 0.003}},
    "total_time": "@TIME@", "working_time": "@TIME@", "uuid": "u-@ID@-@EPOCH@",
    "error": None, "limit": None, "error_retries": [], "attachments": {},
}
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
# Every entry of the logs written here bears this time, so the same arguments give the
# same bytes.
ENTRY_TIME = (2026, 7, 21, 9, 0, 0)
PROTOCOL = {"protocol_version": "order-protocol-1", "environment_id": "order-sandbox-v1",
            "toolset_id": "order-tools-v1", "reset_policy": "fresh-sandbox-per-trial",
            "max_steps": 8, "timeout_seconds": 30, "retry_limit": 0}
BENCHMARK = {"benchmark_id": "bench-import", "benchmark_version": "1",
             "dataset_version": "bench-import-tasks"}


# Every writer's candidate differs from its baseline on one task in 50, the first being task 7
# (counted from 0: ``task % 50 == 7``): fewer tasks would compare a system with itself.
MIN_TASKS = 8
# The most trials per system ``bench import`` writes: the package the import writes of them
# (about 380 bytes a record, two systems) stays well within the 1 GiB the gate reads; twice
# the largest run the docs measure.
MAX_TRIALS_PER_SYSTEM = 1000000
# The runs of each child whose median is reported.
MAX_REPEAT = 100


def argument_problems(options: argparse.Namespace) -> List[str]:
    """What is wrong with ``bench import``'s arguments, each said as a usage error, before
    anything is written: the counts within their bounds (the epochs are the protocol's
    ``trial_count``, 2..100, as the contract says), the interpreter one that runs, and the
    folder to keep the files in one that can be (it is created last, when all else holds)."""
    problems = []
    if options.tasks < MIN_TASKS:
        problems.append("--tasks must be at least %d (the candidate differs from the "
                        "baseline first on the eighth task: with fewer, the two systems' logs "
                        "are alike), got %d" % (MIN_TASKS, options.tasks))
    if not 2 <= options.epochs <= 100:
        problems.append("--epochs must be 2..100 (the protocol's trial_count), got %d"
                        % options.epochs)
    if options.tasks >= MIN_TASKS and 2 <= options.epochs <= 100 and (
            options.tasks * options.epochs > MAX_TRIALS_PER_SYSTEM):
        problems.append("--tasks times --epochs must be at most %d trials per system (the "
                        "package of more nears the 1 GiB the gate reads), got %d" % (
                            MAX_TRIALS_PER_SYSTEM, options.tasks * options.epochs))
    if not 1 <= options.repeat <= MAX_REPEAT:
        problems.append("--repeat must be 1..%d, got %d" % (MAX_REPEAT, options.repeat))
    if shutil.which(options.python) is None:
        problems.append("--python %s is not an interpreter that can be run" % options.python)
    keep = options.keep
    if not problems and keep is not None:
        if os.path.exists(keep) and not os.path.isdir(keep):
            problems.append("--keep %s is a file, not a folder" % keep)
        else:
            try:
                os.makedirs(keep, exist_ok=True)
            except (OSError, ValueError) as problem:
                problems.append("--keep %s cannot be made a folder: %s" % (
                    keep, getattr(problem, "strerror", None) or problem))
    return problems


def _pieces() -> List[bytes]:
    """The template's text split at its placeholders (kept at odd positions)."""
    text = json.dumps(SAMPLE_TEMPLATE).replace('"@EPOCH@"', "@EPOCH@").replace(
        '"@TIME@"', "@TIME@")
    pieces: List[bytes] = []
    for part in text.split("@"):
        pieces.append(part.encode("utf-8"))
    return pieces


_PIECES = _pieces()


def _sample(pieces: List[bytes], values: Dict[bytes, bytes]) -> bytes:
    return b"".join(values[piece] if index % 2 else piece
                    for index, piece in enumerate(pieces))


class TemplateError(ValueError):
    """A ``--template-log`` that cannot be read: the message says why."""


def read_templates(path: str) -> List[bytes]:
    """The samples of a real ``.eval`` log (read as the import reads them: deflate or zstd)
    as compact JSON without their id and epoch (the text after the opening brace:
    ``{"id":...,"epoch":...,`` goes before it), in the order of their entry names;
    TemplateError when the log cannot be read or holds no sample."""
    named = []
    try:
        for entry, sample in eval_samples(LogSource(path)):
            rest = {key: value for key, value in sample.items() if key not in ("id", "epoch")}
            named.append((entry, json.dumps(rest, separators=(",", ":"))[1:].encode("ascii")))
    except ContractErrors as failure:
        error = failure.errors[0]
        raise TemplateError("%s: %s" % (error.file or path, error.message)) from None
    if not named:
        raise TemplateError("%s holds no samples/*.json entry" % path)
    return [text for _entry, text in sorted(named)]


def _entry(name: str) -> zipfile.ZipInfo:
    info = zipfile.ZipInfo(name, date_time=ENTRY_TIME)
    info.compress_type = zipfile.ZIP_DEFLATED
    return info


def write_logs(folder: str, tasks: int, epochs: int,
               templates: Optional[List[bytes]] = None) -> Dict[str, str]:
    """Write both logs, the cases, the spec and the mapping to ``folder``; return the paths.
    The candidate refunds with the forbidden tool on one task in 50 (not with
    ``templates``, from :func:`read_templates`, which both logs take in turn; their cost is
    then counted in tokens, which every Inspect AI log records, where the synthetic samples'
    is in the cost Inspect records only for models it knows prices of)."""
    os.makedirs(folder, exist_ok=True)
    header: JSONObject = {"version": 2, "status": "success", "eval": {
        "eval_id": "bench", "run_id": "bench", "created": "2026-07-21T09:00:00+00:00",
        "task": "order_agent", "task_version": 1, "model": "mockllm/model",
        "dataset": {"name": "bench", "samples": tasks,
                    "sample_ids": ["task-%06d" % task for task in range(tasks)]},
        "config": {"epochs": epochs, "message_limit": 8, "time_limit": 30},
        "packages": {"inspect_ai": "0.3.285"}}, "stats": {
            "started_at": "2026-07-21T09:00:00+00:00"}}
    paths = {}
    for role in ("baseline", "candidate"):
        paths[role] = os.path.join(folder, role + ".eval")
        with zipfile.ZipFile(paths[role], "w", zipfile.ZIP_DEFLATED, compresslevel=1) as log:
            # Each system's own run (with templates, both logs would otherwise be the same
            # bytes, which the import refuses as a run compared with itself).
            own = dict(header, eval=dict(header["eval"], eval_id="bench-" + role,
                                         run_id="bench-" + role))
            log.writestr(_entry("header.json"), json.dumps(own), compresslevel=1)
            for task in range(tasks):
                for epoch in range(1, epochs + 1):
                    name = b"task-%06d" % task
                    if templates is not None:
                        rest = templates[task % len(templates)]
                        data = b'{"id":"%s","epoch":%d%s%s' % (
                            name, epoch, b"," if rest != b"}" else b"", rest)
                    else:
                        data = synthetic_sample(role, task, epoch)
                    log.writestr(_entry("samples/%s_epoch_%d.json" % (name.decode(), epoch)),
                                 data, compresslevel=1)
    paths.update(import_formats.write_documents(folder, benchmark_documents(tasks, epochs, templates)))
    return paths


def synthetic_sample(role: str, task: int, epoch: int) -> bytes:
    """The synthetic sample of ``task`` and ``epoch`` (the candidate's refunds with the
    forbidden tool on one task in 50)."""
    forbidden = role == "candidate" and task % 50 == 7
    return _sample(_PIECES, {
        b"ID": b"task-%06d" % task, b"EPOCH": b"%d" % epoch, b"ORDER": b"%d" % task,
        b"TOOL": b"refund_order" if forbidden else b"issue_refund",
        b"ANSWER": b"refund_issued", b"VALUE": b"C", b"TIME": b"%.3f" % (
            0.5 + (task * 7 + epoch * 3) % 100 / 100)})


def benchmark_documents(tasks: int, epochs: int,
                        templates: Optional[List[bytes]] = None) -> Dict[str, JSONObject]:
    """The cases, the spec and the mapping of the benchmark's ``.eval`` logs."""
    cases = [{"id": "task-%06d" % task, "family_id": "family-%06d" % task, "split": "test",
              "slice": "slice-%d" % (task % 5), "critical": task % 50 == 7,
              "task_type": "refund", "is_private": True, "initial_state": "order",
              "expected_final_state": "refund_issued",
              "allowed_tools": ["lookup_order", "issue_refund", "refund_order"],
              "forbidden_side_effects": ["refund_order"]} for task in range(tasks)]
    cases += [{"id": "train-0", "family_id": "family-train", "split": "train", "slice": "x",
               "critical": False, "task_type": "refund", "is_private": False,
               "initial_state": "order", "expected_final_state": "refund_issued",
               "allowed_tools": [], "forbidden_side_effects": []},
              {"id": "dev-0", "family_id": "family-dev", "split": "development",
               "slice": "x", "critical": False, "task_type": "refund", "is_private": False,
               "initial_state": "order", "expected_final_state": "refund_issued",
               "allowed_tools": [], "forbidden_side_effects": []}]
    documents: Dict[str, JSONObject] = {
        "cases": dict(BENCHMARK, schema_version="agent-benchmark-cases-v1", cases=cases),
        "spec": harness_bench.synthetic_spec(BENCHMARK, PROTOCOL, epochs, 2000, 2500),
        "mapping": dict(schema_version="proagents-bench-import-mapping-v1",
                        protocol=PROTOCOL, side_effect_tools=["issue_refund", "refund_order"],
                        cost={"source": "total_cost" if templates is None else "total_tokens"}),
    }
    return documents


def write_format_logs(folder: str, log_format: str, tasks: int, epochs: int,
                      templates: Optional[List[bytes]] = None) -> Dict[str, str]:
    """Both logs in ``log_format`` (an ``.eval`` log, a promptfoo results file, a
    JSON-lines log), the cases, the spec and the mapping; return the paths."""
    if log_format == INSPECT_EVAL:
        return write_logs(folder, tasks, epochs, templates)
    os.makedirs(folder, exist_ok=True)
    documents = benchmark_documents(tasks, epochs)
    if log_format == PROMPTFOO_JSON:
        return import_formats.write_promptfoo(folder, tasks, epochs, documents)
    return import_formats.write_jsonl(folder, tasks, epochs, documents, synthetic_sample)


def import_benchmark(options: argparse.Namespace, say: Callable[[str], None],
                     fork_bytes: int, templates: Optional[List[bytes]] = None) -> bool:
    """Run the import benchmark (tasks, epochs, repeat, python, keep; the ``templates`` of
    ``--template-log``), telling each result line to ``say``; return True when every child
    ran. ``fork_bytes`` is the size of a baseline log from which the import reads the
    candidate's in a forked process: the bare read does as it does."""
    log_format = getattr(options, "format", INSPECT_EVAL)
    with tempfile.TemporaryDirectory(prefix="proagents-bench-") as scratch:
        folder = options.keep or scratch
        started = time.perf_counter()
        samples = options.tasks * options.epochs
        if log_format in harness_bench.WRITERS:
            written, paths = harness_bench.WRITERS[log_format](folder, options.tasks,
                                                              options.epochs)
            logs = {role: list(written[role]) for role in ("baseline", "candidate")}
            say("logs (%s): %d tasks x %d trials = %d trials per system in %d log%s each; "
                "%.1f MB of JSON per system (written in %.1f s)" % (
                    log_format, options.tasks, options.epochs, samples, len(logs["baseline"]),
                    "" if len(logs["baseline"]) == 1 else "s",
                    sum(map(_tree_bytes, logs["baseline"])) / 1e6,
                    time.perf_counter() - started))
            read_command = [options.python, "-B", "-c", harness_bench.BARE_READ_SCRIPT] + [
                os.pathsep.join(logs[role]) for role in ("baseline", "candidate")] + [
                    str(fork_bytes)]
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
                            paths["candidate"], str(fork_bytes),
                            import_formats.BARE_READ_KIND[log_format]]
        say("interpreter: %s (%s)" % (options.python, describe_interpreter(options.python)))
        results = os.path.join(folder, "results.json")
        import_command = [options.python, "-B", "-m", "proagents_bench", "import"] + [
            argument for role in ("baseline", "candidate") for path in logs[role]
            for argument in ("--" + role, path)] + [
                          "--mapping", paths["mapping"], "--cases", paths["cases"],
                          "--baseline-id", "baseline", "--candidate-id", "candidate",
                          "--output", results]
        gate_command = [options.python, "-B", "-m", "proagents_bench", "--spec", paths["spec"],
                        "--cases", paths["cases"], "--results", results]
        import_runs, gate_runs, read_runs = [], [], []
        for _ in range(max(options.repeat, 1)):
            # The import's summary lines on stderr are kept with its document, not shown.
            import_runs.append(run_child(import_command, os.path.join(folder, "import.json"),
                                         os.path.join(folder, "import.stderr")))
            gate_runs.append(run_child(gate_command, os.path.join(folder, "decision.json")))
            read_runs.append(run_child(read_command))
        imported, gate = median_run(import_runs), median_run(gate_runs)
        bare = median_run(read_runs)
        if imported.status != 0:
            with open(os.path.join(folder, "import.stderr"), "rb") as handle:
                say(handle.read().decode("utf-8", "replace").rstrip())
        if imported.status != 0 or gate.status not in (0, 1) or bare.status != 0:
            say("a child failed: import exit %s, gate exit %s, bare read exit %s" % (
                imported.status, gate.status, bare.status))
            return False
        label = "median of %d" % len(gate_runs) if len(gate_runs) > 1 else "one run"
        say("import (both logs):   %7.2f s   peak %s   (%s)" % (
            imported.seconds, megabytes(imported.peak), label))
        say("gate on its output:   %7.2f s   peak %s   (exit %d; results %.1f MB)" % (
            gate.seconds, megabytes(gate.peak), gate.status, os.path.getsize(results) / 1e6))
        say("bare read of both logs (%s, on the import's cores): %7.2f s" % (
            "inflate + json.loads of every entry" if log_format == INSPECT_EVAL else
            "json.loads of the whole log" if log_format == PROMPTFOO_JSON else
            "json.loads of every file" if log_format in harness_bench.WRITERS else
            "json.loads of every line", bare.seconds))
        say("ratio: the import takes %.2fx the time of the gate%s" % (
            imported.seconds / gate.seconds, " and %.2fx its peak memory" % (
                imported.peak / gate.peak) if imported.peak and gate.peak else ""))
        say("floor: the bare read takes %.2fx the time of the gate; the import %.2fx the "
            "time of the bare read" % (bare.seconds / gate.seconds,
                                       imported.seconds / bare.seconds))
        if options.keep:
            say("kept the logs, the package and the documents in %s" % options.keep)
    return True


# The pure-Python zstd decoder's speed this work was to reach: three times the 2.6 MB/s of
# output its first version decoded of Inspect AI's sample entries on this project's machine.
ZSTD_PURE_TARGET_MB_PER_S = 7.8


def zstd_speeds(path: str, repeat: int) -> List[str]:
    """Lines that say how fast each zstd decoder present decodes the zstd entries of the
    ``.eval`` log at ``path`` (MB of output per second, the best of ``repeat`` passes, in
    this process), beside the pure decoder's target; none for a log without zstd entries."""
    entries = []
    with zipfile.ZipFile(path) as log, open(path, "rb") as stream:
        for info in log.infolist():
            if info.compress_type != ZSTD_METHOD:
                continue
            stream.seek(info.header_offset)
            fields = LOCAL_HEADER.unpack(stream.read(LOCAL_HEADER.size))
            stream.seek(info.header_offset + LOCAL_HEADER.size + fields[-2] + fields[-1])
            entries.append((info.file_size, stream.read(info.compress_size)))
    if not entries:
        return []
    output = sum(size for size, _raw in entries)
    lines = ["zstd entries of the template log: %d, %.2f MB decoded (each decoder's best of "
             "%d passes, in this process)" % (len(entries), output / 1e6, max(repeat, 1))]
    for name, decoder in zstd.DECODERS:
        best = float("inf")  # the fastest of at least one run
        for _ in range(max(repeat, 1)):
            started = time.perf_counter()
            for size, raw in entries:
                decoder(raw, size)
            best = min(best, time.perf_counter() - started)
        speed = output / 1e6 / max(best, 1e-9)
        lines.append("  %-16s %7.2f MB/s%s" % (name, speed, (
            "   (target %.1f MB/s: %s)" % (ZSTD_PURE_TARGET_MB_PER_S, "reached" if
                                           speed >= ZSTD_PURE_TARGET_MB_PER_S else "NOT reached")
            if decoder is zstd.decompress_pure else "")))
    return lines


def _tree_bytes(path: str) -> int:
    """The bytes of a log: a file's, or every file's of a folder."""
    if not os.path.isdir(path):
        return os.path.getsize(path)
    return sum(os.path.getsize(os.path.join(root, name)) for root, _folders, names in
               os.walk(path) for name in names)


def _json_bytes(path: str) -> int:
    with zipfile.ZipFile(path) as log:
        return sum(info.file_size for info in log.infolist())
