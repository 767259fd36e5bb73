"""What a change between two versions of a cases file or a spec breaks, declared once.

Every field of a case and every part of a spec belongs to one kind of change
(:class:`Change`): what the change breaks for results already on record, and what it
requires of the new file. ``diff`` (:mod:`proagents_bench.maintenance.versions`) classifies
with these tables, the private-test service publishes its public diff with them, and the
docs' table is written from them (``python -B -m devtools publish``).

The **answers and grading rules** of a test case are the fields the grader or the critical
gate reads: ``expected_final_state``, ``allowed_tools``, ``forbidden_side_effects`` (the
grader's four checks read them) and ``critical`` (the critical gate). With the task's input
(``initial_state``) and which cases are test cases, they decide what a record means; a new
cases file that changes any of them under the same ``dataset_version`` is a contract error
(``diff.same_dataset_version``). A spec that changes its protocol under the same
``protocol_version`` is one too (``diff.same_protocol_version``).
"""

from __future__ import annotations

from typing import Dict, List, Optional

from .vocabulary import TEST_SPLIT


class Change:
    """A kind of change: its ``code``, what it ``breaks`` for results already on record,
    what it ``requires`` of the new file, and whether the same version number refuses it
    (``refused``: the version key, ``dataset_version`` or ``protocol_version``, that must
    change)."""

    def __init__(self, code: str, breaks: str, requires: str,
                 refused: Optional[str] = None) -> None:
        self.code = code
        self.breaks = breaks
        self.requires = requires
        self.refused = refused


ANSWER = Change(
    "answer", "which trials pass: a record of the old version may grade differently under the "
    "new one (the grader's checks read these fields)", "a new dataset_version",
    "dataset_version")
GRADING_RULE = Change(
    "grading_rule", "which gate judges the task: the same records may be decided differently "
    "(the critical gate reads it)", "a new dataset_version", "dataset_version")
TASK_INPUT = Change(
    "task_input", "the task the agent faces: the old records are of another task",
    "a new dataset_version", "dataset_version")
TEST_SET = Change(
    "test_set", "which tasks are test tasks: a package of the old version no longer covers the "
    "test set, and a score over other tasks is another score", "a new dataset_version",
    "dataset_version")
CONTAMINATION = Change(
    "contamination", "where the case sits among the splits and families: a test family may be "
    "one the systems were trained or tuned on (the family check passes when a whole family "
    "moves), and the family bootstrap draws other families", "a contamination check")
GROUPING = Change(
    "grouping", "how results are grouped (by slice, the slice gap gate, the reports); every "
    "record stays comparable task by task", "nothing but a note in the changelog")
PUBLIC_CASE = Change(
    "public_case", "nothing ranked: a train or development case enters no metric",
    "nothing but a note in the changelog")
PROTOCOL = Change(
    "protocol", "every record: the gate finds every package run under the old protocol "
    "INCOMPARABLE", "a new protocol_version", "protocol_version")
DECISION_RULE = Change(
    "decision_rule", "the decision on the same records (the gates, the bootstrap, the ranked "
    "metric); every record stays comparable", "a new benchmark_version")
BASELINE = Change(
    "baseline", "which system the candidates are compared with: a package of the old spec "
    "names another baseline", "packages recorded with the new baseline")
VERSION = Change("version", "nothing by itself: a version's name, which the packages "
                 "recorded under it carry", "nothing: it is what the other kinds require")
WORDING = Change("wording", "nothing the gate reads", "nothing")

CHANGES = (ANSWER, GRADING_RULE, TASK_INPUT, TEST_SET, CONTAMINATION, GROUPING, PUBLIC_CASE,
           PROTOCOL, DECISION_RULE, BASELINE, VERSION, WORDING)
BY_CODE = {change.code: change for change in CHANGES}
# The kinds that ask nothing of the new file (the diff's ``requires`` leaves them out).
REQUIRING_NOTHING = (GROUPING, PUBLIC_CASE, VERSION, WORDING)

