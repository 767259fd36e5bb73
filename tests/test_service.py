"""The private-test service, over real HTTP on a free loopback port: what it publishes, the
submissions through the real gate, budgets, feedback levels, tokens, the audit log, the
database and the leaderboard. (Hostile clients and the process-level faults are in
test_service_faults.py.)"""

import importlib.util
import io
import json
import os
import re
import sqlite3
import threading
import unittest
from html.parser import HTMLParser
from wsgiref import validate

from proagents_bench import pipeline
from proagents_bench.cli import gate_command
from proagents_bench.contract.inputs import FILE_KINDS
from proagents_bench.service import budget, database, feedback, phases, public, teams, tokens
from proagents_bench.service.app import ServiceApp, SetupError, create_app
from proagents_bench.service.audit import AuditEntry
from proagents_bench.service.problems import PROBLEMS
from proagents_bench.service.benchmark import Benchmark

from .service_support import (Service, call, failing, secret_baseline, secret_cases,
                              submission_bytes, write_benchmark)
from .support import ROOT, TempDir, example_package, load_example
from .test_package_evidence import results_v3


def local_document(results=None):
    """The gate's document for the example spec and cases with ``results`` (the example's
    PASS package by default), run locally."""
    inputs = gate_command.default_inputs()
    if results is not None:
        inputs[2] = pipeline.InputFile("results", None, "results.json",
                                       data=json.dumps(results).encode("utf-8"))
    return pipeline.evaluate(inputs).document


class PublishedTests(unittest.TestCase):
    def setUp(self):
        self.service = Service(self)

    def test_the_spec_is_published_whole(self):
        reply = self.service.call("GET", "/v1/spec")
        self.assertEqual(reply.status, 200)
        self.assertEqual(reply.header("content-type"), "application/json")
        self.assertEqual(reply.document, load_example("benchmark_spec.json"))

    def test_the_public_cases_withhold_what_grades_a_test_case(self):
        reply = self.service.call("GET", "/v1/cases")
        self.assertEqual(reply.status, 200)
        shown = {case["id"]: case for case in reply.document["cases"]}
        for case in load_example("benchmark_cases.json")["cases"]:
            if case["split"] == "test":
                expected = {key: value for key, value in case.items()
                            if key not in ("expected_final_state", "forbidden_side_effects")}
                self.assertEqual(shown[case["id"]], expected)
            else:
                self.assertEqual(shown[case["id"]], case)
        self.assertEqual(reply.document["withheld_from_test_cases"],
                         ["expected_final_state", "forbidden_side_effects"])

    def test_the_grader_interface_holds_the_schemas_and_rules(self):
        document = self.service.call("GET", "/v1/grader").document
        # the gate's files only: the import mapping is never graded
        self.assertEqual(sorted(document["schemas"]), ["cases", "decision", "results", "spec"])
        self.assertIn("expected_final_state", document["grading_rules"])
        self.assertEqual(document["feedback_levels"], list(feedback.LEVELS))
        self.assertEqual(self.service.call("GET", "/v1").status, 200)
        # Every results version the gate reads is named (from the contract's table), and
        # the one this service takes, its baseline's.
        versions = list(FILE_KINDS["results"])
        self.assertEqual(len(versions), 6)
        self.assertIn("(agent-benchmark-results-v1, -v2, -v3, -v4, -v5 or -v6)",
                      document["submission"])
        self.assertIn("baseline package: agent-benchmark-results-v1.", document["submission"])
        self.assertEqual(document["submission_schema_version"], "agent-benchmark-results-v1")
        self.assertEqual(public.versions_text(versions[:2]),
                         "agent-benchmark-results-v1 or -v2")


