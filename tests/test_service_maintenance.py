"""The private-test service and a benchmark's maintenance, over real HTTP on a free loopback
port: the maintainer's health page of the private test from every scored submission (never
served to teams: no endpoint has it, and it needs the data folder and the private cases), and
a new dataset version: a new board, its public diff published (no withheld value in any
answer), and a changed file under a version already served refused."""

import copy
import json
import os
import shutil
import unittest

from proagents_bench.errors import ContractErrors
from proagents_bench.service import database, public
from proagents_bench.service.app import ServiceApp, SetupError, create_app
from proagents_bench.service.benchmark import Benchmark

from .service_support import (Service, failing, secret_baseline, secret_cases, submission_bytes,
                              write_benchmark)
from .support import TempDir, example_package, run_cli, run_subprocess
from .test_service_backup import foreign_database, read

# What only the health report says: none of it may reach a team.
HEALTH_WORDS = (b"discrimination", b"effective size", b"effective_size", b"never_passed",
                b"never passed", b"HEALTH")


def health_arguments(service, *extra):
    return ["health", "--spec", service.spec_path, "--cases", service.cases_path, "--data",
            service.data, "--baseline", service.baseline_path] + list(extra)


def scored_service(test):
    """A service on the example, with three scored submissions of two teams and one contract
    error; (service, tokens)."""
    service = Service(test)
    alpha, beta = service.team("alpha", level="ladder"), service.team("beta", level="verdict")
    results = example_package()[2]
    service.submit(alpha)
    service.submit(alpha, submission_bytes(failing(results, ["test-cancel"])))
    service.submit(beta, submission_bytes(failing(results, ["test-cancel", "test-status"])))
    service.submit(beta, b"{}")  # a contract error: never a package of the health
    return service, (alpha, beta)


class MaintainerHealthTests(unittest.TestCase):
    def test_the_health_of_the_private_test_from_every_scored_submission(self):
        service, _tokens = scored_service(self)
        page = os.path.join(TempDir(self).path, "health.html")
        run = run_cli(health_arguments(service, "--html", page))
        self.assertEqual(run.status, 0, run.stderr)
        document = run.document
        self.assertEqual([system["name"] for system in document["systems"]],
                         ["alpha #1", "alpha #2", "baseline-v1", "beta #3"])
        baseline = document["systems"][2]
        self.assertEqual((baseline["trials_per_task"], len(baseline["runs"])), (3, 1))
        cancel = next(task for task in document["tasks"] if task["case_id"] == "test-cancel")
        self.assertEqual(cancel["pass_rates"], [1.0, 0.0, 0.0, 0.0])  # the baseline fails it too
        with open(page, "rb") as handle:
            self.assertIn(b"alpha #2", handle.read())

    def test_no_endpoint_serves_it_and_it_needs_the_maintainers_access(self):
        service, tokens = scored_service(self)
        self.assertEqual(run_cli(health_arguments(service)).status, 0)
        self.assertFalse([path for path in service.app.routes if "health" in path])
        bodies = []
        for token in (None,) + tokens:
            for path in list(service.app.routes) + ["/v1/submissions/1", "/v1/submissions/3",
                                                    "/v1/health", "/health", "/v1/maintainer"]:
                reply = service.call("GET", path, token=token)
                if "health" in path or path == "/v1/maintainer":
                    self.assertEqual(reply.status, 404)
                bodies.append(reply.body)
        for body in bodies:
            for word in HEALTH_WORDS:
                self.assertNotIn(word, body)
        # A team has the public view of the cases, not the cases file: no health.
        folder = TempDir(self)
        public_cases = folder.write_bytes("public_cases.json",
                                          service.call("GET", "/v1/cases").body)
        refused = run_cli(["health", "--spec", service.spec_path, "--cases", public_cases,
                           "--data", service.data, "--baseline", service.baseline_path])
        self.assertEqual((refused.status, refused.document["errors"][0]["code"]),
                         (2, "version.unsupported"))
        elsewhere = run_cli(["health", "--spec", service.spec_path, "--cases",
                             service.cases_path, "--data", folder.path, "--baseline",
                             service.baseline_path])
        self.assertEqual((elsewhere.status, elsewhere.document["errors"][0]["code"]),
                         (2, "cli.data"))

    def test_a_data_folder_whose_database_is_not_the_services_is_a_clear_error(self):
        service = Service(self)
        folder = TempDir(self)
        newer = os.path.join(folder.path, "newer")
        shutil.copytree(service.data, newer)
        with database.connection(database.database_path(newer)) as opened:
            opened.execute("PRAGMA user_version = %d" % (database.SCHEMA_VERSION + 1))
        for label, content, words in (
                ("empty", b"", "empty (0 bytes)"),
                ("text", b"name,score\nalpha,1\n", "not an SQLite database"),
                ("another application", ["CREATE TABLE notes (id INTEGER PRIMARY KEY)"],
                 "another application's tables (notes)"),
                ("a newer schema", None, "newer than this release's")):
            with self.subTest(database=label):
                data = newer
                if content is not None:
                    data = os.path.join(folder.path, label.replace(" ", "-"))
                    os.makedirs(data)
                    path = database.database_path(data)
                    if isinstance(content, bytes):
                        folder.write_bytes(os.path.join(data, database.DATABASE_NAME), content)
                    else:
                        foreign_database(path, content)
                before = read(database.database_path(data))
                run = run_cli(["health", "--spec", service.spec_path, "--cases",
                               service.cases_path, "--data", data, "--baseline",
                               service.baseline_path])
                self.assertEqual((run.status, run.document["errors"][0]["code"]),
                                 (2, "cli.data"), run.stderr)
                message = run.document["errors"][0]["message"]
                self.assertIn("cannot read the service's database", message)
                self.assertIn(words, message)
                self.assertEqual(read(database.database_path(data)), before)  # untouched


