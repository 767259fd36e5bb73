"""The import's third stage, across the logs: every test case in every system's logs (the
cases file's, else the baseline's), and everything the mapping names found in some log."""

from __future__ import annotations

from typing import Dict, List, Optional, Set

from ..contract.vocabulary import TEST_SPLIT
from ..errors import MAX_LISTED_IDS, ContractError
from ..text import quote
from .imported import ImportedSystem
from .settings import Settings


def coverage_errors(systems: List[ImportedSystem],
                    known: Optional[Dict[str, str]]) -> List[ContractError]:
    """Every test case in every log: those of the cases file, or else the baseline's."""
    errors = []
    # A system whose logs had an error (a sample that could not be read, a run that did not
    # finish) lacks what that error says: said once, by it, never again as a missing case.
    failed = [bool(system.errors) for system in systems]
    if known is not None:
        expected = sorted(case_id for case_id, split in known.items() if split == TEST_SPLIT)
    elif failed[0]:
        return []  # the baseline's cases are what its own errors leave unknown
    else:
        expected = sorted({record["case_id"] for record in systems[0].records})
    for system, incomplete in zip(systems, failed):
        if incomplete:
            continue
        found = {record["case_id"] for record in system.records}
        missing = [case_id for case_id in expected if case_id not in found]
        extra = sorted(found.difference(expected))
        source = system.source
        for label, ids in (("has no sample of test case", missing),
                           ("has samples of case", extra)):
            if ids:
                errors.append(source.error("import.cases_mismatch", "the %s log %s %s%s%s" % (
                    system.role, label + ("s" if len(ids) > 1 else ""), ", ".join(
                        quote(case_id) for case_id in ids[:MAX_LISTED_IDS]),
                    " and %d more" % (len(ids) - MAX_LISTED_IDS) if len(ids) > MAX_LISTED_IDS
                    else "", " that the %s lacks" % (
                        "cases file" if known is not None else "baseline log")
                    if label.startswith("has samples") else "")))
    return errors


def mapping_errors(systems: List[ImportedSystem], settings: Settings) -> List[ContractError]:
    """What the mapping names must be in the logs (a typo must not drop a critical flag or a
    side effect): every case of its ``cases`` a sample or a listed sample of some log, every
    key of its ``metadata_keys`` a metadata key of some sample, every tool of
    ``side_effect_tools`` called or offered in some log, every store key of
    ``side_effect_store_keys`` in some sample's store."""
    value = settings.value
    if not value:
        return []
    case_ids: Set[str] = set()
    metadata: Set[str] = set()
    tools: Set[str] = set()
    store: Set[str] = set()
    for system in systems:
        case_ids.update(system.cases)
        case_ids.update(system.run.expected_ids or ())
        metadata.update(system.run.metadata_seen)
        tools.update(system.run.tools_seen)
        store.update(system.run.store_keys_seen)
    logs = "no log (%s) holds" % ", ".join(system.source.file_name for system in systems)
    errors = []
    for case_id in value.get("cases", {}):
        if case_id not in case_ids:
            errors.append(ContractError("mapping.unknown_case", "the mapping's cases names %s, "
                                        "but %s a sample of that id" % (quote(case_id), logs),
                                        ("cases", case_id)))
    for field, key in value.get("metadata_keys", {}).items():
        if key not in metadata:
            errors.append(ContractError(
                "mapping.unknown_metadata_key", "metadata_keys.%s names the metadata key %s, "
                "but %s a sample with that key" % (field, quote(key), logs),
                ("metadata_keys", field)))
    for index, tool in enumerate(value.get("side_effect_tools") or ()):
        if tool not in tools:
            errors.append(ContractError(
                "mapping.unknown_tool", "side_effect_tools names %s, but %s a call of that "
                "tool or offers it" % (quote(tool), logs), ("side_effect_tools", index)))
    for index, key in enumerate(value.get("side_effect_store_keys", ())):
        if key not in store:
            errors.append(ContractError(
                "mapping.unknown_store_key", "side_effect_store_keys names %s, but %s a store "
                "with that key" % (quote(key), logs), ("side_effect_store_keys", index)))
    return [error.at(settings.shown, error.line, error.column)
            for error in settings.placed(errors)]
