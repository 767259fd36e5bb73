"""Two logs in (or, per system, several logs of one run each, their trials numbered on in
the order given: :func:`_merge`), one results package out (``agent-benchmark-results-v3``;
``-v4``, which keeps every log's provenance, when a system has several), with each system's
provenance, and on request a cases file built from the baseline log (and from logs of the
train and development splits, when given).

The import reads in two phases. First every log's header: what the header alone decides
(the protocol, the system ids, a tau2 domain whose write tools are unknown) is reported, all
of it at once, before any sample is read. Then the samples: every error of every log at once
(a sample that cannot be read, duplicates, cases that do not match, a trial beyond the trial
count, a run that did not finish or lacks samples its header lists, mapping entries that no
log contains).

A run that did not finish, or whose log holds fewer samples than its header says were run,
is ``import.incomplete_run``; with ``missing_as="unknown"`` every missing (sample, epoch) is
a record of status ``unknown`` instead (a failed trial, never dropped), listed in the
system's provenance (``recorded_unknown``), from which the gate makes a finding. A log with
no sample at all is never a package.

Only test cases are records: a sample of a train or development case (by the cases file, or
by the sample's ``split`` metadata and the mapping) becomes a case of a built cases file,
never a record, since the gate ranks test cases only. Every test sample is a record, whatever
its status. Records are written in (case id, trial id) order, so the same logs give the same
bytes whatever order the harness wrote its samples in.
"""

from __future__ import annotations

import hashlib
from decimal import Decimal
from typing import Callable, Dict, List, Optional, Sequence, Set, Tuple, Union, cast

from ..contract.inputs import (CASES_V1_SHAPE, CASES_V2_SHAPE, PROTOCOL, RESULTS_V3_SHAPE,
                               RESULTS_V4_SHAPE)
from ..contract.harnesses import HARNESS_BY_NAME
from ..contract.shapes import type_name
from ..contract.vocabulary import (CASES_V1, CASES_V2, MISSING_AS, RESULTS_V3, RESULTS_V4,
                                   ROLES, SPLITS, TEST_SPLIT, UNKNOWN)
from ..errors import (MAX_LISTED_IDS, MAX_REPORTED_ERRORS, ContractError, ContractErrors, Path,
                      format_path)
from ..jsonio import JSONObject
from ..jsonio.load import MAX_SAFE_INTEGER
from ..jsonio.paths import same_file
from ..text import quote
from .formats import close_trials, open_log
from .settings import Settings
from .source import LogSource
from .trial import LogRun, Trials
from .values import encodable


class ImportedSystem:
    """One log as imported: its role (``baseline``, ``candidate``, or the split of a log of
    train or development cases), its run, records, the case fields of each case it ran (first
    sample of each), how many samples were not records (train and development), the (case,
    trial) pairs recorded as unknown because the log lacked them."""

    def __init__(self, role: str, source: LogSource, run: LogRun) -> None:
        self.role = role
        self.source = source
        self.run = run
        self.records: List[JSONObject] = []
        self.cases: Dict[str, Optional[JSONObject]] = {}
        self.not_test = 0
        self.system_id: Optional[str] = None
        self.protocol: JSONObject = {}
        self.errors: List[ContractError] = []
        self.omitted = 0
        self.recorded_unknown: List[JSONObject] = []
        self.missing_as = MISSING_AS[0]
        # the (case, trial) pairs of the log, while it is read
        self.seen: Set[Tuple[str, int]] = set()
        # A system read from several logs: each log as imported on its own, in the order
        # given (its records renumbered into the system's trial ids); else empty.
        self.parts: List[ImportedSystem] = []
        self.first_trial_id = 1

    @property
    def logs(self) -> List[ImportedSystem]:
        """The system's logs as imported, in the order given (itself, for one log)."""
        return self.parts or [self]

    @property
    def is_system(self) -> bool:
        return self.role in ROLES


class Imported:
    """The outcome: the results package, the cases file (None unless asked for) and the
    systems (for the command's summary), then the logs of train and development cases."""

    def __init__(self, results: JSONObject, cases: Optional[JSONObject],
                 systems: List[ImportedSystem]) -> None:
        self.results = results
        self.cases = cases
        self.systems = systems


Background = Callable[[Callable[[], ImportedSystem]], Callable[[], ImportedSystem]]


def run_here(read: Callable[[], ImportedSystem]) -> Callable[[], ImportedSystem]:
    """The default way to read the candidate's log: here, when its result is asked for (the
    command line may pass one that reads it in a forked process meanwhile)."""
    return read


