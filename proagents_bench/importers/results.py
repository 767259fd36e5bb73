"""The import's fourth stage: the results package (``agent-benchmark-results-v3``; ``-v4``
when a system has several logs; ``-v6`` with each record's failure origin), its ids and each system's provenance, checked against the
contract itself before it is written."""

from __future__ import annotations

import hashlib
from typing import Dict, List, Optional

from ..contract.inputs import (RESULTS_V3_SHAPE, RESULTS_V4_SHAPE, RESULTS_V5_SHAPE,
                               RESULTS_V6_SHAPE)
from ..contract.vocabulary import RESULTS_V3, RESULTS_V4, RESULTS_V5, RESULTS_V6
from ..errors import MAX_REPORTED_ERRORS, ContractError, ContractErrors, Path, format_path
from ..jsonio import JSONObject
from .headers import exact
from .imported import ImportedSystem
from .settings import Settings
from .values import encodable


def benchmark_ids(baseline: ImportedSystem, settings: Settings,
                  cases_file: Optional[JSONObject]) -> Dict[str, str]:
    """The benchmark's ids: the cases file's, else the mapping's, else the log's defaults."""
    ids: Dict[str, str] = {}
    for key in ("benchmark_id", "benchmark_version", "dataset_version"):
        if cases_file is not None:
            ids[key] = cases_file[key]
        else:
            ids[key] = settings.get(key) or baseline.run.defaults[key]
    return ids


def results_package(systems: List[ImportedSystem], settings: Settings,
                    cases_file: Optional[JSONObject]) -> JSONObject:
    ids = benchmark_ids(systems[0], settings, cases_file)
    digest = hashlib.sha256(" ".join(log.source.sha256 for system in systems
                                     for log in system.logs).encode("ascii"))
    several = any(len(system.logs) > 1 for system in systems)
    # v6 (asked for: --failure-origins) is v5 with whose each record's failure is (null where
    # the harness says neither; each record's trace reference null without --trace-refs);
    # v5 (asked for: --trace-refs) keeps every log's provenance, as v4, and each record's
    # trace reference; else v4 for several logs, v3 for one, exactly as before (their records
    # have neither field).
    version, shape = ((RESULTS_V6, RESULTS_V6_SHAPE) if settings.failure_origins else
                      (RESULTS_V5, RESULTS_V5_SHAPE) if settings.trace_refs else
                      (RESULTS_V4, RESULTS_V4_SHAPE) if several else
                      (RESULTS_V3, RESULTS_V3_SHAPE))
    if settings.trace_refs:
        _seal_traces(systems)
    for system in systems:
        for record in system.records:
            if settings.failure_origins:
                record.setdefault("trace", None)
                record.setdefault("failure_origin", None)
            elif system.origins:
                record.pop("failure_origin", None)
    results: JSONObject = {
        "schema_version": version,
        "benchmark_id": ids["benchmark_id"],
        "benchmark_version": ids["benchmark_version"],
        "dataset_version": ids["dataset_version"],
        "result_set_version": settings.get("result_set_version") or (
            "import-" + digest.hexdigest()[:12]),
        "systems": [{
            "system_id": system.system_id,
            "role": system.role,
            "protocol": system.protocol,
            "provenance": (_provenance_v4 if version != RESULTS_V3 else _provenance)(
                system, settings),
            "records": system.records,
        } for system in systems],
    }
    # The records are made valid as they are read (each value checked, floats finite and
    # >= 0); the rest, with ids from the log, the mapping and the command line, is checked
    # here against the contract itself, without the records (floats are not its numbers).
    without_records = dict(results, systems=[
        dict(system, records=[], protocol={key: exact(value) for key, value in
                                           system["protocol"].items()})
        for system in results["systems"]])
    errors = list(shape.iter_errors(without_records))
    errors.extend(surrogate_errors(without_records))
    if errors:  # a value of the log the checks above let through: say where it went
        raise ContractErrors([ContractError(
            "import.invalid_result", "the imported package would not be valid: %s" % (
                error.message), error.path, systems[_system_index(error.path)].source.where())
            for error in errors[:MAX_REPORTED_ERRORS]])
    return results


def _seal_traces(systems: List[ImportedSystem]) -> None:
    """Each trace reference read from a log as a whole (no entry of its own) takes the log's
    digest, known now that every log is read (a Harbor job's once its last trial is)."""
    for system in systems:
        digests = [log.source.sha256 for log in system.logs]
        for record in system.records:
            trace = record.get("trace")
            if trace is not None and trace["sha256"] is None:
                trace["sha256"] = digests[trace["log"]]


def _system_index(path: Path) -> int:
    return path[1] if len(path) > 1 and path[0] == "systems" and path[1] in (0, 1) else 0


def _provenance(system: ImportedSystem, settings: Settings) -> JSONObject:
    run = system.run
    return {
        "log_file": system.source.file_name,
        "log_sha256": system.source.sha256,
        "log_bytes": system.source.size,
        "log_format": run.log_format,
        "log_format_version": run.format_version,
        "harness": run.harness,
        "harness_version": run.harness_version,
        "harness_commit": run.harness_commit,
        "run_id": run.run_id,
        "run_started": run.run_started,
        "mapping_sha256": settings.sha256,
        "run_status": run.status,
        "missing_as": system.missing_as,
        "recorded_unknown": system.recorded_unknown,
        "side_effect_rule": run.side_effect_rule,
    }


def _provenance_v4(system: ImportedSystem, settings: Settings) -> JSONObject:
    """A results v4 system's provenance: every log's own (a v3 provenance without what is
    the system's), with the trial ids its trials became, in the order given."""
    logs = []
    for log in system.logs:
        own = _provenance(log, settings)
        for key in ("mapping_sha256", "missing_as", "recorded_unknown"):
            del own[key]
        own["first_trial_id"] = log.first_trial_id
        own["trial_count"] = log.protocol["trial_count"]
        logs.append(own)
    return {"logs": logs, "mapping_sha256": settings.sha256, "missing_as": system.missing_as,
            "recorded_unknown": system.recorded_unknown}


def surrogate_errors(value: object, path: Path = ()) -> List[ContractError]:
    """A lone surrogate in any string (or key) of ``value`` (the small parts of the output:
    ids, provenance, built cases), at its path in the output."""
    if isinstance(value, str):
        return [ContractError("import.field_type", "the imported file would hold a lone "
                              "surrogate (such as \\ud800, no Unicode character) at %s, which "
                              "the gate does not read" % format_path(path), path)] if (
                                  not encodable(value)) else []
    found: List[ContractError] = []
    if isinstance(value, dict):
        for key in sorted(value):
            found.extend(surrogate_errors(key, path + (key,)))
            found.extend(surrogate_errors(value[key], path + (key,)))
    elif isinstance(value, list):
        for index, item in enumerate(value):
            found.extend(surrogate_errors(item, path + (index,)))
    return found
