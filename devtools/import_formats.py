"""The import benchmark's logs in the formats beside Inspect AI's ``.eval``: a promptfoo
``results.json`` (each test a task, ``repeat`` its epochs) and a JSON-lines log (each line
the benchmark's synthetic sample with the fields the mapping's pointers name), with the
cases, the spec and the mapping that import them, for ``bench import --format``.

The same tasks and epochs as the ``.eval`` logs, the candidate failing the same critical
task in 50, the same bytes for the same arguments; the bare read of a JSON log decodes the
whole file, of a JSON-lines log every line (``import_bench.BARE_READ_SCRIPT``).
"""

from __future__ import annotations

import json
import os
from typing import TYPE_CHECKING, Callable, Dict

from proagents_bench.contract.harnesses import INSPECT_EVAL, JSONL, PROMPTFOO_JSON
from proagents_bench.contract.vocabulary import MAPPING_V1, MAPPING_V2, PASSED

if TYPE_CHECKING:  # for annotations only
    from proagents_bench.jsonio import JSONObject

# How the bare read decodes each format's log (``import_bench.BARE_READ_SCRIPT``'s kinds).
BARE_READ_KIND = {INSPECT_EVAL: "zip", PROMPTFOO_JSON: "json", JSONL: "lines"}
# A promptfoo result as promptfoo 0.123.1 writes one for a local provider (its keys, so the
# decoding cost is a real file's); the placeholders are filled per task and repetition.
PROMPTFOO_RESULT: JSONObject = {
    "cost": 0.000017, "error": None, "gradingResult": {
        "pass": "@PASS@", "score": "@SCORE@", "reason": "@REASON@", "namedScores": {},
        "tokensUsed": {"total": 0, "prompt": 0, "completion": 0, "cached": 0,
                       "numRequests": 0},
        "componentResults": [{"pass": "@PASS@", "score": "@SCORE@", "reason": "@REASON@",
                              "assertion": {"type": "contains", "value": "refund issued"}}]},
    "id": "result-@ID@-@EPOCH@", "latencyMs": "@LATENCY@", "namedScores": {},
    "prompt": {"raw": "Customer request: refund order @ID@",
               "label": "Customer request: {{request}}", "config": {}},
    "promptId": "87d215de5d0471e44f5772ad66b07f50452ad8c5ce664b0345987ef8cdb3e2c2",
    "promptIdx": 0, "provider": {"id": "file://order_agent.js:@SYSTEM@", "label": "@SYSTEM@"},
    "response": {"output": "@OUTPUT@", "tokenUsage": {
        "prompt": 12, "completion": 5, "cached": 0, "total": 17, "numRequests": 1,
        "completionDetails": {"reasoning": 0, "acceptedPrediction": 0,
                              "rejectedPrediction": 0, "cacheReadInputTokens": 0,
                              "cacheCreationInputTokens": 0}}, "cost": 0.000017},
    "score": "@SCORE@", "success": "@PASS@",
    "testCase": {"description": "@ID@", "vars": {"request": "refund order @ID@"},
                 "assert": [{"type": "contains", "value": "refund issued"}], "options": {},
                 "metadata": {"critical": "@CRITICAL@", "family_id": "family-@ID@"}},
    "testIdx": "@INDEX@", "tokenUsage": {"prompt": 12, "completion": 5, "cached": 0,
                                         "total": 17, "numRequests": 1},
    "vars": {"request": "refund order @ID@"}, "metadata": {"_promptfooFileMetadata": {}},
    "failureReason": "@REASON_CODE@",
}


def _filled(template: str, values: Dict[str, str]) -> str:
    parts = template.split("@")
    return "".join(values[part] if index % 2 else part for index, part in enumerate(parts))


def _template_text(template: JSONObject) -> str:
    """The template as JSON (indented as promptfoo writes), each quoted placeholder that
    stands for a number or a Boolean unquoted."""
    text = json.dumps(template, indent=2)
    for name in ("PASS", "SCORE", "LATENCY", "INDEX", "REASON_CODE", "CRITICAL", "EPOCH"):
        text = text.replace('"@%s@"' % name, "@%s@" % name)
    return text


