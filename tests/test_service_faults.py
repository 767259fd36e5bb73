"""The private-test service against hostile clients and process faults: oversized and slow
requests, malformed HTTP, a bug inside a request, SIGTERM with a request in flight, a crash
between storing and answering, kill -9 mid-request and restarts; and the ``serve``, ``team``
and ``submit`` commands with their exit statuses."""

import contextlib
import io
import json
import os
import signal
import socket
import sys
import threading
import time
import unittest

from proagents_bench.cli.status import (EXIT_CONTRACT_ERROR, EXIT_DECISION, EXIT_OVER_BUDGET,
                                        EXIT_PASS, EXIT_TERMINATED, EXIT_UNREACHABLE)
from proagents_bench.service import database, teams
from proagents_bench.version import VERSION

from . import serve_driver
from .service_support import (HTTP_TIMEOUT, ServeProcess, Service, call, raw_exchange,
                              submission_bytes, write_benchmark)
from .support import ROOT, TempDir, example_path, load_example, run_cli


def head(token, length, path="/v1/submissions"):
    return ("POST %s HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer %s\r\n"
            "Content-Type: application/json\r\nContent-Length: %s\r\n\r\n" % (
                path, token, length)).encode("ascii")


def split_reply(data):
    """(status, headers text, parsed JSON body) of a raw HTTP answer."""
    header, _, body = data.partition(b"\r\n\r\n")
    status = int(header.split(b" ", 2)[1])
    return status, header.decode("latin-1").lower(), json.loads(body.decode("utf-8"))