def next_version(cases, results):
    """A new dataset version of ``cases`` (and its baseline package): test-refund's withheld
    answer changed (and nothing else of it), test-status's allowed tools widened, test-cancel
    removed, test-extra added."""
    cases = copy.deepcopy(cases)
    results = copy.deepcopy(results)
    cases["dataset_version"] = "orders-2026-10"
    results["dataset_version"] = "orders-2026-10"
    refund = next(case for case in cases["cases"] if case["id"] == "test-refund")
    refund["expected_final_state"] = "secret-state-next-refund"
    status = next(case for case in cases["cases"] if case["id"] == "test-status")
    status["allowed_tools"] = status["allowed_tools"] + ["track_parcel"]
    extra = dict(refund, id="test-extra", family_id="family-extra",
                 expected_final_state="secret-state-next-extra",
                 forbidden_side_effects=["secret-effect-next-extra"])
    cases["cases"] = [case for case in cases["cases"] if case["id"] != "test-cancel"] + [extra]
    expected = {case["id"]: case["expected_final_state"] for case in cases["cases"]}
    for system in results["systems"]:
        kept = [record for record in system["records"] if record["case_id"] != "test-cancel"]
        kept += [dict(record, case_id="test-extra") for record in system["records"]
                 if record["case_id"] == "test-refund"]
        for record in kept:
            if system["role"] == "baseline":
                record["final_state"] = expected[record["case_id"]]
        system["records"] = kept
    return cases, results


