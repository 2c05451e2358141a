"""How two clauses of a sentence are tied: a verb that makes, wants or stops another, a comparison or a citation, a clause that serves another; the rules CAUSES and the analyzer share."""


from __future__ import annotations

from spacy.tokens import Token

from karaka.nlp import verb_margin
from karaka.nlp.lexicon import (
    AS_ONE_LIKES,
    AS_ROLE,
    CAUSAL_MARKS,
    CAUSATIVE,
    COMPARING,
    COPULAS,
    PURPOSE_MARKS,
    RAISING,
    REPORTING,
    SO_NOT_RESULT,
    TAKES_TO,
    TIME_MARKS,
    TO_NOUNS,
    UNDOING,
    WANTING,
)
from karaka.nlp.phrases import Roles, clause, has_subject, is_predicate, is_temporal


def expletive_subject(subject: Token, verb: Token) -> bool:
    """Whether "it" only holds the place of a clause put after the verb: "it is clear that …", "it seems that …".

    A copula (or a passive, "it was announced that") whose clause follows; "it helped him to
    recover" names something.
    """
    if subject.lower_ != "it" or not any(c.dep_ in ("ccomp", "xcomp", "csubj") and c.i > verb.i for c in verb.children):
        return False
    return subject.dep_ == "nsubjpass" or verb.lemma_ in COPULAS


def _compares(sub: Token) -> bool:
    """Whether a clause's "as" ends a comparison: "as fast as he could", "twice the size as they worked in"."""
    mark = next((c for c in sub.children if c.dep_ == "mark" and c.lower_ == "as"), None)
    return mark is not None and any(t.lower_ in COMPARING for t in sub.doc[max(0, mark.i - 4):mark.i])


def noun_complement(sub: Token) -> bool:
    """Whether a to-infinitive completes a noun its verb holds, where the parse hangs it on the verb.

    "A decision was made to emphasize the location" and "made a bid to take over" tell what was
    decided and bid, not what the making was for; "hired staff to handle the rush" is a purpose.
    """
    before = sub.doc[sub.i - 2] if sub.i >= 2 and sub.doc[sub.i - 1].tag_ == "TO" else None
    if before is not None and before.lemma_.lower() in TO_NOUNS:
        return True  # "in its endeavours to attain credit", whatever the parse hangs "attain" on
    return any(c.dep_ in ("dobj", "nsubjpass", "attr") and c.lemma_.lower() in TO_NOUNS and c.i < sub.i
               for c in sub.head.children)


def cites_or_compares(sub: Token) -> bool:
    """Whether an "as" clause cites, compares, sets a condition or tells time: it gives no reason.

    "as Heald told the Post", "as fast as he could", "so long as they comply", "as though they
    were", "summarized as follows", a comparison said short: "set as they would be for the
    graph", an action in progress: "as the crowd was leaving" (while it was), and the role
    after a verb that takes one, where the parse reads the role's noun as a subject: "who act as
    stewards have the support".
    """
    if sub.lemma_ in REPORTING or _compares(sub):
        return True
    if sub.tag_ == "VBG" and any(c.dep_ == "aux" and c.lemma_ == "be" for c in sub.children):
        return True
    mark = next((c for c in sub.children if c.dep_ == "mark" and c.lower_ == "as"), None)
    if mark is not None and mark.i + 1 < len(sub.doc) and sub.doc[mark.i + 1].lower_ in ("though", "if"):
        return True
    if mark is not None and mark.i == sub.head.i + 1 and sub.head.lemma_ in AS_ROLE:
        return True  # "individuals who act as security stewards have the support": a role, misparsed as a clause
    if sub.lemma_ == "follow" and not any(c.dep_ in ("dobj", "ccomp") for c in sub.children):
        return True
    if sub.lemma_ in AS_ONE_LIKES:
        return True
    return sub.lemma_ in ("be", "do") and not any(c.dep_ in _COMPLEMENTS for c in sub.children)