class HostileClientTests(unittest.TestCase):
    def setUp(self):
        self.service = Service(self, timeout=0.5, max_bytes=65536)
        self.token = self.service.team("alpha")

    def test_a_body_over_the_cap_gets_413_before_it_is_read(self):
        # Only the headers are sent: the answer comes without waiting for a gigabyte.
        status, headers, document = split_reply(raw_exchange(
            self.service.port, head(self.token, 10 ** 9), wait=5))
        self.assertEqual((status, document["code"]), (413, "service.payload_too_large"))
        self.assertIn("content-type: application/problem+json", headers)
        self.assertEqual(self.service.rows("SELECT COUNT(*) FROM submissions"), [(0,)])

    def test_a_client_that_sends_a_huge_body_before_reading_still_gets_the_answer(self):
        # The answer comes before the body is read; then the server discards the rest
        # instead of closing on unread data, which would reset the connection and destroy
        # the answer. (512 times the cap: far more than the sockets' buffers hold.)
        size = 512 * 65536
        for token, expected in ((self.token, (413, "service.payload_too_large")),
                                ("pab1.0000000000000000." + "A" * 43,
                                 (401, "service.unauthorized"))):
            with self.subTest(status=expected[0]):
                with socket.create_connection(("127.0.0.1", self.service.port),
                                              timeout=5) as sock:
                    sock.sendall(head(token, size) + b" " * size)
                    data = b""
                    while True:
                        chunk = sock.recv(65536)
                        if not chunk:
                            break
                        data += chunk
                status, headers, document = split_reply(data)
                self.assertEqual((status, document["code"]), expected)
                self.assertIn("connection: close", headers)
        self.assertEqual(self.service.rows("SELECT COUNT(*) FROM submissions"), [(0,)])

    def test_submit_reports_a_body_over_the_cap_as_refused(self):
        folder = TempDir(self)
        token_file = folder.write_bytes("token", self.token.encode("ascii"))
        huge = folder.write_bytes("huge.json", b" " * (128 * 65536))
        run = run_cli(["submit", "--url", self.service.url, "--token-file", token_file,
                       "--results", huge])
        self.assertEqual((run.status, run.document["code"]),
                         (EXIT_CONTRACT_ERROR, "service.payload_too_large"))

    def test_a_client_that_stops_reading_is_one_line_in_the_log_not_a_traceback(self):
        def endless(environ, start_response):
            start_response("200 OK", [("Content-Type", "application/json")])
            return [b" " * (1 << 20)] * 64

        self.service.server.set_app(endless)
        captured = io.StringIO()
        with contextlib.redirect_stderr(captured):
            with socket.socket() as sock:
                sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
                sock.settimeout(5)
                sock.connect(("127.0.0.1", self.service.port))
                sock.sendall(b"GET /v1/spec HTTP/1.0\r\n\r\n")
                deadline = time.monotonic() + 5
                while not self.service.logged and time.monotonic() < deadline:
                    time.sleep(0.05)  # the server's write times out (0.5 s)
        self.assertEqual(captured.getvalue(), "")
        self.assertEqual(len(self.service.logged), 1, self.service.logged)
        self.assertRegex(self.service.logged[0], r"^proagents-bench service: GET /v1/spec "
                                                 r"from 127\.0\.0\.1 port \d+ failed: ")

    def test_a_failure_outside_the_application_is_a_problem_without_a_traceback(self):
        def broken(environ, start_response):
            raise RuntimeError("secret internals")

        self.service.server.set_app(broken)
        captured = io.StringIO()
        with contextlib.redirect_stderr(captured):
            reply = self.service.call("GET", "/v1/spec")
        self.assertEqual((reply.status, reply.document["code"]),
                         (500, "service.internal_error"))
        self.assertEqual(reply.header("content-type"), "application/problem+json")
        self.assertNotIn(b"secret internals", reply.body)
        self.assertEqual(captured.getvalue(), "")
        self.assertEqual(len(self.service.logged), 1)
        self.assertIn("RuntimeError: secret internals", self.service.logged[0])

    def test_a_failure_in_the_http_layer_is_one_line_in_the_log_not_a_traceback(self):
        def broken(handler):
            raise RuntimeError("inside the HTTP layer")

        self.service.server.RequestHandlerClass.get_environ = broken
        captured = io.StringIO()
        with contextlib.redirect_stderr(captured):
            data = raw_exchange(self.service.port, b"GET /v1/spec HTTP/1.0\r\n\r\n", wait=5)
        self.assertEqual((data, captured.getvalue()), (b"", ""))
        self.assertEqual(len(self.service.logged), 1, self.service.logged)
        self.assertRegex(self.service.logged[0], r"^proagents-bench service: the connection "
                                                 r"from 127\.0\.0\.1 port \d+ ended: "
                                                 r"RuntimeError: inside the HTTP layer$")

    def test_a_stalled_body_gets_408_and_others_are_served_meanwhile(self):
        with socket.create_connection(("127.0.0.1", self.service.port), timeout=5) as slow:
            slow.sendall(head(self.token, 100) + b"{")
            self.assertEqual(self.service.call("GET", "/v1/spec").status, 200)
            started = time.monotonic()
            data = b""
            while time.monotonic() - started < 5:
                chunk = slow.recv(65536)
                if not chunk:
                    break
                data += chunk
        status, _headers, document = split_reply(data)
        self.assertEqual((status, document["code"]), (408, "service.request_timeout"))

    def test_a_client_that_trickles_its_request_meets_the_deadline(self):
        # Each byte comes well within the socket timeout (0.3 s), so only the request's
        # deadline (0.5 s) stops it: the body's with 408, the headers' by closing.
        service = Service(self, timeout=0.3, request_deadline=0.5)
        token = service.team("beta")
        for start, status in ((head(token, 100), 408),
                              (b"GET /v1/spec HTTP/1.1\r\nHost: 127.0.0.1\r\n", None)):
            with self.subTest(status=status):
                started = time.monotonic()
                with socket.create_connection(("127.0.0.1", service.port), timeout=5) as sock:
                    sock.sendall(start)
                    data = b""
                    for _ in range(50):  # 2.5 s at most: one line every 0.05 s
                        try:
                            sock.sendall(b"x" if status else b"X: y\r\n")
                        except OSError:
                            break
                        time.sleep(0.05)
                        sock.settimeout(0.001)
                        try:
                            chunk = sock.recv(65536)
                        except socket.timeout:
                            continue
                        except OSError:
                            break
                        finally:
                            sock.settimeout(5)
                        data += chunk
                        if not chunk:
                            break
                elapsed = time.monotonic() - started
                self.assertLess(elapsed, 1.5)
                if status is None:
                    self.assertEqual(data, b"")
                else:
                    got, _headers, document = split_reply(data)
                    self.assertEqual((got, document["code"]),
                                     (408, "service.request_timeout"))

    def test_a_client_that_never_finishes_its_headers_is_dropped(self):
        started = time.monotonic()
        data = raw_exchange(self.service.port, b"GET /v1/spec HTTP/1.1\r\nHost: 127", wait=5)
        self.assertEqual(data, b"")
        self.assertLess(time.monotonic() - started, 4)

    def test_malformed_requests_get_json_problems(self):
        for request, status in (
                (head(self.token, "12abc"), 400),
                (head(self.token, "1").replace(b": 1\r\n", b": \xb2\r\n"), 400),
                (head(self.token, "").replace(b"Content-Length: \r\n", b""), 411),
                (b"GET /" + b"a" * 70000 + b" HTTP/1.1\r\n\r\n", 414),
                (b"NONSENSE\r\n\r\n", 400)):
            with self.subTest(status=status):
                got, headers, document = split_reply(raw_exchange(self.service.port, request,
                                                                  wait=5))
                self.assertEqual(got, status)
                self.assertIn("application/problem+json", headers)
                self.assertIn("code", document)
        self.assertEqual(self.service.logged, [])

    def test_framing_is_refused_as_rfc_9112_says(self):
        body = submission_bytes()
        start = head(self.token, len(body))[:-2]  # the headers, without the blank line
        for extra in ("Content-Length: %d\r\n" % (len(body) - 1),
                      "Content-Length: %d\r\n" % len(body),
                      "Transfer-Encoding: chunked\r\n",
                      "Transfer-Encoding: identity\r\n"):
            with self.subTest(extra=extra):
                status, headers, document = split_reply(raw_exchange(
                    self.service.port, start + extra.encode("ascii") + b"\r\n" + body, wait=5))
                self.assertEqual((status, document["code"]), (400, "service.bad_request"))
                self.assertIn("RFC 9112", document["detail"])
                self.assertIn("content-type: application/problem+json", headers)
        listed = head(self.token, "%d, %d" % (len(body), len(body))) + body
        status, _headers, document = split_reply(raw_exchange(self.service.port, listed,
                                                               wait=5))
        self.assertEqual(status, 400)
        self.assertEqual(self.service.rows("SELECT COUNT(*) FROM submissions"), [(0,)])
        # Under another WSGI server the application refuses the pair itself.
        environ = {"REQUEST_METHOD": "POST", "PATH_INFO": "/v1/submissions",
                   "HTTP_AUTHORIZATION": "Bearer " + self.token,
                   "CONTENT_TYPE": "application/json", "CONTENT_LENGTH": str(len(body)),
                   "HTTP_TRANSFER_ENCODING": "chunked", "wsgi.input": io.BytesIO(body)}
        statuses = []
        b"".join(self.service.app(environ, lambda status, headers: statuses.append(status)))
        self.assertEqual(statuses, ["400 Bad Request"])

    def test_head_gets_the_headers_of_get_and_no_body(self):
        for path, token in (("/", None), ("/v1/spec", None), ("/v1/leaderboard", None),
                            ("/v1/team", self.token), ("/nowhere", None)):
            with self.subTest(path=path):
                got = self.service.call("GET", path, token=token)
                request = "HEAD %s HTTP/1.1\r\nHost: 127.0.0.1\r\n%s\r\n" % (
                    path, "Authorization: Bearer %s\r\n" % token if token else "")
                data = raw_exchange(self.service.port, request.encode("ascii"), wait=5)
                header, _, body = data.partition(b"\r\n\r\n")
                lines = header.decode("latin-1").split("\r\n")
                fields = dict(line.lower().split(": ", 1) for line in lines[1:])
                self.assertEqual(body, b"")
                self.assertEqual(int(lines[0].split(" ")[1]), got.status)
                self.assertEqual(fields["content-type"], got.header("content-type"))
                if path != "/":  # the page tells the time it was made
                    self.assertEqual(int(fields["content-length"]), len(got.body))
        self.assertEqual(self.service.call("HEAD", "/v1/submissions").header("allow"), None)

    def test_the_server_header_names_no_interpreter(self):
        expected = "proagents-bench/" + VERSION
        replies = [self.service.call(method, path) for method, path in (
            ("GET", "/v1/spec"), ("GET", "/nowhere"), ("HEAD", "/"), ("PUT", "/v1/spec"))]
        for reply in replies:
            self.assertEqual(reply.header("server"), expected)
        for raw in (b"GET /" + b"a" * 70000 + b" HTTP/1.1\r\n\r\n", b"NONSENSE\r\n\r\n",
                    head(self.token, "1, 2") + b"{}"):
            header = raw_exchange(self.service.port, raw, wait=5).partition(b"\r\n\r\n")[0]
            self.assertIn(("\r\nserver: %s\r\n" % expected).encode("ascii"),
                          header.lower() + b"\r\n")
            self.assertNotIn(b"python", header.lower())
            self.assertNotIn(b"pypy", header.lower())

    def test_a_body_that_is_not_json_is_415(self):
        for kind in ("text/plain", "application/x-www-form-urlencoded", "application/jsonx",
                     None):
            with self.subTest(kind=kind):
                reply = self.service.call("POST", "/v1/submissions", submission_bytes(),
                                          self.token, content_type=kind)
                self.assertEqual((reply.status, reply.document["code"]),
                                 (415, "service.unsupported_media_type"))
        for kind in ("application/json; charset=utf-8", "Application/JSON"):
            reply = self.service.call("POST", "/v1/submissions", submission_bytes(),
                                      self.token, content_type=kind)
            self.assertEqual(reply.status, 200, kind)
        self.assertEqual(self.service.rows("SELECT outcome, COUNT(*) FROM submissions "
                                           "GROUP BY outcome"), [("scored", 2)])

    def test_a_bug_inside_a_request_is_a_500_problem_without_a_traceback(self):
        def broken(team, body, audit):
            raise RuntimeError("secret internals")

        self.service.app.submitter.submit = broken
        reply = self.service.submit(self.token)
        self.assertEqual((reply.status, reply.document["code"]),
                         (500, "service.internal_error"))
        self.assertNotIn(b"Traceback", reply.body)
        self.assertNotIn(b"secret internals", reply.body)


