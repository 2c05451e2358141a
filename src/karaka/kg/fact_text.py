"""The text an entity's facts are read from: documents found by title, their lines, names, dates and places as encyclopaedic text writes them."""

from __future__ import annotations

import re
import threading
from dataclasses import dataclass

from karaka.nlp import parse
from karaka.nlp.relations import normalize
from karaka.store.base import Store

AGENT_VERBS = {
    "director": ["direct"], "composer": ["compose", "score"], "producer": ["produce"], "writer": ["write", "pen"],
    "author": ["write", "author"], "founder": ["found", "establish", "create"], "performer": ["perform", "record", "sing"],
    "singer": ["sing", "perform", "record"], "publisher": ["publish"], "creator": ["create"], "editor": ["edit"],
    "designer": ["design"], "architect": ["design"], "screenwriter": ["write"], "owner": ["own"],
    "developer": ["develop"], "manufacturer": ["manufacture", "make"], "inventor": ["invent"], "painter": ["paint"],
}


UPPER = "A-Z" + "".join(c for c in map(chr, range(0xC0, 0x250)) if c.isupper())  # "Áedo", "Łukasz"


_PARTICLES = "of|de|von|van|der|mac|mc|ap|the|la|le|y|da|di|del|du|bin|ibn|al|ó|ua|dos|das"


NAME = (rf"(?:[{UPPER}][\w'’.-]*|al-[{UPPER}][\w'’.-]*)(?:\s+(?:[{UPPER}][\w'’.-]*|(?:al|el|ibn|bin)-[\w'’.-]+|"
        rf"(?:{_PARTICLES})\b))*(?:\s+[IVX]+\b)?")


RANKED = (r"(?:,\s+(?:\d+\w*\s+)?(?:Duke|Duchess|Count|Countess|King|Queen|Prince|Princess|Earl|Lord|Lady|Marquess|"
          r"Marchioness|Baron|Baroness|Emperor|Empress|Archduke|Archduchess|Grand Duke|Margrave|Landgrave|Elector|"
          r"Abbess|Bishop|Viscount|Sultan|Caliph)\s+(?:of\s+)?[A-Z][\w'’-]*(?:[\s-]+[A-Z][\w'’-]*)*)?")


PERSON = NAME + RANKED


DATE = re.compile(
    r"(?:(?:\d{1,2}\s+)?(?:January|February|March|April|May|June|July|August|September|October|November|December)"
    r"(?:\s+\d{1,2})?,?\s+)?(?:c\.\s*)?\d{3,4}(?:\s*(?:BC|BCE|AD|CE)\b)?")


_MONTHS = {m: i for i, m in enumerate("january february march april may june july august september october november "
                                      "december".split(), 1)}


_titles: dict[int, tuple[tuple[int, int], dict[str, str], dict[str, list[str]]]] = {}


_lock = threading.Lock()


@dataclass
class Fact:
    """A value read for a subject, with the line it was read from."""

    value: str
    document: str
    entity: str | None = None


def titles(store: Store) -> tuple[dict[str, str], dict[str, list[str]]]:
    """(normalised title → title, normalised title → doc ids) of documents whose first line is a title.

    A title's parenthetical qualifier is optional: "Bert Nelson" finds "Bert Nelson (publisher)".
    """
    key = (store.records.generation(), len(store.graph))
    with _lock:
        cached = _titles.get(id(store))
        if cached and cached[0] == key:
            return cached[1], cached[2]
        names: dict[str, str] = {}
        docs: dict[str, list[str]] = {}
        for doc_id, text in store.graph.first_lines().items():
            if not text or len(text.split()) > 15 or text.endswith("."):
                continue
            for variant in (text, re.sub(r"\s*\([^)]*\)\s*$", "", text)):
                norm = normalize(variant)
                if norm:
                    names.setdefault(norm, text)
                    docs.setdefault(norm, [])
                    if doc_id not in docs[norm]:
                        docs[norm].append(doc_id)
        _titles[id(store)] = (key, names, docs)
        return names, docs


def subject_documents(store: Store, subject: str) -> list[str]:
    """The documents about a subject: by title, else where the entity is the kartā of its first lines."""
    _, docs = titles(store)
    norm = normalize(subject)
    for variant in _name_variants(subject):
        found = list(docs.get(normalize(variant)) or [])
        if found:
            return found
    longer = [key for key in docs if key.startswith(norm + " ")] if len(norm.split()) >= 2 else []
    if len(longer) == 1:  # "Humphrey Sturt" → "Humphrey Sturt, 2nd Baron Alington"
        return list(docs[longer[0]])
    out: list[str] = []
    for entity in store.resolver.candidates(subject)[:3]:
        for kriya, _ in store.graph.uses(entity)[:20]:
            doc_id = str((store.graph.node(kriya) or {}).get("doc_id"))
            if doc_id not in out:
                out.append(doc_id)
    return out


_HONORIFIC = re.compile(r"^(?:(?:King|Queen|Prince|Princess|Grand|Duke|Duchess|Archduke|Archduchess|Emperor|Empress|"
                        r"Sir|Dame|Lord|Lady|Caliph|Sultan|Pope|Saint|St\.|Count|Countess|Tsar|Shah|Dr\.)\s+)+")


def _name_variants(name: str) -> list[str]:
    """The ways a document's title may write a name read from another line, most exact first.

    "Bert Nelson" (title "Bert Nelson (publisher)" drops its qualifier), "King George VII of
    Imereti" (title "George VII of Imereti"), "King Oswiu of Northumbria" ("Oswiu"), "William E.
    Bell" ("William Bell").
    """
    bare = re.sub(r"\s*\([^)]*\)\s*$", "", name).strip()
    plain = _HONORIFIC.sub("", bare)
    out = [name, bare, plain, re.sub(rf"\s+[{UPPER}]\.(?=\s)", "", plain),
           re.sub(rf"\s+of\s+[{UPPER}][\w'’-]*(?:\s+[{UPPER}][\w'’-]*)*$", "", plain)]
    return [v for v in dict.fromkeys(out) if v]


