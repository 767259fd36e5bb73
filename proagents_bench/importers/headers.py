"""The import's first stage: every log opened and its header read, and what the headers
alone decide, for every log at once, before any sample is read: each system's protocol (the
log's, then the mapping's, then the defaults) and id, the logs of one system runs of one
protocol, and no log given twice or for both systems."""

from __future__ import annotations

from decimal import Decimal
from typing import List, Optional, Tuple

from ..contract.inputs import PROTOCOL
from ..contract.vocabulary import ROLES
from ..errors import ContractError, ContractErrors
from ..jsonio import JSONObject
from ..jsonio.load import MAX_SAFE_INTEGER
from ..jsonio.paths import same_file
from ..text import quote
from .formats import open_log
from .imported import ImportedSystem
from .settings import Settings
from .source import LogSource
from .trial import Trials


def open_logs(logs: List[Tuple[str, LogSource]], settings: Settings,
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


def once(errors: List[ContractError]) -> List[ContractError]:
    """The errors without repeats (the same code, place and message), in order."""
    seen = set()
    kept = []
    for error in errors:
        key = (error.code, error.file, error.path, error.message)
        if key not in seen:
            seen.add(key)
            kept.append(error)
    return kept


def header_errors(systems: List[ImportedSystem], settings: Settings,
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
            system.protocol = protocol_of(system, settings, system.role in several)
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
        errors.extend(system_id_errors(named))
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


TRIAL_COUNT = next(field for field in PROTOCOL.fields if field.key == "trial_count")


def protocol_of(system: ImportedSystem, settings: Settings, several: bool = False) -> JSONObject:
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
            problems = [error.message for error in field.shape.iter_errors(exact(value))]
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


def exact(value: object) -> object:
    """A float as the exact decimal it prints as (the contract's shapes compare exact numbers:
    int or Decimal); anything else as it is."""
    return Decimal(repr(value)) if isinstance(value, float) else value


def _plain_number(value: object) -> object:
    """A mapping's number (an exact Decimal when written with a fraction) as JSON writes it."""
    if isinstance(value, Decimal):
        return int(value) if value == value.to_integral_value() else float(value)
    return value


def system_id_errors(systems: List[ImportedSystem]) -> List[ContractError]:
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
