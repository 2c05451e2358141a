"""Whether a line proves a span answers a question: the words it holds, how near, and in which relation.

A span is *proved* (and its answer GROUNDED) only when its line says it for what the question asks:
- it is of the kind asked for ("how many" wants a number, of the counted thing when the line says what it
  counts; "which option" a flag; "how" a way or a command) and is none of the question's own words;
- every hard term of the question (its nouns, names, numbers, code and action) is in the line, in the line it goes on
  from, in its heading or document name, or in the sentence just before or after it (a name the action asked is done
  by or to: in its line; not a noun it qualifies otherwise, "the readable side" for "the writable side"), and the line
  itself holds at least half of them; a line without a verb (a heading, a table row, a list item) need not say the
  action; a question whose hard terms all name the document it is asked of ("in xsltproc") needs the rest from the
  line, and something; a name the question sets before its noun ("the libxslt Tutorial") proves nothing of the noun
  that only the document's name holds; code inside the brackets of a call the question names is that call's argument;
- a question about a default is answered by the value the line calls the default, not by the
  name of the thing ("--timeout" is no default timeout);
- "who is X?" and "what is X?" are answered by what the line says X is (a copula, an apposition,
  a heading over a bare list: a phrase headed by X, not one that mentions X, and never across a
  quotation mark), and a "who" question with an action by the doer or receiver of that same action
  (``reader``), not by whatever name stands nearest;
- a line that asks ("How old is Tam, Ann?") states nothing; "my ship" is not "Ann's ship"; a bare number counting
  another noun ("in one round chapter") is no amount.
Soft terms (adjectives, adverbs, the words of the thing asked about) only weigh. Anything weaker leaves the span a
candidate the system is not sure of (UNCERTAIN).
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from karaka.answering import kinds as k
from karaka.answering.defaults import default_of_focus, focus_term, names_focus, said_default
from karaka.answering.entries import KEY, keyed_entry, opens_with_name
from karaka.answering.identity import (
    agent_verb,
    all_focus,
    asks_identity,
    defined,
    identity,
    owned,
    owner_before,
    possessor,
)
from karaka.answering.line import LineWords, joined, named_inside
from karaka.answering.mood import supposed
from karaka.answering.naming import credited, focus_near
from karaka.answering.other import (
    argument_of,
    does_another,
    in_another,
    other_kind,
    other_number,
    other_owner,
    qualified_otherwise,
    version_of,
)
from karaka.answering.own import in_question
from karaka.answering.question import CODE_TOKEN, Asked, Term, code_tokens
from karaka.answering.shapes import called, code_shape
from karaka.answering.span import Span
from karaka.answering.stems import key, same
from karaka.answering.typed import counted_noun, labels_an_item, names, numbers_the_line, typed
from karaka.words import WORD

SOFT_WEIGHT = 0.4
CONTEXT_WEIGHT = 0.9
"""A term found only in the line's heading, document name or introducing line counts nearly as much."""
AROUND_WEIGHT = 0.75
"""A term found only in the sentence before or after counts three quarters."""
OWN_SHARE = 0.5
"""The share of the hard terms' weight the line itself (or the line it goes on from) must hold."""
MIN_COVER = 0.6
"""The share of all the question's terms (soft ones weighed less) a proving line must hold with its surroundings."""
OWN_WORDS = "the question's own words"
ASKS = "the line asks it, it does not say it"
SHAPED = (k.CODE, k.VERSION, k.QUANTITY, k.VALUE)
"""Kinds whose answer's shape says what it is: read as spans; an action's role only supports them."""
VERB_FREE = (k.CODE, k.VERSION)
"""Kinds whose shape is rare enough that the question's verb need not be the line's ("prints" or "dumps"
the output) unless the line says the code does another action (``does_another``); a number is too common a
shape for that ("how many coins did he pay" is not "sold … for nine")."""


@dataclass
class Evidence:
    """What a line says for one span."""

    cover: float
    """The weighted share of the question's terms the line and its surroundings hold."""
    near: float
    """How close the matched words stand to the span (1: next to it)."""
    missing: list[str]
    """Hard terms that neither the line nor its surroundings hold."""
    typed: bool
    """The span is of the kind asked for."""
    why_not: str = ""
    """Why it is not proved ("" when it is)."""
    notes: list[str] = field(default_factory=list)

    @property
    def proved(self) -> bool:
        return not self.why_not


