"""The private-test service's data over time: a backup taken with SQLite's online backup API
while the service runs, restored into a fresh folder and served over HTTP; and a data folder
of schema version 1 upgraded in place and served."""

import json
import os
import sqlite3
import threading
import time
import unittest

from proagents_bench.service import database, tokens

from .service_support import Service, failing, submission_bytes
from .support import TempDir, example_package, load_example, run_cli


class BackupTests(unittest.TestCase):
    def test_a_backup_taken_while_the_service_runs_restores_and_serves(self):
        service = Service(self)
        token = service.team("alpha", budget="1000/24h", level="ladder")
        for _ in range(3):
            self.assertEqual(service.submit(token).status, 200)
        target = os.path.join(TempDir(self).path, "service-backup.sqlite3")
        stop = threading.Event()
        during = []

        def keep_submitting():  # submissions go on while the backup copies
            for _ in range(40):
                if stop.is_set():
                    return
                during.append(service.submit(token).status)

        thread = threading.Thread(target=keep_submitting)
        thread.start()
        try:
            time.sleep(0.05)
            copied = run_cli(["backup", "--data", service.data, "--to", target])
        finally:
            stop.set()
            thread.join(60)
        self.assertEqual(copied.status, 0, copied.stderr)
        self.assertEqual(set(during), {200})
        document = copied.document
        self.assertEqual((document["schema_version"], document["teams"]),
                         (database.SCHEMA_VERSION, 1))
        self.assertGreaterEqual(document["submissions"], 3)
        self.assertEqual(sorted(os.listdir(os.path.dirname(target))), ["service-backup.sqlite3"])
        with database.connection(target) as opened:  # one file: no journal beside it
            self.assertEqual(opened.execute("PRAGMA journal_mode").fetchone()[0], "delete")

        fresh = os.path.join(TempDir(self).path, "restored")
        restored = run_cli(["restore", "--from", target, "--data", os.path.join(fresh, "data")])
        self.assertEqual(restored.status, 0, restored.stderr)
        self.assertEqual(restored.document["submissions"], document["submissions"])
        os.makedirs(fresh, exist_ok=True)
        again = Service(self, folder=fresh)  # the real server on the restored folder
        listed = again.call("GET", "/v1/submissions", token=token).document["submissions"]
        kept = service.rows("SELECT id, sha256 FROM submissions ORDER BY id")
        self.assertEqual([(entry["submission_id"], entry["sha256"]) for entry in listed],
                         [tuple(row) for row in kept[:document["submissions"]]])
        self.assertEqual(again.submit(token).status, 200)  # the token's hash came along
        self.assertEqual(again.call("GET", "/").status, 200)
        with database.connection(again.db) as opened:
            self.assertEqual(opened.execute("PRAGMA journal_mode").fetchone()[0], "wal")

    def test_a_backup_never_overwrites_and_a_restore_never_replaces(self):
        service = Service(self)
        service.team("alpha")
        folder = TempDir(self).path
        existing = os.path.join(folder, "existing")
        with open(existing, "wb") as handle:
            handle.write(b"not a database")
        for arguments in (["backup", "--data", service.data, "--to", existing],
                          ["backup", "--data", os.path.join(folder, "none"), "--to",
                           os.path.join(folder, "b")],
                          ["restore", "--from", existing, "--data", os.path.join(folder, "r")],
                          ["restore", "--from", os.path.join(folder, "missing"), "--data",
                           os.path.join(folder, "s")]):
            with self.subTest(arguments=arguments):
                run = run_cli(arguments)
                self.assertEqual((run.status, run.document["errors"][0]["code"]), (2, (
                    "cli.no_database" if arguments[2].endswith("none") else "cli.backup")),
                    run.stderr)
        self.assertFalse(os.path.exists(os.path.join(folder, "none")))
        target = os.path.join(folder, "backup.sqlite3")
        self.assertEqual(run_cli(["backup", "--data", service.data, "--to", target]).status, 0)
        refused = run_cli(["restore", "--from", target, "--data", service.data])
        self.assertEqual(refused.status, 2)
        self.assertIn("holds a database already", refused.document["errors"][0]["message"])
        self.assertEqual(service.rows("SELECT name FROM teams"), [("alpha",)])
        with open(existing, "rb") as handle:
            self.assertEqual(handle.read(), b"not a database")


