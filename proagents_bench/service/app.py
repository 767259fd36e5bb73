"""The service's HTTP interface: one WSGI application (PEP 3333).

It runs under the standard library's ``wsgiref`` (:mod:`.server`) or any WSGI server
(waitress, gunicorn) behind a reverse proxy. Every answer is JSON but the leaderboard's HTML
page; every error is an RFC 9457 problem (:mod:`.problems`) with a stable code, and no
exception ever reaches a client as a traceback.

Published without a token: ``GET /`` (the leaderboard), ``GET /v1`` (this index),
``GET /v1/spec``, ``GET /v1/cases`` (the public view), ``GET /v1/grader``,
``GET /v1/leaderboard`` (the boards as JSON), ``GET /v1/versions`` (the dataset versions
served and their public changes). With ``Authorization: Bearer TOKEN``:
``GET /v1/team``, ``POST /v1/submissions``, ``GET /v1/submissions`` (the team's own),
``GET /v1/submissions/ID`` and ``GET``/``PUT /v1/final`` (the team's choice for the final
board). ``HEAD`` is answered wherever ``GET`` is, with the same headers and no body.
"""

from __future__ import annotations

import json
import re
import sqlite3
import time
from typing import TYPE_CHECKING, Callable, Dict, Iterable, List, Optional, Tuple, cast

from ..errors import ContractErrors
from ..jsonio.dump import document_bytes
from . import (database, feedback, leaderboard, leaderboard_page, phases, public, teams, tokens,
               versions)
from .audit import AuditEntry
from .benchmark import Benchmark
from .problems import PROBLEM_TYPE, Problem
from .submissions import Submitter, now_iso
from .teams import Team

if TYPE_CHECKING:  # for annotations only
    from _typeshed.wsgi import StartResponse, WSGIEnvironment

    from ..jsonio import JSONObject

# The largest submission accepted (bytes). A bigger Content-Length gets 413 before any of the
# body is read. 64 MiB holds about 200,000 trial records.
MAX_SUBMISSION_BYTES = 64 * 1024 * 1024
READ_CHUNK_BYTES = 1 << 16
JSON_TYPE = "application/json"
# The largest body of a final-board choice (a few submission ids).
MAX_CHOICE_BYTES = 65536
HTML_TYPE = "text/html; charset=utf-8"
_SUBMISSION_PATH = re.compile(r"/v1/submissions/([0-9]{1,18})\Z")
_LENGTH = re.compile(r"[0-9]{1,18}\Z")

Response = Tuple[int, List[Tuple[str, str]], bytes]


class Request:
    """One request's facts, and who made it once known (for the audit log)."""

    def __init__(self, environ: WSGIEnvironment) -> None:
        self.environ = environ
        self.method = environ.get("REQUEST_METHOD", "GET")
        self.path = environ.get("PATH_INFO", "") or "/"
        self.authorization = environ.get("HTTP_AUTHORIZATION")
        token = tokens.bearer(self.authorization)
        parts = tokens.split(token) if token else None
        # the audit row: the token's id, never its secret; the team once known
        self.audit = AuditEntry(parts[0] if parts else None, self.method, self.path)


_REASONS = {200: "OK", 400: "Bad Request", 401: "Unauthorized", 403: "Forbidden",
            404: "Not Found", 405: "Method Not Allowed", 408: "Request Timeout",
            409: "Conflict", 411: "Length Required", 413: "Payload Too Large",
            415: "Unsupported Media Type", 422: "Unprocessable Entity",
            429: "Too Many Requests", 500: "Internal Server Error",
            503: "Service Unavailable"}


class SetupError(ValueError):
    """The maintainer's files or data folder cannot be served; the message lists every
    reason, one per line (``ERROR: FILE:LINE:COLUMN: PATH: MESSAGE`` for a contract error)."""


def create_app(spec_path: str, cases_path: str, baseline_path: str, data_folder: str,
               max_submission_bytes: int = MAX_SUBMISSION_BYTES) -> "ServiceApp":
    """The application for another WSGI server (waitress, gunicorn): the same files and
    checks as ``serve --spec --cases --baseline --data``; :class:`SetupError` when they fail
    (relative paths are taken from the current directory)."""
    try:
        benchmark = Benchmark(spec_path, cases_path, baseline_path)
    except ContractErrors as failure:
        lines = [error.stderr_line() for error in failure.errors]
        if failure.omitted:
            lines.append("... and %d more contract error(s)" % failure.omitted)
        raise SetupError("the service's files break the contract:\n" + "\n".join(lines))
    try:
        database_path = database.open_database(data_folder)
    except database.DatabaseError as problem:
        raise SetupError(str(problem))
    try:
        return ServiceApp(benchmark, database_path, max_submission_bytes)
    except ContractErrors as failure:
        raise SetupError("the service's cases file breaks the contract:\n" + "\n".join(
            error.stderr_line() for error in failure.errors))