class SubmissionTests(unittest.TestCase):
    def setUp(self):
        self.service = Service(self)

    def test_a_submission_runs_the_same_gate_as_the_command_line(self):
        token = self.service.team("maintainers", level="full")
        for results in (None, load_example("benchmark_results_regression.json")):
            body = submission_bytes(results)
            reply = self.service.submit(token, body)
            self.assertEqual(reply.status, 200, reply.body)
            served = reply.document["decision"]
            local = local_document(results)
            self.assertEqual(served["action"], local["action"])
            for key in ("reasons", "findings", "candidate_metrics", "baseline_metrics"):
                self.assertEqual(served[key], local[key])
            again = self.service.submit(token, body).document["decision"]
            self.assertEqual(again, served)  # the same submission, the same document

    def test_a_contract_error_names_the_submission_and_spends_nothing(self):
        token = self.service.team("alpha", budget="1/24h", level="verdict")
        results = example_package()[2]
        results["systems"][1]["records"][4]["latency_ms"] = "slow"
        body = submission_bytes(results)
        reply = self.service.submit(token, body)
        self.assertEqual(reply.status, 422)
        self.assertEqual(reply.header("content-type"), "application/problem+json")
        document = reply.document
        self.assertEqual(document["code"], "service.contract_error")
        self.assertEqual(document["action"], "CONTRACT_ERROR")
        error = document["errors"][0]
        self.assertEqual((error["file"], error["path"], error["code"]),
                         ("submission.json", "$.systems[0].records[4].latency_ms",
                          "schema.type"))
        line = body.decode("utf-8").splitlines()[error["line"] - 1]
        self.assertTrue(line[error["column"] - 1:].startswith('"slow"'))
        bad_json = self.service.submit(token, b'{"systems": [}')
        self.assertEqual(bad_json.document["errors"][0]["file"], "submission.json")
        self.assertEqual(self.service.submit(token).status, 200)  # the budget of 1 is intact
        self.assertEqual(self.service.rows(
            "SELECT outcome FROM submissions ORDER BY id"),
            [("contract_error",), ("contract_error",), ("scored",)])

    def test_a_submission_carries_no_baseline(self):
        token = self.service.team("alpha")
        reply = self.service.submit(token, json.dumps(example_package()[2]).encode("utf-8"))
        self.assertEqual(reply.status, 422)
        self.assertEqual([(error["code"], error["path"]) for error in reply.document["errors"]],
                         [("submission.baseline_given", "$.systems[0].role")])

    def test_a_submission_uses_the_baselines_results_version(self):
        token = self.service.team("alpha")
        results = example_package()[2]
        results["schema_version"] = "agent-benchmark-results-v2"
        reply = self.service.submit(token, submission_bytes(results))
        self.assertEqual([(error["code"], error["path"]) for error in reply.document["errors"]],
                         [("version.mismatch", "$.schema_version")])

    def test_a_results_v3_baseline_takes_v3_submissions_with_unmeasured_costs(self):
        # What the import writes (results v3: a harness that records no cost or latency
        # leaves them null) is served as any other baseline; the gate, not the service, says
        # that an unmeasured gate was not judged.
        def unmeasured(results):
            for system in results["systems"]:
                for record in system["records"]:
                    record["cost_units"] = None

        results = results_v3(unmeasured)
        service = Service(self, results=results)
        token = service.team("alpha")
        reply = service.submit(token, submission_bytes(results))
        self.assertEqual(reply.status, 200, reply.document)
        self.assertEqual(reply.document["action"], "REVIEW")
        older = dict(results, schema_version="agent-benchmark-results-v2")
        refused = service.submit(token, submission_bytes(older))
        self.assertEqual([error["code"] for error in refused.document["errors"]],
                         ["version.mismatch"])

    def test_the_budget_refuses_with_429_and_retry_after(self):
        token = self.service.team("alpha", budget="2/1h", level="verdict")
        self.assertEqual([self.service.submit(token).status for _ in range(2)], [200, 200])
        refused = self.service.submit(token)
        self.assertEqual(refused.status, 429)
        self.assertEqual(refused.document["code"], "service.over_budget")
        wait = int(refused.header("retry-after"))
        self.assertTrue(3590 <= wait <= 3600, wait)
        outcomes = self.service.rows("SELECT outcome FROM submissions ORDER BY id")
        self.assertEqual(outcomes, [("scored",), ("scored",), ("over_budget",)])

    def test_the_window_rolls(self):
        token = self.service.team("alpha", budget="1/1h", level="verdict")
        self.assertEqual(self.service.submit(token).status, 200)
        with database.connection(self.service.db) as opened:  # an hour and a second ago
            opened.execute("UPDATE submissions SET received_at = received_at - 3601")
        self.assertEqual(self.service.submit(token).status, 200)
        self.assertEqual(self.service.submit(token).status, 429)
        self.assertEqual(budget.retry_after([100.0, 50.0], 60, 100.0), 10)

    def test_fifty_concurrent_submissions_with_a_budget_of_three_score_three(self):
        token = self.service.team("alpha", budget="3/24h", level="rounded")
        statuses = []
        start = threading.Barrier(50, timeout=30)

        def submit():
            start.wait()
            statuses.append(self.service.submit(token).status)

        threads = [threading.Thread(target=submit) for _ in range(50)]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join(60)
        self.assertEqual(sorted(statuses), [200] * 3 + [429] * 47)
        self.assertEqual(self.service.rows(
            "SELECT COUNT(*) FROM submissions WHERE outcome = 'scored'"), [(3,)])
        self.assertEqual(self.service.rows("SELECT COUNT(*) FROM submissions"), [(50,)])


