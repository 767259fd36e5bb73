"""What a harness reader gives the package builder: the run (:class:`LogRun`, from the log's
header) and its trials (:class:`Trial`, one per sample and epoch or per simulation)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Dict, FrozenSet, Iterator, List, Optional, Set, Tuple, Union

from ..errors import ContractError, Path, PathStep

if TYPE_CHECKING:  # for annotations only
    from ..jsonio import JSON, JSONObject

# An error a log's header decides: (code, message, JSON path, zip entry or None).
HeaderProblem = Tuple[str, str, Path, Optional[str]]


class LogRun:
    """The run a log records. ``protocol`` holds what the log says of the protocol, each
    value with the log field it came from (``{"max_steps": (8, "eval.config.message_limit")}``);
    ``defaults`` the package ids and protocol ids the importer uses when neither a cases file
    nor the mapping gives them; the rest is the provenance."""

    def __init__(self, log_format: str, harness: str) -> None:
        self.log_format = log_format
        self.harness = harness
        self.format_version: Optional[str] = None
        self.harness_version: Optional[str] = None
        self.harness_commit: Optional[str] = None
        self.run_id: Optional[str] = None
        self.run_started: Optional[str] = None
        self.model: Optional[str] = None
        self.protocol: Dict[str, Tuple[JSON, str]] = {}
        # Where the log gives each protocol value: its entry (None: the log's top) and path.
        self.protocol_where: Dict[str, Tuple[Optional[str], Tuple[PathStep, ...]]] = {}
        # How the harness would have recorded a protocol value this log lacks (said beside
        # the error that asks the mapping for it).
        self.protocol_unrecorded: Dict[str, str] = {}
        self.defaults: Dict[str, str] = {}
        # Whether the run finished, as the log says (Inspect's ``status``: ``success``); the
        # status itself, where the log has one.
        self.status: Optional[str] = None
        self.finished = True
        # Whether the log's bytes tell its run (an id, a model or a time in them), so that two
        # logs of the same bytes are one run: not a SWE-bench summary's.
        self.bytes_tell_run = True
        # What the run was to hold, as its header says: the sample ids (or task ids) in
        # order, each run ``expected_trials`` times; or, when the header lists no ids, only
        # how many samples in all (``expected_count``); all None: the log cannot tell.
        self.expected_ids: Optional[List[str]] = None
        self.expected_trials: Optional[int] = None
        self.expected_count: Optional[int] = None
        # With only a count: the ids the header does name (a part of them), for the error.
        self.listed_ids: List[str] = []
        # What the error of a run that lacks trials adds: another road the harness has.
        self.incomplete_hint = ""
        # Why a log without samples has none although its run had them (Inspect's
        # ``log_samples=False``), where the header says so.
        self.unlogged: Optional[str] = None
        # The rule that names the records' side effects (in words), and, per tool or store
        # key, the rule that made it one (filled as the trials are read).
        self.side_effect_rule = ""
        self.side_effect_rules: Dict[str, str] = {}
        # tau2-bench: the write tools whose calls are side effects, and whether they are the
        # shipped list of the log's domain (then checked against the log's own tool types).
        self.write_tools: FrozenSet[str] = frozenset()
        self.write_tools_shipped = False
        # Errors the header alone decides that do not stop it from being read (an unknown
        # tau2 domain without side_effect_tools): (code, message, path, entry).
        self.problems: List[HeaderProblem] = []
        # What the log contains that the mapping may name (checked once every log is read):
        # the tools called or offered, the sample metadata keys, the store keys.
        self.tools_seen: Set[str] = set()
        self.metadata_seen: Set[str] = set()
        self.store_keys_seen: Set[str] = set()


class Locator:
    """Where a trial's trace is in its log, as a results v5 record's ``trace`` names it (see
    the contract's trace reference): the harness's ``unit`` and its ``id`` there, Inspect's
    ``epoch``, the ``index`` in a JSON document's array, the ``entry`` (a file inside the
    log, or beside a SWE-bench summary) and the SHA-256 of what the trace is read from (None:
    the log's own digest, known once the whole log is read)."""

    __slots__ = ("unit", "id", "epoch", "index", "entry", "sha256")

    def __init__(self, unit: str, unit_id: str, epoch: Optional[int] = None,
                 index: Optional[int] = None, entry: Optional[str] = None,
                 sha256: Optional[str] = None) -> None:
        self.unit = unit
        self.id = unit_id
        self.epoch = epoch
        self.index = index
        self.entry = entry
        self.sha256 = sha256

    def reference(self, log: int, log_sha256: Optional[str]) -> JSONObject:
        """The record's ``trace``: this locator in log ``log`` (its index in the system's
        logs), whose digest is ``log_sha256`` (None until it is known: the package fills it,
        :func:`~.results.results_package`)."""
        return {"log": log, "unit": self.unit, "id": self.id, "epoch": self.epoch,
                "index": self.index, "entry": self.entry,
                "sha256": self.sha256 if self.sha256 is not None else log_sha256}


class Trial:
    """One trial: its ``record`` (the results file's record, complete), the ``case`` fields
    the log gives for building a cases file (None for a field it does not give; the whole
    ``case`` None after a case's first trial), and where it is in the log (``entry``: the zip
    entry, or None; ``path``: the JSON path of the sample or simulation; ``line``: the line
    of a log of JSON lines, or None), for errors; when the import writes trace references
    (``Settings.trace_refs``), its ``locator``; and its ``origin``: whose its failure is, as
    the harness says (``agent``, ``infrastructure``, or None: the harness says neither; a row
    of :mod:`proagents_bench.contract.origins`), which a results v6 record carries as its
    ``failure_origin``."""

    __slots__ = ("record", "case", "entry", "path", "line", "locator", "origin")

    def __init__(self, record: JSONObject, case: Optional[JSONObject], entry: Optional[str],
                 path: Tuple[PathStep, ...], line: Optional[int] = None,
                 locator: Optional[Locator] = None, origin: Optional[str] = None) -> None:
        self.record = record
        self.case = case
        self.entry = entry
        self.path = path
        self.line = line
        self.locator = locator
        self.origin = origin

    @property
    def key(self) -> Tuple[str, int]:
        return self.record["case_id"], self.record["trial_id"]


# A log's trials as a reader yields them: each a Trial, or the contract error of a sample that
# could not be made one (placed at its entry and path; the samples after it are read too).
Trials = Iterator[Union[Trial, ContractError]]
