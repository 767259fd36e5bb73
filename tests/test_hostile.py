"""A hostile user's inputs and a hostile machine's outputs (issue: whole or an error).

No finite input may make the gate or a report run unbounded; every output fault ends in
exit 4 (or the signal's status) and never looks like a decision; every message quotes what
came from the input. Runs that could hang are child processes with a timeout, so a
regression fails the test instead of stopping the suite.
"""

import io
import json
import os
import re
import signal
import subprocess
import sys
import time
import unittest
import xml.etree.ElementTree as ElementTree
from unittest import mock

from proagents_bench import cli
from proagents_bench.cli import streams
from proagents_bench.errors import ContractErrors
from devtools import synthetic
from tests.support import (RUN_BENCHMARK, TempDir, example_package, example_path, run_cli,
                           with_example,
                           run_package, run_subprocess)
from tests.test_reports import report_text

FAULT_DRIVER = os.path.join(os.path.dirname(os.path.abspath(__file__)), "fault_driver.py")


def _package_with(test, edit):
    spec, cases, results = example_package()
    edit(spec, cases, results)
    return TempDir(test).package(spec, cases, results)


def _raw_number(args, index, placeholder, literal):
    """Replace the JSON string ``placeholder`` in the file at ``args[index]`` by ``literal``."""
    with open(args[index], "rb") as handle:
        data = handle.read()
    data = data.replace(json.dumps(placeholder).encode(), literal.encode())
    with open(args[index], "wb") as handle:
        handle.write(data)


class ExponentTests(unittest.TestCase):
    """A short valid number must not cost unbounded exact arithmetic."""

    ONCE_PER_INTERPRETER = "child processes only, in plain mode"

    def run_with(self, literal, where):
        def edit(spec, cases, results):
            if where == "latency":
                results["systems"][1]["records"][0]["latency_ms"] = "@number@"
            elif where == "cost":
                results["systems"][0]["records"][4]["cost_units"] = "@number@"
            else:
                spec["gates"]["max_p95_latency_ms"] = "@number@"
        args = _package_with(self, edit)
        index = 1 if where == "gate" else 5
        _raw_number(args, index, "@number@", literal)
        return run_subprocess(args, timeout=60)

    def test_tiny_numbers_at_the_limit_decide(self):
        for where in ("latency", "cost", "gate"):
            with self.subTest(where=where):
                run = self.run_with("1e-400", where)
                self.assertIn(run.status, (0, 1), run.stderr)
                self.assertIn(run.document["action"], ("PASS", "REVIEW"))

    def test_exponents_beyond_the_limit_are_contract_errors(self):
        for literal, where in (("1e-401", "latency"), ("1e-999999999", "gate"),
                               ("0e999999999", "latency")):
            with self.subTest(literal=literal, where=where):
                run = self.run_with(literal, where)
                self.assertEqual(run.status, 2, run.stderr)
                (error,) = run.document["errors"]
                self.assertEqual(error["code"], "json.exponent_too_large")