class FeedbackTests(unittest.TestCase):
    def setUp(self):
        self.service = Service(self)

    def test_verdict_releases_no_number_and_names_no_task(self):
        token = self.service.team("alpha", level="verdict")
        results = failing(example_package()[2], ["test-safety", "test-privacy"])
        reply = self.service.submit(token, submission_bytes(results))
        document = reply.document
        self.assertEqual(document["action"], "BLOCK")
        # Two critical tasks failed, and the answer does not say how many.
        self.assertEqual(document["failed_gates"][0],
                         {"gate": "critical_task_min_trial_success_rate", "severity": "block"})
        self.assertEqual(len(document["failed_gates"]), len(
            {item["gate"] for item in document["failed_gates"]}))
        self.assertNotIn("test-safety", reply.body.decode("ascii"))
        self.assertNotIn("test-privacy", reply.body.decode("ascii"))
        for key in ("rounded", "ladder", "decision"):
            self.assertNotIn(key, document)

    def test_rounded_releases_the_rate_and_interval_on_the_step(self):
        token = self.service.team("alpha", level="rounded")
        document = self.service.submit(token).document
        local = local_document()
        rounded = document["rounded"]
        self.assertEqual(rounded["primary_task_success_rate"], 1.0)
        low, high = local["comparison"]["paired_bootstrap_interval"]
        self.assertLessEqual(rounded["paired_bootstrap_interval"][0], low)
        self.assertGreaterEqual(rounded["paired_bootstrap_interval"][1], high)
        for value in rounded["paired_bootstrap_interval"]:
            self.assertAlmostEqual(value * 10, round(value * 10))
        self.assertNotIn("decision", document)
        self.assertNotIn("trial_results", reply_text(document))

    def test_the_ladder_releases_only_a_score_beyond_one_standard_error(self):
        token = self.service.team("alpha", level="ladder")
        results = example_package()[2]
        weak = failing(results, ["test-cancel", "test-status", "test-safety"])
        answers = [self.service.submit(token, submission_bytes(package)).document["ladder"]
                   for package in (weak, weak, results, failing(results, ["test-refund"]))]
        self.assertEqual([(answer["score"], answer["new_score_released"])
                          for answer in answers],
                         [(0.4, True), (0.4, False), (1.0, True), (1.0, False)])
        self.assertEqual(self.service.rows(
            "SELECT score_released FROM submissions ORDER BY id"), [(1,), (0,), (1,), (0,)])

    def test_the_ladder_rule(self):
        self.assertTrue(feedback.ladder_releases([1, 0], None))
        self.assertFalse(feedback.ladder_releases([1, 1, 0, 0], [1, 1, 0, 0]))
        # 2 of 4 tasks better, none worse: mean 1/2, s^2 = 1/3, s^2/n = 1/12 < 1/4
        self.assertTrue(feedback.ladder_releases([1, 1, 0, 0], [0, 0, 0, 0]))
        # 1 of 4 better: mean 1/4, s^2 = 1/4, s^2/n = 1/16 = mean^2: not strictly beyond
        self.assertFalse(feedback.ladder_releases([1, 0, 0, 0], [0, 0, 0, 0]))


def reply_text(document):
    return json.dumps(document)


