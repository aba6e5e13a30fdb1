"""One writer at a time, across processes.

SQLite serialises single transactions, but an indexing run is many transactions (one per
document); two runs interleaving would embed the same files twice. A run therefore holds an
advisory ``flock`` on ``<index>.lock`` from start to end. The kernel drops the lock when the
process dies, even by ``kill -9``, so a crash never leaves a stale lock behind.
"""

from __future__ import annotations

import fcntl
import os
import time
from pathlib import Path
from typing import Self

from ..errors import IndexLockedError


class WriterLock:
    """Exclusive lock on ``<index path>.lock``; re-entrant within one object."""

    def __init__(self, index_path: Path, timeout: float = 5.0):
        self.path = Path(str(index_path) + ".lock")
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
        fd = os.open(self.path, os.O_RDWR | os.O_CREAT, 0o644)
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
        os.ftruncate(fd, 0)
        os.pwrite(fd, str(os.getpid()).encode(), 0)
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
            os.ftruncate(fd, 0)
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
