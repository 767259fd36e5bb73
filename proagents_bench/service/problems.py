"""Errors as RFC 9457 problem details (``application/problem+json``), each with a stable
``code``: a client branches on the code, never on the wording."""

from __future__ import annotations

from typing import Dict, Optional, Tuple

from ..jsonio.dump import document_bytes

PROBLEM_TYPE = "application/problem+json"
TYPE_PREFIX = "urn:proagents-bench:problem:"

# code -> (HTTP status, title). Codes never change meaning; new ones may be added.
PROBLEMS: Dict[str, Tuple[int, str]] = {
    "service.bad_request": (400, "Bad request"),
    "service.unauthorized": (401, "A valid bearer token is required"),
    "service.token_revoked": (401, "This token was revoked"),
    "service.forbidden": (403, "This resource belongs to another team"),
    "service.not_found": (404, "No such resource"),
    "service.method_not_allowed": (405, "Method not allowed"),
    "service.request_timeout": (408, "The request was not received in time"),
    "service.conflict": (409, "The request conflicts with the service's state"),
    "service.length_required": (411, "Content-Length is required"),
    "service.payload_too_large": (413, "The request body is too large"),
    "service.unsupported_media_type": (415, "The body must be application/json"),
    "service.contract_error": (422, "The submission breaks the contract"),
    "service.over_budget": (429, "The team's submission budget is spent"),
    "service.internal_error": (500, "Internal error"),
    "service.unavailable": (503, "The service cannot answer as configured"),
}


class Problem(Exception):
    """An error answer: its ``code``, a ``detail`` for people, extra members and headers."""

    def __init__(self, code: str, detail: str, headers: Optional[Dict[str, str]] = None,
                 **members: object) -> None:
        if code not in PROBLEMS:
            raise KeyError("unknown problem code %r" % code)
        super().__init__(detail)
        self.code = code
        self.detail = detail
        self.headers = dict(headers or {})
        self.members = members

    @property
    def status(self) -> int:
        return PROBLEMS[self.code][0]

    def document(self) -> dict:
        status, title = PROBLEMS[self.code]
        body = {"type": TYPE_PREFIX + self.code, "title": title, "status": status,
                "detail": self.detail, "code": self.code}
        body.update(self.members)
        return body

    def body(self) -> bytes:
        return document_bytes(self.document())
