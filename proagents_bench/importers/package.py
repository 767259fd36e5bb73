"""Two logs in, one results package out (``agent-benchmark-results-v2``), with each
system's provenance, and on request a cases file built from the baseline log.

Only test cases are records: a sample of a train or development case (by the cases file, or
by the sample's ``split`` metadata and the mapping) becomes a case of a built cases file,
never a record, since the gate ranks test cases only. Every test sample is a record, whatever
its status. Records are written in (case id, trial id) order, so the same logs give the same
bytes whatever order the harness wrote its samples in.
"""

from __future__ import annotations

import hashlib
from decimal import Decimal
from typing import Callable, Dict, Iterator, List, Optional, Tuple

from ..contract.inputs import CASES_V1_SHAPE, PROTOCOL, RESULTS_V2_SHAPE
from ..contract.vocabulary import (CASES_V1, INSPECT_EVAL, INSPECT_JSON, RESULTS_V2, ROLES,
                                   SPLITS, TAU2_JSON)
from ..errors import ContractError, ContractErrors, format_path
from ..jsonio.load import MAX_SAFE_INTEGER
from ..text import quote
from . import inspect_log, tau2
from .settings import Settings
from .source import LogSource, detect_format, type_name
from .trial import LogRun, Trial

# The most errors reported in one run (as the gate's MAX_REPORTED_ERRORS), and the most
# case ids one error lists.
MAX_REPORTED_ERRORS = 100
MAX_LISTED_IDS = 20


class ImportedSystem:
    """One system as imported: its log, run, records, the case fields of each case it ran
    (first sample of each), how many samples were not records (train and development)."""

    def __init__(self, role: str, source: LogSource, run: LogRun) -> None:
        self.role = role
        self.source = source
        self.run = run
        self.records: List[dict] = []
        self.cases: Dict[str, dict] = {}
        self.not_test = 0
        self.system_id: Optional[str] = None
        self.protocol: dict = {}
        self.errors: List[ContractError] = []


class Imported:
    """The outcome: the results package, the cases file (None unless asked for) and the
    systems (for the command's summary)."""

    def __init__(self, results: dict, cases: Optional[dict],
                 systems: List[ImportedSystem]) -> None:
        self.results = results
        self.cases = cases
        self.systems = systems


def open_log(source: LogSource, settings: Settings) -> Tuple[LogRun, Iterator[Trial]]:
    """The log's run and trials, its format told from its bytes (a folder: tau2-bench's)."""
    if tau2.is_results_folder(source.path):
        source.entry_separator = "/"
        run, trials = tau2.read_folder(source, settings)
    elif detect_format(source.measure(), None) == INSPECT_EVAL:
        run, trials = inspect_log.read_eval(source, settings)
    else:
        value = source.read_json()
        found = detect_format(b"", value)
        if found == INSPECT_JSON:
            run, trials = inspect_log.read_json_log(source, value, settings)
        elif found == TAU2_JSON:
            run, trials = tau2.read_results(source, value, settings)
        elif "info" in value and "simulation_index" in value:
            raise ContractErrors([source.error(
                "import.format", "the results.json of a tau2-bench results folder (its "
                "simulations are files of the simulations/ folder beside it): pass the "
                "folder itself")])
        else:
            raise ContractErrors([source.error(
                "import.format", "not a log this importer reads: expected an Inspect AI .eval "
                "log (a zip), an Inspect AI .json log (an object with \"version\" and "
                "\"eval\"), a tau2-bench results.json (an object with \"info\" and "
                "\"simulations\") or a tau2-bench results folder")])
    try:
        settings.check_harness(run.harness)
    except ContractErrors as failure:
        _close(trials)
        raise ContractErrors([error.at(settings.shown, error.line, error.column)
                              for error in failure.errors])
    return run, trials


def _close(trials: Iterator[Trial]) -> None:
    close = getattr(trials, "close", None)
    if close is not None:
        close()


Background = Callable[[Callable[[], ImportedSystem]], Callable[[], ImportedSystem]]


def run_here(read: Callable[[], ImportedSystem]) -> Callable[[], ImportedSystem]:
    """The default way to read the candidate's log: here, when its result is asked for (the
    command line may pass one that reads it in a forked process meanwhile)."""
    return read


