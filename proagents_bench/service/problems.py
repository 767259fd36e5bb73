"""Errors as RFC 9457 problem details (``application/problem+json``), each with a stable
``code``: a client branches on the code, never on the wording. The codes, their HTTP statuses
and titles are rows of :mod:`proagents_bench.codes`."""

from __future__ import annotations

from typing import Dict, Optional, Tuple

from ..codes import CODES
from ..jsonio import JSONObject
from ..jsonio.dump import document_bytes

PROBLEM_TYPE = "application/problem+json"
TYPE_PREFIX = "urn:proagents-bench:problem:"

# code -> (HTTP status, title), from the service's rows of the code registry.
PROBLEMS: Dict[str, Tuple[int, str]] = {row.code: (row.http_status, row.title)
                                        for row in CODES if row.http_status}


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

    def document(self) -> JSONObject:
        status, title = PROBLEMS[self.code]
        body = {"type": TYPE_PREFIX + self.code, "title": title, "status": status,
                "detail": self.detail, "code": self.code}
        body.update(self.members)
        return body

    def body(self) -> bytes:
        return document_bytes(self.document())
