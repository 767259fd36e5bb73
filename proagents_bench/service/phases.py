"""Phases: a public board during the phase and a final private board when it closes.

``phase open`` splits the test cases with a secret seed (:mod:`.parts`): every answer during
the phase is computed on the public part only; the private part is scored once, by ``phase
close``, on the submissions each team chose for the final board (up to the phase's
``choices``; by default its last scored submission of the phase). The seed's SHA-256 is
published while the phase is open, and the seed itself when it closes, so anyone can check
that the split was fixed before the first submission.

Each function takes an open connection or the database's path; writes are single
transactions. A close that stops half-way (a crash) is resumed by the next ``phase close``.
"""

from __future__ import annotations

import json
import re
import secrets
import sqlite3
import time
from fractions import Fraction
from typing import TYPE_CHECKING, Any, Dict, FrozenSet, List, Optional, Sequence, Tuple, cast

from . import database, feedback, parts
from .database import SCORED
from .names import name_problem

if TYPE_CHECKING:  # pragma: no cover - for the annotations only
    from ..jsonio import JSONObject
    from .benchmark import Benchmark

OPEN = "open"
CLOSING = "closing"
CLOSED = "closed"
DEFAULT_PRIVATE_SHARE = "0.5"
DEFAULT_CHOICES = 1  # no choice strategy without feedback gains (docs/service.md)
MAX_CHOICES = 100
SEED_BYTES = 32
MIN_SEED_HEX_DIGITS = 32  # 128 bits: the published commitment cannot be searched
_SHARE = re.compile(r"0\.[0-9]{1,4}\Z")
_SEED = re.compile(r"[0-9a-f]+\Z")
TEST_TASK_COUNT = "test_task_count"  # a fact: the test tasks of the cases last served


def choices_note(choices: int) -> str:
    """What more than one final choice costs (docs/service.md, measured by ``bench
    attack``)."""
    return ("with %d final choices a team's final row is its best chosen submission: without "
            "any feedback, a team that chooses a random submission and its complement gains "
            "about 0.8 standard errors of a private score over one honest submission, and %d "
            "choices gain at least the expected best of %d independent draws; with 1 choice "
            "the gain is 0" % (choices, choices, choices))


class PhaseError(ValueError):
    """A phase operation that cannot be done; the message says why."""


class Phase:
    """A phase's row."""

    # The columns of the phases table (service/database.py), but those decoded below.
    id: int
    name: str
    status: str
    seed: str
    commitment: str
    private_share: str
    public_count: int
    private_count: int
    choices: int
    benchmark_id: str
    benchmark_version: str
    dataset_version: str
    opened_at: float
    closed_at: Optional[float]

    def __init__(self, row: Sequence[Any]) -> None:  # a row as sqlite3 gives it
        (self.id, self.name, self.status, self.seed, self.commitment, self.private_share,
         private_ids, self.public_count, self.private_count, self.choices,
         self.benchmark_id, self.benchmark_version, self.dataset_version, files,
         self.opened_at, self.closed_at) = row
        self.private_ids: FrozenSet[str] = frozenset(json.loads(private_ids))
        self.private_list: List[str] = json.loads(private_ids)
        self.files_sha256: Dict[str, str] = json.loads(files)

    @property
    def versions(self) -> Tuple[str, str, str]:
        return self.benchmark_id, self.benchmark_version, self.dataset_version

    def public(self) -> JSONObject:
        """What is published of the phase: its seed and private cases only once closed."""
        shown = {"phase": self.name, "status": self.status,
                 "public_test_tasks": self.public_count,
                 "private_test_tasks": self.private_count,
                 "private_share": self.private_share, "choices": self.choices,
                 "seed_sha256": self.commitment,
                 "opened_at": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(self.opened_at))}
        if self.status == CLOSED:
            shown["seed"] = self.seed
            shown["private_case_ids"] = list(self.private_list)
        return shown


_COLUMNS = ("id, name, status, seed, commitment, private_share, private_ids, public_count, "
            "private_count, choices, benchmark_id, benchmark_version, dataset_version, "
            "files_sha256, opened_at, closed_at")


def current(opened: sqlite3.Connection, status: str = OPEN) -> Optional[Phase]:
    """The open phase, if any (at most one is); or the one in another ``status``."""
    row = opened.execute("SELECT %s FROM phases WHERE status = ?" % _COLUMNS,
                         (status,)).fetchone()
    return Phase(row) if row is not None else None


def every(opened: sqlite3.Connection) -> List[Phase]:
    return [Phase(row) for row in opened.execute("SELECT %s FROM phases ORDER BY id"
                                                 % _COLUMNS)]


def by_id(opened: sqlite3.Connection, phase_id: int) -> Phase:
    return Phase(opened.execute("SELECT %s FROM phases WHERE id = ?" % _COLUMNS,
                                (phase_id,)).fetchone())


def fact(opened: sqlite3.Connection, key: str) -> Optional[str]:
    row = opened.execute("SELECT value FROM facts WHERE key = ?", (key,)).fetchone()
    return row[0] if row else None