class TokenTests(unittest.TestCase):
    def setUp(self):
        self.service = Service(self)

    def test_missing_malformed_wrong_revoked_and_rotated_tokens_get_401(self):
        token = self.service.team("alpha")
        missing = self.service.call("GET", "/v1/team")
        self.assertEqual((missing.status, missing.document["code"]),
                         (401, "service.unauthorized"))
        self.assertTrue(missing.header("www-authenticate").startswith("Bearer"))
        token_id, secret = tokens.split(token)
        wrong = "pab1.%s.%s" % (token_id, ("A" if secret[0] != "A" else "B") + secret[1:])
        for bad in (wrong, "nonsense", token + "x"):
            self.assertEqual(self.service.call("GET", "/v1/team", token=bad).status, 401)
        self.assertEqual(self.service.call("GET", "/v1/team", token=token).status, 200)
        teams.revoke(self.service.db, "alpha")
        revoked = self.service.call("GET", "/v1/team", token=token)
        self.assertEqual((revoked.status, revoked.document["code"]),
                         (401, "service.token_revoked"))
        new = teams.rotate(self.service.db, "alpha")
        self.assertEqual(self.service.call("GET", "/v1/team", token=token).status, 401)
        self.assertEqual(self.service.call("GET", "/v1/team", token=new).document["team"],
                         "alpha")

    def test_only_a_salted_hash_of_a_token_is_stored(self):
        first = self.service.team("alpha")
        second = self.service.team("beta")
        with open(self.service.db, "rb") as handle:
            stored = handle.read()
        for name in os.listdir(self.service.data):
            with open(os.path.join(self.service.data, name), "rb") as handle:
                stored += handle.read()
        for token in (first, second):
            self.assertNotIn(tokens.split(token)[1].encode("ascii"), stored)
        salts = self.service.rows("SELECT token_salt FROM teams")
        self.assertEqual(len(set(salts)), 2)

    def test_another_teams_submission_is_403_and_an_unknown_one_404(self):
        alpha, beta = self.service.team("alpha"), self.service.team("beta")
        number = self.service.submit(alpha).document["submission_id"]
        self.assertEqual(self.service.call("GET", "/v1/submissions/%d" % number,
                                           token=alpha).status, 200)
        other = self.service.call("GET", "/v1/submissions/%d" % number, token=beta)
        self.assertEqual((other.status, other.document["code"]), (403, "service.forbidden"))
        self.assertEqual(self.service.call("GET", "/v1/submissions/999",
                                           token=beta).status, 404)
        listed = self.service.call("GET", "/v1/submissions", token=beta).document
        self.assertEqual(listed["submissions"], [])

    def test_every_authenticated_request_is_audited(self):
        token = self.service.team("alpha")
        self.service.submit(token)
        self.service.call("GET", "/v1/team", token=token)
        self.service.call("GET", "/v1/team", token="pab1.0000000000000000." + "A" * 43)
        self.service.call("GET", "/v1/spec")  # no token: not an authenticated request
        rows = self.service.rows("SELECT team_id, token_id, method, path, status, code "
                                 "FROM audit ORDER BY id")
        team_id = self.service.rows("SELECT id FROM teams")[0][0]
        token_id = tokens.split(token)[0]
        self.assertEqual(rows, [
            (team_id, token_id, "POST", "/v1/submissions", 200, None),
            (team_id, token_id, "GET", "/v1/team", 200, None),
            (None, "0000000000000000", "GET", "/v1/team", 401, "service.unauthorized")])


class AuditTests(unittest.TestCase):
    def test_a_submissions_audit_row_is_written_in_the_submissions_transaction(self):
        service = Service(self)
        token = service.team("alpha", budget="2/24h")
        statuses = [service.submit(token, body).status for body in (None, b"{}", None, None)]
        self.assertEqual(statuses, [200, 422, 200, 429])
        self.assertEqual(service.rows("SELECT status, code FROM audit ORDER BY id"), [
            (200, None), (422, "service.contract_error"), (200, None),
            (429, "service.over_budget")])
        # When the audit row cannot be written, neither is the submission: one transaction.
        second = service.team("beta")

        def broken(entry, opened, status, code):
            raise sqlite3.OperationalError("disk I/O error")

        original = AuditEntry.insert
        AuditEntry.insert = broken
        self.addCleanup(setattr, AuditEntry, "insert", original)
        reply = service.submit(second)
        self.assertEqual((reply.status, reply.document["code"]),
                         (500, "service.internal_error"))
        self.assertEqual(service.rows("SELECT COUNT(*) FROM submissions"), [(4,)])
        AuditEntry.insert = original
        self.assertEqual(service.submit(second).status, 200)


