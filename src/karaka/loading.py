"""Documents → sentences that remember their file line; bad input reported by file, never fatal.

A file that holds one sentence per line keeps its lines. Lines are joined only where the text was
visibly wrapped (a line that is long or ends mid-phrase and does not end a sentence), then split
into sentences; each sentence records the file line it starts on, and its place in that line when
the line holds several. Sentence ends of other scripts (。！？ । ॥ ؟) end sentences too.
"""

from __future__ import annotations

import bisect
import hashlib
import logging
import os
import re
import stat
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

from karaka.store.base import SourceLine

log = logging.getLogger("karaka.loading")

SUFFIXES = (".txt", ".md", ".pdf")
ABBREVIATIONS = frozenset(
    "dr mr mrs ms prof sr jr st mt no vs etc e.g i.e cf fig al gen col lt sgt capt rev hon "
    "inc ltd co corp dept univ approx jan feb mar apr jun jul aug sep sept oct nov dec".split()
)
_SENTENCE_END = re.compile(r"""([.!?…]+["'”’)\]]*)(\s+)(?=["'“‘(\[]?(?![a-z])[^\s\W_]|["'“‘(\[]?\d)""")
_SCRIPT_END = re.compile(r"""([。！？।॥؟]+["'”’)\]」』]*)\s*(?=\S)""")
_TERMINAL = re.compile(r"""[.!?…。！？।॥؟]["'”’)\]」』]*$""")
_CONTINUES = re.compile(r"[,;:\-–—]$")
_MD_LINE = re.compile(r"^\s{0,3}(#{1,6}\s+|[-*+]\s+|\d+[.)]\s+|>\s?)")
WRAP_WIDTH = 40


class DocumentError(ValueError):
    """A file that cannot be ingested; the message names the file."""


@dataclass
class LoadedDocument:
    """One file's sentences."""

    name: str
    """The id it asks for: its path under the folder given (or its stem), without the suffix."""
    source: str
    """Its resolved absolute path."""
    lines: list[SourceLine]


@dataclass
class Loaded:
    """What loading a path produced."""

    docs: list[LoadedDocument] = field(default_factory=list)
    skipped: list[dict[str, str]] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)


def content_hash(lines: list[SourceLine]) -> str:
    """Stable hash of a document's sentences and their places (decides whether re-ingestion is needed)."""
    digest = hashlib.sha256()
    for line in lines:
        digest.update(f"{line.line}.{line.sentence}\t{line.text}\n".encode())
    return digest.hexdigest()


def _is_abbreviation(text_before: str) -> bool:
    before = text_before.rstrip()
    if before.endswith(" ."):  # tokenised text: "Mr . Smith"
        before = before[:-2]
    word = re.split(r"\s", before)[-1].rstrip(".").lower()
    if word in ABBREVIATIONS:
        return True
    return bool(re.fullmatch(r"(?:[a-z]\.)*[a-z]", word))  # initials and dotted acronyms: "J.", "U.S."


def split_sentences(text: str) -> list[str]:
    """Split text (whitespace already normalised) into sentences, sparing abbreviations and initials."""
    cuts = []
    for match in _SENTENCE_END.finditer(text):
        if match.group(1).startswith(".") and _is_abbreviation(text[:match.start(1) + 1]):
            continue
        cuts.append((match.end(1), match.end()))
    cuts += [(m.end(1), m.end()) for m in _SCRIPT_END.finditer(text)]
    out, start = [], 0
    for end, resume in sorted(cuts):
        if end <= start:
            continue
        piece = text[start:end].strip()
        if piece:
            out.append(piece)
        start = resume
    tail = text[start:].strip()
    if tail:
        out.append(tail)
    return out


def split_long(line: str, limit: int) -> list[str]:
    """Cut a line longer than ``limit`` characters at word boundaries (a word longer than that is cut)."""
    if len(line) <= limit:
        return [line]
    parts: list[str] = []
    start, n = 0, len(line)
    while start < n:
        end = min(start + limit, n)
        if end < n:
            space = line.rfind(" ", start + 1, end + 1)
            if space > start:
                end = space
        piece = line[start:end].strip()
        if piece:
            parts.append(piece)
        start = end
        while start < n and line[start] == " ":
            start += 1
    return parts


