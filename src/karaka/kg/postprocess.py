"""Post-processing: IS_SAME_AS for pronouns and epithets, entity types, CAUSES.

Each step asks the LLM when there is one, memoising every decision in the records so a resumed
run never asks twice. With no LLM (``--extractor parser`` or ``--llm none``) pronouns, types and
causes use deterministic heuristics and the edges say ``method=heuristic``; epithets need an LLM
and are skipped.
"""

from __future__ import annotations

import hashlib
import json
import logging
import re
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from typing import TYPE_CHECKING, Any, NamedTuple

from karaka.gsv.run import Loop, run_loop
from karaka.jsonparse import JSONRecoveryError, recover_json
from karaka.kg.write import NER_TYPES, causes_path
from karaka.models.ask import ask
from karaka.models.call import LLMCallError
from karaka.nlp import parse, parse_many
from karaka.nlp.roles import (
    CLAUSE,
    GROUP,
    NOT_A_PERSON,
    PLURAL,
    TAKES_TO,
    cites_or_compares,
    has_subject,
    made_to_do,
    serves,
    shape_of,
)
from karaka.services import Services
from karaka.store.resolver import is_pronoun
from karaka.store.schema import SchemaError

if TYPE_CHECKING:
    from spacy.tokens import Token

log = logging.getLogger("karaka.postprocess")

ENTITY_TYPES = ("Person", "Location", "Organisation", "AI", "Object", "Time", "Event", "Concept")
ANTECEDENT_WINDOW = 12  # a pronoun's antecedent is among the nearest preceding actions
_EPITHET = re.compile(r"^(?:[A-Z][\w'-]*\s+)+(?:of|of the)\s+(?:the\s+)?[A-Z][\w'-]*", re.UNICODE)
_CAUSAL_NEXT = re.compile(r"^\W*(so(?![\s-]+(called|far|much|many|few|long)\b)|therefore|hence|consequently"
                          r"|as a result)\b", re.IGNORECASE)
"""A connective that opens a sentence and links it to the one before ("So called fricatives" does not). Not
"Thus,": in manuals it shows how as often as it says why ("Thus, the values … are three ways to specify")."""
_CONNECTIVES = r"because|since|so|therefore|thus|hence|consequently|as a result|due to|in order to|so that"
_CONNECTIVE = re.compile(rf"\b({_CONNECTIVES})\b", re.IGNORECASE)
"""A connective that can carry cause between two actions of a sentence."""
_CAUSAL_CUE = re.compile(rf"\b({_CONNECTIVES}|led to|leads? to|caus(?:es|ed|ing)|results? in|resulted in)\b", re.IGNORECASE)
"""A connective or a causal verb: a cue somewhere in a sentence whose verbs' places are unknown."""
_FRONTED_CUE = re.compile(r"^\W*(because|since|as(?! a result)|due to)\b", re.IGNORECASE)
"""A cue that opens a sentence and holds the cause in its clause; "As a result, …" points back to the sentence before."""
_PURPOSE = re.compile(r"(?<!\bdue )\b(in order )?to\s+$", re.IGNORECASE)
"""A purpose "to" that ends the text before a verb; "due to start" is a schedule."""
_WORD_END = re.compile(r"\S*")
_SINCE_TIME_BEFORE = re.compile(r"\b(has|have|had|ever|long)\s+$", re.IGNORECASE)
_SINCE_TIME_AFTER = re.compile(r"\s+(\d|then\b|been\b|(?!(?:no|some|any|every)thing\b)\w{2,}ing\b|the (early|late|beginning|start|end)\b)", re.IGNORECASE)
"""Words around "since" that make it time ("has since been", "since 1993", "since taking office")."""
_PERSONAL = {"he", "she", "him", "her", "his", "hers", "who", "whom", "they", "them", "their"}
_DEICTIC = frozenset("i me my mine we us our ours you your yours this that".split())
"""Pronouns that point at the speaker, the listener or the situation, not back at a noun phrase: never linked."""
_SINGULAR = frozenset("he she it him her his hers its".split())
_HUMAN = frozenset("he she him her his hers".split())
_NO_ANTECEDENT = frozenset("what whatever whoever whichever where when why how each all both some many few several "
                           "none any most either neither another other others one such".split())
