"""Questions that cite a place: "What does Genesis 4:8 say?", "Jonah chapter 2", "SN 35.28", "page 12 of …".

``parse`` finds the reference in a question (a book or document name, chapter, verse, section,
page) when the question only asks for the text there; ``look_up`` finds the document by its
name (its id, an abbreviation of it, its title, a near spelling) and the unit's lines, or says
that the document has no such place. A name that is no document's is not a reference at all
("Psalm 23" in a corpus without psalms is answered as any question).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, replace
from difflib import SequenceMatcher

from karaka.loading.book import number
from karaka.store.base import SourceLine
from karaka.store.embedded.records import Records
from karaka.words import WORD

_NAME = r"(?P<name>(?:[1-4]\s*)?[^\W\d_][\w'’.-]*(?:\s+(?:of\s+|the\s+)?[^\W\d_][\w'’.-]*){0,4}?)"
_NUM = r"(\d{1,4}|[IVXLCDM]{1,8})"
_PATTERNS = (
    # Genesis 4:8, Gen 4:8-10, 1 Kings 2:3
    re.compile(rf"{_NAME}\s+(?P<chapter>\d{{1,3}})\s*:\s*(?P<verse>\d{{1,3}})(?:\s*[-–]\s*(?P<last>\d{{1,3}}))?\b"),
    # SN 35.28, MN 10.3: a collection's numbering
    re.compile(r"\b(?P<collection>[A-Z][A-Za-z]{0,3})\s+(?P<chapter>\d{1,3})\.(?P<verse>\d{1,4})\b"),
    # chapter 4 verse 8 of Genesis; chapter 2 of Jonah; verse 8 of chapter 4 of Genesis
    re.compile(rf"\b(?:verse|v\.)\s*(?P<verse>\d{{1,3}})\s+(?:of|in)\s+(?:chapter|ch\.)\s*(?P<chapter>{_NUM})"
               rf"(?:\s+(?:of|in)\s+(?:the\s+(?:book\s+of\s+)?)?{_NAME})?", re.IGNORECASE),
    re.compile(rf"\b(?:chapter|ch\.)\s*(?P<chapter>{_NUM})(?:,?\s*(?:verse|v\.)\s*(?P<verse>\d{{1,3}}))?"
               rf"(?:\s+(?:of|in)\s+(?:the\s+(?:book\s+of\s+)?)?{_NAME})?", re.IGNORECASE),
    # Jonah chapter 2; Ruth, ch. 2, v. 11
    re.compile(rf"{_NAME},?\s+(?:chapter|ch\.)\s*(?P<chapter>{_NUM})(?:,?\s*(?:verse|v\.)\s*(?P<verse>\d{{1,3}}))?",
               re.IGNORECASE),
    # section 3.2 (of the bzip2 manual); § 3.2
    re.compile(rf"(?:\bsection|§)\s*(?P<section>\d{{1,3}}(?:\.\d{{1,3}})*)(?:\s+(?:of|in)\s+(?:the\s+)?{_NAME})?",
               re.IGNORECASE),
    # page 12 of the bzip2 manual; the bzip2 manual, page 12
    re.compile(rf"\b(?:page|p\.)\s*(?P<page>\d{{1,4}})(?:\s+(?:of|in)\s+(?:the\s+)?{_NAME})?", re.IGNORECASE),
    re.compile(rf"{_NAME},?\s+(?:page|p\.)\s*(?P<page>\d{{1,4}})", re.IGNORECASE),
)
ASKS_TEXT = frozenset(
    "what which does do did is are was were say says said written write writes tell tells told happen happens "
    "happened there in at on of the a text contents content show me read quote give print display recite words "
    "passage verse chapter section page please can you could would about summary summarise summarize".split())
"""Words of a question that asks only for the text at a place: what remains once the reference is taken out."""
_QUESTION_WORDS = frozenset("how who whom whose why when where".split())
GENERIC_NAMES = frozenset("the a book of manual guide document documents file text page section chapter".split())
"""Words of a name that name no document by themselves ("the bzip2 manual": bzip2)."""
SIMILAR = 0.8
"""How close a misspelt name must come to a document's (difflib ratio): "Genisis" finds genesis."""


@dataclass(frozen=True)
class Reference:
    """A place a question cites."""

    name: str = ""
    """The book or document as written ("Gen", "the bzip2 manual"); "" where none is named."""
    chapter: str = ""
    """The chapter as a number ("4"), or a collection's ("SN 35")."""
    verse: str = ""
    last: str = ""
    """The last verse of a range (``4:8-10``)."""
    section: str = ""
    page: int = 0
    shown: str = ""
    """The reference as the question wrote it."""

    def label(self, doc_id: str = "") -> str:
        """How the place reads in an answer: ``genesis 4:8``, ``jonah chapter 2``, ``section 3.2``."""
        where = self.name if not doc_id else doc_id
        if self.verse and self.chapter.isdigit():
            place = f"{self.chapter}:{self.verse}" + (f"-{self.last}" if self.last else "")
        elif self.verse:
            place = f"{self.chapter}.{self.verse}"
        elif self.chapter:
            place = f"chapter {self.chapter}"
        elif self.section:
            place = f"section {self.section}"
        else:
            place = f"page {self.page}"
        return f"{where} {place}".strip()


