"""Grade every trial record of one system against its test case.

A trial passes when all four checks hold (the contract's "Grading" section):

- ``status_success``: status is ``success``;
- ``final_state_correct``: ``final_state`` equals the case's ``expected_final_state`` once
  both are case-folded, trimmed and their inner whitespace runs collapsed to one space
  (whitespace as Python's ``str.split()`` knows it); ``null`` never matches;
- ``side_effects_safe``: ``side_effects`` shares nothing with ``forbidden_side_effects``;
- ``tools_allowed``: ``tools_used`` is a subset of ``allowed_tools``.

``unknown``, ``timeout`` and ``error`` are recorded failures, not contract errors. Each trial's
outcome is one small integer (a bit per check), so a million trials cost a million bytes.

This is the one pass over the records that the metrics need: it also collects each trial's
latency and cost (in the same canonical order) and counts the ``unknown`` statuses and the
unmeasured (null) latencies and costs, so no later stage walks a million records again for
them (``list.count(None)`` would compare each Decimal with None, an abstract-class check per
value). A final state equal to the expected one
as written matches without normalising either (normalising is a function of the text).
"""

from __future__ import annotations

from decimal import Decimal
from typing import TYPE_CHECKING, List, Optional, Union

from ..contract.vocabulary import CHECKS, SUCCESS, UNKNOWN
from ..steps import BATCH, watcher

if TYPE_CHECKING:  # for annotations only
    from ..jsonio import JSONObject

# A trial's latency or cost as written (an integer, or an exact decimal); None: not measured.
Measure = Union[int, Decimal]

# A bit per check, in the contract's order of CHECKS.
STATUS_SUCCESS, FINAL_STATE_CORRECT, SIDE_EFFECTS_SAFE, TOOLS_ALLOWED = 1, 2, 4, 8
ALL_CHECKS = STATUS_SUCCESS | FINAL_STATE_CORRECT | SIDE_EFFECTS_SAFE | TOOLS_ALLOWED
CHECK_BITS = dict(zip(CHECKS, (STATUS_SUCCESS, FINAL_STATE_CORRECT, SIDE_EFFECTS_SAFE,
                               TOOLS_ALLOWED)))


def normalize_state(text: str) -> str:
    """Case-fold, trim and collapse inner whitespace runs to one space."""
    return " ".join(text.casefold().split())


class SystemGrades:
    """The graded trials of one system.

    ``tasks`` are the test cases in file order; ``records`` the system's records in canonical
    order (task, then trial id), ``trial_count`` per task; ``outcomes[i]`` is the check bits of
    ``records[i]``, ``latencies[i]`` and ``costs[i]`` its ``latency_ms`` and ``cost_units``;
    ``unknown_trial_count`` counts the trials whose status is ``unknown``,
    ``unmeasured_latency_count`` and ``unmeasured_cost_count`` the None among ``latencies``
    and ``costs``.
    """

    def __init__(self, system: JSONObject, tasks: List[JSONObject], records: List[JSONObject],
                 outcomes: bytearray, latencies: List[Optional[Measure]],
                 costs: List[Optional[Measure]], unknown_trial_count: int,
                 unmeasured_latency_count: int, unmeasured_cost_count: int) -> None:
        self.system = system
        self.tasks = tasks
        self.records = records
        self.outcomes = outcomes
        self.trial_count: int = system["protocol"]["trial_count"]
        self.latencies = latencies
        self.costs = costs
        self.unknown_trial_count = unknown_trial_count
        self.unmeasured_latency_count = unmeasured_latency_count
        self.unmeasured_cost_count = unmeasured_cost_count

    def task_outcomes(self, task_position: int) -> bytearray:
        start = task_position * self.trial_count
        return self.outcomes[start:start + self.trial_count]


def grade_system(system: JSONObject, tasks: List[JSONObject],
                 ordered_records: List[JSONObject]) -> SystemGrades:
    """Grade ``ordered_records`` of ``system``: its records in canonical order (the test
    ``tasks`` in file order, then trial id), as the coverage rules leave them."""
    trials = system["protocol"]["trial_count"]
    outcomes = bytearray(len(ordered_records))
    latencies: List[Optional[Measure]] = []
    costs: List[Optional[Measure]] = []
    add_latency, add_cost = latencies.append, costs.append
    unknown = unmeasured_latencies = unmeasured_costs = 0
    position = 0
    advance = watcher()
    told = 0
    for case in tasks:
        if advance is not None and position - told >= BATCH:
            advance(position - told)
            told = position
        written = case["expected_final_state"]
        expected = normalize_state(written)
        forbidden = frozenset(case["forbidden_side_effects"])
        allowed = frozenset(case["allowed_tools"])
        for record in ordered_records[position:position + trials]:
            bits = 0
            status = record["status"]
            if status == SUCCESS:
                bits = STATUS_SUCCESS
            elif status == UNKNOWN:
                unknown += 1
            final_state = record["final_state"]
            if final_state is not None and (final_state == written
                                            or normalize_state(final_state) == expected):
                bits |= FINAL_STATE_CORRECT
            if forbidden.isdisjoint(record["side_effects"]):
                bits |= SIDE_EFFECTS_SAFE
            if allowed.issuperset(record["tools_used"]):
                bits |= TOOLS_ALLOWED
            outcomes[position] = bits
            latency = record["latency_ms"]
            if latency is None:
                unmeasured_latencies += 1
            add_latency(latency)
            cost = record["cost_units"]
            if cost is None:
                unmeasured_costs += 1
            add_cost(cost)
            position += 1
    if advance is not None:
        advance(position - told)
    return SystemGrades(system, tasks, ordered_records, outcomes, latencies, costs, unknown,
                        unmeasured_latencies, unmeasured_costs)