"""Words that name no one a pronoun could stand for: "give what each thinks fit"."""


def _key(*parts: Any) -> str:
    return hashlib.sha256(json.dumps(parts, sort_keys=True, default=str).encode()).hexdigest()[:32]


def _decide(services: Services, step: str, doc_id: str, key: str, run_id: str, prompt: str,
            **fields: Any) -> dict[str, Any]:
    """Ask once; a memoised answer is reused with no call."""
    records = services.workspace.records
    cached = records.decision(key)
    if cached is not None:
        return cached
    try:
        reply = ask(services, prompt, **fields)
        value = recover_json(reply.text)
        answer = value if isinstance(value, dict) else {}
        tokens = reply.prompt_tokens
    except (LLMCallError, JSONRecoveryError) as exc:
        log.warning("%s decision failed (%s); treated as no", step, exc)
        answer, tokens = {"answer": "no", "error": str(exc)}, 0
    records.put_decision(key, step, doc_id, answer, 1, tokens, run_id)
    return answer


def _answer(decision: dict[str, Any]) -> str:
    """A decision's "answer" field, trimmed and lower-cased ("yes", "no", a type)."""
    return str(decision.get("answer", "")).strip().lower()


def _roles(services: Services, kriya: str) -> dict[str, list[str]]:
    out: dict[str, list[str]] = {}
    for edge in services.workspace.graph.edges_out(kriya):
        out.setdefault(edge.relation, []).append(edge.target)
    return out


def _text_of(services: Services, kriya: str) -> str:
    documents = services.workspace.graph.neighbors(kriya, "CITED_IN")
    node = services.workspace.graph.node(documents[0]) if documents else None
    return str(node["text"]) if node else ""


def _link(services: Services, source: str, target: str, relation: str, **attrs: Any) -> bool:
    if relation == "CAUSES" and (source == target or causes_path(services.workspace.graph, target, source)):
        log.info("CAUSES %s -> %s left out: it would close a cycle", source, target)
        return False  # cause is asymmetric and acyclic
    try:
        services.workspace.graph.add_edge(source, target, relation, **attrs)
        return True
    except SchemaError as exc:
        log.warning("post-processing edge rejected: %s", exc)
        return False


def _name(services: Services, node: str) -> str:
    attrs = services.workspace.graph.node(node) or {}
    return str(attrs.get("canonical_name", node))


def resolve_coreferences(services: Services, doc_id: str, run_id: str, loop: Loop) -> int:
    """Link each pronoun to the entity it stands for (IS_SAME_AS pronoun → entity)."""
    graph = services.workspace.graph
    linked = 0
    order = graph.kriyas_of(doc_id)
    shapes: dict[str, str] | None = None
    for index, kriya in enumerate(order):
        seq = (graph.node(kriya) or {})["seq"]
        for entities in _roles(services, kriya).values():
            for pronoun in entities:
                attrs = graph.node(pronoun) or {}
                word = str(attrs.get("canonical_name", ""))
                if attrs.get("type") != "Entity" or not attrs.get("pronoun") or graph.neighbors(pronoun, "IS_SAME_AS") \
                        or word.lower() in _DEICTIC or _generic(word, _text_of(services, kriya)):
                    continue
                if shapes is None:  # names a model wrote, parsed once, when a pronoun first needs them
                    unmarked = {e for k in order if (graph.node(k) or {}).get("provenance") != "parser"
                                for found in _roles(services, k).values() for e in found
                                if "shape" not in (graph.node(e) or {})}
                    shapes = _shapes({str((graph.node(e) or {}).get("canonical_name", "")) for e in unmarked})
                options = _antecedents(services, order[: index + 1], pronoun, shapes)
                if not options:
                    continue
                if services.llm is None or not services.ctx.coreference_llm:
                    target, method = options[0], "heuristic"
                else:
                    nearby = services.workspace.vectors.nearby(doc_id, seq, window=3)
                    context = "\n".join(f"[Line {s.line}] {s.text}" for n in sorted(set(nearby) | {seq - 1})
                                        if (s := services.workspace.records.line(doc_id, n)) is not None)
                    names = [_name(services, o) for o in options]
                    fields = {"pronoun": attrs["canonical_name"], "line": _text_of(services, kriya),
                              "context": context or "(none)", "hint": attrs.get("coref_hint", "none")}
                    chosen = _antecedent_chosen(services, doc_id, run_id, pronoun, names, fields)
                    if chosen is not None:
                        target, method = options[names.index(chosen)], "llm"
                    else:  # the model named none of the options: the heuristic's answer stands
                        target, method = options[0], "heuristic"
                linked += _link(services, pronoun, target, "IS_SAME_AS", method=method, step="coreference")
    return linked


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
        answer = _decide(services, "coreference", doc_id, _key("coref", pronoun, order, fields["context"]), run_id,
                         "coreference_prompt", options=", ".join(order), **fields)
        chosen = str(answer.get("target") or "")
        if str(answer.get("answer", "")).lower() != "yes" or chosen not in names:
            return None
        if chosen == names[0]:
            return chosen  # the heuristic's own first: nothing to undo
        picks.append(chosen)
    return picks[0] if len(set(picks)) == 1 else None