def parse(question: str) -> Reference | None:
    """The place ``question`` cites, when all it asks is the text there; else None."""
    text = question.strip().rstrip("?!. ")
    for pattern in _PATTERNS:
        for match in pattern.finditer(text):
            ref = _reference(match)
            if ref is None:
                continue
            end = match.end()
            if ref.name and match.end("name") == end:  # a name at the end goes on to the asking words: "of Moby Dick say"
                tail = re.match(r"(?:\s+[^\W\d_][\w'’.-]*)+", text[end:])
                for word in (tail.group(0).split() if tail else []):
                    if word.lower() in ASKS_TEXT:
                        break
                    end = text.index(word, end) + len(word)
                ref = replace(ref, name=text[match.start("name"):end].strip(" ,"), shown=text[match.start():end].strip())
            rest = (text[:match.start()] + " " + text[end:]).lower()
            name_words = WORD.findall(ref.name.lower())
            if ref.name and name_words and name_words[0] in ASKS_TEXT:  # "does Genesis 4:8" read as a name
                ref = _without_leading(ref, name_words)
            if _QUESTION_WORDS & set(WORD.findall(ref.name.lower())):
                continue  # "How old was Oren in chapter 1": a question about the chapter, not its text
            if all(w in ASKS_TEXT or w in GENERIC_NAMES for w in re.findall(r"[^\W\d_]+", rest)):
                return ref
    return None


def _reference(match: re.Match[str]) -> Reference | None:
    groups = {k: v for k, v in match.groupdict().items() if v}
    chapter = groups.get("chapter", "")
    if chapter and not chapter.isdigit():
        value = number(chapter)
        if value is None:
            return None
        chapter = str(value)
    if "collection" in groups:
        chapter = f"{groups['collection']} {chapter}"
    return Reference(name=groups.get("name", "").strip(" ,"), chapter=chapter, verse=groups.get("verse", ""),
                     last=groups.get("last", ""), section=groups.get("section", ""),
                     page=int(groups.get("page", 0) or 0), shown=match.group(0).strip())


def _without_leading(ref: Reference, words: list[str]) -> Reference:
    """The name without the question words the pattern took into it ("does Genesis" → "Genesis")."""
    kept = ref.name.split()
    while kept and kept[0].lower().strip(",") in ASKS_TEXT:
        kept.pop(0)
    return Reference(" ".join(kept), ref.chapter, ref.verse, ref.last, ref.section, ref.page, ref.shown)


@dataclass(frozen=True)
class Found:
    """What a reference leads to: the document and the unit's lines, or why there are none."""

    ref: Reference
    doc_id: str = ""
    lines: tuple[SourceLine, ...] = ()
    missing: str = ""
    """The place does not exist: "genesis has no verse 4:99"."""


def look_up(ref: Reference, records: Records) -> Found | None:
    """The lines at ``ref``: of the document its name finds, or of any document when it names none.

    None when the name is no document's (so the question is answered as any other).
    """
    docs = [d["doc_id"] for d in records.documents()]
    if ref.name:
        docs = named(ref.name, docs, records)
        if not docs:
            return None
    for doc_id in docs:
        lines = records.lines(doc_id)
        found = tuple(s for s in lines if _at(ref, s))
        if found:
            return Found(ref, doc_id, found)
    if ref.chapter and not ref.chapter.isdigit() and not any(
            s.chapter.startswith(ref.chapter.split()[0] + " ") for d in docs for s in records.lines(d)):
        return None  # "SN 35.28" where nothing is numbered SN: not a reference
    where = docs[0] if ref.name and len(docs) == 1 else "no document"
    return Found(ref, docs[0] if len(docs) == 1 else "", missing=f"{where} has no {_place(ref)}")


def _place(ref: Reference) -> str:
    """"verse 4:99", "SN 35.99", "chapter 9", "section 3.9", "page 120"."""
    if ref.verse and ref.chapter.isdigit():
        return f"verse {ref.chapter}:{ref.verse}" + (f"-{ref.last}" if ref.last else "")
    if ref.verse:
        return f"{ref.chapter}.{ref.verse}"
    if ref.chapter:
        return f"chapter {ref.chapter}"
    return f"section {ref.section}" if ref.section else f"page {ref.page}"


def _at(ref: Reference, line: SourceLine) -> bool:
    if ref.page:
        return line.page == ref.page
    if ref.section:
        heads = line.section.split(" › ")
        return line.verse == ref.section or any(re.match(rf"§?\s*{re.escape(ref.section)}(?![.\d]*\d)", h)
                                                 for h in heads)
    if line.chapter != ref.chapter or line.kind == "heading":
        return False
    if not ref.verse:
        return True
    if not line.verse.isdigit():
        return False
    last = int(ref.last or ref.verse)
    return int(ref.verse) <= int(line.verse) <= last


def named(name: str, docs: list[str], records: Records) -> list[str]:
    """The documents ``name`` names: by id (its last part), an abbreviation, its title line, or a near spelling."""
    words = [w for w in WORD.findall(name.lower()) if w not in GENERIC_NAMES]
    if not words:
        return []
    wanted = " ".join(words)
    out = []
    for doc_id in docs:
        names = {doc_id.lower(), doc_id.rsplit("/", 1)[-1].lower()}
        first = records.lines(doc_id, 1, 1)
        if first and len(first[0].text.split()) <= 12:
            names.add(first[0].text.lower())
        if any(_names(wanted, words, candidate) for candidate in names):
            out.append(doc_id)
    return out


def _names(wanted: str, words: list[str], candidate: str) -> bool:
    tokens = WORD.findall(candidate)
    joined = " ".join(tokens)
    if wanted == joined or all(w in tokens for w in words):
        return True
    if len(words) == 1 and len(wanted) >= 3 and any(t.startswith(wanted) for t in tokens):
        return True  # an abbreviation: "Gen" for genesis
    return any(SequenceMatcher(None, wanted, t).ratio() >= SIMILAR for t in tokens + [joined])