def import_logs(logs: List[LogSource], settings: Settings, cases_file: Optional[dict] = None,
                build_cases: bool = False,
                system_ids: Tuple[Optional[str], Optional[str]] = (None, None),
                background: Background = run_here) -> Imported:
    """Import the baseline's and the candidate's log (``logs``, in that order); raise
    ContractErrors with every error found. ``background`` starts the candidate's reading
    (see :func:`run_here`) while the baseline's is read."""
    known = _case_index(cases_file) if cases_file is not None else None
    # Only the baseline's cases make a cases file: the candidate's are not kept.
    candidate = background(lambda: read_log(ROLES[1], logs[1], settings, known, False))
    systems = [read_log(ROLES[0], logs[0], settings, known), candidate()]
    errors = [error for system in systems for error in system.errors]
    errors.extend(_coverage_errors(systems, known))
    if errors:
        raise ContractErrors(errors[:MAX_REPORTED_ERRORS], len(errors[MAX_REPORTED_ERRORS:]))
    for system, given in zip(systems, system_ids):
        try:
            system.protocol = _protocol(system, settings)
        except ContractErrors as failure:
            errors.extend(failure.errors)
        system.system_id = given if given is not None else system.run.model
    if errors:
        raise ContractErrors(errors)
    _check_system_ids(systems)
    results = _results(systems, settings, cases_file)
    cases = _cases(systems, settings, results) if build_cases else None
    return Imported(results, cases, systems)


def read_log(role: str, source: LogSource, settings: Settings,
             known: Optional[Dict[str, str]], keep_cases: bool = True) -> ImportedSystem:
    """One log read whole: its run, test records, cases and the errors of its samples (a log
    that cannot be read further raises ContractErrors). Plain data, so that a forked process
    can hand it back."""
    run, trials = open_log(source, settings)
    system = ImportedSystem(role, source, run)
    try:
        system.errors = _collect(system, trials, settings, known)
    finally:
        _close(trials)
    if not keep_cases:
        system.cases = {}
    return system


def _case_index(cases_file: dict) -> Dict[str, str]:
    return {case["id"]: case["split"] for case in cases_file["cases"]}


def _collect(system: ImportedSystem, trials: Iterator[Trial], settings: Settings,
             known: Optional[Dict[str, str]]) -> List[ContractError]:
    """Read every trial of one log: keep the test records, the case fields; return the
    errors (duplicates, samples of cases the cases file lacks)."""
    source = system.source
    errors: List[ContractError] = []
    seen: Dict[tuple, tuple] = {}  # (case, trial) -> where it was read: entry, path
    for trial in trials:
        key = trial.key
        if key in seen:
            entry, path = seen[key]
            errors.append(source.error(
                "import.duplicate_sample", "sample %s epoch %d appears twice (also at %s%s)" % (
                    quote(key[0]), key[1], entry or "", _shown_path(path)),
                trial.path, trial.entry))
            continue
        seen[key] = (trial.entry, trial.path)
        case_id = key[0]
        if case_id not in system.cases:  # a case's fields are those of its first sample
            system.cases[case_id] = trial.case
        problem = _unreadable_by_the_gate(trial.record)
        if problem is not None:
            errors.append(source.error(problem[0], problem[1], trial.path, trial.entry))
            continue
        if known is not None:
            split = known.get(case_id)
            if split is None:
                errors.append(source.error(
                    "import.cases_mismatch", "sample %s is not a case of the cases file" % (
                        quote(case_id)), trial.path, trial.entry))
                continue
        else:
            split = _split(case_id, system.cases[case_id], settings, source)
        if split != "test":
            system.not_test += 1
            continue
        system.records.append(trial.record)
    system.records.sort(key=lambda record: (record["case_id"], record["trial_id"]))
    return errors


def _unreadable_by_the_gate(record: dict) -> Optional[Tuple[str, str]]:
    """(code, message) when the record holds what the gate's reader refuses though the log's
    JSON reader took it: a trial id beyond 2**53 - 1 (I-JSON), or a string with a lone
    surrogate (``"\\ud800"``, no Unicode character); None for a record the gate reads."""
    if record["trial_id"] > MAX_SAFE_INTEGER:
        return ("import.sample_epoch", "the trial id %d is beyond 2**53 - 1, which the gate "
                "does not read (I-JSON)" % record["trial_id"])
    texts = [("case_id", record["case_id"]), ("final_state", record["final_state"] or "")]
    texts.extend(("tools_used", name) for name in record["tools_used"])
    texts.extend(("side_effects", name) for name in record["side_effects"])
    try:  # one encoding of them all: the common case costs one call
        "\n".join(text for _field, text in texts).encode("utf-8")
        return None
    except UnicodeEncodeError:
        field = next(field for field, text in texts if _lone_surrogate(text))
        return ("import.field_type", "the record's %s would hold a lone surrogate (such as "
                "\\ud800, which is no Unicode character), which the gate does not read"
                % field)


def _lone_surrogate(text: str) -> bool:
    try:
        text.encode("utf-8")
        return False
    except UnicodeEncodeError:
        return True


