"""Submissions: the benchmark the service holds, and one team's submission from its bytes to
its stored outcome and its answer.

A submission is a results package whose ``systems`` hold only the team's candidate. The
maintainer's baseline system is spliced into its text after the last system (so that every
path in the team's file keeps its index), and the very same gate runs on it
(:func:`proagents_bench.pipeline.evaluate`). Contract errors are placed back in the team's
own file, named ``submission.json``.

The gate runs outside any lock; then one ``BEGIN IMMEDIATE`` transaction counts the team's
scored submissions in the budget's window, decides what is released, and stores the
submission, so concurrent submissions can never spend more than the budget, and a process
killed at any moment leaves either the whole submission stored or nothing of it.
"""

from __future__ import annotations

import hashlib
import json
import sqlite3
import time
from typing import Callable, Dict, List, NoReturn, Optional, Tuple

from .. import pipeline
from ..errors import ContractError, ContractErrors
from ..jsonio import load
from ..jsonio.dump import document_bytes
from ..render.document import contract_error_document
from ..text import quote
from ..version import VERSION
from . import budget, database, feedback, public
from .problems import Problem
from .teams import Team

SUBMISSION_NAME = "submission.json"
SPEC_NAME = "spec.json"
CASES_NAME = "cases.json"
BASELINE_ROLE = "baseline"

# Outcomes of a stored submission. Only "scored" ones spend budget.
SCORED = "scored"
CONTRACT_ERROR = "contract_error"
OVER_BUDGET = "over_budget"

BASELINE_ERROR_CODE = "submission.baseline_given"
BASELINE_PROTOCOL_CODE = "cli.baseline_protocol"


class Benchmark:
    """The frozen spec, the private cases and the maintainer's baseline system, loaded and
    checked once (the baseline package must pass the contract: :class:`ContractErrors`
    otherwise), with the published documents made once."""

    def __init__(self, spec_path: str, cases_path: str, baseline_path: str) -> None:
        inputs = [pipeline.InputFile("spec", spec_path), pipeline.InputFile("cases", cases_path),
                  pipeline.InputFile("results", baseline_path)]
        checked = pipeline.evaluate(inputs).document  # every check, on the maintainer's files
        from_baseline = [mismatch for mismatch in
                         checked["comparison"]["protocol_mismatches"]
                         if mismatch.startswith(checked["baseline_system"] + ".")]
        if from_baseline:
            # Every submission would be INCOMPARABLE: refuse to start instead.
            raise ContractErrors([ContractError(
                BASELINE_PROTOCOL_CODE, "the baseline did not run under the spec's protocol, "
                "so every submission would be INCOMPARABLE: %s" % "; ".join(from_baseline),
                (), baseline_path)])
        self.spec_bytes = _read(spec_path)
        self.cases_bytes = _read(cases_path)
        baseline = load.parse_bytes(_read(baseline_path), baseline_path)
        index = [system["role"] for system in baseline.value["systems"]].index(BASELINE_ROLE)
        start, end = baseline.span(("systems", index))
        self.baseline_text = baseline.text[start:end]
        self.results_version = baseline.value["schema_version"]
        spec_text = load.parse_bytes(self.spec_bytes, spec_path).text
        cases = json.loads(load.parse_bytes(self.cases_bytes, cases_path).text)
        self.benchmark_id = cases["benchmark_id"]
        self.benchmark_version = cases["benchmark_version"]
        self.dataset_version = cases["dataset_version"]
        # The spec as written, byte for byte but a byte-order mark: exact decimals included.
        self.public_spec = spec_text.encode("utf-8")
        self.public_cases = document_bytes(public.public_cases(cases))

    def evaluate(self, body: bytes) -> dict:
        """The gate's decision document for a submission's bytes, or :class:`ContractErrors`
        placed in ``submission.json``."""
        submission = load.parse_bytes(body, SUBMISSION_NAME)  # raises for bad JSON
        value = submission.value  # an object: the loader refuses any other root
        systems = value.get("systems")
        combined = body
        count = 0
        if isinstance(systems, list):
            refused = [ContractError(
                BASELINE_ERROR_CODE, "a submission holds only the candidate system; the "
                "service adds the maintainer's baseline", ("systems", index, "role"))
                for index, system in enumerate(systems)
                if isinstance(system, dict) and system.get("role") == BASELINE_ROLE]
            version = value.get("schema_version")
            if isinstance(version, str) and version != self.results_version:
                # The baseline's system is spliced in as written: a v1 system lacks what a v2
                # one must have, and the other way round.
                refused.append(ContractError(
                    "version.mismatch", "this service's baseline is a %s package: submit "
                    "the same schema_version, not %s" % (quote(self.results_version),
                                                         quote(version)),
                    ("schema_version",)))
            if refused:
                raise ContractErrors(submission.errors_at(refused))
            count = len(systems)
            start, end = submission.span(("systems",))
            text = submission.text
            combined = (text[:end - 1] + ("," if count else "") + self.baseline_text
                        + text[end - 1:]).encode("utf-8")
        inputs = [pipeline.InputFile("spec", None, SPEC_NAME, data=self.spec_bytes),
                  pipeline.InputFile("cases", None, CASES_NAME, data=self.cases_bytes),
                  pipeline.InputFile("results", None, SUBMISSION_NAME, data=combined)]
        try:
            return pipeline.evaluate(inputs).document
        except ContractErrors as failure:
            raise ContractErrors(_in_submission(failure.errors, submission, count),
                                 failure.omitted)


