"""Questions → traversal steps, from the parse alone (no LLM).

The wh-word's place in the question decides the role asked for, with voice taken into account:
"Who killed Ravana?" asks for the kartā, "Who was killed?" and "What was published?" for the karma,
"Who was it given to?" for the sampradāna, "What did they cut it with?" for the karaṇa; where and
when ask for the place and time, why for a cause or purpose, how for a manner or instrument. The
other arguments named in the question become constraints in their own roles.

A second reading covers spaCy's slips: when it reads the question's verb as a noun ("What did Will
Hailer voice?" parsed around "did"), the word the graph knows as a verb is taken, and the words
before and after it are its subject and object.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from spacy.tokens import Doc, Token

from karaka.nlp import parse, verb_lemma
from karaka.nlp.phrases import clause, slipped_subject, span
from karaka.nlp.roles import pobj_of, prep_role
from karaka.words import AUXILIARIES, LIGHT_VERBS

WH = frozenset({"who", "whom", "what", "which", "where", "when", "why", "how", "whose"})
WH_EXTRACT = {"where": "ADHIKARANA_SPATIAL", "when": "ADHIKARANA_TEMPORAL", "why": "CAUSE", "how": "MANNER"}
STRANDED = {"with": "KARANA", "using": "KARANA", "by": "KARTA", "to": "SAMPRADANA", "for": "SAMPRADANA",
            "from": "APADANA", "in": "ADHIKARANA_SPATIAL", "at": "ADHIKARANA_SPATIAL", "on": "ADHIKARANA_SPATIAL",
            "into": "ADHIKARANA_SPATIAL", "during": "ADHIKARANA_TEMPORAL", "after": "ADHIKARANA_TEMPORAL",
            "before": "ADHIKARANA_TEMPORAL", "about": "KARMA", "of": "KARMA", "as": "KARMA", "through": "KARANA"}
SUBJECT_DEPS = {"nsubj": "KARTA", "nsubjpass": "KARMA", "csubj": "KARTA"}
OBJECT_DEPS = {"dobj": "KARMA", "obj": "KARMA", "attr": "KARMA", "oprd": "KARMA", "dative": "SAMPRADANA",
               "iobj": "SAMPRADANA"}
KnownVerb = Callable[[str], bool]


def _is_wh(token: Token) -> bool:
    return token.lower_ in WH or any(t.lower_ in WH and t.dep_ in ("det", "poss") for t in token.children)


def after_do(verb: Token) -> bool:
    """Whether a verb is the base form "do" carries ("does the female lay …").

    Such a verb is its own lemma, whatever the lemmatizer's table says of the same spelling ("lay"
    is also the past of "lie").
    """
    return verb.tag_ == "VB" and any(c.lemma_ == "do" and c.dep_ == "aux" for c in verb.children)


def _asked_noun(token: Token, wh: Token | None) -> bool:
    """Whether ``token`` is the noun right after "which" or "what", the thing asked for, however it is parsed.

    "On which systems does Brindle run?" is parsed with "systems" as a second subject; it names what
    is asked, never a constraint on the answer; so is "flag" of "which gcc flag", the phrase "which" opens
    (not "part" of "what does the host part …", which the parse may hang "what" on).
    """
    return wh is not None and wh.lower_ in ("which", "what") and token.pos_ in ("NOUN", "PROPN") and (
        token.i == wh.i + 1 or token.i > wh.i and token.left_edge.i == wh.i and all(
        t.dep_ in ("compound", "amod", "nmod", "nummod") for t in token.doc[wh.i + 1:token.i]))


def _amount_asked(token: Token) -> bool:
    """Whether ``token`` opens "how much" or "how many": the phrase it opens is what the question asks."""
    return token.lower_ == "how" and token.i + 1 < len(token.doc) and token.doc[token.i + 1].lower_ in ("much", "many")


def _clean(text: str) -> str:
    """A named argument without the question's wh-word and auxiliaries ("When did the cartoons" → "the cartoons")."""
    words = text.split()
    while words and (words[0].lower() in WH or words[0].lower() in AUXILIARIES):
        words = words[1:]
    while words and words[-1] in "?.!":
        words = words[:-1]
    return " ".join(words)


def _passive(verb: Token) -> bool:
    return any(c.dep_ in ("nsubjpass", "auxpass") for c in verb.children) or (
        verb.tag_ == "VBN" and any(c.dep_ in ("aux", "auxpass") and c.lemma_ == "be" for c in verb.children))