def unused_port():
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


class CommandTests(unittest.TestCase):
    def test_team_commands(self):
        data = TempDir(self).path
        database.open_database(data)  # as serve makes it
        added = run_cli(["team", "add", "alpha", "--budget", "2/1h", "--level", "rounded",
                         "--data", data])
        self.assertEqual(added.status, EXIT_PASS, added.stderr)
        self.assertTrue(added.document["token"].startswith("pab1."))
        changed = run_cli(["team", "set", "alpha", "--level", "verdict", "--data", data])
        self.assertEqual(changed.document, {"team": "alpha", "budget": "2/1h",
                                            "feedback_level": "verdict", "revoked": False,
                                            "rounding_step": None})
        rotated = run_cli(["team", "rotate", "alpha", "--data", data]).document["token"]
        self.assertNotEqual(rotated, added.document["token"])
        self.assertEqual(run_cli(["team", "revoke", "alpha", "--data", data]).status, 0)
        listed = run_cli(["team", "list", "--data", data]).document["teams"]
        self.assertEqual([(team["team"], team["revoked"]) for team in listed],
                         [("alpha", True)])
        for arguments in (["add", "alpha"], ["set", "alpha", "--budget", "3/forever"],
                          ["rotate", "nobody"], ["add", "bad name"]):
            failed = run_cli(["team"] + arguments + ["--data", data])
            self.assertEqual(failed.status, EXIT_CONTRACT_ERROR)
            self.assertEqual(failed.document["errors"][0]["code"], "cli.team")

    def test_a_data_folder_without_the_database_is_refused_and_nothing_made(self):
        # A mistyped --data: serve makes the database, restore a new folder; every other
        # command that works on the database refuses a folder without one.
        folder = TempDir(self).path
        empty = os.path.join(folder, "empty")
        os.mkdir(empty)
        files = ["--spec", example_path("benchmark_spec.json"), "--cases",
                 example_path("benchmark_cases.json"), "--baseline",
                 example_path("benchmark_results_pass.json")]
        commands = [["team", "add", "alpha"], ["team", "rotate", "alpha"],
                    ["team", "revoke", "alpha"], ["team", "set", "alpha", "--level", "verdict"],
                    ["team", "list"], ["phase", "open", "--name", "p"] + files,
                    ["phase", "close"] + files, ["phase", "status"],
                    ["backup", "--to", os.path.join(folder, "copy.sqlite3")]]
        for data, what in ((os.path.join(folder, "nodir"), "no such folder"),
                           (empty, "no service database here (no service.sqlite3)")):
            for words in commands:
                with self.subTest(command=" ".join(words[:2]), data=os.path.basename(data)):
                    run = run_cli(words + ["--data", data])
                    error = run.document["errors"][0]
                    self.assertEqual((run.status, error["code"], error["file"]),
                                     (EXIT_CONTRACT_ERROR, "cli.no_database", data))
                    self.assertTrue(run.stderr.startswith("ERROR: usage: %s: %s: " % (
                        data, what)), run.stderr)
                    self.assertIn("(serve --data DIR creates one", error["message"])
        self.assertEqual((os.listdir(folder), os.listdir(empty)), (["empty"], []))
        os.mkdir(os.path.join(folder, "service-data"))
        near = run_cli(["team", "list", "--data", os.path.join(folder, "service-dat")])
        self.assertIn('service-data"?)', near.document["errors"][0]["message"])

    def test_submit_exit_statuses(self):
        service = Service(self)
        folder = TempDir(self)
        token_file = folder.write_bytes("token", (service.team(
            "alpha", budget="2/24h", level="verdict") + "\n").encode("ascii"))
        regression = folder.write_bytes("regression.json", submission_bytes(
            load_example("benchmark_results_regression.json")))
        passing = folder.write_bytes("pass.json", submission_bytes())
        broken = folder.write_bytes("broken.json", b'{"schema_version": 1}')
        base = ["submit", "--url", service.url, "--token-file", token_file, "--results"]
        passed = run_cli(base + [passing])
        self.assertEqual((passed.status, passed.document["action"]), (EXIT_PASS, "PASS"))
        contract = run_cli(base + [broken])
        self.assertEqual(contract.status, EXIT_CONTRACT_ERROR)
        # The service calls the file submission.json; the command line says the file sent.
        self.assertTrue(contract.stderr.startswith("ERROR: %s:1:20: $.schema_version: " % (
            broken)), contract.stderr)
        self.assertEqual(contract.document["errors"][0]["file"], "submission.json")
        said = run_cli(base + [broken, "--format", "text"])  # as at a terminal
        self.assertEqual((said.status, said.stderr), (EXIT_CONTRACT_ERROR, contract.stderr))
        self.assertEqual(said.stdout, b"CONTRACT_ERROR (exit 2): the inputs or the command "
                                      b"line break the contract: no decision was made; 1 "
                                      b"error on stderr\n")
        decided = run_cli(base + [regression, "--format", "text"])  # as at a terminal
        self.assertEqual(decided.status, EXIT_DECISION)
        self.assertTrue(decided.stdout.startswith(b"action: BLOCK\n"), decided.stdout)
        self.assertIn(b"\nreasons:\n  - hard gate failed: ", decided.stdout)
        self.assertTrue(decided.stdout.endswith(b"\nThe JSON document: --format json.\n"))
        over = run_cli(base + [passing])
        self.assertEqual((over.status, over.document["code"]),
                         (EXIT_OVER_BUDGET, "service.over_budget"))
        wrong = folder.write_bytes("wrong", b"pab1.0000000000000000." + b"A" * 43)
        refused = run_cli(["submit", "--url", service.url, "--token-file", wrong,
                           "--results", passing])
        self.assertEqual((refused.status, refused.document["code"]),
                         (EXIT_CONTRACT_ERROR, "service.unauthorized"))
        refused = run_cli(["submit", "--url", service.url, "--token-file", wrong,
                           "--results", passing, "--format", "text"])  # the problem's lines
        self.assertIn(b"\ncode: service.unauthorized\n", b"\n" + refused.stdout)
        self.assertTrue(refused.stdout.endswith(b"\nThe JSON document: --format json.\n"))
        gone = run_cli(["submit", "--url", "http://127.0.0.1:%d" % unused_port(),
                        "--token-file", token_file, "--results", passing])
        self.assertEqual((gone.status, gone.stdout), (EXIT_UNREACHABLE, b""))

    def test_serve_refuses_files_that_break_the_contract(self):
        folder = TempDir(self).path
        spec, cases, baseline = write_benchmark(folder, load_example(
            "benchmark_cases_contract_error.json"))
        run = run_cli(["serve", "--spec", spec, "--cases", cases, "--baseline", baseline,
                       "--data", os.path.join(folder, "data"), "--port", "0"])
        self.assertEqual(run.status, EXIT_CONTRACT_ERROR)
        self.assertEqual(run.document["errors"][0]["code"], "cases.split_contamination")

    def test_serve_refuses_a_baseline_that_ran_under_another_protocol(self):
        folder = TempDir(self).path
        results = load_example("benchmark_results_pass.json")
        results["systems"][0]["protocol"]["max_steps"] = 9
        spec, cases, baseline = write_benchmark(folder, None, results)
        run = run_cli(["serve", "--spec", spec, "--cases", cases, "--baseline", baseline,
                       "--data", os.path.join(folder, "data"), "--port", "0"])
        self.assertEqual(run.status, EXIT_CONTRACT_ERROR)
        self.assertEqual(run.document["errors"][0]["code"], "cli.baseline_protocol")
        self.assertIn("baseline-v1.max_steps: expected=8, actual=9",
                      run.document["errors"][0]["message"])

    def test_serve_refuses_a_sequential_design(self):
        folder = TempDir(self).path
        with open(os.path.join(ROOT, "tests", "corpus", "valid", "spec",
                               "spec_v5_sequential_one_look.json"), "rb") as handle:
            spec = json.loads(handle.read().decode("utf-8"))
        spec_path, cases, baseline = write_benchmark(folder, spec=spec)
        run = run_cli(["serve", "--spec", spec_path, "--cases", cases, "--baseline", baseline,
                       "--data", os.path.join(folder, "data"), "--port", "0"])
        self.assertEqual(run.status, EXIT_CONTRACT_ERROR)
        self.assertEqual(run.document["errors"][0]["code"], "cli.serve_sequential")