LogGroup = Union[LogSource, Sequence[LogSource]]


def import_logs(logs: Sequence[LogGroup], settings: Settings,
                cases_file: Optional[JSONObject] = None,
                build_cases: bool = False,
                system_ids: Tuple[Optional[str], Optional[str]] = (None, None),
                background: Background = run_here, missing_as: str = MISSING_AS[0],
                split_logs: Sequence[Tuple[str, LogSource]] = ()) -> Imported:
    """Import the baseline's and the candidate's log (``logs``, in that order; each a log,
    or a sequence of logs whose trials are one system's, see :func:`_merge`); raise
    ContractErrors with every error found. ``background`` starts the candidate's reading
    (see :func:`run_here`) while the baseline's is read. ``missing_as`` is what a (sample,
    epoch) the log lacks becomes (see the module docstring); ``split_logs`` are (split, log)
    pairs of logs whose every sample is a case of that split, for the built cases file."""
    known = _case_index(cases_file) if cases_file is not None else None
    opened: List[Tuple[ImportedSystem, Trials]] = []
    try:
        groups = [[group] if isinstance(group, LogSource) else list(group) for group in logs]
        given = [(role, source) for role, group in zip(ROLES, groups) for source in group]
        errors = _open(given + list(split_logs), settings, opened)
        # Counted as given, not as opened: a log that could not be opened (its own error is
        # said) still is one of its system's, so that the others are judged as they are.
        errors.extend(_header_errors([system for system, _trials in opened], settings,
                                     system_ids, [role for role, _source in given]))
        errors = _once(errors)  # a mapping's error is found once per log: said once
        if errors:  # all that the headers decide, before any sample is read
            raise ContractErrors.capped(errors)
        for system, _trials in opened:
            system.missing_as = missing_as
        baseline_logs = [pair for pair in opened if pair[0].role == ROLES[0]]
        candidate_logs = [pair for pair in opened if pair[0].role == ROLES[1]]
        # Only the baseline's cases make a cases file: the candidate's are not kept.
        read_candidate = background(lambda: read_system(candidate_logs, settings, known,
                                                        False))
        systems = [read_system(baseline_logs, settings, known), read_candidate()]
        systems.extend(read_log(system, trials, settings, known)
                       for system, trials in opened if not system.is_system)
    finally:
        for _system, trials in opened:
            close_trials(trials)
    omitted = _gather(systems, errors)
    errors.extend(_coverage_errors(systems[:2], known))
    errors.extend(_mapping_errors(systems, settings))
    if errors:
        raise ContractErrors.capped(errors, omitted)
    results = _results(systems[:2], settings, cases_file)
    cases = _cases(systems, settings, results) if build_cases else None
    return Imported(results, cases, systems)


class Described:
    """What one log (and the logs of train and development cases) says of its benchmark, for
    a scaffold (``init --from-log``): the benchmark's ids, the system's id and protocol, the
    cases file built as ``import --write-cases`` builds it, and the log's system."""

    def __init__(self, ids: Dict[str, str], system_id: str, protocol: JSONObject,
                 cases: JSONObject, system: ImportedSystem) -> None:
        self.ids = ids
        self.system_id = system_id
        self.protocol = protocol
        self.cases = cases
        self.system = system


def describe_log(log: LogSource, settings: Settings, system_id: Optional[str] = None,
                 split_logs: Sequence[Tuple[str, LogSource]] = ()) -> Described:
    """Read one system's log as the import reads a baseline's (the same headers, protocol,
    samples and checks, every error at once), and its benchmark: the ids a package imported
    from it would have (the mapping's, else the log's defaults), the protocol it ran under,
    and the cases file ``--write-cases`` would build (a cases v2 file declaring absent the
    splits no log holds). ``system_id`` names the system (default: the log's model)."""
    opened: List[Tuple[ImportedSystem, Trials]] = []
    try:
        errors = _open([(ROLES[0], log)] + list(split_logs), settings, opened)
        errors.extend(_header_errors([system for system, _trials in opened], settings,
                                     (system_id, None)))
        if opened and opened[0][0].is_system and opened[0][0].system_id is None:
            errors.extend(_system_id_errors([opened[0][0]]))
        errors = _once(errors)
        if errors:
            raise ContractErrors.capped(errors)
        systems = [read_log(system, trials, settings, None) for system, trials in opened]
    finally:
        for _system, trials in opened:
            close_trials(trials)
    omitted = _gather(systems, errors)
    # A side-effect tool the baseline alone never calls is no error here: the candidate's
    # log, which the import reads with the same mapping, may call it (and it is checked there).
    errors.extend(error for error in _mapping_errors(systems, settings)
                  if error.code != "mapping.unknown_tool")
    if errors:
        raise ContractErrors.capped(errors, omitted)
    baseline = systems[0]
    ids = _ids(baseline, settings, None)
    return Described(ids, baseline.system_id or "", baseline.protocol,
                     _cases(systems, settings, ids), baseline)


