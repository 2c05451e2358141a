"""PDF: text with positions (pdfium), cited by page and line on the page.

pdfium gives every run of text with its box. Runs on one baseline form a line; a page whose
lines share an empty vertical gutter is read column by column. Running headers and footers (a
line at the top or bottom of a page that recurs, numbers aside, across the pages) and page
numbers are dropped; table-of-contents lines with dot leaders too. A line that reaches the right
margin goes on into the next one, across a page break as well, so a sentence is not cut by the
page furniture that used to sit inside it. A page of one column is read top to bottom, whatever
order the file writes its lines in (a browser writes a printed page's headings last). Pages with
no text layer are read by OCR when Tesseract is installed. An option's entry ("-c --stdout") is the section of the description
lines under it (``outline``). What a line sets in a fixed-pitch font is quoted in backquotes, as
Markdown quotes code: a manual printed from HTML keeps its ``<code>`` ("run `corepack enable`").

pdfium (pypdfium2) was chosen over pypdf: on the dev PDFs (126 pages) it reads the text 10–20
times faster (0.13 s against 1.9 s), reports soft hyphens as such, and gives positions.
"""

from __future__ import annotations

import ctypes
import re
import statistics
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pypdfium2.raw as pdfium_c

from karaka.loading.files import DocumentError, looks_like
from karaka.loading.ocr import INSTALL, OCRError, read_page, tesseract
from karaka.loading.outline import outline
from karaka.loading.sentences import SOFT_HYPHENS, Raw, clean

COLUMN_SHARE = 0.2
"""The share of a page's lines standing beside another above which the page is read in the file's order (columns)."""
BAND = 0.1
"""The top and bottom tenth of a page, where headers, footers and page numbers stand."""
_PAGE_NUMBER = re.compile(r"^(page\s+)?(\d{1,4}|[ivxlcdm]{1,7})(\s*(of|/)\s*\d{1,4})?$", re.IGNORECASE)
_LEADERS = re.compile(r"(\.\s?){4,}\s*\S{0,6}$|…{2,}|(\s\.){3,}")
Progress = Callable[[dict[str, Any]], None]


@dataclass
class Line:
    """A line of a page: its box (PDF points, origin bottom left) and its runs of text."""

    left: float
    bottom: float
    right: float
    top: float
    runs: list[tuple[float, float, str]] = field(default_factory=list)
    """Each run of text: where it starts and ends across the page, and its text."""

    @property
    def text(self) -> str:
        out = ""
        for i, (left, _, text) in enumerate(self.runs):
            if i and left - self.runs[i - 1][1] > 1.0 and not out.endswith(" ") and not text.startswith(" "):
                out += " "
            out += text
        return _quoted(out)

    def add(self, left: float, bottom: float, right: float, top: float, text: str) -> None:
        self.left, self.bottom = min(self.left, left), min(self.bottom, bottom)
        self.right, self.top = max(self.right, right), max(self.top, top)
        self.runs.append((left, right, text))


@dataclass
class Page:
    """A page's lines, and whether OCR read them."""

    number: int
    width: float
    height: float
    lines: list[Line]
    ocr: bool = False


FIXED = "\ue000"
"""Marks where a run of text enters or leaves a fixed-pitch font (``_runs``)."""


def _quoted(text: str) -> str:
    """A line's text with what it sets in a fixed-pitch font in backquotes, as Markdown writes code.

    "run corepack enable, which …" printed from HTML's ``<code>`` reads "run `corepack enable`, which …";
    a line all in that font (an example's command) stays as it is.
    """
    if FIXED not in text:
        return text
    plain = "".join(part for i, part in enumerate(text.split(FIXED)) if i % 2 == 0)
    if not plain.strip():
        return text.replace(FIXED, "")
    return re.sub(rf"{FIXED}(\s*)([^{FIXED}]*?)(\s*){FIXED}",
                  lambda m: f"{m.group(1)}`{m.group(2)}`{m.group(3)}" if m.group(2) else m.group(0).replace(FIXED, ""),
                  text + (FIXED if text.count(FIXED) % 2 else "")).replace(FIXED, "")


def _same_line(line: Line, left: float, bottom: float, right: float, top: float) -> bool:
    overlap = min(line.top, top) - max(line.bottom, bottom)
    return overlap >= 0.5 * min(line.top - line.bottom, top - bottom) and left >= line.right - 2.0


