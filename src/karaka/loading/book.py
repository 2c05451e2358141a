"""Plain-text books: chapters and numbered units as coordinates, the Gutenberg frame left out.

Project Gutenberg's frame (the licence before ``*** START OF`` and after ``*** END OF``, the
"Produced by" credit, transcriber's notes) is not content: those lines become blank, so file
line numbers stay the file's. A book is then recognised by its structure:

- headings alone on a line after a blank line: ``Chapter 4``, ``CHAPTER IV.``, ``BOOK II.``,
  ``Canto 3``, ``Sutta 12: The Simile``, or a number alone (``4.``, ``IV``) when several count
  up; where ``Book`` or ``Part`` headings hold ``Chapter`` headings, the chapter is the inner one;
- numbered units at the margin opening a paragraph (or every line): ``4:8 And …`` (chapter 4, verse 8),
  ``[12] …``, ``§ 3 …``, ``SN 35.28 …``, and ``12. …`` in a book with chapters or in a long run.
  The number becomes the line's ``verse`` (and its ``chapter`` for ``4:8``) and leaves the text,
  so a verse number is never read as an amount or a year.

A style of numbering counts only when it opens several paragraphs and mostly counts up (a short
numbered list in an essay is not a book's verses, nor an outline's indented items). Text with neither structure is read as plain
text (``text``), its frame still left out.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass

from karaka.loading.sentences import HEADING, Raw, clean
from karaka.loading.text import split_lines, text_lines
from karaka.store.ids import INNER, OUTER

_START = re.compile(r"\s*\*{3}\s*START OF (?:THE|THIS) PROJECT GUTENBERG", re.IGNORECASE)
_END = re.compile(r"\s*(?:\*{3}\s*)?END OF (?:THE |THIS )?PROJECT GUTENBERG", re.IGNORECASE)
_CREDIT = re.compile(r"\s*\[?(?:Produced by|E-?text prepared by|Transcriber'?s'? [Nn]otes?)\b", re.IGNORECASE)

_SPELLED = ("one two three four five six seven eight nine ten eleven twelve thirteen fourteen fifteen sixteen "
            "seventeen eighteen nineteen twenty").split()
_NUMBER = rf"(\d{{1,4}}|[IVXLCDM]{{1,8}}|{'|'.join(_SPELLED)})"
_HEADING = re.compile(rf"\s*({'|'.join(OUTER + INNER)})\.?\s+{_NUMBER}\.?(?:\s*[:.—–-]\s*(.*?)|\s*)$",
                      re.IGNORECASE)
_BARE = re.compile(r"\s*(\d{1,3}|[IVXLC]{1,7})\.?\s*$")
_ROMAN = {"I": 1, "V": 5, "X": 10, "L": 50, "C": 100, "D": 500, "M": 1000}


@dataclass(frozen=True)
class _Style:
    """One way of numbering units: how it opens a line, and what the match gives (chapter, verse)."""

    pattern: re.Pattern[str]
    numbers: Callable[[re.Match[str]], tuple[str, str]]
    sure: bool
    """Specific enough to count on its own (``4:8``); else it needs chapters or a long run."""


_STYLES = (
    _Style(re.compile(r"(\d{1,3}):(\d{1,3})\.?\s+(?=\S)"), lambda m: (m[1], m[2]), True),
    _Style(re.compile(r"\[(\d{1,4})\]\s*(?=\S)"), lambda m: ("", m[1]), False),
    _Style(re.compile(r"§\s*(\d{1,4}(?:\.\d{1,3})*)\.?\s+(?=\S)"), lambda m: ("", m[1]), True),
    _Style(re.compile(r"([A-Z][A-Za-z]{0,3})\s+(\d{1,3})\.(\d{1,4})\b[.:]?\s*"), lambda m: (f"{m[1]} {m[2]}", m[3]),
           True),
    _Style(re.compile(r"(\d{1,4})\.\s+(?=[^\W\d_]|[\"'“‘(])"), lambda m: ("", m[1]), False),
    _Style(re.compile(r"(\d{1,3})\s+(?=[A-Z]|[\"'“‘(])"), lambda m: ("", m[1]), False),  # "3 And Sigrun wept …"
)
MIN_UNITS = 3
LONG_RUN = 20
"""Numbered paragraphs (``12.``, ``[12]``) in a book without chapter headings count from this many."""


def number(text: str) -> int | None:
    """A chapter number written in digits, Roman numerals or words (up to twenty), else None."""
    text = text.strip().rstrip(".")
    if text.isdigit():
        return int(text)
    if text.lower() in _SPELLED:
        return _SPELLED.index(text.lower()) + 1
    if not text or any(c not in _ROMAN for c in text.upper()) or text.upper() != text:
        return None
    values = [_ROMAN[c] for c in text]
    total = sum(-v if i + 1 < len(values) and v < values[i + 1] else v for i, v in enumerate(values))
    return total if total > 0 else None


def unframed(lines: list[str]) -> list[str]:
    """The lines with Project Gutenberg's licence, credits and transcriber's notes blanked (numbers kept)."""
    start = next((i for i, line in enumerate(lines) if _START.match(line)), None)
    if start is None:
        return lines
    end = next((i for i in range(start + 1, len(lines)) if _END.match(lines[i])), len(lines))
    out = [""] * (start + 1) + lines[start + 1:end] + [""] * (len(lines) - end)
    i = start + 1
    while i < end:
        if _CREDIT.match(out[i]) and not out[i - 1].strip():
            bracketed = out[i].lstrip().startswith("[")
            while i < end and (out[i].strip() or bracketed):
                closes = bracketed and "]" in out[i]
                out[i] = ""
                i += 1
                if closes:
                    break
        i += 1
    return out


def book_lines(text: str) -> list[Raw]:
    """A plain-text file's lines: a book's with chapters and verses where it is one, else plain text's."""
    lines = unframed(split_lines(text))
    headings = _headings(lines)
    style = _numbering(lines, bool(headings))
    if not headings and style is None:
        return text_lines("\n".join(lines))
    nested = {kind for kind, *_ in headings.values() if kind not in OUTER}  # chapters inside books or parts
    outer: tuple[str, str] = ("", "")  # (heading text, number)
    inner: tuple[str, str] = ("", "")
    chapter = verse = ""
    out: list[Raw] = []
    for i, raw in enumerate(lines):
        line = i + 1
        if i in headings:
            kind, value, title = headings[i]
            if kind in OUTER and nested:
                outer, inner = (title, value), ("", "")
            else:
                inner = (title, value)
            chapter, verse = inner[1] or outer[1], ""
            section = " › ".join(t for t in (outer[0], inner[0]) if t)
            out.append(Raw(line, clean(title), section=section, kind=HEADING, solo=True, chapter=chapter))
            continue
        section = " › ".join(t for t in (outer[0], inner[0]) if t)
        body = raw
        match = style.pattern.match(raw) if style is not None and _opens(lines, i) else None
        if match is not None and style is not None:
            unit_chapter, verse = style.numbers(match)
            chapter = unit_chapter or inner[1] or outer[1]
            body = raw[match.end():]
        out.append(Raw(line, clean(body), section=section, chapter=chapter, verse=verse if body.strip() else ""))
    return out


