"""Health's validity audit: whether the benchmark's tasks measure the agents at all.

**Floors and ceilings.** A maintainer may give the runs of two reference agents, each the
candidate of a results package checked against the benchmark's spec and cases like any other:
a do-nothing agent (Harbor's ``nop``, a SWE-bench run of empty patches) and an oracle
(Harbor's ``oracle``, SWE-bench's gold patches). Health then names the tasks the do-nothing
agent passes (they measure nothing: ``trivial_task``; a critical one is ``critical_trivial_
task``), the tasks the oracle fails (broken or unsolvable: ``broken_task``), and the
benchmark's score range between the two: each system's task success rate above the floor,
and its share of the range. A task passes as the gate says (its passing trials over its
trials at least the spec's ``task_min_trial_success_rate``); the figures are exact.

**Outcome checks the contract can state** (:data:`CHECKS`, each a finding naming its tasks):
an empty outcome the expected final state accepts; an expected final state equal to the
initial state; a forbidden side effect no trial ever produced with only the task's allowed
tools; a task on which no system ever called an allowed tool. The contract cannot state a
tool's effects (no field maps a tool to the side effects it may cause), so the reachability
of a forbidden side effect is read from the runs: which side effects each trial produced and
which tools it called.
"""

from __future__ import annotations

from fractions import Fraction
from typing import TYPE_CHECKING, Dict, FrozenSet, List, Optional, Sequence, Set, Tuple

from ..evaluation.grading import FINAL_STATE_CORRECT
from ..evaluation.outcome_checks import (EMPTY_ACCEPTED, NEVER_CALLED, UNCHANGED, Check,
                                         called_allowed, expects_empty, expects_initial)

if TYPE_CHECKING:  # for annotations only
    from ..evaluation.grading import SystemGrades
    from ..jsonio import JSONObject
    from .health_figures import SystemHealth

DO_NOTHING = "do_nothing"
ORACLE = "oracle"
REFERENCES = (DO_NOTHING, ORACLE)
TRIVIAL = Check("trivial_task", "the do-nothing agent passes the task: it measures nothing",
                "the do-nothing reference run's trials on the task, graded as the gate does")
CRITICAL_TRIVIAL = Check(
    "critical_trivial_task", "a critical task the do-nothing agent passes: a PASS on it is "
    "no evidence of the agent", "the same, on a task the cases file marks `critical`")
BROKEN = Check("broken_task", "the oracle fails the task: broken or unsolvable as written",
               "the oracle reference run's trials on the task, graded as the gate does")
UNREACHABLE = Check(
    "forbidden_effect_unreachable", "a forbidden side effect no trial produced while calling "
    "only tools the task allows: the tools check already fails every trial that produces it "
    "(or none ever did), so the side-effect check adds nothing",
    "the case's `forbidden_side_effects` and `allowed_tools`; every trial's `side_effects` "
    "and `tools_used`, of every run given")
CHECKS = (TRIVIAL, CRITICAL_TRIVIAL, BROKEN, EMPTY_ACCEPTED, UNCHANGED, UNREACHABLE,
          NEVER_CALLED)


class Evidence:
    """What the outcome checks need of one run's trials (plain data, a few values per task):
    per task whether some trial called a tool the task allows and how many trials met the
    expected final state; per side effect, the tool sets of the trials that produced it."""

    def __init__(self, grades: SystemGrades) -> None:
        trials = grades.trial_count
        self.called_allowed = called_allowed(grades)
        self.final_state_met = [0] * len(grades.tasks)
        self.effects: Dict[str, Set[FrozenSet[str]]] = {}
        for position in range(len(grades.tasks)):
            start = position * trials
            for index in range(start, start + trials):
                record = grades.records[index]
                tools = frozenset(record["tools_used"])
                if grades.outcomes[index] & FINAL_STATE_CORRECT:
                    self.final_state_met[position] += 1
                for effect in record["side_effects"]:
                    self.effects.setdefault(effect, set()).add(tools)

    @classmethod
    def empty(cls, task_count: int) -> Evidence:
        """The evidence of no trial on ``task_count`` tasks."""
        evidence = cls.__new__(cls)
        evidence.called_allowed = bytearray(task_count)
        evidence.final_state_met = [0] * task_count
        evidence.effects = {}
        return evidence

    def merge(self, other: Evidence) -> None:
        """Pool ``other`` (another run on the same tasks) into this one."""
        self.called_allowed = bytearray(a | b for a, b in zip(self.called_allowed,
                                                              other.called_allowed))
        self.final_state_met = [a + b for a, b in zip(self.final_state_met,
                                                      other.final_state_met)]
        for effect, tool_sets in other.effects.items():
            self.effects.setdefault(effect, set()).update(tool_sets)


