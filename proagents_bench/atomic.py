"""Atomic file writes: a reader sees the old file or the new one, never half of either.

Each file is written to a temporary file in the destination's own folder (so the final rename
never crosses file systems), flushed to disk, and renamed over the destination with
:func:`os.replace`, which is atomic on POSIX and on Windows. Several files are written in two
phases: every temporary file first, then every rename, so that a failure while writing (a
missing folder, a full disk, no permission) leaves every destination exactly as it was.

A destination that is a symbolic link keeps its link: the file it points to is replaced. A
destination that exists but is not a regular file (a folder, a device such as /dev/stdout, a
FIFO) is refused, since replacing it would not mean "write a report there".
"""

import errno
import os
import stat
import tempfile


class AtomicWriteError(Exception):
    """A file could not be written. ``path`` is the destination as given; ``reason`` says
    why in plain words."""

    def __init__(self, path, reason, replaced=()):
        self.path = path
        self.reason = reason
        self.replaced = list(replaced)  # destinations already replaced (only when a final
        # rename failed after others succeeded, which a pre-checked destination makes rare)
        super().__init__("%s: %s" % (path, reason))


_REASONS = {
    errno.ENOENT: "its folder does not exist",
    errno.ENOTDIR: "a part of its folder path is not a folder",
    errno.EACCES: "permission denied",
    errno.EPERM: "permission denied",
    errno.EISDIR: "it is a folder",
    errno.ENOSPC: "no space left on the device",
    errno.EROFS: "the file system is read-only",
    errno.ENAMETOOLONG: "the name is too long",
}


def _reason(problem):
    return _REASONS.get(problem.errno) or problem.strerror or str(problem)


def _current_umask():
    mask = os.umask(0)
    os.umask(mask)
    return mask


def _destination(path):
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


def _write_temporary(path, target, mode, data):
    """Write ``data`` to a new temporary file beside ``target``; return its path."""
    folder = os.path.dirname(target) or os.curdir
    try:
        handle, temporary = tempfile.mkstemp(prefix="." + os.path.basename(target) + ".",
                                             suffix=".tmp", dir=folder)
    except OSError as problem:
        raise AtomicWriteError(path, _reason(problem))
    try:
        with os.fdopen(handle, "wb") as stream:
            stream.write(data)
            stream.flush()
            os.fsync(stream.fileno())
        os.chmod(temporary, mode)
    except OSError as problem:
        _remove_quietly(temporary)
        raise AtomicWriteError(path, _reason(problem))
    return temporary


def _remove_quietly(path):
    try:
        os.remove(path)
    except OSError:
        pass


def write_files_atomically(files):
    """Write every (path, bytes) pair of ``files``; raise :class:`AtomicWriteError` for the
    first that fails. Until every temporary file is written nothing is replaced."""
    staged = []
    try:
        for path, data in files:
            target, mode = _destination(path)
            staged.append((path, target, _write_temporary(path, target, mode, data)))
    except BaseException:
        for _path, _target, temporary in staged:
            _remove_quietly(temporary)
        raise
    for index, (path, target, temporary) in enumerate(staged):
        try:
            os.replace(temporary, target)
        except OSError as problem:
            for _path, _target, left in staged[index:]:
                _remove_quietly(left)
            raise AtomicWriteError(path, _reason(problem),
                                   [done for done, _target, _left in staged[:index]])


def write_file_atomically(path, data):
    """Write ``data`` (bytes) to ``path`` atomically."""
    write_files_atomically([(path, data)])