def _surrogate_errors(value: object, path: tuple = ()) -> List[ContractError]:
    """A lone surrogate in any string (or key) of ``value`` (the small parts of the output:
    ids, provenance, built cases), at its path in the output."""
    if isinstance(value, str):
        return [ContractError("import.field_type", "the imported file would hold a lone "
                              "surrogate (such as \\ud800, no Unicode character) at %s, which "
                              "the gate does not read" % format_path(path), path)] if (
                                  _lone_surrogate(value)) else []
    found: List[ContractError] = []
    if isinstance(value, dict):
        for key in sorted(value):
            found.extend(_surrogate_errors(key, path + (key,)))
            found.extend(_surrogate_errors(value[key], path + (key,)))
    elif isinstance(value, list):
        for index, item in enumerate(value):
            found.extend(_surrogate_errors(item, path + (index,)))
    return found


def _shown_path(path: tuple) -> str:
    return (" " + format_path(path)) if path else ""


def _split(case_id: str, case: dict, settings: Settings, source: LogSource) -> str:
    override = settings.case_override(case_id).get("split")
    if override is not None:
        return str(override)
    split = case.get("split")
    if split is None:
        return "test"
    if split not in SPLITS:
        entry, path = case["where"]
        raise ContractErrors([source.error(
            "import.metadata", "metadata %s must be one of %s, got %s" % (
                quote(settings.metadata_key("split")), ", ".join(SPLITS),
                quote(split) if isinstance(split, str) else type_name(split)),
            tuple(path) + ("metadata", settings.metadata_key("split")), entry)])
    return split


def _coverage_errors(systems: List[ImportedSystem],
                     known: Optional[Dict[str, str]]) -> List[ContractError]:
    """Every test case in every log: those of the cases file, or else the baseline's."""
    errors = []
    if known is not None:
        expected = sorted(case_id for case_id, split in known.items() if split == "test")
    else:
        expected = sorted({record["case_id"] for record in systems[0].records})
    for system in systems:
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


def _protocol(system: ImportedSystem, settings: Settings) -> dict:
    """The system's protocol: what the log records, then the mapping, then the defaults."""
    given = settings.protocol
    errors = []
    protocol = {}
    for field in PROTOCOL.fields:
        key = field.key
        logged = system.run.protocol.get(key)
        mapped = _plain_number(given[key]) if key in given else None
        if logged is not None and mapped is not None and logged[0] != mapped:
            errors.extend(settings.placed([ContractError(
                "mapping.protocol_conflict", "protocol.%s is %s in the mapping, but the %s log "
                "records %s (%s)" % (key, mapped, system.role, logged[0], logged[1]),
                ("protocol", key))]))
            continue
        if logged is not None:
            value = logged[0]
        elif mapped is not None:
            value = mapped
        elif key in system.run.defaults:
            value = system.run.defaults[key]
        else:
            errors.append(system.source.error(
                "import.missing_field", "the log does not record the protocol's %s: set "
                "protocol.%s in the mapping" % (key, key)))
            continue
        # The contract's numbers are exact (int, Decimal); a float of the log is checked as
        # the decimal it prints as, and written as it is.
        entry, path = system.run.protocol_where.get(key, (None, ())) if logged else (None, ())
        problems = [error.message for error in field.shape.iter_errors(_exact(value))]
        if isinstance(value, int) and abs(value) > MAX_SAFE_INTEGER:
            problems.append("beyond +/-(2**53 - 1), which the gate does not read (I-JSON)")
        for problem in problems:
            errors.append(system.source.error(
                "import.protocol", "the protocol's %s would be %s: %s%s" % (
                    key, value, problem, " (from %s)" % logged[1] if logged else ""),
                path, entry))
        protocol[key] = value
    if errors:
        raise ContractErrors(errors)
    return protocol


def _exact(value: object) -> object:
    """A float as the exact decimal it prints as (the contract's shapes compare exact numbers:
    int or Decimal); anything else as it is."""
    return Decimal(repr(value)) if isinstance(value, float) else value


def _plain_number(value: object) -> object:
    """A mapping's number (an exact Decimal when written with a fraction) as JSON writes it."""
    if isinstance(value, Decimal):
        return int(value) if value == value.to_integral_value() else float(value)
    return value


def _check_system_ids(systems: List[ImportedSystem]) -> None:
    errors = []
    for system in systems:
        if system.system_id is None:
            errors.append(system.source.error(
                "import.system_id", "the log does not name the %s's model: name the system "
                "with --%s-id" % (system.role, system.role)))
    if not errors and systems[0].system_id == systems[1].system_id:
        errors.append(ContractError(
            "import.system_id", "both logs are of %s: name the systems with --baseline-id "
            "and --candidate-id" % quote(systems[0].system_id)))
    if errors:
        raise ContractErrors(errors)