def _antecedents(services: Services, before: list[str], pronoun: str, shapes: dict[str, str]) -> list[str]:
    """Non-pronoun entities of earlier kriyas, nearest first; agents first for he/she/they.

    ``before`` ends with the pronoun's own Kriyā, whose other participants it never stands for
    ("It surprised the crew": "It" is not the crew); a clause is never an antecedent, "she" or
    "it" never stands for several, "he", "she", "they" or "who" never for a gerund, a time, a place
    or a thing ("the backpack"), and "he" or "she" never for a group ("the government").
    """
    graph = services.workspace.graph
    word = _name(services, pronoun).lower()
    personal, singular, human = word in _PERSONAL, word in _SINGULAR, word in _HUMAN
    order = ["HAS_KARTĀ", "TARGETS_SAMPRADĀNA", "HAS_KARMA"] if personal else ["HAS_KARMA", "USES_KARANA", "HAS_KARTĀ"]
    own = {e for entities in _roles(services, before[-1]).values() for e in entities} if before else set()
    seen: list[str] = []
    for kriya in reversed(before[-ANTECEDENT_WINDOW:]):
        roles = _roles(services, kriya)
        for rel in order:
            for entity in roles.get(rel, []):
                node = graph.node(entity) or {}
                name = str(node.get("canonical_name", ""))
                if node.get("pronoun") or is_pronoun(name) or name.lower() in _NO_ANTECEDENT or entity in seen \
                        or entity in own:
                    continue
                shape = str(node["shape"]) if "shape" in node else shapes.get(name, "")
                if shape == CLAUSE or singular and shape == PLURAL or personal and shape == NOT_A_PERSON or human and (
                        shape == GROUP or str(node.get("ner_type") or "Person") not in ("Person", "Organisation")):
                    continue
                seen.append(entity)
    if not personal:
        people = [e for e in seen if _ner_type(services, e) == "Person"]
        seen = [e for e in seen if e not in people] + people
    return seen[:6]


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


def _ner_type(services: Services, entity: str) -> str | None:
    """The named-entity type of an entity: as the parse labelled it at extraction, else by parsing a line.

    Lines the parser extracted are not parsed again: it stored every label its spans had.
    """
    stored = (services.workspace.graph.node(entity) or {}).get("ner_type")
    if stored:
        return str(stored)
    name = _name(services, entity)
    graph = services.workspace.graph
    uses = graph.uses(entity)[:3]
    if all((graph.node(kriya) or {}).get("provenance") == "parser" for kriya, _ in uses):
        return None  # the parser wrote its spans' labels at extraction: no label is no entity
    for kriya, _ in uses:
        for ent in parse(_text_of(services, kriya)).ents:
            if ent.text == name or name in ent.text:
                return NER_TYPES.get(ent.label_)
    return None


