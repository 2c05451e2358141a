"""Pronouns linked to the entities they stand for (IS_SAME_AS): by agreement and recency, or the model's choice."""

from __future__ import annotations

import re
from typing import TYPE_CHECKING, Any

from karaka.gsv.run import Loop
from karaka.nlp import parse, parse_many
from karaka.nlp.lexicon import gender_of
from karaka.nlp.phrases import CLAUSE, GROUP, NOT_A_PERSON, PLURAL, has_subject, shape_of
from karaka.services import Services
from karaka.store.resolver import is_pronoun

if TYPE_CHECKING:
    pass
from karaka.kg.enrich.decisions import decide, decision_key, link, name_of, roles_of, text_of
from karaka.kg.enrich.types import ner_type
from karaka.words import (
    DEICTIC_PRONOUNS,
    FEMININE_PRONOUNS,
    HUMAN_PRONOUNS,
    MASCULINE_PRONOUNS,
    PERSONAL_PRONOUNS,
    SINGULAR_PRONOUNS,
)

ANTECEDENT_WINDOW = 12  # a pronoun's antecedent is among the nearest preceding actions


_NO_ANTECEDENT = frozenset("what whatever whoever whichever where when why how each all both some many few several "
                           "none any most either neither another other others one such".split())
"""Words that name no one a pronoun could stand for: "give what each thinks fit"."""


def resolve_coreferences(services: Services, doc_id: str, run_id: str, loop: Loop) -> int:
    """Link each pronoun to the entity it stands for (IS_SAME_AS pronoun → entity)."""
    graph = services.workspace.graph
    linked = 0
    order = graph.kriyas_of(doc_id)
    speech = _in_speech(graph, doc_id, order)
    for kriya in [k for k in order if speech[k] and not (graph.node(k) or {}).get("speech")]:
        graph.update_node(kriya, speech=True)  # a chain of mentions passes over it when an answer is read
    shapes: dict[str, str] | None = None
    for index, kriya in enumerate(order):
        seq = (graph.node(kriya) or {})["seq"]
        for entities in roles_of(services, kriya).values():
            for pronoun in entities:
                attrs = graph.node(pronoun) or {}
                word = str(attrs.get("canonical_name", ""))
                if attrs.get("type") != "Entity" or not attrs.get("pronoun") or graph.neighbors(pronoun, "IS_SAME_AS") \
                        or word.lower() in DEICTIC_PRONOUNS or _generic(word, text_of(services, kriya)):
                    continue
                if shapes is None:  # names a model wrote, parsed once, when a pronoun first needs them
                    unmarked = {e for k in order if (graph.node(k) or {}).get("provenance") != "parser"
                                for found in roles_of(services, k).values() for e in found
                                if "shape" not in (graph.node(e) or {})}
                    shapes = _shapes({str((graph.node(e) or {}).get("canonical_name", "")) for e in unmarked})
                before = [k for k in order[:index] if speech[k] <= speech[kriya]] + [kriya]  # the narrator's "he"
                options = _antecedents(services, before, pronoun, shapes)  # stands for no one a speech names
                if not options:
                    continue
                if services.llm is None or not services.ctx.coreference_llm:
                    target, method = options[0], "heuristic"
                else:
                    nearby = services.workspace.vectors.nearby(doc_id, seq, window=3)
                    context = "\n".join(f"[Line {s.line}] {s.text}" for n in sorted(set(nearby) | {seq - 1})
                                        if (s := services.workspace.records.line(doc_id, n)) is not None)
                    names = [name_of(services, o) for o in options]
                    fields = {"pronoun": attrs["canonical_name"], "line": text_of(services, kriya),
                              "context": context or "(none)", "hint": attrs.get("coref_hint", "none")}
                    chosen = _antecedent_chosen(services, doc_id, run_id, pronoun, names, fields)
                    if chosen is not None:
                        target, method = options[names.index(chosen)], "llm"
                    else:  # the model named none of the options: the heuristic's answer stands
                        target, method = options[0], "heuristic"
                linked += link(services, pronoun, target, "IS_SAME_AS", method=method, step="coreference")
    return linked


