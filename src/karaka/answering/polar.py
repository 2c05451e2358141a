"""Yes-or-no questions ("Did Senna dwell in Orrin?"): "Yes" or "No" from a line that says so, never a span.

A line answers "Yes" when it proves the question as it proves any span (every hard term in it or
what it goes on from, ``evidence.weigh``) and, where the question has an action, an action of its
verb in the line holds every argument the question names, each in its role, and is said to
happen: "Kael sought to kill him" does not say Kael killed him, and "Senna did not dwell in Orrin"
answers "No".
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

from karaka.answering import kinds as k
from karaka.answering.candidate import GRAPH, LINES, Candidate
from karaka.answering.evidence import weigh
from karaka.answering.line import Line
from karaka.answering.question import Asked
from karaka.answering.roles import arguments, of_verb
from karaka.answering.span import Span
from karaka.answering.stems import key, same
from karaka.kg.traverse import coverage, spans_of
from karaka.store.base import Store
from karaka.words import PRONOUNS


def polar_candidates(store: Store | None, asked: Asked, step: dict[str, Any] | None, line: Line,
                     rarity: Callable[[str], float] | None = None) -> list[Candidate]:
    """The line's answer to a yes-or-no question, "Yes" or "No", proved or not (one candidate a line)."""
    last = len(line.doc) - 1 if line.doc is not None else -1
    span = Span(line.text, k.POLAR, 0, len(line.text), 0 if last >= 0 else -1, last)
    verb = asked.verb or key(str((step or {}).get("verb") or ""))  # "Did Senna dwell …?": the tagger's noun
    action, referred, why = None, "", ""
    if store is not None and verb:
        actions = [a for a in _actions(store, line.node) if of_verb(a[1], verb)]
        action, referred = _holding(store, step, line, actions)
        if action is None:
            why = "no action of the question's verb in the line holds what it names"
        elif action.get("dep") == "xcomp":  # "sought to kill him"
            why = "the line says it was meant or tried, not that it happened"
    elif verb and not line.words.verbless:
        why = "no action of the question's verb in the line"
    evidence = weigh(asked, span, line.words, line.doc, rarity=rarity, referred=referred)
    elsewhere = [t.text for t in asked.terms if t.hard and not line.words.find(t) and not line.words.in_intro(t)
                 and not any(same(t.key, key(w)) for w in referred.split())]  # "He was buried": he is Dov
    if elsewhere and evidence.proved:  # a "yes" needs the line to say it all, not its neighbours
        evidence.why_not = f"the line itself does not hold {', '.join(elsewhere[:3])}"
    evidence.why_not = evidence.why_not or why
    answer = "No" if action is not None and action.get("negated") or _denied(asked, line) else "Yes"
    evidence.typed = evidence.proved  # an unproved "yes" is no candidate worth showing
    return [Candidate(answer, k.POLAR, line.node, GRAPH if action is not None else LINES, evidence, rank=line.rank,
                      also=[line.intro] if line.intro else [])]


def _denied(asked: Asked, line: Line) -> bool:
    """Whether the line says the question's thing is absent: "without warranty", "no key" (the question saying neither).

    "Is the Work provided with a warranty?" is answered "No" by "The Work is provided without warranty".
    """
    if line.doc is None:
        return False
    for term in asked.terms:
        if not term.hard or term.role == "verb" or re.search(rf"\b(?:without|no)\s+(?:\w+\s+)?{re.escape(term.text)}",
                                                               asked.text, re.IGNORECASE):
            continue
        for i in line.words.find(term):
            token = line.doc[i]
            if token.dep_ == "pobj" and token.head.lower_ == "without" or any(
                    c.dep_ == "det" and c.lower_ == "no" for c in token.children):
                return True
    return False


def _actions(store: Store, node: str) -> list[tuple[str, dict[str, Any]]]:
    return [(kriya, store.graph.node(kriya) or {}) for kriya in store.graph.neighbors(node, "CITED_IN", "in")]


def _holding(store: Store, step: dict[str, Any] | None, line: Line,
             actions: list[tuple[str, dict[str, Any]]]) -> tuple[dict[str, Any] | None, str]:
    """The action of the question's verb holding each argument the question names in its role, or None.

    With it, the names its pronouns stand for there ("He was buried …": Dov). Stricter than a role
    answer's check: "Dov killed the wolf" names the wolf, but not as the killer.
    """
    named, who = arguments(store, step)
    for kriya, attrs in actions:
        roles = [(name, span, entity) for kind, name, span, entity in spans_of(store, kriya) if kind == "role"]
        if all(_in_role(role, value, who[value], roles) for role, value in named):
            referred = [value for _, value in named if any(
                entity in who[value] and span.lower() in PRONOUNS for _, span, entity in roles)]
            return attrs, " ".join(referred)
    return None, ""


def _in_role(role: str, value: str, ids: set[str], roles: list[tuple[str, str, str | None]]) -> bool:
    """Whether the action holds ``value`` in ``role``, or has no such role and holds it in no other."""
    def holds(span: str, entity: str | None) -> bool:
        return entity in ids or coverage(value, span) >= 0.5

    own = [(span, entity) for name, span, entity in roles if name == role]
    if own:
        return any(holds(span, entity) for span, entity in own)
    return not any(holds(span, entity) for _, span, entity in roles)