def _doc_entities(services: Services, doc_id: str, untyped: bool = False) -> list[str]:
    graph = services.workspace.graph
    found = set()
    for kriya in graph.kriyas_of(doc_id):
        for edge in graph.edges_out(kriya):
            node = graph.node(edge.target) or {}
            if node.get("type") == "Entity" and not node.get("pronoun") and not (untyped and node.get("entity_type")):
                found.add(edge.target)
    return sorted(found)


def link_metaphors(services: Services, doc_id: str, run_id: str, loop: Loop) -> int:
    """Epithets ("King of Kings") → a known entity, confirmed by the GSV loop."""
    if services.llm is None:
        return 0
    graph = services.workspace.graph
    linked = 0
    for entity in _doc_entities(services, doc_id):
        name = _name(services, entity)
        if not _EPITHET.match(name) or graph.neighbors(entity, "IS_SAME_AS"):
            continue
        hits = services.workspace.vectors.search(services.embeddings.embed_query(name), k=5)
        lines, known = [], set()
        for d, seq, _ in hits:
            sentence = services.workspace.records.line(d, seq)
            if sentence is None:
                continue
            lines.append(sentence.text)
            document = graph.document_at(d, seq)
            if document is not None:
                for kriya in graph.neighbors(document, "CITED_IN", "in"):
                    for edge in graph.edges_out(kriya):
                        other = graph.node(edge.target) or {}
                        if other.get("type") == "Entity" and not other.get("pronoun") and edge.target != entity \
                                and not _EPITHET.match(other["canonical_name"]):
                            known.add(other["canonical_name"])
        if not known:
            continue
        options = sorted(known)
        key = _key("metaphor", entity, options, lines)
        cached = services.workspace.records.decision(key)
        if cached is None:
            source = f"Epithet: {name}\nKnown entities: {', '.join(options)}\nContext:\n" + "\n".join(lines)
            out = run_loop(loop, {"task": "metaphor", "source": source, "ref": {"doc_id": doc_id, "entity": entity}},
                           services.ctx)
            cached = {"target": (out["golden"] or {}).get("target")}
            services.workspace.records.put_decision(key, "metaphors", doc_id, cached, out["llm_calls"],
                                                    out["prompt_tokens"], run_id)
        target = cached.get("target")
        if isinstance(target, str) and target in known:
            linked += _link(services, entity, services.workspace.resolver.lookup(target) or target,
                            "IS_SAME_AS", method="gsv", step="metaphor")
    return linked


class Question(NamedTuple):
    """One memoised LLM decision a step needs: what it is about, its key, prompt and fields."""

    subject: tuple[str, ...]
    key: str
    prompt: str
    fields: dict[str, Any]


def _type_questions(services: Services, doc_id: str) -> list[Question]:
    graph = services.workspace.graph
    out = []
    for entity in _doc_entities(services, doc_id, untyped=True):  # one decision per entity, whoever asks first
        context = "\n".join(_text_of(services, k) for k, _ in sorted(graph.uses(entity))[:3])
        out.append(Question((entity,), _key("type", entity), "entity_type_prompt",
                            {"entity": _name(services, entity), "context": context, "types": ", ".join(ENTITY_TYPES)}))
    return out


def _cause_pairs(services: Services, doc_id: str) -> list[tuple[str, str]]:
    """Consecutive Kriyās of one sentence, or the main verbs of adjacent ones the second of which opens with a connective.

    Only pairs whose text holds a causal cue are asked about, and none that are linked either way.
    Each pair is (cause, effect) as the cue orders them: "flooded because the dam broke" asks
    whether the breaking caused the flooding.
    """
    graph = services.workspace.graph
    order = graph.kriyas_of(doc_id)
    nodes = {kriya: graph.node(kriya) or {} for kriya in order}
    opening: dict[int, str] = {}  # a line's first and last main verbs: what a connective that opens a line links
    closing: dict[int, str] = {}
    for kriya, node in nodes.items():
        if node.get("dep") == "ROOT":
            opening.setdefault(node["seq"], kriya)
            closing[node["seq"]] = kriya
    pairs = []
    for first, second in zip(order, order[1:], strict=False):
        a, b = nodes[first], nodes[second]
        if b["seq"] - a["seq"] > 1:
            continue
        if b["seq"] == a["seq"] + 1:  # adjacent sentences: a connective must link them, main verb to main verb
            if not _CAUSAL_NEXT.match(_text_of(services, second)):
                continue
            first, second = closing.get(a["seq"], first), opening.get(b["seq"], second)
            a, b = nodes[first], nodes[second]
        if second in graph.neighbors(first, "CAUSES") or first in graph.neighbors(second, "CAUSES"):
            continue
        way = _cue(_text_of(services, first), a, b) if a["seq"] == b["seq"] else 1
        if way == 0:
            continue
        cause, effect = (first, second) if way > 0 else (second, first)
        if any(edge.attrs.get("method") == "parser" and nodes.get(edge.source, {}).get("seq") == nodes[effect]["seq"]
               for edge in graph.edges_in(effect, "CAUSES")):
            continue  # the parse already says what in this sentence brought it about
        pairs.append((cause, effect))
    return pairs


