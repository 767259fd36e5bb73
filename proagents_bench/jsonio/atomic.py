"""Atomic file writes: a reader sees the old files or the new ones, never half of either.

Several files are published all or none, in two phases:

1. Each file is written to a temporary file in its destination's own folder (so the final
   rename never crosses file systems) and flushed to disk. A failure or a signal here removes
   every temporary file and leaves every destination as it was.
2. Every destination that exists is hard-linked to a backup name, then every temporary file
   is renamed over its destination with :func:`os.replace` (atomic on POSIX and on Windows).
   If a rename fails, the destinations already replaced get their backups back (or are
   removed, where there was no file before), so the folder is as it was. This phase runs
   inside ``critical_section`` (the command line passes one in which a signal is recorded and
   raised only when the section ends), so a signal cannot stop it halfway either.

Temporary and backup names are short (``.proagents-`` and 12 hex digits), never derived from
the destination's name, so any name the file system allows (up to its NAME_MAX) can be
written. A destination that is a symbolic link keeps its link: the file it points to is
replaced. A folder is refused. A destination that is a stream, a character device
(``/dev/null``, ``NUL``) or a FIFO, holds no earlier file to keep: it is written straight
into, before any file is published (so a failure there still leaves every file as it was);
the command line refuses the streams that carry its own output (/dev/stdout) before this.
Only a SIGKILL or a power cut can leave a ``.proagents-*.tmp`` file behind.
"""

from __future__ import annotations

import binascii
import errno
import os
import stat
from contextlib import contextmanager
from typing import (TYPE_CHECKING, Callable, ContextManager, Dict, Iterable, Iterator, List,
                    Optional, Tuple, Union)

if TYPE_CHECKING:  # for annotations only
    from typing import Literal

# A file to publish: (the path as given, the file it replaces, its temporary file).
_Staged = Tuple[str, str, str]

TEMPORARY_PREFIX = ".proagents-"
TEMPORARY_SUFFIX = ".tmp"


class AtomicWriteError(Exception):
    """A file could not be written. ``path`` is the destination as given; ``reason`` says
    why in plain words; ``replaced`` lists destinations that were replaced and could not be
    put back (empty unless the file system refused a rollback too)."""

    def __init__(self, path: str, reason: str, replaced: Iterable[str] = ()) -> None:
        self.path = path
        self.reason = reason
        self.replaced = list(replaced)
        super().__init__("%s: %s" % (path, reason))


_REASONS: Dict[Optional[int], str] = {  # an OSError's errno may be None
    errno.ENOENT: "its folder does not exist",
    errno.ENOTDIR: "a part of its folder path is not a folder",
    errno.EACCES: "permission denied",
    errno.EPERM: "permission denied",
    errno.EISDIR: "it is a folder",
    errno.ENOSPC: "no space left on the device",
    errno.EROFS: "the file system is read-only",
    errno.ENAMETOOLONG: "the name is too long",
    errno.EFBIG: "the file size limit was reached",
}


def _reason(problem: OSError) -> str:
    return _REASONS.get(problem.errno) or problem.strerror or str(problem)


@contextmanager
def _no_critical_section() -> Iterator[None]:
    yield


def _current_umask() -> int:
    mask = os.umask(0)
    os.umask(mask)
    return mask


def is_stream(path: str) -> bool:
    """Whether ``path`` is a character device or a FIFO (written into, never replaced)."""
    try:
        mode = os.stat(path).st_mode
    except (OSError, ValueError):
        return False
    return stat.S_ISCHR(mode) or stat.S_ISFIFO(mode)


def _write_stream(path: str, data: bytes) -> None:
    try:
        with open(path, "wb") as stream:
            stream.write(data)
    except OSError as problem:
        raise AtomicWriteError(path, _reason(problem))


def _destination(path: str) -> Tuple[str, int]:
    """The file to replace (a symbolic link's target) and the mode the new file gets."""
    target = os.path.realpath(path) if os.path.islink(path) else path
    try:
        # Stat the path itself, following links: /dev/stdout on a pipe resolves to no file.
        info = os.stat(path)
    except FileNotFoundError:
        return target, 0o666 & ~_current_umask()
    except OSError as problem:
        raise AtomicWriteError(path, _reason(problem))
    if stat.S_ISDIR(info.st_mode):
        raise AtomicWriteError(path, "it is a folder")
    if not stat.S_ISREG(info.st_mode):
        raise AtomicWriteError(path, "it exists and is not a regular file (a device or a "
                                     "pipe cannot be replaced atomically)")
    return target, stat.S_IMODE(info.st_mode)


