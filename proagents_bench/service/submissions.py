"""Submissions: one team's submission, from its bytes to its stored outcome and its answer.

The submission is parsed and checked once, with the maintainer's baseline added
(:meth:`.benchmark.Benchmark.check`), and decided once on the test cases feedback is
computed on: every test case, or the open phase's public part (the gate's own code,
:mod:`proagents_bench.pipeline`). Contract errors are placed in the team's own file, named
``submission.json``.

The gate runs outside any lock; then one ``BEGIN IMMEDIATE`` transaction counts the team's
scored submissions in the budget's window, decides what is released, and stores the
submission, so concurrent submissions can never spend more than the budget, and a process
killed at any moment leaves either the whole submission stored or nothing of it. The answer
is written once, by the product's JSON writer: the stored answer and the HTTP body are the
same bytes.
"""

from __future__ import annotations

import hashlib
import json
import sqlite3
import time
from typing import List, NamedTuple, NoReturn, Optional, Tuple, cast

from ..errors import ContractErrors
from ..jsonio import JSONObject
from ..jsonio.dump import document_bytes
from ..render.document import contract_error_document
from ..version import VERSION
from . import budget, database, feedback, phases
from .audit import AuditEntry
from .benchmark import Benchmark, Submission
from .database import CONTRACT_ERROR, OVER_BUDGET, SCORED
from .problems import Problem
from .teams import Team

# How many times a submission is decided again when a phase opens or closes meanwhile (or
# its team's level becomes the one that shows a part's own files).
PHASE_ATTEMPTS = 3


class Graded(NamedTuple):
    """A submission decided on the test cases feedback is computed on: the decision
    ``document``, the evidence ``fingerprint`` of the package decided on every test case (what
    is stored), and whether a part's document names its own cut files (``described``)."""
    document: JSONObject
    fingerprint: str
    described: bool


def now_iso(moment: float) -> str:
    return time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(moment))