def _open(logs: List[Tuple[str, LogSource]], settings: Settings,
          opened: List[Tuple[ImportedSystem, Trials]]) -> List[ContractError]:
    """Open each (role, log): append its system and trials to ``opened`` (the caller closes
    them, whatever happens); return the errors of the logs that could not be opened."""
    errors: List[ContractError] = []
    for role, source in logs:
        try:
            run, trials = open_log(source, settings)
        except ContractErrors as failure:
            errors.extend(failure.errors)
            continue
        opened.append((ImportedSystem(role, source, run), trials))
    return errors


def _gather(systems: List[ImportedSystem], errors: List[ContractError]) -> int:
    """Add the errors of the systems' samples to ``errors``; return how many more there were
    (past each log's cap)."""
    omitted = 0
    for system in systems:
        errors.extend(system.errors)
        omitted += system.omitted
    return omitted


def _once(errors: List[ContractError]) -> List[ContractError]:
    """The errors without repeats (the same code, place and message), in order."""
    seen = set()
    kept = []
    for error in errors:
        key = (error.code, error.file, error.path, error.message)
        if key not in seen:
            seen.add(key)
            kept.append(error)
    return kept


def _header_errors(systems: List[ImportedSystem], settings: Settings,
                   system_ids: Tuple[Optional[str], Optional[str]],
                   given_roles: Optional[List[str]] = None) -> List[ContractError]:
    """What the logs' headers decide: the systems' protocols and ids, and the problems each
    header found (every one of them, for every log). ``given_roles``: the role of every log
    given, those that could not be opened too (default: the opened ``systems``')."""
    errors: List[ContractError] = []
    roles = given_roles if given_roles is not None else [system.role for system in systems]
    several = {role for role in ROLES if roles.count(role) > 1}
    for system in systems:
        for problem in system.run.problems:
            code, message, path = problem[:3]
            entry = problem[3] if len(problem) > 3 else None
            errors.append(system.source.error(code, message, path, entry))
        if not system.is_system:
            continue
        try:
            system.protocol = _protocol(system, settings, system.role in several)
        except ContractErrors as failure:
            errors.extend(failure.errors)
        given = system_ids[ROLES.index(system.role)]
        system.system_id = given if given is not None else system.run.model
    named = []
    for role in ROLES:
        logs = [system for system in systems if system.role == role]
        if logs:
            named.append(logs[0])
            errors.extend(_group_errors(logs, settings, len(logs) == roles.count(role)))
    if len(named) == 2:
        errors.extend(_system_id_errors(named))
        errors.extend(_same_log_errors(
            [system for system in systems if system.role == ROLES[0]],
            [system for system in systems if system.role == ROLES[1]]))
    return errors


