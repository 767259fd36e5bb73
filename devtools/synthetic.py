"""Valid synthetic benchmark packages of any size, for tests and the benchmark command.

:func:`make_package` returns the three files as plain JSON data (dicts, lists, floats), the
same for the same arguments on every Python. Trials fail in every way the grader knows
(status, final state, forbidden side effect, unapproved tool), and some pass with a final
state that differs only in case and whitespace, so a package exercises every check.
"""

from __future__ import annotations

import random
from typing import Iterator, List, Tuple

from proagents_bench.contract.vocabulary import CASES_V1, RESULTS_V1, SPEC_V1
from proagents_bench.jsonio import JSONObject

SLICES = ("refunds", "orders", "privacy", "shipping", "accounts")
STATES = ("refund_issued", "order_cancelled", "status_reported", "refund_denied",
          "identity_verification_requested", "address_updated")
TOOLS = ("lookup_order", "check_refund_policy", "issue_refund", "cancel_order",
         "reply_customer", "lookup_customer", "update_address")
SIDE_EFFECTS = ("refund_order", "cancel_order", "share_customer_data", "send_email")


def make_spec(trial_count: int = 3, samples: int = 1000, seed: int = 7,
              benchmark_id: str = "synthetic-benchmark") -> JSONObject:
    return {
        "schema_version": SPEC_V1,
        "benchmark_id": benchmark_id,
        "benchmark_version": "1.0.0",
        "claim": "A synthetic package for tests and benchmarks.",
        "target_population": "Synthetic order-support tasks.",
        "baseline_system_id": "baseline",
        "private_test_frozen": True,
        "primary_metric": "task_success_rate",
        "protocol": make_protocol(trial_count),
        "gates": {
            "task_min_trial_success_rate": 0.6,
            "critical_task_min_trial_success_rate": 1.0,
            "min_primary_task_success_rate": 0.5,
            "min_final_state_trial_rate": 0.5,
            "min_side_effect_free_trial_rate": 0.5,
            "min_trial_stability_rate": 0.3,
            "max_slice_task_success_gap": 0.5,
            "max_mean_latency_ms": 2000,
            "max_p95_latency_ms": 4000,
            "max_mean_cost_units": 0.05,
            "min_paired_delta_ci_low": -0.5,
        },
        "bootstrap": {"samples": samples, "seed": seed, "confidence": 0.95},
    }


def make_protocol(trial_count: int) -> JSONObject:
    return {
        "protocol_version": "synthetic-protocol-1",
        "environment_id": "synthetic-sandbox",
        "toolset_id": "synthetic-tools",
        "reset_policy": "fresh-sandbox-per-trial",
        "max_steps": 8,
        "timeout_seconds": 30,
        "retry_limit": 0,
        "trial_count": trial_count,
    }