def _lines_of(runs: list[tuple[float, float, float, float, str]]) -> list[Line]:
    lines: list[Line] = []
    for left, bottom, right, top, text in runs:
        if not text.strip():
            continue
        if lines and _same_line(lines[-1], left, bottom, right, top):
            lines[-1].add(left, bottom, right, top, text)
        else:
            lines.append(Line(left, bottom, right, top, [(left, right, text)]))
    return lines


def _top_down(lines: list[Line]) -> list[Line]:
    """A page of one column in the order its lines stand, top to bottom, whatever order the file wrote them in.

    A browser printing a page to PDF writes its headings after the body text of the page, so
    each heading would follow the entries it opens. Where many lines share a height with another
    (columns written one after the other) the file's order stays: it is the only hint of which
    column comes first. A few may (a code box's "Copy" button, a "Skip to content" link).
    """
    ordered = sorted(lines, key=lambda ln: -ln.top)
    shared = sum(min(upper.top, lower.top) - max(upper.bottom, lower.bottom) > 0.3 * min(
        upper.top - upper.bottom, lower.top - lower.bottom) for upper, lower in zip(ordered, ordered[1:], strict=False))
    return lines if shared > COLUMN_SHARE * len(lines) else ordered


def _columns(lines: list[Line], width: float) -> list[Line]:
    """A page whose lines share an empty gutter near the middle, read column by column."""
    if len(lines) < 8:
        return lines
    best, best_x = 0, 0.0
    for step in range(30, 71, 2):
        x = width * step / 100
        split = sum(1 for ln in lines if _gap_at(ln, x))
        crossing = sum(1 for ln in lines if any(a < x < b for a, b, _ in ln.runs))
        if crossing <= 0.15 * len(lines) and split > best:
            best, best_x = split, x
    if best < 0.4 * len(lines) or _table(lines, best_x):
        return lines
    head: list[Line] = []
    left: list[Line] = []
    right: list[Line] = []
    for ln in lines:
        if not left and not right and not _gap_at(ln, best_x):
            head.append(ln)
            continue
        for side, runs in ((left, [r for r in ln.runs if r[1] <= best_x]),
                           (right, [r for r in ln.runs if r[1] > best_x])):
            if runs:
                side.append(Line(min(r[0] for r in runs), ln.bottom, max(r[1] for r in runs), ln.top, runs))
    return head + left + right


def _table(lines: list[Line], x: float) -> bool:
    """Whether the text each side of a gutter is a table's key column and its descriptions, not two columns.

    Two columns of prose or of names are alike in width; a table's first column holds short
    entries ("-P", "-Werror") beside much longer cells that describe them, one row a line. Read
    as two columns, every option would be cut from its description.
    """
    split = [ln for ln in lines if _gap_at(ln, x)]
    left = [max(r[1] for r in runs) - min(r[0] for r in runs) for ln in split
            if (runs := [r for r in ln.runs if r[1] <= x])]
    right = [max(r[1] for r in runs) - min(r[0] for r in runs) for ln in split
             if (runs := [r for r in ln.runs if r[0] >= x])]
    return bool(left and right) and statistics.median(left) < 0.5 * statistics.median(right)


def _gap_at(line: Line, x: float) -> bool:
    """True when the line has text on both sides of ``x`` and none across it."""
    return any(b <= x for _, b, _ in line.runs) and any(a >= x for a, _, _ in line.runs) and \
        not any(a < x < b for a, b, _ in line.runs)


def _key(text: str) -> str:
    """A line as compared across pages: case, digits and spacing aside."""
    return " ".join(re.sub(r"\d+", "#", text.lower()).split())


def _furniture(pages: list[Page]) -> set[tuple[int, int]]:
    """(page, line index) of running headers, footers and page numbers.

    A line among the two outermost of a page's top or bottom tenth is furniture when the same
    text (numbers aside) stands there on another page too; the third from the edge only when it
    recurs on a quarter of the pages. A bare number (or "Page 3 of 9") there is a page number.
    """
    bands: dict[tuple[int, int], tuple[str, str]] = {}
    ranks: dict[tuple[int, int], tuple[str, int]] = {}
    for page in pages:
        order = sorted(range(len(page.lines)), key=lambda i: -page.lines[i].top)
        for rank, i in enumerate(order):
            line = page.lines[i]
            if rank < 3 and line.bottom >= page.height * (1 - BAND):
                bands[(page.number, i)] = ("top", _key(line.text))
                ranks[(page.number, i)] = ("top", rank)
            elif rank >= len(order) - 3 and line.top <= page.height * BAND:
                bands[(page.number, i)] = ("bottom", _key(line.text))
                ranks[(page.number, i)] = ("bottom", len(order) - 1 - rank)
    on_pages: dict[tuple[str, str], set[int]] = {}
    for (number, _), band in bands.items():
        on_pages.setdefault(band, set()).add(number)
    for page in pages:  # a chapter's title lower on its first page, repeated as the header of the next
        if page.lines:
            first = max(page.lines, key=lambda ln: ln.top)
            on_pages.setdefault(("top", _key(first.text)), set()).add(page.number)
    by_number = {p.number: p for p in pages}
    outer = {key for key, (_, rank) in ranks.items() if rank < 2}
    need = max(2, round(0.25 * len(pages)))
    return {key for key, band in bands.items()
            if len(on_pages[band]) >= (2 if key in outer else need)
            or _PAGE_NUMBER.match(by_number[key[0]].lines[key[1]].text.strip())}


