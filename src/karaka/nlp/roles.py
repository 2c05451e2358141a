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

import re
from typing import Any

from spacy.tokens import Doc, Token

from karaka.nlp import parse, parse_many, verb_margin
from karaka.nlp.people import names_people

PREP_ROLES = {
    **dict.fromkeys(["with", "using", "via"], "KARANA"),
    **dict.fromkeys(["from", "out"], "APADANA"),
    **dict.fromkeys(
        ["in", "at", "on", "near", "inside", "into", "onto", "under", "over", "within", "across",
         "through", "behind", "beside", "outside", "around", "along", "above", "below",
         "beneath", "between", "among", "throughout", "toward", "towards", "upon"],
        "ADHIKARANA_SPATIAL",
    ),
    **dict.fromkeys(["during", "before", "after", "since", "until", "till", "following", "prior"],
                    "ADHIKARANA_TEMPORAL"),
    **dict.fromkeys(["to", "for"], "SAMPRADANA"),
}
PREPOSITIONAL_ROLES = frozenset({"KARANA", "APADANA", "SAMPRADANA", "ADHIKARANA_SPATIAL", "ADHIKARANA_TEMPORAL"})
TEMPORAL_WORDS = frozenset(
    "today yesterday tomorrow tonight morning evening night noon midnight afternoon dawn dusk "
    "day days week weeks month months year years decade decades century centuries hour hours "
    "minute minutes moment time times season summer winter spring autumn era age period "
    "monday tuesday wednesday thursday friday saturday sunday january february march april may "
    "june july august september october november december weekend".split()
)
ANIMATE_PRONOUNS = frozenset("me you him her us them whom who someone everyone anyone".split())
RELATIVE = frozenset({"who", "whom", "which", "that", "whose"})
OBJECT_CONTROL = frozenset(
    "ask tell order force persuade urge allow permit enable encourage require invite advise warn instruct compel "
    "cause lead get want expect need help teach remind convince beg challenge forbid".split()
)
CAUSAL_MARKS = frozenset({"because", "since", "as", "for", "cause"})
PURPOSE_MARKS = frozenset({"so", "order"})
TIME_MARKS = frozenset({"when", "after", "before", "while", "until", "till", "once", "whenever", "as soon as"})
CAUSAL_PREPS = frozenset({"because", "due", "owing", "thanks"})
TIME_ADVERBS = frozenset(
    "sometimes often always usually frequently rarely seldom occasionally once twice now then soon later earlier "
    "recently currently previously formerly originally eventually finally subsequently meanwhile already "
    "afterwards afterward beforehand lately nowadays annually daily weekly monthly yearly initially "
    "immediately again still ever".split()
)
SENTENCE_ADVERBS = frozenset(  # they comment on the whole statement; they say nothing of how it was done
    "hopefully reportedly allegedly apparently supposedly specifically particularly especially mainly mostly largely "
    "primarily partly partially simply actually really certainly probably possibly perhaps clearly obviously "
    "fortunately unfortunately similarly additionally consequently generally typically essentially basically merely "
    "solely likely unlikely indeed furthermore moreover accordingly thereby notably importantly arguably "
    "ultimately overall".split()
)
NOT_MANNER = frozenset(
    "not n't never also only just even too very so thus therefore however here there yet more most less least "
    "rather quite almost nearly first instead otherwise".split()
) | TIME_ADVERBS | SENTENCE_ADVERBS
SPATIAL_PREPS = frozenset(PREP_ROLES[p] == "ADHIKARANA_SPATIAL" and p or "" for p in PREP_ROLES) - {""}
TEMPORAL_PREPS = frozenset(p for p, r in PREP_ROLES.items() if r == "ADHIKARANA_TEMPORAL")
_SPAN_EDGE = re.compile(r"^[\s,;:.!?]+|[\s,;:]+$")


def is_temporal(token: Token) -> bool:
    """A time expression: a DATE/TIME entity or a temporal noun."""
    return token.ent_type_ in ("DATE", "TIME") or token.lemma_.lower() in TEMPORAL_WORDS


CLAUSE, PLURAL, NOT_A_PERSON, GROUP = "clause", "plural", "not-a-person", "group"


_QUANTITIES = frozenset("lot lots number couple handful majority minority rest half part percent dozen score bunch "
                        "plenty variety host".split())


