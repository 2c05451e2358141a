"""Atomic file writes: a temp file in the same folder, fsync, rename, then fsync the folder.

The file gets the mode a plain ``open`` would give (the umask's), not ``mkstemp``'s 0600.
"""

from __future__ import annotations

import os
import tempfile
from collections.abc import Callable
from pathlib import Path
from typing import IO

from karaka.store.damage import DiskFull, is_disk_full


def _umask() -> int:
    mask = os.umask(0)
    os.umask(mask)
    return mask


UMASK = _umask()


def fsync_folder(folder: Path) -> None:
    """Make a rename in ``folder`` durable (a no-op where folders cannot be opened)."""
    try:
        fd = os.open(folder, os.O_RDONLY)
    except OSError:
        return
    try:
        os.fsync(fd)
    except OSError:
        pass
    finally:
        os.close(fd)


def atomic_write(path: str | Path, write: Callable[[IO[bytes]], None]) -> None:
    """Write ``path`` through ``write(file)`` so a crash leaves the old copy intact."""
    path = Path(path)
    if path.exists() and not path.is_file():  # a pipe or a device (/dev/stdout): no rename over it
        with open(path, "wb") as handle:
            write(handle)
        return
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    try:
        os.fchmod(fd, 0o666 & ~UMASK)
        with os.fdopen(fd, "wb") as handle:
            write(handle)
            handle.flush()
            os.fsync(handle.fileno())
        os.replace(tmp, path)
    except BaseException as exc:
        Path(tmp).unlink(missing_ok=True)
        if is_disk_full(exc):
            raise DiskFull(path) from exc
        raise
    fsync_folder(path.parent)


def atomic_write_text(path: str | Path, text: str) -> None:
    """Atomically write UTF-8 text."""
    data = text.encode("utf-8")

    def write(handle: IO[bytes]) -> None:
        handle.write(data)

    atomic_write(path, write)