def _runs(textpage: Any) -> list[tuple[float, float, float, float, str]]:
    """Runs of text with their boxes, built from pdfium's characters.

    A run ends at pdfium's line breaks and at a gap wider than about one and a half characters,
    so the two columns of a row are two runs. Each character is read once: text taken by box
    (``get_text_bounded``) doubles a letter where boxes of two fonts overlap.
    """
    count = textpage.count_chars()
    text = textpage.get_text_range(0, count) if count else ""
    if len(text) != count:  # characters outside the BMP: fall back to pdfium's own rectangles
        out = []
        for r in range(textpage.count_rects()):
            left, bottom, right, top = textpage.get_rect(r)
            out.append((left, bottom, right, top, textpage.get_text_bounded(left, bottom, right, top)))
        return out
    runs: list[list[Any]] = []
    current: list[Any] | None = None
    for index, char in enumerate(text):
        if char in "\r\n":
            current = None
            continue
        if char.isspace() or char in SOFT_HYPHENS:
            if current is not None and not current[4].endswith(" "):
                current[4] += " " if char.isspace() else char
            continue
        left, bottom, right, top = textpage.get_charbox(index, loose=True)
        fixed = _fixed_pitch(textpage, index)
        if current is not None and fixed != current[5]:
            current[4] = current[4] + FIXED if not current[4].endswith(" ") else current[4][:-1] + FIXED + " "
            current[5] = fixed
        if current is not None:
            height = max(current[3] - current[1], top - bottom, 1.0)
            overlap = min(current[3], top) - max(current[1], bottom)
            if overlap >= 0.5 * min(current[3] - current[1], top - bottom) and current[0] <= left \
                    <= current[2] + 1.5 * height:  # a ligature's box may start inside the last letter's
                if left - current[2] > 0.6 * height and not current[4].endswith(" "):  # pdfium spaces words itself
                    current[4] += " "
                current[4] += char
                current[1], current[2], current[3] = min(current[1], bottom), max(current[2], right), \
                    max(current[3], top)
                continue
        current = [left, bottom, right, top, FIXED + char if fixed else char, fixed]
        runs.append(current)
    return [(r[0], r[1], r[2], r[3], r[4] + FIXED if r[5] else r[4]) for r in runs]


def _fixed_pitch(textpage: Any, index: int) -> bool:
    """Whether the character's font is fixed-pitch: its descriptor's first flag, or its name.

    A standard font such as Courier has no descriptor, only its name.
    """
    size = pdfium_c.FPDFText_GetFontInfo(textpage.raw, index, _NAME, len(_NAME), _FLAGS_REF)
    return bool(_FLAGS.value & 1) or bool(size and _FIXED_NAME.search(_NAME.value))


_FLAGS = ctypes.c_int(0)
_FLAGS_REF = ctypes.byref(_FLAGS)
_NAME = ctypes.create_string_buffer(128)
_FIXED_NAME = re.compile(rb"courier|mono|consol|menlo|monaco|inconsolata|typewriter|cmtt|code", re.IGNORECASE)
"""Fixed-pitch families by name: Courier, DejaVu Sans Mono, Consolas, Source Code Pro, TeX's cmtt."""