def write_promptfoo(folder: str, tasks: int, epochs: int,
                    base: Dict[str, JSONObject]) -> Dict[str, str]:
    """Both systems' promptfoo results files, and the cases, spec and mapping (``base``:
    the ``.eval`` benchmark's documents, adapted)."""
    template = _template_text(PROMPTFOO_RESULT)
    paths = {}
    for role in ("baseline", "candidate"):
        paths[role] = os.path.join(folder, role + ".json")
        with open(paths[role], "w", encoding="utf-8") as handle:
            handle.write('{\n"evalId": "bench-%s",\n"results": {"version": 3, "timestamp": '
                         '"2026-07-21T09:00:00.000Z", "prompts": [], "results": [\n' % role)
            index = 0
            for task in range(tasks):
                failing = role == "candidate" and task % 50 == 7
                for epoch in range(1, epochs + 1):
                    handle.write(",\n" if index else "")
                    handle.write(_filled(template, {
                        "ID": "task-%06d" % task, "EPOCH": str(epoch), "SYSTEM": role,
                        "PASS": "false" if failing else "true",
                        "SCORE": "0" if failing else "1",
                        "REASON": "Expected output to contain \\\"refund issued\\\"" if failing
                        else "All assertions passed",
                        "REASON_CODE": "1" if failing else "0",
                        "OUTPUT": "refunds are closed" if failing else "refund issued",
                        "LATENCY": str(500 + (task * 7 + epoch * 3) % 100 * 10),
                        "INDEX": str(index), "CRITICAL": "true" if task % 50 == 7 else "false"}))
                    index += 1
            stats = {"successes": tasks * epochs, "failures": 0, "errors": 0}
            handle.write('\n], "stats": %s},\n"config": {"evaluateOptions": {"repeat": %d, '
                         '"timeoutMs": 30000}},\n"metadata": {"promptfooVersion": "0.123.1"},'
                         '\n"runtimeOptions": {"repeat": %d}\n}\n' % (
                             json.dumps(stats), epochs, epochs))
    cases = [dict(case, expected_final_state=PASSED, allowed_tools=[])
             for case in base["cases"]["cases"]]
    protocol = {key: value for key, value in base["spec"]["protocol"].items()
                if key in ("protocol_version", "environment_id", "toolset_id",
                           "reset_policy")}
    documents = {
        "cases": dict(base["cases"], cases=cases),
        # promptfoo's own: one provider call a test, no retries, its timeout.
        "spec": dict(base["spec"], protocol=dict(protocol, max_steps=1, retry_limit=0,
                                                 timeout_seconds=30, trial_count=epochs),
                     gates=dict(base["spec"]["gates"], max_mean_cost_units=100)),
        "mapping": {"schema_version": MAPPING_V1, "protocol": protocol},
    }
    paths.update(write_documents(folder, documents))
    return paths


def write_jsonl(folder: str, tasks: int, epochs: int, base: Dict[str, JSONObject],
                sample: Callable[[str, int, int], bytes]) -> Dict[str, str]:
    """Both systems' JSON-lines logs (each line ``sample(role, task, epoch)``, the ``.eval``
    benchmark's synthetic sample, with the tools it called and its latency in front), and
    the cases, spec and a v2 mapping that points at the sample's own fields."""
    paths = {}
    for role in ("baseline", "candidate"):
        paths[role] = os.path.join(folder, role + ".jsonl")
        with open(paths[role], "wb") as handle:
            for task in range(tasks):
                tool = b"refund_order" if role == "candidate" and task % 50 == 7 else (
                    b"issue_refund")
                for epoch in range(1, epochs + 1):
                    data = sample(role, task, epoch)
                    handle.write(b'{"tools":["lookup_order","%s"],"latency_ms":%d,%s\n' % (
                        tool, 500 + (task * 7 + epoch * 3) % 100 * 10, data[1:]))
    documents = {
        "cases": base["cases"], "spec": base["spec"],
        "mapping": {"schema_version": MAPPING_V2, "protocol": dict(base["mapping"]["protocol"],
                                                                trial_count=epochs),
                    "lines": {"case_id": "/id", "trial_id": "/epoch",
                              "status": {"pointer": "/error", "values": {"null": "success"}},
                              "final_state": "/scores/match/answer", "tools_used": "/tools",
                              "side_effects": "/store/side_effects",
                              "latency_ms": "/latency_ms",
                              "cost": "/model_usage/mockllm~1model/total_cost",
                              "metadata": "/metadata"}},
    }
    paths.update(write_documents(folder, documents))
    return paths


def write_documents(folder: str, documents: Dict[str, JSONObject]) -> Dict[str, str]:
    """Each document as ``KIND.json`` in ``folder``; return the paths."""
    paths = {}
    for kind, value in documents.items():
        paths[kind] = os.path.join(folder, kind + ".json")
        with open(paths[kind], "w", encoding="utf-8") as handle:
            json.dump(value, handle)
    return paths