class Submitter:
    """Runs submissions for one benchmark against one database."""

    def __init__(self, benchmark: Benchmark, database_path: str) -> None:
        self.benchmark = benchmark
        self.database_path = database_path

    def submit(self, team: Team, body: bytes, audit: AuditEntry) -> bytes:
        """The answer's bytes (HTTP 200) for ``body`` from ``team``; the answer of a refused
        submission is a :class:`Problem` raised. The request's ``audit`` row is written in
        the transaction that stores the submission."""
        received = time.time()
        digest = hashlib.sha256(body).hexdigest()
        stored = Stored(team, body, digest, received, audit)
        with database.connection(self.database_path) as opened:
            opened.row_factory = sqlite3.Row
            if self._spent(opened, team, received)[0] >= team.budget_count:
                # Already over: refuse without running the gate (the count is taken again,
                # under the lock, before storing).
                refused = self._store(opened, stored, None, None)  # raises: refused
                return cast(bytes, refused)
            try:
                submission = self.benchmark.check(body)
            except ContractErrors as failure:
                return self._contract_error(opened, stored, failure)
            fingerprint = submission.fingerprint()
            for _ in range(PHASE_ATTEMPTS):
                phase = phases.current(opened)
                document, described = self._decide(submission, phase, team)
                graded = Graded(document, fingerprint, described)
                outcome = self._store(opened, stored, graded, phase)
                if outcome is not None:
                    return outcome
        raise Problem("service.conflict", "a phase opened or closed while the submission was "
                      "graded, again and again; nothing was stored and no budget was spent: "
                      "submit it again")

    def _decide(self, submission: Submission, phase: Optional[phases.Phase],
                team: Team) -> Tuple[JSONObject, bool]:
        """(the decision on what feedback is computed on, whether it names a part's own
        files): every test case, or the open phase's public part."""
        if phase is None:
            return submission.decide(), False
        if phase.files_sha256 != self.benchmark.files_sha256:
            raise Problem("service.unavailable", "the open phase was opened with other files "
                          "than this service serves; the maintainer must serve the phase's "
                          "files")
        described = _shows_files(team)
        return submission.decide(self.benchmark.public_part(phase.private_ids),
                                 described), described

    def _spent(self, opened: sqlite3.Connection, team: Team,
               moment: float) -> Tuple[int, List[float]]:
        times = [row[0] for row in opened.execute(
            "SELECT received_at FROM submissions WHERE team_id = ? AND outcome = ? AND "
            "received_at > ?", (team.id, SCORED, moment - team.budget_window_seconds))]
        return len(times), times

    @staticmethod
    def _insert(opened: sqlite3.Connection, stored: "Stored", outcome: str,
                problem: Problem) -> None:
        opened.execute(
            "INSERT INTO submissions (team_id, received_at, sha256, size, body, outcome, "
            "answer) VALUES (?,?,?,?,?,?,?)",
            (stored.team.id, stored.received, stored.digest, len(stored.body), stored.body,
             outcome, problem.body().decode("ascii")))
        stored.audit.insert(opened, problem.status, problem.code)

    def _contract_error(self, opened: sqlite3.Connection, stored: "Stored",
                        failure: ContractErrors) -> NoReturn:
        document = contract_error_document(failure.errors, failure.omitted, VERSION)
        problem = Problem("service.contract_error", "the submission breaks the contract: "
                          "%d error(s); nothing was scored and no budget was spent" % (
                              len(failure.errors) + failure.omitted), **document)
        with database.transaction(opened):
            self._insert(opened, stored, CONTRACT_ERROR, problem)
        stored.audit.written = True
        raise problem

    def _store(self, opened: sqlite3.Connection, stored: Stored, graded: Optional[Graded],
               phase: Optional[phases.Phase]) -> Optional[bytes]:
        """Count the budget and store the submission, scored or refused (``graded`` None:
        over budget already), in one transaction; None (nothing stored) when the open phase
        is no longer ``phase``, or the team's level now shows the part's files that
        ``graded`` does not name."""
        team = stored.team
        refused = None
        with database.transaction(opened):
            current = opened.execute("SELECT budget_count, budget_window_seconds, "
                                     "feedback_level, rounding_step FROM teams WHERE id = ?",
                                     (team.id,)).fetchone()
            team.budget_count, team.budget_window_seconds, team.feedback_level = (
                current[0], current[1], current[2])
            team.rounding_step = current[3]
            moment = time.time()
            spent, times = self._spent(opened, team, moment)
            if graded is None or spent >= team.budget_count:
                wait = (budget.retry_after(times, team.budget_window_seconds, moment)
                        if times else team.budget_window_seconds)
                refused = Problem(
                    "service.over_budget", "the team has spent its budget of %s scored "
                    "submissions; retry after %d seconds" % (team.budget, wait),
                    headers={"Retry-After": str(wait)}, retry_after_seconds=wait,
                    budget=self._budget(team, spent))
                self._insert(opened, stored, OVER_BUDGET, refused)
            else:
                now_open = phases.current(opened)
                if (now_open.id if now_open else None) != (phase.id if phase else None):
                    return None  # graded on another part than the phase now open
                if phase is not None and _shows_files(team) and not graded.described:
                    return None  # the team's level changed to one that shows them
                answer = self._score(opened, stored, graded, phase, spent)
                stored.audit.insert(opened, 200, None)
        stored.audit.written = True
        if refused is not None:
            raise refused  # after the commit: the refusal is stored too
        return answer

    def _score(self, opened: sqlite3.Connection, stored: Stored, graded: Graded,
               phase: Optional[phases.Phase], spent: int) -> bytes:
        """Store a scored submission (inside the caller's transaction); its answer's
        bytes."""
        team = stored.team
        document = graded.document
        shown = self._feedback(opened, team, document, phase)
        answer = shown.answer
        answer.update({
            "team": team.name, "received_at": now_iso(stored.received),
            "sha256": stored.digest, "feedback_level": team.feedback_level,
            "benchmark_id": document["benchmark_id"],
            "benchmark_version": document["benchmark_version"],
            "dataset_version": document["dataset_version"],
            "scored_on": _scored_on(phase, document),
            "budget": self._budget(team, spent + 1)})
        passes = (feedback.task_passes(document) if document["candidate_metrics"]
                  else None)
        cursor = opened.execute(
            "INSERT INTO submissions (team_id, received_at, sha256, size, body, outcome, "
            "action, evidence_fingerprint, benchmark_id, benchmark_version, "
            "dataset_version, feedback_level, primary_rate, task_passes, score_released, "
            "released_score, answer, phase_id, shown_action, released_step) "
            "VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)",
            (team.id, stored.received, stored.digest, len(stored.body), stored.body, SCORED,
             document["action"], graded.fingerprint, document["benchmark_id"],
             document["benchmark_version"], document["dataset_version"],
             team.feedback_level,
             (document["candidate_metrics"] or {}).get("primary_task_success_rate"),
             None if passes is None else json.dumps(passes), int(shown.released),
             shown.score, "{}", phase.id if phase else None, answer["action"],
             None if shown.step is None else feedback.step_text(shown.step)))
        answer["submission_id"] = cursor.lastrowid
        if "ladder" in answer and answer["ladder"]["verdict_of_submission"] is None:
            answer["ladder"]["verdict_of_submission"] = cursor.lastrowid
        written = document_bytes(answer)
        opened.execute("UPDATE submissions SET answer = ? WHERE id = ?",
                       (written.decode("ascii"), cursor.lastrowid))
        return written

    def _budget(self, team: Team, used: int) -> JSONObject:
        return {"budget": team.budget, "used_in_window": used,
                "remaining": max(0, team.budget_count - used)}

    def _feedback(self, opened: sqlite3.Connection, team: Team, document: JSONObject,
                  phase: Optional[phases.Phase]) -> feedback.Shown:
        """What the answer shows of ``document``, the gate's decision on the test cases
        feedback is computed on, at the team's level (:func:`feedback.answer`)."""
        def best_released() -> Optional[feedback.Released]:
            # The team's best score released at its level itself (never one released at
            # another level: a rounded score is not a share of passing tasks), on the same
            # tasks.
            best = opened.execute(
                "SELECT id, released_score, task_passes, answer FROM submissions WHERE "
                "team_id = ? AND outcome = ? AND score_released = 1 AND feedback_level = ? "
                "AND task_passes IS NOT NULL AND benchmark_id = ? AND benchmark_version = ? "
                "AND dataset_version = ? AND phase_id IS ? "
                "ORDER BY released_score DESC, received_at, id LIMIT 1",
                (team.id, SCORED, team.feedback_level, document["benchmark_id"],
                 document["benchmark_version"], document["dataset_version"],
                 phase.id if phase else None)).fetchone()
            if best is None:
                return None
            return feedback.Released(best[0], best[1], json.loads(best[2]), json.loads(best[3]))

        return feedback.answer(team.feedback_level,
                               feedback.Asked(document, team.rounding_step, best_released))


class Stored:
    """What is stored of one submission, whatever its outcome."""

    def __init__(self, team: Team, body: bytes, digest: str, received: float,
                 audit: AuditEntry) -> None:
        self.team = team
        self.body = body
        self.digest = digest
        self.received = received
        self.audit = audit


def _shows_files(team: Team) -> bool:
    """Whether the team's answers show the decision document whole, and so what it says of
    its input files (the ``full`` level)."""
    level: str = team.feedback_level
    return level == feedback.FULL


def _scored_on(phase: Optional[phases.Phase], document: JSONObject) -> str:
    tasks = len((document["candidate_metrics"] or {}).get("task_results", ())) or None
    if phase is None:
        return "every test case"
    return "the public part of phase %s (%s test cases); the private part is scored when the " \
           "phase closes" % (phase.name, tasks or phase.public_count)