def foreign_database(path, statements, version=0):
    """A real SQLite file of another application at ``path``: ``statements`` run, its
    ``user_version`` set to ``version``."""
    with database.connection(path) as opened:
        for statement in statements:
            opened.execute(statement)
        opened.execute("PRAGMA user_version = %d" % version)
    return path


def read(path):
    with open(path, "rb") as handle:
        return handle.read()


def flip_byte(path, marker):
    """Change one byte of ``path``: the first of the only place ``marker`` is."""
    with open(path, "rb") as handle:
        data = bytearray(handle.read())
    self_check = data.count(marker)
    if self_check != 1:
        raise AssertionError("%r is in %s %d times" % (marker, path, self_check))
    data[data.index(marker)] ^= 0x01
    with open(path, "wb") as handle:
        handle.write(bytes(data))


SUBMISSION_MARKER = b"marked-result-set"
CASES_MARKER = b"marked-initial-state"


def marked_backup(test):
    """A service whose one submission's bytes and served cases file each hold a marker
    found nowhere else in its database, and a backup of it; (service, backup path)."""
    cases = load_example("benchmark_cases.json")
    cases["cases"][0]["initial_state"] = CASES_MARKER.decode("ascii")
    service = Service(test, cases=cases)
    token = service.team("alpha", level="verdict")
    results = example_package()[2]
    results["result_set_version"] = SUBMISSION_MARKER.decode("ascii")
    test.assertEqual(service.submit(token, submission_bytes(results)).status, 200)
    target = os.path.join(TempDir(test).path, "backup.sqlite3")
    made = run_cli(["backup", "--data", service.data, "--to", target])
    test.assertEqual(made.status, 0, made.stderr)
    return service, target