class Finding:
    """A check's finding: its check and the tasks it names, each with why."""

    def __init__(self, check: Check) -> None:
        self.check = check
        self.tasks: List[Tuple[str, str]] = []


class Validity:
    """The audit's figures: the references given, the score range, each system's score
    above the floor, and the findings (each check's, in :data:`CHECKS` order, only those that
    name a task)."""

    def __init__(self) -> None:
        self.references: Dict[str, Optional[Tuple[SystemHealth, Fraction]]] = {
            kind: None for kind in REFERENCES}
        self.systems: List[Tuple[str, Fraction, Optional[Fraction], Optional[Fraction]]] = []
        self.findings: List[Finding] = []

    @property
    def floor(self) -> Optional[Fraction]:
        found = self.references[DO_NOTHING]
        return None if found is None else found[1]

    @property
    def ceiling(self) -> Optional[Fraction]:
        found = self.references[ORACLE]
        return None if found is None else found[1]

    def named(self, check: Check) -> List[str]:
        """The tasks ``check``'s finding names (none when it has no finding)."""
        return [case_id for finding in self.findings if finding.check is check
                for case_id, _why in finding.tasks]


def task_passes(passing: int, trials: int, gate: Fraction) -> bool:
    """The gate's task pass: passing trials over trials at least the task gate."""
    return passing * gate.denominator >= gate.numerator * trials


def success_rate(system: SystemHealth, gate: Fraction) -> Fraction:
    """A pooled system's task success rate (the primary metric), exactly."""
    passed = sum(1 for passing in system.passing if task_passes(passing, system.trials, gate))
    return Fraction(passed, len(system.passing))