def _one_per_line(text: str) -> bool:
    """A file whose lines (nearly all) end a sentence holds one sentence, or one paragraph, per line."""
    lines = [" ".join(raw.split()) for raw in text.split("\n")]
    lines = [line for line in lines if line and not _MD_LINE.match(line)]
    ended = sum(1 for line in lines if _TERMINAL.search(line) or _TERMINAL.search(line.rstrip("'\"` ")))
    return len(lines) >= 3 and ended >= 0.8 * len(lines)


def _blocks(text: str, markdown: bool) -> Iterator[list[tuple[int, str]]]:
    """Runs of (file line, text) that belong together: a wrapped paragraph, or a single line.

    In a file whose lines nearly all end a sentence, every line is its own block: nothing there
    was wrapped, and a line without a full stop (a title, a quotation) must not swallow the next.
    """
    block: list[tuple[int, str]] = []
    fence = False
    keep_lines = _one_per_line(text)
    for number, raw in enumerate(text.split("\n"), 1):
        line = " ".join(raw.split())
        if markdown:
            if line.startswith("```"):
                fence = not fence
                continue
            if fence:
                continue
            item = _MD_LINE.match(raw)
            if item:
                if block:
                    yield block
                block = []
                line = " ".join(raw[item.end():].split())
                if line:
                    yield [(number, line)]
                continue
        if not line:
            if block:
                yield block
            block = []
            continue
        if block and (keep_lines or not _wrapped(block[-1][1], line)):
            yield block
            block = []
        block.append((number, line))
    if block:
        yield block


def _wrapped(previous: str, line: str) -> bool:
    """True when ``line`` continues ``previous`` (the text was wrapped) rather than starting anew.

    A line that ends a sentence ends its block; a line that ends mid-phrase (a comma, a lowercase
    next word) continues. A long line continues into the next one unless it reads as a title
    (most of its words capitalised), so "Margaret of Bavaria, Marchioness of Mantua" above its
    text stays a line of its own.
    """
    if _TERMINAL.search(previous):
        return False
    if line[:1].islower() or _CONTINUES.search(previous):
        return True
    words = previous.split()
    titled = sum(1 for w in words if w[:1].isupper() or not w[:1].isalpha()) / len(words)
    return len(previous) >= WRAP_WIDTH and titled < 0.6


def refine(text: str, markdown: bool = False, max_line_chars: int = 1000,
           warnings: list[str] | None = None, where: str = "") -> list[SourceLine]:
    """Text → sentences with their file line, cut to ``max_line_chars``."""
    out: list[SourceLine] = []
    text = text.replace("\r\n", "\n").replace("\r", "\n")
    for block in _blocks(text, markdown):
        joined = " ".join(t for _, t in block)
        offsets, numbers, offset = [], [], 0
        for number, part in block:
            offsets.append(offset)
            numbers.append(number)
            offset += len(part) + 1
        cursor = 0
        placed: list[tuple[int, str]] = []
        for sentence in split_sentences(joined):
            at = joined.find(sentence, cursor)
            at = cursor if at < 0 else at
            cursor = at + len(sentence)
            line = numbers[bisect.bisect_right(offsets, at) - 1]
            pieces = split_long(sentence, max_line_chars)
            if len(pieces) > 1 and warnings is not None:
                warnings.append(f"{where}: a sentence of {len(sentence)} characters on line {line} "
                                f"was split into {len(pieces)} lines")
            placed += [(line, piece) for piece in pieces]
        per_line: dict[int, int] = {}
        for line, _ in placed:
            per_line[line] = per_line.get(line, 0) + 1
        seen: dict[int, int] = {}
        for line, piece in placed:
            seen[line] = seen.get(line, 0) + 1
            sentence_no = seen[line] if per_line[line] > 1 else 0
            out.append(SourceLine(len(out) + 1, line, sentence_no, piece))
    return out


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


def _looks_like(head: bytes) -> str:
    """What a file that should be a PDF holds instead, from its first bytes."""
    text = head.lstrip().lower()
    if text.startswith((b"<!doctype html", b"<html")) or b"<html" in text[:512]:
        return "an HTML page (a saved web page?)"
    if b"\x00" in head:
        return "binary data"
    return "plain text" if head.strip() else "nothing (an empty file)"


