"""The explanation of a decision, as one document (``"action": "EXPLAINED"``): the decision
and its reasons as the gate gives them, the rules that chose what is explained, and for each
task chosen (:mod:`.choice`) the two trials compared (:mod:`.comparing`), their traces as
read from the logs (:mod:`.reading`), and one sentence that says it all (``summary``), which
every report repeats. What could not be read is said in place and listed once
(``problems``); the decision stands without it.
"""

from __future__ import annotations

import json
from typing import TYPE_CHECKING, Dict, List, Optional, Sequence

from ..contract.explanation import EXPLAINED
from ..evaluation.decision import Decided, Decision
from ..contract.vocabulary import INCOMPARABLE, ROLES, TEST_SPLIT
from ..evaluation.grading import grade_system
from ..evaluation.metrics import SystemMetrics
from ..importers.trace import Trace, TraceProblem
from ..jsonio.dump import document_bytes
from ..version import harness
from .choice import FLAKY, REGRESSION, TASK_RULE, TRIAL_RULE, Chosen, chosen_tasks
from .comparing import (aligned, failed_checks, final_state_rows, harness_checks,
                        rules_broken)
from .reading import Found, TrialKey, read_traces

if TYPE_CHECKING:  # for annotations only
    from ..importers.source import LogSource
    from ..jsonio import BytesLike, JSONObject
    from ..pipeline import Checked
    from ..render.evaluation import Evaluation


class Explained(Decided[Decision]):
    """A decision explained, as the command line delivers it: the gate's ``evaluation``
    (its decision, which the exit status and the reports follow) and the explanation
    ``document``, whose bytes are the JSON output."""

    def __init__(self, evaluation: Evaluation, document: JSONObject) -> None:
        super().__init__(evaluation.decision)
        self.evaluation = evaluation
        self.document = document

    def chunks(self) -> Sequence[BytesLike]:
        return [document_bytes(self.document)]


def explain(checked: Checked, evaluation: Evaluation,
            logs: Dict[str, Optional[Sequence[LogSource]]],
            asked: Sequence[str] = ()) -> JSONObject:
    """The explanation of ``evaluation`` (the decision on ``checked``'s files), reading the
    traces from ``logs`` (by role; None: not given); the test tasks ``asked`` for by id are
    explained too."""
    decision = evaluation.decision
    systems = checked.systems
    document: JSONObject = {
        "action": EXPLAINED,
        "decision": {"action": decision.action, "reasons": list(decision.reasons)},
        "benchmark_id": checked.spec["benchmark_id"],
        "baseline_system": systems.baseline["system_id"],
        "candidate_system": systems.candidate["system_id"],
        "task_rule": TASK_RULE,
        "trial_rule": TRIAL_RULE,
        "tasks": [],
        "problems": [],
        "harness": harness(),
    }
    if decision.action == INCOMPARABLE:  # nothing was graded: the protocol is the reason
        return document
    tasks = [case for case in checked.cases["cases"] if case["split"] == TEST_SPLIT]
    ordered = dict(zip(ROLES, systems.in_order()))
    by_role = dict(zip(ROLES, (systems.baseline, systems.candidate)))
    gates = checked.spec["gates"]
    metrics = {role: SystemMetrics(grade_system(system, tasks, ordered[role]), gates)
               for role, system in by_role.items()}
    chosen = chosen_tasks(metrics["baseline"], metrics["candidate"], decision, asked)
    trials = metrics["candidate"].grades.trial_count
    records: Dict[TrialKey, JSONObject] = {}
    for task in chosen:
        for role, trial in zip(ROLES, (task.baseline_trial, task.candidate_trial)):
            records[(role, task.case["id"], trial)] = ordered[role][
                task.position * trials + trial - 1]
    found = read_traces(by_role, records, logs)
    problems: Dict[str, JSONObject] = {}
    for task in chosen:
        keys = [(role, task.case["id"], trial) for role, trial in
                zip(ROLES, (task.baseline_trial, task.candidate_trial))]
        document["tasks"].append(_task(task, trials, [records[key] for key in keys],
                                       [found[key] for key in keys]))
        for key in keys:
            item = found[key]
            if isinstance(item, TraceProblem):
                problem = item.document()
                problems.setdefault(json.dumps(problem, sort_keys=True), problem)
    document["problems"] = list(problems.values())
    return document


