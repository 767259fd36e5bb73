"""The import benchmark's Inspect AI ``.eval`` logs (``bench import``, :mod:`.import_bench`):
a baseline's and a candidate's, deflated, one ``samples/<id>_epoch_<n>.json`` entry per task
and epoch, each shaped like the samples Inspect AI writes for a tool-using agent (messages,
tool and model events, scores, store, model usage; about 4 KB of JSON), with the cases file,
the spec and the mapping that import them; the same bytes for the same arguments.

The samples are synthetic (:data:`SAMPLE_TEMPLATE`), or a real ``.eval`` log's
(``--template-log``, :func:`read_templates`): each task is one of its samples in turn, by
entry name, with its id and epoch replaced, both logs alike. A sample as a real harness
writes it is often several times the synthetic one's bytes (Inspect AI 0.3.285 writes 17 to
29 KB for the order agent of ``tests/importers/fixtures``: every model event repeats its
input), and the import's time follows the bytes. :func:`zstd_speeds` times each zstd
decoder on such a log's own entries. :func:`write_format_logs` writes the same tasks and
epochs in the other formats of :mod:`.import_formats`. Nothing here is a test.
"""

from __future__ import annotations

import json
import os
import time
import zipfile
from typing import TYPE_CHECKING, Dict, List, Optional

from proagents_bench.contract.harnesses import INSPECT_EVAL, PROMPTFOO_JSON
from proagents_bench.errors import ContractErrors
from proagents_bench.importers import zstd
from proagents_bench.importers.inspect_eval import LOCAL_HEADER, ZSTD_METHOD, eval_samples
from proagents_bench.importers.source import LogSource

from . import harness_logs, import_formats

if TYPE_CHECKING:  # for annotations only
    from proagents_bench.jsonio import JSONObject

# A sample of the order agent, as Inspect AI writes one (keys it does not read included, so
# the decoding cost is a real log's); the placeholders are filled per task and epoch.
SAMPLE_TEMPLATE = {
    "id": "@ID@", "epoch": "@EPOCH@",
    "input": "[@ID@] order @ORDER@ delivered damaged, within refund window",
    "target": "refund_issued", "sandbox": None, "files": None, "setup": None,
    "messages": [
        {"id": "m1", "content": "[@ID@] order @ORDER@ delivered damaged", "source": "input",
         "role": "user"},
    # two tool calls, each the assistant's message and the tool's answer
    ] + [message for number, tool in ((1, "lookup_order"), (2, "@TOOL@")) for message in (
        {"id": "m%d" % (2 * number), "content": "tool call for tool " + tool,
         "source": "generate", "role": "assistant", "tool_calls": [
             {"id": "call_%d" % number, "function": tool, "arguments": {"order_id": "@ORDER@"},
              "type": "function"}], "model": "mockllm"},
        {"id": "m%d" % (2 * number + 1), "content": tool + "(@ORDER@): ok", "role": "tool",
         "tool_call_id": "call_%d" % number, "function": tool})] + [
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
# Every entry of the logs written here bears this time, so the same arguments give the
# same bytes.
ENTRY_TIME = (2026, 7, 21, 9, 0, 0)
PROTOCOL = {"protocol_version": "order-protocol-1", "environment_id": "order-sandbox-v1",
            "toolset_id": "order-tools-v1", "reset_policy": "fresh-sandbox-per-trial",
            "max_steps": 8, "timeout_seconds": 30, "retry_limit": 0}
BENCHMARK = {"benchmark_id": "bench-import", "benchmark_version": "1",
             "dataset_version": "bench-import-tasks"}



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
    paths.update(import_formats.write_documents(folder, benchmark_documents(tasks, epochs,
                                                                            templates)))
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
        "spec": harness_logs.synthetic_spec(BENCHMARK, PROTOCOL, epochs, 2000, 2500),
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


