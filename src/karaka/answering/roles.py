"""Candidates from the roles of the question's action in the graph: the Kriyā of its verb whose roles match what the question names, with a pronoun's antecedent."""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator
from typing import Any

from karaka.answering import kinds as k
from karaka.answering.antecedents import antecedent, antecedent_line, named_earlier
from karaka.answering.candidate import GRAPH, Candidate
from karaka.answering.evidence import OWN_WORDS, weigh
from karaka.answering.line import DETERMINERS, Line
from karaka.answering.mood import denied
from karaka.answering.naming import focus_near
from karaka.answering.narrator import SELF
from karaka.answering.question import CODE_TOKEN, Asked
from karaka.answering.span import REASON_OPENERS, Span
from karaka.answering.stems import key, same
from karaka.kg.traverse import PREFERENCES, content, coverage, entities_named, spans_of
from karaka.nlp import irregular_verb
from karaka.nlp.lexicon import ASPECT_ADVERBS, PREPOSITION_NOUNS, head_word, names_people
from karaka.nlp.paths import PATH
from karaka.store.base import Store
from karaka.words import ANAPHORIC_PRONOUNS, FUNCTION_WORDS, HUMAN_PRONOUNS, PRONOUNS, WORD

MUTUAL = frozenset(key(verb) for verb in "marry wed meet divorce".split())
"""Verbs (as match keys) whose doer and object say the same when they change places: "Ivo married Lena" says whom
Lena married."""


def role_candidates(store: Store, asked: Asked, step: dict[str, Any] | None, line: Line,
                    rarity: Callable[[str], float] | None = None) -> Iterator[Candidate]:
    """Role spans of the line's actions whose verb is the question's, and of a mutual action read the other way."""
    yield from _role_candidates(store, asked, step, line, rarity)
    if (turned := _turned(step)) is not None:
        yield from _role_candidates(store, asked, turned, line, rarity, turned=True)


def _turned(step: dict[str, Any] | None) -> dict[str, Any] | None:
    """A step on a mutual action with its doer and object changed places: "whom did Lena marry?" as "who married Lena?"."""
    karakas = dict((step or {}).get("karakas") or {})
    swap = {"KARTA": "KARMA", "KARMA": "KARTA"}
    extract = str((step or {}).get("extract") or "")
    if not step or key(str(step.get("verb") or "")) not in MUTUAL or extract not in swap or \
            set(karakas) != {swap[extract]}:
        return None
    return {**step, "karakas": {extract: karakas[swap[extract]]}, "extract": swap[extract]}


