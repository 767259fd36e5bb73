"""Two logs in (or, per system, several logs of one run each, their trials numbered on in
the order given: :func:`.samples.read_system`), one results package out
(``agent-benchmark-results-v3``;
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

from typing import Callable, Dict, List, NamedTuple, Optional, Sequence, Tuple, Union

from ..contract.validate import file_errors
from ..contract.vocabulary import MISSING_AS, ROLES
from ..errors import ContractErrors
from ..jsonio import JSONObject, load
from .cases import built_cases
from .coverage import coverage_errors, mapping_errors
from .formats import close_trials
from .headers import header_errors, once, open_logs, system_id_errors
from .imported import ImportedSystem
from .results import benchmark_ids, results_package
from .samples import case_index, gather, read_log, read_system
from .settings import Settings
from .source import LogSource
from .trial import Trials

# What the command line, the release and the scaffold use.
__all__ = ["Background", "Described", "Imported", "ImportedSystem", "LogGroup", "describe_log",
           "import_logs", "load_cases", "run_here"]


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


def load_cases(path: str, shown: Optional[str] = None) -> JSONObject:
    """The cases file at ``path`` (shown as ``shown``), loaded and validated alone (an
    import checks the logs against it); ContractErrors otherwise."""
    document = load.load_file(path, source=shown)
    errors = file_errors("cases", document.value)
    if errors:
        raise ContractErrors(document.errors_at(errors))
    return document.value


def import_logs(logs: Sequence[LogGroup], settings: Settings,
                cases_file: Optional[JSONObject] = None,
                build_cases: bool = False,
                system_ids: Tuple[Optional[str], Optional[str]] = (None, None),
                background: Background = run_here, missing_as: str = MISSING_AS[0],
                split_logs: Sequence[Tuple[str, LogSource]] = ()) -> Imported:
    """Import the baseline's and the candidate's log (``logs``, in that order; each a log,
    or a sequence of logs whose trials are one system's, see :func:`.samples.read_system`); raise
    ContractErrors with every error found. ``background`` starts the candidate's reading
    (see :func:`run_here`) while the baseline's is read. ``missing_as`` is what a (sample,
    epoch) the log lacks becomes (see the module docstring); ``split_logs`` are (split, log)
    pairs of logs whose every sample is a case of that split, for the built cases file."""
    known = case_index(cases_file) if cases_file is not None else None
    opened: List[Tuple[ImportedSystem, Trials]] = []
    try:
        groups = [[group] if isinstance(group, LogSource) else list(group) for group in logs]
        given = [(role, source) for role, group in zip(ROLES, groups) for source in group]
        errors = open_logs(given + list(split_logs), settings, opened)
        # Counted as given, not as opened: a log that could not be opened (its own error is
        # said) still is one of its system's, so that the others are judged as they are.
        errors.extend(header_errors([system for system, _trials in opened], settings,
                                    system_ids, [role for role, _source in given]))
        errors = once(errors)  # a mapping's error is found once per log: said once
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
    omitted = gather(systems, errors)
    errors.extend(coverage_errors(systems[:2], known))
    errors.extend(mapping_errors(systems, settings))
    if errors:
        raise ContractErrors.capped(errors, omitted)
    results = results_package(systems[:2], settings, cases_file)
    cases = built_cases(systems, settings, results) if build_cases else None
    return Imported(results, cases, systems)


class Described(NamedTuple):
    """What one log (and the logs of train and development cases) says of its benchmark, for
    a scaffold (``init --from-log``): the benchmark's ids, the system's id and protocol, the
    cases file built as ``import --write-cases`` builds it, and the log's system."""

    ids: Dict[str, str]
    system_id: str
    protocol: JSONObject
    cases: JSONObject
    system: ImportedSystem


def describe_log(log: LogSource, settings: Settings, system_id: Optional[str] = None,
                 split_logs: Sequence[Tuple[str, LogSource]] = ()) -> Described:
    """Read one system's log as the import reads a baseline's (the same headers, protocol,
    samples and checks, every error at once), and its benchmark: the ids a package imported
    from it would have (the mapping's, else the log's defaults), the protocol it ran under,
    and the cases file ``--write-cases`` would build (a cases v2 file declaring absent the
    splits no log holds). ``system_id`` names the system (default: the log's model)."""
    opened: List[Tuple[ImportedSystem, Trials]] = []
    try:
        errors = open_logs([(ROLES[0], log)] + list(split_logs), settings, opened)
        errors.extend(header_errors([system for system, _trials in opened], settings,
                                    (system_id, None)))
        if opened and opened[0][0].is_system and opened[0][0].system_id is None:
            errors.extend(system_id_errors([opened[0][0]]))
        errors = once(errors)
        if errors:
            raise ContractErrors.capped(errors)
        systems = [read_log(system, trials, settings, None) for system, trials in opened]
    finally:
        for _system, trials in opened:
            close_trials(trials)
    omitted = gather(systems, errors)
    # A side-effect tool the baseline alone never calls is no error here: the candidate's
    # log, which the import reads with the same mapping, may call it (and it is checked there).
    errors.extend(error for error in mapping_errors(systems, settings)
                  if error.code != "mapping.unknown_tool")
    if errors:
        raise ContractErrors.capped(errors, omitted)
    baseline = systems[0]
    ids = benchmark_ids(baseline, settings, None)
    return Described(ids, baseline.system_id or "", baseline.protocol,
                     built_cases(systems, settings, ids), baseline)
