"""The import's second stage: the samples of each opened log read whole (its test records,
its cases, every error of its samples), checked against the run its header lists (a run that
did not finish or lacks samples: ``import.incomplete_run``, or trials of status ``unknown``),
and the logs of one system merged into one system, its trials numbered on."""

from __future__ import annotations

from typing import Dict, List, Optional, Tuple, cast

from ..contract.harnesses import HARNESS_BY_NAME
from ..contract.shapes import type_name
from ..contract.vocabulary import SPLITS, TEST_SPLIT, UNKNOWN
from ..errors import (MAX_LISTED_IDS, MAX_REPORTED_ERRORS, ContractError, ContractErrors, Path,
                      format_path)
from ..jsonio import JSONObject
from ..jsonio.load import MAX_SAFE_INTEGER
from ..text import quote
from .imported import ImportedSystem
from .settings import Settings
from .source import LogSource
from .trial import Trials
from .values import encodable


def read_system(logs: List[Tuple[ImportedSystem, Trials]], settings: Settings,
                known: Optional[Dict[str, str]], keep_cases: bool = True) -> ImportedSystem:
    """The logs of one system, each read whole (:func:`read_log`), then merged
    (:func:`_merge`) when there are several."""
    parts = [read_log(system, trials, settings, known, keep_cases) for system, trials in logs]
    return parts[0] if len(parts) == 1 else _merge(parts)


def _merge(parts: List[ImportedSystem]) -> ImportedSystem:
    """One system from several logs of runs of it, in the order given: each case's trials
    are numbered on from log to log, so a log's trial t (its epoch, attempt or run) is the
    system's trial ``first_trial_id + t - 1``, where ``first_trial_id`` is 1 plus the trial
    counts of the logs before it. Two logs never hold the same (case, trial) of the system,
    whatever trial numbers each log uses (two Inspect evals of one epoch each are trials 1
    and 2). Every log must run the same cases (``import.cases_mismatch`` otherwise: a case
    without the trials of one log is a smaller benchmark)."""
    first = parts[0]
    merged = ImportedSystem(first.role, first.source, first.run)
    merged.parts = parts
    merged.system_id = first.system_id
    merged.missing_as = first.missing_as
    offset = 0
    for number, system in enumerate(parts):
        merged.errors.extend(system.errors)
        merged.omitted += system.omitted
        merged.not_test += system.not_test
        for origin, count in system.origins.items():
            merged.origins[origin] = merged.origins.get(origin, 0) + count
        system.first_trial_id = offset + 1
        for record in system.records:
            record["trial_id"] += offset
            if record.get("trace") is not None:
                record["trace"]["log"] = number
            merged.records.append(record)
        for item in system.recorded_unknown:
            item["trial_id"] += offset
            merged.recorded_unknown.append(item)
        for case_id, fields in system.cases.items():
            if merged.cases.get(case_id) is None:
                merged.cases[case_id] = fields
        offset += system.protocol.get("trial_count") or 0
    merged.protocol = dict(first.protocol, trial_count=offset)
    merged.records.sort(key=lambda record: (record["case_id"], record["trial_id"]))
    if not merged.errors:
        merged.errors.extend(_same_cases(parts))
    return merged


def _same_cases(parts: List[ImportedSystem]) -> List[ContractError]:
    """Every log of a system holds the cases of its first log, and no other."""
    errors = []
    first = set(parts[0].cases)
    for number, system in enumerate(parts[1:], 2):
        mine = set(system.cases)
        for label, ids in (("has no sample of case", sorted(first - mine)),
                           ("has samples of case", sorted(mine - first))):
            if ids:
                errors.append(system.source.error(
                    "import.cases_mismatch", "the %s's log %d %s%s %s%s%s its log 1 (%s)%s" % (
                        system.role, number, label, "s" if len(ids) > 1 else "", ", ".join(
                            quote(case_id) for case_id in ids[:MAX_LISTED_IDS]),
                        " and %d more" % (len(ids) - MAX_LISTED_IDS)
                        if len(ids) > MAX_LISTED_IDS else "",
                        " that", parts[0].source.shown, " has" if label.startswith("has no")
                        else " lacks")))
    return errors


def read_log(system: ImportedSystem, trials: Trials, settings: Settings,
             known: Optional[Dict[str, str]], keep_cases: bool = True) -> ImportedSystem:
    """The samples of one opened log, read whole: its test records, cases and the errors of
    its samples (a log that cannot be read further raises ContractErrors). Plain data, so
    that a forked process can hand it back."""
    try:
        system.errors = _collect(system, trials, settings, known)
    except ContractErrors as failure:
        system.errors = list(failure.errors)
        system.omitted = failure.omitted
        return system
    if system.is_system and not system.errors:  # a sample it could not read is no gap
        system.errors.extend(_completeness(system, settings, known))
    if len(system.errors) > MAX_REPORTED_ERRORS:
        system.omitted += len(system.errors) - MAX_REPORTED_ERRORS
        del system.errors[MAX_REPORTED_ERRORS:]
    if not keep_cases:  # the ids stay (the mapping's cases are checked against them)
        system.cases = dict.fromkeys(system.cases)
    return system