def _group_errors(logs: List[ImportedSystem], settings: Settings,
                  every_log: bool = True) -> List[ContractError]:
    """The logs of one system must be distinct runs (never one log twice: its trials would
    count twice) of one protocol (their trial counts aside), one model and one task version,
    as their headers say; their trial counts add up to the system's, which the contract and
    the mapping's ``protocol.trial_count`` must take (unless a log of the system could not be
    opened, ``every_log`` false: the sum would not be the system's)."""
    errors: List[ContractError] = []
    first = logs[0]
    counts = [system.protocol.get("trial_count") for system in logs]
    trial_counts = [count for count in counts if isinstance(count, int)]
    if every_log and len(logs) > 1 and len(trial_counts) == len(counts):  # every log's an int
        total = sum(trial_counts)
        mapped = settings.protocol.get("trial_count")
        if mapped is not None and _plain_number(mapped) != total:
            errors.extend(settings.placed([ContractError(
                "mapping.protocol_conflict", "protocol.trial_count is %s in the mapping, but "
                "the %s's %d logs hold %d trials of each case (%s)" % (
                    mapped, first.role, len(logs), total, " + ".join(map(str, counts))),
                ("protocol", "trial_count"))]))
        for problem in TRIAL_COUNT.shape.iter_errors(total):
            errors.append(first.source.error(
                "import.protocol", "the protocol's trial_count would be %d (%s, the trials of "
                "the %s's %d logs): %s" % (total, " + ".join(map(str, counts)), first.role,
                                           len(logs), problem.message)))
    for number, system in enumerate(logs[1:], 2):
        for earlier in logs[:number - 1]:
            same_run = _same_run(system, earlier)
            if same_run or _same_log(system, earlier):
                errors.append(system.source.error(
                    "import.duplicate_log", "the %s's log %d is %s its log %s (%s): "
                    "its trials would count twice" % (
                        system.role, number, "a log of the same run (its run id) as" if
                        same_run else "the same log as",
                        logs.index(earlier) + 1, earlier.source.shown)))
                break
        if not system.protocol or not first.protocol:
            continue  # its protocol's own errors are said already
        differ = [key for key in sorted(first.protocol) if key != "trial_count" and
                  first.protocol.get(key) != system.protocol.get(key)]
        if system.system_id != first.system_id:
            differ.append("model")
        for key in differ:
            mine, theirs = ((system.system_id, first.system_id) if key == "model" else
                            (system.protocol.get(key), first.protocol.get(key)))
            errors.append(system.source.error(
                "import.logs_differ", "the %s's log %d records %s %s, its log 1 (%s) %s: the "
                "logs of one system must be runs of one protocol%s" % (
                    system.role, number, key if key == "model" else "protocol." + key,
                    quote(str(mine)), first.source.shown, quote(str(theirs)),
                    " (name the system with --%s-id if only the model's name differs)"
                    % system.role if key == "model" else "")))
    return errors


def _same_run(system: ImportedSystem, earlier: ImportedSystem) -> bool:
    """Two logs of one run, by the run id their logs record (an Inspect AI eval's, a Harbor
    job's)."""
    return (system.run.run_id is not None and system.run.run_id == earlier.run.run_id
            and system.run.log_format == earlier.run.log_format)


def _same_log(system: ImportedSystem, earlier: ImportedSystem) -> bool:
    """One log given twice: the same file, or a copy of it: the same bytes, under any name
    when its bytes tell its run (an id, a model, a time in it), under the same file name when
    they do not (a SWE-bench summary records no run id and no model, so two runs of the same
    outcomes, named ``<model>.<run_id>.json``, write the same bytes)."""
    source, other = system.source, earlier.source
    if same_file(source.path, other.path):
        return True
    return bool(source.sha256) and source.sha256 == other.sha256 and (
        (system.run.bytes_tell_run and earlier.run.bytes_tell_run)
        or source.file_name == other.file_name)


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
    for system in parts:
        merged.errors.extend(system.errors)
        merged.omitted += system.omitted
        merged.not_test += system.not_test
        system.first_trial_id = offset + 1
        for record in system.records:
            record["trial_id"] += offset
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
def _same_log_errors(baselines: List[ImportedSystem],
                     candidates: List[ImportedSystem]) -> List[ContractError]:
    """One log given for both systems (the same bytes, under any name: :func:`_same_log`), or
    two logs of one run (the run id they record, :func:`_same_run`: a log saved again has
    other bytes): a comparison of a run with itself, which a release gate must never read as
    two systems that tied (a wrong path in a CI script would pass any candidate)."""
    for baseline in baselines:
        for candidate in candidates:
            same_run = _same_run(candidate, baseline)
            if same_run or _same_log(candidate, baseline):
                several = len(baselines) > 1 or len(candidates) > 1
                return [candidate.source.error(
                    "import.same_log", "the candidate's log%s is %sthe baseline's%s (%s): a "
                    "run compared with itself decides nothing" % (
                        " %d" % (candidates.index(candidate) + 1) if several else "",
                        "a log of the same run as " if same_run else "",
                        " log %d" % (baselines.index(baseline) + 1) if several else "",
                        "run id %s" % quote(str(baseline.run.run_id)) if same_run else
                        "the same bytes, SHA-256 %s..." % baseline.source.sha256[:12]))]
    return []


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


def _case_index(cases_file: JSONObject) -> Dict[str, str]:
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
    system.records.append({"case_id": case_id, "trial_id": trial_id, "status": UNKNOWN,
                           "final_state": None, "side_effects": [], "tools_used": [],
                           "latency_ms": None, "cost_units": None})
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


