"""The whole test suite of proagents-bench.

``python -B -m unittest -v test_run_benchmark`` runs every test once (all modules under
``tests/``). ``python -B test_run_benchmark.py`` runs that command in all four interpreter
modes (plain, ``-O``, ``-W error``, ``-O -W error``), then compiles every source file in
memory, and exits non-zero on any failure.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
from typing import TYPE_CHECKING, Iterator, List, Optional, Sequence, Tuple

if TYPE_CHECKING:  # for annotations only
    import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
if HERE not in sys.path:
    sys.path.insert(0, HERE)

MODES = ((), ("-O",), ("-W", "error"), ("-O", "-W", "error"))


def load_tests(loader: unittest.TestLoader, standard_tests: unittest.TestSuite,
               pattern: Optional[str]) -> unittest.TestSuite:
    """unittest's hook: the suite is every ``tests/test_*.py`` module."""
    standard_tests.addTests(loader.discover(os.path.join(HERE, "tests"), top_level_dir=HERE))
    return standard_tests


def source_files() -> Iterator[str]:
    for folder, subfolders, files in os.walk(HERE):
        subfolders[:] = sorted(name for name in subfolders if not name.startswith("."))
        for name in sorted(files):
            if name.endswith(".py"):
                yield os.path.join(folder, name)


def compile_check() -> List[str]:
    """Compile every source file in memory (no .pyc written); return the failures."""
    failures: List[str] = []
    for path in source_files():
        with open(path, "rb") as handle:
            source = handle.read()
        try:
            compile(source.decode("utf-8"), path, "exec")
        except (SyntaxError, UnicodeDecodeError, ValueError) as problem:
            failures.append("%s: %s" % (os.path.relpath(path, HERE), problem))
    return failures


def run_mode(flags: Sequence[str]) -> Tuple[int, int, int, int]:
    """Run the suite once under ``flags``; return (tests run but not skipped, failed or
    erred, skipped, exit status)."""
    command = [sys.executable, "-B"] + list(flags) + ["-m", "unittest", "test_run_benchmark"]
    completed = subprocess.run(command, cwd=HERE, stdout=subprocess.PIPE,
                               stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL)
    output = completed.stdout.decode("utf-8", "replace")
    sys.stdout.write(output)
    ran = re.search(r"^Ran (\d+) tests? in", output, re.MULTILINE)
    verdict = re.search(r"^(?:OK|FAILED)(?: \((.*)\))?$", output, re.MULTILINE)
    counts = dict(re.findall(r"(\w+)=(\d+)", verdict.group(1) or "")) if verdict else {}
    bad = int(counts.get("failures", 0)) + int(counts.get("errors", 0))
    skipped = int(counts.get("skipped", 0))
    return (int(ran.group(1)) if ran else 0) - skipped, bad, skipped, completed.returncode


def main() -> int:
    total_passed = total_failed = total_skipped = 0
    status = 0
    for flags in MODES:
        label = " ".join(flags) or "plain"
        print("== %s %s: python -B %s -m unittest test_run_benchmark" % (
            os.path.basename(sys.executable), label, " ".join(flags)), flush=True)
        ran, bad, skipped, code = run_mode(flags)
        if code != 0 or ran == 0:
            status = 1
            bad = max(bad, 1)
        print("%s: %d passed, %d failed, %d skipped" % (label.replace(" ", ""), ran - bad, bad,
                                                       skipped), flush=True)
        total_passed += ran - bad
        total_failed += bad
        total_skipped += skipped
    failures = compile_check()
    for failure in failures:
        print("compile check failed: " + failure)
    if failures:
        status = 1
        total_failed += len(failures)
    print("%d passed, %d failed, %d skipped" % (total_passed, total_failed, total_skipped))
    return status


if __name__ == "__main__":
    sys.exit(main())
