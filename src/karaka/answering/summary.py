"""A chapter told in a few sentences by the model, each sentence checked against the lines it cites.

"What happens in chapter 2?" asks for more than the chapter's opening lines. With a model, the
chapter's lines are read in parts of at most ``PART_CHARS`` characters (``MAX_PARTS`` requests at
most, so a long chapter costs a bounded number); for each part the model replies with a few
sentences, each naming the numbers of the lines it tells. A sentence stands only when every
number, date and name it states is in those lines (``model.unsupported_facts``, and every proper
noun the parser finds), half its content words are its lines' (``SHARED``), and it cites at
least one of them; the rest are dropped and named. Without a standing sentence there is no
summary, and the caller shows the chapter's opening lines instead.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from karaka.answering.model import unsupported_facts
from karaka.jsonparse import JSONRecoveryError, recover_json
from karaka.models.call import LLMCallError
from karaka.services import Services, ask
from karaka.store.base import SourceLine
from karaka.words import WORD

PART_CHARS = 3000
"""The most text one request reads (about 750 tokens): small models keep to it."""
MAX_PARTS = 6
"""The most requests one summary makes; a longer chapter's later lines are left unread and said so."""
SENTENCES = 3
"""The most sentences a part's reply may give."""


@dataclass
class Told:
    """One sentence of a summary and the lines it tells (indices into the chapter's lines)."""

    text: str
    lines: list[int]


@dataclass
class Summary:
    """The sentences that stood, what was dropped and why, the requests made, the lines read."""

    sentences: list[Told] = field(default_factory=list)
    dropped: list[str] = field(default_factory=list)
    requests: int = 0
    read: int = 0
    """How many of the chapter's lines the parts held (all of them unless it is very long)."""


def schema(count: int) -> dict[str, Any]:
    """A part's reply: up to ``SENTENCES`` sentences, each with the numbers of the lines it tells."""
    return {"type": "object", "properties": {"sentences": {
        "type": "array", "maxItems": SENTENCES, "items": {"type": "object", "properties": {
            "text": {"type": "string", "maxLength": 300},
            "lines": {"type": "array", "maxItems": 6, "items": {"type": "integer", "minimum": 1, "maximum": count}}},
            "required": ["text", "lines"]}}}, "required": ["sentences"]}


def parts(lines: tuple[SourceLine, ...]) -> list[list[int]]:
    """The chapter's lines in consecutive parts of at most ``PART_CHARS`` characters, ``MAX_PARTS`` at most."""
    out: list[list[int]] = [[]]
    size = 0
    for i, line in enumerate(lines):
        if out[-1] and size + len(line.text) > PART_CHARS:
            if len(out) == MAX_PARTS:
                break
            out.append([])
            size = 0
        out[-1].append(i)
        size += len(line.text) + 1
    return [p for p in out if p]


CONTENT = frozenset({"NOUN", "PROPN", "VERB", "ADJ", "NUM"})
SHARED = 0.5
"""The share of a sentence's content words (by lemma) its lines must hold: a sentence that tells other
things than its lines (or copies the prompt's wording) does not stand."""


def unsupported_names(text: str, source: str) -> list[str]:
    """Proper names of ``text`` (the parser's PROPN tokens, one word or several) that ``source`` never uses.

    ``model.unsupported_facts`` looks for names of two capitalised words; a summary's invented
    character is as often one word ("Brann sailed home").
    """
    from karaka.nlp import parse

    held = set(WORD.findall(source.lower()))
    return [t.text for t in parse(text) if t.pos_ == "PROPN" and t.text.lower() not in held and t.text.isalpha()]


def shared(text: str, source: str) -> float:
    """The share of ``text``'s content words whose lemma ``source`` holds (1.0 for a text without any)."""
    from karaka.nlp import parse

    held = {t.lemma_.lower() for t in parse(source)} | set(WORD.findall(source.lower()))
    words = [t for t in parse(text) if t.pos_ in CONTENT and t.is_alpha]
    return sum(t.lemma_.lower() in held or t.text.lower() in held for t in words) / len(words) if words else 1.0


def checked(reply: str, part: list[int], lines: tuple[SourceLine, ...]) -> tuple[list[Told], list[str]]:
    """The sentences of a part's reply that its lines bear out, and why the others were dropped."""
    try:
        value = recover_json(reply)
    except JSONRecoveryError:
        return [], ["a reply was not JSON"]
    items = value.get("sentences") if isinstance(value, dict) else None
    if not isinstance(items, list):
        return [], ["a reply held no sentences"]
    told, dropped = [], []
    for item in items[:SENTENCES]:
        text = str(item.get("text") or "").strip() if isinstance(item, dict) else ""
        numbers = item.get("lines") if isinstance(item, dict) else None
        cited = sorted({part[n - 1] for n in numbers if isinstance(n, int) and 1 <= n <= len(part)}) \
            if isinstance(numbers, list) else []
        if not text:
            continue
        if not cited:
            dropped.append(f"{text[:60]!r} cites none of its lines")
            continue
        source = " ".join(lines[i].text for i in cited)
        unsupported = list(dict.fromkeys(unsupported_facts(text, source) + unsupported_names(text, source)))
        if unsupported:
            dropped.append(f"{text[:60]!r} states {', '.join(map(repr, unsupported[:3]))}, not in its lines")
            continue
        if shared(text, source) < SHARED:
            dropped.append(f"{text[:60]!r} tells too little of its lines")
            continue
        told.append(Told(text, cited))
    return told, dropped


def summarise(services: Services, place: str, lines: tuple[SourceLine, ...]) -> Summary:
    """The model's checked summary of ``lines``, the text at ``place`` ("moby-dick chapter 2")."""
    summary = Summary()
    for part in parts(lines):
        listing = "\n".join(f"{n}. {lines[i].text}" for n, i in enumerate(part, 1))
        summary.requests += 1
        summary.read += len(part)
        try:
            reply = ask(services, "chapter_summary_prompt", schema=schema(len(part)), max_tokens=320, greedy=True,
                        place=place, lines=listing).text
        except LLMCallError as exc:
            summary.dropped.append(f"a model call failed: {exc}")
            continue
        told, dropped = checked(reply, part, lines)
        summary.sentences += told
        summary.dropped += dropped
    return summary