_COMPLEMENTS = frozenset({"acomp", "attr", "dobj", "oprd", "xcomp", "ccomp", "advmod", "neg"})


def serves(verb: Token, sub: Token) -> bool:
    """Whether the to-infinitive ``sub``, which the parse hangs on ``verb``, can tell what it is for.

    Not a verb's complement: "the CPU time it takes to encode", "when it comes to filter values",
    "is defined to be mapped"; nor a word the tagger barely took for a verb ("robustness to
    packet loss", "assigns nodes to discrete ranks"); nor a noun's complement (``noun_complement``).
    A purpose said before its verb opens the sentence ("To tune a drawing, set …"): one in its
    middle is another verb's ("started using HAL to discover devices, receive notice …").
    """
    passive = sub.tag_ == "VBN" and any(c.dep_ == "auxpass" for c in sub.children)  # "to be decoded"
    if not (sub.tag_ == "VB" or passive) or not sub.text[:1].isalpha() or noun_complement(sub):
        return False
    if any(c.i < sub.i and (c.tag_ in ("WRB", "WP", "WDT") or c.lower_ == "whether") for c in sub.children):
        return False  # "knows how to take care", "decide what to do": a question, not a purpose
    if verb.lemma_ in ("take", "come") and any(c.dep_ == "nsubj" and c.lower_ == "it" for c in verb.children):
        return False
    if verb.lemma_ in RAISING and any(c.dep_ in ("auxpass", "nsubjpass") for c in verb.children):
        return False
    if verb.lemma_ in TAKES_TO and sub.i > verb.i and all(_says_when(c) for c in verb.children if verb.i < c.i < sub.i):
        return False  # "voted on Monday to close the office": what was voted, not what for
    if sub.lemma_ == "be" and verb.lemma_ not in CAUSATIVE and any(c.dep_ == "dobj" and c.i < sub.i
                                                                      for c in verb.children):
        return False  # "changes the end of the period to be one week": what it becomes
    if sub.i < verb.i and any(t.is_alpha for t in sub.doc[sub.sent.start:sub.left_edge.i]):
        return False
    return passive or verb_margin(sub) >= VERB_MARGIN


def _says_when(token: Token) -> bool:
    """Whether a word between a verb and its to-infinitive only says how or when: "voted yesterday / on Monday to"."""
    if token.dep_ in ("advmod", "npadvmod", "neg", "punct", "aux", "auxpass"):
        return True
    obj = next((c for c in token.children if c.dep_ == "pobj"), None)
    return token.dep_ == "prep" and obj is not None and is_temporal(obj)


VERB_MARGIN = 4.0
"""Log-odds by which the tagger must prefer a verb to a noun before a to-infinitive tells a purpose."""


def by_degree(verb: Token) -> bool:
    """Whether the verb's adjective is "too" or "enough": "too small to pass", "old enough to vote" are no purpose."""
    return any(c.dep_ == "acomp" and any(g.lower_ in ("too", "enough") for g in c.children) for c in verb.children)


def said_before(verb: Token, sub: Token, deps: tuple[str, ...], by_doing: bool = False) -> Token:
    """The clause that a reason or purpose clause ``sub`` explains: the one said just before it.

    Late closure: not the verb that frames that clause. "Note that there is a gap, so data might be
    lost" (a "that" clause, ``ccomp``); "Don't forget to change your PATH so that tox knows" (a
    to-infinitive, ``xcomp``); "created by using the sequences to terminate lines" (a "by doing").
    """
    for child in sorted(verb.children, key=lambda c: -c.i):
        if verb.i < child.i < sub.i:
            if child.dep_ in deps:
                return undone(child)
            if by_doing and child.dep_ in ("prep", "agent") and child.lower_ == "by":
                gerund = next((g for g in child.children if g.dep_ == "pcomp" and g.tag_ == "VBG"), None)
                if gerund is not None:
                    return gerund
    return undone(verb)


