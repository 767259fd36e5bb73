"""The dataset versions a service has served, and what each one changed in what is public.

A new ``dataset_version`` opens a new board (versions are never ranked together: see
:mod:`.leaderboard`). When the service starts on a cases file of a version it has not served
before, it keeps the file and publishes what changed since the version served before it
(``GET /v1/versions``), as far as that reveals no withheld value: the diff
(:func:`proagents_bench.maintenance.versions.diff_cases`) of the two files' **public views**
(:func:`.public.public_cases`), so a test case's ``expected_final_state`` and
``forbidden_side_effects`` take no part in it, not even as the fact that they changed. A
test case added, removed or moved, and a change of its public fields (its allowed tools,
whether it is critical, its slice, family, task type or initial state), are published, each
with what it breaks; a change of its withheld fields alone is not.

A cases file of a version served before, but with other content, is compared with the one
kept: when it changes a test task's answers, grading rules or input, or the test set, under
the same ``dataset_version``, the service refuses to start (``diff.same_dataset_version``,
the ``diff`` command's own rule); any other change (a slice renamed) is kept as the
version's file.
"""

from __future__ import annotations

import hashlib
import json
import time
from typing import TYPE_CHECKING, List, Optional

from ..errors import ContractErrors
from ..jsonio import JSONObject, load
from ..jsonio.dump import document_bytes
from ..maintenance.versions import diff_cases, refusals
from . import database, public

if TYPE_CHECKING:  # for annotations only
    from .benchmark import Benchmark

VERSIONS_NOTE = ("Each dataset version the service has served, oldest first, with what changed "
                 "in its public fields since the version before it (the diff of the public "
                 "views: a test case's withheld answers take no part in it). Each change says "
                 "what it breaks.")


def public_changes(old_cases: JSONObject, new_cases: JSONObject) -> JSONObject:
    """The diff of two cases files' public views (plain data)."""
    return diff_cases(public.public_cases(old_cases), public.public_cases(new_cases)).document()


def record_served(path: str, benchmark: "Benchmark") -> None:
    """Keep the served cases file for its version, with its public changes since the version
    served before it; :class:`ContractErrors` (placed in the cases file) for a file that
    changes what a record means under a version served before."""
    cases_bytes = benchmark.cases_bytes
    digest = hashlib.sha256(cases_bytes).hexdigest()
    new_cases = benchmark.cases_document.value
    with database.connection(path) as opened, database.transaction(opened):
        row = opened.execute(
            "SELECT id, cases_sha256, cases FROM dataset_versions WHERE benchmark_id = ? AND "
            "benchmark_version = ? AND dataset_version = ?", benchmark.versions).fetchone()
        if row is not None:
            if row[1] == digest:
                return
            kept = load.parse_bytes(bytes(row[2]), "kept cases").value
            refused = refusals(diff_cases(kept, new_cases))
            if refused:
                raise ContractErrors(benchmark.cases_document.errors_at(refused))
            opened.execute("UPDATE dataset_versions SET cases_sha256 = ?, cases = ? WHERE "
                           "id = ?", (digest, cases_bytes, row[0]))
            return
        previous = opened.execute(
            "SELECT id, cases FROM dataset_versions WHERE benchmark_id = ? ORDER BY id DESC "
            "LIMIT 1", (benchmark.benchmark_id,)).fetchone()
        changes = None
        if previous is not None:
            old_cases = load.parse_bytes(bytes(previous[1]), "kept cases").value
            changes = document_bytes(public_changes(old_cases, new_cases)).decode("ascii")
        opened.execute(
            "INSERT INTO dataset_versions (benchmark_id, benchmark_version, dataset_version, "
            "cases_sha256, cases, previous_id, public_changes, first_served_at) VALUES "
            "(?,?,?,?,?,?,?,?)", benchmark.versions + (
                digest, cases_bytes, previous[0] if previous is not None else None, changes,
                time.time()))


def served(path: str, benchmark_id: str) -> JSONObject:
    """``GET /v1/versions``: every dataset version served of ``benchmark_id``, oldest first,
    each with its public changes since the one before (None for the first)."""
    with database.connection(path) as opened:
        rows = opened.execute(
            "SELECT v.id, v.benchmark_version, v.dataset_version, v.first_served_at, "
            "p.benchmark_version, p.dataset_version, v.public_changes FROM dataset_versions v "
            "LEFT JOIN dataset_versions p ON p.id = v.previous_id WHERE v.benchmark_id = ? "
            "ORDER BY v.id", (benchmark_id,)).fetchall()
    versions: List[JSONObject] = []
    for row in rows:
        previous: Optional[JSONObject] = None
        if row[4] is not None:
            previous = {"benchmark_version": row[4], "dataset_version": row[5]}
        versions.append({
            "benchmark_version": row[1], "dataset_version": row[2],
            "first_served_at": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(row[3])),
            "previous": previous,
            "public_changes": json.loads(row[6]) if row[6] is not None else None})
    return {"benchmark_id": benchmark_id, "note": VERSIONS_NOTE, "versions": versions}
