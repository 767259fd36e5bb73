"""The source read once per test process: the syntax tree of every Python file, parsed on first
use and kept, for the tests that read the source (the layers, the house rules, the error
codes, the suite's own rules). Parsing the package takes about half a second; each of those
tests used to do it again. The trees are shared: a test reads them and never changes them."""

import ast
import functools
import os

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
PACKAGE = os.path.join(ROOT, "proagents_bench")


@functools.lru_cache(maxsize=None)
def syntax_tree(path):
    """The syntax tree of the Python file at ``path`` (absolute), parsed once."""
    with open(path, "rb") as handle:
        return ast.parse(handle.read().decode("utf-8"), path)


@functools.lru_cache(maxsize=None)
def python_files(folder=PACKAGE):
    """Every ``.py`` file under ``folder`` (absolute paths, in a fixed order: folders sorted,
    those whose names start with a dot left out)."""
    found = []
    for parent, subfolders, files in os.walk(folder):
        subfolders[:] = sorted(name for name in subfolders if not name.startswith("."))
        found.extend(os.path.join(parent, name) for name in sorted(files)
                     if name.endswith(".py"))
    return tuple(found)


def modules(folder=PACKAGE):
    """(path relative to ``folder``, with '/', its syntax tree) of every module under it."""
    return [(os.path.relpath(path, folder).replace(os.sep, "/"), syntax_tree(path))
            for path in python_files(folder)]
