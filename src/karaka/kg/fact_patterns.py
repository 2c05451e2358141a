"""How encyclopaedic text writes a fact: kin ("son of A and B"), an attribute ("born in P"), an agent ("directed by D")."""

from __future__ import annotations

import re

from karaka.kg.fact_text import (
    AGENT_VERBS,
    DATE,
    PERSON,
    Fact,
    adjectives_lowered,
    entity_after,
    lifespan,
    lifespan_place,
    name_after,
    place_after,
    subject_lines,
)
from karaka.nlp import parse
from karaka.nlp.relations import normalize
from karaka.store.base import Store


def kin(text: str, relation: str) -> str | None:
    """A kinship relation of a document's subject, read from one line."""
    if relation in ("father", "mother", "parent"):
        if relation == "mother":  # "daughter of Alfonso VII of León and Castile and his first wife Berengaria"
            wife = name_after(r"\b(?:son|daughter|child|heir)\s+of\b[^.;]*?\b(?:his|the)\s+(?:[a-z]+\s+)?wife,?\s+", text)
            if wife:
                return wife
        low = adjectives_lowered(text)
        match = re.search(r"\b(?:son|daughter|child|heir)\s+of\s+(?:the\s+)?(?:[a-z]+\s+)*?(" + PERSON + r")"
                          r"(?:\s+and\s+(?:of\s+)?(?:[a-z]+\s+)*?(" + PERSON + r"))?", low)
        match = match or re.search(r"\bborn\b[^.]*?\bto\s+(" + PERSON + r")(?:\s+and\s+(" + PERSON + r"))?", low)
        if match:
            group = 2 if relation == "mother" else 1
            return text[match.start(group):match.end(group)] if match.group(group) else None
        return name_after(rf"\b(?:his|her|their)\s+{relation}(?:,|\s+is|\s+was)?\s+(?:the\s+)?(?:[a-z-]+\s+)*?", text)
    if relation == "spouse":
        return (name_after(r"\bmarried\s+(?:to\s+)?(?:the\s+)?(?:[a-z]+\s+)*?", text)
                or name_after(r"\b(?:his|her)\s+(?:future\s+|late\s+|first\s+|second\s+|third\s+)?(?:wife|husband|spouse)"
                          r"(?:,|\s+was|\s+is)?\s+(?:the\s+)?(?:[a-z]+\s+)*?", text)
                or name_after(r"\b(?:wife|husband|widow|consort)(?:\s+and\s+[a-z]+)?\s+(?:of|to)\s+(?:the\s+)?(?:[a-z]+\s+)*?",
                          text))
    if relation in ("brother", "sister", "sibling"):
        word = "(?:brother|sister)" if relation == "sibling" else relation
        return (name_after(rf"\b{word}\s+of\s+(?:the\s+)?(?:[a-z]+\s+)*?", text)
                or name_after(rf"\b(?:his|her)\s+(?:younger\s+|elder\s+|older\s+|half-)?{word}(?:,)?\s+", text))
    if relation in ("son", "daughter", "child"):
        word = "(?:son|daughter)" if relation == "child" else relation
        return (name_after(rf"\b(?:his|her)\s+(?:eldest\s+|younger\s+|only\s+)?{word}(?:,)?\s+", text)
                or name_after(r"\b(?:father|mother)\s+of\s+", text))
    return None


