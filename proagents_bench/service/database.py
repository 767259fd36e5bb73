"""The service's state: one SQLite file (the standard library's ``sqlite3``) in WAL mode,
with a versioned schema.

The schema's version is SQLite's ``user_version``; :data:`MIGRATIONS` lists the steps from
each version to the next, and :func:`open_database` applies the missing ones in one
transaction, so a database made by an older release is brought up to date when the service
starts, and a newer one is refused rather than misread.

Every request opens its own connection and closes it (a ``sqlite3`` connection used as a
context manager commits but does not close): connections are never shared between threads.
Writes that must be atomic run in ``BEGIN IMMEDIATE`` transactions (:func:`transaction`),
which take SQLite's write lock at once, so two submissions can never both count the same
budget as free.
"""

from __future__ import annotations

import os
import sqlite3
import threading
from contextlib import contextmanager
from typing import Dict, Iterator, List, Tuple

from ..jsonio.paths import near_file

DATABASE_NAME = "service.sqlite3"

# Outcomes of a stored submission. Only "scored" ones spend budget.
SCORED = "scored"
CONTRACT_ERROR = "contract_error"
OVER_BUDGET = "over_budget"

# How long a connection waits for another's write lock before giving up (a submission holds
# it only to count, insert and commit: milliseconds).
BUSY_TIMEOUT_SECONDS = 30.0

