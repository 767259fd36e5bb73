"""The import's last stage, on request: the cases file built from the baseline log's samples
and the logs of train and development cases (``import --write-cases``, ``init --from-log``)."""

from __future__ import annotations

from typing import Dict, List, Optional, Set

from ..contract.inputs import CASES_V1_SHAPE, CASES_V2_SHAPE
from ..contract.shapes import type_name
from ..contract.vocabulary import CASES_V1, CASES_V2, SPLITS, TEST_SPLIT
from ..errors import MAX_REPORTED_ERRORS, ContractError, ContractErrors
from ..jsonio import JSONObject
from ..text import quote
from .imported import ImportedSystem
from .results import surrogate_errors
from .settings import Settings
from .source import LogSource


def built_cases(systems: List[ImportedSystem], settings: Settings,
                ids: Dict[str, str]) -> JSONObject:
    """A cases file from the baseline log's samples (the first epoch of each; the baseline is
    the first of ``systems``) and from the samples of the logs of train and development
    cases, the mapping's case overrides winning over the sample metadata; its ids are those
    of ``ids`` (the results package's). When a split has no case (most logs hold test samples
    only), it is a cases v2 file that declares the split absent; else a v1 file."""
    baseline = systems[0]
    tools_by_case: Dict[str, Set[str]] = {}
    for system in systems:
        for record in system.records if system.is_system else ():
            tools_by_case.setdefault(record["case_id"], set()).update(record["tools_used"])
    cases = []
    errors: List[ContractError] = []
    origin: Dict[str, str] = {}
    for system in [baseline] + [system for system in systems if not system.is_system]:
        for case_id, fields in system.cases.items():
            if case_id in origin:
                errors.append(system.source.error(
                    "import.cases_mismatch", "case %s is a sample of both %s and %s: a case "
                    "is in one split's log only" % (quote(case_id), origin[case_id],
                                                    system.source.file_name)))
                continue
            origin[case_id] = system.source.file_name
            if fields is None:
                errors.append(system.source.error(
                    "import.missing_field", "the log holds no sample of case %s (its samples "
                    "are missing, recorded as unknown): the built case's expected_final_state "
                    "cannot be known; pass the benchmark's cases file with --cases" % (
                        quote(case_id),)))
                continue
            try:
                cases.append(built_case(case_id, fields, settings, system.source,
                                        sorted(tools_by_case.get(case_id, ())),
                                        None if system.is_system else system.role))
            except ContractErrors as failure:
                errors.extend(failure.errors)
    if errors:
        raise ContractErrors.capped(errors)
    present = {case["split"] for case in cases}
    absent = [split for split in SPLITS[:2] if split not in present]
    document = {
        "schema_version": CASES_V2 if absent else CASES_V1,
        "benchmark_id": ids["benchmark_id"],
        "benchmark_version": ids["benchmark_version"],
        "dataset_version": ids["dataset_version"],
        "cases": cases,
    }
    if absent:
        document["absent_splits"] = absent
    shape = CASES_V2_SHAPE if absent else CASES_V1_SHAPE
    problems = list(shape.iter_errors(document)) + surrogate_errors(document)
    if problems:
        raise ContractErrors([baseline.source.error(
            "import.invalid_cases", "the built cases file would not be valid: %s" % (
                error.message), error.path) for error in problems[:MAX_REPORTED_ERRORS]])
    return document


def built_case(case_id: str, fields: JSONObject, settings: Settings, source: LogSource,
               tools_used: List[str], log_split: Optional[str] = None) -> JSONObject:
    """One built case; ``log_split``: the split of the log the sample is in (a log of train
    or development cases), which its metadata and the mapping may only repeat."""
    override = settings.case_override(case_id)
    entry, path = fields["where"]

    def metadata_error(field: str, expected: str, value: object) -> ContractErrors:
        key = settings.metadata_key(field)
        return ContractErrors([source.error(
            "import.metadata", "metadata %s (the case's %s) must be %s, got %s" % (
                quote(key), field, expected, type_name(value)),
            tuple(path) + ("metadata", key), entry)])

    def text(field: str, default: str) -> str:
        if field in override:
            return str(override[field])
        value = fields.get(field)
        if value is None:
            return default
        if not isinstance(value, str) or not value.strip():
            raise metadata_error(field, "a non-blank string", value)
        return value

    def names(field: str, default: List[str]) -> List[str]:
        value = fields.get(field)
        if value is None:
            return default
        if not isinstance(value, list) or not all(
                isinstance(item, str) and item.strip() for item in value):
            raise metadata_error(field, "an array of non-blank strings", value)
        return sorted(set(value))

    split = text("split", log_split or TEST_SPLIT)
    if split not in SPLITS:
        raise metadata_error("split", "one of " + ", ".join(SPLITS), split)
    if log_split is not None and split != log_split:
        raise ContractErrors([source.error(
            "import.metadata", "case %s is in the log of %s cases, but its split is %s (its "
            "metadata or the mapping)" % (quote(case_id), log_split, quote(split)),
            tuple(path) + ("metadata", settings.metadata_key("split")), entry)])
    critical = override.get("critical", fields.get("critical"))
    if critical is None:
        critical = False
    if not isinstance(critical, bool):
        raise metadata_error("critical", "a Boolean", critical)
    expected = fields.get("expected_final_state")
    if expected is None:
        # Where the log would give it: a sample's target, unless the reader names another.
        missing, missing_path = fields.get("expected_from", (
            "the sample has no target", tuple(path) + ("target",)))
        raise ContractErrors([source.error(
            "import.missing_field", "%s, which the built case's expected_final_state is made "
            "from" % missing, missing_path, entry)])
    return {
        "id": case_id,
        "family_id": text("family_id", case_id),
        "split": split,
        "slice": text("slice", fields["task"]),
        "critical": critical,
        "task_type": text("task_type", fields["task"]),
        "is_private": split == TEST_SPLIT,
        "initial_state": fields.get("initial_state") or "case %s" % case_id,
        "expected_final_state": expected,
        "allowed_tools": names("allowed_tools", tools_used),
        "forbidden_side_effects": names("forbidden_side_effects", []),
    }
