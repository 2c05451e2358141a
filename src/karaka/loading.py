"""Documents → {doc_id: [lines]}: one line per sentence, bad input reported by file."""

from __future__ import annotations

import hashlib
import logging
import re
from dataclasses import dataclass, field
from pathlib import Path

log = logging.getLogger("karaka.loading")

SUFFIXES = (".txt", ".md", ".pdf")
ABBREVIATIONS = frozenset(
    "dr mr mrs ms prof sr jr st mt no vs etc e.g i.e cf fig al gen col lt sgt capt rev hon "
    "inc ltd co corp dept univ approx jan feb mar apr jun jul aug sep sept oct nov dec".split()
)
_SENTENCE_END = re.compile(r"""([.!?…]+["'”’)\]]*)(\s+)(?=["'“‘(\[]?[A-Z0-9])""")
_MD_LINE = re.compile(r"^\s{0,3}(#{1,6}\s+|[-*+]\s+|\d+[.)]\s+|>\s?)")


class DocumentError(ValueError):
    """A file that cannot be ingested; the message names the file."""


@dataclass
class Loaded:
    """What loading a path produced."""

    docs: dict[str, list[str]] = field(default_factory=dict)
    sources: dict[str, str] = field(default_factory=dict)
    skipped: list[dict[str, str]] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)


def content_hash(lines: list[str]) -> str:
    """Stable hash of a document's lines (decides whether re-ingestion is needed)."""
    return hashlib.sha256("\n".join(lines).encode("utf-8")).hexdigest()


def _is_abbreviation(text_before: str) -> bool:
    word = re.split(r"\s", text_before.rstrip())[-1].rstrip(".").lower()
    if word in ABBREVIATIONS:
        return True
    # Initials and dotted acronyms: "J.", "U.S.", "e.g."
    return bool(re.fullmatch(r"(?:[a-z]\.)*[a-z]", word))


def split_sentences(paragraph: str) -> list[str]:
    """Split a paragraph into sentences, sparing abbreviations, initials and decimals."""
    text = " ".join(paragraph.split())
    out, start = [], 0
    for match in _SENTENCE_END.finditer(text):
        end = match.end(1)
        if match.group(1).startswith(".") and _is_abbreviation(text[start:match.start(1) + 1]):
            continue
        out.append(text[start:end].strip())
        start = match.end()
    tail = text[start:].strip()
    if tail:
        out.append(tail)
    return [s for s in out if s]


def split_long(line: str, limit: int) -> list[str]:
    """Cut a line longer than ``limit`` characters at word boundaries."""
    if len(line) <= limit:
        return [line]
    parts, current = [], ""
    for word in line.split(" "):
        while len(word) > limit:
            if current:
                parts.append(current)
                current = ""
            parts.append(word[:limit])
            word = word[limit:]
        if current and len(current) + 1 + len(word) > limit:
            parts.append(current)
            current = word
        else:
            current = f"{current} {word}" if current else word
    if current:
        parts.append(current)
    return parts


def refine(text: str, markdown: bool = False) -> list[str]:
    """Text → sentence lines: paragraphs split on blank lines, whitespace normalised."""
    paragraphs: list[str] = []
    current: list[str] = []
    for raw in text.replace("\r\n", "\n").replace("\r", "\n").split("\n"):
        line = raw.strip()
        if markdown:
            if line.startswith("```"):
                continue
            block = _MD_LINE.match(raw)
            if block:
                if current:
                    paragraphs.append(" ".join(current))
                current = []
                line = raw[block.end():].strip()
                if line:
                    paragraphs.append(line)
                continue
        if not line:
            if current:
                paragraphs.append(" ".join(current))
            current = []
        else:
            current.append(line)
    if current:
        paragraphs.append(" ".join(current))
    return [s for p in paragraphs for s in split_sentences(p)]


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


def read_pdf(path: Path) -> str:
    """Text of a PDF; encrypted or corrupt files raise DocumentError."""
    from pypdf import PdfReader
    from pypdf.errors import PdfReadError

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
    except (PdfReadError, ValueError, KeyError, TypeError, OSError) as exc:
        raise DocumentError(f"{path}: corrupt PDF: {exc}") from exc
    return "\n\n".join(pages)


def load_file(path: Path, max_line_chars: int, warnings: list[str]) -> list[str]:
    """One file's lines."""
    suffix = path.suffix.lower()
    if suffix not in SUFFIXES:
        raise DocumentError(f"{path}: unsupported file type {suffix or '(none)'}; use .txt .md .pdf")
    if suffix == ".pdf":
        text = read_pdf(path)
    else:
        text = decode(path.read_bytes(), path, warnings)
    lines: list[str] = []
    for line in refine(text, markdown=suffix == ".md"):
        parts = split_long(line, max_line_chars)
        if len(parts) > 1:
            warnings.append(
                f"{path}: a line of {len(line)} characters was split into {len(parts)} lines"
            )
        lines.extend(parts)
    if not lines:
        raise DocumentError(f"{path}: empty file (no text lines)")
    return lines


def make_doc_id(path: Path, root: Path | None) -> str:
    """A stable id from the file name (the path under ``root`` for folders)."""
    rel = path.relative_to(root) if root else Path(path.name)
    stem = str(rel.with_suffix("")).replace("/", "__")
    return re.sub(r"[^A-Za-z0-9_.-]+", "_", stem).strip("_") or "doc"


def load_and_refine_documents(path: str | Path, max_line_chars: int = 1000) -> Loaded:
    """Load a file or a folder of .txt, .md and .pdf into sentence lines.

    Bad files are listed in ``skipped`` with the reason; the rest still load.

    Raises:
        DocumentError: the path does not exist.
    """
    root = Path(path)
    if not root.exists():
        raise DocumentError(f"{root}: no such file or directory")
    result = Loaded()
    files = sorted(p for p in root.rglob("*") if p.is_file() and not p.name.startswith(".")) if root.is_dir() else [root]
    for file in files:
        doc_id = make_doc_id(file, root if root.is_dir() else None)
        if doc_id in result.docs:
            doc_id = f"{doc_id}_{file.suffix.lstrip('.')}"
        try:
            result.docs[doc_id] = load_file(file, max_line_chars, result.warnings)
            result.sources[doc_id] = str(file.resolve())
        except (DocumentError, OSError) as exc:
            log.warning("skipped %s: %s", file, exc)
            result.skipped.append({"path": str(file), "error": str(exc)})
    return result