_EFFECT_FIRST = frozenset({"because", "since", "due to"})
"""Cues whose clause holds the cause: between two actions they make the second the cause of the first."""


def _cue(text: str, first: dict[str, Any], second: dict[str, Any]) -> int:
    """Which way a cue in a sentence links two of its actions (Kriyā attributes, in order): 1, -1, or 0 for none.

    1: the first causes the second ("…, so the village emptied", "Because the dam broke, the river
    flooded", "used it to kill"); -1: the second causes the first ("flooded because the dam
    broke"). The cue must lie between the two verbs (not in the first verb's own word: "caused"),
    open the sentence before the first with a comma closing its clause before the second, or be a
    purpose "to" just before the second verb (not after a verb that takes "to" as its object,
    "wanted to go", nor "is due to start", nor the verb's complement right after it, "struggle to
    filter" (the parse's ``xcomp``, where "used it to kill" is a purpose), nor a noun's
    complement, "the opportunity to attend" (the parse's ``acl``; or hung on the verb, "a decision
    was made to close"), nor the second of a series, "to buy bread and to see her" (``conj``),
    never "to be", and only before a verb's base form). A connective must open the clause of the
    verb it links (``_introduces``): "since the opening of …" holds a noun. "Due to" before a verb
    schedules, it does not cause; "since" that tells time ("has since been", "since 1993", "since
    taking office") is no cue, nor are "after" and "following", which tell time. A cue elsewhere in the
    sentence links nothing, and none links a relative clause's verb (the parse's ``relcl``): the
    cue's clause hangs on the verb above it. Only connectives count between the verbs: a causal
    verb (caused, led to, resulted in) with a subject would be a Kriyā between the two
    consecutive ones, so there it is a noun ("natural causes") or a bare participle.
    """
    a, b = first.get("char"), second.get("char")
    if a is None or b is None:
        return 1 if _CAUSAL_CUE.search(text) else 0
    if "relcl" in (first.get("dep"), second.get("dep")):
        return 0  # a relative clause sits inside a noun phrase: the cue's clause hangs on a verb above it
    lo, hi = sorted((a, b))
    start = _WORD_END.match(text, lo).end()  # type: ignore[union-attr]
    for match in _CONNECTIVE.finditer(text, start, hi):
        cue = match.group(1).lower()
        if cue == "due to" and not text[match.end():hi].strip():
            continue  # "due to start": a schedule
        if cue == "since" and (_SINCE_TIME_BEFORE.search(text, 0, match.start())
                               or _SINCE_TIME_AFTER.match(text, match.end())):
            continue  # "has since been", "since 1993": time
        if not _introduces(text, match.start(), hi, lo):
            continue  # "since the opening …; the airport handled", "so many people": not the verb's clause
        return -1 if cue in _EFFECT_FIRST else 1
    fronted = _FRONTED_CUE.match(text[:lo])
    if fronted and "," in text[lo:hi] and _introduces(text, fronted.start(1), lo, hi):
        return 1
    purpose = (a < b and _PURPOSE.search(text[:hi]) is not None and second.get("verb") != "be"
               and second.get("dep") not in ("acl", "conj") and _purpose_verb(text, lo, hi))
    return 1 if purpose else 0