def _read(path: Path, ocr_langs: str, progress: Progress | None, warnings: list[str],
          max_pages: int = 0) -> list[Page]:
    import pypdfium2 as pdfium

    with open(path, "rb") as handle:
        head = handle.read(1024)
    if b"%PDF-" not in head:
        raise DocumentError(f"{path}: not a PDF: it holds {looks_like(head)}")
    try:
        document = pdfium.PdfDocument(str(path))
    except pdfium.PdfiumError as exc:
        if "password" in str(exc).lower() or "security" in str(exc).lower():
            raise DocumentError(f"{path}: encrypted PDF (a password is needed)") from exc
        raise DocumentError(f"{path}: corrupt PDF: {exc}") from exc
    pages: list[Page] = []
    scanned: list[int] = []
    if max_pages and (count := len(document)) > max_pages:
        document.close()
        raise DocumentError(f"{path}: {count:,} pages, more than the {max_pages:,} a file may have "
                            "(setting max_pages); skipped")
    try:
        for index in range(len(document)):
            page = document[index]
            width, height = page.get_size()
            lines = _lines_of(_runs(page.get_textpage()))
            if not lines and tesseract() is not None and next(iter(page.get_objects(max_depth=2)), None) is not None:
                if progress is not None:
                    progress({"event": "ocr", "file": str(path), "page": index + 1, "pages": len(document)})
                try:
                    lines = _lines_of(read_page(page, ocr_langs))
                except OCRError as exc:
                    warnings.append(f"{path}: page {index + 1}: OCR failed: {exc}")
                    lines = []
                if not lines:
                    scanned.append(index + 1)
                pages.append(Page(index + 1, width, height, lines, ocr=True))
                continue
            if not lines:
                scanned.append(index + 1)
            pages.append(Page(index + 1, width, height, _columns(_top_down(lines), width)))
    except pdfium.PdfiumError as exc:
        raise DocumentError(f"{path}: corrupt PDF: {exc}") from exc
    finally:
        document.close()
    remedy = INSTALL if tesseract() is None else "OCR read no text from them"
    if pages and len(scanned) == len(pages):
        raise DocumentError(f"{path}: no text layer ({len(pages)} pages of images only: a scan?); {remedy}")
    if scanned:
        warnings.append(f"{path}: {len(scanned)} pages have no text (pages {_ranges(scanned)}); {remedy}")
    return pages


def _ranges(numbers: list[int]) -> str:
    out, start = [], numbers[0]
    for prev, cur in zip(numbers, numbers[1:] + [0], strict=True):
        if cur != prev + 1:
            out.append(f"{start}" if start == prev else f"{start}–{prev}")
            start = cur
    return ", ".join(out)


def pdf_lines(path: Path, warnings: list[str], ocr_langs: str = "eng",
              progress: Progress | None = None, max_pages: int = 0) -> list[Raw]:
    """A PDF's body lines with page, line on the page, and whether each runs to the margin.

    A PDF of more than ``max_pages`` pages (when set) is refused.
    """
    pages = _read(path, ocr_langs, progress, warnings, max_pages)
    drop = _furniture(pages)
    out: list[Raw] = []
    number = 0
    for page in pages:
        kept = [ln for i, ln in enumerate(page.lines)
                if (page.number, i) not in drop and not _LEADERS.search(ln.text.strip())]
        right = _margins(kept)
        spacing = _spacing(kept)
        on_page = 0
        for i, line in enumerate(kept):
            text = clean(line.text)
            if not text:
                continue
            if i and spacing and kept[i - 1].top - line.top > 1.6 * spacing:
                out.append(Raw(number, ""))  # a paragraph gap
            number += 1
            on_page += 1
            margin = right.get(id(line), line.right)
            out.append(Raw(number, text, page=page.number, page_line=on_page, method="ocr" if page.ocr else "",
                           wraps=line.right >= margin - 0.04 * page.width and
                           line.right - line.left >= 0.35 * page.width))
    return outline(_code_across_lines(out))  # the option entries a manual page's indent would tell


def _code_across_lines(lines: list[Raw]) -> list[Raw]:
    """Code a line's end breaks in two read as one: "run `corepack`" over "`disable` to remove" is `corepack disable`."""
    out = list(lines)
    for i in range(len(out) - 1):
        if out[i].wraps and out[i].text.endswith("`") and out[i + 1].text.startswith("`"):
            out[i], out[i + 1] = out[i]._replace(text=out[i].text[:-1]), out[i + 1]._replace(text=out[i + 1].text[1:])
    return out


def _margins(lines: list[Line]) -> dict[int, float]:
    """Each line's right margin: the rightmost end of the lines that start near where it starts."""
    out = {}
    for line in lines:
        column = [ln.right for ln in lines if abs(ln.left - line.left) < 60 or ln.left < line.left < ln.right]
        out[id(line)] = statistics.quantiles(column, n=10)[-1] if len(column) >= 4 else max(column)
    return out


def _spacing(lines: list[Line]) -> float:
    """The usual distance from one line's top to the next line's top on a page."""
    gaps = [a.top - b.top for a, b in zip(lines, lines[1:], strict=False) if 0 < a.top - b.top < 60]
    return statistics.median(gaps) if len(gaps) >= 3 else 0.0
