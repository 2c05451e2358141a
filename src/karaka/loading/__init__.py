"""Documents → sentences that remember where they are; bad input reported by file, never fatal.

One module per format reads a file into lines with their place (``text`` with ``book`` for a
book's chapters and verses, ``markdown``, ``html``, ``pdf`` with ``ocr`` for scanned pages, ``epub``,
``docx``, ``audio`` for recordings, each line at its time); ``sentences`` joins wrapped lines and splits
them into sentences, each keeping the place of the line it starts on: the file line, and for a
PDF the page and the line on the page; the section for Markdown and HTML; a book's chapter and verse.
"""

from __future__ import annotations

import hashlib
import logging
import os
import stat
from dataclasses import dataclass, field
from pathlib import Path

from karaka.loading.audio import AUDIO
from karaka.loading.book import book_lines
from karaka.loading.files import DocumentError, decode, inside, kind_of, make_name, walk
from karaka.loading.isolated import ISOLATED, Budget, read_isolated
from karaka.loading.languages import detect
from karaka.loading.markdown import markdown_lines
from karaka.loading.pdf import Progress
from karaka.loading.sentences import Raw, TooManyLines, build, split_long, split_sentences
from karaka.loading.web import sources
from karaka.store.base import SourceLine

__all__ = ["SUFFIXES", "Budget", "DocumentError", "Loaded", "LoadedDocument", "content_hash", "hear", "inside",
           "load_and_refine_documents",
           "load_file", "make_name", "refine", "split_long", "split_sentences"]
log = logging.getLogger("karaka.loading")

SUFFIXES = (".txt", ".md", ".markdown", ".pdf", ".html", ".htm", ".epub", ".docx", *AUDIO)


@dataclass
class LoadedDocument:
    """One file's sentences."""

    name: str
    """The id it asks for: its path under the folder given (or its stem), without the suffix."""
    source: str
    """Its resolved absolute path."""
    lines: list[SourceLine]

    @property
    def language(self) -> str:
        return self.lines[0].lang if self.lines else ""


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
        place = "".join(f"\t{k}={v}" for k, v in line.place().items())
        digest.update(f"{line.line}.{line.sentence}\t{line.text}{place}\n".encode())
    return digest.hexdigest()


def refine(text: str, markdown: bool = False, max_line_chars: int = 1000,
           warnings: list[str] | None = None, where: str = "") -> list[SourceLine]:
    """Text (plain or Markdown) → sentences with their file line, cut to ``max_line_chars``."""
    return _sentences(markdown_lines(text) if markdown else book_lines(text), max_line_chars, warnings, where)


def _sentences(raws: list[Raw], max_line_chars: int, warnings: list[str] | None, where: str,
               pdf: bool = False, max_lines: int = 0) -> list[SourceLine]:
    """Sentences of a file's lines, each marked with the language of the file's prose."""
    lang = detect(r.text for r in raws if r.kind in ("", "heading"))
    return build(raws, max_line_chars, warnings, where, drop_fragments=pdf, lang=lang, max_lines=max_lines)


def read_lines(path: Path, warnings: list[str], ocr_langs: str = "eng",
               progress: Progress | None = None, budget: Budget | None = None) -> tuple[list[Raw], bool]:
    """A file's lines as its format reads them, and whether it is a PDF.

    PDF, EPUB, DOCX files and recordings are read in a child process within ``budget`` (see ``isolated``).
    """
    suffix = path.suffix.lower()
    if suffix in ISOLATED:
        return read_isolated(path, warnings, ocr_langs, budget or Budget(), progress), suffix == ".pdf"
    text = decode(path.read_bytes(), path, warnings)
    if suffix in (".html", ".htm"):
        from karaka.loading.html import html_lines

        return html_lines(text), False
    return (markdown_lines(text) if suffix in (".md", ".markdown") else book_lines(text)), False


def hear(path: Path, budget: Budget | None = None) -> str:
    """The words of a spoken question, recognised in the reader's child process (as a recording is read).

    Raises:
        DocumentError: not a recording, unreadable, or no speech in it.
    """
    if path.suffix.lower() not in AUDIO:
        raise DocumentError(f"{path}: a spoken question must be a recording ({', '.join(AUDIO)})")
    if not path.is_file():
        raise DocumentError(f"{path}: no such file")
    return " ".join(raw.text for raw in read_isolated(path, [], "eng", budget or Budget()))


def load_file(path: Path, max_line_chars: int, warnings: list[str], ocr_langs: str = "eng",
              progress: Progress | None = None, budget: Budget | None = None) -> list[SourceLine]:
    """One file's sentences; a file of more than ``budget.max_lines`` sentences is refused."""
    suffix = path.suffix.lower()
    if suffix not in SUFFIXES and suffix:  # no suffix: plain text ("LICENSE", "README"), if it decodes as text
        raise DocumentError(f"{path}: unsupported file type {suffix}; use {' '.join(SUFFIXES)}, or plain text with "
                            "no suffix")
    mode = os.stat(path).st_mode
    if not stat.S_ISREG(mode):
        raise DocumentError(f"{path}: not a regular file ({kind_of(mode)}); skipped")
    budget = budget or Budget()
    raws, is_pdf = read_lines(path, warnings, ocr_langs, progress, budget)
    if sum(len(r.text) for r in raws) > budget.max_lines * max_line_chars:
        raise DocumentError(f"{path}: more text than {budget.max_lines:,} lines of {max_line_chars:,} characters "
                            "(settings max_lines, max_line_chars); skipped")
    try:
        lines = _sentences(raws, max_line_chars, warnings, str(path), is_pdf, budget.max_lines)
    except TooManyLines:
        raise DocumentError(f"{path}: more than the {budget.max_lines:,} lines a file may have "
                            "(setting max_lines); skipped") from None
    if not lines:
        raise DocumentError(f"{path}: empty file (no text lines)")
    return lines


def load_and_refine_documents(path: str | Path, max_line_chars: int = 1000, confine: Path | None = None,
                              ocr_langs: str = "eng", progress: Progress | None = None,
                              budget: Budget | None = None) -> Loaded:
    """Load a file or a folder of text, Markdown, HTML, PDF, EPUB and Word files into sentences.

    Bad files are listed in ``skipped`` with the reason; the rest still load.

    Args:
        path: a file or a folder.
        max_line_chars: longer sentences are cut at word boundaries.
        confine: when set, every file (symlinks resolved) must lie inside this folder.
        ocr_langs: Tesseract language packs for scanned PDF pages ("eng", "eng+fra").
        progress: told of slow steps (each page sent to OCR) as events.
        budget: what one file may cost to read (memory, time, pages, lines); a file past it is skipped.

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
    urls, failed = sources(root) if is_dir else ({}, [])  # a folder of fetched web pages: each file's URL
    result.skipped += failed
    for file in files:
        try:
            if confine is not None and file.is_file() and file.stat().st_nlink > 1:
                raise DocumentError(f"{file}: a hard link (another name of a file that may lie outside the ingest "
                                    "root); copy the file in instead")
            lines = load_file(file, max_line_chars, result.warnings, ocr_langs, progress, budget)
        except (DocumentError, OSError) as exc:
            reason = str(exc).removeprefix(f"{file}: ")  # the record names the path once
            log.warning("skipped %s: %s", file, reason)
            result.skipped.append({"path": str(file), "error": reason})
            continue
        source = urls.get(file.name, "") if file.parent == root else ""
        result.docs.append(LoadedDocument(make_name(file, root if is_dir else None), source or str(file.resolve()),
                                          lines))
    return result
