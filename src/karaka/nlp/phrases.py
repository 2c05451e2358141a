"""Phrases of a parse: a role's surface span, a clause's words, what a phrase's head says of it (plural, a group, not a person, a time)."""


from __future__ import annotations

import re
from typing import Any

from spacy.tokens import Token

from karaka.nlp import irregular_verb
from karaka.nlp.lexicon import ANIMATE_PRONOUNS, QUANTITIES, RELATIVE, TEMPORAL_WORDS, TIME_ADVERBS, names_people

_SPAN_EDGE = re.compile(r"^(?:[\s,;:!?]|\.{2,}|\.(?![\w~/]))+|[\s,;:]+$")
"""Punctuation at a span's edges; not the dot a hidden file's name opens with (".quill/index.db")."""


def is_temporal(token: Token) -> bool:
    """A time expression: a DATE/TIME entity or a temporal noun."""
    return token.ent_type_ in ("DATE", "TIME") or token.lemma_.lower() in TEMPORAL_WORDS


CLAUSE, PLURAL, NOT_A_PERSON, GROUP = "clause", "plural", "not-a-person", "group"


def described_person(token: Token) -> bool:
    """A name its sentence calls a person, whatever the tagger's label.

    "Tamsin, the miller's daughter", "a smith named Golan": the small model takes many an
    unfamiliar name for a place.
    """
    if token.pos_ != "PROPN":
        return False
    nouns = [c for c in token.children if c.dep_ == "appos"] + ([token.head] if token.dep_ == "appos" else [])
    if token.dep_ in ("oprd", "dobj", "attr", "npadvmod") and token.head.lemma_ in ("name", "call") \
            and token.head.dep_ == "acl":
        nouns.append(token.head.head)
    return any(names_people(n.lemma_ or n.text) == "person" for n in nouns)


def shape_of(head: Token) -> str:
    """What a pronoun needs to know of a phrase, from its head: plural, not a person, a group, or "".

    "plural": "twelve people" (never "she" or "it"); "not-a-person", never "he", "she" or "they":
    a gerund ("swimming"), a time, a place, a number, or a singular common noun that names no
    person ("the backpack"; ``people.names_people``); "group": "the government" ("they" or "it",
    never "she"). A clause a role holds ("we knew") is marked "clause" where it is read (``put``).
    """
    if head.lemma_.lower() in QUANTITIES:  # "a lot of people" is as many as its people
        inner = next((g for c in head.children if c.dep_ == "prep" and c.lower_ == "of"
                      for g in c.children if g.dep_ == "pobj"), None)
        if inner is not None:
            return shape_of(inner)
    if head.tag_ in ("NNS", "NNPS") or any(c.dep_ == "nummod" and c.like_num and c.i < head.i and c.lower_ not in
                                           ("one", "1") for c in head.children):  # "Article 79" is one article
        return PLURAL
    if described_person(head):
        return ""
    if head.tag_ == "VBG" or is_temporal(head) or head.ent_type_ not in ("", "PERSON", "NORP", "ORG"):
        return NOT_A_PERSON
    kind = names_people(head.lemma_ or head.text)
    if kind == "group":  # "the government", and "the Committee", "the Labour Party" too
        return GROUP
    return NOT_A_PERSON if head.pos_ == "NOUN" and not head.ent_type_ and not kind else ""


def has_subject(verb: Token) -> bool:
    """Whether a verb has its own subject: "as he was tired" does, "as contrasted with" does not."""
    return any(c.dep_ in ("nsubj", "nsubjpass", "expl") for c in verb.children)


def slipped_subject(verb: Token) -> Token | None:
    """A verb's subject the tagger read as part of a noun: "and Jory swam", "Jory" a compound of "swam".

    A noun or name marked ``compound`` under a verb that has no subject of its own, before it.
    """
    if verb.pos_ != "VERB" or any(c.dep_ in ("nsubj", "nsubjpass", "csubj", "expl") for c in verb.children):
        return None
    return next((c for c in verb.children if c.dep_ == "compound" and c.pos_ in ("PROPN", "NOUN") and c.i < verb.i),
                None)


def is_animate(token: Token) -> bool:
    """People, organisations, nations, and personal pronouns."""
    return token.ent_type_ in ("PERSON", "ORG", "NORP", "GPE") or token.lower_ in ANIMATE_PRONOUNS