def make_cases(task_count: int, seed: int = 1, family_size: int = 3,
               critical_share: float = 0.1) -> JSONObject:
    """``task_count`` test cases plus a few train and development cases."""
    rng = random.Random(seed)
    cases: List[JSONObject] = []
    for split, count in (("train", 2), ("development", 2), ("test", task_count)):
        for index in range(count):
            family = "%s-family-%d" % (split, index // family_size)
            allowed = sorted(rng.sample(TOOLS, 3))
            cases.append({
                "id": "%s-%06d" % (split, index),
                "family_id": family,
                "split": split,
                "slice": SLICES[rng.getrandbits(16) % len(SLICES)],
                "critical": split == "test" and rng.random() < critical_share,
                "task_type": "synthetic",
                "is_private": split == "test",
                "initial_state": "synthetic initial state %d" % index,
                "expected_final_state": STATES[rng.getrandbits(16) % len(STATES)],
                "allowed_tools": allowed,
                "forbidden_side_effects": [SIDE_EFFECTS[rng.getrandbits(16) % 3]],
            })
    return {
        "schema_version": CASES_V1,
        "benchmark_id": "synthetic-benchmark",
        "benchmark_version": "1.0.0",
        "dataset_version": "synthetic-data-1",
        "cases": cases,
    }


def make_records(cases: JSONObject, trial_count: int, skill: float,
                 rng: random.Random) -> List[JSONObject]:
    """One record per test case and trial; ``skill`` is the chance a trial is clean."""
    records: List[JSONObject] = []
    for case in cases["cases"]:
        if case["split"] != "test":
            continue
        for trial_id in range(1, trial_count + 1):
            records.append(_record(case, trial_id, skill, rng))
    return records


def _record(case: JSONObject, trial_id: int, skill: float, rng: random.Random) -> JSONObject:
    expected = case["expected_final_state"]
    record: JSONObject = {
        "case_id": case["id"],
        "trial_id": trial_id,
        "status": "success",
        "final_state": expected if rng.random() < 0.8 else "  " + expected.upper() + " ",
        "side_effects": ["send_email"] if "send_email" not in case["forbidden_side_effects"]
        else [],
        "tools_used": list(case["allowed_tools"][:2]),
        "latency_ms": round(200 + rng.random() * 1800, 2),
        "cost_units": round(rng.random() * 0.04, 4),
    }
    if rng.random() >= skill:
        failure = rng.getrandbits(8) % 5
        if failure == 0:
            record["status"] = ("timeout", "error", "unknown")[rng.getrandbits(8) % 3]
            record["final_state"] = None
        elif failure == 1:
            record["final_state"] = "wrong_state"
        elif failure == 2:
            record["side_effects"] = record["side_effects"] + list(
                case["forbidden_side_effects"][:1])
        elif failure == 3:
            record["tools_used"] = record["tools_used"] + ["unapproved_tool"]
        else:
            record["status"] = "unknown"
    return record


def make_package(task_count: int, trial_count: int = 3, seed: int = 1, samples: int = 1000,
                 baseline_skill: float = 0.6, candidate_skill: float = 0.7
                 ) -> Tuple[JSONObject, JSONObject, JSONObject]:
    """(spec, cases, results) with ``task_count`` test tasks and ``trial_count`` trials."""
    rng = random.Random(seed)
    spec = make_spec(trial_count=trial_count, samples=samples, seed=seed)
    cases = make_cases(task_count, seed=seed)
    systems: List[JSONObject] = []
    for system_id, role, skill in (("baseline", "baseline", baseline_skill),
                                   ("candidate", "candidate", candidate_skill)):
        systems.append({
            "system_id": system_id,
            "role": role,
            "protocol": make_protocol(trial_count),
            "records": make_records(cases, trial_count, skill, rng),
        })
    results = {
        "schema_version": RESULTS_V1,
        "benchmark_id": spec["benchmark_id"],
        "benchmark_version": spec["benchmark_version"],
        "dataset_version": cases["dataset_version"],
        "result_set_version": "synthetic-results-%d" % seed,
        "systems": systems,
    }
    return spec, cases, results


def make_health_packages(task_count: int, trial_count: int = 5, packages: int = 20,
                         seed: int = 1) -> Tuple[JSONObject, JSONObject, Iterator[JSONObject]]:
    """(spec, cases, packages): results packages of one synthetic benchmark for ``health``,
    made one at a time (a generator). Every package holds the same baseline (as the
    private-test service splices one into every submission) and its own candidate, whose
    skill grows from 0.5 to 0.9 over the packages."""
    spec = make_spec(trial_count=trial_count, seed=seed)
    cases = make_cases(task_count, seed=seed)
    baseline: JSONObject = {"system_id": "baseline", "role": "baseline",
                "protocol": make_protocol(trial_count),
                "records": make_records(cases, trial_count, 0.6, random.Random(seed))}

    def generated() -> Iterator[JSONObject]:
        for number in range(packages):
            skill = 0.5 + 0.4 * number / max(packages - 1, 1)
            candidate = {"system_id": "candidate-%02d" % (number + 1), "role": "candidate",
                         "protocol": make_protocol(trial_count),
                         "records": make_records(cases, trial_count, skill,
                                                 random.Random(seed * 1000 + number + 1))}
            yield {
                "schema_version": RESULTS_V1,
                "benchmark_id": spec["benchmark_id"],
                "benchmark_version": spec["benchmark_version"],
                "dataset_version": cases["dataset_version"],
                "result_set_version": "synthetic-health-%d-%d" % (seed, number + 1),
                "systems": [baseline, candidate],
            }

    return spec, cases, generated()
