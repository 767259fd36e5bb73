"""Backup and restore of the service's database, with SQLite's online backup API
(``sqlite3.Connection.backup``), while the service runs.

:func:`backup` copies the live database in one step: one read transaction, so the copy is
the database as it was at one instant (in WAL mode the service keeps writing meanwhile).
:func:`restore` copies a backup file into a data folder that holds no database yet and
opens it as the service would (write-ahead logging, the schema migrated when the backup is
older).

Both write to a temporary file beside the target and check it there (:func:`verify`): SQLite's
integrity check and foreign keys, the schema object for object against this release's at
the copy's version (another application's database, or a table of the service's name with
other columns, is refused), and every digest the database stores against what it hashes
(each submission's SHA-256 and size, each dataset version's cases, each phase's published
commitment to its seed). Only a copy that passes is renamed to the target; on any failure
nothing is left behind: no temporary file, no target, and no data folder that the restore
made.
"""

from __future__ import annotations

import hashlib
import os
import secrets
import shutil
import sqlite3
from typing import Dict, Iterator, List, Optional

from . import database, parts

_SIDECARS = ("-journal", "-wal", "-shm")


class BackupError(Exception):
    """A backup or restore that cannot be done; the message says why."""


def _digest_problems(opened: sqlite3.Connection) -> Iterator[str]:
    """Each stored digest that does not match what it hashes, in words."""
    for number, digest, size, body in opened.execute(
            "SELECT id, sha256, size, body FROM submissions ORDER BY id"):
        if body is None:
            continue  # nothing kept to hash (the schema allows it; the service always keeps it)
        data = bytes(body)
        if hashlib.sha256(data).hexdigest() != digest or len(data) != size:
            yield ("submission %d: its stored bytes no longer match its SHA-256 %s"
                   % (number, digest))
    if database.schema_version(opened) >= 2:  # phases came with schema version 2
        for name, seed, commitment in opened.execute(
                "SELECT name, seed, commitment FROM phases ORDER BY id"):
            try:
                matches = parts.commitment(bytes.fromhex(seed)) == commitment
            except ValueError:  # not hexadecimal: it hashes nothing
                matches = False
            if not matches:
                yield "phase %r: its seed no longer matches its published SHA-256" % name
    if database.schema_version(opened) >= 3:  # dataset versions came with version 3
        for key, digest, cases in opened.execute(
                "SELECT dataset_version, cases_sha256, cases FROM dataset_versions "
                "ORDER BY id"):
            if hashlib.sha256(bytes(cases)).hexdigest() != digest:
                yield ("dataset version %r: its stored cases file no longer matches its "
                       "SHA-256" % key)


def verify(path: str) -> int:
    """Check the database file at ``path`` (see the module's docstring); its schema
    version. :class:`BackupError` saying what is wrong (every digest that does not match, the
    first ten), to be read after the file's name and a colon."""
    try:
        with database.connection(path) as opened:
            check = [row[0] for row in opened.execute("PRAGMA integrity_check")]
            if check != ["ok"]:
                raise BackupError("SQLite's integrity check fails: %s" % "; ".join(
                    str(item) for item in check[:10]))
            try:
                version = database.check_schema(opened)
            except database.DatabaseError as problem:
                raise BackupError(str(problem))
            problems: List[str] = []
            for problem_text in _digest_problems(opened):
                problems.append(problem_text)
            if opened.execute("PRAGMA foreign_key_check").fetchone() is not None:
                problems.append("a row refers to a row that is not there (PRAGMA "
                                "foreign_key_check)")
    except sqlite3.Error as problem:
        raise BackupError("cannot be read as the service's database: %s" % problem)
    if problems:
        raise BackupError("stored digests do not match: %s%s" % (
            "; ".join(problems[:10]), "; and %d more" % (len(problems) - 10)
            if len(problems) > 10 else ""))
    return version


def _describe(path: str, version: int) -> Dict[str, object]:
    digest = hashlib.sha256()
    size = 0
    with open(path, "rb") as handle:
        for block in iter(lambda: handle.read(1 << 20), b""):
            digest.update(block)
            size += len(block)
    with database.connection(path) as opened:
        counts = {table: opened.execute("SELECT COUNT(*) FROM %s" % table).fetchone()[0]
                  for table in ("teams", "submissions", "audit")}  # this module's own names
    return {"bytes": size, "sha256": digest.hexdigest(), "schema_version": version,
            "teams": counts["teams"], "submissions": counts["submissions"],
            "audit_rows": counts["audit"]}