# Each step takes the schema from version N to N + 1 (its index + 1). Never edit a shipped
# step: add a new one.
MIGRATIONS: Tuple[Tuple[str, ...], ...] = (
    (
        """CREATE TABLE teams (
            id INTEGER PRIMARY KEY,
            name TEXT NOT NULL UNIQUE,
            token_id TEXT UNIQUE,
            token_salt BLOB,
            token_hash BLOB,
            revoked INTEGER NOT NULL DEFAULT 0,
            budget_count INTEGER NOT NULL,
            budget_window_seconds INTEGER NOT NULL,
            feedback_level TEXT NOT NULL,
            created_at REAL NOT NULL
        )""",
        """CREATE TABLE submissions (
            id INTEGER PRIMARY KEY,
            team_id INTEGER NOT NULL REFERENCES teams(id),
            received_at REAL NOT NULL,
            sha256 TEXT NOT NULL,
            size INTEGER NOT NULL,
            body BLOB,
            outcome TEXT NOT NULL,
            action TEXT,
            evidence_fingerprint TEXT,
            benchmark_id TEXT,
            benchmark_version TEXT,
            dataset_version TEXT,
            feedback_level TEXT,
            primary_rate REAL,
            task_passes TEXT,
            score_released INTEGER NOT NULL DEFAULT 0,
            released_score REAL,
            answer TEXT NOT NULL
        )""",
        "CREATE INDEX submissions_by_team ON submissions (team_id, outcome, received_at)",
        """CREATE TABLE audit (
            id INTEGER PRIMARY KEY,
            at REAL NOT NULL,
            team_id INTEGER,
            token_id TEXT,
            method TEXT NOT NULL,
            path TEXT NOT NULL,
            status INTEGER NOT NULL,
            code TEXT
        )""",
    ),
    (
        # Phases: a secret split of the test cases into a public part (all feedback during
        # the phase) and a private part (scored once, when the phase closes).
        """CREATE TABLE phases (
            id INTEGER PRIMARY KEY,
            name TEXT NOT NULL UNIQUE,
            status TEXT NOT NULL,
            seed TEXT NOT NULL,
            commitment TEXT NOT NULL,
            private_share TEXT NOT NULL,
            private_ids TEXT NOT NULL,
            public_count INTEGER NOT NULL,
            private_count INTEGER NOT NULL,
            choices INTEGER NOT NULL,
            benchmark_id TEXT NOT NULL,
            benchmark_version TEXT NOT NULL,
            dataset_version TEXT NOT NULL,
            files_sha256 TEXT NOT NULL,
            opened_at REAL NOT NULL,
            closed_at REAL
        )""",
        "ALTER TABLE submissions ADD COLUMN phase_id INTEGER REFERENCES phases(id)",
        # What the answer showed: at the ladder level a verdict is released only with a new
        # score; before this version every level released every verdict.
        "ALTER TABLE submissions ADD COLUMN shown_action TEXT",
        "UPDATE submissions SET shown_action = action WHERE outcome = 'scored'",
        # The rounding step of a rounded score (the only step before this version: 0.1).
        "ALTER TABLE submissions ADD COLUMN released_step TEXT",
        "UPDATE submissions SET released_step = '0.1' WHERE feedback_level = 'rounded' "
        "AND score_released = 1",
        # A team's rounding step; NULL: chosen from the test set's size.
        "ALTER TABLE teams ADD COLUMN rounding_step TEXT",
        """CREATE TABLE final_choices (
            phase_id INTEGER NOT NULL REFERENCES phases(id),
            team_id INTEGER NOT NULL REFERENCES teams(id),
            submission_id INTEGER NOT NULL REFERENCES submissions(id),
            PRIMARY KEY (phase_id, team_id, submission_id)
        )""",
        """CREATE TABLE final_results (
            phase_id INTEGER NOT NULL REFERENCES phases(id),
            team_id INTEGER NOT NULL REFERENCES teams(id),
            submission_id INTEGER NOT NULL REFERENCES submissions(id),
            chosen INTEGER NOT NULL,
            action TEXT NOT NULL,
            score REAL,
            PRIMARY KEY (phase_id, team_id, submission_id)
        )""",
        # What the service last served (the test set's size, for the rounding rule).
        """CREATE TABLE facts (
            key TEXT PRIMARY KEY,
            value TEXT NOT NULL
        )""",
    ),
    (
        # Every dataset version served: its cases file (kept to compare the next one with,
        # as private as the file itself) and what changed in its public fields since the
        # version served before it (published: GET /v1/versions).
        """CREATE TABLE dataset_versions (
            id INTEGER PRIMARY KEY,
            benchmark_id TEXT NOT NULL,
            benchmark_version TEXT NOT NULL,
            dataset_version TEXT NOT NULL,
            cases_sha256 TEXT NOT NULL,
            cases BLOB NOT NULL,
            previous_id INTEGER REFERENCES dataset_versions(id),
            public_changes TEXT,
            first_served_at REAL NOT NULL,
            UNIQUE (benchmark_id, benchmark_version, dataset_version)
        )""",
    ),
)
SCHEMA_VERSION = len(MIGRATIONS)


class DatabaseError(Exception):
    """The database cannot be used (a newer schema, an unreadable file); the message says
    why in plain words."""


class NoDatabase(DatabaseError):
    """``folder`` holds no service database, so a command that works on one's refuses it
    rather than make an empty one there (a mistyped ``--data``, most likely)."""

    def __init__(self, folder: str) -> None:
        self.folder = folder  # the message says what is wrong with it, not its name
        if os.path.isdir(folder):
            what = "no service database here (no %s)" % DATABASE_NAME
        else:
            what = "no such folder%s" % near_file(os.path.normpath(folder), folder)
        super().__init__("%s: --data names the folder the service keeps its database in "
                         "(serve --data DIR creates one, restore --from FILE --data DIR makes "
                         "one from a backup); nothing was created" % what)


def database_path(folder: str) -> str:
    return os.path.join(folder, DATABASE_NAME)


def require(folder: str) -> str:
    """The path of the service's database in ``folder``; :class:`NoDatabase` when there is
    none (nothing is made)."""
    path = database_path(folder)
    if not os.path.isfile(path):
        raise NoDatabase(folder)
    return path


