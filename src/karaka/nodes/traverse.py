"""Plan → graph operations (no LLM): constraint entities, verb index, kāraka filters, CAUSES."""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

from karaka.store.graph import KnowledgeGraph
from karaka.store.resolver import EntityResolver
from karaka.store.schema import KARAKA_TO_RELATION

MAX_HOPS = 5
SYNONYMS = [
    {"give", "hand", "present", "grant", "bestow", "offer", "pass", "donate"},
    {"kill", "slay", "murder", "slaughter", "assassinate", "execute"},
    {"take", "seize", "grab", "capture", "abduct", "kidnap", "steal"},
    {"go", "travel", "journey", "move", "walk", "leave", "depart"},
    {"say", "tell", "speak", "declare", "announce", "state"},
    {"make", "build", "create", "construct", "produce"},
    {"buy", "purchase", "acquire"}, {"see", "watch", "observe", "notice"},
    {"defeat", "beat", "conquer", "vanquish"}, {"rescue", "save", "free"},
]
_STEP_REF = re.compile(r"^\$?\{?(?:step|answer)?\s*_?(\d+)\}?$", re.IGNORECASE)


@dataclass
class Traversal:
    """What walking a plan found."""

    kriyas: list[str] = field(default_factory=list)
    documents: list[str] = field(default_factory=list)
    answers: list[str] = field(default_factory=list)
    trace: list[str] = field(default_factory=list)


def verb_lemma(verb: str) -> str:
    """Base form of a verb (spaCy lemma of a one-word verb)."""
    from karaka.analyzer import parse

    words = verb.strip().lower().split()
    if not words:
        return ""
    doc = parse(words[-1])
    return doc[0].lemma_.lower() if len(doc) else words[-1]


def similar_verbs(kg: KnowledgeGraph, verb: str) -> set[str]:
    """The verb, its lemma, and synonyms that occur in the graph."""
    lemma = verb_lemma(verb)
    wanted = {verb.lower(), lemma}
    for group in SYNONYMS:
        if wanted & group:
            wanted |= group
    present = set(kg.verbs())
    return {v for v in present if v in wanted or verb_lemma(v) in wanted}


def _entities(kg: KnowledgeGraph, resolver: EntityResolver, name: str, same_as: bool) -> set[str]:
    found = resolver.lookup(name)
    if found is None or found not in kg.g:
        return set()
    return kg.same_as_closure(found) if same_as else {found}


def _step_entities(value: str, previous: list[list[str]]) -> list[str] | None:
    match = _STEP_REF.match(value.strip())
    if match and 0 < int(match.group(1)) <= len(previous):
        return previous[int(match.group(1)) - 1]
    return None


def run_step(kg: KnowledgeGraph, resolver: EntityResolver, step: dict[str, Any],
             previous: list[list[str]], out: Traversal) -> list[str]:
    """Execute one plan step; returns the answer entity ids of the step."""
    same_as = bool(step.get("follow_same_as", True))
    constraints: list[tuple[str, set[str]]] = []
    for role, value in (step.get("karakas") or {}).items():
        if not value:
            continue
        relation = KARAKA_TO_RELATION[role]
        names = _step_entities(str(value), previous)
        ids: set[str] = set()
        for name in names if names is not None else [str(value)]:
            if names is not None and name in kg.g:
                ids |= kg.same_as_closure(name) if same_as else {name}
            else:
                ids |= _entities(kg, resolver, name, same_as)
        if not ids:
            out.trace.append(f"entity {value!r} ({role}) is not in the graph")
            return []
        constraints.append((relation, ids))
    verb = step.get("verb")
    verbs = similar_verbs(kg, verb) if verb else None
    if constraints:
        relation, ids = min(constraints, key=lambda c: sum(kg.g.in_degree(e) for e in c[1]))
        candidates = {src for e in ids for src, _, rel in kg.g.in_edges(e, keys=True) if rel == relation}
        out.trace.append(f"start at {sorted(ids)[:5]} via incoming {relation}: {len(candidates)} kriyas")
    elif verbs is not None:
        candidates = set().union(*(kg.kriyas_by_verb(v) for v in verbs)) if verbs else set()
        out.trace.append(f"start at verb index {sorted(verbs)}: {len(candidates)} kriyas")
    else:
        candidates = set(kg.nodes_of("Kriya"))
        out.trace.append(f"start at all {len(candidates)} kriyas")
    matched = []
    for kriya in sorted(candidates):
        attrs = kg.g.nodes[kriya]
        if verbs is not None and attrs["verb"] not in verbs:
            continue
        edges = {(t, rel) for _, t, rel in kg.g.out_edges(kriya, keys=True)}
        if all(any((e, rel) in edges for e in ids) for rel, ids in constraints):
            matched.append(kriya)
    out.trace.append(f"constraints {[(r, len(i)) for r, i in constraints]} keep {len(matched)} kriyas")
    if step.get("follow_causes"):
        matched = _expand_causes(kg, matched, out)
    role = step.get("extract")
    answers: list[str] = []
    if role and role in KARAKA_TO_RELATION:
        relation = KARAKA_TO_RELATION[role]
        for kriya in matched:
            answers += [t for t in kg.neighbors(kriya, relation) if t not in answers]
    out.kriyas += [k for k in matched if k not in out.kriyas]
    return answers