def wanted(verb: Token) -> Token:
    """The action a purpose serves, where ``verb`` only wants, needs or tries it.

    "In order to run the tests, you'll want to clone the repository": the cloning is for running
    them, not the wanting.
    """
    action = next((c for c in verb.children if c.dep_ == "xcomp" and c.tag_ == "VB"), None)
    return action if verb.lemma_ in WANTING and action is not None else verb


def undone(verb: Token) -> Token:
    """The verb a reason or purpose explains, where ``verb`` is an action another verb says did not happen.

    "I stopped updating this list because Github does it better" explains the stopping: there is
    no updating for the reason to explain.
    """
    return verb.head if verb.dep_ == "xcomp" and verb.head.lemma_ in UNDOING else verb


def can_link(verb: Token, sub: Token) -> bool:
    """Whether the parse of a reason or purpose clause and its verb is sound enough to link them.

    The clause's head must be a word ("for it's respective column" holds none) and not the first
    part of a hyphenated word ("we don't re-run": "re"). A main verb with a "that" of its own is a
    clause the parse could not attach ("To produce a template, that implementations should
    follow, so that …" has no main verb): what it explains is not said.
    """
    doc = sub.doc
    if not sub.text[:1].isalpha() or (not sub.whitespace_ and sub.i + 1 < len(doc) and doc[sub.i + 1].text == "-"):
        return False
    return not (verb.dep_ == "ROOT" and any(c.dep_ == "mark" for c in verb.children))


def clause_adjunct(roles: Roles, verb: Token, sub: Token) -> None:
    """A subordinate clause of ``verb`` as the adjunct it is: a reason, a purpose, a time, a manner."""
    marks = {c.lower_ for c in sub.children if c.dep_ in ("mark", "advmod") and c.i < sub.i}
    to_inf = any(c.dep_ == "aux" and c.tag_ == "TO" for c in sub.children)
    text = clause(sub)
    if "since" in marks and any(c.dep_ == "aux" and c.lemma_ == "have" for c in verb.children):
        marks = marks - {"since"} | {"after"}  # "has been set up since they became available": time
    linkable = can_link(verb, sub)
    # "for bacteria to pass" is no reason, nor "as Heald told the Post"
    if marks & CAUSAL_MARKS - {"as", "for"} or ("for" in marks and not to_inf) \
            or ("as" in marks and has_subject(sub) and not marks & TIME_MARKS and not cites_or_compares(sub)):
        roles.adjunct("CAUSE", text)
        if linkable and not any(c.lower_ == "otherwise" for c in sub.children):  # "because otherwise X": not X
            roles.links.append({"from": sub.i, "to": said_before(verb, sub, ("ccomp",)).i, "kind": "reason"})
    elif marks & PURPOSE_MARKS or (to_inf and not marks and not by_degree(verb) and not noun_complement(sub)):
        roles.adjunct("PURPOSE", text)
        served = wanted(said_before(verb, sub, ("ccomp", "xcomp"), by_doing=True))
        if linkable and (not to_inf or marks or serves(served, sub)):
            roles.links.append({"from": served.i, "to": sub.i, "kind": "purpose"})
    elif marks & TIME_MARKS:
        roles.adjunct("TIME", text)
    elif "where" in marks:
        roles.adjunct("PLACE", text)
    elif sub.tag_ == "VBG" and not marks:
        roles.adjunct("MANNER", text)
    elif marks:
        roles.adjunct("OTHER", text)


CLAUSE_DEPS = frozenset({"ROOT", "advcl", "conj", "ccomp", "xcomp", "parataxis"})


def made_to_do(verb: Token, sub: Token) -> bool:
    """Whether a causative's complement is what its object was made to do.

    "caused the river to flood", "was persuaded by the staff to extend": the object, or the
    complement's own subject, comes before the complement.
    """
    return verb.lemma_ in CAUSATIVE and sub.dep_ in ("xcomp", "ccomp") and (
        any(c.dep_ in ("dobj", "nsubjpass") and c.i < sub.i for c in verb.children)
        or any(c.dep_ == "nsubj" and c.i < sub.i for c in sub.children))


