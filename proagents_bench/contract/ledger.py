"""The ledger of looks (``--ledger FILE``), declared once: the file the gate writes after each
decision it records and reads back before the next, so that a look of a sequential design
can be checked against the looks before it, and a fixed design judged again is said.

A ledger is of one kind (``kind``):

- ``sequential``: the looks of one sequential design, for one benchmark, baseline and
  candidate; ``design`` (an object exactly for this kind) holds what the spec, the cases
  file, the design and its boundary were at the first look (their digests, the design's
  numbers), ``closed`` is true once it decided;
- ``fixed``: every judgment of a fixed design (spec v1-v4, or v5 with ``sequential`` null)
  of one benchmark, each with its baseline and candidate, so that a candidate judged again
  on a subset of the same trials, on fresh ones, or on the same ones under another spec or
  cases file (each look records both digests), is named (docs/statistics.md, "A fixed design
  looked at again").

Every look keeps the digest of each of its new trial records: SHA-256 of the record's RFC 8785
canonical JSON without its ``trial_id`` (the trial id is where the digest sits, so a trial
moved to another id is told apart from one changed). ``batch_sha256`` hashes the look's
record digests in the order they are listed, one per line. The chain covers the whole file
but itself: the head is SHA-256 of the canonical JSON of ``schema_version``, ``kind``,
``benchmark_id`` and ``design``; each look's ``chain_sha256`` is SHA-256 of the previous
look's chain (the head's, for the first) followed by the SHA-256 of the look's canonical JSON
without its ``chain_sha256`` (every other member, its records included), both as hex text;
``closed`` is what the last look's ``state`` says (a state other than ``continue``). The
gate writes the file atomically (ASCII JSON, sorted keys), only after a decision, and never
after a contract error or an INCOMPARABLE look.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Iterator

from .containers import Array, Field, Nullable, Object
from .shapes import Boolean, Integer, Rule, String
from .vocabulary import (ACTIONS, LEDGER_V1, ROLES, SEQUENTIAL_METHODS, SEQUENTIAL_UNITS,
                         SHA256_HEX)

if TYPE_CHECKING:  # for annotations only
    from ..errors import ContractError
    from ..jsonio import JSONObject

SEQUENTIAL_KIND = "sequential"
FIXED_KIND = "fixed"
LEDGER_KINDS = (SEQUENTIAL_KIND, FIXED_KIND)
# A look's state under a sequential design (evaluation/sequential.py): it goes on, it passed,
# it stopped for futility, its last look came without a decision, a hard gate blocked it.
CONTINUE = "continue"
PASSED = "pass"
FUTILE = "futility"
EXHAUSTED = "exhausted"
BLOCKED = "blocked"
LOOK_STATES = (CONTINUE, PASSED, FUTILE, EXHAUSTED, BLOCKED)
# The decision document's state of a look the gate could not judge (INCOMPARABLE), which the
# ledger never records.
INCOMPARABLE_STATE = "incomparable"
# How the false pass of a fixed design's repeated looks is bounded
# (evaluation/repeated_looks.py): McNemar's test at nested looks, exactly; the best of k
# independent runs; Bonferroni's k alpha.
NESTED_MCNEMAR = "nested_mcnemar"
BEST_OF_K = "best_of_k"
BONFERRONI = "bonferroni"
REPEATED_METHODS = (NESTED_MCNEMAR, BEST_OF_K, BONFERRONI)


def _digest() -> String:
    return String(pattern=SHA256_HEX)


def _count(minimum: int = 0) -> Integer:
    return Integer(minimum=minimum)


TRIALS = Object("trials", [
    Field("case_id", String(), "the test case"),
    Field("role", String(enum=ROLES), "the system's role"),
    Field("first_trial_id", _count(1), "the trial id of the first digest"),
    Field("sha256", Array(_digest(), min_items=1),
          "the digests of trial ids first_trial_id, first_trial_id + 1, ..."),
], title="Trial digests")

DESIGN = Object("design", [
    Field("spec_sha256", _digest(), "SHA-256 of the spec's RFC 8785 canonical JSON"),
    Field("cases_sha256", _digest(), "SHA-256 of the cases file's RFC 8785 canonical JSON"),
    Field("design_sha256", _digest(), "SHA-256 of the `sequential` block's canonical JSON"),
    Field("boundary_sha256", _digest(), "SHA-256 of the boundary's canonical text"),
    Field("method", String(enum=SEQUENTIAL_METHODS)),
    Field("unit", String(enum=SEQUENTIAL_UNITS)),
    Field("alpha", String(), "the one-sided false pass, as an exact fraction"),
    Field("theta0", String(), "the null share of the discordant units, as an exact fraction"),
    Field("win_share", String(), "theta1, as an exact fraction"),
    Field("max_discordant", _count(1)),
    Field("pool_sha256", _digest()),
    Field("looks", _count(1), "how many looks the design allows"),
    Field("benchmark_version", String()),
    Field("dataset_version", String()),
    Field("baseline_system_id", String()),
    Field("candidate_system_id", String()),
], title="Ledger design")

LOOK_RECORD = Object("look", [
    Field("look", _count(1), "1, 2, ... in the ledger's order (a sequential design's look "
          "number)"),
    Field("benchmark_version", String()),
    Field("dataset_version", String()),
    Field("baseline_system_id", String()),
    Field("candidate_system_id", String()),
    Field("spec_sha256", _digest(), "SHA-256 of the spec's RFC 8785 canonical JSON"),
    Field("cases_sha256", _digest(), "SHA-256 of the cases file's RFC 8785 canonical JSON"),
    Field("tasks", _count(1), "the test tasks the look judged"),
    Field("trials", _count(1), "the candidate's trials per task"),
    Field("units", _count(1), "a sequential design's units up to this look (tasks or "
          "trial pairs); a fixed design's tasks"),
    Field("discordant", _count(), "the discordant units among them (a fixed design's "
          "discordant tasks)"),
    Field("wins", _count(), "those the candidate won"),
    Field("action", String(enum=ACTIONS)),
    Field("state", Nullable(String(enum=LOOK_STATES)), "a sequential design's state after "
          "the look; null for a fixed design"),
    Field("decided_at", Nullable(_count(1)), "the discordant unit at which a sequential "
                                             "design decided, or null"),
    Field("evidence_fingerprint", String(pattern="^sha256:[0-9a-f]{64}$"),
          "the decision document's"),
    Field("tool_version", String(), "the proagents-bench version that judged the look"),
    Field("batch_sha256", _digest()),
    Field("chain_sha256", _digest()),
    Field("records", Array(TRIALS, min_items=1), "the digests of the trials the look added "
          "(a fixed design: every trial it judged), task by task, baseline first; a look adds "
          "at least one"),
], title="Ledger look")



def _design_exactly_when_sequential(ledger: JSONObject) -> Iterator[ContractError]:
    sequential = ledger["kind"] == SEQUENTIAL_KIND
    if (ledger["design"] is not None) != sequential:
        yield DESIGN_OF_KIND.error("design must be %s in a ledger of kind %s" % (
            "an object" if sequential else "null", ledger["kind"]), ("design",))


DESIGN_OF_KIND = Rule("ledger.design_kind", _design_exactly_when_sequential)

LEDGER_V1_SHAPE = Object("ledger", [
    Field("schema_version", String(enum=[LEDGER_V1])),
    Field("kind", String(enum=LEDGER_KINDS), "`sequential`: one sequential design's looks; "
          "`fixed`: a fixed design's judgments"),
    Field("benchmark_id", String()),
    Field("design", Nullable(DESIGN), "a sequential design as at its first look; null for "
                                      "`fixed`"),
    Field("closed", Boolean(), "the sequential design decided: no further look (what the "
          "last look's `state` says: any but `continue`)"),
    Field("looks", Array(LOOK_RECORD, min_items=1)),
], rules=[DESIGN_OF_KIND], root=True, title="Ledger")

LEDGER_KINDS_BY_VERSION = {LEDGER_V1: LEDGER_V1_SHAPE}