def subject_lines(store: Store, doc_ids: list[str], limit: int = 12) -> list[tuple[str, str]]:
    """(Document node, text) of a subject's documents, title line skipped, in reading order."""
    out = []
    for doc_id in doc_ids[:3]:
        for node in store.graph.document_nodes(doc_id)[:limit]:
            attrs = store.graph.node(node) or {}
            if attrs.get("seq") == 1 and len(str(attrs.get("text", "")).split()) <= 15 \
                    and not str(attrs.get("text", "")).endswith("."):
                continue
            out.append((node, str(attrs.get("text", ""))))
    return out


def date_key(text: str) -> tuple[int, int, int] | None:
    """A sortable (year, month, day) from a date expression; BC years are negative."""
    year = re.search(r"\b(\d{3,4})\b", text)
    if year is None:
        return None
    value = int(year.group(1)) * (-1 if re.search(r"\b(BC|BCE)\b", text) else 1)
    month = next((n for name, n in _MONTHS.items() if name in text.lower()), 0)
    day = re.search(r"\b(\d{1,2})\b(?!\d)", text.replace(year.group(1), ""))
    return value, month, int(day.group(1)) if day and month else 0


def lifespan(text: str) -> tuple[str | None, str | None]:
    """(birth, death) from the parenthesis after a name: "(7 March 1934 – 12 July 1995)", "(born 1948)", "(died 678)"."""
    match = re.search(r"\(([^()]*\d{3,4}[^()]*)\)", text[:400])
    if match is None:
        return None, None
    inside = match.group(1)
    dates = [d.group().strip() for d in DATE.finditer(inside)]
    if not dates:
        return None, None
    if re.search(r"\b(died|d\.)\s", inside) and not re.search(r"\bborn\b|[–-]", inside.split("died")[0]):
        return None, dates[0]
    if re.search(r"\bborn\b", inside) and len(dates) == 1:
        return dates[0], None
    if len(dates) >= 2 and re.search(r"[–-]", inside):
        return dates[0], dates[1]
    return (dates[0], None) if re.search(r"\bborn\b", inside) else (None, None)


_LINKS = ("and|or|of|for|in|on|with|from|at|to|was|is|were|are|who|whose|which|as|by|featuring|feat|had|has|"
          + _PARTICLES)


_ADJECTIVE = re.compile(rf"\b[{UPPER}][\w-]*(?=\s+(?!(?:{_LINKS})\b)[a-z])")


def adjectives_lowered(text: str) -> str:
    """The text with a capitalised word before a lower-case one lowered, as in "by Japanese recording artist".

    Such a word ("Japanese", "Argentine") describes the name that follows; it is not the name.
    The text keeps its length, so what a pattern captures from it is read from the original.
    """
    return _ADJECTIVE.sub(lambda m: m.group().lower(), text)


def name_after(pattern: str, text: str, what: str = PERSON) -> str | None:
    """The name (or what ``what`` matches) right after ``pattern`` in ``text``, or None."""
    match = re.search(pattern + r"\s*(" + what + ")", adjectives_lowered(text))
    return text[match.start(1):match.end(1)].strip(" ,") if match else None


def entity_after(text: str, anchor: str, labels: tuple[str, ...], start: int = 0, until: int | None = None) -> str | None:
    """The first named entity of the given kinds after the anchor word (searched from ``start``, ending by ``until``).

    A place keeps the region written after it: "San Diego, California".
    """
    at = text.lower().find(anchor, start)
    if at < 0:
        return None
    end = len(text) if until is None else until
    ents = [e for e in parse(text).ents if e.end_char <= end]
    for i, ent in enumerate(ents):
        if ent.start_char > at and ent.label_ in labels:
            following = ents[i + 1] if i + 1 < len(ents) else None
            if following is not None and ent.label_ == following.label_ == "GPE" \
                    and text[ent.end_char:following.start_char] == ", ":
                return text[ent.start_char:following.end_char]
            return ent.text
    return None


_PLACE = (rf"[{UPPER}][\w'’-]*(?:\s+(?:(?:of|de|del|la|upon|on|am|an)\s+)?[{UPPER}][\w'’-]*)*"
          rf"(?:,\s+[{UPPER}][\w'’-]*(?:\s+[{UPPER}][\w'’-]*)*)?")


def place_after(text: str, verb: str) -> str | None:
    """The capitalised place right after "born in", "died at", "buried in the": what the parse may misname.

    "She died in Palencia" (the small model calls Palencia a person); a month is not a place.
    """
    match = re.search(rf"\b{verb}\b(?:\s+\w+ly)?\s+(?:in|at)\s+(?:the\s+)?({_PLACE})", text)
    if match is None or match.group(1).split()[0].lower() in _MONTHS:
        return None
    return match.group(1)


def lifespan_place(text: str, death: bool) -> str | None:
    """The place in the life-span parenthesis: "(November 28, 1892, in Atlantic City, New Jersey – …, in Mount Carmel)"."""
    match = re.search(r"\(([^()]*\d{3,4}[^()]*)\)", text[:400])
    if match is None:
        return None
    dash = re.search(r"\s[–-]\s", match.group(1))
    if dash is None and death:
        return None
    start = match.start(1) + (dash.end() if death and dash else 0)
    until = match.end(1) if death or dash is None else match.start(1) + dash.start()
    if not re.search(r"\bin\s", text[start:until]):
        return None
    return entity_after(text, "in ", ("GPE", "LOC"), start=start, until=until)