# A test case that stays a test case: each field's kind of change. ``is_private`` follows
# ``split`` (the contract holds them together), so a split's change says both.
TEST_CASE_FIELDS: Dict[str, Change] = {
    "expected_final_state": ANSWER,
    "allowed_tools": ANSWER,
    "forbidden_side_effects": ANSWER,
    "critical": GRADING_RULE,
    "initial_state": TASK_INPUT,
    "family_id": CONTAMINATION,
    "slice": GROUPING,
    "task_type": GROUPING,
}
# A field this table does not know (a later cases version's) is taken as an answer: the
# careful reading, until the table says otherwise.
UNKNOWN_CASE_FIELD = ANSWER
FOLLOWS_SPLIT = "is_private"

# The cases file's root (besides ``cases``): ``benchmark_id`` must be the same in both files.
CASES_HEADER: Dict[str, Change] = {
    "schema_version": VERSION,
    "benchmark_version": VERSION,
    "dataset_version": VERSION,
    "absent_splits": CONTAMINATION,
    "$schema": WORDING,
}

# A spec's top-level keys; inside ``protocol``, ``gates`` and ``bootstrap`` every key is its
# part's kind. A key this table does not know (a later spec version's) decides.
SPEC_PARTS: Dict[str, Change] = {
    "schema_version": VERSION,
    "benchmark_version": VERSION,
    "claim": WORDING,
    "target_population": WORDING,
    "$schema": WORDING,
    "baseline_system_id": BASELINE,
    "private_test_frozen": DECISION_RULE,
    "primary_metric": DECISION_RULE,
    "protocol": PROTOCOL,
    "gates": DECISION_RULE,
    "bootstrap": DECISION_RULE,
    "sequential": DECISION_RULE,
    "validity": DECISION_RULE,
}
UNKNOWN_SPEC_PART = DECISION_RULE


def case_field_change(field: str, test_in_both: bool) -> Change:
    """The kind of change of ``field`` in a case that is a test case in both files
    (``test_in_both``), or a train or development case in at least one of them (then only a
    family's change matters: the contamination check reads every split's families)."""
    if test_in_both:
        return TEST_CASE_FIELDS.get(field, UNKNOWN_CASE_FIELD)
    return CONTAMINATION if field == "family_id" else PUBLIC_CASE


def split_changes(old_split: str, new_split: str) -> List[Change]:
    """A case's move between splits: a contamination check always, and a new test set when
    the move is into or out of the test split."""
    changes = [CONTAMINATION]
    if TEST_SPLIT in (old_split, new_split):
        changes.insert(0, TEST_SET)
    return changes


def changes_table() -> str:
    """The docs' table of the kinds of change (Markdown), with the fields of each."""
    fields: Dict[str, List[str]] = {}
    for field, change in TEST_CASE_FIELDS.items():
        fields.setdefault(change.code, []).append("test case `%s`" % field)
    fields.setdefault(TEST_SET.code, []).append("a test case added or removed, or moved into "
                                                "or out of the test split")
    fields.setdefault(CONTAMINATION.code, []).append("any case moved between splits; a train "
                                                     "or development case's `family_id`")
    for field, change in CASES_HEADER.items():
        fields.setdefault(change.code, []).append("the cases file's `%s`" % field)
    fields.setdefault(PUBLIC_CASE.code, []).append("any other field of a train or development "
                                                   "case; such a case added or removed")
    for part, change in SPEC_PARTS.items():
        fields.setdefault(change.code, []).append("the spec's `%s`" % part)
    lines = ["| kind | fields | breaks | requires |", "|---|---|---|---|"]
    for change in CHANGES:
        requires = change.requires + (" (the same `%s` is a contract error)" % change.refused
                                      if change.refused else "")
        lines.append("| `%s` | %s | %s | %s |" % (change.code, "; ".join(fields.get(
            change.code, [])), change.breaks, requires))
    return "\n".join(lines) + "\n"