def brought_about(roles: Roles, verb: Token) -> None:
    """Link a causative to what its object was made to do: "caused the river to flood", "was persuaded to extend"."""
    if verb.lemma_ not in CAUSATIVE:
        return
    for sub in verb.children:
        if sub.dep_ not in ("xcomp", "ccomp") or sub.i < verb.i or not is_predicate(sub) or sub.tag_ != "VB":
            continue
        if any(c.tag_ == "MD" for c in sub.children):
            continue  # "made the Leader may not withdraw": a clause of its own, not what the object was made to do
        if any(c.tag_ == "TO" for c in sub.children) and verb_margin(sub) < VERB_MARGIN:
            continue  # after "to", a word the tagger barely takes for a verb is likely a noun
        if made_to_do(verb, sub) and can_link(verb, sub):
            roles.links.append({"from": verb.i, "to": sub.i, "kind": "result"})


def tells_when(clause_verb: Token) -> bool:
    """Whether a clause only says when its verb's action holds: "defer imports until they are needed"."""
    return clause_verb.dep_ == "advcl" and any(c.dep_ in ("mark", "advmod") and c.lower_ in TIME_MARKS
                                               for c in clause_verb.children if c.i < clause_verb.i)


def so_result(roles: Roles, verb: Token) -> None:
    """Link the clause said before ", so" to the verb the "so" opens: "X, so Y" says X brought Y about.

    The parse often hangs the first clause on the second ("This request does not check the
    field, so applications must be careful": "check" an adverbial clause of "be"), or makes the
    second a conjunct ("…, so it was not easy to extend"), where the adverbial-clause rules see no
    "so". The cause is the clause verb that makes a Kriyā and that the words just before the
    comma belong to (late closure: "The value you want to change is stored deep in the stack, so
    you need to pass it" is the storing, not the wanting or changing; not a clause that only
    tells when: "defer imports until they are needed, so there is no overhead" is the
    deferring), or the action it says did not happen.
    """
    doc = verb.doc
    for so in verb.children:
        if so.lower_ != "so" or so.dep_ not in ("mark", "cc", "advmod") or so.i < 2 or doc[so.i - 1].text != ",":
            continue
        if so.i + 1 < len(doc) and doc[so.i + 1].lower_ in SO_NOT_RESULT:
            continue
        if so.dep_ == "cc":
            effect = next((c for c in verb.children if c.dep_ == "conj" and c.i > so.i and c.pos_ in ("VERB", "AUX")), None)
        else:
            effect = verb if so.i < verb.i and verb.dep_ != "advcl" else None  # an adverbial clause: clause_adjunct
        cause = doc[so.i - 2]
        while not (is_predicate(cause) and cause.dep_ in CLAUSE_DEPS and not tells_when(cause)) \
                and cause.head != cause:
            cause = cause.head
        if effect is None or not is_predicate(cause) or not cause.i < so.i < effect.i:
            continue
        if can_link(cause, effect):
            roles.links.append({"from": undone(cause).i, "to": effect.i, "kind": "result"})


def infinitive_object(roles: Roles, verb: Token) -> None:
    """What a verb with no object takes as one in a to-infinitive: "learned to observe …", "refused to sell the mill".

    The parse calls such a complement ``xcomp``; a purpose ("went to buy bread") it calls ``advcl``.
    """
    if "KARMA" in roles.karakas:
        return
    for child in verb.children:
        if child.dep_ == "xcomp" and child.i > verb.i and child.tag_ == "VB" and any(
                c.dep_ == "aux" and c.tag_ == "TO" for c in child.children):
            roles.put("KARMA", clause(child), is_clause=True)
            return
