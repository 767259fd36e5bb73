"""The harness's name and version, in one place (the package, every output document's
``harness``, the reports, the service's ``Server`` header, ``--version`` and pyproject)."""

from __future__ import annotations

from typing import Dict

NAME = "proagents-bench"
VERSION = "0.2.0"


def harness() -> Dict[str, str]:
    """The ``harness`` member of every document the commands write: this name and version."""
    return {"name": NAME, "version": VERSION}
