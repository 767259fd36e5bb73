"""The whole test suite of proagents-bench.

``python -B -m unittest -v test_run_benchmark`` runs every test once (all modules under
``tests/``). ``python -B test_run_benchmark.py`` runs the suite in all four interpreter modes
(plain, ``-O``, ``-W error``, ``-O -W error``), as many modes at a time as the machine has
cores, then compiles every source file in memory, and exits non-zero on any failure. Plain
mode runs every test; the three others run :func:`mode_dependent`, every test but those of a
class that says ``ONCE_PER_INTERPRETER``: a test that reads only the source, or only runs
child processes (which get no mode flags), gives the same result in every mode, so one run
per interpreter is enough (``tests/test_suite_rules.py`` holds such a class to that).
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
from concurrent.futures import ThreadPoolExecutor
from typing import TYPE_CHECKING, Iterator, List, NamedTuple, Optional, Sequence, Tuple

if TYPE_CHECKING:  # for annotations only
    import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
if HERE not in sys.path:
    sys.path.insert(0, HERE)

MODES = ((), ("-O",), ("-W", "error"), ("-O", "-W", "error"))
# The class attribute (a few words saying why) of a test class whose result the interpreter
# mode cannot change: its tests run in plain mode only.
ONCE_PER_INTERPRETER = "ONCE_PER_INTERPRETER"


def load_tests(loader: unittest.TestLoader, standard_tests: unittest.TestSuite,
               pattern: Optional[str]) -> unittest.TestSuite:
    """unittest's hook: the suite is every ``tests/test_*.py`` module."""
    standard_tests.addTests(loader.discover(os.path.join(HERE, "tests"), top_level_dir=HERE))
    return standard_tests


def once_per_interpreter(test: unittest.TestCase) -> bool:
    """Whether ``test``'s own class (not a base) says ``ONCE_PER_INTERPRETER``."""
    return bool(vars(type(test)).get(ONCE_PER_INTERPRETER))


def mode_dependent() -> unittest.TestSuite:
    """The suite the modes after plain run (``python -m unittest
    test_run_benchmark.mode_dependent``): every test but those run once per interpreter."""
    import unittest

    def kept(suite: unittest.TestSuite) -> unittest.TestSuite:
        kept_tests = unittest.TestSuite()
        for test in suite:
            if isinstance(test, unittest.TestSuite):
                kept_tests.addTest(kept(test))
            elif not (isinstance(test, unittest.TestCase) and once_per_interpreter(test)):
                kept_tests.addTest(test)
        return kept_tests

    loader = unittest.TestLoader()
    return kept(load_tests(loader, unittest.TestSuite(), None))


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


class ModeRun(NamedTuple):
    """One mode's run of the suite: its output, and its counts as unittest gave them."""
    flags: Sequence[str]
    output: str
    ran: int  # tests run, skipped ones included
    failed: int  # failures and errors
    skipped: int
    status: int

    @property
    def label(self) -> str:
        return " ".join(self.flags) or "plain"

    @property
    def command(self) -> str:
        return "python -B %s-m unittest %s" % ("".join(flag + " " for flag in self.flags),
                                              suite_name(self.flags))


def suite_name(flags: Sequence[str]) -> str:
    """Plain mode runs every test, the other modes those the mode can change."""
    return "test_run_benchmark" + (".mode_dependent" if flags else "")


def run_mode(flags: Sequence[str]) -> ModeRun:
    """Run the suite once under ``flags``, its output kept until it ends."""
    command = [sys.executable, "-B"] + list(flags) + ["-m", "unittest", suite_name(flags)]
    completed = subprocess.run(command, cwd=HERE, stdout=subprocess.PIPE,
                               stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL)
    output = completed.stdout.decode("utf-8", "replace")
    ran = re.search(r"^Ran (\d+) tests? in", output, re.MULTILINE)
    verdict = re.search(r"^(?:OK|FAILED)(?: \((.*)\))?$", output, re.MULTILINE)
    counts = dict(re.findall(r"(\w+)=(\d+)", verdict.group(1) or "")) if verdict else {}
    failed = int(counts.get("failures", 0)) + int(counts.get("errors", 0))
    return ModeRun(tuple(flags), output, int(ran.group(1)) if ran else 0, failed,
                   int(counts.get("skipped", 0)), completed.returncode)


def parallel_runs() -> int:
    """How many modes run at a time: one per core this process may use (each mode is one
    process, busy most of its time), at most the four."""
    if hasattr(os, "sched_getaffinity"):
        cores = len(os.sched_getaffinity(0))
    else:
        cores = os.cpu_count() or 1
    return max(1, min(cores, len(MODES)))


def counted(run: ModeRun, every_test: int) -> Tuple[str, int, int]:
    """A mode's counts line, and its passed and failed counts: a mode that crashed or found
    no test counts as at least one failure. ``every_test``: how many tests plain mode ran
    (0 before it is known), to say how many this mode left to it."""
    failed = run.failed
    if run.status != 0 or run.ran == 0:
        failed = max(failed, 1)
    passed = max(0, run.ran - run.skipped - failed)
    note = ""
    if run.ran == 0:  # the process ended before unittest's summary (a crash, a signal)
        note = " (no summary: the run ended with status %d)" % run.status
    elif run.flags and every_test > run.ran:
        note = " (%d tests run once per interpreter ran in plain mode only)" % (
            every_test - run.ran)
    line = "%s: %d passed, %d failed, %d skipped%s" % (run.label.replace(" ", ""), passed,
                                                      failed, run.skipped, note)
    return line, passed, failed


def main() -> int:
    total_passed = total_failed = total_skipped = 0
    workers = parallel_runs()
    print("== %s: the four modes, %d at a time; plain mode runs every test, the others the "
          "tests the mode can change" % (os.path.basename(sys.executable), workers), flush=True)
    with ThreadPoolExecutor(max_workers=workers) as pool:
        runs = [pool.submit(run_mode, flags) for flags in MODES]
        failures = compile_check()
        every_test = 0
        for future in runs:  # in the modes' order, each as soon as it and those before ended
            run = future.result()
            print("== %s %s: %s" % (os.path.basename(sys.executable), run.label, run.command))
            sys.stdout.write(run.output)
            every_test = every_test or (0 if run.flags else run.ran)
            line, passed, failed = counted(run, every_test)
            print(line, flush=True)
            total_passed += passed
            total_failed += failed
            total_skipped += run.skipped
    for failure in failures:
        print("compile check failed: " + failure)
    total_failed += len(failures)
    print("%d passed, %d failed, %d skipped" % (total_passed, total_failed, total_skipped))
    return 1 if total_failed else 0

if __name__ == "__main__":
    sys.exit(main())
