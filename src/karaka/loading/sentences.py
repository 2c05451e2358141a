"""Lines of a document, as a format reads them → sentences that keep the place they start at.

Every format module yields ``Raw`` lines: the file line (or, in a PDF, the page and the line on
it), the text, and what the line is (prose, a heading, code, a table row). This module joins
lines that were visibly wrapped, rejoins words hyphenated at a line end, splits the result into
sentences and gives each sentence the place of the line it starts on. Sentence ends of other
scripts (。！？ । ॥ ؟) end sentences too.
"""

from __future__ import annotations

import bisect
import re
import unicodedata
from collections.abc import Iterable, Iterator
from typing import NamedTuple

from karaka.store.base import SourceLine

ABBREVIATIONS = frozenset(
    "dr mr mrs ms prof sr jr st mt no vs etc e.g i.e eg ie viz cf fig al gen col lt sgt capt rev hon "
    "inc ltd co corp dept univ approx jan feb mar apr jun jul aug sep sept oct nov dec".split()
)
_SENTENCE_END = re.compile(r"""([.!?…]+["'”’)\]]*)(\s+)(?=["'“‘(\[]?(?![a-z])[^\s\W_]|["'“‘(\[]?\d)""")
_SCRIPT_END = re.compile(r"""([。！？।॥؟]+["'”’)\]」』]*)\s*(?=\S)""")
_TERMINAL = re.compile(r"""[.!?…。！？।॥؟]["'”’)\]」』]*$""")
_CONTINUES = re.compile(r"[,;:\-–—]$|(?<![\w-])(?:the|a|an|of|to|for|with|and|or|nor|by|in|on|at|from|that|which|"
                        r"whose|as|than|into|its|their|his|her|is|are|was|were)$")
"""A line that ends mid-phrase: on a comma or a dash, or on a small word no sentence or title ends with ("… means
the" over "Corresponding Source for …": the capitals of a licence's defined terms make no title of it)."""
SOFT_HYPHENS = "\u00ad\x02\ufffe"
"""A soft hyphen (U+00AD), as pdfium reads it (U+0002), and the U+FFFE pdfium gives for a hyphen ending a line."""
_SOFT_BREAK = re.compile(rf"(?<=[^\W\d_])[{SOFT_HYPHENS}\u2010]$")
"""A word cut at the line end by a soft hyphen or groff's U+2010."""
_HARD_BREAK = re.compile(r"(?<=[^\W\d_])-$")
_SPACES = re.compile(r"\s{2,}|[^\S ]")  # only what changes: a long line makes no list of its words
_INVISIBLE = re.compile(rf"[{SOFT_HYPHENS}\u200b\ufeff]")
WRAP_WIDTH = 40
PROSE, HEADING, CODE, TABLE = "", "heading", "code", "table"
NOT_EXTRACTED = frozenset({CODE, TABLE})
"""Kinds of line that are indexed and cited but never given to the kāraka extractor."""


class Raw(NamedTuple):
    """One line as a format reads it; an empty ``text`` ends a paragraph."""

    line: int
    """The file line from 1 (a PDF: Karaka's running line number over all pages)."""
    text: str
    page: int = 0
    """A PDF's page from 1; 0 for files without pages."""
    page_line: int = 0
    """The line within its page, from 1, headers and footers not counted."""
    section: str = ""
    """The headings above the line, outermost first, joined by " › "."""
    kind: str = PROSE
    method: str = ""
    """How the text was read when it was not read directly: "ocr"."""
    solo: bool = False
    """A block of its own (a heading, a list item, a code line, a table row)."""
    wraps: bool | None = None
    """A PDF line that runs to the right margin (so the text goes on); None where unknown."""
    chapter: str = ""
    """A book's chapter number ("4"), its numbered unit within it (``verse``: "8"); see ``book``."""
    verse: str = ""