class _PdfWarnings(logging.Handler):
    """pypdf's warnings about one file, kept with the file's name instead of printed bare."""

    def __init__(self) -> None:
        super().__init__(logging.WARNING)
        self.messages: list[str] = []

    def emit(self, record: logging.LogRecord) -> None:
        self.messages.append(record.getMessage())


def read_pdf(path: Path, warnings: list[str] | None = None) -> str:
    """Text of a PDF; a file that is not one, an encrypted one or a corrupt one raises DocumentError.

    pypdf's own warnings (a missing EOF marker, a bad header) are added to ``warnings`` with the
    file's name. A PDF with pages but no text at all is named as one without a text layer.
    """
    from pypdf import PdfReader
    from pypdf.errors import PdfReadError

    with open(path, "rb") as handle:
        head = handle.read(1024)
    if b"%PDF-" not in head:
        raise DocumentError(f"{path}: not a PDF: it holds {_looks_like(head)}")
    pypdf_log = logging.getLogger("pypdf")
    caught = _PdfWarnings()
    pypdf_log.addHandler(caught)
    propagate, pypdf_log.propagate = pypdf_log.propagate, False
    try:
        reader = PdfReader(str(path))
        if reader.is_encrypted:
            try:
                if not reader.decrypt(""):
                    raise DocumentError(f"{path}: encrypted PDF (a password is needed)")
            except (NotImplementedError, PdfReadError) as exc:
                raise DocumentError(f"{path}: encrypted PDF: {exc}") from exc
        pages = [page.extract_text() or "" for page in reader.pages]
    except DocumentError:
        raise
    except (PdfReadError, ValueError, KeyError, TypeError, OSError, RecursionError) as exc:
        raise DocumentError(f"{path}: corrupt PDF: {exc}") from exc
    finally:
        pypdf_log.removeHandler(caught)
        pypdf_log.propagate = propagate
    if warnings is not None:
        warnings += [f"{path}: pypdf: {message}" for message in dict.fromkeys(caught.messages)]
    if pages and not any(p.strip() for p in pages):
        raise DocumentError(f"{path}: no text layer ({len(pages)} pages of images only: a scan?); "
                            "Karaka reads the text of a PDF and runs no OCR")
    return "\n\n".join(pages)


def load_file(path: Path, max_line_chars: int, warnings: list[str]) -> list[SourceLine]:
    """One file's sentences."""
    suffix = path.suffix.lower()
    if suffix not in SUFFIXES:
        raise DocumentError(f"{path}: unsupported file type {suffix or '(none)'}; use .txt .md .pdf")
    mode = os.stat(path).st_mode
    if not stat.S_ISREG(mode):
        raise DocumentError(f"{path}: not a regular file ({_kind(mode)}); skipped")
    text = read_pdf(path, warnings) if suffix == ".pdf" else decode(path.read_bytes(), path, warnings)
    lines = refine(text, markdown=suffix == ".md", max_line_chars=max_line_chars, warnings=warnings, where=str(path))
    if not lines:
        raise DocumentError(f"{path}: empty file (no text lines)")
    return lines


def _kind(mode: int) -> str:
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


def load_and_refine_documents(path: str | Path, max_line_chars: int = 1000, confine: Path | None = None) -> Loaded:
    """Load a file or a folder of .txt, .md and .pdf into sentences.

    Bad files are listed in ``skipped`` with the reason; the rest still load.

    Args:
        path: a file or a folder.
        max_line_chars: longer sentences are cut at word boundaries.
        confine: when set, every file (symlinks resolved) must lie inside this folder.

    Raises:
        DocumentError: the path does not exist, or leads outside ``confine``.
    """
    root = Path(path)
    if not root.exists():
        raise DocumentError(f"{root}: no such file or directory")
    if confine is not None and not inside(root.resolve(), confine):
        raise DocumentError(f"{root}: outside the ingest root")
    result = Loaded()
    is_dir = root.is_dir()
    files = walk(root, confine, result.skipped) if is_dir else [root]
    for file in files:
        try:
            lines = load_file(file, max_line_chars, result.warnings)
        except (DocumentError, OSError) as exc:
            reason = str(exc).removeprefix(f"{file}: ")  # the record names the path once
            log.warning("skipped %s: %s", file, reason)
            result.skipped.append({"path": str(file), "error": reason})
            continue
        result.docs.append(LoadedDocument(make_name(file, root if is_dir else None), str(file.resolve()), lines))
    return result