def record_served(path: str, benchmark: "Benchmark") -> None:
    """Note the size of the test set the service serves (for the rounding rule)."""
    with database.connection(path) as opened, database.transaction(opened):
        opened.execute("INSERT OR REPLACE INTO facts (key, value) VALUES (?, ?)",
                       (TEST_TASK_COUNT, str(len(benchmark.test_ids))))


def feedback_task_count(opened: sqlite3.Connection) -> Optional[int]:
    """How many test tasks feedback is computed on now: the open phase's public part, else
    the test set last served; None when the service never ran on this data folder."""
    phase = current(opened)
    if phase is not None:
        return phase.public_count
    served = fact(opened, TEST_TASK_COUNT)
    return int(served) if served is not None else None


def too_fine_steps(opened: sqlite3.Connection, tasks: int) -> List[str]:
    """The teams at the rounded level whose own step is finer than two standard errors of a
    score over ``tasks`` tasks (``feedback.step_allowed``), each as ``NAME (STEP)``."""
    found = []
    for name, level, step in opened.execute(
            "SELECT name, feedback_level, rounding_step FROM teams WHERE "
            "rounding_step IS NOT NULL ORDER BY name"):
        if level not in feedback.STEPPED_LEVELS:
            continue
        if not feedback.step_allowed(Fraction(step), tasks):
            found.append("%s (%s)" % (name, step))
    return found


def step_refusal(tasks: int, teams: List[str]) -> str:
    return ("a rounding step must be at least two standard errors of a score over the %d test "
            "tasks feedback is computed on, 1/sqrt(%d) = %.3f; too fine: %s (team set NAME "
            "--step auto, or a coarser step)" % (tasks, tasks, feedback.minimum_step(tasks),
                                                 ", ".join(teams)))


def check_served(path: str, benchmark: "Benchmark") -> None:
    """Refuse to serve files other than those the open phase was opened with, or a rounded
    team's step that the test set's size makes too fine (:class:`PhaseError`)."""
    with database.connection(path) as opened:
        phase = current(opened) or current(opened, CLOSING)
        if phase is not None and phase.files_sha256 != benchmark.files_sha256:
            raise PhaseError(_other_files(phase))
        tasks = phase.public_count if phase is not None and phase.status == OPEN else len(
            benchmark.test_ids)
        fine = too_fine_steps(opened, tasks)
    if fine:
        raise PhaseError(step_refusal(tasks, fine))


def _other_files(phase: Phase) -> str:
    return ("phase %r was opened with other files (spec, cases, baseline SHA-256 %s); use "
            "those files until it is closed" % (phase.name, ", ".join(
                phase.files_sha256[kind][:12] for kind in ("spec", "cases", "baseline"))))


def parse_share(text: str) -> Fraction:
    if not _SHARE.match(text.strip()):
        raise PhaseError("a private share is a decimal between 0 and 1 with at most four "
                         "decimals, such as 0.5, not %r" % text)
    return Fraction(text.strip())


def parse_seed(text: Optional[str]) -> bytes:
    """The seed's bytes: the given hex (at least 32 digits, an even number), or new random
    bytes."""
    if text is None:
        return secrets.token_bytes(SEED_BYTES)
    seed = text.strip().lower()
    if not _SEED.match(seed) or len(seed) < MIN_SEED_HEX_DIGITS or len(seed) % 2:
        raise PhaseError("a seed is an even number of at least %d hexadecimal digits (so "
                         "that its published SHA-256 cannot be searched)" % MIN_SEED_HEX_DIGITS)
    return bytes.fromhex(seed)


def open_phase(path: str, benchmark: "Benchmark", name: str,
               share_text: str = DEFAULT_PRIVATE_SHARE, choices: int = DEFAULT_CHOICES,
               seed_text: Optional[str] = None) -> Phase:
    """Split the test cases and open a phase (:class:`PhaseError` when it cannot be)."""
    problem = name_problem("phase", name)
    if problem is not None:
        raise PhaseError(problem)
    if not 1 <= choices <= MAX_CHOICES:
        raise PhaseError("--choices is 1..%d" % MAX_CHOICES)
    share = parse_share(share_text)
    seed = parse_seed(seed_text)
    try:
        private = parts.split_test_cases(benchmark.cases_document.value, seed, share)
    except parts.SplitError as problem:
        raise PhaseError(str(problem))
    benchmark.check_split(frozenset(private))  # ContractErrors when a part cannot be scored
    public_count = len(benchmark.test_ids) - len(private)
    with database.connection(path) as opened, database.transaction(opened):
        busy = opened.execute("SELECT name, status FROM phases WHERE status IN (?, ?)",
                              (OPEN, CLOSING)).fetchone()
        if busy is not None:
            raise PhaseError("phase %r is %s; close it first" % busy)
        if opened.execute("SELECT 1 FROM phases WHERE name = ?", (name,)).fetchone():
            raise PhaseError("a phase named %r exists already" % name)
        fine = too_fine_steps(opened, public_count)
        if fine:
            raise PhaseError(step_refusal(public_count, fine))
        opened.execute(
            "INSERT INTO phases (name, status, seed, commitment, private_share, private_ids, "
            "public_count, private_count, choices, benchmark_id, benchmark_version, "
            "dataset_version, files_sha256, opened_at) VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?)",
            (name, OPEN, seed.hex(), parts.commitment(seed), share_text.strip(),
             json.dumps(private), public_count, len(private), choices,
             benchmark.benchmark_id, benchmark.benchmark_version, benchmark.dataset_version,
             json.dumps(benchmark.files_sha256, sort_keys=True), time.time()))
        return cast("Phase", current(opened))  # the row just inserted


