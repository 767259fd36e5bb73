"""What one log becomes as it is imported (:class:`ImportedSystem`), the unit every stage of
the import (:mod:`.package`) reads and fills: its header's run, then its records, cases and
errors, and, for a system read from several logs, each log's own."""

from __future__ import annotations

from typing import Dict, List, Optional, Set, Tuple

from ..contract.vocabulary import MISSING_AS, ROLES
from ..errors import ContractError
from ..jsonio import JSONObject
from .source import LogSource
from .trial import LogRun


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
        # How many of its records the harness says are each origin's failure (their
        # ``failure_origin``, a results v6 field, set only where the harness states it).
        self.origins: Dict[str, int] = {}
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