class ServiceApp:
    """The WSGI application for one benchmark and one database."""

    def __init__(self, benchmark: Benchmark, database_path: str,
                 max_submission_bytes: int = MAX_SUBMISSION_BYTES) -> None:
        self.benchmark = benchmark
        self.database_path = database_path
        self.max_submission_bytes = max_submission_bytes
        # The served dataset version is kept, with its public changes since the one before
        # (ContractErrors for a changed file under a version served before).
        versions.record_served(database_path, benchmark)
        self.submitter = Submitter(benchmark, database_path)
        self.grader = document_bytes(public.grader_interface(
            feedback.LEVELS, [float(step) for step in feedback.AUTOMATIC_STEPS],
            max_submission_bytes, benchmark.results_version))
        self.index = document_bytes({
            "service": "proagents-bench private-test service",
            "benchmark_id": benchmark.benchmark_id,
            "benchmark_version": benchmark.benchmark_version,
            "dataset_version": benchmark.dataset_version,
            "endpoints": {
                "GET /": "the leaderboard (HTML)",
                "GET /v1/spec": "the frozen spec",
                "GET /v1/cases": "the public view of the cases",
                "GET /v1/grader": "the grader interface: schemas, rules, submission format",
                "GET /v1/leaderboard": "the public and final boards (JSON)",
                "GET /v1/versions": "every dataset version served, with what changed in its "
                                    "public fields since the one before",
                "GET /v1/team": "your team, budget and feedback level (token)",
                "POST /v1/submissions": "submit your candidate's records (token)",
                "GET /v1/submissions": "your team's submissions (token)",
                "GET /v1/submissions/ID": "one of your team's submissions (token)",
                "GET /v1/final": "your choice for the open phase's final board (token)",
                "PUT /v1/final": "choose submissions for the final board (token)",
            }})
        self.routes: Dict[str, Dict[str, Callable[[Request], Response]]] = {
            "/": {"GET": self.leaderboard},
            "/v1": {"GET": lambda request: self.published(self.index)},
            "/v1/spec": {"GET": lambda request: self.published(benchmark.public_spec)},
            "/v1/cases": {"GET": lambda request: self.published(benchmark.public_cases)},
            "/v1/grader": {"GET": lambda request: self.published(self.grader)},
            "/v1/leaderboard": {"GET": self.leaderboard_json},
            "/v1/versions": {"GET": self.versions},
            "/v1/team": {"GET": self.team},
            "/v1/submissions": {"GET": self.list_submissions, "POST": self.submit},
            "/v1/final": {"GET": self.final_choice, "PUT": self.choose_final},
        }

    def __call__(self, environ: WSGIEnvironment,
                 start_response: StartResponse) -> Iterable[bytes]:
        request = Request(environ)
        try:
            status, headers, body = self.route(request)
            code = None
        except Problem as problem:
            status, headers, body = self.problem(problem)
            code = problem.code
        except Exception:  # noqa: BLE001 - no traceback ever reaches a client
            failed = Problem(
                "service.internal_error", "the service failed on this request; it is a bug "
                "in proagents-bench, and nothing was stored by this request unless its "
                "answer says so")
            status, headers, body = self.problem(failed)
            code = failed.code
        if request.authorization is not None and not request.audit.written:
            self.audit(request, status, code)
        headers = headers + [("Content-Length", str(len(body))),
                             ("X-Content-Type-Options", "nosniff"),
                             ("Cache-Control", "no-store")]
        start_response("%d %s" % (status, _REASONS.get(status, "Error")), headers)
        return [b""] if request.method == "HEAD" else [body]  # HEAD: GET's headers only

    # -- routing and answers -------------------------------------------------------------

    def route(self, request: Request) -> Response:
        methods = self.routes.get(request.path)
        if methods is None and _SUBMISSION_PATH.match(request.path):
            methods = {"GET": self.one_submission}
        if methods is None:
            raise Problem("service.not_found", "no resource at this path; GET /v1 lists them")
        handler = methods.get("GET" if request.method == "HEAD" else request.method)
        if handler is None:
            taken = sorted(list(methods) + (["HEAD"] if "GET" in methods else []))
            allowed = ", ".join(taken)
            raise Problem("service.method_not_allowed", "%s takes %s" % (request.path, allowed),
                          headers={"Allow": allowed}, allow=taken)
        return handler(request)

    @staticmethod
    def published(body: bytes) -> Response:
        return 200, [("Content-Type", JSON_TYPE)], body

    @staticmethod
    def json_answer(value: object, status: int = 200,
                    headers: Optional[Dict[str, str]] = None) -> Response:
        return status, [("Content-Type", JSON_TYPE)] + sorted((headers or {}).items()), \
            document_bytes(value)

    @staticmethod
    def problem(problem: Problem) -> Response:
        headers = [("Content-Type", PROBLEM_TYPE)] + sorted(problem.headers.items())
        return problem.status, headers, problem.body()

    def leaderboard(self, request: Request) -> Response:
        page = leaderboard_page.render(self.database_path, self.benchmark.versions)
        return 200, [("Content-Type", HTML_TYPE), (
            "Content-Security-Policy", "default-src 'none'; style-src 'unsafe-inline'")], page

    def leaderboard_json(self, request: Request) -> Response:
        return self.json_answer(leaderboard.document(self.database_path,
                                                     self.benchmark.versions))

    def versions(self, request: Request) -> Response:
        return self.json_answer(versions.served(self.database_path,
                                                self.benchmark.benchmark_id))

    # -- authenticated -------------------------------------------------------------------

    def authenticate(self, request: Request) -> Team:
        token = tokens.bearer(request.authorization)
        if not token:
            raise Problem("service.unauthorized", "send Authorization: Bearer TOKEN with the "
                          "token your maintainer gave you",
                          headers={"WWW-Authenticate": 'Bearer realm="proagents-bench"'})
        with database.connection(self.database_path) as opened:
            team = teams.authenticate(opened, token)
        if team is None:
            raise Problem("service.unauthorized", "this token is not valid",
                          headers={"WWW-Authenticate": 'Bearer realm="proagents-bench", '
                                                       'error="invalid_token"'})
        request.audit.team_id = team.id
        if team.revoked:
            raise Problem("service.token_revoked", "this team's token was revoked; ask the "
                          "maintainer for a new one",
                          headers={"WWW-Authenticate": 'Bearer realm="proagents-bench", '
                                                       'error="invalid_token"'})
        return team

    def team(self, request: Request) -> Response:
        team = self.authenticate(request)
        with database.connection(self.database_path) as opened:
            used = opened.execute(
                "SELECT COUNT(*) FROM submissions WHERE team_id = ? AND outcome = 'scored' "
                "AND received_at > ?", (team.id, time.time() - team.budget_window_seconds)
            ).fetchone()[0]
            phase = phases.current(opened)  # feedback is computed on its public part
            step = teams.step_in_force(team, phase.public_count if phase is not None
                                       else len(self.benchmark.test_ids))
        answer = team.as_dict()
        answer.update(step)
        answer.update(used_in_window=used, remaining=max(0, team.budget_count - used))
        return self.json_answer(answer)

    def submit(self, request: Request) -> Response:
        team = self.authenticate(request)
        body = self.read_body(request, self.max_submission_bytes)
        return self.published(self.submitter.submit(team, body, request.audit))

    def read_body(self, request: Request, cap: int) -> bytes:
        """The request's JSON body (415 for another media type), refused (413) before reading
        when its declared length is over ``cap``; a client that stops sending gets 408 when
        the socket's timeout passes. Framing as RFC 9112 section 6.3 requires: a
        Content-Length beside a Transfer-Encoding is 400 (the HTTP layer refuses it too, and
        two different lengths)."""
        media = request.environ.get("CONTENT_TYPE", "").split(";")[0].strip().lower()
        if media != JSON_TYPE:
            raise Problem("service.unsupported_media_type", "send the body as %s, not %s" % (
                JSON_TYPE, media or "without a Content-Type"), accept=[JSON_TYPE])
        declared = request.environ.get("CONTENT_LENGTH", "")
        if request.environ.get("HTTP_TRANSFER_ENCODING"):
            if declared:
                raise Problem("service.bad_request", "a request may not have both "
                              "Content-Length and Transfer-Encoding (RFC 9112, section 6.3)")
            raise Problem("service.length_required", "send the body with a "
                          "Content-Length (chunked transfer encoding is not supported)")
        if not declared:
            raise Problem("service.length_required", "send the body with a Content-Length")
        if not _LENGTH.match(declared):  # ASCII digits only: "²".isdigit() is true
            raise Problem("service.bad_request", "Content-Length must be a whole number of "
                          "bytes")
        size = int(declared)
        if size > cap:
            raise Problem("service.payload_too_large", "the body has %d bytes; at most %d are "
                          "accepted" % (size, cap), max_bytes=cap)
        stream = request.environ["wsgi.input"]
        chunks, left = [], size
        try:
            while left:
                chunk = stream.read(min(left, READ_CHUNK_BYTES))
                if not chunk:
                    raise Problem("service.bad_request", "the body ended after %d of its %d "
                                  "bytes" % (size - left, size))
                chunks.append(chunk)
                left -= len(chunk)
        except OSError:  # socket.timeout is an OSError
            raise Problem("service.request_timeout", "the body did not arrive in time")
        return b"".join(chunks)

    def list_submissions(self, request: Request) -> Response:
        team = self.authenticate(request)
        with database.connection(self.database_path) as opened:
            rows = opened.execute(
                "SELECT s.id, s.received_at, s.sha256, s.outcome, s.shown_action, "
                "s.score_released, s.released_score, p.name FROM submissions s "
                "LEFT JOIN phases p ON p.id = s.phase_id WHERE s.team_id = ? ORDER BY s.id",
                (team.id,)).fetchall()
        # "action" is the verdict the answer showed (at the ladder level, the best released
        # submission's when no new score was released), never one the team was not told.
        return self.json_answer({"team": team.name, "submissions": [{
            "submission_id": row[0], "received_at": now_iso(row[1]), "sha256": row[2],
            "outcome": row[3], "action": row[4], "new_score_released": bool(row[5]),
            "released_score": row[6] if row[5] else None, "phase": row[7]} for row in rows]})

    def one_submission(self, request: Request) -> Response:
        team = self.authenticate(request)
        # route() sends only the paths that match here.
        number = int(cast("re.Match[str]", _SUBMISSION_PATH.match(request.path)).group(1))
        with database.connection(self.database_path) as opened:
            row = opened.execute("SELECT team_id, answer FROM submissions WHERE id = ?",
                                 (number,)).fetchone()
        if row is None:
            raise Problem("service.not_found", "no submission %d" % number)
        if row[0] != team.id:
            raise Problem("service.forbidden", "submission %d belongs to another team" % number)
        return self.json_answer({"submission_id": number, "answer": json.loads(row[1])})

    def final_choice(self, request: Request) -> Response:
        team = self.authenticate(request)
        with database.connection(self.database_path) as opened:
            phase = phases.current(opened)
            if phase is None:
                return self.json_answer({"team": team.name, "phase": None, "chosen": [],
                                         "note": "no phase is open"})
            ids, explicit = phases.chosen(opened, phase, team.id)
        return self.json_answer(self._choice(team, phase, ids, explicit))

    def choose_final(self, request: Request) -> Response:
        """``PUT /v1/final`` with ``{"submission_ids": [ID, ...]}``: the team's submissions for
        the open phase's final board (an empty list: its last one, the default)."""
        team = self.authenticate(request)
        body = self.read_body(request, MAX_CHOICE_BYTES)
        try:
            value = json.loads(body.decode("utf-8"))
        except (UnicodeDecodeError, ValueError):
            value = None
        ids = value.get("submission_ids") if isinstance(value, dict) else None
        if (not isinstance(ids, list) or len(value) != 1
                or not all(type(item) is int for item in ids) or len(set(ids)) != len(ids)):
            raise Problem("service.bad_request", 'the body is {"submission_ids": [ID, ...]}: '
                          "distinct submission ids (an empty list chooses your last "
                          "submission)")
        with database.connection(self.database_path) as opened:
            with database.transaction(opened):
                phase = phases.current(opened)
                if phase is None:
                    raise Problem("service.conflict", "no phase is open: there is no final "
                                  "board to choose for")
                if len(ids) > phase.choices:
                    raise Problem("service.bad_request", "phase %s takes at most %d "
                                  "submission%s for the final board" % (
                                      phase.name, phase.choices,
                                      "" if phase.choices == 1 else "s"))
                try:
                    phases.choose(opened, phase, team.id, ids)
                except phases.PhaseError as problem:
                    raise Problem("service.bad_request", str(problem))
            chosen, explicit = phases.chosen(opened, phase, team.id)
        return self.json_answer(self._choice(team, phase, chosen, explicit))

    @staticmethod
    def _choice(team: Team, phase: phases.Phase, ids: List[int],
                explicit: bool) -> JSONObject:
        return {"team": team.name, "phase": phase.name, "choices": phase.choices,
                "chosen": ids, "chosen_by": "team" if explicit else "default (the last "
                "scored submission of the phase)"}

    def audit(self, request: Request, status: int, code: Optional[str]) -> None:
        """One audit row per authenticated request (unless its submission's transaction
        wrote it): who, when, what, outcome."""
        try:
            with database.connection(self.database_path) as opened, \
                    database.transaction(opened):
                request.audit.insert(opened, status, code)
        except sqlite3.Error:
            pass  # the answer stands; a full disk shows in the submission's own write
