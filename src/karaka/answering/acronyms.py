"""What an abbreviation stands for: the words beside it in brackets whose initials spell it.

"A CRC (cyclic redundancy check) protects every block" and "the write-ahead log (WAL)" say what
CRC and WAL stand for. Nothing else does: a sentence that says what a CRC does answers "what does
CRC stand for?" with nothing, so a description is never shown as the words an abbreviation stands for.
"""

from __future__ import annotations

import re
from typing import Any

from karaka.answering import kinds as k
from karaka.answering.question import Asked
from karaka.answering.span import Span, span_tokens

_ASKED = re.compile(r"\s*what\s+(?:does|do|is)\s+(?:the\s+)?(?:abbreviation\s+|acronym\s+)?[\"'`]?([A-Za-z0-9]{2,8})[\"'`]?"
                    r"\s+(?:stand\s+for|short\s+for|an?\s+abbreviation\s+(?:of|for))\s*\?*\s*$", re.IGNORECASE)
SKIPPED = frozenset("of and for the a an to in on by with".split())
"""Small words an expansion may hold without an initial in the abbreviation ("Department of Energy": DOE or DE)."""


_WHAT_IS = re.compile(r"\s*what\s+(?:is|are)\s+(?:the\s+|an?\s+)?([A-Za-z0-9]{2,8})\s*\?*\s*$", re.IGNORECASE)


def abbreviation(asked: Asked, what_is: bool = False) -> str:
    """The abbreviation a question asks the expansion of ("What does CRC stand for?": CRC), or "".

    With ``what_is``, also the abbreviation "What is the WAL?" asks about: its expansion is one answer.
    """
    found = _ASKED.match(asked.text) or (_WHAT_IS.match(asked.text) if what_is else None)
    word = found.group(1) if found else ""
    return word if sum(c.isupper() for c in word) >= 2 else ""


def _spells(words: list[str], letters: str) -> bool:
    """Whether the words' initials (and each part of a hyphenated word's) spell the letters, small words aside."""
    def fit(i: int, j: int) -> bool:
        if j == len(letters):
            return i == len(words) or all(w.lower() in SKIPPED for w in words[i:])
        if i == len(words):
            return False
        word = words[i]
        parts = [p for p in re.split(r"[-/]", word) if p]
        if word.lower() in SKIPPED and fit(i + 1, j):
            return True
        if len(parts) > 1 and "".join(p[0] for p in parts).lower() == letters[j:j + len(parts)].lower() \
                and fit(i + 1, j + len(parts)):
            return True
        return word[:1].lower() == letters[j].lower() and fit(i + 1, j + 1)
    return bool(words) and fit(0, 0)


_MARK = "[`'\"‘’“”]"
"""A quotation mark or backquote around an abbreviation or its expansion."""


def expansions(asked: Asked, text: str, doc: Any | None) -> list[Span]:
    """The expansions the line gives of the abbreviation asked about, in brackets after it or around it."""
    short = abbreviation(asked, what_is=True)
    letters = re.sub(r"[^A-Za-z]", "", short)
    if not short or not letters:
        return []
    out = []
    for m in re.finditer(rf"\b{re.escape(short)}s?{_MARK}?\s*\(\s*{_MARK}?([^()]+?){_MARK}?\s*\)", text):
        out.append((m.group(1).strip(), m.start(1)))  # "CRC (cyclic redundancy check)", "`OK` (“Only Kites”)"
    for m in re.finditer(rf"((?:[\w'-]+\s+){{1,{2 * len(letters)}}})\(\s*{_MARK}?{re.escape(short)}s?{_MARK}?\s*\)",
                         text):
        words = m.group(1).split()  # "… the write-ahead log (WAL)": the fewest last words that spell it
        for size in range(1, len(words) + 1):
            if _spells(words[-size:], letters):
                phrase = " ".join(words[-size:])
                out.append((phrase, m.start(1) + m.group(1).rfind(phrase)))
                break
    return [Span(value, k.TERM, start, start + len(value), *span_tokens(doc, start, start + len(value)))
            for value, start in out if _spells(value.split(), letters)]
