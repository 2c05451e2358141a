"""A deterministic kāraka analyzer over a spaCy dependency parse: no LLM, never invents a word.

Each predicate becomes a Kriyā with its roles as *surface spans* (the words of the sentence, with
a place's or time's preposition: "in a statement"), plus adjuncts that no kāraka holds but
questions ask about: CAUSE and PURPOSE (why), MANNER (how), TIME and PLACE clauses (when, where).
A reason clause and the action it explains are linked (``links``, written as CAUSES).

Relative clauses take the noun they modify in place of "who"/"which"/"that"; participles take it
as their karma ("a car driven by X") or kartā ("tankers entering its waters"). Copulas: "X is Y"
becomes a Kriyā "be" with X as KARTA and Y as KARMA, so identity statements stay queryable.
"""


from __future__ import annotations

from typing import Any

from spacy.tokens import Doc, Token

from karaka.nlp import irregular_verb, parse, parse_many
from karaka.nlp.clauses import (
    brought_about,
    clause_adjunct,
    expletive_subject,
    infinitive_object,
    said_before,
    so_result,
    wanted,
)
from karaka.nlp.lexicon import (
    ASIDE_NOUNS,
    CAUSAL_PREPS,
    DIRECTIONS,
    NOT_MANNER,
    OBJECT_CONTROL,
    PREP_ROLES,
    PREPOSITION_NOUNS,
    RELATIVE,
    REPORTING,
    SPATIAL_PREPS,
    TEMPORAL_PREPS,
    TEMPORAL_WORDS,
    TIME_ADVERBS,
    names_people,
)
from karaka.nlp.phrases import (
    SPAN_SKIP,
    Roles,
    clause,
    is_animate,
    is_predicate,
    is_temporal,
    mistagged_verb,
    slipped_subject,
    span,
    words_text,
)

PREPOSITIONAL_ROLES = frozenset({"KARANA", "APADANA", "SAMPRADANA", "ADHIKARANA_SPATIAL", "ADHIKARANA_TEMPORAL"})


def prep_role(prep: Token, obj: Token) -> str | None:
    """The kāraka a preposition gives its object ("with" a tool: KARANA), or None."""
    word = prep.lower_
    if obj.lower_ in PREPOSITION_NOUNS and any(c.dep_ == "prep" and c.lower_ == "of" for c in obj.children):
        return None  # "on behalf of the king" is no place
    if word in ("through", "via") and obj.ent_type_ not in ("GPE", "LOC", "FAC"):
        return "KARANA"  # "through genetic engineering": a means, not a place
    if word == "by" and prep.dep_ != "agent":
        if is_temporal(obj):
            return "ADHIKARANA_TEMPORAL"
        return "KARANA" if not is_animate(obj) else None
    role = PREP_ROLES.get(word)
    if role is None:
        return "ADHIKARANA_TEMPORAL" if is_temporal(obj) else None
    if role == "SAMPRADANA":
        if word != "for" and obj.ent_type_ in ("GPE", "LOC", "FAC"):
            return "ADHIKARANA_SPATIAL"
        if is_animate(obj) or word != "for" and _someone(obj):
            return role
        return "ADHIKARANA_TEMPORAL" if is_temporal(obj) else None
    if role == "ADHIKARANA_SPATIAL" and is_temporal(obj):
        return "ADHIKARANA_TEMPORAL"
    return role


def _someone(noun: Token) -> bool:
    """A noun phrase that names people or a group: "a merchant", "the council", "his heirs", "farmers".

    A bare singular noun after "to" is where something goes, not who receives it: "to justice", "to market".
    """
    return names_people(noun.lemma_ or noun.text) in ("person", "group") and (
        noun.tag_ in ("NNS", "NNPS") or any(c.dep_ in ("det", "poss") for c in noun.children))