def _fresh_name(target: str) -> str:
    """A path beside ``target`` that does not exist yet (short: see the module docstring)."""
    folder = os.path.dirname(target) or os.curdir
    token = binascii.hexlify(os.urandom(6)).decode("ascii")
    return os.path.join(folder, TEMPORARY_PREFIX + token + TEMPORARY_SUFFIX)


def _create_temporary(target: str) -> Tuple[int, str]:
    """(descriptor, path) of a new, empty, exclusively created file beside ``target``."""
    flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_BINARY", 0)
    while True:
        name = _fresh_name(target)
        try:
            return os.open(name, flags, 0o600), name
        except FileExistsError:
            continue


def _write_temporary(descriptor: int, temporary: str, mode: int, data: bytes) -> None:
    with os.fdopen(descriptor, "wb") as stream:
        stream.write(data)
        stream.flush()
        os.fsync(stream.fileno())
    os.chmod(temporary, mode)


def _remove_quietly(path: str) -> None:
    try:
        os.remove(path)
    except OSError:
        pass


def _backup(target: str) -> Union[str, None, Literal[False]]:
    """A hard link to ``target`` under a fresh name, None when there is no file to keep, or
    False when the file system has no hard links (then that file cannot be rolled back)."""
    if not os.path.exists(target):
        return None
    while True:
        name = _fresh_name(target)
        try:
            os.link(target, name)
            return name
        except FileExistsError:
            continue
        except (OSError, AttributeError):
            return False


def _publish(staged: List[_Staged]) -> None:
    """Phase 2 (see the module docstring) for [(path, target, temporary)]."""
    backups = [_backup(target) for _path, target, _temporary in staged]
    replaced = 0
    try:
        for path, target, temporary in staged:
            try:
                os.replace(temporary, target)
            except OSError as problem:
                raise AtomicWriteError(path, _reason(problem))
            replaced += 1
    except AtomicWriteError as failure:
        failure.replaced = _roll_back(staged[:replaced], backups[:replaced])
        for _path, _target, temporary in staged[replaced:]:
            _remove_quietly(temporary)
        raise
    finally:
        for backup in backups:
            if backup:
                _remove_quietly(backup)  # a backup used in the rollback is gone already


def _roll_back(done: List[_Staged],
               backups: List[Union[str, None, Literal[False]]]) -> List[str]:
    """Undo the renames of ``done``; return the paths that could not be put back."""
    left: List[str] = []
    for (path, target, _temporary), backup in zip(done, backups):
        try:
            if backup:
                os.replace(backup, target)
            elif backup is None:
                os.remove(target)  # there was no file here before
            else:
                left.append(path)
        except OSError:
            left.append(path)
    return left


def write_files_atomically(files: Iterable[Tuple[str, bytes]],
                           critical_section: Callable[[], ContextManager[None]]
                           = _no_critical_section) -> None:
    """Write every (path, bytes) pair of ``files``, all or none; raise
    :class:`AtomicWriteError` for the first that fails. ``critical_section`` is a context
    manager factory under which the temporary files are created and renamed (see the module
    docstring)."""
    files = list(files)
    for path, data in files:
        if is_stream(path):
            _write_stream(path, data)
    staged: List[_Staged] = []
    try:
        for path, data in files:
            if is_stream(path):
                continue
            target, mode = _destination(path)
            with critical_section():  # created and recorded as one step, never half
                try:
                    descriptor, temporary = _create_temporary(target)
                except OSError as problem:
                    raise AtomicWriteError(path, _reason(problem))
                staged.append((path, target, temporary))
            try:
                _write_temporary(descriptor, temporary, mode, data)
            except OSError as problem:
                raise AtomicWriteError(path, _reason(problem))
    except BaseException:
        for _path, _target, temporary in staged:
            _remove_quietly(temporary)
        raise
    with critical_section():
        _publish(staged)