@unittest.skipIf(sys.platform == "win32", "POSIX signals")
class ProcessTests(unittest.TestCase):
    """The ``serve`` command as a real child process."""

    def setUp(self):
        self.folder = TempDir(self).path
        write_benchmark(self.folder)
        self.db = database.open_database(os.path.join(self.folder, "data"))

    def test_sigterm_lets_the_request_in_flight_finish(self):
        token = teams.add(self.db, "alpha", "5/24h", "verdict")
        server = ServeProcess(self, self.folder)
        body = submission_bytes()
        with socket.create_connection(("127.0.0.1", server.port), timeout=HTTP_TIMEOUT) as sock:
            sock.sendall(head(token, len(body)) + body[:100])
            time.sleep(0.2)  # the request is being read
            server.process.send_signal(signal.SIGTERM)
            time.sleep(0.2)
            sock.sendall(body[100:])
            data = b""
            while True:
                chunk = sock.recv(65536)
                if not chunk:
                    break
                data += chunk
        status, _headers, document = split_reply(data)
        self.assertEqual((status, document["action"]), (200, "PASS"))
        self.assertEqual(server.wait(), EXIT_TERMINATED)
        self.assertIn(b"stopped", server.process.stderr.read())

    def test_two_processes_on_one_data_folder_spend_the_budget_exactly(self):
        # As several WSGI workers would: the budget is counted under SQLite's write lock,
        # which no in-process lock replaces across processes.
        token = teams.add(self.db, "alpha", "3/24h", "verdict")
        ports = [ServeProcess(self, self.folder).port for _ in range(2)]
        statuses = []
        body = submission_bytes()

        def submit(port):
            statuses.append(call(port, "POST", "/v1/submissions", body, token).status)

        threads = [threading.Thread(target=submit, args=(ports[index % 2],))
                   for index in range(10)]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join(HTTP_TIMEOUT)
        self.assertEqual(sorted(statuses), [200] * 3 + [429] * 7)
        with database.connection(self.db) as opened:
            self.assertEqual(opened.execute(
                "SELECT outcome, COUNT(*) FROM submissions GROUP BY outcome ORDER BY outcome"
            ).fetchall(), [("over_budget", 7), ("scored", 3)])

    def test_a_crash_or_kill_loses_nothing_and_spends_the_budget_right(self):
        token = teams.add(self.db, "alpha", "2/24h", "ladder")
        # The process ends the moment a scored submission is answered: committed, not sent.
        crashing = ServeProcess(self, self.folder, fault="crash-after-store")
        self.assertEqual(call(crashing.port, "POST", "/v1/submissions", b"{}", token).status,
                         422)  # stored, not scored: the fault waits for a scored one
        with self.assertRaises((ConnectionError, OSError)):
            call(crashing.port, "POST", "/v1/submissions", submission_bytes(), token)
        self.assertEqual(crashing.wait(), serve_driver.EXIT_STATUS)
        with database.connection(self.db) as opened:  # the audit row came with the submission
            self.assertEqual(opened.execute("SELECT method, status, code FROM audit ORDER BY id"
                                            ).fetchall(),
                             [("POST", 422, "service.contract_error"), ("POST", 200, None)])

        killed = ServeProcess(self, self.folder)
        body = submission_bytes()
        with socket.create_connection(("127.0.0.1", killed.port), timeout=HTTP_TIMEOUT) as sock:
            sock.sendall(head(token, len(body)) + body[:-10])
            time.sleep(0.2)
            killed.process.kill()  # SIGKILL, mid-request
            self.assertEqual(killed.wait(), -signal.SIGKILL)

        restarted = ServeProcess(self, self.folder)
        listed = call(restarted.port, "GET", "/v1/submissions", token=token).document
        self.assertEqual([entry["outcome"] for entry in listed["submissions"]],
                         ["contract_error", "scored"])
        first = listed["submissions"][1]["submission_id"]
        stored = call(restarted.port, "GET", "/v1/submissions/%d" % first, token=token)
        self.assertEqual(stored.document["answer"]["ladder"]["score"], 1.0)
        statuses = [call(restarted.port, "POST", "/v1/submissions", submission_bytes(),
                         token).status for _ in range(2)]
        self.assertEqual(statuses, [200, 429])  # the crashed submission counted
        listed = call(restarted.port, "GET", "/v1/submissions", token=token).document
        self.assertEqual([entry["outcome"] for entry in listed["submissions"]],
                         ["contract_error", "scored", "scored", "over_budget"])
        with database.connection(self.db) as opened:
            self.assertEqual(opened.execute("PRAGMA integrity_check").fetchone()[0], "ok")
        restarted.process.send_signal(signal.SIGTERM)
        self.assertEqual(restarted.wait(), EXIT_TERMINATED)


if __name__ == "__main__":
    unittest.main()