def _role_candidates(store: Store, asked: Asked, step: dict[str, Any] | None, line: Line,
                     rarity: Callable[[str], float] | None = None, turned: bool = False) -> Iterator[Candidate]:
    """Role spans of the line's actions whose verb is the step's.

    ``turned``: the step reads a mutual action the other way, and the role must be what the question
    names ("Lena"), not a phrase that mentions it among other words.
    """
    if not step or not step.get("verb") or not asked.verb:
        return
    want = key(str(step.get("verb")))
    extract = str(step.get("extract") or "KARMA")
    order = PREFERENCES.get(extract, [("role", extract)])
    prep = str(step.get("prep") or "").lower()
    named, who = arguments(store, step)
    for kriya in store.graph.neighbors(line.node, "CITED_IN", "in"):
        attrs = store.graph.node(kriya) or {}
        if not of_verb(attrs, want) or asked.particle and not _with_particle(line, want, asked.particle):
            continue  # "make up" is not the "make" of "make sure"
        all_spans = spans_of(store, kriya)
        all_spans += controller(line, attrs, all_spans)
        verb = _verb_token(line, attrs)  # "was unable to marry her": a denied action is a negated one
        negated = bool(attrs.get("negated")) or verb is not None and bool(denied(verb))
        me = line.words.narrator
        missing = [value for role, value in named
                   if _contradicted(role, value, who[value], all_spans, line.text, line.words.previous_text, me)
                   or turned and not any(s[:2] == ("role", role) and (s[3] in who[value] or _holds(value, s[2], False))
                                         for s in all_spans)]
        referred = " ".join(value for _, value in named if any(  # "he", linked to the Tomas asked about
            entity in who[value] and text.lower() in PRONOUNS and antecedent(store, entity, line.node)
            or _narrator(text, value, me) for _, _, text, entity in all_spans))
        stranded = [s for s in all_spans if prep and s[2].lower().startswith(prep + " ")]  # "what did it lead to?"
        means = [("role", "KARANA")] if extract == "KARTA" and asked.kind != k.NAME and not any(
            s[:2] == ("role", "KARTA") for s in all_spans) else []  # "encrypted with AES-256" names what encrypts
        for _, name, text, entity in list(dict.fromkeys(stranded + [s for pref in order + means for s in all_spans
                                                                     if (s[0], s[1]) == pref])):
            text = _whole_code(line.text, text)  # "X11Trans" of "_X11Trans", as the tokenizer cut it
            plain = PATH.sub(" ", CODE_TOKEN.sub(" ", text))  # "index" of ".quill/index.db" is no "the index"
            if re.search(r"[<(\[{]\s*$", text):
                continue  # "at <" of "at <https://…>", cut at the bracket: what it names is not in it
            if any((coverage(n, plain) >= 0.5 or entity in who[n]) and _headed_by(n, text, line)
                   or coverage(plain, n) >= 0.8 for _, n in named):  # "the flag to gcc" is no "gcc"
                continue  # the question's own argument, not what the action says of it
            text = _with_conjuncts(line, text) if asked.kind in (k.NAME, k.TERM) else text
            at = line.text.find(text)
            span = Span(text, asked.kind, max(at, 0), max(at, 0) + len(text), *_token_range(line, at, len(text)))
            evidence = weigh(asked, span, line.words, line.doc, rarity=rarity, referred=referred, role=True)
            evidence.typed = True
            refers = me if me and text.lower() in SELF else \
                antecedent(store, entity, line.node) if text.lower() in PRONOUNS else ""  # the narrator's "I" is its name
            introduced = named_earlier(store, line, text) if asked.kind == k.NAME and not refers else None
            if introduced is not None:
                refers = introduced[0]
            if negated != asked.negated:  # "must not contain" answers "what must it not contain?"
                evidence.why_not = "the line says the action did not happen" if negated else \
                    "the line says the action happened, the question asks what it did not"
            elif missing:
                evidence.why_not = f"the action names another {', '.join(missing[:3])}"
            elif not _role_fits(asked, name, text, entity, store):
                evidence.why_not = f"{text!r} is not a {asked.kind}"
                evidence.typed = False
            elif text.lower() in PRONOUNS and not refers:
                evidence.why_not = f"{text!r} stands for someone the line and the one before it do not name"
            elif refers and any(coverage(value, refers) >= 0.5 for _, value in named):
                evidence.why_not = OWN_WORDS  # "I picked myself up" names no one who picked Ishmael up
            elif asked.kind == k.TERM and asked.focus and not focus_near(asked, span, line.words, line.doc) \
                    and not _named_thing(line, span):
                evidence.why_not = f"the line does not say {text!r} is a {asked.focus_text}"
                evidence.typed = False
            elif evidence.why_not == "the line does not say it is what was asked about" \
                    or evidence.why_not == OWN_WORDS and not _all_asked(asked, text):
                evidence.why_not = f"the line lacks {', '.join(evidence.missing)}" if evidence.missing else ""  # a role
                # of the question's own action is its kind, as the action says, where the line holds what the question names
            evidence.notes.insert(0, f"{name} of {attrs.get('verb')}")
            yield Candidate(text, name, line.node, GRAPH, evidence, rank=line.rank, refers_to=refers,
                            also=([line.intro] if line.intro else []) + (
                                [introduced[1]] if introduced is not None else antecedent_line(store, entity, refers)))


_SUBJECT = ("nsubj", "nsubjpass")
_PERSONAL = frozenset("he she they i".split())
"""Pronouns a doer named before may stand for ("you" and "it" stand for the reader and the tool alike)."""


def _verb_token(line: Line, attrs: dict[str, Any]) -> Any | None:
    """The parse's token of a Kriyā's verb, found by where the verb stands in the line."""
    at = attrs.get("char")
    if line.doc is None or not isinstance(at, int):
        return None
    return next((t for t in line.doc if t.idx == at), None)