def _results(systems: List[ImportedSystem], settings: Settings,
             cases_file: Optional[dict]) -> dict:
    baseline = systems[0]
    ids = {}
    for key in ("benchmark_id", "benchmark_version", "dataset_version"):
        if cases_file is not None:
            ids[key] = cases_file[key]
        else:
            ids[key] = settings.get(key) or baseline.run.defaults[key]
    digest = hashlib.sha256(("%s %s" % (systems[0].source.sha256,
                                        systems[1].source.sha256)).encode("ascii"))
    results = {
        "schema_version": RESULTS_V2,
        "benchmark_id": ids["benchmark_id"],
        "benchmark_version": ids["benchmark_version"],
        "dataset_version": ids["dataset_version"],
        "result_set_version": settings.get("result_set_version") or (
            "import-" + digest.hexdigest()[:12]),
        "systems": [{
            "system_id": system.system_id,
            "role": system.role,
            "protocol": system.protocol,
            "provenance": _provenance(system, settings),
            "records": system.records,
        } for system in systems],
    }
    # The records are made valid as they are read (each value checked, floats finite and
    # >= 0); the rest, with ids from the log, the mapping and the command line, is checked
    # here against the contract itself, without the records (floats are not its numbers).
    without_records = dict(results, systems=[
        dict(system, records=[], protocol={key: _exact(value) for key, value in
                                           system["protocol"].items()})
        for system in results["systems"]])
    errors = list(RESULTS_V2_SHAPE.iter_errors(without_records))
    errors.extend(_surrogate_errors(without_records))
    if errors:  # a value of the log the checks above let through: say where it went
        raise ContractErrors([ContractError(
            "import.invalid_result", "the imported package would not be valid: %s" % (
                error.message), error.path, systems[_system_index(error.path)].source.where())
            for error in errors[:MAX_REPORTED_ERRORS]])
    return results


def _system_index(path: tuple) -> int:
    return path[1] if len(path) > 1 and path[0] == "systems" and path[1] in (0, 1) else 0


def _provenance(system: ImportedSystem, settings: Settings) -> dict:
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
    }


# -- the cases file -------------------------------------------------------------------------

def _cases(systems: List[ImportedSystem], settings: Settings, results: dict) -> dict:
    """A cases file from the baseline log's samples (the first epoch of each), the mapping's
    case overrides winning over the sample metadata."""
    baseline = systems[0]
    tools_by_case: Dict[str, set] = {}
    for system in systems:
        for record in system.records:
            tools_by_case.setdefault(record["case_id"], set()).update(record["tools_used"])
    cases = []
    errors: List[ContractError] = []
    for case_id, fields in baseline.cases.items():
        try:
            cases.append(_case(case_id, fields, settings, baseline.source,
                               sorted(tools_by_case.get(case_id, ()))))
        except ContractErrors as failure:
            errors.extend(failure.errors)
    if errors:
        raise ContractErrors(errors[:MAX_REPORTED_ERRORS], len(errors[MAX_REPORTED_ERRORS:]))
    document = {
        "schema_version": CASES_V1,
        "benchmark_id": results["benchmark_id"],
        "benchmark_version": results["benchmark_version"],
        "dataset_version": results["dataset_version"],
        "cases": cases,
    }
    problems = list(CASES_V1_SHAPE.iter_errors(document)) + _surrogate_errors(document)
    if problems:
        raise ContractErrors([baseline.source.error(
            "import.invalid_cases", "the built cases file would not be valid: %s" % (
                error.message), error.path) for error in problems[:MAX_REPORTED_ERRORS]])
    return document


def _case(case_id: str, fields: dict, settings: Settings, source: LogSource,
          tools_used: List[str]) -> dict:
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

    split = text("split", "test")
    if split not in SPLITS:
        raise metadata_error("split", "one of " + ", ".join(SPLITS), split)
    critical = override.get("critical", fields.get("critical"))
    if critical is None:
        critical = False
    if not isinstance(critical, bool):
        raise metadata_error("critical", "a Boolean", critical)
    expected = fields.get("expected_final_state")
    if expected is None:
        raise ContractErrors([source.error(
            "import.missing_field", "the sample has no target, which the built case's "
            "expected_final_state is made from", tuple(path) + ("target",), entry)])
    return {
        "id": case_id,
        "family_id": text("family_id", case_id),
        "split": split,
        "slice": text("slice", fields["task"]),
        "critical": critical,
        "task_type": text("task_type", fields["task"]),
        "is_private": split == "test",
        "initial_state": fields.get("initial_state") or "case %s" % case_id,
        "expected_final_state": expected,
        "allowed_tools": names("allowed_tools", tools_used),
        "forbidden_side_effects": names("forbidden_side_effects", []),
    }