class RoutingTests(unittest.TestCase):
    def setUp(self):
        self.service = Service(self)

    def test_unknown_paths_are_404_and_wrong_methods_405_with_allow(self):
        missing = self.service.call("GET", "/v2/anything")
        self.assertEqual((missing.status, missing.document["code"]), (404, "service.not_found"))
        wrong = self.service.call("DELETE", "/v1/submissions")
        self.assertEqual((wrong.status, wrong.header("allow")), (405, "GET, HEAD, POST"))
        self.assertEqual(wrong.header("content-type"), "application/problem+json")
        self.assertEqual(self.service.call("POST", "/v1/spec", b"{}").header("allow"),
                         "GET, HEAD")
        self.assertEqual(self.service.call("DELETE", "/v1/final").header("allow"),
                         "GET, HEAD, PUT")

    def test_serve_binds_the_loopback_address_unless_told_otherwise(self):
        from proagents_bench.cli.commands import COMMAND_BY_NAME
        options = COMMAND_BY_NAME["serve"].parser("run_benchmark.py").parse_args([
            "--spec", "s", "--cases", "c", "--baseline", "b", "--data", "d"])
        self.assertEqual(options.host, "127.0.0.1")
        self.assertEqual(self.service.server.server_address[0], "127.0.0.1")

    def test_every_problem_is_rfc_9457_with_a_documented_code(self):
        document = self.service.call("GET", "/nowhere").document
        for key in ("type", "title", "status", "detail", "code"):
            self.assertIn(key, document)
        with open(os.path.join(ROOT, "docs", "service.md"), "rb") as handle:
            readme = handle.read().decode("utf-8")
        for code in PROBLEMS:
            self.assertTrue("`%s`" % code in readme, code)


class WsgiTests(unittest.TestCase):
    def test_the_application_keeps_to_pep_3333(self):
        # wsgiref.validate checks every call between a server and the application, as any
        # WSGI server (waitress, gunicorn) would rely on it.
        service = Service(self)
        token = service.team("alpha")
        service.server.set_app(validate.validator(service.app))
        replies = [service.call("GET", path) for path in ("/", "/v1/spec", "/nowhere")]
        replies.append(service.submit(token))
        replies.append(service.call("PUT", "/v1/team", b"{}", token))
        replies.append(service.call("HEAD", "/v1/spec"))
        replies.append(service.call("PUT", "/v1/final", b'{"submission_ids": []}', token))
        self.assertEqual([reply.status for reply in replies], [200, 200, 404, 200, 405, 200, 409])


    def test_create_app_makes_what_serve_runs_or_says_why_not(self):
        folder = TempDir(self).path
        app = create_app(*write_benchmark(folder), os.path.join(folder, "data"))
        statuses = []
        body = b"".join(app({"REQUEST_METHOD": "GET", "PATH_INFO": "/v1/cases"},
                            lambda status, headers: statuses.append(status)))
        self.assertEqual(statuses, ["200 OK"])
        self.assertEqual(json.loads(body.decode("utf-8"))["withheld_from_test_cases"],
                         list(public.WITHHELD))
        broken = os.path.join(folder, "broken")
        os.makedirs(broken)
        paths = write_benchmark(broken, load_example("benchmark_cases_contract_error.json"))
        with self.assertRaises(SetupError) as raised:
            create_app(*paths, os.path.join(broken, "data"))
        self.assertIn("ERROR: %s:" % paths[1], str(raised.exception))
        self.assertIn("split contamination", str(raised.exception))
        with self.assertRaises(SetupError):
            create_app(*write_benchmark(broken), paths[0])  # a file, not a folder

    @unittest.skipUnless(importlib.util.find_spec("waitress"), "waitress is not installed")
    def test_the_application_under_waitress(self):
        from waitress.server import create_server
        service = Service(self)
        token = service.team("alpha", budget="1/24h")
        server = create_server(service.app, host="127.0.0.1", port=0, threads=2)
        thread = threading.Thread(target=server.run)
        thread.start()
        try:
            port = server.effective_port
            replies = [call(port, "GET", "/v1/cases"),
                       call(port, "POST", "/v1/submissions", submission_bytes(), token),
                       call(port, "POST", "/v1/submissions", submission_bytes(), token),
                       call(port, "DELETE", "/v1/team", None, token)]
        finally:
            server.close()
            thread.join(30)
        self.assertEqual([reply.status for reply in replies], [200, 200, 429, 405])
        self.assertEqual(replies[1].document["action"], "PASS")
        self.assertEqual(replies[2].header("retry-after"), "86400")
        self.assertEqual(replies[3].header("allow"), "GET")