def shape_of(head: Token) -> str:
    """What a pronoun needs to know of a phrase, from its head: plural, not a person, a group, or "".

    "plural": "twelve people" (never "she" or "it"); "not-a-person", never "he", "she" or "they":
    a gerund ("swimming"), a time, a place, a number, or a singular common noun that names no
    person ("the backpack"; ``people.names_people``); "group": "the government" ("they" or "it",
    never "she"). A clause a role holds ("we knew") is marked "clause" where it is read (``put``).
    """
    if head.lemma_.lower() in _QUANTITIES:  # "a lot of people" is as many as its people
        inner = next((g for c in head.children if c.dep_ == "prep" and c.lower_ == "of"
                      for g in c.children if g.dep_ == "pobj"), None)
        if inner is not None:
            return shape_of(inner)
    if head.tag_ in ("NNS", "NNPS") or any(c.dep_ == "nummod" and c.like_num and c.i < head.i and c.lower_ not in
                                           ("one", "1") for c in head.children):  # "Article 79" is one article
        return PLURAL
    if head.tag_ == "VBG" or is_temporal(head) or head.ent_type_ not in ("", "PERSON", "NORP", "ORG"):
        return NOT_A_PERSON
    kind = names_people(head.lemma_ or head.text)
    if kind == "group":  # "the government", and "the Committee", "the Labour Party" too
        return GROUP
    return NOT_A_PERSON if head.pos_ == "NOUN" and not head.ent_type_ and not kind else ""


def has_subject(verb: Token) -> bool:
    """Whether a verb has its own subject: "as he was tired" does, "as contrasted with" does not."""
    return any(c.dep_ in ("nsubj", "nsubjpass", "expl") for c in verb.children)


def is_animate(token: Token) -> bool:
    """People, organisations, nations, and personal pronouns."""
    return token.ent_type_ in ("PERSON", "ORG", "NORP", "GPE") or token.lower_ in ANIMATE_PRONOUNS


def _text(tokens: list[Token]) -> str:
    """The tokens' words as written, with words that did not follow each other kept apart.

    "None, the format and bytes-after" less its coordination is "None after", not "Noneafter".
    """
    gaps = [" " if not t.whitespace_ and nxt.i != t.i + 1 else "" for t, nxt in zip(tokens, tokens[1:], strict=False)]
    text = "".join(t.text_with_ws + gap for t, gap in zip(tokens, [*gaps, ""], strict=True)).strip()
    return _SPAN_EDGE.sub("", text)


SPAN_SKIP = frozenset({"conj", "cc", "relcl", "appos", "punct", "advcl", "parataxis", "dep"})


def span(token: Token, skip: frozenset[str] = SPAN_SKIP) -> str:
    """The phrase headed by ``token``: its subtree without coordinated, relative and appositive parts."""
    keep = {token.i}
    for child in token.children:
        if child.dep_ in skip and not (child.dep_ == "punct" and child.i > token.i and child.text in "%'"):
            continue
        keep.update(t.i for t in child.subtree)
    lo, hi = min(keep), max(keep)
    return _text([t for t in token.doc[lo:hi + 1] if t.i in keep])


def clause(token: Token) -> str:
    """A whole clause or prepositional phrase: the token's full subtree."""
    return _text(list(token.subtree))


def _with_conjuncts(token: Token) -> list[Token]:
    out, frontier = [token], [token]
    while frontier:
        node = frontier.pop()
        for child in node.children:
            if child.dep_ == "conj" and child.pos_ in ("NOUN", "PROPN", "PRON", "NUM"):
                out.append(child)
                frontier.append(child)
    return out


class _Roles:
    """Roles and adjuncts of one predicate, spans in order of discovery, no duplicates."""

    def __init__(self) -> None:
        self.karakas: dict[str, list[str]] = {}
        self.adjuncts: dict[str, list[str]] = {}
        self.links: list[dict[str, Any]] = []
        self.types: dict[str, str] = {}  # span → its head's named-entity label (PERSON, GPE, DATE…)
        self.shapes: dict[str, str] = {}  # span → what a pronoun needs of it (``shape_of``)
        self.negated = False

    def add(self, role: str, token: Token, prep: Token | None = None) -> None:
        for tok in _with_conjuncts(token):
            if tok.lower_ in RELATIVE and tok.tag_ in ("WDT", "WP", "WP$"):
                continue  # a relative pronoun is never an entity; its noun comes in its place
            text = span(tok)
            text = f"{prep.text} {text}" if prep is not None and tok is token else text
            self.put(role, text)
            if tok.ent_type_:
                self.types[text] = tok.ent_type_
            self.shapes[text] = shape_of(tok)

    def put(self, role: str, text: str, is_clause: bool = False) -> None:
        if text and text not in self.karakas.setdefault(role, []):
            self.karakas[role].append(text)
        if is_clause and text:
            self.shapes[text] = CLAUSE

    def adjunct(self, kind: str, text: str) -> None:
        if text and text not in self.adjuncts.setdefault(kind, []):
            self.adjuncts[kind].append(text)