@unittest.skipUnless(os.name == "posix", "POSIX descriptors, signals and resource limits")
class OutputFaultTests(unittest.TestCase):
    """A failed write is exit 4 with one stderr line, never a decision's 0 or 1."""

    ONCE_PER_INTERPRETER = "child processes only, in plain mode"

    def child(self, args, **popen):
        command = [sys.executable, "-B", RUN_BENCHMARK] + list(args)
        completed = subprocess.run(command, stdin=subprocess.DEVNULL, timeout=120, **popen)
        return completed

    def assert_output_failure(self, completed, stderr, reason):
        self.assertEqual(completed.returncode, 4, stderr)
        lines = stderr.decode("utf-8").splitlines()
        self.assertEqual(len([line for line in lines if line.startswith("ERROR: <stdout>")]), 1)
        self.assertIn(reason, stderr.decode("utf-8"))
        self.assertNotIn(b"Traceback", stderr)

    @unittest.skipUnless(os.path.exists("/dev/full"), "needs /dev/full")
    def test_a_full_device_is_exit_4(self):
        for args in ([], ["--cases", example_path("benchmark_cases_contract_error.json")]):
            with self.subTest(args=args), open("/dev/full", "wb") as full:
                completed = self.child(args, stdout=full, stderr=subprocess.PIPE)
                self.assert_output_failure(completed, completed.stderr, "no space left")

    def test_a_closed_stdout_is_exit_4_even_for_a_contract_error(self):
        for args in ([], ["--cases", example_path("benchmark_cases_contract_error.json")]):
            with self.subTest(args=args):
                completed = self.child(args, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                                       preexec_fn=lambda: os.close(1))
                self.assert_output_failure(completed, completed.stderr, "stdout is closed")

    def test_a_closed_stderr_changes_neither_status_nor_stdout(self):
        for args, status in (([], 0), (["--cases", example_path(
                "benchmark_cases_contract_error.json")], 2)):
            with self.subTest(args=args):
                expected = self.child(args, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
                completed = self.child(args, stdout=subprocess.PIPE,
                                       preexec_fn=lambda: os.close(2))
                self.assertEqual((completed.returncode, completed.stdout),
                                 (status, expected.stdout))

    def test_the_file_size_limit_is_exit_4(self):
        import resource
        limit = 4096

        def small_files():
            resource.setrlimit(resource.RLIMIT_FSIZE, (limit, limit))

        path = os.path.join(TempDir(self).path, "out.json")
        with open(path, "wb") as handle:
            completed = self.child([], stdout=handle, stderr=subprocess.PIPE,
                                   preexec_fn=small_files)
        self.assert_output_failure(completed, completed.stderr, "file size limit")
        self.assertEqual(os.path.getsize(path), limit)

    def test_a_non_blocking_pipe_gets_the_whole_document(self):
        args = large_package(self)
        expected = self.child(args, stdout=subprocess.PIPE, stderr=subprocess.PIPE).stdout
        self.assertGreater(len(expected), 256 << 10)  # far beyond a pipe's buffer
        read_end, write_end = os.pipe()
        os.set_blocking(write_end, False)  # as Node.js hands pipes to child processes
        child = subprocess.Popen([sys.executable, "-B", RUN_BENCHMARK] + args,
                                 stdin=subprocess.DEVNULL, stdout=write_end,
                                 stderr=subprocess.PIPE)
        os.close(write_end)
        received = []
        with os.fdopen(read_end, "rb") as reader:
            wait_until_full(read_end, child)  # the child fills the pipe and meets EAGAIN
            for block in iter(lambda: reader.read(1 << 16), b""):
                received.append(block)
        stderr = child.stderr.read()
        child.stderr.close()
        self.assertEqual(child.wait(timeout=120), 1, stderr)
        self.assertEqual(b"".join(received), expected)

    def test_a_reader_that_goes_away_is_exit_4(self):
        args = large_package(self)
        child = subprocess.Popen([sys.executable, "-B", RUN_BENCHMARK] + args,
                                 stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                                 stderr=subprocess.PIPE)
        child.stdout.read(100)
        child.stdout.close()
        stderr = child.stderr.read()
        child.stderr.close()
        child.wait(timeout=120)
        self.assert_output_failure(child, stderr, "the reader closed the pipe")


def large_package(test, tasks=300):
    """CLI arguments of a synthetic package with ``tasks`` test tasks (300: a document of
    about 850 KB, beyond any pipe's buffer, which the fault driver's gate writes in five
    pieces)."""
    spec, cases, results = synthetic.make_package(tasks, trial_count=3, seed=5)
    return TempDir(test).package(spec, cases, results)


def wait_until_catching(pid, number, limit=30.0):
    """Return once process ``pid`` catches signal ``number`` (its ``SigCgt`` mask in
    /proc/PID/status), or at once where there is no /proc (then the 0.3 s an interpreter
    takes to start is waited), or when the process has ended or ``limit`` seconds passed."""
    status = "/proc/%d/status" % pid
    if not os.path.exists("/proc/self/status"):
        time.sleep(0.3)
        return
    deadline = time.monotonic() + limit
    while time.monotonic() < deadline:
        try:
            with open(status, "rb") as handle:
                lines = handle.read().decode("ascii", "replace").splitlines()
        except OSError:
            return
        caught = [line.split()[1] for line in lines if line.startswith("SigCgt:")]
        if caught and int(caught[0], 16) >> (number - 1) & 1:
            return
        time.sleep(0.005)


def wait_until_full(read_end, child, limit=60.0):
    """Return once the pipe read at ``read_end`` holds all it can: as many bytes as Linux says
    it takes (F_GETPIPE_SZ), or elsewhere as many as it held 0.1 s before, not none; or once
    the ``child`` writing it has ended, or ``limit`` seconds have passed."""
    import fcntl
    import struct
    import termios
    capacity = None
    if sys.platform.startswith("linux"):
        capacity = fcntl.fcntl(read_end, getattr(fcntl, "F_GETPIPE_SZ", 1032))
    deadline = time.monotonic() + limit
    held_before = 0
    while time.monotonic() < deadline and child.poll() is None:
        held = struct.unpack("i", fcntl.ioctl(read_end, termios.FIONREAD, b"\0" * 4))[0]
        if held and held >= (capacity or held_before):
            return
        held_before = held
        time.sleep(0.01 if capacity else 0.1)


@unittest.skipUnless(os.name == "posix", "POSIX signals")
class SignalTests(unittest.TestCase):
    """Ctrl-C and SIGTERM at chosen points: 130 or 143, no traceback, nothing half-done."""

    ONCE_PER_INTERPRETER = "child processes only, in plain mode"

    def drive(self, point, count, name, args):
        command = [sys.executable, "-B", FAULT_DRIVER, point, str(count), name, "--"] + list(
            args)
        return subprocess.run(command, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                              stderr=subprocess.PIPE, timeout=120)

    def assert_stopped(self, completed, name):
        self.assertEqual(completed.returncode, {"INT": 130, "TERM": 143}[name],
                         completed.stderr)
        self.assertNotIn(b"Traceback", completed.stderr)
        self.assertEqual(completed.stderr.count(b"\n"), 1, completed.stderr)
        self.assertTrue(completed.stderr.startswith(b"interrupted"))

    def test_a_signal_while_deciding_leaves_stdout_empty(self):
        for name in ("INT", "TERM"):
            with self.subTest(name=name):
                completed = self.drive("evaluate", 1, name, [])
                self.assert_stopped(completed, name)
                self.assertEqual(completed.stdout, b"")

    def test_a_signal_while_the_document_is_written(self):
        args = large_package(self)
        counted = self.drive("write", 0, "INT", args)  # no signal: the writes counted
        self.assertEqual(counted.returncode, 1, counted.stderr)
        whole, writes = counted.stdout, int(counted.stderr.split()[-1])
        self.assertEqual(whole, run_subprocess(args).stdout)
        self.assertGreaterEqual(writes, 4)  # the document took several writes
        # Before the first write to stdout, the second, and the last.
        for count, name in ((1, "INT"), (2, "TERM"), (writes, "INT")):
            with self.subTest(count=count, name=name):
                completed = self.drive("write", count, name, args)
                self.assert_stopped(completed, name)
                self.assertTrue(whole.startswith(completed.stdout))
                self.assertLess(len(completed.stdout), len(whole))

    def test_a_signal_while_stdout_is_written_leaves_the_reports_the_decision(self):
        # The reports are published before stdout is written: a signal then cuts only
        # stdout's copy (exit 130, stdout a part of the document), and the reports keep this
        # run's complete decision, byte for byte (docs/guide.md, "No report outlives its run").
        args = large_package(self)
        reports = {}
        for run, count in (("complete", None), ("interrupted", 2)):
            folder = TempDir(self).path
            paths = [os.path.join(folder, name) for name in ("report.html", "junit.xml")]
            options = ["--html", paths[0], "--junit-xml", paths[1]]
            if count is None:
                whole = run_subprocess(args + options)
                self.assertEqual(whole.status, 1, whole.stderr)
            else:
                completed = self.drive("write", count, "INT", args + options)
                self.assert_stopped(completed, "INT")
                self.assertEqual(completed.stderr,
                                 b"interrupted: stdout holds an incomplete document\n")
                self.assertTrue(0 < len(completed.stdout) < len(whole.stdout))
                self.assertTrue(whole.stdout.startswith(completed.stdout))
            reports[run] = []
            for path in paths:
                with open(path, "rb") as handle:
                    # JUnit's time is each run's own wall seconds: the rest is the decision's
                    reports[run].append(re.sub(rb' time="[0-9.]+"', b' time="T"',
                                               handle.read()))
        self.assertEqual(reports["interrupted"], reports["complete"])

    def test_a_signal_leaves_every_report_saying_interrupted(self):
        # Whether the signal lands while the decision's reports are staged (they stay old) or
        # while they are renamed (they all become new), the run ends with exit 130 and every
        # report then says INTERRUPTED: none is left holding a decision, old or new.
        names = ("report.html", "summary.md", "junit.xml")
        for point, count in (("fsync", 1), ("fsync", 2), ("fsync", 3), ("replace", 1),
                             ("replace", 2), ("replace", 3)):
            with self.subTest(point=point, count=count):
                folder = TempDir(self).path
                paths = [os.path.join(folder, name) for name in names]
                for path in paths:
                    with open(path, "wb") as handle:
                        handle.write(b"old")
                completed = self.drive(point, count, "INT", [
                    "--html", paths[0], "--markdown", paths[1], "--junit-xml", paths[2]])
                self.assert_stopped(completed, "INT")
                self.assertEqual(sorted(os.listdir(folder)), sorted(names))
                self.assertEqual(completed.stdout, b"")
                for path in paths:
                    text = report_text(path)
                    self.assertIn("INTERRUPTED", text)
                    self.assertIn("SIGINT", text)
                    self.assertNotIn("PASS", text)

    def test_signals_at_arbitrary_moments(self):
        # Delays counted from the moment run_benchmark.py's first lines have taken SIGTERM
        # over (read from /proc where there is one): before that the interpreter itself is
        # still starting (its site module), which no program can guard, and how long that
        # takes depends on the interpreter (PyPy's is slower) and on the machine's load.
        # The run goes on for 0.15 to 0.4 s from there (CPython on an idle and on a busy
        # machine; PyPy longer): the delays land at its start and within it (the last, on a
        # fast machine, near its end).
        args = large_package(self)
        for delay, number in ((0.0, signal.SIGINT), (0.05, signal.SIGTERM),
                              (0.1, signal.SIGINT), (0.2, signal.SIGTERM)):
            with self.subTest(delay=delay):
                child = subprocess.Popen([sys.executable, "-B", RUN_BENCHMARK] + args,
                                         stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                                         stderr=subprocess.PIPE)
                wait_until_catching(child.pid, signal.SIGTERM)
                time.sleep(delay)
                child.send_signal(number)
                stdout, stderr = child.communicate(timeout=120)
                self.assertIn(child.returncode, (1, 130, 143), stderr)
                self.assertNotIn(b"Traceback", stderr)


class SignalDuringInstallTests(unittest.TestCase):
    """A signal that lands while the guard takes the signals over (seen under PyPy, whose
    ``signal.signal`` runs Python code after installing a handler) is an interruption of the
    run: exit 130 or 143, every previous handler known, never a traceback."""

    def installing_with_a_signal(self, arriving):
        """``signal.signal`` as the interpreter's, but ``arriving`` is delivered to the new
        handler just after SIGINT's is installed and before the call returns; nothing is
        really installed."""
        installed = {}

        def install(number, handler):
            previous = installed.get(number, signal.getsignal(number))
            installed[number] = handler
            if number == signal.SIGINT:
                handler(arriving, None)
            return previous
        return mock.patch.object(streams.signal, "signal", install), installed

    def test_the_guard_takes_both_signals_over_before_the_interruption(self):
        patch, installed = self.installing_with_a_signal(signal.SIGINT)
        guard = streams.SignalGuard()
        with patch:
            with self.assertRaises(streams.Interrupted) as raised:
                guard.install()
        self.assertEqual(raised.exception.status, 130)
        self.assertEqual(sorted(guard._previous), sorted(installed))
        self.assertIn(signal.SIGTERM, installed)

    def test_the_command_line_ends_interrupted(self):
        for number, status in ((signal.SIGINT, 130), (signal.SIGTERM, 143)):
            with self.subTest(signal=number):
                patch, _installed = self.installing_with_a_signal(number)
                stdout, stderr = io.BytesIO(), io.StringIO()
                with patch:
                    self.assertEqual(cli.main(with_example([]), stdout=stdout, stderr=stderr,
                                              restore_signals=False), status)
                self.assertEqual(stdout.getvalue(), b"")
                self.assertNotIn("Traceback", stderr.getvalue())


class HugeNumberReportTests(unittest.TestCase):
    """Every chart ends and every JUnit time is a finite decimal for any finite input."""

    ONCE_PER_INTERPRETER = "child processes only, in plain mode"

    def test_latencies_and_gates_near_the_largest_double(self):
        largest = "1.7976931348623157e308"

        def edit(spec, cases, results):
            spec["gates"]["max_p95_latency_ms"] = "@largest@"
            spec["gates"]["max_mean_latency_ms"] = "@largest@"
            for system in results["systems"]:
                for record in system["records"]:
                    record["latency_ms"] = "@near@"

        args = _package_with(self, edit)
        _raw_number(args, 1, "@largest@", largest)
        _raw_number(args, 5, "@near@", "1.72e308")
        folder = TempDir(self).path
        paths = [os.path.join(folder, name) for name in ("r.html", "r.md", "r.xml")]
        run = run_subprocess(args + ["--html", paths[0], "--markdown", paths[1],
                                     "--junit-xml", paths[2]], timeout=60)
        self.assertEqual(run.status, 0, run.stderr)
        tree = ElementTree.parse(paths[2])
        times = [element.get("time") for element in tree.iter() if element.get("time")]
        self.assertTrue(times)
        for text in times:
            self.assertRegex(text, r"^\d+\.\d{3}$")
        with open(paths[0], "rb") as handle:
            page = handle.read().decode("utf-8")
        self.assertNotIn("inf", page.lower().replace("information", ""))


class DiagnosticTests(unittest.TestCase):
    """Messages that say what happened."""

    def test_a_nul_byte_after_the_brace_is_not_utf16(self):
        temp = TempDir(self)
        args = temp.package()
        args[1] = temp.write_bytes("nul.json", b'{\x00"schema_version": 1}')
        run = run_cli(args)
        (error,) = run.document["errors"]
        self.assertEqual((error["code"], error["line"], error["column"]), ("json.syntax", 1, 2))
        self.assertIn("NUL", error["message"])
        self.assertNotIn("UTF-16", error["message"])

    def test_an_empty_path_says_so(self):
        for option in ("--spec", "--cases", "--results"):
            with self.subTest(option=option):
                run = run_cli([option, ""])
                self.assertEqual(run.status, 2)
                (error,) = run.document["errors"]
                self.assertEqual(error["code"], "cli.usage")
                self.assertIn("%s was given an empty path" % option, error["message"])
        from proagents_bench.jsonio import load as jsonload
        with self.assertRaises(ContractErrors) as caught:
            jsonload.load_file("")
        self.assertIn("the path is empty", caught.exception.errors[0].message)
        # A report's empty path: most often a CI variable unset where the command is tried.
        run = run_cli(["--markdown-append", ""])
        self.assertEqual(run.status, 2)
        self.assertIn("$GITHUB_STEP_SUMMARY", run.document["errors"][0]["message"])

    def fifo_package(self):
        """Gate arguments for the example package, and a FIFO to pass as its spec."""
        temp = TempDir(self)
        fifo = os.path.join(temp.path, "spec.fifo")
        os.mkfifo(fifo)
        return temp.package(), fifo

    @unittest.skipUnless(hasattr(os, "mkfifo"), "POSIX FIFOs")
    def test_a_fifo_without_a_writer_fails_after_the_documented_wait(self):
        from proagents_bench.jsonio import load as jsonload
        args, fifo = self.fifo_package()
        args[1] = fifo
        with mock.patch.object(jsonload, "PIPE_WAIT_SECONDS", 0.2):
            run = run_cli(args)
        self.assertEqual(run.status, 2)
        (error,) = run.document["errors"]
        self.assertEqual(error["code"], "file.unreadable")
        self.assertIn("nothing arrived from it", error["message"])

    @unittest.skipUnless(hasattr(os, "mkfifo"), "POSIX FIFOs")
    def test_a_fifo_with_a_writer_is_read(self):
        import threading
        args, fifo = self.fifo_package()
        with open(args[1], "rb") as handle:
            data = handle.read()

        def writer():
            time.sleep(0.2)
            with open(fifo, "wb") as stream:
                stream.write(data[:100])
                stream.flush()
                time.sleep(0.1)
                stream.write(data[100:])

        thread = threading.Thread(target=writer)
        thread.start()
        args[1] = fifo
        run = run_cli(args)
        thread.join()
        self.assertEqual((run.status, run.document["action"]), (0, "PASS"))


class QuotingTests(unittest.TestCase):
    """Nothing from the input reaches the terminal raw."""

    def test_a_hostile_family_id_cannot_forge_a_line_or_clear_the_screen(self):
        spec, cases, results = example_package()
        hostile = "fam\nERROR: forged\x1b[2J\u202e" + "x" * 20000
        for case in cases["cases"]:
            if case["family_id"] == "family-refund-damaged":
                case["family_id"] = hostile
            if case["id"] == "train-refund-basic":
                case["family_id"] = hostile
        run = run_package(self, spec, cases, results)
        self.assertEqual(run.status, 2)
        lines = run.stderr.splitlines()
        self.assertEqual(len(lines), 1)
        self.assertNotIn("\x1b", run.stderr)
        self.assertNotIn("\u202e", run.stderr)
        self.assertIn('family_id="fam\\nERROR: forged\\u001b[2J\\u202e', lines[0])
        self.assertLess(len(lines[0]), 1000)
        self.assertIn("... (%d characters)" % len(hostile), lines[0])


class FileNameTests(unittest.TestCase):
    """A file name that is no text stays valid JSON and one stderr line."""

    ONCE_PER_INTERPRETER = "child processes only, in plain mode"

    @unittest.skipUnless(sys.platform.startswith("linux"), "a file name that is not UTF-8")
    def test_a_file_name_that_is_not_utf8_stays_valid_json(self):
        temp = TempDir(self)
        spec, cases, results = example_package()
        del spec["claim"]
        args = temp.package(spec, cases, results)
        raw = os.path.join(os.fsencode(temp.path), b"sp\xe9c\nx.json")
        with open(args[1], "rb") as source, open(raw, "wb") as target:
            target.write(source.read())
        args[1] = os.fsdecode(raw)
        completed = subprocess.run([os.fsencode(sys.executable), b"-B",
                                    os.fsencode(RUN_BENCHMARK)] + [os.fsencode(a) for a in args],
                                   stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                   stdin=subprocess.DEVNULL, timeout=60)
        self.assertEqual(completed.returncode, 2)
        text = completed.stdout.decode("ascii")
        self.assertNotIn("\\udc", text)
        document = json.loads(text)
        self.assertTrue(document["errors"][0]["file"].endswith("sp\\xe9c\nx.json"))
        self.assertEqual(len(completed.stderr.splitlines()), 1)
        self.assertIn(b"sp\\xe9c\\nx.json", completed.stderr)


if __name__ == "__main__":
    unittest.main()
