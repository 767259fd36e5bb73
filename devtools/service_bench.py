"""The private-test service's load benchmark: ``python -B -m devtools bench service``.

It writes a benchmark (the shipped example by default, or a synthetic package of
``--tasks`` x ``--trials``) to a temporary folder, adds one team with a budget no run can
spend, starts ``run_benchmark.py serve`` as a child process on a free loopback port, and
sends ``--requests`` submissions of the candidate's records from ``--concurrency`` client
threads (each request a new connection, as the ``submit`` command makes). It prints the
requests per second over the whole run, the median, p95 and slowest latency of the
submissions, and the count of answers that were not 200 (errors). Then it stops the server
with SIGTERM. The clients run in this process and the server in its own, so the figures
are the server's, on a machine shared with its clients.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import tempfile
import threading
import time
from fractions import Fraction
from typing import IO, TYPE_CHECKING, Callable, Dict, List, Optional, cast

from proagents_bench.jsonio import JSONObject
from proagents_bench.service import database, teams
from proagents_bench.stats.quantiles import nearest_rank
from . import ROOT
from .synthetic import make_package

if TYPE_CHECKING:  # for annotations only
    import argparse

SERVE_START_SECONDS = 60.0
UNSPENDABLE_BUDGET = "999999/1s"
EXAMPLES = os.path.join(ROOT, "examples")


def _example_package() -> List[JSONObject]:
    parts: List[JSONObject] = []
    for name in ("benchmark_spec.json", "benchmark_cases.json", "benchmark_results_pass.json"):
        with open(os.path.join(EXAMPLES, name), "rb") as handle:
            parts.append(json.loads(handle.read().decode("utf-8")))
    return parts


class ServeChild:
    """``run_benchmark.py serve`` as a child process on a free loopback port (``port``), its
    stderr in ``log_path`` (a pipe nobody reads while a load runs would fill with its log
    lines and stop the server); :meth:`stop` ends it with SIGTERM."""

    def __init__(self, python: str, paths: Dict[str, str], data: str, log_path: str) -> None:
        self.log_path = log_path
        self.port: Optional[int] = None
        with open(log_path, "wb") as log:
            self.process = subprocess.Popen(
                [python, "-B", os.path.join(ROOT, "run_benchmark.py"), "serve",
                 "--spec", paths["spec"], "--cases", paths["cases"], "--baseline",
                 paths["baseline"], "--data", data, "--port", "0"],
                stdout=subprocess.PIPE, stderr=log, stdin=subprocess.DEVNULL)
        self.stdout = cast("IO[bytes]", self.process.stdout)  # a pipe: stdout=PIPE
        line = self.stdout.readline().decode("ascii", "replace")
        marker = "http://127.0.0.1:"
        if marker in line:
            self.port = int(line.split(marker)[1].split("/")[0])

    def failure(self) -> str:
        """Why the server did not start (its last words, from the log)."""
        try:
            self.process.wait(SERVE_START_SECONDS)
        except subprocess.TimeoutExpired:
            pass
        with open(self.log_path, "rb") as log:
            return "the service did not start: %s" % log.read().decode("utf-8",
                                                                      "replace").strip()

    def stop(self) -> None:
        if self.process.poll() is None:
            self.process.terminate()
            try:
                self.process.wait(SERVE_START_SECONDS)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()
        self.stdout.close()


def write_files(folder: str, spec: JSONObject, cases: JSONObject,
                results: JSONObject) -> Dict[str, str]:
    """The maintainer's three files in ``folder``; their paths by kind."""
    paths: Dict[str, str] = {}
    for name, value in (("spec", spec), ("cases", cases), ("baseline", results)):
        paths[name] = os.path.join(folder, name + ".json")
        with open(paths[name], "wb") as handle:
            handle.write(json.dumps(value).encode("utf-8"))
    return paths


def service_benchmark(options: argparse.Namespace, say: Callable[[str], None]) -> bool:
    """Run the load of ``options`` (tasks, trials, requests, concurrency, python: the command
    line's ``bench service``) and ``say`` the figures; False when the server could not be
    started or a request failed."""
    tasks, trials, python = options.tasks, options.trials, options.python
    requests, concurrency = options.requests, options.concurrency
    import http.client
    folder = tempfile.mkdtemp(prefix="proagents-service-bench-")
    server = None
    try:
        if tasks is None:
            spec, cases, results = _example_package()
            label = "the shipped example (5 test tasks x 3 trials)"
        else:
            spec, cases, results = make_package(tasks, trial_count=trials, samples=1000)
            label = "a synthetic package (%d test tasks x %d trials)" % (tasks, trials)
        paths = write_files(folder, spec, cases, results)
        submission = dict(results)
        submission["systems"] = [system for system in results["systems"]
                                 if system["role"] == "candidate"]
        body = json.dumps(submission).encode("utf-8")
        data = os.path.join(folder, "data")
        token = teams.add(database.open_database(data), "bench", UNSPENDABLE_BUDGET, "ladder")
        server = ServeChild(python, paths, data, os.path.join(folder, "serve.log"))
        if server.port is None:
            say(server.failure())
            return False
        port = server.port
        latencies: List[float] = []
        failures: Dict[str, int] = {}
        lock = threading.Lock()
        counter = iter(range(requests))

        def client() -> None:
            while True:
                with lock:
                    if next(counter, None) is None:
                        return
                started = time.perf_counter()
                connection = http.client.HTTPConnection("127.0.0.1", port, timeout=120)
                try:
                    connection.request("POST", "/v1/submissions", body=body, headers={
                        "Authorization": "Bearer " + token,
                        "Content-Type": "application/json"})
                    response = connection.getresponse()
                    response.read()
                    outcome = None if response.status == 200 else "HTTP %d" % response.status
                except OSError as problem:
                    outcome = type(problem).__name__
                finally:
                    connection.close()
                elapsed = time.perf_counter() - started
                with lock:
                    latencies.append(elapsed)
                    if outcome is not None:
                        failures[outcome] = failures.get(outcome, 0) + 1

        threads = [threading.Thread(target=client) for _ in range(concurrency)]
        started = time.perf_counter()
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
        wall = time.perf_counter() - started
        say("package: %s; submission %d bytes" % (label, len(body)))
        say("requests: %d from %d concurrent clients in %.2f s: %.1f requests/s" % (
            len(latencies), concurrency, wall, len(latencies) / wall))
        say("latency: median %.1f ms, p95 %.1f ms, max %.1f ms" % (
            1000 * nearest_rank(sorted(latencies), Fraction(1, 2)),
            1000 * nearest_rank(sorted(latencies), Fraction(95, 100)),
            1000 * max(latencies)))
        say("errors: %s" % (", ".join("%s x%d" % (name, count) for name, count in
                                      sorted(failures.items())) or "none"))
        say("server: %s %s" % (os.path.basename(python), sys.platform))
        return not failures
    finally:
        if server is not None:
            server.stop()
        shutil.rmtree(folder, ignore_errors=True)
