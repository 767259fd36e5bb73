"""Two trials of one task set side by side: the checks the candidate's trial failed, its
final state against the expected one key by key, the two traces aligned step by step, the
first step where the candidate left the baseline's path, and the step that broke a rule.

The alignment is the standard library's :class:`difflib.SequenceMatcher` over the traces'
tool calls, each by its signature (the tool's name and its arguments as canonical JSON):
calls in both, in order, are ``same``; a call of one where the other made another is
``changed`` (``same tool, other arguments`` when only the arguments differ); a call of one
alone is ``baseline_only`` or ``candidate_only``. Messages and results are not aligned: they
are the traces' own, shown beside them.
"""

from __future__ import annotations

import json
from difflib import SequenceMatcher
from typing import TYPE_CHECKING, Dict, List, Optional, Sequence, Tuple

from ..contract.explanation import ALIGNMENT_OPS
from ..evaluation.grading import normalize_state
from ..importers.trace import CHECK, FAILED, TOOL_CALL, Step

if TYPE_CHECKING:  # for annotations only
    from ..importers.trace import Trace
    from ..jsonio import JSON, JSONObject

# The alignment's rows, as the explanation's contract names them.
SAME, CHANGED, BASELINE_ONLY, CANDIDATE_ONLY = ALIGNMENT_OPS


def failed_checks(case: JSONObject, record: JSONObject) -> List[JSONObject]:
    """The grading checks ``record`` failed on ``case``, each with what failed it."""
    failed = []
    if record["status"] != "success":
        failed.append({"check": "status_success", "text": "status %s, not success" % (
            record["status"])})
    expected = case["expected_final_state"]
    if record["final_state"] is None or normalize_state(record["final_state"]) != (
            normalize_state(expected)):
        failed.append({"check": "final_state_correct", "text": "final state %s, expected %s"
                       % (json.dumps(record["final_state"]), json.dumps(expected))})
    forbidden = sorted(set(record["side_effects"]).intersection(case["forbidden_side_effects"]))
    if forbidden:
        failed.append({"check": "side_effects_safe", "text": "forbidden side effect%s %s" % (
            "s" if len(forbidden) > 1 else "", ", ".join(forbidden))})
    outside = sorted(set(record["tools_used"]).difference(case["allowed_tools"]))
    if outside:
        failed.append({"check": "tools_allowed", "text": "tool%s outside the allowed set: %s"
                       % ("s" if len(outside) > 1 else "", ", ".join(outside))})
    return failed


def final_state_rows(expected: str, actual: Optional[str]) -> List[JSONObject]:
    """The final state against the expected one, key by key when both are JSON objects (a
    key one lacks is null there), else as one value; ``equal`` as the grader compares
    (case-folded, trimmed, inner white space collapsed: a JSON object's text too)."""
    mine, theirs = _object(actual), _object(expected)
    if mine is None or theirs is None:
        return [{"key": None, "expected": expected, "actual": actual,
                 "equal": actual is not None and normalize_state(actual) == normalize_state(
                     expected)}]
    rows = []
    for key in sorted(set(mine).union(theirs)):
        shown = [_shown(values, key) for values in (theirs, mine)]
        rows.append({"key": key, "expected": shown[0], "actual": shown[1],
                     "equal": shown[1] is not None and shown[0] == shown[1]})
    return rows


def _object(text: Optional[str]) -> Optional[Dict[str, JSON]]:
    try:
        value = json.loads(text) if text is not None else None
    except ValueError:
        return None
    return value if isinstance(value, dict) else None


def _shown(values: Dict[str, JSON], key: str) -> Optional[str]:
    if key not in values:
        return None
    value = values[key]
    return value if isinstance(value, str) else json.dumps(value, sort_keys=True)


def aligned(baseline: Trace, candidate: Trace) -> Tuple[List[JSONObject],
                                                        Optional[JSONObject]]:
    """The two traces' tool calls aligned (see the module docstring), and the first row that
    is not ``same`` (None when the candidate made the baseline's calls, in order)."""
    theirs = [step for step in baseline.steps if step.kind == TOOL_CALL]
    mine = [step for step in candidate.steps if step.kind == TOOL_CALL]
    matcher = SequenceMatcher(None, [step.signature for step in theirs],
                              [step.signature for step in mine], autojunk=False)
    rows: List[JSONObject] = []
    for tag, low, high, start, end in matcher.get_opcodes():
        left, right = theirs[low:high], mine[start:end]
        paired = min(len(left), len(right)) if tag == "replace" else 0
        for one, other in zip(left[:paired], right[:paired]):
            rows.append(_row(CHANGED, one, other))
        if tag == "equal":
            rows.extend(_row(SAME, one, other) for one, other in zip(left, right))
            continue
        rows.extend(_row(BASELINE_ONLY, one, None) for one in left[paired:])
        rows.extend(_row(CANDIDATE_ONLY, None, other) for other in right[paired:])
    first = next((dict(row, same_before=index) for index, row in enumerate(rows)
                  if row["op"] != SAME), None)
    return rows, first


def _row(op: str, baseline: Optional[Step], candidate: Optional[Step]) -> JSONObject:
    row: JSONObject = {"op": op, "baseline": baseline.document() if baseline else None,
                       "candidate": candidate.document() if candidate else None}
    if op == CHANGED and baseline is not None and candidate is not None and (
            baseline.name == candidate.name):
        row["note"] = "same tool, other arguments"
    return row


def rules_broken(case: JSONObject, record: JSONObject,
                 trace: Optional[Trace]) -> List[JSONObject]:
    """Each rule the trial broke (a forbidden side effect, a tool outside the allowed set),
    with the first call of the trace that broke it (None without a trace, or when no call
    of that name is in it: a side effect a store change made, say)."""
    rules: List[Tuple[str, str]] = [
        ("forbidden side effect %s" % name, name) for name in sorted(
            set(record["side_effects"]).intersection(case["forbidden_side_effects"]))]
    rules += [("tool %s outside the allowed set" % name, name) for name in sorted(
        set(record["tools_used"]).difference(case["allowed_tools"]))]
    broken = []
    for rule, name in rules:
        step = _first_call(trace.steps if trace is not None else (), name)
        found: JSONObject = {"rule": rule, "step": step.document() if step else None}
        if step is None and trace is not None:
            found["note"] = ("no call of %s in the trace: the record's side effect came from "
                             "elsewhere (a store change, the mapping's rule)" % name)
        broken.append(found)
    return broken


def _first_call(steps: Sequence[Step], name: str) -> Optional[Step]:
    return next((step for step in steps if step.kind == TOOL_CALL and step.name == name), None)


def harness_checks(trace: Optional[Trace]) -> List[JSONObject]:
    """The checks the harness itself graded and the trial failed (a test, an assertion, the
    verifier)."""
    if trace is None:
        return []
    return [step.document() for step in trace.steps
            if step.kind == CHECK and step.status == FAILED]
