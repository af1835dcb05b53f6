"""An exclusive lock on a file that names its holder: one writer of a state or an index.

``flock`` (not ``fcntl`` record locks, which a process loses when it closes any
descriptor of the file) held on a lock file beside the data, with the holder's PID
written in it for the "in use by another run (pid N)" message. The kernel drops the
lock when its holder dies, SIGKILL included, so a crashed run never leaves a stale lock.
The lock file is never unlinked by a release (a waiter and a newcomer would then lock
two different inodes), and a lock taken on a file someone unlinked meanwhile is taken
again on the file the path names now.

Written here rather than taken from a library: ``filelock`` has no holder's PID and
does not re-check the inode after an unlink (``state.store.forget_job`` unlinks).
"""

from __future__ import annotations

import contextlib
import errno
import fcntl
import os
import time
from pathlib import Path


class LockError(Exception):
    """The lock file cannot be opened or locked (the message names it and why)."""


class LockHeld(Exception):
    """Another process held the lock for the whole wait; ``pid`` is what it wrote
    ("" when unknown)."""

    def __init__(self, pid: str) -> None:
        super().__init__(pid)
        self.pid = pid


def holder_pid(fd: int) -> str:
    """The PID the lock's holder wrote in it, or "" when unreadable."""
    with contextlib.suppress(OSError):
        return os.pread(fd, 32, 0).decode("ascii", "replace").strip()
    return ""


def hold(path: Path, timeout: float, poll: float) -> int:
    """Hold an exclusive flock on ``path`` (created if missing) with our PID written in
    it; return its descriptor (give it to :func:`release`). Polls every ``poll``
    seconds for up to ``timeout`` seconds, then raises :class:`LockHeld`; raises
    :class:`LockError` when the file cannot be opened or locked."""
    deadline = time.monotonic() + max(0.0, timeout)
    while True:
        try:
            fd = os.open(path, os.O_RDWR | os.O_CREAT, 0o644)
        except OSError as exc:
            raise LockError(f"cannot open lock file {path}: {exc.strerror}") from None
        try:
            while True:
                try:
                    fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
                    break
                except OSError as exc:
                    if exc.errno not in (errno.EAGAIN, errno.EACCES, errno.EWOULDBLOCK):
                        raise LockError(f"cannot lock {path}: {exc.strerror}") from None
                    remaining = deadline - time.monotonic()
                    if remaining <= 0:
                        raise LockHeld(holder_pid(fd)) from None
                    time.sleep(min(poll, remaining))
            # the file may have been unlinked while we waited on it: a lock on a deleted
            # inode guards nothing (the next opener creates a new file)
            try:
                same = os.path.samestat(os.fstat(fd), os.stat(path))
            except FileNotFoundError:
                same = False
            if not same:
                os.close(fd)
                continue
            os.ftruncate(fd, 0)
            os.pwrite(fd, f"{os.getpid()}\n".encode("ascii"), 0)
            return fd
        except BaseException:
            with contextlib.suppress(OSError):
                os.close(fd)
            raise


def release(fd: int) -> None:
    """Drop our PID and the lock, and close ``fd``; errors are ignored (the kernel
    releases the lock with the descriptor anyway). The file stays."""
    with contextlib.suppress(OSError):
        os.ftruncate(fd, 0)
    with contextlib.suppress(OSError):
        fcntl.flock(fd, fcntl.LOCK_UN)
    with contextlib.suppress(OSError):
        os.close(fd)