def _in_speech(graph: Any, doc_id: str, kriyas: list[str]) -> dict[str, bool]:
    """Whether each Kriyā stands inside quoted speech, following the document's quotation marks line by line.

    A speech may run over several lines ("“What use is a pipe? … I will smoke no more.”"); curly
    marks open and close it, a straight one turns it on or off.
    """
    opened: dict[int, bool] = {}
    inside = False
    lines = sorted((graph.node(n) or {} for n in graph.document_nodes(doc_id)), key=lambda a: a.get("seq", 0))
    texts = {}
    for attrs in lines:
        seq = int(attrs.get("seq", 0))
        opened[seq], texts[seq] = inside, str(attrs.get("text", ""))
        inside = _quoted_after(texts[seq], inside)
    out = {}
    for kriya in kriyas:
        attrs = graph.node(kriya) or {}
        seq = int(attrs.get("seq", 0))
        out[kriya] = _quoted_after(texts.get(seq, "")[:int(attrs.get("char", 0))], opened.get(seq, False))
    return out


def _quoted_after(text: str, inside: bool) -> bool:
    """Whether a speech is open after ``text``, given whether one was open before it."""
    for ch in text:
        inside = True if ch == "“" else False if ch == "”" else (not inside) if ch == '"' else inside
    return inside


def _generic(pronoun: str, text: str) -> bool:
    """Whether a pronoun points ahead to its own relative clause, not back: "those who are in want", "they who give"."""
    after = r"who|whom|which|that" if pronoun.lower() in ("those", "these") else r"who|whom"  # not "told them that"
    return re.search(rf"\b{re.escape(pronoun)}\s+({after})\b", text, re.IGNORECASE) is not None


def _antecedent_chosen(services: Services, doc_id: str, run_id: str, pronoun: str, names: list[str],
                       fields: dict[str, Any]) -> str | None:
    """The option the model names as the pronoun's antecedent, or None.

    One that is not the heuristic's first must be named again with the options in reverse order:
    a small model favours the option it reads first, and its other picks must not undo a link
    the heuristic would have made right.
    """
    picks = []
    for order in (names, names[::-1]) if len(names) > 1 else (names,):
        answer = decide(services, "coreference", doc_id, decision_key("coref", pronoun, order, fields["context"]), run_id,
                         "coreference_prompt", options=", ".join(order), **fields)
        chosen = str(answer.get("target") or "")
        if str(answer.get("answer", "")).lower() != "yes" or chosen not in names:
            return None
        if chosen == names[0]:
            return chosen  # the heuristic's own first: nothing to undo
        picks.append(chosen)
    return picks[0] if len(set(picks)) == 1 else None


def _antecedents(services: Services, before: list[str], pronoun: str, shapes: dict[str, str]) -> list[str]:
    """Non-pronoun entities of earlier kriyas, the likeliest first; agents first for he/she/they.

    The likeliest is named in the nearest line, and within a line in its main clauses before its
    subordinate ones ("There he worked for a miller named Ilse Marr": the next "he" is still the
    worker). A pronoun linked already is a mention of what it stands for ("Tomas left. He worked
    there. He bought a boat": the second "he" is Tomas, through the first), and an entity a
    pronoun of one gender stood for, or one named by a noun of that gender ("a widow named Cora"), is
    not what a pronoun of the other stands for.

    ``before`` ends with the pronoun's own Kriyā, whose other participants it never stands for
    ("It surprised the crew": "It" is not the crew; "he paid him": not the payer); a clause is
    never an antecedent, "she" or "it" never stands for several, "he", "she", "they" or "who"
    never for a gerund, a time, a place or a thing ("the backpack"), and "he" or "she" never for
    a group ("the government").
    """
    graph = services.workspace.graph
    word = name_of(services, pronoun).lower()
    personal, singular, human = word in PERSONAL_PRONOUNS, word in SINGULAR_PRONOUNS, word in HUMAN_PRONOUNS
    other_gender = FEMININE_PRONOUNS if word in MASCULINE_PRONOUNS else (
        MASCULINE_PRONOUNS if word in FEMININE_PRONOUNS else frozenset())
    order = ["HAS_KARTĀ", "TARGETS_SAMPRADĀNA", "HAS_KARMA"] if personal else ["HAS_KARMA", "USES_KARANA", "HAS_KARTĀ"]
    own = {e for entities in roles_of(services, before[-1]).values() for e in entities} if before else set()
    own |= {target for e in own for target in graph.neighbors(e, "IS_SAME_AS")}
    subject = _own_subject(services, before[-1]).lower() if before else ""
    seen: list[str] = []
    for kriya in _by_salience(graph, before[:-1][-(ANTECEDENT_WINDOW - 1):]):
        roles = roles_of(services, kriya)
        ranked = [entity for rel in order for entity in roles.get(rel, [])]
        if (graph.node(kriya) or {}).get("verb") == "be":  # "The keeper was Oren Vask. He …": he is Oren Vask
            ranked.sort(key=lambda e: not _proper(str((graph.node(e) or {}).get("canonical_name", ""))))
        for entity in ranked:
            node = graph.node(entity) or {}
            if node.get("pronoun"):
                if str(node.get("canonical_name", "")).lower() in other_gender:
                    continue
                linked = graph.neighbors(entity, "IS_SAME_AS")
                if not linked:
                    continue
                entity, node = linked[0], graph.node(linked[0]) or {}
            name = str(node.get("canonical_name", ""))
            if node.get("pronoun") or is_pronoun(name) or name.lower() in _NO_ANTECEDENT or entity in seen \
                    or entity in own or _within(name, subject) or other_gender and (_called(graph, entity, other_gender)
                                                          or _named_as(graph, entity, other_gender)):
                continue
            shape = str(node["shape"]) if "shape" in node else shapes.get(name, "")
            if shape == CLAUSE or singular and shape == PLURAL or personal and shape == NOT_A_PERSON or human and (
                    shape == GROUP or str(node.get("ner_type") or "Person") not in ("Person", "Organisation")):
                continue
            seen.append(entity)
    if not personal:
        people = [e for e in seen if ner_type(services, e) == "Person"]
        seen = [e for e in seen if e not in people] + people
    return seen[:6]