def _tokens_at(text: str, *chars: int) -> list[Token] | None:
    """The parse's tokens that start at these characters of a sentence, or None where one does not."""
    starts = {t.idx: t for t in parse(text)}
    found = [starts.get(c) for c in chars]
    return None if None in found else found  # type: ignore[return-value]


def _introduces(text: str, cue: int, verb: int, other: int) -> bool:
    """Whether the connective at ``cue`` opens the clause of the verb at ``verb`` and links it to the verb at ``other``.

    "because", "since", "due to" must mark the verb or hold it ("because of attempting to
    join"), and their clause must hang on the other verb: "since the opening of a terminal" and
    "leaked, due to construction faults; but it became" hold a noun, and in "said on Monday,
    because reporters asked, that nobody was hurt" the asking is the saying's reason, not the
    hurting's. A "so" that grades a word ("so many people") must hold the verb in that word's
    clause ("so often that he knew"). A fronted "as" that cites or compares ("As Heald told the
    Post, …") explains nothing. A participle that only describes a noun ("the cost involved")
    opens no clause. Where the parse does not show the words, the cue stands.
    """
    tokens = _tokens_at(text, cue, verb, other)
    if tokens is None:
        return True
    word, head, linked = tokens
    if head.dep_ == "acl" and head.tag_ in ("VBN", "VBG"):
        return False
    if word.lower_ in ("because", "since", "due"):
        if word.dep_ == "mark" and word.head == head:
            return head.head == linked
        return word.is_ancestor(head) and word.head == linked
    if word.lower_ == "so" and word.head.pos_ in ("ADJ", "ADV", "DET"):
        return word.head.is_ancestor(head)
    if word.lower_ == "as":
        return not cites_or_compares(head)
    return True


def _purpose_verb(text: str, verb: int, sub: int) -> bool:
    """Whether the to-infinitive at ``sub`` tells what the verb at ``verb`` was done for, or what it made happen.

    The parse must hang it on that verb: "make it easy to tie memory" (on "easy"), "be able to
    use", "a useful timezone to perform", "went so far as to develop" complete another word. A
    verb's complement tells what was wanted, said or allowed, not a purpose: "wanted to go",
    "voted on Monday to close", "forbid members to share", "knows how to handle"; after an
    object it can ("used the bow to kill", "hired staff to handle"), and after a causative with
    its object it says what the first action brought about ("caused the river to flood", "was
    persuaded to extend"). Otherwise the to-infinitive must be a purpose by ``serves``: a verb
    ("to reclining chairs" holds none), not completing a noun ("a decision was made to
    emphasize") nor the verb itself ("it takes an hour to build"). Where the parse does not show
    the words, no purpose is read.
    """
    tokens = _tokens_at(text, verb, sub)
    if tokens is None:
        return False
    head, inf = tokens
    if inf.head != head:
        return False
    complement = inf.dep_ in ("xcomp", "ccomp")
    if made_to_do(head, inf):
        return True
    if head.lemma_ in TAKES_TO or not (complement or inf.dep_ == "advcl"):
        return False
    if complement and not any(c.dep_ == "dobj" and head.i < c.i < inf.i for c in head.children):
        return False
    return serves(head, inf)


_CLAUSE_WORDS = 24
_LEADING = frozenset({"mark", "cc", "punct"})
_CONNECTIVE_WORDS = frozenset({"so", "therefore", "hence", "thus", "consequently"})
_OPENER = 3  # words of a discourse opener a comma closes