def case_index(cases_file: JSONObject) -> Dict[str, str]:
    return {case["id"]: case["split"] for case in cases_file["cases"]}


def _collect(system: ImportedSystem, trials: Trials, settings: Settings,
             known: Optional[Dict[str, str]]) -> List[ContractError]:
    """Read every trial of one log: keep the test records, the case fields; return the
    errors (samples that could not be read, duplicates, samples of cases the cases file
    lacks, trials beyond the trial count)."""
    source = system.source
    errors: List[ContractError] = []
    # (case, trial) -> where it was read: entry, path, line
    seen: Dict[Tuple[str, int], Tuple[Optional[str], Path, Optional[int]]] = {}
    trial_count = system.protocol.get("trial_count")
    for trial in trials:
        if isinstance(trial, ContractError):
            errors.append(trial)
            continue
        key = trial.key
        if key in seen:
            entry, path, line = seen[key]
            errors.append(source.error(
                "import.duplicate_sample", "sample %s epoch %d appears twice (also at %s%s%s)" % (
                    quote(key[0]), key[1], entry or "", _shown_path(path),
                    "line %d" % line if line is not None else ""),
                trial.path, trial.entry, trial.line))
            continue
        seen[key] = (trial.entry, trial.path, trial.line)
        case_id = key[0]
        if system.cases.get(case_id) is None:  # a case's fields are those of its first sample
            system.cases[case_id] = trial.case
        problem = _unreadable_by_the_gate(trial.record)
        if problem is not None:
            errors.append(source.error(problem[0], problem[1], trial.path, trial.entry,
                                       trial.line))
            continue
        if not system.is_system:  # a log of train or development cases: cases only
            system.not_test += 1
            continue
        if isinstance(trial_count, int) and key[1] > trial_count:
            errors.append(source.error(
                "import.sample_epoch", "sample %s epoch %d is beyond the protocol's "
                "trial_count %d" % (quote(case_id), key[1], trial_count),
                tuple(trial.path) + ("epoch",), trial.entry, trial.line))
            continue
        if known is not None:
            split = known.get(case_id)
            if split is None:
                errors.append(source.error(
                    "import.cases_mismatch", "sample %s is not a case of the cases file" % (
                        quote(case_id)), trial.path, trial.entry, trial.line))
                continue
        else:
            try:
                fields = cast("JSONObject", system.cases[case_id])  # its first sample's
                split = _split(case_id, fields, settings, source)
            except ContractErrors as failure:
                errors.extend(failure.errors)
                continue
        if split != TEST_SPLIT:
            system.not_test += 1
            continue
        if settings.trace_refs:  # the log's own number and digest are the package's to give
            trial.record["trace"] = (trial.locator.reference(0, None)
                                     if trial.locator is not None else None)
        if trial.origin is not None:  # whose the failure is, where the harness says it
            trial.record["failure_origin"] = trial.origin
            system.origins[trial.origin] = system.origins.get(trial.origin, 0) + 1
        system.records.append(trial.record)
    system.seen = set(seen)
    system.records.sort(key=lambda record: (record["case_id"], record["trial_id"]))
    return errors


