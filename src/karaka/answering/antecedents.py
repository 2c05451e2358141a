"""Who a pronoun or a description stands for, as a reader of the text links it: a chain of mentions back to a name.

The coreference of ingestion links each pronoun to an antecedent by agreement and recency; here a
pronoun is taken to stand for a name only where that chain reaches the name within a few lines
(``antecedent``), and a description only where the text introduced it with a name ("a champion
named Golan", "The cook, Ottilie Marsh,": ``named_earlier``, ``apposed_name``).
"""

from __future__ import annotations

import re
from typing import Any

from karaka.answering.line import DETERMINERS, Line
from karaka.answering.stems import key, same
from karaka.kg.traverse import spans_of
from karaka.store.base import Store
from karaka.store.ids import document_node
from karaka.store.resolver import name_given
from karaka.words import HUMAN_PRONOUNS, PRONOUNS, WORD

_PERSONAL = HUMAN_PRONOUNS - {"his", "hers"}  # a possessive names an owner, not a doer


CHAIN = 4
"""The most lines a pronoun's chain of mentions may run back to the line that names its antecedent."""


def antecedent(store: Store, entity: str | None, node: str) -> str:
    """The name a personal pronoun stands for, when coreference links it to a name nearby; "" otherwise.

    Nearby is its own line or the line before ("Mara came in. … and she sold it": she is Mara), or
    a line a chain of mentions reaches, each a line after the last ("Tomas left. He worked there.
    He bought a boat": the second "he" is Tomas, named two lines back), at most ``CHAIN`` steps, over
    headings and quoted speeches (``_passed_over``).

    Only he, she, him and her: "it", "they" and "this" are linked less surely, and a wrong
    antecedent would be a wrong answer stated as proved.
    """
    if not entity:
        return ""
    pronoun = str((store.graph.node(entity) or {}).get("canonical_name", "")).lower()
    attrs = store.graph.node(node) or {}
    if pronoun not in _PERSONAL or "seq" not in attrs:
        return ""
    seq = int(attrs["seq"])
    named: dict[int, str] = {}
    mentioned: set[int] = set()
    for alias in sorted(store.graph.same_as_closure(entity) - {entity}):
        alias_attrs = store.graph.node(alias) or {}
        for kriya, _ in store.graph.uses(alias):
            line = store.graph.node(kriya) or {}
            at = int(line.get("seq", -9))
            if line.get("doc_id") != attrs.get("doc_id") or not 0 <= seq - at <= REACH:
                continue
            mentioned.add(at)
            if not alias_attrs.get("pronoun"):
                shown = str(alias_attrs.get("canonical_name", alias))
                named.setdefault(at, name_given(shown) or shown)  # "he (Golan)", not the whole "champion named Golan …"
    at, steps = seq, 0
    while steps <= CHAIN:
        back = at - 1
        while back > 0 and seq - back < REACH and back not in mentioned and _passed_over(store, str(attrs.get("doc_id")), back):
            back -= 1  # a heading between two chapters' sentences, a speech between two of the narrator's
        for near in (at, back):
            if near in named:
                return _apposed_at(store, str(attrs.get("doc_id")), near, named[near]) or named[near]
        if back not in mentioned:
            return ""
        at, steps = back, steps + 1
    return ""


REACH = 12
"""The most lines back a chain may reach, counting the headings and speeches it passes over."""


def _apposed_at(store: Store, doc_id: str, seq: int, description: str) -> str:
    """The proper name a line sets beside a description of someone: "The cook, Ottilie Marsh, was born …"."""
    first = description.split()[0].lower() if description.split() else ""
    if not description[:1].islower() and first not in DETERMINERS:
        return ""  # a name already
    record = store.records.line(doc_id, seq)
    at = record.text.lower().find(description.lower()) if record is not None else -1
    if record is None or at < 0:
        return ""
    from karaka.nlp import parse

    return apposed_name(parse(record.text), at, len(description))


def _passed_over(store: Store, doc_id: str, seq: int) -> bool:
    """Whether a chain of mentions passes over a line: it states no action (a heading), only a speech's, or names no one.

    "He soliloquized. The smoke came from his mouth in puffs. He tossed the pipe": the middle sentence's
    actions have things for doers, so the second "he" goes on from the first.
    """
    node = store.graph.document_at(doc_id, seq)
    if node is None:
        return False
    kriyas = store.graph.neighbors(node, "CITED_IN", "in")
    return all((store.graph.node(k) or {}).get("speech") for k in kriyas) or not any(
        _someone(store.graph.node(edge.target) or {}) for k in kriyas for edge in store.graph.edges_out(k))