def _choose_verb(doc: Doc, known: KnownVerb | None) -> tuple[Token | None, bool]:
    """The question's predicate, and whether it came from the second reading."""
    verbs = [t for t in doc if t.pos_ == "VERB" and t.lower_ not in AUXILIARIES]
    root = next((t for t in doc if t.dep_ == "ROOT"), None)
    chosen = None
    if verbs:
        chosen = next((t for t in verbs if t.dep_ == "ROOT"), None) or next(
            (t for t in verbs if t.head.dep_ == "ROOT" and t.dep_ in ("xcomp", "ccomp", "conj")), verbs[0])
    elif root is not None and root.lemma_.lower() not in LIGHT_VERBS:
        chosen = root
    if known is not None and (chosen is None or chosen.lemma_.lower() in LIGHT_VERBS or not verbs and chosen.pos_ in (
            "PROPN", "PRON", "ADJ", "ADV")):  # "What did Tam Reed lower?": the tagger's root is the name
        for token in reversed(list(doc)):
            if token is chosen or token.lower_ in WH or token.lower_ in AUXILIARIES or not token.is_alpha:
                continue
            if known(verb_lemma(token.lower_)) and token.pos_ in ("NOUN", "VERB", "ADJ", "PROPN", "ADV"):
                return token, True
    return chosen or root, False


def _linear(doc: Doc, verb: Token) -> tuple[dict[str, str], str | None]:
    """Arguments by position around a verb the parse missed: "[wh] [aux] SUBJECT verb OBJECT [prep]?"."""
    words = [t for t in doc if not t.is_punct]
    before = [t for t in words[: words.index(verb)] if t.lower_ not in WH and t.lower_ not in AUXILIARIES]
    after = [t for t in words[words.index(verb) + 1:]]
    prep = after[-1].lower_ if after and after[-1].pos_ == "ADP" else None
    if prep:
        after = after[:-1]
    known = {}
    if before:
        known["KARTA"] = " ".join(t.text for t in before)
    if after:
        known["KARMA"] = " ".join(t.text for t in after)
    return known, prep


def _wh_is_object(doc: Doc, wh: Token, verb: Token) -> bool:
    """True for "Who will the troops protect?": a subject stands between the auxiliary and the verb."""
    between = [t for t in doc[wh.i + 1: verb.i]]
    if not between or between[0].lower_ not in AUXILIARIES:
        return False
    return any(t.pos_ in ("NOUN", "PROPN", "PRON", "NUM") and t.dep_ in ("nsubj", "nsubjpass", "compound", "det",
                                                                          "amod", "nummod", "poss")
               for t in between[1:])


def _double_object(wh: Any, verb: Any, known: dict[str, str], extract: str | None) -> str | None:
    """The role asked for when a fronted wh-word leaves one bare object after the verb (a double object).

    English leaves the other object in place: "What did the shepherd give Tomas?" asks for the
    thing given (Tomas received it), "Whom did she give the bread?" for the receiver. The parse
    labels such a wh-word as it may (a dative, an object, a subject), so its place decides.
    """
    amount = _amount_asked(wh)
    top = wh  # "How much did he pay Tomas?": the amount, like "what", is the thing given
    while amount and top.head.i != verb.i and top.i < top.head.i < verb.i:
        top = top.head
    subject = any(c.dep_ in ("nsubj", "nsubjpass") and c.i != top.i and wh.i < c.i < verb.i and not _asked_noun(c, wh)
                  for c in verb.children)  # "which cipher encrypts the snapshots?": the cipher is what is asked
    objects = [c for c in verb.children if c.dep_ in ("dobj", "dative") and c.i > verb.i and not _is_wh(c)]
    if not subject or len(objects) != 1 or wh.i > verb.i or top.head.i != verb.i:
        return extract
    text = _clean(span(objects[0]))
    if (wh.lower_ in ("what", "which") or amount) and known.get("KARMA") == text:
        del known["KARMA"]
        known["SAMPRADANA"] = text
        return "KARMA"
    if wh.lower_ in ("who", "whom") and known.get("KARMA") == text:
        return "SAMPRADANA"
    return extract


