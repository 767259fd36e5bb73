"""What only the maintainer reads from the service's data folder: every scored submission of
the served benchmark, as the results package the gate decided (the team's candidate with the
maintainer's baseline system written after its last system), for the ``health`` command.

Nothing here is served over HTTP: the health of the private test (which test tasks every
team fails, which are flaky) would tell teams about the withheld answers. It needs the
maintainer's access: the data folder and the maintainer's own spec, cases and baseline files
(the cases file holds the withheld answers).
"""

from __future__ import annotations

import os
import sqlite3
from typing import List, NamedTuple

from ..errors import ContractError, ContractErrors
from ..jsonio import load
from ..text import quote
from . import database
from .benchmark import Benchmark
from .client import SUBMISSION_NAME
from .database import SCORED

HEALTH_DATA_CODE = "cli.data"


class ScoredSubmission(NamedTuple):
    """One scored submission: its benchmark and database, its id, its team, its size, and
    (read when asked for, so that one is in memory at a time) the package the gate
    decided."""

    benchmark: Benchmark
    path: str
    submission_id: int
    team: str
    size: int

    @property
    def name(self) -> str:
        """How the health report names the submission's system: ``TEAM #ID``."""
        return "%s #%d" % (self.team, self.submission_id)

    def package(self) -> bytes:
        """The submission with the maintainer's baseline written after its last system: the
        package the gate decided, as a file (the text splice keeps every number as the team
        and the maintainer wrote it)."""
        with database.connection(self.path) as opened:
            body = opened.execute("SELECT body FROM submissions WHERE id = ?",
                                  (self.submission_id,)).fetchone()[0]
        submission = load.parse_bytes(bytes(body), SUBMISSION_NAME)
        return "".join(self.benchmark.combined_pieces(submission)).encode("utf-8")


def scored_submissions(data_folder: str, spec_path: str, cases_path: str,
                       baseline_path: str) -> List[ScoredSubmission]:
    """Every scored submission stored in ``data_folder`` under the versions (benchmark id,
    benchmark version, dataset version) of the maintainer's files (checked as ``serve``
    checks them), oldest first; :class:`ContractErrors` for files that break the contract, a
    folder without the service's database, or no such submission."""
    benchmark = Benchmark(spec_path, cases_path, baseline_path)
    path = database.database_path(data_folder)
    if not os.path.isfile(path):
        raise ContractErrors([ContractError(
            HEALTH_DATA_CODE, "no service database here: --data names the folder that `serve` "
            "keeps its %s in" % database.DATABASE_NAME, (), data_folder)])
    try:
        with database.existing(path) as opened:
            rows = opened.execute(
                "SELECT s.id, t.name, s.size FROM submissions s JOIN teams t ON "
                "t.id = s.team_id WHERE s.outcome = ? AND s.benchmark_id = ? AND "
                "s.benchmark_version = ? AND s.dataset_version = ? ORDER BY s.id",
                (SCORED,) + benchmark.versions).fetchall()
    except database.DatabaseError as problem:  # it names the file
        raise ContractErrors([ContractError(
            HEALTH_DATA_CODE, "cannot read the service's database: %s" % problem, (),
            data_folder)])
    except sqlite3.Error as problem:
        raise ContractErrors([ContractError(
            HEALTH_DATA_CODE, "cannot read the service's database: %s: %s" % (path, problem),
            (), data_folder)])
    if not rows:
        raise ContractErrors([ContractError(
            HEALTH_DATA_CODE, "no scored submission of benchmark %s %s, dataset %s is stored "
            "here" % tuple(quote(value) for value in benchmark.versions), (), data_folder)])
    return [ScoredSubmission(benchmark, path, row[0], row[1], row[2] + len(
        benchmark.baseline_text)) for row in rows]