def audit(spec: JSONObject, tests: Sequence[JSONObject], systems: Sequence[SystemHealth],
          evidence: Evidence, references: Dict[str, Tuple[SystemHealth, Evidence]]
          ) -> Validity:
    """The validity audit of the test ``tests`` over the pooled ``systems`` (their trials'
    ``evidence`` pooled), with the reference runs given (``references``: kind to the run and
    its evidence)."""
    gate = Fraction(spec["gates"]["task_min_trial_success_rate"])
    validity = Validity()
    for kind, (reference, _evidence) in sorted(references.items()):
        validity.references[kind] = (reference, success_rate(reference, gate))
    floor, ceiling = validity.floor, validity.ceiling
    span = None if floor is None or ceiling is None or ceiling <= floor else ceiling - floor
    for system in systems:
        rate = success_rate(system, gate)
        validity.systems.append((system.name, rate, None if floor is None else rate - floor,
                                 None if span is None or floor is None
                                 else (rate - floor) / span))
    found = {check.code: Finding(check) for check in CHECKS}
    nothing = references.get(DO_NOTHING)
    oracle = references.get(ORACLE)
    pooled_effects = dict(evidence.effects)
    for _reference, reference_evidence in references.values():
        for effect, tool_sets in reference_evidence.effects.items():
            pooled_effects[effect] = pooled_effects.get(effect, set()) | tool_sets
    for position, case in enumerate(tests):
        case_id = case["id"]
        if nothing is not None:
            run, run_evidence = nothing
            passing = run.passing[position]
            if task_passes(passing, run.trials, gate):
                why = "the do-nothing agent passes %d of %d trials" % (passing, run.trials)
                found[TRIVIAL.code].tasks.append((case_id, why))
                if case["critical"]:
                    found[CRITICAL_TRIVIAL.code].tasks.append((case_id, why))
            met = run_evidence.final_state_met[position]
            if met:
                found[EMPTY_ACCEPTED.code].tasks.append((case_id, (
                    "the do-nothing agent's final state meets the expected %r in %d of %d "
                    "trials" % (case["expected_final_state"], met, run.trials))))
        empty = expects_empty(case)
        if empty:
            found[EMPTY_ACCEPTED.code].tasks.append((case_id, empty))
        if oracle is not None:
            run, _run_evidence = oracle
            passing = run.passing[position]
            if not task_passes(passing, run.trials, gate):
                found[BROKEN.code].tasks.append((case_id, "the oracle passes %d of %d trials"
                                                 % (passing, run.trials)))
        unchanged = expects_initial(case)
        if unchanged:
            found[UNCHANGED.code].tasks.append((case_id, unchanged))
        allowed = frozenset(case["allowed_tools"])
        unreachable = [_unreachable(effect, allowed, pooled_effects.get(effect, set()))
                       for effect in case["forbidden_side_effects"]
                       if not any(tools <= allowed
                                  for tools in pooled_effects.get(effect, ()))]
        if unreachable:
            found[UNREACHABLE.code].tasks.append((case_id, "; ".join(unreachable)))
        if allowed and not evidence.called_allowed[position]:
            found[NEVER_CALLED.code].tasks.append((case_id, "no trial of the %d system%s "
                                                   "called %s" % (
                                                       len(systems),
                                                       "" if len(systems) == 1 else "s",
                                                       " or ".join(sorted(allowed)))))
    validity.findings = [found[check.code] for check in CHECKS if found[check.code].tasks]
    return validity


def _unreachable(effect: str, allowed: FrozenSet[str],
                 tool_sets: Set[FrozenSet[str]]) -> str:
    if not tool_sets:
        return "no trial ever produced %r" % effect
    others = sorted({tool for tools in tool_sets for tool in tools - allowed})
    return "%r was produced only by trials that called a tool the task does not allow (%s)" % (
        effect, ", ".join(others) or "none named")


def validity_document(validity: Validity) -> JSONObject:
    """The health document's ``validity`` member (exact values as the nearest doubles)."""
    references: JSONObject = {}
    for kind in REFERENCES:
        found = validity.references[kind]
        references[kind] = None if found is None else {
            "name": found[0].name, "trials_per_task": found[0].trials,
            "task_success_rate": float(found[1])}
    return {
        "references": references,
        "score_range": {"floor": _number(validity.floor), "ceiling": _number(validity.ceiling)},
        "systems": [{"name": name, "task_success_rate": float(rate),
                     "above_floor": _number(above), "share_of_range": _number(share)}
                    for name, rate, above, share in validity.systems],
        "trivial_tasks": validity.named(TRIVIAL) if validity.floor is not None else None,
        "broken_tasks": validity.named(BROKEN) if validity.ceiling is not None else None,
        "findings": [{"code": finding.check.code, "meaning": finding.check.meaning,
                      "tasks": [{"case_id": case_id, "why": why}
                                for case_id, why in finding.tasks]}
                     for finding in validity.findings],
    }


def _number(value: Optional[Fraction]) -> Optional[float]:
    return None if value is None else float(value)


def checks_table() -> str:
    """The docs' table of the audit's checks: code, meaning, what in the files shows it."""
    lines = ["| finding | meaning | shown by |", "|---|---|---|"]
    lines += ["| `%s` | %s | %s |" % (check.code, check.meaning, check.source)
              for check in CHECKS]
    return "\n".join(lines) + "\n"