def pobj_of(prep: Token) -> Token | None:
    """The object of a preposition (not a verb), or None."""
    for child in prep.children:
        if child.dep_ in ("pobj", "pcomp") and child.pos_ != "VERB":
            return child
        if child.dep_ == "prep":  # "out of", "because of", "by means of"
            return pobj_of(child)
    return None


def _copula_subject(noun: Token) -> Token | None:
    """For the attr of "X is a film directed by Y", the X."""
    head = noun.head
    if noun.dep_ == "attr" and head.lemma_ == "be":
        return next((c for c in head.children if c.dep_ == "nsubj"), None)
    return None


def _in_order_to(roles: Roles, prep: Token, order: Token) -> None:
    """Link "in order to V" as a purpose of the verb it serves, always.

    "would have to grow … in order to avoid a recession": the growing is for it, not the having.
    """
    purpose = next((c for c in order.children if c.dep_ == "acl" and c.pos_ == "VERB"), None)
    if purpose is None:
        return
    served = wanted(said_before(prep.head, prep, ("xcomp",)))
    roles.links.append({"from": served.i, "to": purpose.i, "kind": "purpose"})


def _prep_phrase(roles: Roles, prep: Token) -> None:
    word = prep.lower_
    obj = pobj_of(prep)
    comp = next((c for c in prep.children if c.dep_ == "pcomp" and c.pos_ in ("VERB", "AUX")), None)
    if word in CAUSAL_PREPS:
        roles.adjunct("CAUSE", clause(prep))
        return
    if word == "in" and obj is not None and obj.lower_ in ("attempt", "order", "response"):
        roles.adjunct("CAUSE" if obj.lower_ == "response" else "PURPOSE", clause(prep))
        if obj.lower_ == "order" and obj.i == prep.i + 1:
            _in_order_to(roles, prep, obj)
        return
    if comp is not None:  # "by sending", "after leaving", "in investigating"
        kind = "MANNER" if word in ("by", "with", "without") else "TIME" if word in ("after", "before", "since",
                                                                                  "while", "upon") else None
        if kind:
            roles.adjunct(kind, clause(prep))
        elif obj is None:
            roles.put("KARMA" if word in ("in", "on", "of", "about") else "ADHIKARANA_SPATIAL", clause(prep)[len(prep.text):].strip())
        return
    if obj is None or obj.lower_ in ASIDE_NOUNS and not list(obj.children):
        return  # "for example": the writer's aside
    role = prep_role(prep, obj)
    if role:
        roles.add(role, obj, prep if role in PREPOSITIONAL_ROLES and role != "SAMPRADANA" else None)
    elif word == "for":
        roles.adjunct("PURPOSE", clause(prep))
    else:  # "convicted of murder", "as players", "against the Netherlands"
        roles.adjunct("OTHER", clause(prep))


def _second_object(verb: Token, noun: Token) -> bool:
    """Whether a noun the parse hangs on the verb as an adverbial is the thing given: it follows a dative, with no object."""
    children = list(verb.children)
    return any(c.dep_ == "dative" and c.i < noun.i for c in children) and not any(
        c.dep_ in ("dobj", "obj") for c in children)


def _there_subject(verb: Token, noun: Token) -> bool:
    """Whether ``noun`` is the subject an existential "there" stands in for: "There came a champion"."""
    return verb.lemma_.lower() != "be" and noun.dep_ == "dobj" and any(
        c.dep_ == "expl" and c.lower_ == "there" for c in verb.children) and not any(
        c.dep_ in ("nsubj", "nsubjpass") for c in verb.children)


