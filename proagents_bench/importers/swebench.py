"""SWE-bench run summaries: the ``<model>.<run_id>.json`` file that SWE-bench's evaluation
harness writes at the end of a run (``swebench.harness.reporting.make_run_report``,
``schema_version`` 2 as of swebench 5.0.2): the instance ids of the run by outcome
(``resolved_ids``, ``unresolved_ids``, ``error_ids``, ``empty_patch_ids``, and the instances
of the dataset that had no prediction, ``incomplete_ids``), the environment failures among
them (``infra_failure_ids``, SWE-bench's own classification of a failed instance's logs)
and the counts (``total_instances``).

A run is one attempt per instance, so a summary is one trial of each instance: a system's
trials are several runs, given as several logs (``importers/package.py`` numbers them on in
the order given). Each instance of the run becomes one trial (none is dropped): an
environment failure is ``unknown`` (never the agent's failure); an error ``error`` with no
final state; a resolved, unresolved or empty-patch instance ``success`` with final state
``resolved``, ``unresolved`` or ``empty_patch`` (the agent produced no patch: a failed
trial that says why). A summary records no trajectory, time or cost: no tools, no side
effects, latency and cost null (not measured).

The run's instances are every id the summary lists; ``incomplete_ids`` (dataset instances
without a prediction) are missing trials, so a run that skipped instances is
``import.incomplete_run`` (or, with ``--missing-as unknown``, unknown trials), and a
summary whose ``total_instances`` exceeds the ids it lists cannot name what it lacks. On
request (``Settings.swebench_instances``, the import's ``--swebench-instances submitted``)
the run's instances are those it submitted a prediction for: a run on part of its dataset,
whose ``incomplete_ids`` are then outside the benchmark.
"""

from __future__ import annotations

import hashlib
import os
from typing import TYPE_CHECKING, Dict, List, Optional, Tuple

from ..contract.harness_docs import SWE_BENCH_DOCS
from ..contract.harnesses import SWE_BENCH, SWEBENCH_SUMMARY
from ..contract.origins import SWEBENCH_ROWS, origin_of
from ..contract.shapes import type_name
from ..contract.vocabulary import ERROR, SUCCESS, UNKNOWN
from ..errors import ContractErrors
from ..jsonio.gcpause import CollectorPaused
from ..text import quote
from .settings import SWEBENCH_INSTANCES, Settings
from .source import LogError, LogSource
from .source import Manifest
from .trial import Locator, LogRun, Trial, Trials
from .values import encodable, optional, require

if TYPE_CHECKING:  # for annotations only
    from ..errors import Path
    from ..jsonio import JSONObject

# The summary versions read (its ``schema_version``).
SUPPORTED_VERSIONS = (2,)
RESOLVED = "resolved"
UNRESOLVED = "unresolved"
EMPTY_PATCH = "empty_patch"
# Each outcome list, in the order an instance's outcome is decided (an environment failure
# first: it is also in unresolved_ids or error_ids), with its status and final state.
OUTCOMES: Tuple[Tuple[str, str, Optional[str]], ...] = (
    ("infra_failure_ids", UNKNOWN, None),
    # SWE-bench's classification of a failure it cannot tell the environment's or the
    # agent's: unknown, never counted against the agent without saying so.
    ("ambiguous_failure_ids", UNKNOWN, None),
    ("error_ids", ERROR, None),
    ("resolved_ids", SUCCESS, RESOLVED),
    ("unresolved_ids", SUCCESS, UNRESOLVED),
    ("empty_patch_ids", SUCCESS, EMPTY_PATCH),
)
INCOMPLETE = "incomplete_ids"
SUBMITTED = SWEBENCH_INSTANCES[1]
# Where SWE-bench's evaluation leaves each instance's own files, beside the summary it writes
# in the same working folder: logs/run_evaluation/<run_id>/<model>/<instance>/, the model's
# name with "/" as "__" (the summary is <model>.<run_id>.json); the files a trace is read from,
# in the order their digest lists them (a manifest, as a folder log's).
EVALUATION_FOLDER = "logs/run_evaluation"
TRACE_FILES = ("report.json", "patch.diff")