def connect(path: str) -> sqlite3.Connection:
    """A new connection in autocommit mode (transactions are explicit), waiting for locks."""
    connection = sqlite3.connect(path, timeout=BUSY_TIMEOUT_SECONDS, isolation_level=None,
                                 check_same_thread=False)
    connection.execute("PRAGMA foreign_keys = ON")
    connection.execute("PRAGMA synchronous = NORMAL")  # WAL: durable at each checkpoint
    return connection


@contextmanager
def connection(path: str) -> Iterator[sqlite3.Connection]:
    """A connection, closed on leaving."""
    opened = connect(path)
    try:
        yield opened
    finally:
        opened.close()


# The writers of this process take turns here before they ask SQLite for its write lock:
# SQLite's own busy wait sleeps in steps of up to 100 ms, which made the slowest of 20
# concurrent submissions wait a second; a thread lock hands the turn over at once. Other
# processes sharing the file (several WSGI workers) still wait on SQLite's lock, which is
# what keeps the budget right across them.
_WRITERS = threading.Lock()


@contextmanager
def transaction(opened: sqlite3.Connection) -> Iterator[sqlite3.Connection]:
    """``BEGIN IMMEDIATE`` ... ``COMMIT`` (``ROLLBACK`` on any exception): the write lock is
    taken before the first read, so what is read cannot change before the commit."""
    with _WRITERS:
        opened.execute("BEGIN IMMEDIATE")
        try:
            yield opened
        except BaseException:
            opened.execute("ROLLBACK")
            raise
        opened.execute("COMMIT")


def open_database(folder: str, create: bool = True) -> str:
    """Create (``create``: the service's start) or upgrade the database in ``folder`` (made
    if missing); return its path. Without ``create``, a folder holding no database is
    :class:`NoDatabase`, and nothing is made."""
    if not create:
        require(folder)
    try:
        os.makedirs(folder, exist_ok=True)
        path = database_path(folder)
        with connection(path) as opened:
            check_schema(opened, empty_allowed=True)  # before anything is written to it
            mode = opened.execute("PRAGMA journal_mode = WAL").fetchone()[0]
            if str(mode).lower() != "wal":
                raise DatabaseError("%s cannot use write-ahead logging (journal mode %s)" % (
                    path, mode))
            migrate(opened)
    except (sqlite3.Error, OSError, DatabaseError) as problem:
        raise DatabaseError("cannot open the service's database in %s: %s" % (folder, problem))
    return path


# The first 16 bytes of every SQLite database file (https://sqlite.org/fileformat.html).
SQLITE_HEADER = b"SQLite format 3\x00"


def check_file(path: str) -> None:
    """Refuse what cannot be an SQLite database file (:class:`DatabaseError`): a missing path,
    a folder or another file that is not a regular one, an empty file, another kind of
    file. (SQLite itself takes an empty file for an empty database.)"""
    if not os.path.isfile(path):
        raise DatabaseError("%s is not a file%s" % (path, "" if os.path.lexists(path)
                                                     else near_file(path)))
    try:
        with open(path, "rb") as handle:
            header = handle.read(len(SQLITE_HEADER))
    except OSError as problem:
        raise DatabaseError("%s cannot be read: %s" % (path, problem))
    if not header:
        raise DatabaseError("%s is empty (0 bytes): not an SQLite database" % path)
    if header != SQLITE_HEADER:
        raise DatabaseError("%s is not an SQLite database (it does not begin with SQLite's "
                            "header)" % path)


def schema_version(opened: sqlite3.Connection) -> int:
    return int(opened.execute("PRAGMA user_version").fetchone()[0])


# A schema object as :func:`schema_shape` describes it: its type, name and table, and for a
# table its columns and foreign keys, for an index its columns (as SQLite's pragmas give them).
SchemaObject = Tuple[object, ...]