def clean(text: str) -> str:
    """NFKC (ligatures such as U+FB01 become "fi") with whitespace collapsed; soft hyphens kept at the end."""
    text = unicodedata.normalize("NFKC", text)
    end = text.rstrip()
    tail = end[-1:] if end[-1:] in SOFT_HYPHENS else ""
    return _SPACES.sub(" ", _INVISIBLE.sub("", text)).strip() + tail  # not split(): a 50 MB line is 9M words


class TooManyLines(ValueError):
    """A text of more lines than a file may have."""


def _is_abbreviation(text_before: str) -> bool:
    before = text_before.rstrip()
    if before.endswith(" ."):  # tokenised text: "Mr . Smith"
        before = before[:-2]
    word = re.split(r"\s", before)[-1].rstrip(".").lower()
    if word in ABBREVIATIONS:
        return True
    return bool(re.fullmatch(r"(?:[a-z]\.)*[a-z]", word))  # initials and dotted acronyms: "J.", "U.S."


def _open_bracket(text: str) -> bool:
    """Whether a bracket opened in ``text`` is still open at its end: "(eg. 20 to 30 times)" holds no sentence end."""
    return text.count("(") > text.count(")")


def split_sentences(text: str, limit: int = 0) -> list[str]:
    """Split text (whitespace already normalised) into sentences, sparing abbreviations and initials.

    Raises:
        TooManyLines: more than ``limit`` sentences (when set), found before they are all cut out.
    """
    cuts: list[tuple[int, int]] = []
    for match in _SENTENCE_END.finditer(text):
        # the word before the stop (a window, not the whole prefix: a long paragraph stays linear)
        if match.group(1).startswith(".") and _is_abbreviation(text[max(0, match.start(1) - 80):match.start(1) + 1]):
            continue
        if _open_bracket(text[max(0, match.start(1) - 200, cuts[-1][1] if cuts else 0):match.end(1)]):
            continue
        cuts.append((match.end(1), match.end()))
        if limit and len(cuts) > limit:
            raise TooManyLines(limit)
    for match in _SCRIPT_END.finditer(text):
        cuts.append((match.end(1), match.end()))
        if limit and len(cuts) > 2 * limit:  # a cut may be found by both patterns
            raise TooManyLines(limit)
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


def one_per_line(texts: Iterable[str]) -> bool:
    """Lines that (nearly all) end a sentence: the file holds one sentence, or one paragraph, per line."""
    lines = [t for t in texts if t]
    ended = sum(1 for line in lines if _TERMINAL.search(line) or _TERMINAL.search(line.rstrip("'\"` ")))
    return len(lines) >= 3 and ended >= 0.8 * len(lines)


def wrapped(previous: str, line: str) -> bool:
    """True when ``line`` continues ``previous`` (the text was wrapped) rather than starting anew.

    A line that ends a sentence ends its block; a line that ends mid-phrase (a comma, a lowercase
    next word, a hyphenated word) continues. A long line continues into the next one unless it
    reads as a title (most of its words capitalised), so "Margaret of Bavaria, Marchioness of
    Mantua" above its text stays a line of its own.
    """
    if _SOFT_BREAK.search(previous) or (_HARD_BREAK.search(previous) and line[:1].islower()):
        return True
    if _TERMINAL.search(previous):
        return False
    if line[:1].islower() or _CONTINUES.search(previous):
        return True
    if previous.isupper() and line.isupper() and len(previous) >= WRAP_WIDTH:
        return True  # a paragraph in capitals ("THE SOFTWARE IS PROVIDED …"): no title runs to the margin twice
    words = previous.split()
    titled = sum(1 for w in words if w[:1].isupper() or not w[:1].isalpha()) / len(words)
    return len(previous) >= WRAP_WIDTH and (titled < 0.6 or words[-1][:1].islower())  # a title ends on a capital;
    # German prose has capitals enough to read as one ("Setzt den Farbmodus. Die derzeit unterstützten")


def _continues(previous: Raw, line: Raw) -> bool:
    if (previous.section, previous.kind, previous.chapter, previous.verse) != (
            line.section, line.kind, line.chapter, line.verse):
        return False
    if previous.wraps is None:
        return wrapped(previous.text, line.text)
    if previous.wraps and not _TERMINAL.search(previous.text):
        return True  # a PDF line that runs to the margin goes on, whatever its capitals
    return wrapped(previous.text, line.text) and (
        previous.wraps or line.text[:1].islower() or bool(_CONTINUES.search(previous.text))
        or bool(_SOFT_BREAK.search(previous.text)))


