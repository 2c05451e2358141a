"""Questions → traversal steps, from the parse alone (no LLM).

The wh-word's place in the question decides the role asked for, with voice taken into account:
"Who killed Ravana?" asks for the kartā, "Who was killed?" and "What was published?" for the karma,
"Who was it given to?" for the sampradāna, "What did they cut it with?" for the karaṇa; where and
when ask for the place and time, why for a cause or purpose, how for a manner or instrument. The
other arguments named in the question become constraints in their own roles. When spaCy reads
the question's verb as a noun, a second reading takes the word the graph knows as a verb.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from spacy.tokens import Doc, Token

from karaka.nlp import parse
from karaka.nlp.roles import _pobj, _prep_role, clause, span

WH = frozenset({"who", "whom", "what", "which", "where", "when", "why", "how", "whose"})
WH_EXTRACT = {"where": "ADHIKARANA_SPATIAL", "when": "ADHIKARANA_TEMPORAL", "why": "CAUSE", "how": "MANNER"}
STRANDED = {"with": "KARANA", "using": "KARANA", "by": "KARTA", "to": "SAMPRADANA", "for": "SAMPRADANA",
            "from": "APADANA", "in": "ADHIKARANA_SPATIAL", "at": "ADHIKARANA_SPATIAL", "on": "ADHIKARANA_SPATIAL",
            "into": "ADHIKARANA_SPATIAL", "during": "ADHIKARANA_TEMPORAL", "after": "ADHIKARANA_TEMPORAL",
            "before": "ADHIKARANA_TEMPORAL", "about": "KARMA", "of": "KARMA", "as": "KARMA", "through": "KARANA"}
SUBJECT_DEPS = {"nsubj": "KARTA", "nsubjpass": "KARMA", "csubj": "KARTA", "expl": None}
OBJECT_DEPS = {"dobj": "KARMA", "obj": "KARMA", "attr": "KARMA", "oprd": "KARMA", "dative": "SAMPRADANA",
               "iobj": "SAMPRADANA"}


def _is_wh(token: Token) -> bool:
    return token.lower_ in WH or any(t.lower_ in WH and t.dep_ in ("det", "poss") for t in token.children)


def _wh_word(doc: Doc) -> Token | None:
    return next((t for t in doc if t.lower_ in WH), None)


def _passive(verb: Token) -> bool:
    return any(c.dep_ in ("nsubjpass", "auxpass") for c in verb.children) or (
        verb.tag_ == "VBN" and any(c.dep_ in ("aux", "auxpass") and c.lemma_ == "be" for c in verb.children))


def _choose_verb(doc: Doc, known_verb: Callable[[str], bool] | None) -> Token | None:
    verbs = [t for t in doc if t.pos_ == "VERB"]
    root = next((t for t in doc if t.dep_ == "ROOT"), None)
    if verbs:
        return next((t for t in verbs if t.dep_ == "ROOT"), None) or next(
            (t for t in verbs if t.head.dep_ == "ROOT" and t.dep_ in ("xcomp", "ccomp", "conj")), verbs[0])
    if known_verb is not None:  # second reading: spaCy took the verb for a noun ("quarantine")
        for token in doc:
            if token.lower_ not in WH and not token.is_stop and token.pos_ in ("NOUN", "ADJ", "PROPN", "ADV") and (
                    known_verb(token.lemma_.lower()) or known_verb(token.lower_)):
                return token
    return root


def question_step(question: str, known_verb: Callable[[str], bool] | None = None) -> dict[str, Any] | None:
    """One traversal step for a single-hop question, or None when no predicate can be found."""
    doc = parse(question.strip())
    wh = _wh_word(doc)
    verb = _choose_verb(doc, known_verb)
    if verb is None:
        return None
    passive = _passive(verb)
    wh_text = wh.lower_ if wh is not None else ""
    extract: str | None = WH_EXTRACT.get(wh_text)
    if wh_text == "how" and wh is not None and wh.i + 1 < len(doc) and doc[wh.i + 1].lower_ in ("much", "many", "long",
                                                                                                  "far", "old"):
        extract = "KARMA"
    known: dict[str, str] = {}
    prep_asked: str | None = None
    for child in verb.children:
        dep = child.dep_
        if dep in ("prep", "agent") or (dep == "dative" and child.pos_ == "ADP"):
            obj = _pobj(child)
            if obj is None or obj.lower_ in WH:  # a stranded preposition: "what did they cut it with?"
                if extract is None or obj is not None:
                    prep_asked = child.lower_
                    extract = "KARTA" if dep == "agent" else STRANDED.get(child.lower_, "KARMA")
                continue
            role = "KARTA" if dep == "agent" else _prep_role(child, obj)
            if role is None and child.lower_ in STRANDED:
                role = STRANDED[child.lower_]
            if role:
                known.setdefault(role, clause(child) if role.startswith("ADHIKARANA") else span(obj))
            continue
        role = SUBJECT_DEPS.get(dep) or OBJECT_DEPS.get(dep)
        if role is None:
            continue
        if passive and dep == "nsubj":
            role = "KARMA"
        if _is_wh(child):
            if extract is None or extract == "MANNER" and child.lower_ != "how":
                extract = role
        elif child.lower_ not in ("it", "there") or dep not in ("nsubj", "expl"):
            known.setdefault(role, span(child))
    if extract is None:
        if wh is not None and wh.head.i != verb.i and wh.head.dep_ == "pobj":  # "in what city…"
            extract = "ADHIKARANA_SPATIAL"
        elif passive and "KARMA" not in known:
            extract = "KARMA"
        else:
            extract = "KARMA" if "KARTA" in known else "KARTA"
    lemma = "be" if verb.pos_ == "AUX" else verb.lemma_.lower()
    return {"goal": question.strip(), "verb": lemma, "karakas": known, "extract": extract,
            "wh": wh_text or None, "prep": prep_asked, "follow_causes": wh_text == "why",
            "follow_same_as": True}


def question_plan(question: str, known_verb: Callable[[str], bool] | None = None) -> dict[str, Any] | None:
    """A plan from a question's parse: "What did Rama give?" → give, KARTA Rama, extract KARMA."""
    step = question_step(question, known_verb)
    if step is None:
        return None
    return {"steps": [step], "reasoning": "parser plan"}