def read_summary(source: LogSource, log: JSONObject,
                 settings: Settings) -> Tuple[LogRun, Trials]:
    """A run summary, decoded whole (its format has no smaller unit): its run, and a trial
    per instance it ran."""
    try:
        run, outcome = _header(log, settings.swebench_instances == SUBMITTED)
    except LogError as failure:
        raise ContractErrors([source.placed(failure)])
    folder = evaluation_folder(source.path) if settings.trace_refs else None
    return run, _trials(source, outcome, folder, settings.trace_refs)


def evaluation_folder(summary: str) -> Optional[str]:
    """The folder of a run's per-instance evaluation files beside its summary
    (``logs/run_evaluation/RUN/MODEL``, relative to the summary's folder, ``/``-separated),
    told from the summary's name ``MODEL.RUN.json`` (the model's dots and the run id's are
    told apart by which folder exists); None when there is none."""
    name = os.path.basename(summary)
    stem = name[:-len(".json")] if name.endswith(".json") else name
    here = os.path.dirname(os.path.abspath(summary))
    for cut in range(len(stem)):
        if stem[cut] != ".":
            continue
        relative = "%s/%s/%s" % (EVALUATION_FOLDER, stem[cut + 1:], stem[:cut])
        if stem[:cut] and stem[cut + 1:] and os.path.isdir(
                os.path.join(here, *relative.split("/"))):
            return relative
    return None


def instance_digest(folder: str, entry: str) -> Optional[str]:
    """The SHA-256 of an instance's evaluation folder (``entry``, inside ``folder``): the
    manifest of its :data:`TRACE_FILES` that are there; None when it holds none."""
    manifest = Manifest()
    found = False
    for name in TRACE_FILES:
        path = os.path.join(folder, *(entry.split("/") + [name]))
        if os.path.isfile(path):
            with open(path, "rb") as handle:
                manifest.add(name, handle.read())
            found = True
    return manifest.digest.hexdigest() if found else None


def _ids(log: JSONObject, key: str, required: bool = True) -> List[str]:
    values = (require(log, key, list, (), "lists the run's instances by outcome") if required
              else optional(log, key, list, ()) or [])
    for index, value in enumerate(values):
        if not isinstance(value, str) or not value.strip():
            raise LogError("import.sample_id", "an instance id must be a non-blank string, got "
                           "%s" % (quote(value) if isinstance(value, str) else type_name(value)),
                           (key, index))
        if not encodable(value):
            raise LogError("import.field_type", "the instance id holds a lone surrogate (such "
                           "as \\ud800, which is no Unicode character), which the gate does "
                           "not read", (key, index))
    return values


# The lists that classify a failure already listed under its outcome (SWE-bench's own
# classification of a failed instance's logs; optional: older summaries lack them).
CLASSIFICATIONS = ("infra_failure_ids", "ambiguous_failure_ids")


def _check_one_outcome_each(log: JSONObject) -> None:
    """Every instance under one outcome, once (SWE-bench's report puts each in exactly one of
    these lists): a summary that lists one under two (resolved and unresolved) or twice is
    contradictory, and no reading of it is the run's."""
    seen: Dict[str, str] = {}
    for key in [key for key, _status, _state in OUTCOMES if key not in CLASSIFICATIONS] + [
            INCOMPLETE]:
        for index, instance in enumerate(optional(log, key, list, ()) or []):
            if instance in seen:
                raise LogError("import.sample_id", "instance %s is listed under %s and again "
                               "under %s: a summary lists each instance under one outcome" % (
                                   quote(instance), seen[instance], key), (key, index))
            seen[instance] = key


