"""The names a maintainer gives (teams, phases): 1 to 64 letters, digits, ``.``, ``_`` or
``-``, starting with a letter or digit (safe in a URL, a file name and a shell)."""

from __future__ import annotations

import re
from typing import Optional

_NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9._-]{0,63}\Z")


def name_problem(kind: str, name: str) -> Optional[str]:
    """Why ``name`` is not a valid name of a ``kind`` (None when it is)."""
    if _NAME.match(name):
        return None
    return ("a %s name is 1 to 64 letters, digits, '.', '_' or '-', starting with a letter "
            "or digit, not %r" % (kind, name))
