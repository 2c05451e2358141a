"""Files: which are read, what their ids are, how their bytes become text; bad files named."""

from __future__ import annotations

import os
import re
import stat
from pathlib import Path


class DocumentError(ValueError):
    """A file that cannot be ingested; the message names the file."""


def decode(data: bytes, path: Path, warnings: list[str]) -> str:
    """UTF-8, else a fallback decoding with a warning; binary data is an error."""
    head = data[:8192]
    if b"\x00" in head:
        raise DocumentError(f"{path}: binary file (NUL bytes), not text")
    control = sum(1 for b in head if b < 9 or 13 < b < 32)
    if head and control / len(head) > 0.1:
        raise DocumentError(f"{path}: binary file ({control} control bytes in the first {len(head)})")
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        for encoding in ("cp1252", "latin-1"):
            try:
                text = data.decode(encoding)
            except UnicodeDecodeError:
                continue
            warnings.append(f"{path}: not UTF-8 (byte {exc.start}); decoded as {encoding}")
            return text
    raise DocumentError(f"{path}: cannot decode")  # pragma: no cover - latin-1 decodes anything


def looks_like(head: bytes) -> str:
    """What a file that should be a PDF holds instead, from its first bytes."""
    text = head.lstrip().lower()
    if text.startswith((b"<!doctype html", b"<html")) or b"<html" in text[:512]:
        return "an HTML page (a saved web page?)"
    if b"\x00" in head:
        return "binary data"
    return "plain text" if head.strip() else "nothing (an empty file)"


def kind_of(mode: int) -> str:
    """What a file that is not a regular file is, in words."""
    for test, name in ((stat.S_ISFIFO, "a FIFO"), (stat.S_ISSOCK, "a socket"), (stat.S_ISCHR, "a character device"),
                       (stat.S_ISBLK, "a block device"), (stat.S_ISDIR, "a directory")):
        if test(mode):
            return name
    return "not a plain file"


def make_name(path: Path, root: Path | None) -> str:
    """The id a file asks for: its path under ``root`` (``a/b.txt`` → ``a__b``) or its stem."""
    rel = path.relative_to(root) if root else Path(path.name)
    stem = str(rel.with_suffix("")).replace("/", "__")
    return re.sub(r"[^A-Za-z0-9_.-]+", "_", stem).strip("_") or "doc"


def inside(path: Path, root: Path) -> bool:
    """True when ``path`` (resolved) is ``root`` or lies below it."""
    return path == root or root in path.parents


def walk(root: Path, confine: Path | None, skipped: list[dict[str, str]]) -> list[Path]:
    """The files under a folder, sorted; symlinks followed, loops and escapes reported.

    With ``confine`` every file found is resolved and must lie inside it (a symlink that leads out
    is skipped with a reason that does not reveal where it leads).
    """
    files: list[Path] = []
    seen_dirs: set[Path] = set()
    for current, dirs, names in os.walk(root, followlinks=True):
        here = Path(current)
        real = here.resolve()
        if real in seen_dirs:
            skipped.append({"path": str(here), "error": "symlink loop (this folder was already read); skipped"})
            dirs[:] = []
            continue
        seen_dirs.add(real)
        if confine is not None and not inside(real, confine):
            skipped.append({"path": str(here), "error": "a symlinked folder that leads outside the ingest root; skipped"})
            dirs[:] = []
            continue
        dirs[:] = sorted(d for d in dirs if not d.startswith("."))
        for name in sorted(names):
            if name.startswith("."):
                continue
            path = here / name
            try:
                target = path.resolve(strict=True)
            except (OSError, RuntimeError):
                skipped.append({"path": str(path), "error": "broken or looping symlink; skipped"})
                continue
            if confine is not None and not inside(target, confine):
                skipped.append({"path": str(path), "error": "a symlink that leads outside the ingest root; skipped"})
                continue
            files.append(path)
    return files