def _roles_of(verb: Token) -> Roles:
    roles = Roles()
    for child in verb.children:
        dep = child.dep_
        if dep == "neg":
            roles.negated = True
        elif dep in ("nsubj", "nsubjpass") and expletive_subject(child, verb):
            continue  # "It is reasonable to assume …", "it was announced that …": no participant
        elif dep in ("nsubj", "csubj") and child.pos_ != "VERB":
            roles.add("KARTA", child)
        elif dep == "compound" and child == slipped_subject(verb):
            roles.add("KARTA", child)  # "and Jory swam": the tagger made Jory part of a noun
        elif dep == "csubj":
            roles.put("KARTA", clause(child), is_clause=True)
        elif dep == "nsubjpass":
            roles.add("KARMA", child)
        elif dep == "agent" and not _passive(verb):
            _prep_phrase(roles, child)  # "settled by the sea": the tagger's agent of an active verb is a place
        elif dep == "agent":
            obj = pobj_of(child)
            if obj is not None:
                roles.add("KARTA", obj)
        elif dep in ("dobj", "obj", "attr", "oprd") and child.pos_ != "VERB":
            roles.add("KARTA" if _there_subject(verb, child) else "KARMA", child)  # "There lived a king": he lived
        elif dep == "ccomp":
            roles.put("KARMA", clause(child), is_clause=True)
        elif dep in ("dative", "iobj"):
            obj = pobj_of(child) if child.pos_ == "ADP" else child
            if obj is not None:
                roles.add("SAMPRADANA", obj)
        elif dep == "prep":
            _prep_phrase(roles, child)
        elif dep == "advcl":
            clause_adjunct(roles, verb, child)
        elif dep in ("npadvmod", "advmod", "obl") and is_temporal(child):
            if child.lower_ in TEMPORAL_WORDS or child.ent_type_ in ("DATE", "TIME") or child.pos_ in ("NOUN", "PROPN"):
                roles.put("ADHIKARANA_TEMPORAL", span(child))
        elif dep == "npadvmod" and child.pos_ in ("NOUN", "PROPN") and _second_object(verb, child):
            roles.add("KARMA", child)  # "bore him a son": the parse calls the thing given an adverbial noun
        elif dep == "advmod" and child.lower_ in TIME_ADVERBS:
            roles.adjunct("TIME", span(child))
        elif dep == "advmod" and child.pos_ == "ADV" and child.lower_ not in NOT_MANNER and child.lower_ not in TEMPORAL_WORDS:
            if child.lower_ in DIRECTIONS:  # "drove them back to the hills": the hills are where they went
                heads = [c for c in child.children if c.dep_ == "prep"]
                for prep in heads:
                    _prep_phrase(roles, prep)
                roles.adjunct("MANNER", span(child, skip=SPAN_SKIP | {"prep"}) if heads else span(child))
            elif child.lower_.endswith("ly") or child.lower_ in ("well", "hard", "fast", "together", "alone"):
                roles.adjunct("MANNER", span(child))
        elif dep == "prt":  # "turn it over again", "moved up three"
            tail = [t for t in verb.doc[child.i + 1: child.i + 2] if t.head in (verb, child) and
                    t.dep_ in ("advmod", "npadvmod", "nummod", "quantmod")]
            roles.adjunct("MANNER", words_text([*child.subtree, *(list(tail[0].subtree) if tail else [])]))
        elif dep == "acomp":
            roles.adjunct("MANNER", span(child, skip=SPAN_SKIP | {"prep"}))
    infinitive_object(roles, verb)
    _quoted_speech(roles, verb)
    so_result(roles, verb)
    brought_about(roles, verb)
    _nested(roles, verb)
    return roles


def _quoted_speech(roles: Roles, verb: Token) -> None:
    """What a verb of saying says, set off after it by a comma or a colon: "Kael said to Dov, Let us make peace".

    The tagger makes such speech an adverbial or open clause of the verb; it is what was said.
    """
    if verb.lemma_.lower() not in REPORTING or "KARMA" in roles.karakas:
        return
    for child in verb.children:
        if child.dep_ in ("advcl", "ccomp", "xcomp", "parataxis") and child.i > verb.i and any(
                t.text in (",", ":") for t in verb.doc[verb.i + 1:min(child.left_edge.i, child.i)]):
            roles.put("KARMA", clause(child).strip(" \"'“”‘’"), is_clause=True)
            return