class DatabaseTests(unittest.TestCase):
    def test_wal_mode_and_the_schema_version(self):
        service = Service(self)
        with database.connection(service.db) as opened:
            self.assertEqual(opened.execute("PRAGMA journal_mode").fetchone()[0], "wal")
            self.assertEqual(database.schema_version(opened), database.SCHEMA_VERSION)

    def test_an_old_database_is_migrated_and_a_newer_one_refused(self):
        service = Service(self)
        folder = os.path.join(service.folder, "old")
        os.makedirs(folder)
        path = database.database_path(folder)
        with database.connection(path) as opened:  # version 0: an empty database
            self.assertEqual(database.schema_version(opened), 0)
        database.open_database(folder)
        teams.add(path, "alpha")
        with database.connection(path) as opened:
            opened.execute("PRAGMA user_version = %d" % (database.SCHEMA_VERSION + 1))
        with self.assertRaises(database.DatabaseError):
            database.open_database(folder)

    def test_a_database_that_is_not_the_services_is_refused_untouched(self):
        folder = TempDir(self).path
        for label, statements, version in (
                ("notes", ["CREATE TABLE notes (id INTEGER PRIMARY KEY)"], 0),
                ("teams", ["CREATE TABLE teams (id INTEGER PRIMARY KEY, name TEXT)"], 0),
                ("version-1", ["CREATE TABLE teams (id INTEGER PRIMARY KEY, name TEXT)"], 1)):
            with self.subTest(database=label):
                data = os.path.join(folder, label)
                os.makedirs(data)
                path = database.database_path(data)
                with database.connection(path) as opened:
                    for statement in statements:
                        opened.execute(statement)
                    opened.execute("PRAGMA user_version = %d" % version)
                with open(path, "rb") as handle:
                    before = handle.read()
                with self.assertRaisesRegex(database.DatabaseError, "not the service's"):
                    database.open_database(data)
                with open(path, "rb") as handle:  # not even switched to write-ahead logging
                    self.assertEqual(handle.read(), before)
                self.assertEqual(os.listdir(data), [database.DATABASE_NAME])

    def test_a_failed_transaction_leaves_nothing(self):
        service = Service(self)
        with database.connection(service.db) as opened:
            with self.assertRaises(sqlite3.IntegrityError):
                with database.transaction(opened):
                    opened.execute("INSERT INTO audit (at, method, path, status) "
                                   "VALUES (1, 'GET', '/', 200)")
                    opened.execute("INSERT INTO teams (name) VALUES (NULL)")
        self.assertEqual(service.rows("SELECT COUNT(*) FROM audit"), [(0,)])


class PrivacyTests(unittest.TestCase):
    def test_no_response_ever_holds_a_private_value(self):
        cases = secret_cases()
        baseline = secret_baseline(cases)
        service = Service(self, cases=cases, results=baseline)
        secrets_ = public.private_values(cases) + ["secret-observed-"]
        self.assertEqual(len(secrets_), 16)
        bodies = []
        tokens_ = {level: service.team(level, level=level)
                   for level in ("verdict", "rounded", "ladder")}
        results = example_package()[2]
        damaged = []
        for change in ("dataset", "unknown", "missing", "type", "duplicate", "protocol",
                       "system_id", "trials"):
            package = json.loads(json.dumps(results))
            records = package["systems"][1]["records"]
            if change == "dataset":
                package["dataset_version"] = "other"
            elif change == "unknown":
                records[0]["case_id"] = "train-refund-basic"
            elif change == "missing":
                del records[3:]
            elif change == "type":
                records[1]["final_state"] = 7
            elif change == "duplicate":
                records.append(dict(records[0]))
            elif change == "system_id":
                package["systems"][1]["system_id"] = package["systems"][0]["system_id"]
            elif change == "trials":
                package["systems"][1]["protocol"]["trial_count"] = 2
            else:
                package["systems"][1]["protocol"]["max_steps"] = 99
            damaged.append(submission_bytes(package))
        for phase in (None, "spring"):  # every answer on every test case, then on a part
            if phase is not None:
                phases.open_phase(service.db, service.benchmark, phase, "0.4")
            for level, token in sorted(tokens_.items()):
                for body in [submission_bytes(), submission_bytes(failing(
                        results, ["test-safety"])), b"[1,", b"{}"] + damaged:
                    bodies.append(service.submit(token, body).body)
                bodies.append(service.call("GET", "/v1/submissions", token=token).body)
                for number in range(1, 80, 3):
                    bodies.append(service.call("GET", "/v1/submissions/%d" % number,
                                               token=token).body)
                bodies.append(service.call("GET", "/v1/team", token=token).body)
                bodies.append(service.call("GET", "/v1/final", token=token).body)
            for path in ("/", "/v1", "/v1/spec", "/v1/cases", "/v1/grader", "/v1/leaderboard",
                         "/v1/versions", "/v1/nothing"):
                bodies.append(service.call("GET", path).body)
        statuses = service.rows("SELECT DISTINCT outcome FROM submissions")
        self.assertEqual(sorted(statuses), [("contract_error",), ("scored",)])
        for body in bodies:
            for secret in secrets_:
                self.assertNotIn(secret.encode("utf-8"), body)