def _remove(path: str) -> None:
    """Remove a temporary database file and SQLite's files beside it, where present."""
    for leftover in (path,) + tuple(path + suffix for suffix in _SIDECARS):
        if os.path.lexists(leftover):
            os.remove(leftover)


def _partial(target: str) -> str:
    return "%s.partial-%s" % (target, secrets.token_hex(4))


def _refuse_existing(target: str) -> None:
    if os.path.lexists(target):
        raise BackupError("%s exists already%s: a backup never overwrites a file" % (
            target, " (a symbolic link)" if os.path.islink(target) else ""))


def backup(folder: str, target: str) -> Dict[str, object]:
    """Copy the database of the data folder ``folder`` to the new file ``target``; what was
    copied (size, SHA-256, schema version, row counts). The copy is checked
    (:func:`verify`) before it takes the target's name. A folder holding no database is
    :class:`~.database.NoDatabase` (nothing is copied, nothing made)."""
    source = database.require(folder)
    _refuse_existing(target)
    partial = _partial(target)
    try:
        try:
            with database.connection(source) as opened, \
                    database.connection(partial) as copy:
                opened.backup(copy)  # pages=-1: the whole database in one step
                mode = copy.execute("PRAGMA journal_mode = DELETE").fetchone()[0]
            if str(mode).lower() != "delete":
                raise BackupError("the copy of %s stays in journal mode %s; a backup is one "
                                  "file" % (source, mode))
        except (sqlite3.Error, OSError) as problem:
            raise BackupError("cannot back up %s to %s: %s" % (source, target, problem))
        try:
            version = verify(partial)
        except BackupError as problem:
            raise BackupError("%s was not backed up (nothing was written); its copy: %s"
                              % (source, problem))
        described = _describe(partial, version)
        _refuse_existing(target)  # made meanwhile: still never overwritten
        os.replace(partial, target)
    except OSError as problem:
        raise BackupError("cannot back up %s to %s: %s" % (source, target, problem))
    finally:
        _remove(partial)
    described.update(backup=os.path.abspath(target), data=os.path.abspath(folder))
    return described


def _made_folders(folder: str) -> List[str]:
    """The folders that making ``folder`` would create, deepest first."""
    missing = []
    current = os.path.abspath(folder)
    while not os.path.exists(current):
        missing.append(current)
        parent = os.path.dirname(current)
        if parent == current:
            break
        current = parent
    return missing


def restore(source: str, folder: str) -> Dict[str, object]:
    """Make the data folder ``folder`` (which must hold no database yet) from the backup file
    ``source``; what was restored. Then ``serve --data FOLDER`` serves it. The source is
    read as bytes, never opened by SQLite, and checked as a copy (:func:`verify`) before it
    takes the database's name; a refused restore leaves nothing, not even the folder when it
    made it."""
    try:
        database.check_file(source)
    except database.DatabaseError as problem:
        raise BackupError(str(problem))
    for suffix in ("-wal", "-journal"):
        if os.path.lexists(source + suffix):
            raise BackupError("%s%s lies beside %s: it is a live database or a copy that may "
                              "lack its latest transactions; make a backup with the backup "
                              "command" % (source, suffix, source))
    target = database.database_path(folder)
    if any(os.path.lexists(target + suffix) for suffix in ("",) + _SIDECARS):
        raise BackupError("%s holds a database already: restore into a new folder" % folder)
    made = _made_folders(folder)
    partial: Optional[str] = None
    try:
        os.makedirs(folder, exist_ok=True)
        partial = _partial(target)
        shutil.copyfile(source, partial)
        try:
            version = verify(partial)
        except BackupError as problem:
            raise BackupError("%s was not restored: %s" % (source, problem))
        try:  # write-ahead logging, an older schema migrated: as the service opens it
            with database.connection(partial) as opened:
                opened.execute("PRAGMA journal_mode = WAL").fetchone()
                database.migrate(opened)
        except (sqlite3.Error, database.DatabaseError) as problem:
            raise BackupError("cannot restore %s into %s: %s" % (source, folder, problem))
        described = _describe(partial, database.SCHEMA_VERSION)
        described["backup_schema_version"] = version
        if os.path.lexists(target):
            raise BackupError("%s holds a database already: restore into a new folder"
                              % folder)
        os.replace(partial, target)
        partial = None
    except BaseException as problem:
        if partial is not None:
            _remove(partial)
        for made_folder in made:  # deepest first; only what this restore made, if empty
            try:
                os.rmdir(made_folder)
            except OSError:
                break
        if isinstance(problem, OSError):
            raise BackupError("cannot restore %s into %s: %s" % (source, folder, problem))
        raise
    described.update(restored_from=os.path.abspath(source), data=os.path.abspath(folder))
    return described