def _prep_role(prep: Token, obj: Token) -> str | None:
    word = prep.lower_
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
        if is_animate(obj):
            return role
        return "ADHIKARANA_TEMPORAL" if is_temporal(obj) else None
    if role == "ADHIKARANA_SPATIAL" and is_temporal(obj):
        return "ADHIKARANA_TEMPORAL"
    return role


def _pobj(prep: Token) -> Token | None:
    for child in prep.children:
        if child.dep_ in ("pobj", "pcomp") and child.pos_ != "VERB":
            return child
        if child.dep_ == "prep":  # "out of", "because of", "by means of"
            return _pobj(child)
    return None


def _is_predicate(token: Token) -> bool:
    if token.pos_ == "VERB":
        return token.dep_ not in ("aux", "auxpass", "amod")
    return token.pos_ == "AUX" and token.dep_ in ("ROOT", "conj", "ccomp", "advcl", "relcl") and any(
        c.dep_ in ("attr", "acomp") for c in token.children
    )


def _copula_subject(noun: Token) -> Token | None:
    """For the attr of "X is a film directed by Y", the X."""
    head = noun.head
    if noun.dep_ == "attr" and head.lemma_ == "be":
        return next((c for c in head.children if c.dep_ == "nsubj"), None)
    return None


def _in_order_to(roles: _Roles, prep: Token, order: Token) -> None:
    """Link "in order to V" as a purpose of the verb it serves, always.

    "would have to grow … in order to avoid a recession": the growing is for it, not the having.
    """
    purpose = next((c for c in order.children if c.dep_ == "acl" and c.pos_ == "VERB"), None)
    if purpose is None:
        return
    served = wanted(_said_before(prep.head, prep, ("xcomp",)))
    roles.links.append({"from": served.i, "to": purpose.i, "kind": "purpose"})


def _prep_phrase(roles: _Roles, prep: Token) -> None:
    word = prep.lower_
    obj = _pobj(prep)
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
    if obj is None:
        return
    role = _prep_role(prep, obj)
    if role:
        roles.add(role, obj, prep if role in PREPOSITIONAL_ROLES and role != "SAMPRADANA" else None)
    elif word == "for":
        roles.adjunct("PURPOSE", clause(prep))
    else:  # "convicted of murder", "as players", "against the Netherlands"
        roles.adjunct("OTHER", clause(prep))


_REPORTING = frozenset("say tell report note write explain put state show suggest claim add expect declare announce "
                       "argue insist predict promise mention observe point confirm recall warn admit acknowledge "
                       "reveal describe".split())
"""Verbs of an "as" that cites rather than explains: "as Heald told the Post" is no reason."""


_COPULAS = frozenset("be seem appear become remain happen".split())


def _expletive(subject: Token, verb: Token) -> bool:
    """Whether "it" only holds the place of a clause put after the verb: "it is clear that …", "it seems that …".

    A copula (or a passive, "it was announced that") whose clause follows; "it helped him to
    recover" names something.
    """
    if subject.lower_ != "it" or not any(c.dep_ in ("ccomp", "xcomp", "csubj") and c.i > verb.i for c in verb.children):
        return False
    return subject.dep_ == "nsubjpass" or verb.lemma_ in _COPULAS


_COMPARING = frozenset("as same such twice thrice times size much many more less long insofar".split())


def _compares(sub: Token) -> bool:
    """Whether a clause's "as" ends a comparison: "as fast as he could", "twice the size as they worked in"."""
    mark = next((c for c in sub.children if c.dep_ == "mark" and c.lower_ == "as"), None)
    return mark is not None and any(t.lower_ in _COMPARING for t in sub.doc[max(0, mark.i - 4):mark.i])


TO_NOUNS = frozenset("decision attempt effort endeavour endeavor quest plan promise offer request order bid move "
                     "choice agreement commitment proposal need right chance opportunity ability capacity reason "
                     "permission willingness refusal failure desire wish intention determination tendency urge motion "
                     "vote campaign push drive pledge threat demand invitation mandate authority power freedom".split())