def _expand_causes(kg: KnowledgeGraph, start: list[str], out: Traversal) -> list[str]:
    seen, frontier = list(start), list(start)
    for hop in range(MAX_HOPS):
        nxt = []
        for kriya in frontier:
            for other in kg.neighbors(kriya, "CAUSES") + kg.neighbors(kriya, "CAUSES", "in"):
                if other not in seen:
                    seen.append(other)
                    nxt.append(other)
        if not nxt:
            break
        out.trace.append(f"CAUSES hop {hop + 1}: +{len(nxt)} kriyas")
        frontier = nxt
    return seen


def traverse(kg: KnowledgeGraph, resolver: EntityResolver, plan: dict[str, Any]) -> Traversal:
    """Walk every step; collect the Kriyās, their cited lines and the answer entities."""
    out = Traversal()
    previous: list[list[str]] = []
    for i, step in enumerate(plan.get("steps", [])[:MAX_HOPS], 1):
        out.trace.append(f"step {i}: {step.get('goal') or step.get('verb')}")
        answers = run_step(kg, resolver, step, previous, out)
        previous.append(answers)
        out.answers += [a for a in answers if a not in out.answers]
    for answer in list(out.answers):
        if not kg.g.nodes[answer].get("pronoun"):
            continue  # only a pronoun needs the line that says what it stands for
        anchor = _line_of(kg, answer)
        for alias in sorted(kg.same_as_closure(answer) - {answer}):
            uses = sorted(kg.uses(alias), key=lambda u: _distance(kg, u[0], anchor))
            if uses:  # cite where the alias (e.g. the pronoun's antecedent) is mentioned, nearest first
                out.kriyas += [k for k, _ in uses[:1] if k not in out.kriyas]
                out.trace.append(f"IS_SAME_AS {answer} ↔ {alias}")
    for kriya in out.kriyas:
        out.documents += [d for d in kg.neighbors(kriya, "CITED_IN") if d not in out.documents]
    return out


def _line_of(kg: KnowledgeGraph, entity: str) -> tuple[str, int] | None:
    uses = kg.uses(entity)
    if not uses:
        return None
    attrs = kg.g.nodes[uses[0][0]]
    return attrs["doc_id"], attrs["line_number"]


def _distance(kg: KnowledgeGraph, kriya: str, anchor: tuple[str, int] | None) -> tuple[int, int]:
    attrs = kg.g.nodes[kriya]
    if anchor is None or attrs["doc_id"] != anchor[0]:
        return (1, attrs["line_number"])
    return (0, abs(anchor[1] - attrs["line_number"]))


def _antecedents(kg: KnowledgeGraph, answer: str) -> list[str]:
    """What a pronoun entity stands for (names, sorted); empty for any other entity."""
    if not kg.g.nodes[answer].get("pronoun"):
        return []
    return sorted(kg.g.nodes[a]["canonical_name"] for a in kg.same_as_closure(answer) - {answer}
                  if not kg.g.nodes[a].get("pronoun"))


def answer_names(kg: KnowledgeGraph, answers: list[str]) -> list[str]:
    """Display names; a pronoun shows what it stands for: "He (Rama)"."""
    names = []
    for answer in answers:
        name, aliases = kg.g.nodes[answer]["canonical_name"], _antecedents(kg, answer)
        names.append(f"{name} ({', '.join(aliases)})" if aliases else name)
    return names


def referents(kg: KnowledgeGraph, answers: list[str]) -> list[str]:
    """The entity each answer refers to: a pronoun's first antecedent, else its own name."""
    return [(_antecedents(kg, a) or [kg.g.nodes[a]["canonical_name"]])[0] for a in answers]
