"""Paths as the files they name: whether two paths name one file, for the commands that must
not write over an input, read one log twice, or take a user's file for the shipped example's;
and the file beside a missing one that was most likely meant, for every input's error."""

from __future__ import annotations

import os
from typing import Optional

from ..text import FILE_SUGGESTION_CUTOFF, nearest, quote


def same_file(first: str, second: str) -> bool:
    """Whether two paths name one file: the same path (as the platform compares paths), or
    the same file by another name (a link; ``os.path.samefile``)."""
    if os.path.normcase(os.path.abspath(first)) == os.path.normcase(os.path.abspath(second)):
        return True
    try:
        return os.path.samefile(first, second)
    except (OSError, ValueError):  # a file that is not there, an embedded NUL
        return False


# A folder with more entries than this is not searched for a file near a missing one.
MAX_NEAR_ENTRIES = 10000


def near_file(path: str, shown: Optional[str] = None) -> str:
    """`` (did you mean FOLDER/NAME?)`` for the entry beside a missing ``path`` whose name is
    closest to its name (``benchmark_case.json`` -> ``benchmark_cases.json``), written as the
    path was (``shown``, by default ``path``); "" when none is near, the folder cannot be
    listed or holds more than :data:`MAX_NEAR_ENTRIES` entries."""
    shown = path if shown is None else shown
    folder, name = os.path.split(path)
    try:
        with os.scandir(folder or os.curdir) as entries:
            names = []
            for entry in entries:
                names.append(entry.name)
                if len(names) > MAX_NEAR_ENTRIES:
                    return ""
    except (OSError, ValueError, TypeError):  # no such folder, no permission, a NUL
        return ""
    found = nearest(name, [entry for entry in names if entry != name], FILE_SUGGESTION_CUTOFF)
    if found is None:
        return ""
    shown_folder, shown_name = os.path.split(shown)
    where = shown_folder if shown_name == name else folder
    return " (did you mean %s?)" % quote(os.path.join(where, found) if where else found)