_MAIN = ("ROOT", "conj")
"""A Kriyā's dependency in its sentence that makes it a main clause's action (or one conjoined to it)."""


def _by_salience(graph: Any, kriyas: list[str]) -> list[str]:
    """Kriyas, the nearest line first; within a line its main clauses in reading order, then the others, last first."""
    lines: dict[int, list[str]] = {}
    for kriya in kriyas:
        lines.setdefault(int((graph.node(kriya) or {}).get("seq", 0)), []).append(kriya)
    out = []
    for seq in sorted(lines, reverse=True):
        main = [k for k in lines[seq] if (graph.node(k) or {}).get("dep", "ROOT") in _MAIN]
        out += main + [k for k in reversed(lines[seq]) if k not in main]
    return out


def _own_subject(services: Services, kriya: str) -> str:
    """The whole subject phrase of a Kriyā's verb, appositions and all: its object never stands for anyone in it.

    "The mate, a quiet man named Ulric, watched him": "him" is not Ulric.
    """
    attrs = services.workspace.graph.node(kriya) or {}
    doc = parse(text_of(services, kriya))  # the line's cached parse
    verb = next((t for t in doc if t.idx == attrs.get("char")), None)
    subject = next((c for c in verb.children if c.dep_ in ("nsubj", "nsubjpass")), None) if verb is not None else None
    return "" if subject is None else " ".join(t.text for t in subject.subtree)


def _proper(name: str) -> bool:
    """Whether a name is a proper name: every word capitalised ("Oren Vask", not "keeper of the light")."""
    words = name.split()
    return bool(words) and all(w[:1].isupper() for w in words) and not is_pronoun(name)


def _within(name: str, phrase: str) -> bool:
    """Whether ``name`` stands whole in ``phrase`` (lower-cased)."""
    return bool(name) and re.search(rf"(?<!\w){re.escape(name.lower())}(?!\w)", phrase) is not None


def _named_as(graph: Any, entity: str, pronouns: frozenset[str]) -> bool:
    """Whether the entity, or a name the same one goes by, is a noun of the other gender ("a widow named Cora")."""
    other = "female" if pronouns == FEMININE_PRONOUNS else "male"
    names = [entity, *graph.neighbors(entity, "IS_SAME_AS"), *graph.neighbors(entity, "IS_SAME_AS", "in")]
    return any(gender_of(str((graph.node(e) or {}).get("canonical_name", ""))) == other for e in names)


def _called(graph: Any, entity: str, pronouns: frozenset[str]) -> bool:
    """Whether a pronoun among ``pronouns`` is linked to ``entity`` already."""
    return any(str((graph.node(p) or {}).get("canonical_name", "")).lower() in pronouns
               for p in graph.neighbors(entity, "IS_SAME_AS", "in"))


def _shapes(names: set[str]) -> dict[str, str]:
    """The shape (``roles.shape_of``) of names the parse did not mark at extraction (a model wrote them), parsed together."""
    out = {}
    for name, doc in zip(sorted(names), parse_many(sorted(names)), strict=True):
        root = next((t for t in doc if t.dep_ == "ROOT"), None)
        if root is None:
            out[name] = ""
        elif root.pos_ in ("VERB", "AUX") and has_subject(root):
            out[name] = CLAUSE
        else:
            out[name] = shape_of(root)
    return out