class RefusalTests(unittest.TestCase):
    """What restore and backup refuse, each with exit 2 and nothing left behind."""

    def refused(self, arguments, words):
        run = run_cli(arguments)
        self.assertEqual((run.status, run.document["errors"][0]["code"]), (2, "cli.backup"),
                         run.stderr)
        message = run.document["errors"][0]["message"]
        for word in words:
            self.assertIn(word, message)
        return message

    def test_restore_checks_everything_it_copies_and_leaves_nothing_when_it_refuses(self):
        service, good = marked_backup(self)
        folder = TempDir(self)
        newer = folder.write_bytes("newer.sqlite3", read(good))
        with database.connection(newer) as opened:
            opened.execute("PRAGMA user_version = %d" % (database.SCHEMA_VERSION + 1))
        flipped_submission = folder.write_bytes("submission.sqlite3", read(good))
        flip_byte(flipped_submission, SUBMISSION_MARKER)
        flipped_cases = folder.write_bytes("cases.sqlite3", read(good))
        flip_byte(flipped_cases, CASES_MARKER)
        other_teams = folder.write_bytes("teams.sqlite3", read(good))
        with database.connection(other_teams) as opened:  # the service's version, not its table
            opened.execute("ALTER TABLE teams ADD COLUMN nickname TEXT")
        sources = {
            "empty": (folder.write_bytes("empty.sqlite3", b""), ["empty (0 bytes)"]),
            "text": (folder.write_bytes("text.sqlite3", b"not a database at all\n" * 10),
                     ["not an SQLite database"]),
            "another application": (foreign_database(
                os.path.join(folder.path, "notes.sqlite3"),
                ["CREATE TABLE notes (id INTEGER PRIMARY KEY, text TEXT)",
                 "INSERT INTO notes (text) VALUES ('hello')"]),
                ["another application's tables (notes)"]),
            "a teams table of its own": (foreign_database(
                os.path.join(folder.path, "own-teams.sqlite3"),
                ["CREATE TABLE teams (id INTEGER PRIMARY KEY, name TEXT)"]),
                ["another application's tables (teams)"]),
            "the service's version, another teams table": (
                other_teams, ["table teams is not the service's"]),
            "a newer schema": (newer, ["newer than this release's"]),
            "a flipped byte in a submission": (
                flipped_submission, ["submission 1: its stored bytes no longer match"]),
            "a flipped byte in the cases": (
                flipped_cases, ["dataset version 'orders-2026-07': its stored cases file"]),
        }
        target = os.path.join(folder.path, "new", "data")
        for label, (source, words) in sources.items():
            with self.subTest(source=label):
                before = read(source)
                self.refused(["restore", "--from", source, "--data", target],
                             [source] + words)
                self.assertFalse(os.path.exists(os.path.join(folder.path, "new")))
                self.assertEqual(read(source), before)  # the backup itself is never touched
        self.assertEqual(sorted(os.listdir(folder.path)), sorted(
            os.path.basename(source) for source, _words in sources.values()))
        # Into a folder that was there: the folder stays, empty.
        existing = os.path.join(folder.path, "existing")
        os.makedirs(existing)
        self.refused(["restore", "--from", flipped_submission, "--data", existing], [])
        self.assertEqual(os.listdir(existing), [])
        # Nothing was left: the next restore into the same folder works.
        restored = run_cli(["restore", "--from", good, "--data", target])
        self.assertEqual(restored.status, 0, restored.stderr)
        self.assertEqual((restored.document["submissions"], os.listdir(target)),
                         (1, ["service.sqlite3"]))

    def test_backup_checks_its_copy_and_leaves_nothing_when_it_refuses(self):
        folder = TempDir(self)
        for label, statements, version, words in (
                ("another application", ["CREATE TABLE notes (id INTEGER PRIMARY KEY)"], 0,
                 ["another application's tables (notes)"]),
                ("a newer schema", [], database.SCHEMA_VERSION + 1,
                 ["newer than this release's"])):
            with self.subTest(database=label):
                data = os.path.join(folder.path, label.replace(" ", "-"))
                os.makedirs(data)
                foreign_database(database.database_path(data), statements, version)
                target = os.path.join(folder.path, "backup.sqlite3")
                self.refused(["backup", "--data", data, "--to", target],
                             ["nothing was written"] + words)
                self.assertFalse(os.path.lexists(target))
        # The live database's own bytes changed behind its digest: the copy is refused.
        service = Service(self)
        token = service.team("alpha")
        service.submit(token)
        with database.connection(service.db) as opened:
            opened.execute("UPDATE submissions SET body = CAST('{}' AS BLOB)")
        target = os.path.join(folder.path, "changed.sqlite3")
        self.refused(["backup", "--data", service.data, "--to", target],
                     ["submission 1: its stored bytes no longer match"])
        self.assertEqual(sorted(os.listdir(folder.path)),
                         ["a-newer-schema", "another-application"])

    @unittest.skipUnless(hasattr(os, "symlink"), "symbolic links are not available")
    def test_backup_never_replaces_a_symbolic_link_even_a_dangling_one(self):
        service = Service(self)
        service.team("alpha")
        folder = TempDir(self).path
        link = os.path.join(folder, "backup.sqlite3")
        try:
            os.symlink(os.path.join(folder, "nowhere", "file"), link)
        except OSError as problem:  # Windows without the right to make links
            self.skipTest("cannot make a symbolic link here: %s" % problem)
        self.refused(["backup", "--data", service.data, "--to", link],
                     ["exists already (a symbolic link)"])
        self.assertTrue(os.path.islink(link))
        self.assertEqual(os.readlink(link), os.path.join(folder, "nowhere", "file"))
        self.assertEqual(os.listdir(folder), ["backup.sqlite3"])