def question_step(question: str, known_verb: KnownVerb | None = None) -> dict[str, Any] | None:
    """One traversal step for a single-hop question, or None when no predicate can be found."""
    doc = parse(question.strip())
    wh = next((t for t in doc if t.lower_ in WH), None)
    verb, second = _choose_verb(doc, known_verb)
    if verb is None:
        return None
    wh_text = wh.lower_ if wh is not None else ""
    extract: str | None = WH_EXTRACT.get(wh_text)
    if wh_text == "how" and wh is not None and wh.i + 1 < len(doc) and doc[wh.i + 1].lower_ in (
            "much", "many", "long", "far", "old", "often"):
        extract = "ADHIKARANA_TEMPORAL" if doc[wh.i + 1].lower_ in ("long", "often") else "KARMA"
    known: dict[str, str] = {}
    prep_asked: str | None = None
    fronted = doc[wh.i - 1] if wh is not None and wh.i > 0 and doc[wh.i - 1].pos_ == "ADP" else None
    if fronted is not None:  # "With what did they cut it?", "To whom was it given?"
        prep_asked = fronted.lower_
        extract = STRANDED.get(prep_asked, extract or "KARMA")
    passive = _passive(verb)
    if second:
        known, prep_asked = _linear(doc, verb)
        if prep_asked:
            extract = STRANDED.get(prep_asked, extract)
        elif extract is None:
            extract = "KARMA" if "KARTA" in known else "KARTA"
    else:
        final = max(t.i for t in doc if not t.is_punct)  # "… written in?": a particle that ends it
        for child in verb.children:
            dep = child.dep_
            last = child.i == final
            if dep in ("prep", "agent") or (dep == "dative" and child.pos_ == "ADP") or (
                    dep == "prt" and last and child.lower_ in STRANDED and wh is not None):
                obj = pobj_of(child)
                if obj is None or _is_wh(obj) or _asked_noun(obj, wh):  # stranded: "what did they cut it with?",
                    # "which systems does it run on?"
                    prep_asked = child.lower_
                    if extract is None or wh_text in ("where", "what", "who", "whom", "which"):
                        extract = "KARTA" if dep == "agent" else STRANDED.get(child.lower_, extract or "KARMA")
                    continue
                role = "KARTA" if dep == "agent" else prep_role(child, obj)
                if role is None and child.lower_ in STRANDED:
                    role = STRANDED[child.lower_]
                if role:
                    known.setdefault(role, _clean(clause(child) if role.startswith("ADHIKARANA") else span(obj)))
                continue
            role = SUBJECT_DEPS.get(dep) or OBJECT_DEPS.get(dep) or ("KARTA" if child == slipped_subject(verb) else None)
            if role is None:  # "What did Dorn toss …?": the tagger made Dorn part of a noun
                continue
            if passive and dep == "nsubj":
                role = "KARMA"
            if _is_wh(child) or _asked_noun(child, wh):
                if extract is None and fronted is None:
                    extract = "KARMA" if role == "KARTA" and wh is not None and _wh_is_object(doc, wh, verb) else role
            elif child.lower_ not in ("it", "there") or dep != "nsubj":
                text = _clean(span(child))
                if text:
                    known.setdefault(role, text)
        if verb.dep_ == "acl" and verb.tag_ == "VBN" and verb.head.dep_ == "nsubj" and verb.head.head.lemma_ == "be":
            subject = " ".join(t.text for t in verb.head.subtree if t.i < verb.i)  # "Was Dov buried …?": Dov was
            known.setdefault("KARMA", _clean(subject))
            purpose = next((c for c in verb.children if c.dep_ == "xcomp" and c.tag_ == "VB" and not any(
                g.dep_ in ("dobj", "prep", "ccomp") for g in c.children)), None)
            if purpose is not None and extract is None:  # "what is the field used to store?": what it stores
                verb, known, extract = purpose, {}, "KARMA"
        if extract is None:
            if wh is not None and wh.head.i != verb.i and wh.head.dep_ == "pobj":  # "in what city…"
                extract = "ADHIKARANA_SPATIAL"
            elif passive and "KARMA" not in known:
                extract = "KARMA"
            else:
                extract = "KARMA" if "KARTA" in known else "KARTA"
    if not second and not passive and wh is not None and fronted is None and wh.i + 1 == verb.i \
            and wh.lower_ in ("who", "what") and verb.pos_ == "VERB" and extract != "KARTA":
        extract = "KARTA"  # "Who slew Jethan?": a wh-word right before its verb is its subject, however tagged
        for child in verb.children:
            if child.i > verb.i and child.dep_ in ("npadvmod", "attr", "dep", "oprd") and child.pos_ in ("PROPN", "NOUN"):
                known.setdefault("KARMA", _clean(span(child)))
    if not second and not passive and wh is not None and fronted is None:
        extract = _double_object(wh, verb, known, extract)
    lemma = "be" if verb.pos_ == "AUX" else verb_lemma(verb.lower_) if second else verb.lower_ if after_do(verb) \
        else verb.lemma_.lower()
    return {"goal": question.strip(), "verb": lemma, "karakas": known, "extract": extract,
            "wh": wh_text or None, "prep": prep_asked, "follow_causes": wh_text == "why", "follow_same_as": True}


def question_plan(question: str, known_verb: KnownVerb | None = None) -> dict[str, Any] | None:
    """A plan from a question's parse: "What did Rama give?" → give, KARTA Rama, extract KARMA."""
    step = question_step(question, known_verb)
    if step is None:
        return None
    return {"steps": [step], "reasoning": "parser plan"}