def _completeness(system: ImportedSystem, settings: Settings,
                  known: Optional[Dict[str, str]]) -> List[ContractError]:
    """A run that did not finish, or whose log lacks samples its header lists, or whose
    header cannot tell: ``import.incomplete_run`` (or, with ``missing_as`` ``unknown``, every
    missing (sample, epoch) recorded as an unknown trial). A log without any sample is never
    a package."""
    run = system.run
    source = system.source
    seen, system.seen = system.seen, set()
    not_finished = "" if run.finished else (
        "the run did not finish (its status is %s)" % quote(run.status or "missing"))
    if not seen:
        if not run.finished:
            return [source.error("import.incomplete_run", "%s and its log holds no sample at "
                                 "all: there is nothing to record" % not_finished)]
        return [source.error("import.no_samples", "the log holds no sample: %s" % (
            run.unlogged or "a results package of no trial would decide nothing"))]
    trials = system.protocol.get("trial_count") or run.expected_trials
    if run.expected_ids is not None and trials:
        missing = [(case_id, number) for case_id in run.expected_ids
                   for number in range(1, trials + 1) if (case_id, number) not in seen]
    elif run.expected_count is not None:
        if len(seen) >= run.expected_count and run.finished:
            return []
        short = max(run.expected_count - len(seen), 0)
        named = [(case_id, number) for case_id in run.listed_ids
                 for number in range(1, (trials or 1) + 1) if (case_id, number) not in seen]
        if not named:
            unnamed = ("the header does not list their ids, so the missing ones cannot be "
                       "named or recorded")
        elif short > len(named):
            unnamed = ("its header names %d of the %d missing, so the other %d cannot be "
                       "named, and none is recorded" % (len(named), short, short - len(named)))
        else:
            unnamed = ("the %d it names do not make up the count, so which are missing "
                       "cannot be told, and none is recorded" % (
                           len(run.listed_ids) * (trials or 1)))
        return [source.error("import.incomplete_run", "%s%sthe log holds %d samples of the %d "
                             "its header counts%s, and %s%s" % (
                                 not_finished, "; " if not_finished else "", len(seen),
                                 run.expected_count, " (%d missing)" % short if short else "",
                                 unnamed, run.incomplete_hint))]
    else:
        return [source.error("import.incomplete_run", "%s%sthe log's header lists neither the "
                             "samples of the run nor how many there were: whether every sample "
                             "is in the log cannot be told" % (
                                 not_finished, "; " if not_finished else ""))]
    if not missing and run.finished:
        return []
    if system.missing_as == UNKNOWN:
        for case_id, number in missing:
            _record_unknown(system, case_id, number, settings, known)
        system.records.sort(key=lambda record: (record["case_id"], record["trial_id"]))
        return []
    harness = HARNESS_BY_NAME[run.harness]
    if missing:
        what = ("%d (%s, %s) pair%s of the %d its header lists %s missing, the first %s %s "
                "%s %d: a smaller run is not a smaller benchmark; import it with --missing-as "
                "unknown to record each missing one as a failed trial of status unknown%s" % (
                    len(missing), harness.case_word, harness.trial_word,
                    "" if len(missing) == 1 else "s", len(run.expected_ids) * trials,
                    "is" if len(missing) == 1 else "are", harness.case_word,
                    quote(missing[0][0]), harness.trial_word, missing[0][1],
                    run.incomplete_hint))
    else:
        what = ("every sample its header lists is in the log, but a run that did not finish "
                "is not a finished one; import it with --missing-as unknown to accept it "
                "(its status is kept in the provenance)")
    return [source.error("import.incomplete_run", "%s%s%s" % (
        not_finished, "; " if not_finished else "", what))]


def _record_unknown(system: ImportedSystem, case_id: str, trial_id: int, settings: Settings,
                    known: Optional[Dict[str, str]]) -> None:
    """A (case, trial) the log lacks, recorded as a trial of status unknown (when the case
    is a test case)."""
    if known is not None:
        split = known.get(case_id, TEST_SPLIT)
    else:
        override = settings.case_override(case_id).get("split")
        fields = system.cases.get(case_id) or {}
        split = str(override) if override is not None else fields.get("split") or TEST_SPLIT
    system.cases.setdefault(case_id, None)
    if split != TEST_SPLIT:
        return
    record: JSONObject = {"case_id": case_id, "trial_id": trial_id, "status": UNKNOWN,
                          "final_state": None, "side_effects": [], "tools_used": [],
                          "latency_ms": None, "cost_units": None}
    if settings.trace_refs:
        record["trace"] = None  # the log lacks it: there is no trace to point at
    system.records.append(record)
    system.recorded_unknown.append({"case_id": case_id, "trial_id": trial_id})


def _unreadable_by_the_gate(record: JSONObject) -> Optional[Tuple[str, str]]:
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
        field = next(field for field, text in texts if not encodable(text))
        return ("import.field_type", "the record's %s would hold a lone surrogate (such as "
                "\\ud800, which is no Unicode character), which the gate does not read"
                % field)


def _shown_path(path: Path) -> str:
    return (" " + format_path(path)) if path else ""


def _split(case_id: str, case: JSONObject, settings: Settings, source: LogSource) -> str:
    override = settings.case_override(case_id).get("split")
    if override is not None:
        return str(override)
    split = case.get("split")
    if split is None:
        return TEST_SPLIT
    if split not in SPLITS:
        entry, path = case["where"]
        raise ContractErrors([source.error(
            "import.metadata", "metadata %s must be one of %s, got %s" % (
                quote(settings.metadata_key("split")), ", ".join(SPLITS),
                quote(split) if isinstance(split, str) else type_name(split)),
            tuple(path) + ("metadata", settings.metadata_key("split")), entry)])
    return str(split)  # one of SPLITS


def gather(systems: List[ImportedSystem], errors: List[ContractError]) -> int:
    """Add the errors of the systems' samples to ``errors``; return how many more there were
    (past each log's cap)."""
    omitted = 0
    for system in systems:
        errors.extend(system.errors)
        omitted += system.omitted
    return omitted