def controller(line: Line, attrs: dict[str, Any], spans: list[Any]) -> list[Any]:
    """The doer the parse gives an action with none of its own: the named subject of the verb it depends on.

    "Ivo was unable to sell the boat", "Ivo wanted to sell it": Ivo sells. An infinitive's doer is not
    written, so the extractor gives its action no kartā; the line still says who does it, and someone
    else named in the line ("… than his choosing Lena") is not. Only a name or a personal pronoun: a
    verb with an object of its own ("Mara asked Ivo to sell it", "uses curl to fetch it") or a doer
    written "you" or "it" leaves the doer to the reader, as before.
    """
    verb = _verb_token(line, attrs)
    if verb is None or verb.dep_ != "xcomp" or any(s[:2] == ("role", "KARTA") for s in spans):
        return []
    governor = verb.head
    while governor.dep_ in ("acomp", "xcomp") and not any(c.dep_ in _SUBJECT for c in governor.children):
        governor = governor.head  # "was unable to sell": the subject of "was"
    if any(c.dep_ == "dobj" for c in governor.children):
        return []
    doer = next((c for c in governor.children if c.dep_ in _SUBJECT), None)
    if doer is None or not (doer.pos_ == "PROPN" or doer.lower_ in _PERSONAL):
        return []
    return [("role", "KARTA", verb.doc[doer.left_edge.i:doer.right_edge.i + 1].text, None)]


def arguments(store: Store, step: dict[str, Any] | None) -> tuple[list[tuple[str, str]], dict[str, set[str]]]:
    """The (role, value) pairs a plan step names (not a previous step's "$1"), and the entities each value may name."""
    named = [(role, str(value)) for role, value in ((step or {}).get("karakas") or {}).items()
             if value and not str(value).startswith("$")]
    return named, {value: entities_named(store, value, [], True)[0] for _, value in named}


def _with_particle(line: Line, want: str, particle: str) -> bool:
    """Whether the line writes the verb with the question's particle ("gave up", "gave the ship up")."""
    return line.doc is None or any(same(key(t.lemma_), want) and any(
        c.dep_ in ("prt", "prep") and c.lower_ == particle for c in t.children) for t in line.doc)  # "relied on"


def of_verb(attrs: dict[str, Any], want: str) -> bool:
    """Whether a Kriyā's verb is ``want`` (a match key): the graph's "dwelt" is "dwell"."""
    verb = str(attrs.get("verb", ""))
    return same(key(verb), want) or same(key(irregular_verb(verb)), want)


def _contradicted(role: str, value: str, ids: set[str], spans: list[Any], text: str, previous: str = "",
                  me: str = "") -> bool:
    """Whether an action says something else where the question names ``value`` in ``role``.

    It holds the value when a span of it names the same entity (by name, alias or what a pronoun
    stands for), holds most of its words, stands in apposition to it in the line ("the
    director, Ana Ruiz, said"), or is a pronoun that can stand for it (``_may_stand_for``). An
    action with nothing in that role does not say otherwise (the line's words still have to
    hold the value, as for any span).
    """
    if any(entity in ids or _holds(value, span, name == role) or _apposed(text, span, value) or _given(text, span, value)
           or _may_stand_for(span, value, text, previous) or _narrator(span, value, me) for _, name, span, entity in spans):
        return False
    return any(kind == "role" and name == role for kind, name, _, _ in spans)


def _holds(value: str, span: str, same_role: bool) -> bool:
    """Whether a role's words hold the value: most of them, and in another role they must be most of the span.

    A parse may give the doer as the object ("was sold by Mara"), so a role other than the one asked
    counts, but not where the value is one name in a long clause the parse took as the object.
    """
    return coverage(value, span) >= 0.5 and (same_role or coverage(span, value) >= 0.5)


def _may_stand_for(span: str, value: str, text: str, previous: str) -> bool:
    """Whether a pronoun in a role can stand for ``value``: the value is named before it, in its line or the one before.

    "Mara brought figs, and she sold them to the merchant": "them" can be the figs; "It was published by
    the Foundation" after a sentence about Frobnicate: "it" can be Frobnicate. A pronoun with no such
    mention (or one that points at the speaker or the listener) does not stand for the value.
    """
    word = span.strip().lower()
    if word not in ANAPHORIC_PRONOUNS or value.strip().lower() in PRONOUNS:
        return False
    at = re.search(rf"(?<![\w]){re.escape(span.strip())}(?![\w])", text)
    before = f"{previous} {text[:at.start()] if at else ''}"
    return coverage(value, before) >= 0.5


