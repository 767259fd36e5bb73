"""Helpers of the private-test service's tests: a benchmark in a temporary folder, the real
server on a free loopback port (in a thread, or as a ``serve`` child process), and HTTP.

Every loop is bounded and every wait has a timeout; every socket, connection and server is
closed (the suite runs under ``-W error``).
"""

import copy
import http.client
import json
import os
import socket
import subprocess
import sys
import threading
import time

from proagents_bench.service import database, teams
from proagents_bench.service.app import ServiceApp
from proagents_bench.service.server import make_server
from proagents_bench.service.benchmark import Benchmark

from .support import RUN_BENCHMARK, TempDir, example_package, load_example
from .test_package_evidence import cases_v2, results_v3, system

HTTP_TIMEOUT = 30.0
JSON = "application/json"


def candidate_only(results):
    """The results package with its baseline removed: what a team submits."""
    results = copy.deepcopy(results)
    results["systems"] = [system for system in results["systems"]
                          if system["role"] == "candidate"]
    return results


def submission_bytes(results=None):
    if results is None:
        results = example_package()[2]
    return json.dumps(candidate_only(results), indent=1).encode("utf-8")


def failing(results, case_ids):
    """``results`` with every trial of ``case_ids`` given a wrong final state."""
    results = copy.deepcopy(results)
    for system in results["systems"]:
        for record in system["records"]:
            if record["case_id"] in case_ids:
                record["final_state"] = "wrong-state"
    return results


def secret_cases():
    """The example's cases with every test case's withheld values made unique markers, so a
    response that holds one of them has leaked it."""
    cases = load_example("benchmark_cases.json")
    for case in cases["cases"]:
        if case["split"] == "test":
            case["expected_final_state"] = "secret-state-%s" % case["id"]
            case["forbidden_side_effects"] = ["secret-effect-%s-a" % case["id"],
                                              "secret-effect-%s-b" % case["id"]]
    return cases


def secret_baseline(cases):
    """The example's PASS package whose baseline passes the secret ``cases`` (its test records
    hold the expected final states) and whose test records' side effects are markers too:
    what the baseline observed is as private as the answers."""
    results = load_example("benchmark_results_pass.json")
    expected = {case["id"]: case["expected_final_state"] for case in cases["cases"]
                if case["split"] == "test"}
    for system in results["systems"]:
        if system["role"] == "baseline":
            for record in system["records"]:
                if record["case_id"] in expected:
                    record["final_state"] = expected[record["case_id"]]
                    record["side_effects"] = ["secret-observed-%s-%d" % (
                        record["case_id"], record["trial_id"])]
    return results


def evidence_package():
    """(cases, results) of a benchmark whose files carry findings of their own: cases v2
    declaring the development split absent, and a results v3 package whose baseline
    recorded a trial as unknown."""
    def recorded_unknown(results):
        chosen = system(results, "baseline")
        record = chosen["records"][2]
        record.update(status="unknown", final_state=None, side_effects=[], tools_used=[],
                      latency_ms=None, cost_units=None)
        chosen["provenance"].update(missing_as="unknown", recorded_unknown=[
            {"case_id": record["case_id"], "trial_id": record["trial_id"]}])

    return cases_v2(["development"], drop=("development",)), results_v3(recorded_unknown)


def write_benchmark(folder, cases=None, results=None, spec=None):
    """The maintainer's three files (the example's, or the given spec, cases and baseline
    package) as ``spec.json``, ``cases.json`` and ``baseline.json`` in ``folder``; their
    paths."""
    default_spec, default_cases, default_results = example_package()
    paths = []
    for name, value in (("spec.json", spec or default_spec),
                        ("cases.json", cases or default_cases),
                        ("baseline.json", results or default_results)):
        path = os.path.join(folder, name)
        with open(path, "wb") as handle:
            handle.write(json.dumps(value, indent=1).encode("utf-8"))
        paths.append(path)
    return paths