"""Nouns a to-infinitive completes: "a decision to emphasize", "an attempt to climb"."""


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
    if sub.lemma_ in _REPORTING or _compares(sub):
        return True
    if sub.tag_ == "VBG" and any(c.dep_ == "aux" and c.lemma_ == "be" for c in sub.children):
        return True
    mark = next((c for c in sub.children if c.dep_ == "mark" and c.lower_ == "as"), None)
    if mark is not None and mark.i + 1 < len(sub.doc) and sub.doc[mark.i + 1].lower_ in ("though", "if"):
        return True
    if mark is not None and mark.i == sub.head.i + 1 and sub.head.lemma_ in _AS_ROLE:
        return True  # "individuals who act as security stewards have the support": a role, misparsed as a clause
    if sub.lemma_ == "follow" and not any(c.dep_ in ("dobj", "ccomp") for c in sub.children):
        return True
    if sub.lemma_ in _AS_ONE_LIKES:
        return True
    return sub.lemma_ in ("be", "do") and not any(c.dep_ in _COMPLEMENTS for c in sub.children)


_AS_ROLE = frozenset("act serve work function double pose masquerade qualify rank count use know regard describe "
                     "treat define refer view".split())
"""Verbs an "as" right after gives a role: "act as a steward", "is used as a key", "known as Ram"."""

_AS_ONE_LIKES = frozenset("see wish like please choose want stand".split())
"""Verbs of an "as" that tells a manner: "as they see fit", "as you wish", "as it currently stands"."""

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
    if verb.lemma_ in _RAISING and any(c.dep_ in ("auxpass", "nsubjpass") for c in verb.children):
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


TAKES_TO = frozenset("be have want need try plan hope seem appear indicate expect ask tell decide agree begin start continue "
                      "fail refuse consider believe like love hate prefer promise threaten intend manage learn "
                      "choose offer order allow force urge report say claim forbid permit enable encourage invite "
                      "advise instruct remind teach require warn beg oblige prohibit authorize authorise vote".split())
"""Verbs whose "to" + verb is what is wanted, said, tried, allowed or owed, not a purpose ("wanted to go",
"has to grow", "forbid them to share")."""

_RAISING = frozenset("say know believe think consider expect suppose assume report find show deem define claim "
                     "presume allege estimate understand require rumour rumor".split())
"""Verbs whose passive takes a to-infinitive as its complement: "is defined to be mapped", "is said to have"."""

CAUSATIVE = frozenset("force cause compel make lead get drive push persuade convince induce prompt".split())
"""Verbs whose object does what follows: "forces the drawing to be bigger", "caused meltwater to enter"."""

VERB_MARGIN = 4.0
"""Log-odds by which the tagger must prefer a verb to a noun before a to-infinitive tells a purpose."""


def _degree(verb: Token) -> bool:
    """Whether the verb's adjective is "too" or "enough": "too small to pass", "old enough to vote" are no purpose."""
    return any(c.dep_ == "acomp" and any(g.lower_ in ("too", "enough") for g in c.children) for c in verb.children)


def _said_before(verb: Token, sub: Token, deps: tuple[str, ...], by_doing: bool = False) -> Token:
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


_UNDOING = frozenset("stop quit cease refuse fail avoid decline abandon".split())
"""Verbs that say their complement did not happen: "stopped updating", "refused to pay"."""


_WANTING = frozenset("want need have try wish hope plan intend".split())
"""Verbs whose to-infinitive is the action itself: "you'll want to clone", "you need to go through"."""


def wanted(verb: Token) -> Token:
    """The action a purpose serves, where ``verb`` only wants, needs or tries it.

    "In order to run the tests, you'll want to clone the repository": the cloning is for running
    them, not the wanting.
    """
    action = next((c for c in verb.children if c.dep_ == "xcomp" and c.tag_ == "VB"), None)
    return action if verb.lemma_ in _WANTING and action is not None else verb


def undone(verb: Token) -> Token:
    """The verb a reason or purpose explains, where ``verb`` is an action another verb says did not happen.

    "I stopped updating this list because Github does it better" explains the stopping: there is
    no updating for the reason to explain.
    """
    return verb.head if verb.dep_ == "xcomp" and verb.head.lemma_ in _UNDOING else verb


def _linkable(verb: Token, sub: Token) -> bool:
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