def _narrator(span: str, value: str, me: str = "") -> bool:
    """Whether the question's "he", "she" or name may be the line's "I": a reader speaks of a narrator in the third person.

    ("What did he learn from his mother?" of "From my mother I learned piety."; "What did Wren throw?" of
    "I threw …" where the narrator calls itself Wren: ``me``.)
    """
    if span.strip().lower() not in SELF:
        return False
    return value.strip().lower() in HUMAN_PRONOUNS or bool(me) and (
        coverage(value, me) >= 0.5 or coverage(value, "the narrator") == 1.0)


def _given(text: str, span: str, value: str) -> bool:
    """Whether the line gives ``span`` the name ``value``: "a widow named Cora who came …" came as Cora.

    So does an apposition that names it: "My father, a cooper named Aldo Finch, died" died as Aldo Finch.
    """
    return re.search(rf"{re.escape(span)},?\s+(?:(?:an?|the)\s+[^,;:]{{1,40}}?\s+)?(?:named|called)\s+{re.escape(value)}\b",
                     text, re.IGNORECASE) is not None


def _apposed(text: str, span: str, value: str) -> bool:
    """Whether the line names ``value`` right after ``span``, set off by commas: "the director, Ana Ruiz,"."""
    at = text.find(span)
    if at < 0:
        return False
    after = text[at + len(span):].lstrip()
    return after.startswith(",") and after[1:].lstrip().lower().startswith(value.lower())


def _all_asked(asked: Asked, text: str) -> bool:
    """Whether every content word of a span is one of the question's."""
    own = [key(w) for w in WORD.findall(text) if w.lower() not in FUNCTION_WORDS]
    words = [t.key for t in asked.terms] + [asked.focus] + [key(w) for w in WORD.findall(asked.text)]  # "Node.js"
    return bool(own) and all(any(same(w, a) for a in words if a) for w in own)


def _named_thing(line: Line, span: Span) -> bool:
    """Whether a role is only names ("on Linux and FreeBSD", "with AES-256").

    A name carries no class noun of its own, so the role of the question's own action may be of the
    class the question asks for ("which systems does it run on?"); a common noun names its own class
    ("a letter" is no book).
    """
    if line.doc is None or span.first < 0:
        return False
    words = [t for t in line.doc[span.first:span.last + 1] if t.pos_ not in ("ADP", "DET", "PUNCT", "CCONJ")]
    return bool(words) and all(t.pos_ in ("PROPN", "NUM", "X") or t.i > 0 and not t.is_lower for t in words) \
        and any(t.pos_ != "NUM" for t in words)  # a capital inside a sentence is a name's, however tagged ("FreeBSD")


def _whole_code(text: str, role: str) -> str:
    """A one-word role that is a piece of a code token of the line, widened to the whole token; else the role."""
    at = text.find(role)
    if at < 0 or " " in role.strip():
        return role
    for m in CODE_TOKEN.finditer(text):
        start, end = m.span(1) if m.group(1) else m.span(2)
        if start <= at and at + len(role) <= end and end - start > len(role):
            return text[start:end]
    return role


def _token_range(line: Line, at: int, size: int) -> tuple[int, int]:
    if line.doc is None or at < 0:
        return -1, -1
    inside = [t.i for t in line.doc if t.idx < at + size and t.idx + len(t.text) > at]
    return (inside[0], inside[-1]) if inside else (-1, -1)


def _headed_by(named: str, role: str, line: Line) -> bool:
    """Whether a role that holds a named argument's words is that argument.

    It is when its head is one of them ("the License" is the "This License" a question names) or the
    head's own modifiers hold them all ("the --time-unit=B option" is --time-unit=B); "to version 3 of
    the GNU General Public License" only mentions the License: its head is "version", which answers
    "what does 'This License' refer to?".
    """
    head, phrase = _head(role, line)
    headed, want = content(head), content(named)
    return not headed or bool(headed & want) or bool(want) and want <= content(phrase)


_MODIFIERS = frozenset(("compound", "amod", "nmod", "appos"))
"""Dependencies of what modifies a noun before what hangs on it ("--time-unit=B" of "the --time-unit=B option")."""


def _head(role: str, line: Line) -> tuple[str, str]:
    """The word a role's phrase hangs on, and that word with its modifiers before what hangs on it.

    By the parse, the noun after its preposition: "ability" of "on a pupil's ability as judged by
    marks"; "" where the line is not parsed or does not hold the phrase as written.
    """
    at = line.text.find(role)
    first, last = _token_range(line, at, len(role))
    if line.doc is None or at < 0 or first < 0:
        return "", ""  # not read: held to be the argument, as a role holding half its words always was
    inside = line.doc[first:last + 1]
    root = next((t for t in inside if not first <= t.head.i <= last or t.head.i == t.i), inside[0])
    noun = next((c for c in root.children if c.dep_ == "pobj"), None) if root.dep_ in ("prep", "agent") else None
    head = noun or root
    modifiers = [t for c in head.children if c.dep_ in _MODIFIERS and first <= c.i <= last for t in c.subtree]
    return head.text, " ".join(t.text for t in sorted([head, *modifiers], key=lambda t: t.i))