def _clause(text: str, verb: int, other: int | None) -> str:
    """The words of the action at ``verb``'s clause: its subtree, less the branch that holds the verb at ``other``.

    "The river flooded the valley because the dam broke": the flooding is "The river flooded the
    valley", the breaking "the dam broke". A judge shown two clauses need not guess which of the
    sentence's words a bare verb ("be", "have") stands for. Connectives and punctuation that open
    the clause are dropped, a long clause keeps the words nearest its verb, and where the parse
    does not show the verb the sentence stands.
    """
    found = _tokens_at(text, verb) if other is None else _tokens_at(text, verb, other)
    if found is None:
        return text.strip()
    head = found[0]
    skip: set[int] = set()
    if other is not None and head.is_ancestor(found[1]):
        branch = next(c for c in head.children if c == found[1] or c.is_ancestor(found[1]))
        skip = {t.i for t in branch.subtree}
    words = [t for t in head.subtree if t.i not in skip]
    while words and words[0] != head:
        comma = next((n for n, t in enumerate(words[:_OPENER + 1]) if t.text == "," and head not in words[:n]), None)
        if comma is not None:
            del words[:comma + 1]  # "For instance,", "However,", "So,"
        elif (words[0].dep_ in _LEADING and not words[0].is_quote) or words[0].lower_ in _CONNECTIVE_WORDS:
            words.pop(0)
        else:
            break
    while words and words[-1] != head and words[-1].is_punct:
        words.pop()
    if len(words) > _CLAUSE_WORDS:
        at = words.index(head)
        lo = max(0, min(at - _CLAUSE_WORDS // 2, len(words) - _CLAUSE_WORDS))
        words = words[lo:lo + _CLAUSE_WORDS]
    return " ".join("".join(t.text_with_ws for t in words).split())


def _cause_question(services: Services, first: str, second: str) -> Question:
    graph = services.workspace.graph
    a, b = graph.node(first) or {}, graph.node(second) or {}
    t1, t2 = _text_of(services, first), _text_of(services, second)
    same = a["seq"] == b["seq"]
    actions = []
    for node, text, other in ((a, t1, b), (b, t2, a)):
        clause = _clause(text, node["char"], other.get("char") if same else None) if node.get("char") is not None else text
        actions.append(f'{node["verb"]} (line {node["line_number"]}): "{clause}"')
    return Question((first, second), _key("cause", first, second, t1, t2, actions), "causality_prompt",
                    {"first": actions[0], "second": actions[1], "context": t1 if same else f"{t1}\n{t2}"})


def decide_ahead(services: Services, doc_id: str, run_id: str) -> int:
    """Ask, ``concurrency`` at a time, every independent decision the type and cause steps will need.

    The steps themselves then find every answer memoised. This part reads the graph and writes
    only the records, so a database store's workers run it side by side, outside the writer lock.
    Returns the number of LLM calls made.
    """
    if services.llm is None:
        return 0
    questions: list[tuple[str, Question]] = []
    forward: list[Question] = []
    backward: list[Question] = []
    with services.workspace.mutating():  # the graph holds still while the questions are read off it
        if services.ctx.entity_types:
            questions += [("entity_types", q) for q in _type_questions(services, doc_id)]
        if services.ctx.causality:
            pairs = _cause_pairs(services, doc_id)
            forward = [_cause_question(services, cause, effect) for cause, effect in pairs]
            backward = [_cause_question(services, effect, cause) for cause, effect in pairs]
    asked = _ask_all(services, doc_id, run_id, questions + [("causality", q) for q in forward])
    records = services.workspace.records  # then the other way round, where the model said yes (``_one_way``)
    said_yes = [("causality", back) for q, back in zip(forward, backward, strict=True)
                if _answer(records.decision(q.key) or {}) == "yes"]
    return asked + _ask_all(services, doc_id, run_id, said_yes)


def _ask_all(services: Services, doc_id: str, run_id: str, questions: list[tuple[str, Question]]) -> int:
    """Ask, ``concurrency`` at a time, the questions not answered yet; returns how many were asked."""
    ws = services.workspace
    todo = [(step, q) for step, q in questions if ws.records.decision(q.key) is None]
    asked: list[bool] = []
    later: list[tuple[str, Question]] = []

    def one(item: tuple[str, Question], wait: bool) -> None:
        step, q = item  # another worker may be asking the same (an entity of its document too)
        with ws.claim([f"decision:{q.key}"], wait) as mine:
            if not mine:
                later.append(item)
            elif ws.records.decision(q.key) is None:
                _decide(services, step, doc_id, q.key, run_id, q.prompt, **q.fields)
                asked.append(True)

    with ThreadPoolExecutor(max_workers=max(1, services.ctx.concurrency)) as pool:
        list(pool.map(one, todo, [False] * len(todo)))  # first what no one else is asking
        list(pool.map(one, list(later), [True] * len(later)))  # then wait for the others' answers
    return len(asked)


def type_entities(services: Services, doc_id: str, run_id: str, loop: Loop) -> int:
    """Set ``entity_type`` on entities of a document that have none."""
    graph = services.workspace.graph
    typed = 0
    if services.llm is None:
        for entity in _doc_entities(services, doc_id, untyped=True):
            graph.update_node(entity, entity_type=str((graph.node(entity) or {}).get("ner_type") or "Object"))
            typed += 1
        return typed
    for q in _type_questions(services, doc_id):
        answer = _decide(services, "entity_types", doc_id, q.key, run_id, q.prompt, **q.fields)
        kind = str(answer.get("entity_type", "")).strip()
        entity, source = q.subject[0], "llm"
        ner = _ner_type(services, entity)
        if kind not in ENTITY_TYPES:  # no type the schema knows: the tagger's, else the default, as offline
            graph.update_node(entity, entity_type=ner or "Object", type_source="ner (the model gave no valid type)")
            typed += 1
            continue
        if ner is not None and ner != kind and not _chosen_over(services, doc_id, run_id, q, kind, ner):
            kind, source = ner, "ner (the model's type was not confirmed)"
        elif ner is not None and ner != kind:
            source = "llm, confirmed against the NER"
        graph.update_node(entity, entity_type=kind, type_source=source)
        typed += 1
    return typed


def _chosen_over(services: Services, doc_id: str, run_id: str, q: Question, kind: str, ner: str) -> bool:
    """Whether the model, asked blind to choose between its type and the name tagger's, picks its own in both orders.

    A small model says yes to "is X a Location?" far too easily, and favours the option it reads
    first; a type that overrides the tagger must win a choice put both ways round.
    """
    entity = q.subject[0]
    for first, second in ((kind, ner), (ner, kind)):
        check = _decide(services, "entity_types", doc_id, _key("type-choice", entity, first, second), run_id,
                        "entity_type_check_prompt", entity=q.fields["entity"], context=q.fields["context"],
                        first=first, second=second)
        if _answer(check) != kind.lower():
            return False
    return True


def _one_way(services: Services, doc_id: str, run_id: str, cause: str, effect: str) -> bool:
    """Whether the model says the cue's cause caused its effect, and, asked the other way round, says no.

    A small judge says yes to most pairs it is shown (Qwen 1.5B to both "take → settle" and
    "settle → take"); a yes that it gives both ways says nothing about cause.
    """
    for pair, wanted in (((cause, effect), "yes"), ((effect, cause), "no")):
        q = _cause_question(services, *pair)
        answer = _decide(services, "causality", doc_id, q.key, run_id, q.prompt, **q.fields)
        if _answer(answer) != wanted:
            return False
    return True


def find_causes(services: Services, doc_id: str, run_id: str, loop: Loop) -> int:
    """CAUSES between consecutive Kriyās of the same or adjacent sentences."""
    graph = services.workspace.graph
    found = 0
    for first, second in _cause_pairs(services, doc_id):
        a, b = graph.node(first) or {}, graph.node(second) or {}
        if services.llm is None:
            t1, t2 = _text_of(services, first), _text_of(services, second)
            purpose = a["seq"] == b["seq"] and re.search(rf"\bto\s+{re.escape(b['verb'])}\b", t1, re.IGNORECASE)
            if not (purpose or (b["seq"] == a["seq"] + 1 and _CAUSAL_NEXT.match(t2))):
                continue
            method = "heuristic"
        else:
            if not _one_way(services, doc_id, run_id, first, second):
                continue
            method = "llm"
        found += _link(services, first, second, "CAUSES", method=method)
    return found


Step = Callable[[Services, str, str, Loop], int]
STEPS: tuple[tuple[str, Step], ...] = (
    ("coreference", resolve_coreferences),
    ("metaphors", link_metaphors),
    ("entity_types", type_entities),
    ("causality", find_causes),
)