def blocks(raws: Iterable[Raw], keep_lines: bool) -> Iterator[list[Raw]]:
    """Runs of lines that belong together: a wrapped paragraph, or a single line.

    In a file whose lines nearly all end a sentence (``keep_lines``), every line is its own
    block: nothing there was wrapped, and a line without a full stop must not swallow the next.
    """
    block: list[Raw] = []
    for raw in raws:
        if not raw.text or raw.solo:
            if block:
                yield block
            block = []
            if raw.text:
                yield [raw]
            continue
        if block and (keep_lines or not _continues(block[-1], raw)):
            yield block
            block = []
        block.append(raw)
    if block:
        yield block


def _join(block: list[Raw]) -> tuple[str, list[int]]:
    """The block's text as one string, and where each line starts in it (hyphenated words rejoined)."""
    joined, starts = "", []
    for raw in block:
        text = raw.text
        if joined:
            if _SOFT_BREAK.search(joined) and text[:1].isalpha():
                joined = joined[:-1]
            elif not (_HARD_BREAK.search(joined) and text[:1].islower()):
                joined = joined.rstrip(SOFT_HYPHENS) + " "
        starts.append(len(joined))
        joined += text
    return joined.rstrip(SOFT_HYPHENS), starts


def _fragment(text: str) -> bool:
    """A formula piece or label: short, with no word of three letters."""
    return len(text) < 20 and not re.search(r"[^\W\d_]{3}", text)


def build(raws: list[Raw], max_line_chars: int = 1000, warnings: list[str] | None = None, where: str = "",
          *, drop_fragments: bool = False, lang: str = "", max_lines: int = 0) -> list[SourceLine]:
    """Sentences with their place, cut to ``max_line_chars``; code and table lines stay one line each.

    Raises:
        TooManyLines: there are more than ``max_lines`` (when set); found before they are all built.
    """
    keep_lines = not any(r.page for r in raws) and one_per_line(r.text for r in raws if not r.solo)
    placed: list[tuple[Raw, str]] = []
    for block in blocks(raws, keep_lines):
        if block[0].kind in NOT_EXTRACTED or block[0].kind == HEADING:  # "CHAPTER 1. Loomings." is one line
            placed += [(raw, piece) for raw in block for piece in split_long(raw.text, max_line_chars)]
            continue
        joined, starts = _join(block)
        cursor = 0
        for sentence in split_sentences(joined, max_lines and max_lines - len(placed) + 1):
            at = joined.find(sentence, cursor)
            at = cursor if at < 0 else at
            cursor = at + len(sentence)
            raw = block[bisect.bisect_right(starts, at) - 1]
            if drop_fragments and _fragment(sentence):
                continue
            pieces = split_long(sentence, max_line_chars)
            if len(pieces) > 1 and warnings is not None:
                warnings.append(f"{where}: a sentence of {len(sentence)} characters on line {raw.line} "
                                f"was split into {len(pieces)} lines")
            placed += [(raw, piece) for piece in pieces]
        if max_lines and len(placed) > max_lines:
            raise TooManyLines(max_lines)
    per_line: dict[int, int] = {}
    for raw, _ in placed:
        per_line[raw.line] = per_line.get(raw.line, 0) + 1
    seen: dict[int, int] = {}
    out: list[SourceLine] = []
    for raw, piece in placed:
        seen[raw.line] = seen.get(raw.line, 0) + 1
        sentence_no = seen[raw.line] if per_line[raw.line] > 1 else 0
        out.append(SourceLine(len(out) + 1, raw.line, sentence_no, piece, page=raw.page, page_line=raw.page_line,
                              section=raw.section, kind=raw.kind, method=raw.method, lang=lang,
                              chapter=raw.chapter, verse=raw.verse))
    return out
