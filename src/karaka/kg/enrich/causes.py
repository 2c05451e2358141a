"""CAUSES between actions: a connective or a purpose clause that ties two actions, or a model's judgement both ways round."""

from __future__ import annotations

import re
from typing import TYPE_CHECKING, Any

from karaka.gsv.run import Loop
from karaka.nlp import parse
from karaka.nlp.clauses import cites_or_compares, made_to_do, serves
from karaka.nlp.lexicon import TAKES_TO
from karaka.services import Services

if TYPE_CHECKING:
    from spacy.tokens import Token
from karaka.kg.enrich.decisions import Question, answer_of, decide, decision_key, link, text_of

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


def cause_pairs(services: Services, doc_id: str) -> list[tuple[str, str]]:
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
            if not _CAUSAL_NEXT.match(text_of(services, second)):
                continue
            first, second = closing.get(a["seq"], first), opening.get(b["seq"], second)
            a, b = nodes[first], nodes[second]
        if second in graph.neighbors(first, "CAUSES") or first in graph.neighbors(second, "CAUSES"):
            continue
        way = cue(text_of(services, first), a, b) if a["seq"] == b["seq"] else 1
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


def cue(text: str, first: dict[str, Any], second: dict[str, Any]) -> int:
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


def clause_text(text: str, verb: int, other: int | None) -> str:
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


def cause_question(services: Services, first: str, second: str) -> Question:
    """The causality question for two actions: each with its verb, line and clause."""
    graph = services.workspace.graph
    a, b = graph.node(first) or {}, graph.node(second) or {}
    t1, t2 = text_of(services, first), text_of(services, second)
    same = a["seq"] == b["seq"]
    actions = []
    for node, text, other in ((a, t1, b), (b, t2, a)):
        clause = clause_text(text, node["char"], other.get("char") if same else None) if node.get("char") is not None else text
        actions.append(f'{node["verb"]} (line {node["line_number"]}): "{clause}"')
    return Question((first, second), decision_key("cause", first, second, t1, t2, actions), "causality_prompt",
                    {"first": actions[0], "second": actions[1], "context": t1 if same else f"{t1}\n{t2}"})


def one_way(services: Services, doc_id: str, run_id: str, cause: str, effect: str) -> bool:
    """Whether the model says the cue's cause caused its effect, and, asked the other way round, says no.

    A small judge says yes to most pairs it is shown (Qwen 1.5B to both "take → settle" and
    "settle → take"); a yes that it gives both ways says nothing about cause.
    """
    for pair, wanted in (((cause, effect), "yes"), ((effect, cause), "no")):
        q = cause_question(services, *pair)
        answer = decide(services, "causality", doc_id, q.key, run_id, q.prompt, **q.fields)
        if answer_of(answer) != wanted:
            return False
    return True


def find_causes(services: Services, doc_id: str, run_id: str, loop: Loop) -> int:
    """CAUSES between consecutive Kriyās of the same or adjacent sentences."""
    graph = services.workspace.graph
    found = 0
    for first, second in cause_pairs(services, doc_id):
        a, b = graph.node(first) or {}, graph.node(second) or {}
        if services.llm is None:
            t1, t2 = text_of(services, first), text_of(services, second)
            purpose = a["seq"] == b["seq"] and re.search(rf"\bto\s+{re.escape(b['verb'])}\b", t1, re.IGNORECASE)
            if not (purpose or (b["seq"] == a["seq"] + 1 and _CAUSAL_NEXT.match(t2))):
                continue
            method = "heuristic"
        else:
            if not one_way(services, doc_id, run_id, first, second):
                continue
            method = "llm"
        found += link(services, first, second, "CAUSES", method=method)
    return found