def last_scored(opened: sqlite3.Connection, phase_id: int, team_id: int) -> Optional[int]:
    row = opened.execute("SELECT id FROM submissions WHERE phase_id = ? AND team_id = ? AND "
                         "outcome = ? ORDER BY received_at DESC, id DESC LIMIT 1",
                         (phase_id, team_id, SCORED)).fetchone()
    return row[0] if row else None


def chosen(opened: sqlite3.Connection, phase: Phase, team_id: int) -> Tuple[List[int], bool]:
    """(the submissions the team chose for the final board, whether it chose them): without
    a choice, its last scored submission of the phase (none yet: an empty list)."""
    ids = [row[0] for row in opened.execute(
        "SELECT submission_id FROM final_choices WHERE phase_id = ? AND team_id = ? "
        "ORDER BY submission_id", (phase.id, team_id))]
    if ids:
        return ids, True
    last = last_scored(opened, phase.id, team_id)
    return ([last] if last is not None else []), False


def choose(opened: sqlite3.Connection, phase: Phase, team_id: int, ids: List[int]) -> None:
    """Replace the team's choice (inside the caller's transaction); ``ids`` already checked
    to be distinct and at most ``phase.choices``. An empty list restores the default."""
    for number in ids:
        row = opened.execute("SELECT team_id, outcome, phase_id FROM submissions WHERE id = ?",
                             (number,)).fetchone()
        if row is None or row[0] != team_id or row[1] != SCORED or row[2] != phase.id:
            raise PhaseError("submission %d is not one of your team's scored submissions in "
                             "phase %r" % (number, phase.name))
    opened.execute("DELETE FROM final_choices WHERE phase_id = ? AND team_id = ?",
                   (phase.id, team_id))
    opened.executemany("INSERT INTO final_choices (phase_id, team_id, submission_id) "
                       "VALUES (?,?,?)", [(phase.id, team_id, number) for number in ids])


def close_phase(path: str, benchmark: Benchmark) -> Tuple[Phase, List[JSONObject]]:
    """Close the open phase (or finish a close that stopped half-way): score every team's
    chosen submissions on the private part and publish the final board. Returns the closed
    phase and its results, one per (team, submission)."""
    with database.connection(path) as opened:
        with database.transaction(opened):
            phase = current(opened) or current(opened, CLOSING)
            if phase is None:
                raise PhaseError("no phase is open")
            if phase.files_sha256 != benchmark.files_sha256:
                raise PhaseError(_other_files(phase))
            if phase.status == OPEN:  # from now on, submissions and choices are not in it
                opened.execute("UPDATE phases SET status = ?, closed_at = ? WHERE id = ?",
                               (CLOSING, time.time(), phase.id))
            teams = [row[0] for row in opened.execute(
                "SELECT DISTINCT team_id FROM submissions WHERE phase_id = ? AND outcome = ? "
                "ORDER BY team_id", (phase.id, SCORED))]
            work: List[Tuple[int, int, bool]] = []
            for team_id in teams:
                ids, explicit = chosen(opened, phase, team_id)
                work.extend((team_id, number, explicit) for number in ids)
        private = benchmark.part(phase.private_ids)
        results = []
        for team_id, number, explicit in work:  # the gate runs outside any lock
            body = opened.execute("SELECT body FROM submissions WHERE id = ?",
                                  (number,)).fetchone()[0]
            document = benchmark.check(bytes(body)).decide(private)
            metrics = document["candidate_metrics"]
            results.append({"team_id": team_id, "submission_id": number, "chosen": explicit,
                            "action": document["action"],
                            "score": metrics["primary_task_success_rate"] if metrics else None})
        with database.transaction(opened):
            opened.execute("DELETE FROM final_results WHERE phase_id = ?", (phase.id,))
            opened.executemany(
                "INSERT INTO final_results (phase_id, team_id, submission_id, chosen, action, "
                "score) VALUES (?,?,?,?,?,?)",
                [(phase.id, item["team_id"], item["submission_id"], int(item["chosen"]),
                  item["action"], item["score"]) for item in results])
            opened.execute("UPDATE phases SET status = ? WHERE id = ?", (CLOSED, phase.id))
        return by_id(opened, phase.id), results
