"""Paths as the files they name: whether two paths name one file, for the commands that must
not write over an input, read one log twice, or take a user's file for the shipped example's."""

from __future__ import annotations

import os


def same_file(first: str, second: str) -> bool:
    """Whether two paths name one file: the same path (as the platform compares paths), or
    the same file by another name (a link; ``os.path.samefile``)."""
    if os.path.normcase(os.path.abspath(first)) == os.path.normcase(os.path.abspath(second)):
        return True
    try:
        return os.path.samefile(first, second)
    except (OSError, ValueError):  # a file that is not there, an embedded NUL
        return False