def _opens(lines: list[str], i: int) -> bool:
    """A line that opens a paragraph: the first, after a blank line, or in a file of one unit a line."""
    return i == 0 or not lines[i - 1].strip() or any(s.pattern.match(lines[i - 1]) for s in _STYLES)


def _headings(lines: list[str]) -> dict[int, tuple[str, str, str]]:
    """Heading lines: index → (kind word or "" for a bare number, its number, the heading as shown).

    A heading stands alone between blank lines (or with a short title under it); a paragraph that
    opens with "BOOK I. (Folio), CHAPTER I. …" is text. A short title on the next line joins the
    heading. Bare numbers count only when at least three count up.
    """
    found: dict[int, tuple[str, str, str]] = {}
    bare: dict[int, tuple[str, str, str]] = {}
    for i, line in enumerate(lines):
        if not line.strip() or len(line.strip()) > 80 or (i and lines[i - 1].strip()):
            continue
        match = _HEADING.match(line)
        value = number(match[2]) if match else None
        if match and value is not None and (_alone(lines, i) or _titled(lines, i)):
            title = _with_title(lines, i, clean(line))
            found[i] = (match[1].lower(), str(value), title)
            continue
        match = _BARE.match(line)
        value = number(match[1]) if match else None
        if match and value is not None and _alone(lines, i):
            bare[i] = ("", str(value), _with_title(lines, i, clean(line)))
    kinds = {kind for kind, *_ in found.values()}
    found = {i: h for i, h in found.items() if sum(1 for k, *_ in found.values() if k == h[0]) >= 2 or len(kinds) > 1}
    if len(bare) >= MIN_UNITS and _counts_up([int(v) for _, v, _ in bare.values()]):
        found |= bare
    return dict(sorted(found.items()))


