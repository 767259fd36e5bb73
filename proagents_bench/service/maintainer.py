"""What only the maintainer reads from the service's data folder: every scored submission of
the served benchmark, as the results package the gate decided (the team's candidate with the
maintainer's baseline spliced in), for the ``health`` command.

Nothing here is served over HTTP: the health of the private test (which test tasks every
team fails, which are flaky) would tell teams about the withheld answers. It needs the
maintainer's access: the data folder and the maintainer's own spec, cases and baseline files
(the cases file holds the withheld answers).
"""

from __future__ import annotations

import os
from typing import List, Tuple

from ..errors import ContractError, ContractErrors
from ..text import quote
from . import database
from .database import SCORED
from .submissions import Benchmark

HEALTH_DATA_CODE = "cli.data"


class ScoredSubmission:
    """One scored submission: its id, its team, and the package the gate decided."""

    def __init__(self, submission_id: int, team: str, package: bytes) -> None:
        self.submission_id = submission_id
        self.team = team
        self.package = package

    @property
    def name(self) -> str:
        """How the health report names the submission's system: ``TEAM #ID``."""
        return "%s #%d" % (self.team, self.submission_id)


def scored_submissions(data_folder: str, spec_path: str, cases_path: str,
                       baseline_path: str) -> Tuple[Benchmark, List[ScoredSubmission]]:
    """The benchmark the maintainer's files make (checked as ``serve`` checks them), and every
    scored submission stored in ``data_folder`` under its versions (benchmark id, benchmark
    version, dataset version), oldest first; :class:`ContractErrors` for files that break the
    contract, a folder without the service's database, or no such submission."""
    benchmark = Benchmark(spec_path, cases_path, baseline_path)
    path = database.database_path(data_folder)
    if not os.path.isfile(path):
        raise ContractErrors([ContractError(
            HEALTH_DATA_CODE, "no service database here: --data names the folder that `serve` "
            "keeps its %s in" % database.DATABASE_NAME, (), data_folder)])
    with database.connection(path) as opened:
        rows = opened.execute(
            "SELECT s.id, t.name, s.body FROM submissions s JOIN teams t ON t.id = s.team_id "
            "WHERE s.outcome = ? AND s.benchmark_id = ? AND s.benchmark_version = ? AND "
            "s.dataset_version = ? ORDER BY s.id", (SCORED,) + benchmark.versions).fetchall()
    if not rows:
        raise ContractErrors([ContractError(
            HEALTH_DATA_CODE, "no scored submission of benchmark %s %s, dataset %s is stored "
            "here" % tuple(quote(value) for value in benchmark.versions), (), data_folder)])
    return benchmark, [ScoredSubmission(row[0], row[1], benchmark.combine(bytes(row[2])))
                       for row in rows]
