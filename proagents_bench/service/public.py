"""What the service publishes without a token: the spec, the grader interface and the public
view of the cases.

A test case's public view keeps what an agent needs to run it (its id, family, slice, task
type, whether it is critical, its initial state and its allowed tools) and withholds what
grades it: ``expected_final_state`` and ``forbidden_side_effects`` (:data:`WITHHELD`).
Train and development cases are published whole. Nothing derived from the withheld fields
is published either: not the cases file's hash and not an evidence fingerprint, since both
hash the whole cases file, and with the rest of it public a small vocabulary of states could
be tried against the hash offline.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Iterable, List, Sequence, Set

from ..contract import publish
from ..contract.inputs import FILE_KINDS
from ..contract.vocabulary import BLOCKING, CHECKS, HARDNESS, REVIEWING, TEST_SPLIT
from ..version import harness

if TYPE_CHECKING:  # for annotations only
    from ..jsonio import JSONObject

PUBLIC_CASES_VERSION = "proagents-bench-public-cases-v1"
GRADER_VERSION = "proagents-bench-grader-v1"
WITHHELD = ("expected_final_state", "forbidden_side_effects")

GRADING_RULES = (
    "A trial passes when all four checks hold: status is success; final_state equals the "
    "case's expected_final_state after both are case-folded, trimmed and their inner "
    "whitespace runs collapsed to one space (null never matches); side_effects shares "
    "nothing with forbidden_side_effects; tools_used is a subset of allowed_tools. A task's "
    "trial success rate is its passing trials over trial_count, and it passes at the spec's "
    "task_min_trial_success_rate. Only test tasks are ranked. The paired comparison bootstraps "
    "test tasks with the spec's seed; the decision is INCOMPARABLE on any protocol mismatch, "
    "BLOCK on a failed critical task or %s gate, REVIEW on a failed %s gate, else PASS." % (
        HARDNESS[BLOCKING], HARDNESS[REVIEWING]))

def versions_text(versions: Sequence[str]) -> str:
    """Schema versions as a list to read: ``a-v1, -v2 or -v3`` (each after the first by its
    last part)."""
    shown = [versions[0]] + ["-" + version.rsplit("-", 1)[-1] for version in versions[1:]]
    if len(shown) == 1:
        return shown[0]
    return "%s or %s" % (", ".join(shown[:-1]), shown[-1])


def submission_rules(results_version: str) -> str:
    """How to submit, with every results version the gate reads (from the contract's table
    of file kinds) and the one this service takes (its baseline package's)."""
    return (
        "POST /v1/submissions with Authorization: Bearer TOKEN and, as the body, a results "
        "package (%s) whose systems array holds only the candidate (role candidate), in the "
        "same schema_version as this service's baseline package: %s. The service adds the "
        "maintainer's baseline system, runs the same gate as run_benchmark.py, and answers "
        "with what the team's feedback level allows. Contract errors name the file "
        "submission.json and spend no budget." % (
            versions_text(list(FILE_KINDS["results"])), results_version))


def public_cases(cases: JSONObject) -> JSONObject:
    """The public view of a valid cases file's value."""
    shown = []
    for case in cases["cases"]:
        if case["split"] == TEST_SPLIT:
            shown.append({key: value for key, value in case.items() if key not in WITHHELD})
        else:
            shown.append(dict(case))
    return {
        "schema_version": PUBLIC_CASES_VERSION,
        "benchmark_id": cases["benchmark_id"],
        "benchmark_version": cases["benchmark_version"],
        "dataset_version": cases["dataset_version"],
        "withheld_from_test_cases": list(WITHHELD),
        "cases": shown,
    }


def private_values(cases: JSONObject) -> List[str]:
    """Every withheld value of every test case (for the tests that search every response)."""
    found: Set[str] = set()
    for case in cases["cases"]:
        if case["split"] == TEST_SPLIT:
            found.add(case["expected_final_state"])
            found.update(case["forbidden_side_effects"])
    return sorted(found)


ROUNDING_RULE = (
    "At the rounded level the primary task success rate is rounded to the nearest multiple "
    "of the team's rounding step (halves away from zero) and the paired bootstrap interval "
    "is widened outward to multiples of it. A step is never finer than two standard errors "
    "of a score over the n test tasks feedback is computed on: step >= 1/sqrt(n). Without a "
    "step of its own, a team gets the finest of automatic_rounding_steps that the rule "
    "allows.")


def grader_interface(levels: Iterable[str], automatic_steps: List[float],
                     max_submission_bytes: int, results_version: str) -> JSONObject:
    """The grader's published interface: the JSON Schemas, the grading rules, the output
    contract and how to submit."""
    return {
        "schema_version": GRADER_VERSION,
        "harness": harness(),
        "schemas": {kind: publish.schema(kind) for kind in publish.GRADER_KINDS},
        "grading_rules": GRADING_RULES,
        "checks": list(CHECKS),
        "submission": submission_rules(results_version),
        "submission_schema_version": results_version,
        "max_submission_bytes": max_submission_bytes,
        "feedback_levels": list(levels),
        "rounding": ROUNDING_RULE,
        "automatic_rounding_steps": automatic_steps,
    }