class Service:
    """A running service (in this process, on a thread) on a free loopback port."""

    def __init__(self, test, cases=None, timeout=5.0, max_bytes=None, folder=None,
                 results=None, request_deadline=30.0, spec=None):
        self.folder = folder or TempDir(test).path
        self.spec_path, self.cases_path, self.baseline_path = write_benchmark(
            self.folder, cases, results, spec)
        self.data = os.path.join(self.folder, "data")
        self.db = database.open_database(self.data)
        self.benchmark = Benchmark(self.spec_path, self.cases_path, self.baseline_path)
        options = {} if max_bytes is None else {"max_submission_bytes": max_bytes}
        self.app = ServiceApp(self.benchmark, self.db, **options)
        self.logged = []  # the server's one-line reports of failed connections
        self.server = make_server(self.app, "127.0.0.1", 0, timeout, log=self.logged.append,
                                  request_deadline=request_deadline)
        self.port = self.server.server_port
        self.thread = threading.Thread(target=self.server.serve_forever,
                                       kwargs={"poll_interval": 0.05})
        self.thread.start()
        test.addCleanup(self.stop)

    def stop(self):
        self.server.shutdown()
        self.server.server_close()
        self.thread.join(HTTP_TIMEOUT)

    def team(self, name, budget="100/24h", level="full"):
        return teams.add(self.db, name, budget, level)

    @property
    def url(self):
        return "http://127.0.0.1:%d" % self.port

    def call(self, method, path, body=None, token=None, headers=None, content_type=JSON):
        return call(self.port, method, path, body, token, headers, content_type)

    def submit(self, token, body=None):
        return self.call("POST", "/v1/submissions",
                         submission_bytes() if body is None else body, token)

    def rows(self, query, parameters=()):
        with database.connection(self.db) as opened:
            return opened.execute(query, parameters).fetchall()


class Reply:
    def __init__(self, status, headers, body):
        self.status = status
        self.headers = headers
        self.body = body

    @property
    def document(self):
        return json.loads(self.body.decode("utf-8"))

    def header(self, name):
        return self.headers.get(name.lower())


def call(port, method, path, body=None, token=None, headers=None, content_type=JSON):
    """One HTTP request to 127.0.0.1:port; the :class:`Reply`. A body goes as
    ``content_type`` (none: None)."""
    connection = http.client.HTTPConnection("127.0.0.1", port, timeout=HTTP_TIMEOUT)
    try:
        sent = dict(headers or {})
        if body is not None and content_type is not None:
            sent.setdefault("Content-Type", content_type)
        if token is not None:
            sent["Authorization"] = "Bearer " + token
        connection.request(method, path, body=body, headers=sent)
        response = connection.getresponse()
        return Reply(response.status, {key.lower(): value for key, value in
                                       response.getheaders()}, response.read())
    finally:
        connection.close()


def raw_exchange(port, data, wait=HTTP_TIMEOUT):
    """Send raw bytes, then read until the server closes (or ``wait`` passes); the bytes."""
    with socket.create_connection(("127.0.0.1", port), timeout=wait) as sock:
        sock.sendall(data)
        received = []
        deadline = time.monotonic() + wait
        while time.monotonic() < deadline:
            try:
                chunk = sock.recv(65536)
            except socket.timeout:
                break
            if not chunk:
                break
            received.append(chunk)
        return b"".join(received)


SERVE_DRIVER = os.path.join(os.path.dirname(os.path.abspath(__file__)), "serve_driver.py")


class ServeProcess:
    """``run_benchmark.py serve`` as a child process, on a free port; its first stdout line
    names the port. With ``fault`` (a point of ``serve_driver.py``), the same command with
    that fault injected into its application."""

    def __init__(self, test, service_folder, env=None, timeout="5", fault=None):
        spec = os.path.join(service_folder, "spec.json")
        cases = os.path.join(service_folder, "cases.json")
        baseline = os.path.join(service_folder, "baseline.json")
        full_env = dict(os.environ)
        full_env.update(env or {})
        program = [RUN_BENCHMARK] if fault is None else [SERVE_DRIVER, fault, "--"]
        self.process = subprocess.Popen(
            [sys.executable, "-B"] + program + [
                "serve", "--spec", spec, "--cases", cases, "--baseline", baseline, "--data",
                os.path.join(service_folder, "data"), "--port", "0", "--timeout", timeout],
            stdout=subprocess.PIPE, stderr=subprocess.PIPE, stdin=subprocess.DEVNULL,
            env=full_env)
        test.addCleanup(self.close)
        line = self.process.stdout.readline().decode("ascii", "replace")
        marker = "http://127.0.0.1:"
        if marker not in line:
            self.process.kill()
            raise AssertionError("serve did not start: %r %r" % (
                line, self.process.stderr.read()))
        self.port = int(line.split(marker)[1].split("/")[0])

    def wait(self, timeout=HTTP_TIMEOUT):
        return self.process.wait(timeout)

    def close(self):
        if self.process.poll() is None:
            self.process.kill()
        self.process.wait(HTTP_TIMEOUT)
        self.process.stdout.close()
        self.process.stderr.close()
