"""One writer at a time, across processes.

SQLite serialises single transactions, but an indexing run is many transactions (one per
document); two runs interleaving would embed the same files twice. A run therefore holds an
advisory ``flock`` on ``<index>.lock`` from start to end. The kernel drops the lock when the
process dies, even by ``kill -9``, so a crash never leaves a stale lock behind. The lock file
is named after the index's resolved path, so every name of one file (a symlink, a relative
path) takes the same lock.
"""

from __future__ import annotations

import errno
import fcntl
import os
import time
from pathlib import Path
from typing import Self

from ..errors import IndexLockedError, StoreError


class WriterLock:
    """Exclusive lock on ``<index path>.lock``; re-entrant within one object."""

    def __init__(self, index_path: Path, timeout: float = 5.0):
        self.path = Path(str(_resolved(Path(index_path))) + ".lock")
        self.index_path = index_path
        self.timeout = timeout
        self._fd: int | None = None
        self._depth = 0

    @property
    def held(self) -> bool:
        return self._fd is not None

    def acquire(self) -> None:
        if self._fd is not None:
            self._depth += 1
            return
        try:
            fd = os.open(self.path, os.O_RDWR | os.O_CREAT, 0o644)
        except OSError as e:
            raise _lock_error(self.index_path, self.path, e) from None
        deadline = time.monotonic() + self.timeout
        while True:
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
                break
            except BlockingIOError:
                if time.monotonic() >= deadline:
                    holder = _read_pid(fd)
                    os.close(fd)
                    who = f" (pid {holder})" if holder else ""
                    raise IndexLockedError(
                        f"{self.index_path} is being written by another zoomrag process{who}; "
                        f"wait for it to finish and run again, or write to another file with --index"
                    ) from None
                time.sleep(0.05)
        try:  # the holder's pid, for the message of a writer that waits; not needed for the lock
            os.ftruncate(fd, 0)
            os.pwrite(fd, str(os.getpid()).encode(), 0)
        except OSError:
            pass
        self._fd = fd
        self._depth = 1

    def release(self) -> None:
        if self._fd is None:
            return
        self._depth -= 1
        if self._depth > 0:
            return
        fd, self._fd = self._fd, None
        try:
            try:
                os.ftruncate(fd, 0)
            except OSError:
                pass
            fcntl.flock(fd, fcntl.LOCK_UN)
        finally:
            os.close(fd)

    def __enter__(self) -> Self:
        self.acquire()
        return self

    def __exit__(self, *exc: object) -> None:
        self.release()


def _read_pid(fd: int) -> str:
    try:
        return os.pread(fd, 32, 0).decode(errors="replace").strip()
    except OSError:
        return ""


def _resolved(path: Path) -> Path:
    try:
        return path.resolve()
    except (OSError, RuntimeError):  # a symlink loop: the store refuses the path by name
        return path.absolute()


def _lock_error(index_path: Path, lock_path: Path, e: OSError) -> StoreError:
    if e.errno in (errno.EROFS, errno.EACCES, errno.EPERM):
        return StoreError(f"{index_path}: cannot write here: the index is read-only (its lock file "
                          f"{lock_path} cannot be created: {e.strerror}); reading works; to change it make "
                          "the folder writable, or copy the file and use the copy with --index")
    if e.errno == errno.ENOSPC:
        return StoreError(f"{index_path}: cannot write: the disk is full (creating {lock_path}); "
                          "free some space and run again")
    return StoreError(f"{index_path}: cannot create the lock file {lock_path} ({e.strerror}); "
                      "check the folder's permissions")