def _header(log: JSONObject, submitted: bool = False
            ) -> Tuple[LogRun, Dict[str, Tuple[str, Optional[str], Path]]]:
    """The run and each instance's (status, final state, path). ``submitted``: the run's
    instances are those it submitted a prediction for (every one has an outcome), not its
    dataset's: ``incomplete_ids`` are then outside the benchmark, never missing trials."""
    version = log.get("schema_version")
    if isinstance(version, bool) or version not in SUPPORTED_VERSIONS:
        raise LogError("import.format_version", "SWE-bench summary schema_version %s is not one "
                       "this importer reads (%s)" % (
                           quote(str(version)) if version is not None else "missing",
                           ", ".join(map(str, SUPPORTED_VERSIONS))), ("schema_version",))
    run = LogRun(SWEBENCH_SUMMARY, SWE_BENCH.name)
    run.format_version = str(version)
    run.bytes_tell_run = False  # no run id, model or time: two runs may write the same bytes
    outcome: Dict[str, Tuple[str, Optional[str], Path]] = {}
    for key, status, final_state in OUTCOMES:
        for index, instance in enumerate(_ids(log, key, key not in CLASSIFICATIONS)):
            outcome.setdefault(instance, (status, final_state, (key, index)))
    incomplete = _ids(log, INCOMPLETE, False)
    _check_one_outcome_each(log)
    ids = sorted(set(outcome) if submitted else set(outcome).union(incomplete))
    total = optional(log, "total_instances", int, ())
    run.expected_trials = 1
    if incomplete and not submitted:
        run.incomplete_hint = (
            "; or, for a run on part of the dataset, import it with --swebench-instances "
            "submitted: its instances are then the %d it submitted, and the %d of the dataset "
            "without a prediction (incomplete_ids) are outside the benchmark" % (
                len(outcome), len(incomplete)))
    if submitted:
        run.expected_ids = ids
    elif total is not None and total > len(ids):
        run.expected_count = total  # more instances than it names: the gaps cannot be named
        run.listed_ids = ids
    else:
        run.expected_ids = ids
    run.protocol["trial_count"] = (1, "a SWE-bench run is one attempt per instance")
    run.protocol["retry_limit"] = (0, "SWE-bench's evaluation does not retry")
    digest = hashlib.sha256("".join(instance + "\n" for instance in ids).encode("utf-8"))
    run.defaults = {
        "benchmark_id": "swe-bench",
        "benchmark_version": "summary-v%s" % version,
        "dataset_version": "swe-bench-%d-%s" % (len(ids), digest.hexdigest()[:12]),
        "protocol_version": "swe-bench-run-evaluation",
        "environment_id": "swe-bench-docker",
        "toolset_id": "swe-bench-patch",
        "reset_policy": "fresh-container-per-instance",
    }
    run.side_effect_rule = SWE_BENCH_DOCS.side_effects_default
    return run, outcome


def _trials(source: LogSource, outcome: Dict[str, Tuple[str, Optional[str], Path]],
            folder: Optional[str], trace_refs: bool) -> Trials:
    here = os.path.dirname(os.path.abspath(source.path))
    with CollectorPaused():
        for instance in sorted(outcome):
            status, final_state, path = outcome[instance]
            record = {"case_id": instance, "trial_id": 1, "status": status,
                      "final_state": final_state, "side_effects": [], "tools_used": [],
                      "latency_ms": None, "cost_units": None}
            locator = None
            if trace_refs:  # the instance's evaluation folder, where the run left one
                entry = "%s/%s" % (folder, instance) if folder is not None else None
                digest = instance_digest(here, entry) if entry is not None else None
                locator = Locator(SWE_BENCH.trace_unit, instance, entry=(
                    entry if digest is not None else None), sha256=digest)
            # Whose a failure is: the outcome list's row (its path's first step).
            yield Trial(record, _case(instance, path), None, path, locator=locator,
                        origin=origin_of(SWEBENCH_ROWS, path[0]))


def _case(instance: str, path: Path) -> JSONObject:
    return {
        "split": None, "family_id": None, "slice": "swe-bench", "critical": None,
        "task_type": "swe-bench", "allowed_tools": None, "forbidden_side_effects": [],
        "initial_state": "SWE-bench instance %s" % instance,
        "expected_final_state": RESOLVED, "task": "swe-bench", "where": (None, path),
    }
