"""Write the JSON-lines fixtures: the example's regression package
(``examples/benchmark_results_regression.json``) as an in-house harness might log it, one
line per trial with its own field names, and the v2 mapping that reads them back
(``jsonl_mapping.json``: the example's protocol and the ``lines`` pointers).

A line: ``{"run": {"model": ...}, "task": {"id": ...}, "attempt": <trial id - 1>,
"outcome": "completed", "answer": <final state>, "calls": [<tools>], "writes": [<side
effects>], "elapsed_ms": <latency>, "usd": <cost>}``, the lines in the order of the
example's records with the attempts of each task reversed (a log need not be sorted), and
the candidate's log ending in a blank line. The suite checks that this script still writes
the committed files (``test_jsonl_import.py``)::

    python make_jsonl_logs.py [OUTPUT_FOLDER]
"""

import json
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
EXAMPLE = os.path.join(HERE, "..", "..", "examples", "benchmark_results_regression.json")
STATUS_WORDS = {"success": "completed", "error": "crashed", "timeout": "timed_out",
                "unknown": None}


def line(system_id, record):
    return {"run": {"model": system_id}, "task": {"id": record["case_id"]},
            "attempt": record["trial_id"] - 1, "outcome": STATUS_WORDS[record["status"]],
            "answer": record["final_state"], "calls": record["tools_used"],
            "writes": record["side_effects"], "elapsed_ms": record["latency_ms"],
            "usd": record["cost_units"]}


def files():
    """{file name: bytes} of the fixtures."""
    with open(EXAMPLE, "rb") as handle:
        package = json.loads(handle.read().decode("utf-8"))
    written = {}
    for system in package["systems"]:
        records = sorted(system["records"], key=lambda record: (
            [item["case_id"] for item in system["records"]].index(record["case_id"]),
            -record["trial_id"]))
        text = "".join(json.dumps(line(system["system_id"], record), sort_keys=True) + "\n"
                       for record in records)
        if system["role"] == "candidate":
            text += "\n"
        written["jsonl_%s.jsonl" % system["role"]] = text.encode("utf-8")
    mapping = {
        "schema_version": "proagents-bench-import-mapping-v2",
        "protocol": package["systems"][0]["protocol"],
        "lines": {
            "case_id": "/task/id", "trial_id": "/attempt", "first_trial": 0,
            "system_id": "/run/model",
            "status": {"pointer": "/outcome",
                       "values": {word if word is not None else "null": status
                                  for status, word in STATUS_WORDS.items()}},
            "final_state": "/answer", "tools_used": "/calls", "side_effects": "/writes",
            "latency_ms": "/elapsed_ms", "cost": "/usd",
        },
    }
    written["jsonl_mapping.json"] = (json.dumps(mapping, indent=2) + "\n").encode("utf-8")
    return written


def main(output):
    for name, data in files().items():
        with open(os.path.join(output, name), "wb") as handle:
            handle.write(data)


if __name__ == "__main__":
    main(sys.argv[1] if len(sys.argv) > 1 else os.path.join(HERE, "fixtures"))
