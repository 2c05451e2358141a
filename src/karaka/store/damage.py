"""Storage faults as one clear line: which file, what is wrong with it, and the command that repairs it."""

from __future__ import annotations

import errno
from pathlib import Path

REPAIR = "run `karaka repair --workspace {root}` to rebuild it from karaka.db"
RESUME = "free space and run the same command again to resume"
REINGEST = ("move it aside and run `karaka ingest PATH --workspace {root}` again for your documents "
            "(the graph is rewritten, not duplicated)")


class DamagedFile(ValueError):
    """A workspace file that is missing or cannot be read."""

    def __init__(self, path: Path, problem: str, remedy: str):
        self.path = path
        super().__init__(f"{path}: {problem}; {remedy.format(root=path.parent)}")


class DiskFull(OSError):
    """No space left while writing a workspace file."""

    def __init__(self, path: Path | str):
        super().__init__(errno.ENOSPC, f"no space left on the device writing {path}; {RESUME}")


def is_disk_full(exc: BaseException) -> bool:
    """ENOSPC or EDQUOT from the OS, or SQLite's "database or disk is full"."""
    if isinstance(exc, OSError) and exc.errno in (errno.ENOSPC, errno.EDQUOT):
        return True
    return "database or disk is full" in str(exc)