def _someone(attrs: dict[str, Any]) -> bool:
    """Whether an entity is a person: a personal pronoun, a name the parse calls a person, or one of unknown type."""
    name = str(attrs.get("canonical_name", "")).lower()
    return name in HUMAN_PRONOUNS or attrs.get("ner_type") == "Person" or (
        attrs.get("type") == "Entity" and not attrs.get("ner_type") and not attrs.get("pronoun") and name[:1] != name[:1].lower())


_INTRODUCED = re.compile(r"\b(?:named|called)\s+((?:[A-Z][\w'’-]+)(?:\s+(?:of\s+)?[A-Z][\w'’-]+){0,2})")
LOOK_BACK = 30
"""Sentences before a line searched for the name a description was introduced by."""


def named_earlier(store: Store, line: Line, text: str) -> tuple[str, str] | None:
    """The name a description was introduced with, and its line: "the giant" after "a giant named Gask".

    A document that introduces someone by name and description ("a champion of the hill tribes, named
    Gask") goes on with the description ("the champion fell"). The nearest sentence before (or the
    line itself, before the span) that holds the description's head noun and "named"/"called" and a
    name gives the name; so does "named"/"called" and a name right after the span in its line.
    """
    words = text.split()
    if len(words) < 2 or words[0].lower() not in DETERMINERS or text.lower() in PRONOUNS:
        return None
    head = key(words[-1])
    attrs = store.graph.node(line.node) or {}
    if "seq" not in attrs or not head.isalpha():
        return None
    seq, doc_id = int(attrs["seq"]), str(attrs["doc_id"])
    at = line.text.find(text)
    apposed = apposed_name(line.doc, at, len(text))
    if apposed:  # "his brother Kael sought him": the name set beside the description
        return apposed, line.node
    after = _INTRODUCED.match(line.text[at + len(text):].lstrip(" ,")) if at >= 0 else None
    if after:  # "a miller named Ilse Marr, who paid him": the description named right after it
        return after.group(1), line.node
    earlier = [(line.text[:at] if at > 0 else "", line.node)] + [
        (s.text, document_node(doc_id, s.line, s.sentence))
        for s in reversed(store.records.lines(doc_id, max(1, seq - LOOK_BACK), seq - 1))]
    for sentence, node in earlier:
        found = _INTRODUCED.search(sentence)
        if found and any(same(key(w), head) for w in WORD.findall(sentence[:found.start()])):
            return found.group(1), node
    return None


def apposed_name(doc: Any | None, at: int, size: int) -> str:
    """A proper name the parse sets in apposition right after a span: "his brother Kael", "the smith, Borr Hask"."""
    if doc is None or at < 0:
        return ""
    for token in (t for t in doc if at <= t.idx < at + size):
        for child in token.children:
            if child.dep_ == "appos" and child.pos_ == "PROPN" and child.idx >= at + size:
                return " ".join(t.text for t in child.subtree if t.pos_ == "PROPN")
    return ""


def antecedent_line(store: Store, entity: str | None, refers: str) -> list[str]:
    """The line where a pronoun's antecedent is named, nearest first (cited with the answer)."""
    if not entity or not refers:
        return []
    lines = []
    for alias in sorted(store.graph.same_as_closure(entity) - {entity}):
        for kriya, _ in store.graph.uses(alias)[:1]:
            lines += store.graph.neighbors(kriya, "CITED_IN")[:1]
    return lines[:1]


def pronoun_doers(store: Store, node: str) -> str:
    """The names the personal pronouns doing a line's actions stand for ("She was forty years old": Ottilie Marsh).

    Only doers, and only as ``antecedent`` links them: "him" in "she paid him" receives, and a pronoun
    coreference left unlinked stands for no one.
    """
    names = []
    for kriya in store.graph.neighbors(node, "CITED_IN", "in"):
        for kind, name, text, entity in spans_of(store, kriya):
            if kind == "role" and name == "KARTA" and text.lower() in PRONOUNS and (found := antecedent(store, entity, node)):
                names.append(found)
    return " ".join(dict.fromkeys(names))