def _passive(verb: Token) -> bool:
    """A verb in the passive, whose "by" names the doer: "was built by Hanna", "a film directed by Y"."""
    return verb.tag_ == "VBN" or any(c.dep_ in ("auxpass", "nsubjpass") for c in verb.children)


def _nested(roles: Roles, verb: Token) -> None:
    """Places, times and purposes said inside the verb's own arguments ("a high rate in the UK").

    They are kept as adjuncts, for questions the verb's direct dependents leave unanswered.
    """
    for child in verb.children:
        if child.dep_ not in ("dobj", "nsubj", "nsubjpass", "attr", "pobj", "prep", "acomp"):
            continue
        for token in child.subtree:
            if token is child or token.head is verb:
                continue
            if token.dep_ == "prep" and token.head.pos_ in ("NOUN", "PROPN", "NUM", "ADJ"):
                obj = pobj_of(token)
                if obj is None:
                    continue
                word = token.lower_
                if word in TEMPORAL_PREPS or (word in ("in", "on", "at", "by") and is_temporal(obj)):
                    roles.adjunct("TIME", clause(token))
                elif word in SPATIAL_PREPS and obj.ent_type_ in ("GPE", "LOC", "FAC", "ORG"):
                    roles.adjunct("PLACE", clause(token))
            elif token.dep_ in ("acl", "relcl", "advcl") and any(c.dep_ == "aux" and c.tag_ == "TO" for c in token.children):
                roles.adjunct("PURPOSE", clause(token))


def _relative_adverb(verb: Token, roles: Roles) -> bool:
    """The noun a when/where clause modifies is that clause's time or place.

    "on February 10 when pictures were shared", "at the airport where it departed".
    """
    adverb = next((c for c in verb.children if c.lower_ in ("when", "where") and c.dep_ == "advmod"), None)
    if adverb is None or verb.dep_ not in ("relcl", "advcl", "acl") or verb.head.pos_ not in ("NOUN", "PROPN", "NUM"):
        return False
    noun = verb.head
    prep = noun.head if noun.dep_ == "pobj" and noun.head.dep_ == "prep" else None
    text = span(noun) if prep is None else f"{prep.text} {span(noun)}"
    roles.put("ADHIKARANA_TEMPORAL" if adverb.lower_ == "when" else "ADHIKARANA_SPATIAL", text)
    return True


def _modified_noun(verb: Token, roles: Roles) -> None:
    """A relative clause or participle takes the noun it modifies in the role its gap stands for."""
    if verb.dep_ not in ("relcl", "acl") or _relative_adverb(verb, roles):
        return
    noun = verb.head
    subject = _copula_subject(noun)
    if subject is not None and subject.lower_ in ("it", "this", "that"):
        subject = None  # "It was Pell who poisoned the dog": the cleft's "it" points at Pell
    skip = SPAN_SKIP | {"acl"}  # the noun without the clause itself: "a car driven by …" is driven as "a car"
    target = span(subject, skip) if subject is not None else span(noun, skip)
    relative = next((c for c in verb.children if c.lower_ in RELATIVE and c.tag_ in ("WDT", "WP", "WP$")), None)
    if verb.dep_ == "relcl":
        gap = relative.dep_ if relative is not None else ("dobj" if "KARTA" in roles.karakas else "nsubj")
        if gap in ("nsubj",) and "KARTA" not in roles.karakas:
            roles.put("KARTA", target)
        elif gap in ("nsubjpass", "dobj", "pobj") and "KARMA" not in roles.karakas:
            roles.put("KARMA", target)
    elif verb.tag_ == "VBN" and "KARMA" not in roles.karakas:
        roles.put("KARMA", target)
    elif verb.tag_ == "VBG" and "KARTA" not in roles.karakas:
        roles.put("KARTA", target)


