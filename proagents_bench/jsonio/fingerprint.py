"""The evidence fingerprint, started: a :class:`PendingFingerprint` gives the fingerprint of
a run's three files when asked (:mod:`.canonical`'s :func:`~.canonical.evidence_fingerprint`);
:func:`fingerprint_here` computes it in this process, the command line's forked
fingerprinter in a child (``cli/parallel.py``)."""

from __future__ import annotations

from decimal import Decimal
from typing import Callable, List, Optional, Tuple

from . import JSONObject
from .canonical import evidence_fingerprint


class PendingFingerprint:
    """The evidence fingerprint, started: call it for the value (``sha256:`` and 64 hex
    digits); ``abandon()`` when the run gives up before asking (a failed check), so that
    whatever computes it stops at once (never left to a garbage collector: PyPy's runs
    late)."""

    def __call__(self) -> str:
        raise NotImplementedError

    def abandon(self) -> None:
        pass


class _FingerprintHere(PendingFingerprint):
    def __init__(self, arguments: Tuple[JSONObject, JSONObject, JSONObject, str],
                 decimals: Optional[List[Decimal]]) -> None:
        self.arguments = arguments
        self.decimals = decimals
        self.value: Optional[str] = None

    def __call__(self) -> str:
        if self.value is None:
            self.value = evidence_fingerprint(*self.arguments, decimals=self.decimals)
            self.decimals = None
        return self.value


def fingerprint_here(spec: JSONObject, cases: JSONObject, results: JSONObject,
                     candidate_id: str, decimals: Optional[List[Decimal]]) -> PendingFingerprint:
    """The default way to compute the evidence fingerprint: in this process, when it is first
    asked for (once every contract check has passed).

    The pipeline starts its fingerprinter as soon as the three files are loaded, before they
    are validated, so that the command line's forked one (a third of a large run's work, see
    ``cli/parallel.py``) overlaps with validation too; this one waits to be asked, so that an
    invalid package never costs a fingerprint."""
    return _FingerprintHere((spec, cases, results, candidate_id), decimals)


# fingerprinter(spec, cases, results, candidate id, the files' Decimals or None): starts
# the evidence fingerprint (see fingerprint_here).
Fingerprinter = Callable[[JSONObject, JSONObject, JSONObject, str, Optional[List[Decimal]]],
                         PendingFingerprint]