def _alone(lines: list[str], i: int) -> bool:
    return i + 1 >= len(lines) or not lines[i + 1].strip()


def _titled(lines: list[str], i: int) -> bool:
    """A heading with its title on the next line, the title alone ("CHAPTER IV." / "The Storm" / blank)."""
    return i + 2 < len(lines) and 0 < len(lines[i + 1].strip()) <= 60 and not lines[i + 2].strip()


def _with_title(lines: list[str], i: int, heading: str) -> str:
    """``CHAPTER I. Down the Rabbit-Hole`` when the title stands on the next line or two after a blank one."""
    for j in (i + 1, i + 2):
        if j >= len(lines) or (j == i + 2 and lines[i + 1].strip()):
            break
        text = lines[j].strip()
        if not text:
            continue
        ends_alone = j + 1 >= len(lines) or not lines[j + 1].strip()
        if ends_alone and len(text) <= 60 and not text.endswith((".", ",", ";")) and not _HEADING.match(text) \
                and not any(s.pattern.match(text) for s in _STYLES):
            return f"{heading.rstrip()} {text}" if heading.rstrip().endswith((".", ":")) else f"{heading} {text}"
        break
    return heading


def _numbering(lines: list[str], has_chapters: bool) -> _Style | None:
    """The style that numbers this book's units, if one does: the most frequent that counts up."""
    best: tuple[int, _Style] | None = None
    for style in _STYLES:
        numbers = []
        for i, line in enumerate(lines):
            match = style.pattern.match(line) if _opens(lines, i) else None
            if match is not None:
                numbers.append(style.numbers(match))
        if len(numbers) < MIN_UNITS or not _counts_up([_last(v) for _, v in numbers], chapters=[c for c, _ in numbers]):
            continue
        if not style.sure and not has_chapters and len(numbers) < LONG_RUN:
            continue
        if best is None or len(numbers) > best[0]:
            best = (len(numbers), style)
    return best[1] if best else None


def _last(value: str) -> int:
    return int(value.rsplit(".", 1)[-1])


def _counts_up(values: list[int], chapters: list[str] | None = None) -> bool:
    """Most successive numbers go up by one, or start again at 1 (a new chapter)."""
    if len(values) < 2:
        return False
    steps = 0
    for n, (a, b) in enumerate(zip(values, values[1:], strict=False)):
        new_chapter = chapters is not None and chapters[n] != chapters[n + 1]
        steps += b == a + 1 or (b == 1 and (new_chapter or chapters is None or not chapters[n]))
    return steps >= 0.6 * (len(values) - 1)