def _with_conjuncts(line: Line, text: str) -> str:
    """A role span with the names conjoined to it: "the mayor and the town clerk", not "the mayor" alone."""
    if line.doc is None:
        return text
    at = line.text.find(text)
    if at < 0:
        return text
    inside = [t for t in line.doc if at <= t.idx < at + len(text)]
    if not inside:
        return text
    head = next((t for t in inside if t.head not in inside or t.head.i == t.i), inside[0])
    if head.pos_ == "ADP":  # "on Linux and FreeBSD": the names are the preposition's object's
        head = next((c for c in head.children if c.dep_ == "pobj"), head)
    conj = [c for c in head.children if c.dep_ == "conj" and c.i > inside[-1].i]
    if not conj:
        return text
    last = max(t.i for c in conj for t in c.subtree)
    return line.doc[inside[0].i:last + 1].text


_DOERS = ("KARTA", "SAMPRADANA")
"""Roles whose noun phrase answers "who" as the action names it: its doer, its receiver."""


def _role_fits(asked: Asked, name: str, text: str, entity: str | None, store: Store) -> bool:
    """Whether a role span can answer the kind asked for ("who" wants someone, "why" a reason…)."""
    kind = asked.kind
    etype = str((store.graph.node(entity) or {}).get("entity_type", "")) if entity else ""
    words = text.split()
    if text.strip().lower() in k.WH_WORDS or text.strip().lower() == "that":
        return False  # "for what he ate": a relative or question word stands for something it does not name
    if kind == k.NAME:
        words = words[1:] if len(words) > 1 and words[0].lower() in k.TEMPORAL | k.SPATIAL | {"with", "for", "of"} \
            else words  # "from Apollonius": the name after the preposition, and after its article
        words = words[1:] if words[:1] == ["the"] and sum(w[:1].isupper() for w in words[1:]) >= 2 else words  # "to
        # the OpenJS Foundation": a name of several words; "the Philistine" stays a description
        head = head_word(" ".join(words)).lower()  # "a widow named Cora": a widow
        singular = head[:-1] if head.endswith("s") and not head.endswith("ss") else head  # "reporters"
        if name in _DOERS and head.isalpha() and head.islower() and text.lower() not in PRONOUNS:
            return True  # "who walked to the mill?": "the old smith", "only administrators", the doer the action names
        return etype in ("Person", "Organisation") or names_people(head) in ("person", "group") \
            or names_people(singular) in ("person", "group") \
            or bool(words) and words[0][:1].isupper() and words[0].lower() not in FUNCTION_WORDS \
            or " ".join(words).lower() in ("he", "she", "they", "him", "her", "them", "i", "me")
    if kind == k.PLACE:  # a place, or a phrase the parse left unnamed that a spatial preposition opens
        return name in ("ADHIKARANA_SPATIAL", "PLACE", "APADANA") or etype == "Location" or (
            name == "OTHER" and bool(words) and words[0].lower() in k.SPATIAL
            and not (len(words) > 1 and words[1].lower() in PREPOSITION_NOUNS))  # "on behalf of": no place
    if kind == k.REASON:  # a reason or purpose as the line words it: "because …", "to protect …", "for …"
        return name in ("CAUSE", "PURPOSE") and bool(REASON_OPENERS.match(text) or re.match(r"(?:to|for) \w+", text))
    if kind == k.MANNER:  # "loudly", "with a chisel", "by boat"; not a bare noun phrase ("the keys")
        return name in ("MANNER", "KARANA") and bool(words) and words[0].lower() not in DETERMINERS
    if kind == k.DATE:  # "in 1921", "on Monday", "after the war"; not "to time" of "from time to time"
        return (name in ("ADHIKARANA_TEMPORAL", "TIME") or etype == "Time") and not (
            len(words) <= 2 and words and head_word(text).lower() == "time") and not (
            len(words) == 1 and words[0].lower() in ASPECT_ADVERBS)  # "ever published" says no time
    return True
