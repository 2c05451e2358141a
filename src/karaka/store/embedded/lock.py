"""Cross-process locks on a workspace directory (``fcntl.flock`` on small files inside it)."""

from __future__ import annotations

import fcntl
import json
import os
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path

WAIT_NOTICE_SECONDS = 5.0


class WorkspaceLock:
    """One writing process at a time; every thread of the holding process shares the hold.

    Threads of one process share one in-memory workspace, so they need no lock from each other
    here (the workspace's own mutex orders their changes); other processes must wait.

    The holder writes its pid and purpose into the lock file, so a second writer can say whom it
    waits for. ``on_wait`` is told once when a writer has to wait, and again every
    ``WAIT_NOTICE_SECONDS`` while it still waits.
    """

    def __init__(self, path: Path, on_wait: Callable[[str], None] | None = None):
        self.path = path
        self.on_wait = on_wait
        self._mutex = threading.Lock()
        self._depth = 0
        self._fd: int | None = None

    def holder(self) -> str:
        """Who holds the lock, as written by them ('' if unknown)."""
        try:
            info = json.loads(self.path.read_text(encoding="utf-8") or "{}")
        except (OSError, ValueError):
            return ""
        return f"pid {info.get('pid')} ({info.get('purpose') or 'writing'})" if info else ""

    @contextmanager
    def hold(self, purpose: str = "", timeout: float | None = None) -> Iterator[None]:
        """Hold the lock; blocks (with notices) while another process holds it.

        Raises:
            TimeoutError: ``timeout`` seconds passed without getting the lock.
        """
        with self._mutex:
            if self._depth == 0:
                self._acquire(purpose, timeout)
            self._depth += 1
        try:
            yield
        finally:
            with self._mutex:
                self._depth -= 1
                if self._depth == 0:
                    self._release()

    def _acquire(self, purpose: str, timeout: float | None) -> None:
        fd = os.open(self.path, os.O_RDWR | os.O_CREAT, 0o644)
        started = time.monotonic()
        noticed = 0.0
        while True:
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
                break
            except BlockingIOError:
                waited = time.monotonic() - started
                if timeout is not None and waited >= timeout:
                    os.close(fd)
                    raise TimeoutError(f"{self.path.parent}: another writer holds the workspace "
                                       f"({self.holder() or 'unknown'})") from None
                if self.on_wait is not None and (not noticed or waited - noticed >= WAIT_NOTICE_SECONDS):
                    self.on_wait(f"waiting for another writer on {self.path.parent}: {self.holder() or 'unknown'}")
                    noticed = waited or 1e-9
                time.sleep(0.05)
        os.ftruncate(fd, 0)
        os.pwrite(fd, json.dumps({"pid": os.getpid(), "purpose": purpose}).encode(), 0)
        self._fd = fd

    def _release(self) -> None:
        if self._fd is None:
            return
        os.ftruncate(self._fd, 0)
        fcntl.flock(self._fd, fcntl.LOCK_UN)
        os.close(self._fd)
        self._fd = None


def is_read_only(folder: Path) -> bool:
    """True when ``folder`` cannot be written: a read-only mount, or no write permission."""
    try:
        return bool(os.statvfs(folder).f_flag & os.ST_RDONLY) or not os.access(folder, os.W_OK)
    except OSError:
        return False


@contextmanager
def file_lock(path: Path, shared: bool) -> Iterator[None]:
    """A short shared (readers) or exclusive (a writer saving files) lock.

    A reader of a read-only workspace (a shared, mounted knowledge base) opens the lock file for
    reading, or takes no lock where it cannot exist: no one can write there.
    """
    try:
        fd = os.open(path, os.O_RDWR | os.O_CREAT, 0o644)
    except OSError:
        if not shared:
            raise
        try:
            fd = os.open(path, os.O_RDONLY)
        except OSError:
            yield
            return
    try:
        fcntl.flock(fd, fcntl.LOCK_SH if shared else fcntl.LOCK_EX)
        yield
    finally:
        fcntl.flock(fd, fcntl.LOCK_UN)
        os.close(fd)
