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
import threading
import time
from fractions import Fraction
from typing import Callable, Dict, FrozenSet, List, NoReturn, Optional, Tuple, cast

from .. import pipeline
from ..contract.vocabulary import BASELINE_ROLE, TEST_SPLIT
from ..errors import ContractError, ContractErrors
from ..jsonio import JSONObject, load
from ..jsonio.dump import document_bytes
from ..render.document import contract_error_document
from ..text import quote
from ..version import VERSION
from . import budget, database, feedback, parts, phases, public
from .audit import AuditEntry
from .database import CONTRACT_ERROR, OVER_BUDGET, SCORED
from .problems import Problem
from .teams import Team

SUBMISSION_NAME = "submission.json"
SPEC_NAME = "spec.json"
CASES_NAME = "cases.json"

# How many times a submission is graded again when a phase opens or closes meanwhile.
PHASE_ATTEMPTS = 3

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
        self.baseline_package = _read(baseline_path)
        self.files_sha256 = {kind: hashlib.sha256(data).hexdigest() for kind, data in (
            ("spec", self.spec_bytes), ("cases", self.cases_bytes),
            ("baseline", self.baseline_package))}
        baseline = load.parse_bytes(self.baseline_package, baseline_path)
        index = [system["role"] for system in baseline.value["systems"]].index(BASELINE_ROLE)
        start, end = baseline.span(("systems", index))
        self.baseline_text = baseline.text[start:end]
        self.results_version = baseline.value["schema_version"]
        spec_text = load.parse_bytes(self.spec_bytes, spec_path).text
        self.cases_document = load.parse_bytes(self.cases_bytes, cases_path)
        cases = json.loads(self.cases_document.text)
        self.benchmark_id = cases["benchmark_id"]
        self.benchmark_version = cases["benchmark_version"]
        self.dataset_version = cases["dataset_version"]
        self.test_ids = [case["id"] for case in cases["cases"]
                         if case["split"] == TEST_SPLIT]
        # The spec as written, byte for byte but a byte-order mark: exact decimals included.
        self.public_spec = spec_text.encode("utf-8")
        self.public_cases = document_bytes(public.public_cases(cases))
        self._parts: Dict[FrozenSet[str], parts.Part] = {}
        self._parts_lock = threading.Lock()

    @property
    def versions(self) -> Tuple[str, str, str]:
        return self.benchmark_id, self.benchmark_version, self.dataset_version

    def combine(self, body: bytes) -> bytes:
        """A submission's bytes with the maintainer's baseline system spliced in after its
        last system, or :class:`ContractErrors` for a package that cannot be combined (not
        JSON, a baseline of its own, another results version)."""
        submission = load.parse_bytes(body, SUBMISSION_NAME)  # raises for bad JSON
        value = submission.value  # an object: the loader refuses any other root
        systems = value.get("systems")
        if not isinstance(systems, list):
            return body  # the gate says what is wrong with it
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
        start, end = submission.span(("systems",))
        text = submission.text
        return (text[:end - 1] + ("," if systems else "") + self.baseline_text
                + text[end - 1:]).encode("utf-8")

    def evaluate(self, body: bytes, combined: Optional[bytes] = None) -> JSONObject:
        """The gate's decision document on every test case for a submission's bytes (and
        their :meth:`combine`, when already made), or :class:`ContractErrors` placed in
        ``submission.json``."""
        if combined is None:
            combined = self.combine(body)
        inputs = [pipeline.InputFile("spec", None, SPEC_NAME, data=self.spec_bytes),
                  pipeline.InputFile("cases", None, CASES_NAME, data=self.cases_bytes),
                  pipeline.InputFile("results", None, SUBMISSION_NAME, data=combined)]
        try:
            return pipeline.evaluate(inputs).document
        except ContractErrors as failure:
            submission = load.parse_bytes(body, SUBMISSION_NAME)
            systems = submission.value.get("systems")
            count = len(systems) if isinstance(systems, list) else 0
            raise ContractErrors(_in_submission(failure.errors, submission, count),
                                 failure.omitted)

    def part(self, test_ids: FrozenSet[str]) -> parts.Part:
        """The part of the test cases ``test_ids`` (made once)."""
        with self._parts_lock:
            made = self._parts.get(test_ids)
            if made is None:
                made = self._parts[test_ids] = parts.Part(self.cases_document, test_ids)
            return made

    def public_part(self, private_ids: FrozenSet[str]) -> parts.Part:
        return self.part(frozenset(self.test_ids) - private_ids)

    def evaluate_part(self, combined: bytes, part: parts.Part) -> JSONObject:
        """The gate's decision document on one part of the test cases, for a combined
        package that passed :meth:`evaluate` (or the maintainer's baseline package)."""
        results = part.results_bytes(load.parse_bytes(combined, SUBMISSION_NAME))
        return pipeline.evaluate([
            pipeline.InputFile("spec", None, SPEC_NAME, data=self.spec_bytes),
            pipeline.InputFile("cases", None, CASES_NAME, data=part.cases_bytes),
            pipeline.InputFile("results", None, SUBMISSION_NAME, data=results)]).document

    def check_split(self, private_ids: FrozenSet[str]) -> None:
        """Both parts of a split can be scored: the maintainer's baseline package passes the
        contract on each (:class:`ContractErrors` otherwise)."""
        for part in (self.public_part(private_ids), self.part(private_ids)):
            self.evaluate_part(self.baseline_package, part)


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

    def submit(self, team: Team, body: bytes,
               audit: AuditEntry) -> Tuple[int, JSONObject, Dict[str, str]]:
        """(HTTP status, answer, extra headers) for ``body`` from ``team``; the answer of a
        refused submission is a :class:`Problem` raised. The request's ``audit`` row is
        written in the transaction that stores the submission."""
        received = time.time()
        digest = hashlib.sha256(body).hexdigest()
        stored = Stored(team, body, digest, received, audit)
        with database.connection(self.database_path) as opened:
            opened.row_factory = sqlite3.Row
            if self._spent(opened, team, received)[0] >= team.budget_count:
                # Already over: refuse without running the gate (the count is taken again,
                # under the lock, before storing).
                refused = self._store(opened, stored, None, None, None)  # raises, refused
                return cast("Tuple[int, JSONObject, Dict[str, str]]", refused)
            try:
                combined = self.benchmark.combine(body)
                whole = self.benchmark.evaluate(body, combined)
            except ContractErrors as failure:
                return self._contract_error(opened, stored, failure)
            for _ in range(PHASE_ATTEMPTS):
                phase = phases.current(opened)
                if phase is None:
                    scored_on = whole
                else:
                    if phase.files_sha256 != self.benchmark.files_sha256:
                        raise Problem("service.unavailable", "the open phase was opened with "
                                      "other files than this service serves; the maintainer "
                                      "must serve the phase's files")
                    scored_on = self.benchmark.evaluate_part(
                        combined, self.benchmark.public_part(phase.private_ids))
                outcome = self._store(opened, stored, whole, scored_on, phase)
                if outcome is not None:
                    return outcome
        raise Problem("service.conflict", "a phase opened or closed while the submission was "
                      "graded, again and again; nothing was stored and no budget was spent: "
                      "submit it again")

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
             outcome, json.dumps(problem.document(), sort_keys=True)))
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

    def _store(self, opened: sqlite3.Connection, stored: "Stored", whole: Optional[JSONObject],
               scored_on: Optional[JSONObject], phase: Optional[phases.Phase]
               ) -> Optional[Tuple[int, JSONObject, Dict[str, str]]]:
        """Count the budget and store the submission, scored or refused, in one transaction;
        None (nothing stored) when the open phase is no longer ``phase``."""
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
            if whole is None or spent >= team.budget_count:
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
                # scored_on comes with whole: the document of the part the phase scores
                answer = self._score(opened, stored, whole, cast("JSONObject", scored_on),
                                     phase, spent)
                stored.audit.insert(opened, 200, None)
        stored.audit.written = True
        if refused is not None:
            raise refused  # after the commit: the refusal is stored too
        if self.after_store is not None:
            self.after_store()
        return 200, answer, {}

    def _score(self, opened: sqlite3.Connection, stored: "Stored", whole: JSONObject,
               document: JSONObject, phase: Optional[phases.Phase], spent: int) -> JSONObject:
        """Store a scored submission (inside the caller's transaction); its answer."""
        team = stored.team
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
             document["action"], whole["evidence_fingerprint"], document["benchmark_id"],
             document["benchmark_version"], document["dataset_version"],
             team.feedback_level,
             (document["candidate_metrics"] or {}).get("primary_task_success_rate"),
             None if passes is None else json.dumps(passes), int(shown.released),
             shown.score, "{}", phase.id if phase else None, answer["action"],
             None if shown.step is None else feedback.step_text(shown.step)))
        answer["submission_id"] = cursor.lastrowid
        if "ladder" in answer and answer["ladder"]["verdict_of_submission"] is None:
            answer["ladder"]["verdict_of_submission"] = cursor.lastrowid
        opened.execute("UPDATE submissions SET answer = ? WHERE id = ?",
                       (json.dumps(answer, sort_keys=True), cursor.lastrowid))
        return answer

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


def _scored_on(phase: Optional[phases.Phase], document: JSONObject) -> str:
    tasks = len((document["candidate_metrics"] or {}).get("task_results", ())) or None
    if phase is None:
        return "every test case"
    return "the public part of phase %s (%s test cases); the private part is scored when the " \
           "phase closes" % (phase.name, tasks or phase.public_count)