class LeaderboardTests(unittest.TestCase):
    def test_teams_are_ranked_by_the_ranges_their_precisions_leave_open(self):
        service = Service(self)
        strong = service.team("strong", level="full")
        rounder = service.team("rounder", level="rounded")
        exact = service.team("exact", level="full")
        weak = service.team("weak", level="ladder")
        quiet = service.team("quiet", level="verdict")
        service.team("waiting")
        gone = service.team("gone", level="full")
        results = example_package()[2]
        service.submit(weak, submission_bytes(failing(results, ["test-cancel", "test-status"])))
        service.submit(strong, submission_bytes())
        # 4 of 5: 0.8, rounded to the example's automatic step (0.5: 1/sqrt(5) = 0.447)
        service.submit(rounder, submission_bytes(failing(results, ["test-cancel"])))
        service.submit(exact, submission_bytes(failing(results, ["test-cancel"])))
        service.submit(quiet, submission_bytes())
        service.submit(gone, submission_bytes())
        teams.revoke(service.db, "gone")
        page = service.call("GET", "/")
        self.assertEqual(page.status, 200)
        self.assertEqual(page.header("content-type"), "text/html; charset=utf-8")
        tables = parse_page(page.body.decode("utf-8"))
        self.assertEqual(len(tables), 1)
        rows = tables[0]
        # strong [1, 1] and rounder [0.75, 1] overlap: a shared rank; exact [0.8, 0.8] is
        # below strong only; weak [0.6, 0.6] below three. The revoked team is not ranked.
        self.assertEqual([tuple(row[:4]) for row in rows], [
            ("=1", "strong", "1.0", "exact"), ("=1", "rounder", "1.0", "rounded to 0.5"),
            ("2", "exact", "0.8", "exact"), ("4", "weak", "0.6", "Ladder (exact share)"),
            ("-", "quiet", "not released", "-"), ("-", "waiting", "no submission", "-"),
            ("revoked", "gone (revoked)", "1.0", "exact")])
        self.assertEqual(rows[0][4], "PASS")
        self.assertEqual((rows[5][4], rows[5][5]), ("-", "0"))
        self.assertEqual((rows[1][6], rows[1][7]), ("rounded", "100/24h"))
        self.assertIn("self-reported", page.body.decode("utf-8"))
        self.assertIn('<tr class="revoked">', page.body.decode("utf-8"))
        board = service.call("GET", "/v1/leaderboard").document["boards"][0]
        self.assertEqual((board["board"], board["current"], board["phase"]),
                         ("all", True, None))
        shown = {entry["team"]: entry for entry in board["entries"]}
        self.assertEqual(shown["rounder"]["score_range"], [0.75, 1.0])
        self.assertEqual((shown["rounder"]["precision"], shown["rounder"]["rounding_step"]),
                         ("rounded", "0.5"))
        self.assertEqual((shown["gone"]["rank"], shown["gone"]["revoked"]), (None, True))
        self.assertEqual([(shown[name]["rank"], shown[name]["tied"]) for name in (
            "strong", "rounder", "exact", "weak")], [(1, True), (1, True), (2, False),
                                                     (4, False)])

    def test_digests_are_shortened_with_the_whole_value_in_a_tooltip_and_names_wrap(self):
        service = Service(self)
        name = "a-team-with-a-very-long-name-" + "x" * 35
        token = service.team(name, level="full")
        digest = service.submit(token).document["sha256"]
        text = service.call("GET", "/").body.decode("utf-8")
        self.assertIn('<code title="%s">%s&hellip;</code>' % (digest, digest[:12]), text)
        self.assertEqual(text.count(digest), 1)  # only in the tooltip
        self.assertRegex(text, r"td\.name \{[^}]*overflow-wrap: anywhere")
        self.assertIn('<td class="name">%s</td>' % name, text)

    def test_the_page_is_self_contained_and_escaped(self):
        service = Service(self)
        token = service.team("alpha")
        service.submit(token)
        # A second dataset version: the same database, a new cases file and baseline.
        cases = load_example("benchmark_cases.json")
        cases["dataset_version"] = "<b>orders-2027</b>&"
        results = example_package()[2]
        results["dataset_version"] = cases["dataset_version"]
        folder = os.path.join(service.folder, "next")
        os.makedirs(folder)
        app = ServiceApp(Benchmark(*write_benchmark(folder, cases, results)), service.db)
        environ = {"REQUEST_METHOD": "POST", "PATH_INFO": "/v1/submissions",
                   "HTTP_AUTHORIZATION": "Bearer " + token, "CONTENT_TYPE": "application/json"}
        body = submission_bytes(failing(results, ["test-cancel"]))
        environ.update({"CONTENT_LENGTH": str(len(body)), "wsgi.input": io.BytesIO(body)})
        statuses = []
        b"".join(app(environ, lambda status, headers: statuses.append(status)))
        page = b"".join(app({"REQUEST_METHOD": "GET", "PATH_INFO": "/"},
                            lambda status, headers: statuses.append(status)))
        self.assertEqual(statuses, ["200 OK", "200 OK"])
        text = page.decode("utf-8")
        self.assertNotIn("<b>orders-2027", text)
        self.assertIn("&lt;b&gt;orders-2027&lt;/b&gt;&amp;", text)
        tables = parse_page(text)  # two dataset versions: two tables, the current first
        self.assertEqual(len(tables), 2)
        self.assertEqual(re.findall(r"<h2>(.*?)</h2>", text), [
            'every test case (current)<span class="versions">order-agent-benchmark 1.0.0, '
            'dataset &lt;b&gt;orders-2027&lt;/b&gt;&amp;</span>',
            'every test case (earlier; not ranked with the current one)<span class="versions">'
            'order-agent-benchmark 1.0.0, dataset orders-2026-07</span>',
            "How rows are chosen and ranked"])
        checker = ResourceFinder()
        checker.feed(text)
        self.assertEqual(checker.found, [])
        self.assertNotIn("<script", text.lower())
        # A narrow screen scrolls each table in its own box, not the whole page.
        self.assertIn('<meta name="viewport" content="width=device-width, initial-scale=1">',
                      text)
        self.assertEqual((text.count('<div class="table"><table>'), text.count("<table")), (2, 2))