def schema_shape(opened: sqlite3.Connection) -> Dict[str, SchemaObject]:
    """Every table, index, view and trigger of the database by name, with what makes it what
    it is: a table's columns (name, type, not null, default, key) and foreign keys, an
    index's columns. SQLite's own statistics tables (``ANALYZE``) are left out."""
    found: Dict[str, SchemaObject] = {}
    for kind, name, table in opened.execute(
            "SELECT type, name, tbl_name FROM sqlite_master WHERE name NOT LIKE 'sqlite_stat%' "
            "ORDER BY name").fetchall():
        if kind == "table":
            found[name] = (kind, table, tuple(
                tuple(row[1:]) for row in opened.execute(
                    "SELECT * FROM pragma_table_info(?)", (name,))), tuple(
                tuple(row[2:]) for row in opened.execute(
                    "SELECT * FROM pragma_foreign_key_list(?)", (name,))))
        elif kind == "index":
            found[name] = (kind, table, tuple(tuple(row) for row in opened.execute(
                "SELECT * FROM pragma_index_info(?)", (name,))))
        else:
            found[name] = (kind, table)
    return found


_SHAPES: Dict[int, Dict[str, SchemaObject]] = {}


def expected_shape(version: int) -> Dict[str, SchemaObject]:
    """The shape of this release's schema at ``version`` (1..:data:`SCHEMA_VERSION`): its
    migrations applied to an empty database in memory."""
    if version not in _SHAPES:
        with connection(":memory:") as opened:
            for step in MIGRATIONS[:version]:
                for statement in step:
                    opened.execute(statement)
            _SHAPES[version] = schema_shape(opened)
    return _SHAPES[version]


def check_schema(opened: sqlite3.Connection, empty_allowed: bool = False) -> int:
    """The database's schema version, once its schema is this service's at that version,
    object for object; :class:`DatabaseError` saying what differs otherwise: a newer version,
    another application's tables, a table of the service's name with other columns. An
    empty database (version 0, no table) is allowed when ``empty_allowed`` (a new one)."""
    version = schema_version(opened)
    if version > SCHEMA_VERSION:
        raise DatabaseError("the database has schema version %d, newer than this release's "
                            "%d: use a newer proagents-bench" % (version, SCHEMA_VERSION))
    found = schema_shape(opened)
    if version <= 0:
        if not found and empty_allowed:
            return 0
        raise DatabaseError(
            "not the service's database: %s, and no schema version of the service's" % (
                "it holds another application's tables (%s)" % ", ".join(sorted(found))
                if found else "it is an empty SQLite database"))
    expected = expected_shape(version)
    if found != expected:
        differences = ["no %s" % name for name in sorted(set(expected) - set(found))]
        differences += ["a %s %s of another application" % (found[name][0], name)
                        for name in sorted(set(found) - set(expected))]
        differences += ["%s %s is not the service's (other columns or keys)" % (
            found[name][0], name) for name in sorted(set(found) & set(expected))
            if found[name] != expected[name]]
        raise DatabaseError("not the service's database at schema version %d: %s" % (
            version, "; ".join(differences)))
    return version


@contextmanager
def existing(path: str) -> Iterator[sqlite3.Connection]:
    """A connection to the service's database at ``path``, which must exist and be the
    service's (:func:`check_file`, :func:`check_schema`; never created nor migrated), closed
    on leaving; :class:`DatabaseError` naming the file otherwise."""
    check_file(path)
    with connection(path) as opened:
        try:
            check_schema(opened)
        except (DatabaseError, sqlite3.Error) as problem:
            raise DatabaseError("%s: %s" % (path, problem))
        yield opened


def migrate(opened: sqlite3.Connection) -> List[int]:
    """Apply the missing migrations in one transaction, once the schema is the service's
    (:func:`check_schema`); return the versions reached."""
    with transaction(opened):
        current = check_schema(opened, empty_allowed=True)
        reached = []
        for version in range(current, SCHEMA_VERSION):
            for statement in MIGRATIONS[version]:
                opened.execute(statement)
            reached.append(version + 1)
        # PRAGMA takes no parameters; the value is this module's own integer.
        opened.execute("PRAGMA user_version = %d" % SCHEMA_VERSION)
    return reached
