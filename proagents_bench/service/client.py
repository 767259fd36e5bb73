"""The team's side: post a submission, read the service's answer (``urllib``, standard
library only). Used by the ``submit`` command and the service benchmark."""

from __future__ import annotations

import json
import urllib.error
import urllib.request
from typing import TYPE_CHECKING, Dict, Optional

from .problems import PROBLEM_TYPE

if TYPE_CHECKING:  # for annotations only
    from email.message import Message

    from ..jsonio import JSONObject

CLIENT_TIMEOUT_SECONDS = 60.0
TOKEN_VARIABLE = "PROAGENTS_BENCH_TOKEN"
# The name the service's errors give the team's file (the client says the file it sent).
SUBMISSION_NAME = "submission.json"


class Unreachable(Exception):
    """No answer of the service's own: the message says what happened instead."""


class Answer:
    """The service's answer: HTTP ``status``, ``headers`` and the parsed JSON ``document``."""

    def __init__(self, status: int, headers: Dict[str, str], document: JSONObject) -> None:
        self.status = status
        self.headers = headers
        self.document = document


def submissions_url(base: str) -> str:
    return base.rstrip("/") + "/v1/submissions"


def request(url: str, token: Optional[str] = None, body: Optional[bytes] = None,
            timeout: float = CLIENT_TIMEOUT_SECONDS, method: Optional[str] = None) -> Answer:
    """One request (``method``; by default POST when ``body`` is given, else GET); an error
    status is an answer too, as long as it is the service's JSON."""
    headers = {"Accept": "application/json"}
    if token is not None:
        headers["Authorization"] = "Bearer " + token
    if body is not None:
        headers["Content-Type"] = "application/json"
    prepared = urllib.request.Request(url, data=body, headers=headers,
                                      method=method or ("POST" if body is not None
                                                        else "GET"))
    try:
        with urllib.request.urlopen(prepared, timeout=timeout) as response:
            return _answer(response.status, response.headers, response.read())
    except urllib.error.HTTPError as error:
        try:
            data = error.read()
        finally:
            error.close()
        return _answer(error.code, error.headers, data)
    except (urllib.error.URLError, OSError, ValueError) as problem:
        reason = getattr(problem, "reason", None) or problem
        raise Unreachable("cannot reach %s: %s" % (url, reason))


def _answer(status: int, headers: Message, data: bytes) -> Answer:
    kind = (headers.get("Content-Type") or "").split(";")[0].strip()
    if kind not in ("application/json", PROBLEM_TYPE):
        raise Unreachable("the answer (HTTP %d, %s) is not the service's JSON" % (
            status, kind or "no content type"))
    try:
        document = json.loads(data.decode("utf-8"))
    except (UnicodeDecodeError, ValueError):
        raise Unreachable("the answer (HTTP %d) is not valid JSON" % status)
    if not isinstance(document, dict):
        raise Unreachable("the answer (HTTP %d) is not a JSON object" % status)
    return Answer(status, {key.lower(): value for key, value in headers.items()}, document)