class ResourceFinder(HTMLParser):
    """Every script, and every attribute that would load something."""

    def __init__(self):
        super().__init__()
        self.found = []

    def handle_starttag(self, tag, attrs):
        if tag in ("script", "link", "img", "iframe", "object", "embed"):
            self.found.append(tag)
        for name, value in attrs:
            if name in ("src", "href") or name.startswith("on"):
                self.found.append("%s=%s" % (name, value))


class _Tables(HTMLParser):
    def __init__(self):
        super().__init__()
        self.tables, self.row, self.cell = [], None, None

    def handle_starttag(self, tag, attrs):
        if tag == "tbody":
            self.tables.append([])
        elif tag == "tr" and self.tables:
            self.row = []
        elif tag == "td" and self.row is not None:
            self.cell = ""

    def handle_endtag(self, tag):
        if tag == "td" and self.cell is not None:
            self.row.append(self.cell.strip())
            self.cell = None
        elif tag == "tr" and self.row is not None:
            if len(self.row) > 1:
                self.tables[-1].append(self.row)
            self.row = None

    def handle_data(self, data):
        if self.cell is not None:
            self.cell += data


def parse_page(text):
    parser = _Tables()
    parser.feed(text)
    return parser.tables


if __name__ == "__main__":
    unittest.main()
