"""The evidence fingerprint: SHA-256 over the RFC 8785 canonical form of the inputs.

RFC 8785, the JSON Canonicalization Scheme (JCS), fixes one byte sequence per JSON value, so
that any language can recompute the fingerprint from the three files; its rules, and the
values accepted, are :mod:`.canonical_reference`'s.

Two writers produce identical text. The reference writer (:mod:`.canonical_reference`) is
plain Python: it walks the value iteratively (any depth) and applies every rule directly;
PyPy always uses it, and it is the oracle the tests hold the other to. On CPython the fast
writer (:mod:`.canonical_fast`) hands the value, in pieces, to the C JSON encoder once a scan
(or the strict loader's record of the value's Decimals) proves that the encoder writes it
canonically; a piece it cannot vouch for is written by the reference writer.
"""

from __future__ import annotations

import hashlib
from decimal import Decimal
from typing import TYPE_CHECKING, Callable, Iterator, List, Optional, Tuple

from . import JSON, JSONObject
from .canonical_fast import fast_batches
from .canonical_reference import reference_batches
from .gcpause import CollectorPaused

if TYPE_CHECKING:  # for annotations only
    from typing import Protocol, TypeVar

    class _Hasher(Protocol):
        """What the fingerprint feeds: a hashlib object's ``update``."""

        def update(self, data: bytes, /) -> None: ...

    _HasherT = TypeVar("_HasherT", bound=_Hasher)

__all__ = ["canonical_json", "evidence_fingerprint", "fingerprint_hasher", "PendingFingerprint",
           "fingerprint_here", "Fingerprinter"]

# The hasher is fed slices of this many characters, so no second full-size copy is built.
_HASH_SLICE = 1 << 22


def _text_batches(value: JSON, decimals: Optional[List[Decimal]] = None) -> Iterator[str]:
    batches = fast_batches(value, decimals)
    return reference_batches(value) if batches is None else batches


def canonical_json(value: JSON) -> bytes:
    """RFC 8785 (JSON Canonicalization Scheme) serialisation of ``value`` as UTF-8 bytes."""
    with CollectorPaused():
        return "".join(_text_batches(value)).encode("utf-8")


def fingerprint_hasher(value: JSON, hasher: _HasherT,
                       decimals: Optional[List[Decimal]] = None) -> _HasherT:
    """Feed the RFC 8785 serialisation of ``value`` into ``hasher`` (a hashlib object).

    ``decimals``, when given, lists every ``Decimal`` in ``value`` and vouches for what the
    fast path's scan would check: ``value`` holds only exact dict, list, str, int, bool, None
    and Decimal, integers within +-(2**53-1), no container twice (so no cycle), nesting of at
    most 64, and no object key with a character at or above U+E000. Values that the strict
    loader parsed and the contract validated are such values (the contract's keys are ASCII),
    and the loader records their Decimals. A broken promise (a Decimal missing from the list,
    say) may give a wrong fingerprint, so pass nothing else.

    The text goes in as UTF-8 slices of at most ``_HASH_SLICE`` characters, so no full-size
    bytes object is made. After
    an exception the hasher may have been fed part of the text: discard it. Returns
    ``hasher``.
    """
    update = hasher.update
    with CollectorPaused():
        for batch in _text_batches(value, decimals):
            if len(batch) <= _HASH_SLICE:
                update(batch.encode("utf-8"))
            else:
                for start in range(0, len(batch), _HASH_SLICE):
                    update(batch[start:start + _HASH_SLICE].encode("utf-8"))
    return hasher


def evidence_fingerprint(spec: JSONObject, cases: JSONObject, results: JSONObject,
                         candidate_system_id: str,
                         decimals: Optional[List[Decimal]] = None) -> str:
    """'sha256:' + hex SHA-256 of canonical_json([spec, cases, results, candidate_system_id]);
    ``decimals`` as in :func:`fingerprint_hasher` (all the Decimals of the three files)."""
    hasher = fingerprint_hasher([spec, cases, results, candidate_system_id], hashlib.sha256(),
                                decimals)
    return "sha256:" + hasher.hexdigest()


# The evidence fingerprint, started: a PendingFingerprint gives the fingerprint of a run's
# three files when asked; fingerprint_here computes it in this process, the command line's
# forked fingerprinter in a child (cli/parallel.py).

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