def _clause_adjunct(roles: _Roles, verb: Token, sub: Token) -> None:
    marks = {c.lower_ for c in sub.children if c.dep_ in ("mark", "advmod") and c.i < sub.i}
    to_inf = any(c.dep_ == "aux" and c.tag_ == "TO" for c in sub.children)
    text = clause(sub)
    if "since" in marks and any(c.dep_ == "aux" and c.lemma_ == "have" for c in verb.children):
        marks = marks - {"since"} | {"after"}  # "has been set up since they became available": time
    linkable = _linkable(verb, sub)
    # "for bacteria to pass" is no reason, nor "as Heald told the Post"
    if marks & CAUSAL_MARKS - {"as", "for"} or ("for" in marks and not to_inf) \
            or ("as" in marks and has_subject(sub) and not marks & TIME_MARKS and not cites_or_compares(sub)):
        roles.adjunct("CAUSE", text)
        if linkable and not any(c.lower_ == "otherwise" for c in sub.children):  # "because otherwise X": not X
            roles.links.append({"from": sub.i, "to": _said_before(verb, sub, ("ccomp",)).i, "kind": "reason"})
    elif marks & PURPOSE_MARKS or (to_inf and not marks and not _degree(verb) and not noun_complement(sub)):
        roles.adjunct("PURPOSE", text)
        served = wanted(_said_before(verb, sub, ("ccomp", "xcomp"), by_doing=True))
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


def _roles_of(verb: Token) -> _Roles:
    roles = _Roles()
    for child in verb.children:
        dep = child.dep_
        if dep == "neg":
            roles.negated = True
        elif dep in ("nsubj", "nsubjpass") and _expletive(child, verb):
            continue  # "It is reasonable to assume …", "it was announced that …": no participant
        elif dep in ("nsubj", "csubj") and child.pos_ != "VERB":
            roles.add("KARTA", child)
        elif dep == "csubj":
            roles.put("KARTA", clause(child), is_clause=True)
        elif dep == "nsubjpass":
            roles.add("KARMA", child)
        elif dep == "agent":
            obj = _pobj(child)
            if obj is not None:
                roles.add("KARTA", obj)
        elif dep in ("dobj", "obj", "attr", "oprd") and child.pos_ != "VERB":
            roles.add("KARMA", child)
        elif dep == "ccomp":
            roles.put("KARMA", clause(child), is_clause=True)
        elif dep in ("dative", "iobj"):
            obj = _pobj(child) if child.pos_ == "ADP" else child
            if obj is not None:
                roles.add("SAMPRADANA", obj)
        elif dep == "prep":
            _prep_phrase(roles, child)
        elif dep == "advcl":
            _clause_adjunct(roles, verb, child)
        elif dep in ("npadvmod", "advmod", "obl") and is_temporal(child):
            if child.lower_ in TEMPORAL_WORDS or child.ent_type_ in ("DATE", "TIME") or child.pos_ in ("NOUN", "PROPN"):
                roles.put("ADHIKARANA_TEMPORAL", span(child))
        elif dep == "advmod" and child.lower_ in TIME_ADVERBS:
            roles.adjunct("TIME", span(child))
        elif dep == "advmod" and child.pos_ == "ADV" and child.lower_ not in NOT_MANNER and child.lower_ not in TEMPORAL_WORDS:
            if child.lower_.endswith("ly") or child.lower_ in ("well", "hard", "fast", "together", "alone", "back", "up",
                                                                 "down", "away", "abroad", "home"):
                roles.adjunct("MANNER", span(child))
        elif dep == "prt":  # "turn it over again", "moved up three"
            tail = [t for t in verb.doc[child.i + 1: child.i + 2] if t.head in (verb, child) and
                    t.dep_ in ("advmod", "npadvmod", "nummod", "quantmod")]
            roles.adjunct("MANNER", _text([*child.subtree, *(list(tail[0].subtree) if tail else [])]))
        elif dep == "acomp":
            roles.adjunct("MANNER", span(child, skip=SPAN_SKIP | {"prep"}))
    _so_result(roles, verb)
    _brought_about(roles, verb)
    _nested(roles, verb)
    return roles


_CLAUSE_DEPS = frozenset({"ROOT", "advcl", "conj", "ccomp", "xcomp", "parataxis"})
_SO_NOT_RESULT = frozenset("far long much many few called as".split())
"""Words after "so" that make it no connective: "so far", "so long as", "so called", "so as to"."""