def version_1_database(folder):
    """A data folder as release 1 of the schema left it: two teams, a ladder submission and a
    rounded one (released on the then only step, 0.1); the ladder team's token."""
    data = os.path.join(folder, "data")
    os.makedirs(data)
    path = database.database_path(data)
    issued = tokens.issue()
    other = tokens.issue()
    ladder_answer = {"action": "PASS", "reasons": ["every gate passed"], "failed_gates": [],
                     "protocol_mismatches": [], "ladder": {"score": 1.0,
                                                           "new_score_released": True}}
    with database.connection(path) as opened:
        opened.execute("PRAGMA journal_mode = WAL").fetchone()
        with database.transaction(opened):
            for statement in database.MIGRATIONS[0]:
                opened.execute(statement)
            opened.execute("PRAGMA user_version = 1")
            for name, token, level in (("alpha", issued, "ladder"), ("beta", other, "rounded")):
                opened.execute(
                    "INSERT INTO teams (name, token_id, token_salt, token_hash, budget_count, "
                    "budget_window_seconds, feedback_level, created_at) VALUES "
                    "(?,?,?,?,?,?,?,?)", (name, token.token_id, token.salt, token.digest, 100,
                                          86400, level, time.time() - 60))
            for team_id, level, action, score, answer in (
                    (1, "ladder", "PASS", 1.0, ladder_answer),
                    (2, "rounded", "REVIEW", 0.8, {"action": "REVIEW"})):
                opened.execute(
                    "INSERT INTO submissions (team_id, received_at, sha256, size, body, "
                    "outcome, action, benchmark_id, benchmark_version, dataset_version, "
                    "feedback_level, primary_rate, task_passes, score_released, "
                    "released_score, answer) VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)",
                    (team_id, time.time() - 30, "0" * 64, 2, b"{}", "scored", action,
                     "order-agent-benchmark", "1.0.0", "orders-2026-07", level, score,
                     json.dumps([1, 1, 1, 1, 1]), 1, score, json.dumps(answer)))
    return issued.text


class MigrationTests(unittest.TestCase):
    def test_a_version_1_data_folder_is_upgraded_in_place_and_served(self):
        folder = TempDir(self).path
        token = version_1_database(folder)
        service = Service(self, folder=folder)  # opening the folder migrates it
        with database.connection(service.db) as opened:
            self.assertEqual(database.schema_version(opened), database.SCHEMA_VERSION)
            self.assertEqual(opened.execute("PRAGMA integrity_check").fetchone()[0], "ok")
        self.assertEqual(service.rows("SELECT shown_action, released_step, phase_id FROM "
                                      "submissions ORDER BY id"),
                         [("PASS", None, None), ("REVIEW", "0.1", None)])
        listed = service.call("GET", "/v1/submissions", token=token).document["submissions"]
        self.assertEqual([(entry["action"], entry["released_score"]) for entry in listed],
                         [("PASS", 1.0)])
        entries = service.call("GET", "/v1/leaderboard").document["boards"][0]["entries"]
        shown = {entry["team"]: entry for entry in entries}
        self.assertEqual((shown["beta"]["precision"], shown["beta"]["rounding_step"],
                          shown["beta"]["score_range"]), ("rounded", "0.1", [0.75, 0.85]))
        self.assertEqual((shown["alpha"]["rank"], shown["beta"]["rank"]), (1, 2))
        # The Ladder goes on from the old best: a weaker submission releases nothing new.
        answer = service.submit(token, submission_bytes(failing(
            example_package()[2], ["test-cancel"]))).document
        self.assertEqual((answer["ladder"]["score"], answer["ladder"]["new_score_released"],
                          answer["ladder"]["verdict_of_submission"], answer["action"]),
                         (1.0, False, 1, "PASS"))
        with self.assertRaises(sqlite3.OperationalError):  # a shipped step is never replayed
            with database.connection(service.db) as opened:
                opened.execute(database.MIGRATIONS[1][0])


if __name__ == "__main__":
    unittest.main()
