"""What a harness reader gives the package builder: the run (:class:`LogRun`, from the log's
header) and its trials (:class:`Trial`, one per sample and epoch or per simulation)."""

from __future__ import annotations

from typing import Dict, Optional, Tuple

from ..errors import PathStep


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
        self.protocol: Dict[str, Tuple[object, str]] = {}
        # Where the log gives each protocol value: its entry (None: the log's top) and path.
        self.protocol_where: Dict[str, Tuple[Optional[str], Tuple[PathStep, ...]]] = {}
        self.defaults: Dict[str, str] = {}


class Trial:
    """One trial: its ``record`` (the results file's record, complete), the ``case`` fields
    the log gives for building a cases file (None for a field it does not give; the whole
    ``case`` None after a case's first trial), and where it is in the log (``entry``: the zip
    entry, or None; ``path``: the JSON path of the sample or simulation), for errors."""

    __slots__ = ("record", "case", "entry", "path")

    def __init__(self, record: dict, case: Optional[dict], entry: Optional[str],
                 path: Tuple[PathStep, ...]) -> None:
        self.record = record
        self.case = case
        self.entry = entry
        self.path = path

    @property
    def key(self) -> tuple:
        return self.record["case_id"], self.record["trial_id"]