def made_to_do(verb: Token, sub: Token) -> bool:
    """Whether a causative's complement is what its object was made to do.

    "caused the river to flood", "was persuaded by the staff to extend": the object, or the
    complement's own subject, comes before the complement.
    """
    return verb.lemma_ in CAUSATIVE and sub.dep_ in ("xcomp", "ccomp") and (
        any(c.dep_ in ("dobj", "nsubjpass") and c.i < sub.i for c in verb.children)
        or any(c.dep_ == "nsubj" and c.i < sub.i for c in sub.children))


def _brought_about(roles: _Roles, verb: Token) -> None:
    """Link a causative to what its object was made to do: "caused the river to flood", "was persuaded to extend"."""
    if verb.lemma_ not in CAUSATIVE:
        return
    for sub in verb.children:
        if sub.dep_ not in ("xcomp", "ccomp") or sub.i < verb.i or not _is_predicate(sub) or sub.tag_ != "VB":
            continue
        if any(c.tag_ == "MD" for c in sub.children):
            continue  # "made the Leader may not withdraw": a clause of its own, not what the object was made to do
        if any(c.tag_ == "TO" for c in sub.children) and verb_margin(sub) < VERB_MARGIN:
            continue  # after "to", a word the tagger barely takes for a verb is likely a noun
        if made_to_do(verb, sub) and _linkable(verb, sub):
            roles.links.append({"from": verb.i, "to": sub.i, "kind": "result"})


def _tells_when(clause_verb: Token) -> bool:
    """Whether a clause only says when its verb's action holds: "defer imports until they are needed"."""
    return clause_verb.dep_ == "advcl" and any(c.dep_ in ("mark", "advmod") and c.lower_ in TIME_MARKS
                                               for c in clause_verb.children if c.i < clause_verb.i)


def _so_result(roles: _Roles, verb: Token) -> None:
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
        if so.i + 1 < len(doc) and doc[so.i + 1].lower_ in _SO_NOT_RESULT:
            continue
        if so.dep_ == "cc":
            effect = next((c for c in verb.children if c.dep_ == "conj" and c.i > so.i and c.pos_ in ("VERB", "AUX")), None)
        else:
            effect = verb if so.i < verb.i and verb.dep_ != "advcl" else None  # an adverbial clause: _clause_adjunct
        cause = doc[so.i - 2]
        while not (_is_predicate(cause) and cause.dep_ in _CLAUSE_DEPS and not _tells_when(cause)) \
                and cause.head != cause:
            cause = cause.head
        if effect is None or not _is_predicate(cause) or not cause.i < so.i < effect.i:
            continue
        if _linkable(cause, effect):
            roles.links.append({"from": undone(cause).i, "to": effect.i, "kind": "result"})


def _nested(roles: _Roles, verb: Token) -> None:
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
                obj = _pobj(token)
                if obj is None:
                    continue
                word = token.lower_
                if word in TEMPORAL_PREPS or (word in ("in", "on", "at", "by") and is_temporal(obj)):
                    roles.adjunct("TIME", clause(token))
                elif word in SPATIAL_PREPS and obj.ent_type_ in ("GPE", "LOC", "FAC", "ORG"):
                    roles.adjunct("PLACE", clause(token))
            elif token.dep_ in ("acl", "relcl", "advcl") and any(c.dep_ == "aux" and c.tag_ == "TO" for c in token.children):
                roles.adjunct("PURPOSE", clause(token))


def _relative_adverb(verb: Token, roles: _Roles) -> bool:
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


def _modified_noun(verb: Token, roles: _Roles) -> None:
    """A relative clause or participle takes the noun it modifies in the role its gap stands for."""
    if verb.dep_ not in ("relcl", "acl") or _relative_adverb(verb, roles):
        return
    noun = verb.head
    subject = _copula_subject(noun)
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


def _inherit(token: Token, roles: _Roles, karta_of: dict[int, list[str] | None]) -> None:
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
        if not _is_predicate(token):
            continue
        roles = _roles_of(token)
        _modified_noun(token, roles)
        _relative_adverb(token, roles) if token.dep_ == "advcl" else None
        _inherit(token, roles, karta_of)
        karta_of[token.i] = roles.karakas.get("KARTA")
        if not roles.karakas and not roles.adjuncts:
            continue
        verb = "be" if token.pos_ == "AUX" else token.lemma_.lower()
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