class NewDatasetVersionTests(unittest.TestCase):
    def test_a_new_version_opens_a_new_board_with_its_public_diff_and_no_withheld_value(self):
        cases = secret_cases()
        results = secret_baseline(cases)
        first = Service(self, cases=cases, results=results)
        token = first.team("alpha", level="full")
        self.assertEqual(first.submit(token).status, 200)
        versions = first.call("GET", "/v1/versions").document["versions"]
        self.assertEqual([(item["dataset_version"], item["public_changes"])
                          for item in versions], [("orders-2026-07", None)])
        new_cases, new_results = next_version(cases, results)
        second = Service(self, cases=new_cases, results=new_results, folder=first.folder)
        candidate = copy.deepcopy(new_results)
        self.assertEqual(second.submit(token, submission_bytes(candidate)).status, 200)
        bodies = []
        for path in ("/", "/v1", "/v1/versions", "/v1/leaderboard", "/v1/cases", "/v1/spec",
                     "/v1/grader"):
            bodies.append(second.call("GET", path).body)
        for path in ("/v1/submissions", "/v1/submissions/1", "/v1/submissions/2", "/v1/team"):
            bodies.append(second.call("GET", path, token=token).body)
        versions = json.loads(bodies[2].decode("utf-8"))["versions"]
        self.assertEqual([item["dataset_version"] for item in versions],
                         ["orders-2026-07", "orders-2026-10"])
        changes = versions[1]["public_changes"]
        self.assertEqual(versions[1]["previous"]["dataset_version"], "orders-2026-07")
        self.assertEqual([(task["case_id"], task["change"], task["breaks"])
                          for task in changes["tasks"]], [
            ("test-cancel", "removed", ["test_set"]),
            ("test-status", "changed", ["answer"]),
            ("test-extra", "added", ["test_set"])])  # test-refund's withheld change: unsaid
        self.assertEqual(changes["tasks"][1]["fields"][0]["field"], "allowed_tools")
        boards = json.loads(bodies[3].decode("utf-8"))["boards"]
        self.assertEqual([(board["dataset_version"], board["current"]) for board in boards],
                         [("orders-2026-10", True), ("orders-2026-07", False)])
        self.assertIn(b"Dataset orders-2026-10 follows order-agent-benchmark 1.0.0, dataset "
                      b"orders-2026-07: 1 test or public cases added, 1 removed, 1 changed",
                      bodies[0])
        secrets_ = public.private_values(cases) + public.private_values(new_cases)
        self.assertIn("secret-state-next-refund", secrets_)
        for body in bodies:
            for secret in secrets_:
                self.assertNotIn(secret.encode("utf-8"), body)

    def test_answers_changed_under_a_version_already_served_are_refused(self):
        service = Service(self)
        cases, results = example_package()[1:]
        changed = copy.deepcopy(cases)
        next(case for case in changed["cases"]
             if case["id"] == "test-refund")["expected_final_state"] = "refund_denied"
        folder = os.path.join(service.folder, "changed")
        os.makedirs(folder)
        paths = write_benchmark(folder, changed, results)
        with self.assertRaises(ContractErrors) as raised:
            ServiceApp(Benchmark(*paths), service.db)
        error = raised.exception.errors[0]
        self.assertEqual((error.code, error.file, error.path),
                         ("diff.same_dataset_version", paths[1], ("dataset_version",)))
        with self.assertRaises(SetupError):
            create_app(*paths, service.data)
        served = run_subprocess(["serve", "--spec", paths[0], "--cases", paths[1],
                                 "--baseline", paths[2], "--data", service.data, "--port",
                                 "0"], timeout=60)
        self.assertEqual((served.status, served.document["errors"][0]["code"]),
                         (2, "diff.same_dataset_version"))
        # A change of what no record depends on is the version's file from then on.
        renamed = copy.deepcopy(cases)
        next(case for case in renamed["cases"] if case["id"] == "test-refund")["slice"] = "r"
        other = os.path.join(service.folder, "renamed")
        os.makedirs(other)
        ServiceApp(Benchmark(*write_benchmark(other, renamed, results)), service.db)
        self.assertEqual(service.rows("SELECT COUNT(*) FROM dataset_versions"), [(1,)])


if __name__ == "__main__":
    unittest.main()
