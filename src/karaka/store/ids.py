"""Node and unit ids, built and parsed here and nowhere else.

A document is a list of sentences numbered 1..N (``seq``). Each sentence remembers the file line
it starts on and, when that line holds several sentences, its place in the line. Document nodes
are named after the file line (``{doc}_L{line}``, or ``{doc}_L{line}.{sentence}`` when a line
holds several sentences) so that the id says what the citation says; Kriyā nodes hang off their
Document node (``{doc}_L{line}_K{k}``).
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

_UNIT = re.compile(r"^(?P<doc>.+):(?P<first>\d+)-(?P<last>\d+)$")

OUTER = ("book", "part", "volume", "act", "livre", "buch", "teil", "libro")
"""Heading words that hold chapters when both occur (``BOOK II`` › ``CHAPTER 3``)."""
INNER = ("chapter", "canto", "sutta", "sutra", "psalm", "section", "scene", "letter", "lesson", "kapitel",
         "chapitre", "capítulo", "capitulo")
"""Heading words of a book's units (the book reader's, and how a citation names a chapter)."""


def document_node(doc_id: str, line: int, sentence: int = 0) -> str:
    """Document node id of one sentence: ``{doc}_L{line}`` or ``{doc}_L{line}.{sentence}``."""
    return f"{doc_id}_L{line}" + (f".{sentence}" if sentence else "")


def kriya_node(document: str, k: int) -> str:
    """Kriyā node id: the ``k``-th action of a Document node."""
    return f"{document}_K{k}"


def unit_id(doc_id: str, first: int, last: int) -> str:
    """Stable id of a window of sentences ``first..last`` (by ``seq``)."""
    return f"{doc_id}:{first}-{last}"


def parse_unit_id(unit: str) -> tuple[str, int, int]:
    """``(doc_id, first, last)`` of a unit id."""
    match = _UNIT.match(unit)
    if match is None:
        raise ValueError(f"not a unit id: {unit!r}")
    return match["doc"], int(match["first"]), int(match["last"])


def cite(doc_id: str, line: int, sentence: int = 0, *, page: int = 0, page_line: int = 0, section: str = "",
         chapter: str = "", verse: str = "") -> str:
    """How a citation reads.

    A text file's line: ``[doc, Line 11]`` (``[doc, Line 11, sentence 2]`` when the line holds
    several); a PDF's: ``[manual, p. 10, line 7]``, the line counted on the page; a line under a
    heading: ``[webcrypto, § Supported algorithms, line 88]`` (the innermost heading); a book's
    verse: ``[chronicle 4:8]``, ``[suttas, SN 35.28]``, ``[tales, v. 12]``; a recording's line at its
    time: ``[lecture, 12:31]``; a line of a chapter
    without verses: ``[iliad, Book 1, line 12]``, the heading's own word (``ch.`` for a bare number).
    """
    tail = f", sentence {sentence}]" if sentence else "]"
    if page:
        return f"[{doc_id}, p. {page}, line {page_line or line}{tail}"
    if verse and not chapter and ":" in verse:  # a recording's line, at its time
        return f"[{doc_id}, {verse}{tail}"
    if verse and chapter.isdigit():
        return f"[{doc_id} {chapter}:{verse}{tail}"
    if verse:
        return f"[{doc_id}, {chapter}.{verse}{tail}" if chapter else f"[{doc_id}, v. {verse}{tail}"
    if chapter:
        return f"[{doc_id}, {_chapter_word(section)} {chapter}, line {line}{tail}"
    if section:
        heading = section.rsplit(" › ", 1)[-1]
        heading = heading if len(heading) <= 50 else heading[:49].rstrip() + "…"
        return f"[{doc_id}, § {heading}, line {line}{tail}"
    return f"[{doc_id}, Line {line}{tail}"


def _chapter_word(section: str) -> str:
    """``Book`` for a line under ``BOOK II. …``, ``ch.`` for a chapter, a bare ``IV.`` or a title ("The Storm")."""
    word = section.rsplit(" › ", 1)[-1].split(" ", 1)[0].strip(".:").lower()
    return word.capitalize() if word in OUTER + INNER and word != "chapter" else "ch."


def cite_of(place: Mapping[str, Any]) -> str:
    """``cite`` of a citation or a Document node's attributes (``line_number``, ``page``, ``section``…)."""
    return cite(place["doc_id"], int(place["line_number"]), int(place.get("sentence") or 0),
                page=int(place.get("page") or 0), page_line=int(place.get("page_line") or 0),
                section=str(place.get("section") or ""), chapter=str(place.get("chapter") or ""),
                verse=str(place.get("verse") or place.get("time") or ""))


def citation_key(place: Mapping[str, Any]) -> tuple[str, int, int]:
    """The same key for a citation or Document node: a PDF line by page and line on the page."""
    page = int(place.get("page") or 0)
    return place["doc_id"], page, int(place.get("page_line") or place["line_number"]) if page \
        else int(place["line_number"])