def attribute(text: str, relation: str, first: bool) -> str | None:
    """A date, place or nationality of a document's subject, read from one line."""
    birth, death = lifespan(text) if first else (None, None)
    if relation == "birth_date":
        match = re.search(r"\bborn\b[^.;]*?(" + DATE.pattern + ")", text)
        return birth or (match.group(1) if match else None)
    if relation == "death_date":
        match = re.search(r"\b(?:died|death)\b[^.;]*?(" + DATE.pattern + ")", text)
        return death or (match.group(1) if match else None)
    if relation in ("birth_place", "death_place") and first:
        place = lifespan_place(text, death=relation == "death_place")
        if place:
            return place
    if relation == "birth_place" and re.search(r"\b[Bb]orn\b", text):
        return place_after(text, "[Bb]orn") or entity_after(text, "born", ("GPE", "LOC", "FAC"))
    if relation == "death_place" and re.search(r"\bdied\b", text):
        return place_after(text, "died") or entity_after(text, "died", ("GPE", "LOC", "FAC"))
    if relation == "burial_place" and "buried" in text:
        return place_after(text, "buried") or entity_after(text, "buried", ("GPE", "LOC", "FAC", "ORG"))
    if relation == "employer" and re.search(r"\bwork(?:s|ed)?\b", text):
        return entity_after(text, "work", ("ORG", "FAC"))
    if relation == "nationality" and first:
        return next((e.text for e in parse(text).ents if e.label_ == "NORP"), None) or next(
            (e.text for e in parse(text).ents if e.label_ == "GPE"), None)
    if relation == "country" and first:
        places = [e.text for e in parse(text).ents if e.label_ == "GPE"]
        return places[-1] if places else None
    if relation in ("release_date", "founding_date"):
        verbs = r"\b(?:released|premiered|published|founded|established|launched|aired|opened)\b"
        match = re.search(verbs + r"[^.;]*?(" + DATE.pattern + ")", text)
        if match:
            return match.group(1)
        year = re.search(r"\b(1[0-9]{3}|20[0-9]{2})\b", text) if first else None
        return year.group(1) if year else None
    return None


def agent(store: Store, subject: str, documents: list[str], relation: str) -> list[Fact]:
    """Who did what the agent noun names to the subject.

    First the subject's own lines ("directed and produced by Kenneth Branagh", "film by Carlo
    Campogalliani"), then the graph: the kartā of "direct" whose karma is the film.
    """
    verbs = AGENT_VERBS.get(relation, [relation[:-2], relation[:-1]])
    done = "|".join(f"{v}e?d" if not v.endswith("e") else f"{v}d" for v in verbs)
    # "founded in 1948 by brothers Bert Nelson and …"; a song's composer wrote its "music"
    cue = rf"\b(?:{done})(?:\s*,?\s+(?:and\s+)?\w+ed)*(?:\s+in\s+\d{{4}})?\s+by\s+(?:[a-z]+\s+)*?"
    if relation == "composer":
        cue = rf"(?:{cue}|\bmusic\s+(?:\w+\s+)?by\s+(?:[a-z]+\s+)*?)"
    for node, text in subject_lines(store, documents, limit=4):
        found = name_after(cue, text)
        if found:
            return [Fact(part.strip(" ,."), node) for part in re.split(r"\s+and\s+", found) if part.strip()][:2]
    out: list[Fact] = []
    wanted = normalize(subject)
    for verb in verbs:
        for kriya in sorted(store.graph.kriyas_by_verb(verb)):
            attrs = store.graph.node(kriya) or {}
            in_own = attrs.get("doc_id") in documents
            karmas = [str(e.attrs.get("span", "")) for e in store.graph.edges_out(kriya, "HAS_KARMA")]
            if not (in_own or any(wanted and wanted in normalize(k) for k in karmas)):
                continue
            line = (store.graph.neighbors(kriya, "CITED_IN") or [""])[0]
            for edge in store.graph.edges_out(kriya, "HAS_KARTĀ"):
                name = str(edge.attrs.get("span") or edge.target)
                if any(c.isupper() for c in name[:1]) and normalize(name) != wanted:
                    out += [Fact(part.strip(" ,."), line, edge.target) for part in re.split(r"\s+and\s+|,\s+", name)
                            if part.strip()]
        if out:
            break
    if not out:  # "a 1952 Italian comedy film by Carlo Campogalliani"
        for node, text in subject_lines(store, documents, limit=2):
            found = name_after(r"\b(?:film|song|album|book|novel|play|work|painting)\s+by\s+", text)
            if found:
                out.append(Fact(found, node))
                break
    return out
