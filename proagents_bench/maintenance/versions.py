"""What a new version of a cases file or a spec changes, and what it breaks.

:func:`diff_cases` lists the cases added, removed and changed between two cases files (by
id), every changed field with its old and new value, each classified by the kind of change
it is (:mod:`proagents_bench.contract.changes`: an answer, a grading rule, the task's input,
the test set, a contamination check, a grouping, a public case); :func:`diff_specs` does the
same for two specs, key by key. String sets (``allowed_tools``, ``forbidden_side_effects``)
compare as sets, numbers by value.

:func:`refusals` are the contract errors of a new file that changes what needs a new
version under the old version's number (``diff.same_dataset_version``,
``diff.same_protocol_version``), or that is of another benchmark (``diff.other_benchmark``).

:func:`comparability` reads a results package recorded under the old cases and says, task
by task and system by system, which of its records stay comparable under the new cases, and
how many of its trials the gate's grader grades differently under the new ones.
"""

from __future__ import annotations

from decimal import Decimal
from typing import TYPE_CHECKING, Dict, Iterator, List, Optional, Sequence, Tuple

from ..contract import changes as kinds
from ..contract.changes import Change
from ..contract.inputs import CASE
from ..contract.shapes import Rule
from ..contract.vocabulary import TEST_SPLIT
from ..errors import ContractError
from ..evaluation.grading import ALL_CHECKS, grade_system
from ..text import quote

if TYPE_CHECKING:  # for annotations only
    from ..jsonio import JSONObject

DIFF = "DIFF"
ADDED, REMOVED, CHANGED = "added", "removed", "changed"
# A task of the old version, for the records recorded under it.
COMPARABLE = "comparable"
OTHER_GATE = "comparable_other_gate"
NOT_COMPARABLE = "not_comparable"
NO_LONGER_TEST = "no_longer_test"
RECORD_STATUSES = (COMPARABLE, OTHER_GATE, NOT_COMPARABLE, NO_LONGER_TEST)
RECORD_MEANINGS = {
    COMPARABLE: "nothing that grades or runs the task changed: its records stay comparable",
    OTHER_GATE: "its trials grade the same, but another gate judges the task (critical "
                "changed): comparable trial by trial, not decision by decision",
    NOT_COMPARABLE: "its answers or input changed: its records are of another task",
    NO_LONGER_TEST: "removed, or no longer a test task: its records count no more",
}
CASE_FIELD_ORDER = [field.key for field in CASE.fields]
SET_FIELDS = ("allowed_tools", "forbidden_side_effects")


class FieldChange:
    """One changed field (``split``, ``expected_final_state``, ``protocol.max_steps``, ...):
    its old and new value (None when absent) and its kinds of change."""

    def __init__(self, field: str, old: object, new: object, changes: Sequence[Change]) -> None:
        self.field = field
        self.old = old
        self.new = new
        self.changes = list(changes)

    def document(self) -> JSONObject:
        return {"field": self.field, "old": plain(self.old), "new": plain(self.new),
                "breaks": [change.code for change in self.changes]}


class TaskChange:
    """A case added, removed or changed: its id, its split in each file (None where it is
    absent), its changed fields, and every kind of change it makes."""

    def __init__(self, case_id: str, kind: str, old_split: Optional[str],
                 new_split: Optional[str], fields: List[FieldChange],
                 changes: Sequence[Change]) -> None:
        self.case_id = case_id
        self.kind = kind
        self.old_split = old_split
        self.new_split = new_split
        self.fields = fields
        self.changes = _unique(list(changes) + [change for field in fields
                                                 for change in field.changes])

    def document(self) -> JSONObject:
        return {"case_id": self.case_id, "change": self.kind, "old_split": self.old_split,
                "new_split": self.new_split,
                "fields": [field.document() for field in self.fields],
                "breaks": [change.code for change in self.changes]}


class Diff:
    """The difference of two files of one kind (``cases`` or ``spec``): the changes of their
    roots' fields (``header``), and for cases the tasks."""

    def __init__(self, kind: str, old: JSONObject, new: JSONObject) -> None:
        self.kind = kind
        self.old = old
        self.new = new
        self.header: List[FieldChange] = []
        self.tasks: List[TaskChange] = []

    def changes(self) -> List[Change]:
        """Every kind of change the new file makes, in the tables' order."""
        found = {change.code for item in self.header + self.tasks for change in item.changes}
        return [change for change in kinds.CHANGES if change.code in found]

    def document(self) -> JSONObject:
        counts = {kind: sum(1 for task in self.tasks if task.kind == kind)
                  for kind in (ADDED, REMOVED, CHANGED)}
        found = self.changes()
        return {
            "kind": self.kind,
            "header": [field.document() for field in self.header],
            "tasks": [task.document() for task in self.tasks],
            "summary": dict(counts, breaks={change.code: sum(
                1 for item in self.header + self.tasks if change in item.changes)
                for change in found}),
            "requires": _unique_texts([change.requires for change in found
                                       if change not in kinds.REQUIRING_NOTHING]),
        }