def _surrogate_errors(value: object, path: Path = ()) -> List[ContractError]:
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
            found.extend(_surrogate_errors(key, path + (key,)))
            found.extend(_surrogate_errors(value[key], path + (key,)))
    elif isinstance(value, list):
        for index, item in enumerate(value):
            found.extend(_surrogate_errors(item, path + (index,)))
    return found


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


def _coverage_errors(systems: List[ImportedSystem],
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


def _mapping_errors(systems: List[ImportedSystem], settings: Settings) -> List[ContractError]:
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


TRIAL_COUNT = next(field for field in PROTOCOL.fields if field.key == "trial_count")


def _protocol(system: ImportedSystem, settings: Settings, several: bool = False) -> JSONObject:
    """The system's protocol: what the log records, then the mapping, then the defaults.
    ``several``: the log is one of several of its system, whose trial counts add up to the
    system's (checked with the mapping's by :func:`_group_errors`): its own trial count is
    its run's, at least 1."""
    given = dict(settings.protocol)
    if several:
        given.pop("trial_count", None)
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
            recorded = system.run.protocol_unrecorded.get(key)
            errors.append(system.source.error(
                "import.missing_field", "the log does not record the protocol's %s%s: set "
                "protocol.%s in the mapping" % (key, " (%s)" % recorded if recorded else "",
                                                key)))
            continue
        # The contract's numbers are exact (int, Decimal); a float of the log is checked as
        # the decimal it prints as, and written as it is.
        entry, path = system.run.protocol_where.get(key, (None, ())) if logged else (None, ())
        if several and key == "trial_count":
            problems = [] if isinstance(value, int) and value >= 1 else [
                "a run holds at least one trial of each case"]
        else:
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


def _system_id_errors(systems: List[ImportedSystem]) -> List[ContractError]:
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
    return errors


def _ids(baseline: ImportedSystem, settings: Settings,
         cases_file: Optional[JSONObject]) -> Dict[str, str]:
    """The benchmark's ids: the cases file's, else the mapping's, else the log's defaults."""
    ids: Dict[str, str] = {}
    for key in ("benchmark_id", "benchmark_version", "dataset_version"):
        if cases_file is not None:
            ids[key] = cases_file[key]
        else:
            ids[key] = settings.get(key) or baseline.run.defaults[key]
    return ids


def _results(systems: List[ImportedSystem], settings: Settings,
             cases_file: Optional[JSONObject]) -> JSONObject:
    ids = _ids(systems[0], settings, cases_file)
    digest = hashlib.sha256(" ".join(log.source.sha256 for system in systems
                                     for log in system.logs).encode("ascii"))
    several = any(len(system.logs) > 1 for system in systems)
    results: JSONObject = {
        "schema_version": RESULTS_V4 if several else RESULTS_V3,
        "benchmark_id": ids["benchmark_id"],
        "benchmark_version": ids["benchmark_version"],
        "dataset_version": ids["dataset_version"],
        "result_set_version": settings.get("result_set_version") or (
            "import-" + digest.hexdigest()[:12]),
        "systems": [{
            "system_id": system.system_id,
            "role": system.role,
            "protocol": system.protocol,
            "provenance": (_provenance_v4 if several else _provenance)(system, settings),
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
    shape = RESULTS_V4_SHAPE if several else RESULTS_V3_SHAPE
    errors = list(shape.iter_errors(without_records))
    errors.extend(_surrogate_errors(without_records))
    if errors:  # a value of the log the checks above let through: say where it went
        raise ContractErrors([ContractError(
            "import.invalid_result", "the imported package would not be valid: %s" % (
                error.message), error.path, systems[_system_index(error.path)].source.where())
            for error in errors[:MAX_REPORTED_ERRORS]])
    return results


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


# -- the cases file -------------------------------------------------------------------------

def _cases(systems: List[ImportedSystem], settings: Settings,
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
                cases.append(_case(case_id, fields, settings, system.source,
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
    problems = list(shape.iter_errors(document)) + _surrogate_errors(document)
    if problems:
        raise ContractErrors([baseline.source.error(
            "import.invalid_cases", "the built cases file would not be valid: %s" % (
                error.message), error.path) for error in problems[:MAX_REPORTED_ERRORS]])
    return document


def _case(case_id: str, fields: JSONObject, settings: Settings, source: LogSource,
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
