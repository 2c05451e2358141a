"""Relations and attributes of an entity, read off the graph and the lines of the entity's own document.

A relational plan step ("director of Blood Street", "birth_date of $1") names a subject and a
relation. The subject's documents are found by title (a document whose first line is a short title,
its parenthetical qualifier optional), else through the entity's uses in the graph. Agent relations
(director, composer, founder…) are Kriyās whose verb the noun names ("direct") and whose karma is
the subject; kinship, dates, places and nationality are read off the subject's lines: the
life-span parenthesis "(7 March 1934 – 12 July 1995)", "born in Madrid", "the son of A and B",
"married to C", "a Scottish director". Every value keeps the Document node it was read from,
which becomes a citation.
"""

from __future__ import annotations

from typing import Any

from karaka.kg.fact_patterns import agent, attribute, kin
from karaka.kg.fact_text import Fact, date_key, subject_documents, subject_lines
from karaka.nlp.relations import AGENT_NOUNS, normalize
from karaka.store.base import Store


def read(store: Store, subject: str, relation: str) -> list[Fact]:
    """The values of a relation of a subject, best first, each with the line it was read from."""
    documents = subject_documents(store, subject)
    if relation in AGENT_NOUNS:
        return agent(store, subject, documents, relation)
    facts: list[Fact] = []
    for index, (node, text) in enumerate(subject_lines(store, documents)):
        value = kin(text, relation) if relation in ("father", "mother", "parent", "spouse", "brother", "sister",
                                                     "sibling", "son", "daughter", "child") \
            else attribute(text, relation, first=index == 0)
        if value and normalize(value) != normalize(subject):
            facts.append(Fact(value.strip(" ,."), node))
            break
    return facts


def execute(store: Store, plan: dict[str, Any]) -> tuple[list[Fact], list[str], list[str]]:
    """Run a relational plan: (answers, cited Document nodes in order, trace)."""
    trace: list[str] = []
    cited: list[str] = []
    compare = plan.get("compare")
    if compare:
        return _compare(store, compare, trace)
    previous: list[Fact] = []
    for i, step in enumerate(plan.get("steps", []), 1):
        subject = str(step.get("subject") or "")
        subjects = [f.value for f in previous] if subject.startswith("$") else [subject]
        found: list[Fact] = []
        for name in subjects[:3]:
            found += read(store, name, str(step.get("relation")))
        trace.append(f"step {i}: {step.get('relation')} of {subjects[:3]} → {[f.value for f in found][:3]}")
        cited += [f.document for f in found if f.document and f.document not in cited]
        if not found:  # cite where the subject is described, so the lines a reader needs are there
            cited += [d for name in subjects[:3] for d in _subject_line(store, name) if d not in cited]
            return [], cited, trace
        previous = found
    return previous, cited, trace


def _subject_line(store: Store, subject: str) -> list[str]:
    """The first line that describes a subject (after its title)."""
    return [node for node, _ in subject_lines(store, subject_documents(store, subject)[:1], limit=2)[:1]]


def _compare(store: Store, compare: dict[str, Any], trace: list[str]) -> tuple[list[Fact], list[str], list[str]]:
    attribute, pick = str(compare.get("attribute")), str(compare.get("pick"))
    cited: list[str] = []
    values: dict[str, Fact] = {}
    for option in compare.get("options", [])[:2]:
        subjects = [option]
        for relation in compare.get("via") or []:
            found = [f for s in subjects for f in read(store, s, relation)]
            cited += [f.document for f in found if f.document not in cited]
            subjects = [f.value for f in found[:1]]
        facts = [f for s in subjects for f in read(store, s, attribute)]
        cited += [f.document for f in facts if f.document not in cited]
        if not facts:
            cited += [d for d in _subject_line(store, option) if d not in cited]
        if facts:
            values[option] = facts[0]
        trace.append(f"compare {attribute} of {option} (via {compare.get('via') or '-'}): "
                     f"{facts[0].value if facts else 'not found'}")
    options = list(compare.get("options", [])[:2])
    if len(values) < 2:
        return [], cited, trace
    if pick == "same":
        same = normalize(values[options[0]].value) == normalize(values[options[1]].value)
        return [Fact("yes" if same else "no", values[options[0]].document)], cited, trace
    keys = {o: date_key(values[o].value) for o in options}
    if any(k is None for k in keys.values()):
        return [], cited, trace
    chosen = (min if pick == "earliest" else max)(options, key=lambda o: keys[o])  # type: ignore[arg-type, return-value]
    return [Fact(chosen, values[chosen].document)], cited, trace