def plain(value: object) -> object:
    """A loaded JSON value for the output document: its exact numbers (Decimals) as the
    nearest doubles."""
    if isinstance(value, Decimal):
        return float(value)
    if isinstance(value, list):
        return [plain(item) for item in value]
    if isinstance(value, dict):
        return {key: plain(item) for key, item in value.items()}
    return value


def _unique(changes: List[Change]) -> List[Change]:
    return [change for change in kinds.CHANGES if change in changes]


def _unique_texts(texts: List[str]) -> List[str]:
    seen: List[str] = []
    for text in texts:
        if text not in seen:
            seen.append(text)
    return seen


def _same(field: str, old: object, new: object) -> bool:
    if field in SET_FIELDS and isinstance(old, list) and isinstance(new, list):
        return sorted(old) == sorted(new)
    return old == new and type(old) is type(new) or (
        _is_number(old) and _is_number(new) and old == new)


def _is_number(value: object) -> bool:
    return not isinstance(value, bool) and isinstance(value, (int, float, Decimal))


def _header(diff: Diff, table: Dict[str, Change], default: Change,
            skipped: Sequence[str] = ()) -> None:
    keys = list(diff.old) + [key for key in diff.new if key not in diff.old]
    for key in keys:
        if key in skipped:
            continue
        old, new = diff.old.get(key), diff.new.get(key)
        if isinstance(old, dict) and isinstance(new, dict):
            change = table.get(key, default)
            inner = list(old) + [name for name in new if name not in old]
            for name in inner:
                if not _same(name, old.get(name), new.get(name)):
                    diff.header.append(FieldChange("%s.%s" % (key, name), old.get(name),
                                                   new.get(name), [change]))
        elif not _same(key, old, new):
            diff.header.append(FieldChange(key, old, new, [table.get(key, default)]))


def diff_cases(old: JSONObject, new: JSONObject) -> Diff:
    """The difference of two valid cases files (or of two public views of them: a field
    absent from both never differs)."""
    diff = Diff("cases", old, new)
    _header(diff, kinds.CASES_HEADER, kinds.WORDING, skipped=("cases", "benchmark_id"))
    old_cases = {case["id"]: case for case in old["cases"]}
    new_cases = {case["id"]: case for case in new["cases"]}
    for case in old["cases"]:
        other = new_cases.get(case["id"])
        if other is None:
            diff.tasks.append(TaskChange(case["id"], REMOVED, case["split"], None, [],
                                         [_membership(case["split"])]))
            continue
        fields = _case_fields(case, other)
        if fields:
            diff.tasks.append(TaskChange(case["id"], CHANGED, case["split"], other["split"],
                                         fields, []))
    for case in new["cases"]:
        if case["id"] not in old_cases:
            diff.tasks.append(TaskChange(case["id"], ADDED, None, case["split"], [],
                                         [_membership(case["split"])]))
    return diff


def _membership(split: str) -> Change:
    return kinds.TEST_SET if split == TEST_SPLIT else kinds.PUBLIC_CASE


def _case_fields(old: JSONObject, new: JSONObject) -> List[FieldChange]:
    keys = [key for key in CASE_FIELD_ORDER if key in old or key in new]
    keys += sorted(key for key in set(old) | set(new) if key not in CASE_FIELD_ORDER)
    test_in_both = old["split"] == TEST_SPLIT and new["split"] == TEST_SPLIT
    fields = []
    for key in keys:
        if key in ("id", kinds.FOLLOWS_SPLIT) or _same(key, old.get(key), new.get(key)):
            continue
        if key == "split":
            changes = kinds.split_changes(old["split"], new["split"])
        else:
            changes = [kinds.case_field_change(key, test_in_both)]
        fields.append(FieldChange(key, old.get(key), new.get(key), changes))
    return fields


def diff_specs(old: JSONObject, new: JSONObject) -> Diff:
    """The difference of two valid specs, key by key (inside ``protocol``, ``gates`` and
    ``bootstrap`` too)."""
    diff = Diff("spec", old, new)
    _header(diff, kinds.SPEC_PARTS, kinds.UNKNOWN_SPEC_PART, skipped=("benchmark_id",))
    return diff


def _other_benchmark(diff: Diff) -> Iterator[ContractError]:
    if diff.old["benchmark_id"] != diff.new["benchmark_id"]:
        yield OTHER_BENCHMARK.error(
            "benchmark_id %s is not the old file's %s: a diff compares two versions of one "
            "benchmark" % (quote(diff.new["benchmark_id"]), quote(diff.old["benchmark_id"])),
            ("benchmark_id",))