def words_text(tokens: list[Token]) -> str:
    """The tokens' words as written, with words that did not follow each other kept apart.

    "None, the format and bytes-after" less its coordination is "None after", not "Noneafter".
    """
    gaps = [" " if not t.whitespace_ and nxt.i != t.i + 1 else "" for t, nxt in zip(tokens, tokens[1:], strict=False)]
    text = "".join(t.text_with_ws + gap for t, gap in zip(tokens, [*gaps, ""], strict=True)).strip()
    return _SPAN_EDGE.sub("", text)


SPAN_SKIP = frozenset({"conj", "cc", "relcl", "appos", "punct", "advcl", "parataxis", "dep"})


def span(token: Token, skip: frozenset[str] = SPAN_SKIP) -> str:
    """The phrase headed by ``token``: its subtree without coordinated, relative and appositive parts."""
    keep = {token.i}
    for child in token.children:
        glued = child.dep_ == "appos" and child.left_edge.i == token.i + 1 and names_people(  # "a 32 bit CRC": no
            token.lemma_.lower()) not in ("person", "group")  # comma, no apposition; "his brother Kael" names him
        if child.dep_ in skip and not glued and not (child.dep_ == "punct" and child.i > token.i and child.text in "%'"):
            continue
        if child.dep_ == "advmod" and child.i == token.left_edge.i and child.lower_ in TIME_ADVERBS:
            continue  # "Then Tamsin … took": the sentence's "then", hung on its subject, is no part of the name
        keep.update(t.i for t in child.subtree)
    lo, hi = min(keep), max(keep)
    return words_text([t for t in token.doc[lo:hi + 1] if t.i in keep])


def clause(token: Token) -> str:
    """A whole clause or prepositional phrase: the token's full subtree."""
    return words_text(list(token.subtree))


def with_conjuncts(token: Token) -> list[Token]:
    """A token and every token conjoined with it ("A, B and C")."""
    out, frontier = [token], [token]
    while frontier:
        node = frontier.pop()
        for child in node.children:
            if child.dep_ == "conj" and child.pos_ in ("NOUN", "PROPN", "PRON", "NUM"):
                out.append(child)
                frontier.append(child)
    return out


class Roles:
    """Roles and adjuncts of one predicate, spans in order of discovery, no duplicates."""

    def __init__(self) -> None:
        self.karakas: dict[str, list[str]] = {}
        self.adjuncts: dict[str, list[str]] = {}
        self.links: list[dict[str, Any]] = []
        self.types: dict[str, str] = {}  # span → its head's named-entity label (PERSON, GPE, DATE…)
        self.shapes: dict[str, str] = {}  # span → what a pronoun needs of it (``shape_of``)
        self.negated = False

    def add(self, role: str, token: Token, prep: Token | None = None) -> None:
        for tok in with_conjuncts(token):
            if tok.lower_ in RELATIVE and tok.tag_ in ("WDT", "WP", "WP$"):
                continue  # a relative pronoun is never an entity; its noun comes in its place
            text = span(tok)
            text = f"{prep.text} {text}" if prep is not None and tok is token else text
            self.put(role, text)
            if described_person(tok):
                self.types[text] = "PERSON"
            elif tok.ent_type_:
                self.types[text] = tok.ent_type_
            self.shapes[text] = shape_of(tok)

    def put(self, role: str, text: str, is_clause: bool = False) -> None:
        if text and text not in self.karakas.setdefault(role, []):
            self.karakas[role].append(text)
        if is_clause and text:
            self.shapes[text] = CLAUSE

    def adjunct(self, kind: str, text: str) -> None:
        if text and text not in self.adjuncts.setdefault(kind, []):
            self.adjuncts[kind].append(text)


def mistagged_verb(token: Token) -> bool:
    """A verb's irregular past the tagger took for a noun, a name or a pronoun, with a subject and an object of its own.

    "the men of the city slew Jethan with the sword": the small model tags "slew" a pronoun, yet
    parses "men" as its subject and "Jethan" as its object.
    """
    if token.pos_ not in ("NOUN", "PROPN", "PRON", "ADJ") or not irregular_verb(token.text):
        return False
    deps = {c.dep_ for c in token.children}
    return bool(deps & {"nsubj", "nsubjpass"}) and bool(deps & {"dobj", "dative", "prep", "attr"})


def is_predicate(token: Token) -> bool:
    """Whether a token heads an action of its own (a verb, or a copula that heads a clause)."""
    if token.pos_ == "VERB":
        return token.dep_ not in ("aux", "auxpass", "amod")
    if mistagged_verb(token):
        return True
    return token.pos_ == "AUX" and token.dep_ in ("ROOT", "conj", "ccomp", "advcl", "relcl") and any(
        c.dep_ in ("attr", "acomp") for c in token.children
    )
