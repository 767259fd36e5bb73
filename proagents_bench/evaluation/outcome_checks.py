"""Outcome checks the contract can state: flaws of a task that change what a PASS on it
means, read from the cases file and the systems' records alone.

Each check is a :class:`Check` (its finding's code, what it means, what in the files shows
it), shared by ``health``'s validity audit (:mod:`proagents_bench.maintenance.validity`, which
adds the checks that need reference runs or every package) and the gate: under a spec v6 the
gate reports, as notes naming their tasks (never a gate, never a reason), the checks a PASS
depends on:

- ``expected_equals_initial``: the expected final state is the initial state, so an agent
  that changes nothing meets it;
- ``empty_outcome_accepted``: the case expects the outcome of no patch at all (the
  importers' ``empty_patch``);
- ``allowed_tools_never_called``: neither system called a tool the task allows on any trial
  of the task, so it was decided without its tools.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, List, Optional, Sequence, Tuple

from ..contract.vocabulary import INFORMATIONAL
from .decision import Finding
from .grading import normalize_state

if TYPE_CHECKING:  # for annotations only
    from ..jsonio import JSONObject
    from .grading import SystemGrades

# The final states the importers write for an agent that produced nothing to grade (SWE-bench's
# empty patch): a case that expects one accepts an agent that did nothing.
EMPTY_OUTCOMES = ("empty_patch",)
# The tasks a note or a reason names before it says "and N more".
LISTED = 5


class Check:
    """One finding of the outcome checks: its ``code``, what it means, and ``source``: what
    in the files shows it."""

    def __init__(self, code: str, meaning: str, source: str) -> None:
        self.code = code
        self.meaning = meaning
        self.source = source


EMPTY_ACCEPTED = Check(
    "empty_outcome_accepted", "an empty outcome meets the expected final state: the "
    "do-nothing agent's final state is accepted, or the case expects an empty patch",
    "the do-nothing run's `final_state_correct` checks; the case's `expected_final_state` "
    "against the importers' empty outcomes (`%s`)" % "`, `".join(EMPTY_OUTCOMES))
UNCHANGED = Check(
    "expected_equals_initial", "the expected final state is the initial state: an agent that "
    "changes nothing meets it, and only the side-effect and tool checks can fail it",
    "the case's `expected_final_state` and `initial_state`, normalised as the grader does")
NEVER_CALLED = Check(
    "allowed_tools_never_called", "no system ever called a tool the task allows: the task was "
    "decided without its tools (an answer reachable without acting?)",
    "the case's `allowed_tools`; every trial's `tools_used`, of every system but the "
    "do-nothing agent")
# The checks the gate reports under a spec v6, in this order.
GATE_CHECKS = (UNCHANGED, EMPTY_ACCEPTED, NEVER_CALLED)


def expects_empty(case: JSONObject) -> Optional[str]:
    """Why the case accepts the outcome of no patch at all (None: it does not)."""
    if normalize_state(case["expected_final_state"]) in EMPTY_OUTCOMES:
        return "the case expects %r, the outcome of no patch at all" % (
            case["expected_final_state"])
    return None


def expects_initial(case: JSONObject) -> Optional[str]:
    """Why the case's expected final state is its initial state (None: it is not)."""
    if normalize_state(case["expected_final_state"]) == normalize_state(case["initial_state"]):
        return "both are %r" % case["expected_final_state"]
    return None


def called_allowed(grades: SystemGrades) -> bytearray:
    """Per task (in ``grades.tasks``' order), 1 when some trial called a tool it allows."""
    called = bytearray(len(grades.tasks))
    trials = grades.trial_count
    for position, case in enumerate(grades.tasks):
        allowed = frozenset(case["allowed_tools"])
        for record in grades.records[position * trials:(position + 1) * trials]:
            if not allowed.isdisjoint(record["tools_used"]):
                called[position] = 1
                break
    return called


def gate_findings(systems: Sequence[SystemGrades]) -> List[Finding]:
    """The notes of :data:`GATE_CHECKS` on the decided test tasks of the ``systems`` (the
    baseline's and the candidate's grades, on the same tasks), one per check that names a
    task, its tasks in file order."""
    tasks = systems[0].tasks
    called = [called_allowed(grades) for grades in systems]
    named: List[Tuple[Check, List[str]]] = [(check, []) for check in GATE_CHECKS]
    for position, case in enumerate(tasks):
        if expects_initial(case):
            named[0][1].append(case["id"])
        if expects_empty(case):
            named[1][1].append(case["id"])
        if case["allowed_tools"] and not any(found[position] for found in called):
            named[2][1].append(case["id"])
    return [Finding(check.code, INFORMATIONAL, "cases", len(ids), None, ids,
                    "%s: %s" % (check.meaning, _listed(ids))) for check, ids in named if ids]


def named_tasks(ids: Sequence[str]) -> str:
    """Task ids for a reason: the first :data:`LISTED`, then how many more."""
    more = len(ids) - LISTED
    return ", ".join(ids[:LISTED]) + (" and %d more" % more if more > 0 else "")


def _listed(ids: Sequence[str]) -> str:
    return "task%s %s" % ("" if len(ids) == 1 else "s", named_tasks(ids))