def _same_dataset_version(diff: Diff) -> Iterator[ContractError]:
    if diff.kind != "cases" or diff.old["dataset_version"] != diff.new["dataset_version"]:
        return
    refused = [task for task in diff.tasks
               if any(change.refused == "dataset_version" for change in task.changes)]
    if refused:
        listed = ", ".join("%s (%s)" % (quote(task.case_id), ", ".join(
            change.code for change in task.changes if change.refused))
            for task in refused[:5])
        yield SAME_DATASET_VERSION.error(
            "dataset_version %s is the old file's, but %d test task%s changed what a record "
            "means: %s%s; a results package of the old version would be read as one of this "
            "version: give the new file a new dataset_version" % (
                quote(diff.new["dataset_version"]), len(refused),
                "" if len(refused) == 1 else "s", listed,
                " and %d more" % (len(refused) - 5) if len(refused) > 5 else ""),
            ("dataset_version",))


def _same_protocol_version(diff: Diff) -> Iterator[ContractError]:
    if diff.kind != "spec":
        return
    version = diff.new["protocol"]["protocol_version"]
    if version != diff.old["protocol"]["protocol_version"]:
        return
    changed = [field.field for field in diff.header if kinds.PROTOCOL in field.changes]
    if changed:
        yield SAME_PROTOCOL_VERSION.error(
            "protocol_version %s is the old spec's, but %s changed: every package run under "
            "the old protocol would be INCOMPARABLE under a protocol of the same name; give "
            "it a new protocol_version" % (quote(version), ", ".join(changed)),
            ("protocol", "protocol_version"))


OTHER_BENCHMARK = Rule("diff.other_benchmark", _other_benchmark)
SAME_DATASET_VERSION = Rule("diff.same_dataset_version", _same_dataset_version)
SAME_PROTOCOL_VERSION = Rule("diff.same_protocol_version", _same_protocol_version)
DIFF_RULES = (OTHER_BENCHMARK, SAME_DATASET_VERSION, SAME_PROTOCOL_VERSION)


def refusals(diff: Diff) -> List[ContractError]:
    """The contract errors of the new file (their paths are in it): another benchmark, or a
    change that needs a new version under the old one's number."""
    found: List[ContractError] = []
    for rule in DIFF_RULES:
        found.extend(rule.iter_errors(diff))
        if found and rule is OTHER_BENCHMARK:
            break  # two benchmarks: nothing else of the comparison means anything
    return found


def record_status(task: Optional[TaskChange]) -> str:
    """What happens to the records of an old test task under the new cases."""
    if task is None:
        return COMPARABLE
    if task.kind == REMOVED or task.new_split != TEST_SPLIT:
        return NO_LONGER_TEST
    codes = {change.code for change in task.changes}
    if codes & {kinds.ANSWER.code, kinds.TASK_INPUT.code}:
        return NOT_COMPARABLE
    if kinds.GRADING_RULE.code in codes:
        return OTHER_GATE
    return COMPARABLE


def comparability(diff: Diff,
                  systems: Sequence[Tuple[str, JSONObject, List[JSONObject]]]) -> JSONObject:
    """Which records of a results package recorded under the old cases stay comparable under
    the new ones. ``systems`` are (role, system, records in canonical order) as the gate's
    checks found them; every trial is graded by the gate's grader against the old and the
    new case, and ``regraded_differently`` counts the trials whose pass changes."""
    old_tests = [case for case in diff.old["cases"] if case["split"] == TEST_SPLIT]
    new_by_id = {case["id"]: case for case in diff.new["cases"]}
    by_id = {task.case_id: task for task in diff.tasks}
    # The new version of each old test task (the old one where the new has none).
    new_tests = [new_by_id.get(case["id"], case) for case in old_tests]
    statuses = [record_status(by_id.get(case["id"])) for case in old_tests]
    tasks = [{"case_id": case["id"], "records": status, "trials": 0,
              "regraded_differently": 0} for case, status in zip(old_tests, statuses)]
    described = []
    for role, system, records in systems:
        trials = system["protocol"]["trial_count"]
        old_grades = grade_system(system, old_tests, records).outcomes
        new_grades = grade_system(system, new_tests, records).outcomes
        counts = {status: 0 for status in RECORD_STATUSES}
        differently = 0
        for position, status in enumerate(statuses):
            start = position * trials
            counts[status] += trials
            changed = sum(1 for old, new in zip(old_grades[start:start + trials],
                                               new_grades[start:start + trials])
                          if (old == ALL_CHECKS) != (new == ALL_CHECKS))
            if status != NO_LONGER_TEST:
                differently += changed
                tasks[position]["regraded_differently"] += changed
            tasks[position]["trials"] += trials
        described.append({
            "system_id": system["system_id"], "role": role, "records": len(records),
            "comparable_records": counts[COMPARABLE] + counts[OTHER_GATE],
            "records_by_status": counts, "regraded_differently": differently})
    added = [task.case_id for task in diff.tasks if task.new_split == TEST_SPLIT
             and task.old_split != TEST_SPLIT]
    return {"systems": described, "tasks": tasks, "new_test_tasks_without_records": added,
            "statuses": dict(RECORD_MEANINGS)}
