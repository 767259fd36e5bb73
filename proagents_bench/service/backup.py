"""Backup and restore of the service's database, with SQLite's online backup API
(``sqlite3.Connection.backup``), while the service runs.

:func:`backup` copies the live database in one step: one read transaction, so the copy is
the database as it was at one instant (in WAL mode the service keeps writing meanwhile). The
copy is written to a temporary file beside the target, checked (``PRAGMA integrity_check``),
switched to a single file (rollback journal, no ``-wal`` beside it) and only then renamed to
the target, so a backup that fails leaves no file that looks like one. :func:`restore` copies
a backup into a data folder that holds no database yet, then opens it as the service would
(write-ahead logging, the schema migrated when the backup is older).
"""

from __future__ import annotations

import hashlib
import os
import secrets
import sqlite3
from typing import Dict

from . import database


class BackupError(Exception):
    """A backup or restore that cannot be done; the message says why."""


def _copy(source: str, target: str) -> None:
    """Copy the database at ``source`` to a new file ``target`` (checked, one file)."""
    partial = "%s.partial-%s" % (target, secrets.token_hex(4))
    try:
        with database.connection(source) as opened, database.connection(partial) as copy:
            opened.backup(copy)  # pages=-1: the whole database in one step
            mode = copy.execute("PRAGMA journal_mode = DELETE").fetchone()[0]
            check = copy.execute("PRAGMA integrity_check").fetchone()[0]
        if str(mode).lower() != "delete" or check != "ok":
            raise BackupError("the copy of %s failed its check: %s" % (source, check))
        os.replace(partial, target)
    finally:
        for leftover in (partial, partial + "-journal", partial + "-wal", partial + "-shm"):
            if os.path.exists(leftover):
                os.remove(leftover)


def _describe(path: str) -> Dict[str, object]:
    with open(path, "rb") as handle:
        data = handle.read()
    with database.connection(path) as opened:
        counts = {table: opened.execute("SELECT COUNT(*) FROM %s" % table).fetchone()[0]
                  for table in ("teams", "submissions", "audit")}  # this module's own names
        version = database.schema_version(opened)
    return {"bytes": len(data), "sha256": hashlib.sha256(data).hexdigest(),
            "schema_version": version, "teams": counts["teams"],
            "submissions": counts["submissions"], "audit_rows": counts["audit"]}


def backup(folder: str, target: str) -> Dict[str, object]:
    """Copy the database of the data folder ``folder`` to the new file ``target``; what was
    copied (size, SHA-256, schema version, row counts)."""
    source = database.database_path(folder)
    if not os.path.isfile(source):
        raise BackupError("%s holds no service database (%s)" % (folder,
                                                                 database.DATABASE_NAME))
    if os.path.exists(target):
        raise BackupError("%s exists already: a backup never overwrites a file" % target)
    try:
        _copy(source, target)
        described = _describe(target)
    except (sqlite3.Error, OSError) as problem:
        raise BackupError("cannot back up %s to %s: %s" % (source, target, problem))
    described.update(backup=os.path.abspath(target), data=os.path.abspath(folder))
    return described


def restore(source: str, folder: str) -> Dict[str, object]:
    """Make the data folder ``folder`` (which must hold no database yet) from the backup file
    ``source``; what was restored. Then ``serve --data FOLDER`` serves it."""
    if not os.path.isfile(source):
        raise BackupError("%s is not a file" % source)
    target = database.database_path(folder)
    if any(os.path.exists(target + suffix) for suffix in ("", "-wal", "-shm", "-journal")):
        raise BackupError("%s holds a database already: restore into a new folder" % folder)
    try:
        os.makedirs(folder, exist_ok=True)
        with database.connection(source) as opened:  # a backup is one file, never a live one
            check = opened.execute("PRAGMA integrity_check").fetchone()[0]
        if check != "ok":
            raise BackupError("%s fails SQLite's integrity check: %s" % (source, check))
        _copy(source, target)
        database.open_database(folder)  # write-ahead logging; an older schema migrated
        described = _describe(target)
    except (sqlite3.Error, OSError, database.DatabaseError) as problem:
        raise BackupError("cannot restore %s into %s: %s" % (source, folder, problem))
    described.update(restored_from=os.path.abspath(source), data=os.path.abspath(folder))
    return described