def _inherit(token: Token, roles: Roles, karta_of: dict[int, list[str] | None]) -> None:
    """Clauses take their missing kartā from the verb they hang on ("used it to kill").

    An object-control verb lends its object ("asked the audience to remain"); a passive conjunct
    takes the first verb's subject as its karma ("appeared in court and was remanded").
    """
    if token.dep_ not in ("xcomp", "advcl", "conj", "pcomp"):
        return
    head = token.head
    passive = any(c.dep_ == "auxpass" for c in token.children) and not any(c.dep_ == "nsubjpass" for c in token.children)
    if token.dep_ == "conj" and passive:
        if "KARMA" not in roles.karakas:
            subject = karta_of.get(head.i) or _roles_of(head).karakas.get("KARTA")
            if subject:
                roles.karakas["KARMA"] = list(subject)
        return
    if "KARTA" in roles.karakas or (token.dep_ == "conj" and any(c.dep_ == "nsubjpass" for c in token.children)):
        return
    if token.dep_ == "xcomp" and head.lemma_.lower() in OBJECT_CONTROL:
        controller = next((c for c in head.children if c.dep_ in ("dobj", "nsubjpass")), None)
        if controller is not None and controller.lower_ not in RELATIVE:
            roles.karakas["KARTA"] = [span(controller)]
            return
    inherited = karta_of.get(head.i) or _roles_of(head).karakas.get("KARTA")
    if inherited:
        roles.karakas["KARTA"] = list(inherited)


def _crosses_clauses(doc: Doc, a: int, b: int) -> bool:
    """Whether a colon or semicolon stands between two tokens: no reason or purpose clause reaches across one."""
    lo, hi = sorted((a, b))
    return any(t.text in (";", ":") for t in doc[lo:hi])


def analyze(text: str) -> list[dict[str, Any]]:
    """Kriyās of one sentence: ``[{verb, karakas, adjuncts, negated, links, token}]``."""
    return analyze_doc(parse(text))


def analyze_doc(doc: Doc) -> list[dict[str, Any]]:
    """Kriyās of a parsed sentence."""
    found: list[dict[str, Any]] = []
    karta_of: dict[int, list[str] | None] = {}
    for token in doc:
        if not is_predicate(token):
            continue
        roles = _roles_of(token)
        _modified_noun(token, roles)
        _relative_adverb(token, roles) if token.dep_ == "advcl" else None
        _inherit(token, roles, karta_of)
        karta_of[token.i] = roles.karakas.get("KARTA")
        if not roles.karakas and not roles.adjuncts:
            continue
        verb = "be" if token.pos_ == "AUX" else irregular_verb(token.text) if mistagged_verb(token) \
            else token.lemma_.lower()
        item: dict[str, Any] = {
            "verb": verb, "karakas": {r: (v[0] if len(v) == 1 else v) for r, v in roles.karakas.items()},
            "negated": roles.negated, "coreferences": [], "token": token.i, "char": token.idx,
            "dep": token.dep_,
        }
        if roles.adjuncts:
            item["adjuncts"] = roles.adjuncts
        links = [link for link in roles.links if not _crosses_clauses(doc, link["from"], link["to"])]
        if links:
            item["links"] = links
        if roles.types:
            item["types"] = roles.types
        if roles.shapes:
            item["shapes"] = roles.shapes
        found.append(item)
    return found


def analyze_window(lines: dict[int, str]) -> dict[str, Any]:
    """The parser's extraction of numbered sentences, in the GSV kriya schema (parsed in one batch)."""
    numbers = sorted(lines)
    kriyas = []
    for number, doc in zip(numbers, parse_many(lines[n] for n in numbers), strict=True):
        kriyas += [{**item, "line": number} for item in analyze_doc(doc)]
    return {"kriyas": kriyas}


def seed_candidate(analysis: dict[str, Any]) -> dict[str, Any]:
    """The parser's analysis as a GSV candidate: kāraka roles only, in the LLM's schema."""
    return {"kriyas": [{k: v for k, v in item.items() if k in ("line", "verb", "karakas", "negated", "coreferences")}
                       for item in analysis["kriyas"]]}