def _tree_distance(doc: Any, a: int, b: int) -> int:
    """Edges between two tokens of a parse."""
    up_a = [doc[a]] + list(doc[a].ancestors)
    up_b = {t.i: n for n, t in enumerate([doc[b]] + list(doc[b].ancestors))}
    for n, t in enumerate(up_a):
        if t.i in up_b:
            return n + up_b[t.i]
    return len(doc)


def weigh(asked: Asked, span: Span, words: LineWords, doc: Any | None, verb_soft: bool = False,
          rarity: Callable[[str], float] | None = None, referred: str = "", role: bool = False) -> Evidence:
    """The evidence of one line for one span (``verb_soft``: the question's verb need not be in it).

    A ``role`` of the question's own action is of the kind asked for as the action says ("the cook"
    is who cooked), but every other check holds it as any span.

    ``referred`` names what the line's pronouns stand for in the action read ("he" for "Tomas
    Berg"): a term it holds counts as the line's own.

    ``rarity`` weighs a term by how few lines of the documents hold it (an inverse document
    frequency): a line may lack one common word of a long question ("begin", "ones"), never a
    name, a number, a piece of code or a rare word.
    """
    keyed = asked.verb in k.KEY_VERBS and keyed_entry(asked, span, words)  # "which exit status means …?"
    soft_verb = verb_soft or words.verbless and not _names_alone(asked, doc) or (
        asked.kind in VERB_FREE and not does_another(asked, span, doc)) or (
        asked.kind == k.PLACE and span.kind == k.CODE) or keyed  # "where are the files put?" answered by a path
    labelled = words.headed_as(asked.focus)  # the heading says what the line's entries are
    hard = [t for t in asked.terms if t.hard and not (t.role == "verb" and soft_verb)]
    soft = [t for t in asked.terms if t not in hard]
    total = len(hard) + SOFT_WEIGHT * len(soft) or 1.0
    got, own, headed, missing, distances, titled = 0.0, 0.0, 0.0, [], [], 0
    glued = joined(asked, words)
    stood_for = [key(w) for w in WORD.findall(  # what the line's pronouns stand for, as if the line named it
        f"{referred} {words.doers} {words.narrator and words.narrator + ' narrator'}")]
    for term in asked.terms:
        weight = 1.0 if term in hard else SOFT_WEIGHT
        where = [i for i in words.find(term) if not named_inside(term, doc, i, span)] or glued.get(term.key, [])
        if where:
            got += weight
            own += weight if term in hard else 0.0
            titled += asked.lang != "en" and term in hard and term.role == "name" and words.in_document(term)
            # "dpkg-divert" in its own manual names every line: where the parser reads no verb, it ties none
            if doc is not None and span.first >= 0:
                distances.append(min(_tree_distance(doc, span.first, i) for i in where))
            elif span.first < 0:
                distances.append(min(abs(i - span.start) for i in where) // 12)
        elif any(same(term.key, w) for w in stood_for) \
                or owner_before(asked, term, words, doc):
            got += weight
            own += weight if term in hard else 0.0
        elif (labelled or asked.kind == k.NAME and words.headed_as(term.key)) and _holds_word(words.heading, term):
            got += weight  # "Authors" over "Written by Rhea Tolland.": the heading says what the line's names are
            own += weight if term in hard else 0.0
        elif term.role == "noun" and agent_verb(term.key, doc) is not None or credited(term, span, words.text):
            got += weight  # "Edited by Sunniva Dahl" names an editor, "Ann Lee's book" its writer
            own += weight if term in hard else 0.0
        elif term.key in k.AUTHORING_NOUNS and asked.kind == k.NAME and words.verbless and _only_names(doc):
            got += weight  # "Lena Varga" under a title: its author, as she is who wrote it
            own += weight if term in hard else 0.0
        elif words.in_intro(term) and not words.intro_asks_otherwise(asked.wh, asked.verb):  # it lends its words
            got += (share := 1.0 if words.entry else CONTEXT_WEIGHT) * weight
            own += share * weight if term in hard else 0.0
        elif words.in_context(term) and (term.role != "verb" or _holds_word(words.heading, term)):  # a heading or
            # the document's name counts but proves nothing alone; a book's title ("Persuasion") says no line's action
            got += CONTEXT_WEIGHT * weight
            headed += weight if term in hard else 0.0
            titled += term in hard and words.in_document(term)  # "in xsltproc", asked of xsltproc's manual
        elif words.in_around(term) and not asked.possessed(term.key) and not _other_code(term, words.text) and not (
                role and term.role == "name" or asked.kind == k.PLACE and not asked.verb and term.role == "noun"
                or qualified_otherwise(asked, term, words.around_text)):
            got += AROUND_WEIGHT * weight  # the line must say whose it is, name its action's doer and object, and
            # the thing "where is X?" places
        elif term in hard and _classifies(term, asked, words):
            got += weight  # "version 1.4.0": the name the line holds says what it is
            own += weight
        elif term in hard:
            missing.append(term.text)
    near = sum(1.0 / (1.0 + d / 3.0) for d in distances) / len(distances) if distances else 0.0
    ok, why = typed(asked, span, words.text[span.end:] if span.end >= 0 else "")
    if role and not ok and why.startswith("a "):  # "a role, not a name", "a pronoun": ``roles`` reads them
        ok, why = True, ""
    if ok and asked.kind == k.QUANTITY and (counts := counted_noun(asked, span, doc)):
        ok, why = False, f"{span.text!r} counts {counts}, not what was asked"  # "one round chapter" is no price
    elif ok and asked.kind == k.QUANTITY and numbers_the_line(asked, span, words.text):
        ok, why = False, f"{span.text!r} numbers the line, it counts nothing"  # "3 Sigrun wept forty days"
    elif ok and asked.kind == k.QUANTITY and labels_an_item(span, words.text):
        ok, why = False, f"{span.text!r} labels an item of a list, it counts nothing"  # "either (1) a copy or (2) …"
    other = other_kind(asked, words, doc)
    evidence = Evidence(cover=round(got / total, 3), near=round(near, 3), missing=missing, typed=ok)
    if not ok:
        evidence.why_not = why
    elif doc is not None and span.first >= 0 and (unreal := supposed(doc, span.first, asked.verb, asked.negated)):
        evidence.why_not = unreal  # "If Ilse were a sailor, …", "I wish Ilse lived at Harrow"
    elif asks(words.text, span.end):
        evidence.why_not = ASKS
    elif asked.kind == k.TERM and span.start >= 0 and not words.text[:span.start].strip() and re.match(
            r"\s*:\s*\S", words.text[span.end:]):  # "Default value: 40" says what 40 is, not what the rasp is
        evidence.why_not = "a field's label, not its value"
    elif asked.kind != k.POLAR and in_question(asked, span) and not _called_code(asked, span, words):
        evidence.why_not = OWN_WORDS
    elif other:
        evidence.why_not = f"the line speaks of the {other}"
    elif asked.kind in VERB_FREE and (other_verb := in_another(asked, span, doc)):
        evidence.why_not = f"it is in the action of {other_verb!r}, not the question's"
    elif (alone := _modifier_alone(asked, words, glued)):
        evidence.why_not = f"the line speaks of {alone[0]}, not of its {alone[1]}"  # libxslt, not its tutorial
    elif (owner := other_owner(asked, words, doc)):
        evidence.why_not = f"the line speaks of {owner}"
    elif (numbered := other_number(asked, words.text)):
        evidence.why_not = f"the line speaks of {numbered}"  # "Python 2" for a question on Python 3
    elif span.kind == k.CODE and (called_by := argument_of(asked, span, words.text)):
        evidence.why_not = f"an argument of {called_by}, which the question names"  # "ffi_alloc (size_t size)"
    elif (product := version_of(asked, span, doc)):
        evidence.why_not = f"{span.text!r} is the version of {product}"
    elif missing and (words.verbless or asked.kind == k.NAME or not _spared(missing, hard, rarity, asked,
                                                                            headed=span.start < 0)):
        evidence.why_not = f"the line lacks {', '.join(missing[:3])}"
    elif keyed and (unsaid := [
            t.text for t in soft if t.role != "verb" and not words.find(t) and not words.in_context(t)]):
        evidence.why_not = f"the entry's description lacks {', '.join(unsaid[:3])}"  # "broken" is not "not found"
    elif asked.lang != "en" and asked.kind in (k.TERM, k.REASON, k.MANNER, k.PLACE) and span.kind not in SHAPED \
            and not asked.defines and not KEY.fullmatch(span.text):  # a key ("42") has a shape; a definition any tongue
        evidence.why_not = "in a language the parser does not read, only a number, a date, a name or code is proved"
    elif hard and titled == len(hard) and not _says_beyond_document(asked, words, soft) or (
            asked.lang != "en" and not hard and not _holds_most_besides_document(words, soft)):
        evidence.why_not = "the line says too little of what is asked of the document"
    elif hard and titled < len(hard) and not names_focus(asked, words) and (
            own + (headed if opens_with_name(hard, words) or words.heading_asks else 0.0) < OWN_SHARE * len(hard)
            or own == 0):  # under a heading that asks the question, or naming the default's thing, they are its own
        evidence.why_not = "most of the question's words are in " + (
            "its heading or document name" if own + headed >= OWN_SHARE * len(hard) else
            "the sentences around the line") + ", not in the line"
    elif span.start < 0 and asked.kind == k.CODE and words.verbless and own < len(hard) and any(
            t.role == "verb" and not words.find(t) for t in asked.terms):  # "A parsed file." under heron.Document
        evidence.why_not = "the description under the entry says neither the question's action nor all it names"
    elif evidence.cover < MIN_COVER:
        evidence.why_not = "the line holds too few of the question's words"
    elif (thing := owned(asked)) and not possessor(span, words, doc, thing):
        evidence.why_not = f"the line does not say whose {thing} it is"
    elif asked.default and not said_default(span, words.text, words.previous_text):
        evidence.why_not = "the line does not call it the default"
    elif asked.default and not default_of_focus(asked, words):
        evidence.why_not = f"the line gives a default, not of a {asked.focus_text}"  # "By default, … uses X" is no port
    elif asks_identity(asked) and not identity(span, words, doc, asked) and not (
            asked.focus and focus_near(asked, span, words, doc) and not all_focus(asked, span)
            and not ((defined(asked).lower() == asked.focus_text or not names(span.text))  # "the same work" is no
                     and any(same(key(w), asked.focus) for w in WORD.findall(span.text)))):  # "Combined Work"
        # "What is bc?": "bc version 1.01" names bc, it does not say what bc is
        evidence.why_not = "the line does not say it is what was asked about"
    return evidence


def _says_beyond_document(asked: Asked, words: LineWords, soft: list[Term]) -> bool:
    """Whether a line says what a question asks of its document besides the document's name.

    "What is the default maximum number of variables in xsltproc?", asked of xsltproc's manual: the name asks
    nothing of the line, which must hold the rest ("Maximum number of variables. The default is 15000."), and
    something at least: a bare entry "cif" under libffi-closure-api.html says nothing of who wrote its Closure API.
    """
    said = [t for t in asked.terms if not words.in_document(t)]
    return all(t.role == "verb" or words.find(t) or words.in_intro(t) for t in soft) and (any(
        words.find(t) or words.in_intro(t) for t in said) or not said and bool(asked.focus) and bool(
        words.find(focus_term(asked))))  # "which version of frob is this?" asks only the version: the line must
    # name it ("This is the new version (1.47.0) of …")


def _holds_most_besides_document(words: LineWords, soft: list[Term]) -> bool:
    """Whether the line holds most words of a question with no required word, besides the document's names.

    "Was kann mit frob nicht zerteilt werden?": in a language the parser does not read, its words are all the
    question says, and "frob" stands in every line of frob's own page.
    """
    said = [t for t in soft if not words.in_document(t)]
    return 2 * sum(1 for t in said if words.find(t) or words.in_intro(t)) > len(said)


def _modifier_alone(asked: Asked, words: LineWords, glued: dict[str, list[int]]) -> tuple[str, str] | None:
    """A name the question sets before its noun ("the libxslt Tutorial") that the line holds without the noun.

    The noun found only in the heading or the document's name ("libxslt-tutorial") leaves the line
    speaking of the name's own thing ("libxslt is a library written by …"), not of the noun's.
    """
    for name in asked.terms:
        noun = next((t for t in asked.terms if name.head and t.key == name.head and t.hard and t is not name), None)
        if noun is not None and name.hard and words.find(name) and not words.find(noun) and \
                noun.key not in glued and not words.in_intro(noun) and words.in_context(noun):
            return name.text, noun.text
    return None


def _called_code(asked: Asked, span: Span, words: LineWords) -> bool:
    """Code the line calls by the noun asked about, though it shares the question's words.

    "the `keys()` method" answers "which method returns the keys?"; FROBZ, written so in the
    question, stays the question's own.
    """
    return span.kind == k.CODE and span.start >= 0 and called(asked, words.text, span.start, span.end) and (
        span.text.islower() or not re.search(rf"\b{re.escape(span.text)}\b", asked.text)) and not any(
        t.role == "name" and t.key.removesuffix("()") == span.text.lower().removesuffix("()") for t in asked.terms)
    # "the nobody UID" names it and asks another; so does "the `console.info()` function" for "console.info()"


def _classifies(term: Term, asked: Asked, words: LineWords) -> bool:
    """Whether ``term`` is the noun the question sets before a name the line holds: "version" of "version 1.4.0"."""
    return term.role == "noun" and any(
        t.role == "name" and words.find(t) and re.search(rf"\b{re.escape(term.text)}\s+{re.escape(t.text)}(?!\w)",
                                                         asked.text, re.IGNORECASE) for t in asked.terms)


def _holds_word(text: str, term: Term) -> bool:
    return any(same(term.key, key(w)) for w in WORD.findall(text))


def _names_alone(asked: Asked, doc: Any | None) -> bool:
    """A verbless line that does not say the action a who-question asks about.

    "Ann Lee and Bo Chen" under a title wrote it (``k.AUTHORING_VERBS``); who translated or led it, it never says.
    A verbless line that is not a line of names ("Grant of Copyright License.", a heading) says nobody wrote anything.
    """
    if doc is None or asked.kind != k.NAME or not asked.verb:
        return False
    return _only_names(doc) != any(same(asked.verb, key(v)) for v in k.AUTHORING_VERBS)


def _only_names(doc: Any | None) -> bool:
    """Whether a parsed line holds names and nothing else ("Ann Lee and Bo Chen")."""
    if doc is None:
        return False
    named = {t.i for e in doc.ents if e.label_ in ("PERSON", "ORG") for t in e}
    words = [t for t in doc if t.is_alpha and t.lower_ not in ("and", "&")]
    return bool(words) and all(t.i in named or t.pos_ == "PROPN" for t in words)  # the NER may miss "Cy Dunn"


def _other_code(term: Term, text: str) -> bool:
    """A piece of code the question names that the line lacks, where the line names another of its shape.

    "What does --dim default to?" is not answered by "--bright …; the default is 7" because the next
    sentence speaks of --dim: the line says whose default it gives.
    """
    if term.role != "name" or not CODE_TOKEN.fullmatch(term.text):
        return False
    shape = code_shape(term.text)
    return any(code_shape(token) == shape and token.lower() != term.key for token in code_tokens(text))


def asks(text: str, at: int = -1) -> bool:
    """Whether the clause at ``at`` (the span's end; the whole line when -1) asks: it states nothing.

    "How old is he, Tom?"; "Are these your hens, Ann? they follow you": the first mark that ends a
    clause after the span is a question mark.
    """
    if at < 0:
        return text.rstrip().rstrip("\"'”’»)]").rstrip().endswith("?")
    end = re.search(r"[.?!;]", text[at:])
    return end is not None and end.group(0) == "?"


MISSING_SHARE = 0.25
"""The most of the hard terms' rarity a proving line may lack (and one term in four at most)."""


def _spared(missing: list[str], hard: list[Term], rarity: Callable[[str], float] | None, asked: Asked,
            headed: bool = False) -> bool:
    """Whether the hard terms a line lacks are few and common enough to be a paraphrase, not a gap.

    ``headed``: the span is the line's heading's (a changelog's date over its entries).
    """
    if rarity is None or len(missing) > max(1, len(hard) // 4):
        return False
    lost = [t for t in hard if t.text in missing]
    if any(t.role == "name" or asked.possessed(t.key) for t in lost):
        return False  # a name, or a possessive's thing or owner ("Ann's ship"): what the question is about
    if asked.kind in (k.DATE, k.REASON) and not headed and any(t.role == "verb" for t in lost):
        return False  # a time or a reason is an action's: a line that never says the action gives neither
        # (a date heading dates each entry under it, whatever the entry's words)
    total = sum(rarity(t.key) for t in hard) or 1.0
    return sum(rarity(t.key) for t in lost) <= MISSING_SHARE * total