def _read(path: str) -> bytes:
    with open(path, "rb") as handle:
        return handle.read()


def _in_submission(errors: List[ContractError], submission: load.Document,
                   count: int) -> List[ContractError]:
    """The combined package's errors, placed in the team's own file: a path into the spliced
    baseline (index ``count``) becomes ``$.systems``; errors of no file (there should be none:
    the spec and cases were checked at start) lose their position."""
    placed = []
    for error in errors:
        path = error.path
        if error.file == SUBMISSION_NAME:
            if len(path) >= 2 and path[0] == "systems" and path[1] == count:
                path = ("systems",)
            placed.extend(submission.errors_at([ContractError(error.code, error.message,
                                                              path)]))
        else:
            placed.append(ContractError(error.code, error.message, path, error.file))
    return placed


def now_iso(moment: float) -> str:
    return time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(moment))


class Submitter:
    """Runs submissions for one benchmark against one database."""

    def __init__(self, benchmark: Benchmark, database_path: str,
                 after_store: Optional[Callable[[], None]] = None) -> None:
        self.benchmark = benchmark
        self.database_path = database_path
        # Called after a scored submission is committed and before it is answered: the
        # crash test's hook (see cli/serve_command.py); None otherwise.
        self.after_store = after_store

    def submit(self, team: Team, body: bytes) -> Tuple[int, dict, Dict[str, str]]:
        """(HTTP status, answer, extra headers) for ``body`` from ``team``; the answer of a
        refused submission is a :class:`Problem` raised."""
        received = time.time()
        digest = hashlib.sha256(body).hexdigest()
        with database.connection(self.database_path) as opened:
            opened.row_factory = sqlite3.Row
            if self._spent(opened, team, received)[0] >= team.budget_count:
                # Already over: refuse without running the gate (the count is taken again,
                # under the lock, before storing).
                return self._store(opened, team, body, digest, received, None)
            try:
                document = self.benchmark.evaluate(body)
            except ContractErrors as failure:
                return self._contract_error(opened, team, body, digest, received, failure)
            return self._store(opened, team, body, digest, received, document)

    def _spent(self, opened: sqlite3.Connection, team: Team,
               moment: float) -> Tuple[int, List[float]]:
        times = [row[0] for row in opened.execute(
            "SELECT received_at FROM submissions WHERE team_id = ? AND outcome = ? AND "
            "received_at > ?", (team.id, SCORED, moment - team.budget_window_seconds))]
        return len(times), times

    def _contract_error(self, opened: sqlite3.Connection, team: Team, body: bytes, digest: str,
                        received: float, failure: ContractErrors) -> NoReturn:
        document = contract_error_document(failure.errors, failure.omitted, VERSION)
        problem = Problem("service.contract_error", "the submission breaks the contract: "
                          "%d error(s); nothing was scored and no budget was spent" % (
                              len(failure.errors) + failure.omitted), **document)
        with database.transaction(opened):
            opened.execute(
                "INSERT INTO submissions (team_id, received_at, sha256, size, body, outcome, "
                "answer) VALUES (?,?,?,?,?,?,?)",
                (team.id, received, digest, len(body), body, CONTRACT_ERROR,
                 json.dumps(problem.document(), sort_keys=True)))
        raise problem

    def _store(self, opened: sqlite3.Connection, team: Team, body: bytes, digest: str,
               received: float, document: Optional[dict]) -> Tuple[int, dict, Dict[str, str]]:
        refused = None
        with database.transaction(opened):
            current = opened.execute("SELECT budget_count, budget_window_seconds, "
                                     "feedback_level FROM teams WHERE id = ?",
                                     (team.id,)).fetchone()
            team.budget_count, team.budget_window_seconds, team.feedback_level = (
                current[0], current[1], current[2])
            moment = time.time()
            spent, times = self._spent(opened, team, moment)
            if document is None or spent >= team.budget_count:
                wait = (budget.retry_after(times, team.budget_window_seconds, moment)
                        if times else team.budget_window_seconds)
                problem = Problem(
                    "service.over_budget", "the team has spent its budget of %s scored "
                    "submissions; retry after %d seconds" % (team.budget, wait),
                    headers={"Retry-After": str(wait)}, retry_after_seconds=wait,
                    budget=self._budget(team, spent))
                opened.execute(
                    "INSERT INTO submissions (team_id, received_at, sha256, size, body, "
                    "outcome, answer) VALUES (?,?,?,?,?,?,?)",
                    (team.id, received, digest, len(body), body, OVER_BUDGET,
                     json.dumps(problem.document(), sort_keys=True)))
                refused = problem
            else:
                answer = self._score(opened, team, body, digest, received, document, spent)
        if refused is not None:
            raise refused  # after the commit: the refusal is stored too
        if self.after_store is not None:
            self.after_store()
        return 200, answer, {}

    def _score(self, opened: sqlite3.Connection, team: Team, body: bytes, digest: str,
               received: float, document: dict, spent: int) -> dict:
        """Store a scored submission (inside the caller's transaction); its answer."""
        answer, released, released_score = self._feedback(opened, team, document)
        answer.update({
            "team": team.name, "received_at": now_iso(received), "sha256": digest,
            "feedback_level": team.feedback_level,
            "benchmark_id": document["benchmark_id"],
            "benchmark_version": document["benchmark_version"],
            "dataset_version": document["dataset_version"],
            "budget": self._budget(team, spent + 1)})
        passes = (feedback.task_passes(document) if document["candidate_metrics"]
                  else None)
        cursor = opened.execute(
            "INSERT INTO submissions (team_id, received_at, sha256, size, body, outcome, "
            "action, evidence_fingerprint, benchmark_id, benchmark_version, "
            "dataset_version, feedback_level, primary_rate, task_passes, score_released, "
            "released_score, answer) VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)",
            (team.id, received, digest, len(body), body, SCORED, document["action"],
             document["evidence_fingerprint"], document["benchmark_id"],
             document["benchmark_version"], document["dataset_version"],
             team.feedback_level,
             (document["candidate_metrics"] or {}).get("primary_task_success_rate"),
             None if passes is None else json.dumps(passes), int(released),
             released_score, "{}"))
        answer["submission_id"] = cursor.lastrowid
        opened.execute("UPDATE submissions SET answer = ? WHERE id = ?",
                       (json.dumps(answer, sort_keys=True), cursor.lastrowid))
        return answer

    def _budget(self, team: Team, used: int) -> dict:
        return {"budget": team.budget, "used_in_window": used,
                "remaining": max(0, team.budget_count - used)}

    def _feedback(self, opened: sqlite3.Connection, team: Team,
                  document: dict) -> Tuple[dict, bool, Optional[float]]:
        """(the answer's feedback part, whether a new score is released, that score)."""
        answer = feedback.verdict(document)
        level = team.feedback_level
        metrics = document["candidate_metrics"]
        if metrics is None or level == feedback.VERDICT:
            return answer, False, None
        if level == feedback.ROUNDED:
            answer["rounded"] = feedback.rounded(document)
            return answer, True, answer["rounded"]["primary_task_success_rate"]
        if level == feedback.FULL:
            answer["decision"] = document
            return answer, True, metrics["primary_task_success_rate"]
        passes = feedback.task_passes(document)
        best = opened.execute(
            "SELECT released_score, task_passes FROM submissions WHERE team_id = ? AND "
            "outcome = ? AND score_released = 1 AND task_passes IS NOT NULL AND "
            "benchmark_id = ? AND benchmark_version = ? AND dataset_version = ? "
            "ORDER BY released_score DESC, received_at, id LIMIT 1",
            (team.id, SCORED, document["benchmark_id"], document["benchmark_version"],
             document["dataset_version"])).fetchone()
        best_passes = json.loads(best[1]) if best is not None else None
        released = feedback.ladder_releases(passes, best_passes)
        shown = feedback.score(passes) if released else best[0]
        answer["ladder"] = {"score": shown, "new_score_released": released,
                            "rule": "a new score is released only when it beats the team's "
                                    "best released score by more than one paired standard "
                                    "error (Blum & Hardt 2015, parameter-free Ladder)"}
        return answer, released, (shown if released else None)