def _task(task: Chosen, trials: int, records: List[JSONObject],
          found: List[Found]) -> JSONObject:
    baseline, candidate = (item if isinstance(item, Trace) else None for item in found)
    case = task.case
    rows: List[JSONObject] = []
    first = None
    if baseline is not None and candidate is not None:
        rows, first = aligned(baseline, candidate)
    broken = rules_broken(case, records[1], candidate)
    document: JSONObject = {
        "case_id": case["id"],
        "critical": case["critical"],
        "slice": case["slice"],
        "verdict": task.verdict,
        "why": task.why,
        "reasons": task.reasons,
        "trial_count": trials,
        "passing_trials": dict(zip(ROLES, task.passing)),
        "compared": dict(zip(ROLES, (task.baseline_trial, task.candidate_trial))),
        "failed_checks": failed_checks(case, records[1]),
        "final_state": final_state_rows(case["expected_final_state"], records[1]["final_state"]),
        "rules_broken": broken,
        "first_divergence": first,
        "alignment": rows,
        "harness_checks": harness_checks(candidate),
        "traces": {role: _trace(record["trial_id"], item) for role, record, item in
                   zip(ROLES, records, found)},
    }
    document["summary"] = summary(document)
    return document


def _trace(trial: int, found: Found) -> JSONObject:
    if isinstance(found, TraceProblem):
        return {"trial_id": trial, "problem": found.document()}
    return dict(found.document(), trial_id=trial)


def summary(task: JSONObject) -> str:
    """One sentence of a task's explanation: its verdict, where the candidate left the
    baseline's path, the step that broke a rule, and the checks it failed."""
    counts = task["passing_trials"]
    parts = ["%s%s: %s (baseline %d of %d trials pass, candidate %d of %d)" % (
        task["case_id"], " (critical)" if task["critical"] else "",
        {FLAKY: "flaky, its trials disagree: not called a regression",
         REGRESSION: "regression"}.get(task["verdict"], task["verdict"].replace("_", " ")),
        counts["baseline"], task["trial_count"], counts["candidate"], task["trial_count"])]
    compared = task["compared"]
    first = task["first_divergence"]
    traces = task["traces"]
    if first is not None:
        parts.append("comparing baseline trial %d with candidate trial %d, the candidate left "
                     "the baseline's path after %d same call%s: %s" % (
                         compared["baseline"], compared["candidate"], first["same_before"],
                         "" if first["same_before"] == 1 else "s", _divergence(first)))
    elif all("steps" in traces[role] for role in ROLES):
        parts.append("the candidate's trial %d made the calls of the baseline's trial %d, in "
                     "order" % (compared["candidate"], compared["baseline"]))
    for broken in task["rules_broken"]:
        step = broken["step"]
        parts.append("%s at %s" % (broken["rule"], step["position"]) if step else broken["rule"])
    parts.extend(check["text"] for check in task["failed_checks"]
                 if check["check"] in ("status_success", "final_state_correct"))
    parts.extend("%s failed at %s" % (check["name"], check["position"])
                 for check in task["harness_checks"][:3])
    missing = [role for role in ROLES if "problem" in traces[role]]
    if missing:
        parts.append("no trace of the %s: %s" % (" or the ".join(missing), "; ".join(
            traces[role]["problem"]["message"] for role in missing)))
    return "; ".join(parts)


def _divergence(row: JSONObject) -> str:
    shown = []
    for role in ROLES:
        step = row[role]
        shown.append("the %s %s" % (role, "called %s %s at %s" % (
            step["name"], step["text"], step["position"]) if step else "made no call there"))
    return ", ".join(shown) + (" (%s)" % row["note"] if row.get("note") else "")
