"""What a line says a span is: the thing asked about ("the -q option"), what "X is" ("oak is the wood")."""

from __future__ import annotations

import re
from dataclasses import replace
from typing import TYPE_CHECKING, Any

from karaka.answering import kinds as k
from karaka.answering.naming import is_word, named_so, span_head
from karaka.answering.narrator import SELF_NAMED
from karaka.answering.question import Asked, Term
from karaka.answering.span import Span
from karaka.answering.stems import key, same
from karaka.store.resolver import TITLES
from karaka.words import FUNCTION_WORDS, WORD

if TYPE_CHECKING:
    from karaka.answering.line import LineWords

LABEL_MOST = 6
"""The most words of a label before a colon ("Copyright holder: …"); more is a clause ("…, for she was here: her")."""


def all_focus(asked: Asked, span: Span) -> bool:
    """A span that is only the word asked about ("the method")."""
    own = [key(w) for w in WORD.findall(span.text) if w.lower() not in FUNCTION_WORDS]
    return all(same(w, asked.focus) for w in own)


def asks_identity(asked: Asked) -> bool:
    """"Who is X?", "What is X?": the answer is what the line says X is."""
    return not asked.verb and asked.kind in (k.NAME, k.TERM) and bool(
        re.match(r"\s*(who|what)\s+(is|are|was|were)\b", asked.text, re.IGNORECASE))


_DEFINED = re.compile(r"\s*(?:who|what)\s+(?:is|are|was|were)\s+(?:an?\s+|the\s+)?([^?]+?)\s*\?*\s*$", re.IGNORECASE)


def defined(asked: Asked) -> str:
    """The thing a "who is X?" or "what is X?" question asks about, as written: a name or a term of a few words.

    "" for any other question, and for a phrase with words that only tie others ("the captain of
    the ship"): the lines that say what such a phrase is are not found by its shape.
    """
    found = _DEFINED.match(asked.text) if asks_identity(asked) else None
    words = found.group(1).split() if found else []
    if not words or len(words) > 4 or any(w.lower() in FUNCTION_WORDS or not re.fullmatch(r"[\w.'’-]+", w)
                                          for w in words):
        return ""
    return " ".join(words)


_NAME_OF = re.compile(r"\bname\s+of\s+[^?]*?([^\W\d_]+)(?:\W*$|\s+(?:where|that|which|who|whom|whose|when|in|on|at|"
                      r"from|with|by|for|to|into)\b)", re.IGNORECASE)
"""The thing whose name a question asks: the last word of "the name of Queequeg's little god"."""


def name_of(asked: Asked) -> str:
    """The thing whose name "what is the name of …?" asks, as written ("ship" for "the name of Ahab's ship"); or ""."""
    found = _NAME_OF.search(asked.text) if asked.focus == "name" else None
    return found.group(1) if found else ""


def given_name(asked: Asked, span: Span, words: LineWords, doc: Any | None) -> bool:
    """"What is the name of X?": a proper name the line sets beside X or equal to it, without the word "name".

    "his little god, Yojo", "the mill was Greyhaven", "a dog called Brin": the name is X's as any
    description of X is (``identity``).
    """
    thing = name_of(asked)
    if not thing or doc is None or span.first < 0:
        return False
    if not any(t.pos_ == "PROPN" for t in doc[span.first:span.last + 1]):
        return False
    named = [t for t in asked.terms if same(t.key, key(thing))]  # the ship, not Ahab of "Ahab's ship"
    return bool(named) and identity(span, words, doc, replace(asked, terms=tuple(named)))


_WHOSE_AT = r"\s*(?:(?:in|at|to|from|with|for|by|of|on|into)\s+)?whose\s+"
_WHOSE = re.compile(_WHOSE_AT + r"(?:[^\W\d_]+\s+){0,2}?([^\W\d_]+)"
                    r"(?=\s+(?:of|is|are|was|were|did|does|do|has|have|had|can|could|will|would|may|must|shall)\b|\s*\?)",
                    re.IGNORECASE)
"""The noun "whose" asks the owner of, after its adjectives: "whose public statement of …" asks of a statement."""
_WHOSE_FIRST = re.compile(_WHOSE_AT + r"([^\W\d_]+)", re.IGNORECASE)
"""Else the word right after "whose" ("Whose old grey boat sank …?": no verb the first pattern knows)."""


def owned(asked: Asked) -> str:
    """The thing a "whose" question asks the owner of ("Whose son was Pell?": son), or ""."""
    found = _WHOSE.match(asked.text) or _WHOSE_FIRST.match(asked.text)
    return key(found.group(1)) if found else ""


def owners(asked: Asked, doc: Any | None) -> list[Span]:
    """The owners a line gives the thing a "whose" question asks of, named or not: "that proxy's statement"."""
    thing = owned(asked)
    if not thing or doc is None:
        return []
    out = []
    for t in doc:
        if _owns(t) and t.pos_ in ("NOUN", "PROPN") and is_word(t.head, thing):
            first = min([t.i] + [c.i for c in t.children if c.dep_ in ("compound", "amod", "flat")])
            out.append(Span(doc[first:t.i + 1].text, k.NAME, doc[first].idx, t.idx + len(t.text), first, t.i))
    return out


def _owns(token: Any) -> bool:
    """A possessive: the parse's, or a name the apostrophe after it makes one ("James Woods’ code", parsed a modifier)."""
    after = token.doc[token.i + 1] if token.i + 1 < len(token.doc) else None
    return token.dep_ == "poss" or token.dep_ in ("nmod", "compound") and after is not None and after.text in (
        "’", "'", "’s", "'s") and token.head.i > token.i


def possessor(span: Span, words: LineWords, doc: Any | None, thing: str) -> bool:
    """Whether the line makes the span the owner of ``thing``: "the son of Orrin", "Orrin's son"."""
    if doc is not None and span.first >= 0:
        head = span_head(span, doc)
        if head.dep_ == "pobj" and head.head.lower_ == "of":
            return is_word(head.head.head, thing)
        return _owns(head) and is_word(head.head, thing)
    before, after = words.text[:span.start], words.text[span.end:]
    of = re.search(r"([^\W\d_]+)\s+of\s+(?:the\s+)?$", before)
    owns = re.match(r"['’]s?\s+([^\W\d_]+)", after)
    return any(m is not None and same(key(m.group(1)), thing) for m in (of, owns))


def agent_verb(noun: str, doc: Any | None) -> Any | None:
    """The verb of the line whose doer ``noun`` names by its ending, or None.

    "editor": "edited", "creator": "created": an agent noun is its verb with "-er" or "-or", a word's
    own derivation, not a synonym.
    """
    for t in doc if doc is not None else ():
        lemma = t.lemma_.lower()
        if t.pos_ == "VERB" and len(lemma) > 2 and any(same(noun, key(form)) for form in (
                lemma + "er", lemma + "or", lemma + "r", lemma[:-1] + "or", lemma + lemma[-1] + "er")):
            return t
    return None


def identity(span: Span, words: LineWords, doc: Any | None, asked: Asked) -> bool:
    """Whether the line says the span is the thing asked about.

    "X is S", "S is X", "X, S", "X: S", S listed bare under a heading (or an introducing
    line) that names X, or S in any line under a heading that names what its entries are.
    """
    if words.narrator and any(t.key == key("narrator") for t in asked.terms) and (
            named := SELF_NAMED.search(words.text)) and named.start(1) <= span.start < named.end(1):
        return True  # "Call me Wren.": the narrator names itself
    if doc is not None and span.first >= 0 and (_only_like(head := span_head(span, doc)) or (
            asked.wh == "who" and not asked.plural and head.tag_ in ("NNS", "NNPS"))):
        return False  # "Ilse was a very fine young woman" or "no fonder of plays than Tom" is what she is like,
        # and "Ilse and Vera were sisters" what the two are: not who Ilse is
    if _speakers(span, words.text):
        return False  # "'It was my friend Ida Roe,' said she": whose friend, the line does not say
    heading = words.text.strip().rstrip(".:") in words.context_text  # the heading itself names, it says nothing
    if words.verbless and not heading and any(words.in_context(t) or words.in_intro(t) for t in asked.terms if t.hard):
        return True
    if not heading and any(t.hard and t.role == "noun" and words.headed_as(t.key) for t in asked.terms):
        return True  # "Written by Rhea Tolland." under "Authors": the heading says what its names are
    if doc is not None and span.first >= 0 and any(
            (verb := agent_verb(t.key, doc)) is not None and _doer(span_head(span, doc), verb)
            for t in asked.terms if t.hard and t.role == "noun"):
        return True  # "Edited by Sunniva Dahl": she is an editor
    if _bracketed(span, words, asked):
        return True  # "The RPL (read-ahead page list)", "the write-ahead log (WAL)"
    label = re.search(r"([^:]*):\s*$", words.text[:span.start]) if span.start >= 0 else None
    labelled = label is not None and len(WORD.findall(label.group(1))) <= LABEL_MOST and any(
        same(key(w), t.key) for w in WORD.findall(label.group(1)) for t in asked.terms if t.hard or t.key == asked.focus)
    if labelled or doc is None or span.first < 0:  # "X: S": the label before the colon must be X ("Version: bc
        return labelled  # 1.01" is no bc); a glossary's "CITGM: Canary In The Gold Mine", parsed or not
    if all(t.is_stop or not t.is_alpha for t in doc[span.first:span.last + 1]):
        return False  # "Next was Tam": a word that only points or orders names nothing
    head = span_head(span, doc)
    terms = {i for t in asked.terms if t.hard and not _honorific(t, asked) for i in words.find(t)} - _wife_of(asked, doc) \
        | _standing_for(asked, words, doc)  # a title alone is no one: the "Mrs." of "Mrs. Tolland" is not Mrs. Roe's
    if not terms:
        return False
    if _titled(head, terms, words, asked):
        return True  # "Captain Ilsa Moor of the Heron" is the Heron's captain
    linked = set()
    if head.dep_ in ("attr", "nsubj", "nsubjpass") and head.head.lemma_ == "be":
        linked |= {i for c in head.head.children if c.dep_ in ("nsubj", "attr") and c.i != head.i
                   and not _utterance(c) for i in _named(c)}
    if (defining := defining_verb(head)) is not None:  # "X means Y", "X refers to Y": Y is what X is
        linked |= {i for c in defining.children if c.dep_ == "nsubj" for i in _named(c)}
    if head.dep_ == "appos" and _apposed(doc, head.head, head):
        linked |= _named(head.head)
    linked |= {i for c in head.children if c.dep_ == "appos" and _apposed(doc, head, c) for i in _named(c)}
    linked |= {i for c in _side_by_side(head) for i in _named(c)}
    linked |= {t.i for c in head.children if c.dep_ == "acl" and c.lemma_ in ("name", "call")
               for t in c.subtree if t.i != c.i}  # "a miller named Ilse Marr"
    if head.head.dep_ == "acl" and head.head.lemma_ in ("name", "call") and head.head.i != head.i:
        described = head.head.head
        linked |= _named(described)  # the name of "a miller named Ilse Marr"
        if described.dep_ == "appos" and _apposed(doc, described.head, described):
            linked |= _named(described.head)  # "My father, a cooper named Aldo Finch": he is the father too
    if head.dep_ in ("oprd", "attr", "xcomp") and head.head.lemma_ in ("name", "call"):
        linked |= {i for c in head.head.children if c.dep_ == "nsubjpass" for i in _named(c)}  # "his wife was named Ilsa"
    return bool(terms & linked) or named_so(asked, span, doc)


DEFINING_VERBS = frozenset("mean denote refer".split())
"""Verbs by which a text defines a term: "X means Y", "X denotes Y", "X refers to Y"."""


def defining_verb(token: Any) -> Any | None:
    """The defining verb whose object ``token`` is: "means the source" (the source), "refers to a work" (a work)."""
    verb = token.head.head if token.dep_ == "pobj" and token.head.lower_ == "to" else token.head
    named = token.dep_ == "dobj" or token.dep_ == "pobj" and verb.lemma_.lower() == "refer"
    return verb if named and verb.lemma_.lower() in DEFINING_VERBS and verb.i != token.i else None


def _wife_of(asked: Asked, doc: Any) -> set[int]:
    """The words of a man's full name that "Mrs." sets before it, where the question names him without a title.

    "Mrs. Tam Rolle" is Tam Rolle's wife, as English wrote a married woman's name: what the line says
    she is says nothing of who Tam Rolle is.
    """
    names = [t for t in asked.terms if t.hard and t.role == "name"]
    if len(names) < 2 or any(t.text.lower().rstrip(".") in TITLES for t in names):
        return set()
    first = names[0].text.lower()
    return {j for t in doc if t.lower_ == first and t.i > 0 and doc[t.i - 1].lower_.rstrip(".") == "mrs"
            for j in range(t.i, min(t.i + len(names), len(doc)))}


def _standing_for(asked: Asked, words: LineWords, doc: Any) -> set[int]:
    """The pronouns of a line that stand for a name the question asks about: the narrator's "I", a doer's "she"."""
    names = [t for t in asked.terms if t.hard and t.role == "name"]
    out: set[int] = set()
    for said, pronouns in ((words.narrator, ("i", "me")), (words.doers, ("he", "she", "him", "her"))):
        if said and any(same(t.key, key(w)) for t in names for w in WORD.findall(said)):
            out |= {t.i for t in doc if t.lower_ in pronouns}
    return out


def _bracketed(span: Span, words: LineWords, asked: Asked) -> bool:
    """Whether the span and a name the question asks about stand side by side, one in brackets after the other."""
    if span.start < 0:
        return False
    before, after = words.text[:span.start].rstrip(), words.text[span.end:].lstrip()
    names = [t.text for t in asked.terms if t.hard and t.role == "name"]
    return any(before.endswith("(") and before[:-1].rstrip().lower().endswith(n.lower()) and after.startswith(")")
               or after.startswith("(") and after[1:].lstrip().lower().startswith(n.lower()) for n in names)


def _titled(head: Any, terms: set[int], words: LineWords, asked: Asked) -> bool:
    """Whether a name's own title is the noun asked about, and what the question ties to it hangs on the name.

    "Captain Ilsa Moor of the Heron" answers "who is the captain of the Heron?"; "Captain Moor sailed
    past the Heron" does not (the Heron is not the name's), nor does "Captain Moor" with the Heron only in
    the sentences around it.
    """
    nouns = [t.key for t in asked.terms if t.hard and t.role == "noun"]
    if head.pos_ != "PROPN" or not nouns:
        return False
    titles = {c.i for c in head.children if c.dep_ == "compound" and c.i < head.i and any(is_word(c, n) for n in nouns)}
    inside = {t.i for t in head.subtree}
    return bool(titles) and terms <= inside and all(words.find(t) for t in asked.terms if t.hard)


def _doer(head: Any, verb: Any) -> bool:
    """Whether ``head`` is the doer of ``verb``: its subject, or the object of its "by" in the passive."""
    while head.dep_ == "conj" and head.head.i != head.i:
        head = head.head
    return head.dep_ == "nsubj" and head.head.i == verb.i or head.dep_ == "pobj" and head.head.dep_ == "agent" \
        and head.head.head.i == verb.i


def _side_by_side(head: Any) -> list[Any]:
    """Objects of one verb written next to each other with no comma, one owned: "took Melda his wife".

    The parse makes them two objects; older prose sets a name and what the person is side by side so.
    """
    if head.dep_ not in ("dobj", "pobj"):
        return []
    return [c for c in head.head.children if c.dep_ == head.dep_ and c.i != head.i
            and (c.left_edge.i == head.right_edge.i + 1 or head.left_edge.i == c.right_edge.i + 1)
            and any(g.dep_ == "poss" for g in (c, head)[c.i < head.i].children)]


GENERIC_PERSONS = frozenset("man woman person creature fellow girl boy gentleman lady child being soul".split())
"""Nouns that name a human being and no role, relation or kind: "a fine young man" says what one is like."""


def _honorific(term: Term, asked: Asked) -> bool:
    """A title the question sets before a name ("Mrs." of "Mrs. Roe"), not the thing asked ("the Mayor of Nowhere")."""
    return term.text.lower().rstrip(".") in TITLES and re.search(
        rf"\b{re.escape(term.text.rstrip('.'))}\.?\s+[A-Z]", asked.text) is not None


def _only_like(head: Any) -> bool:
    """A span that says what someone is like, not who.

    A generic person noun with nothing but adjectives and a determiner ("a very superior creature") or a
    comparison ("no fonder of the play than Tom"); "a man of Nantucket", "the woman who kept the inn" and
    "the ferry man" say who; "a fine man" does not.
    """
    generic = head.lemma_.lower() in GENERIC_PERSONS and all(
        c.dep_ in ("det", "amod", "advmod", "punct") and c.pos_ != "PROPN" for c in head.children)
    compared = any(t.lower_ == "than" for t in (*head.subtree, *head.head.children)) or head.tag_ in ("JJR", "RBR")
    return generic or compared


def _speakers(span: Span, text: str) -> bool:
    """A span owned by "my", "your" or "our" inside a quotation: the speaker's or the listener's, unnamed.

    Outside quotation marks, "my brother" is the narrator's, whom the book's own "I" names.
    """
    before = text[:max(span.start, 0)]
    quoted = before.count("“") > before.count("”") or before.count('"') % 2 == 1
    return span.start >= 0 and quoted and bool(re.match(r"(?:my|your|our)\b", span.text, re.IGNORECASE))


def _utterance(phrase: Any) -> bool:
    """A quotation that ends as speech does ("'Ilse, Ilse!' was the cry"): it is the words said, not the one named."""
    doc, left, right = phrase.doc, phrase.left_edge.i, phrase.right_edge.i  # the marks may hang on the phrase
    opened = doc[left].text in _QUOTES or 0 < left and doc[left - 1].text in _QUOTES
    closed = right if doc[right].text in _QUOTES else right + 1 if right + 1 < len(doc) and doc[
        right + 1].text in _QUOTES else 0
    return opened and closed > left + 1 and doc[closed - 1].text in (",", "!", "?")


def _named(phrase: Any) -> set[int]:
    """The tokens that say what a noun phrase is: its head and the words of its name ("the chief mate").

    Not what hangs on it: "the grave of Tam" is a grave, and says nothing of what Tam is.
    """
    return {phrase.i} | {c.i for c in phrase.children if c.dep_ in ("compound", "flat", "amod", "nmod")}


def _apposed(doc: Any, anchor: Any, appositive: Any) -> bool:
    """Whether the parse's apposition is one: nothing between the two but the anchor's own phrase.

    The narrator's words and the speaker's are no apposition ("said Tom, the mate, “Ann is here”"), nor
    are bare names side by side, the start of a list or one beside many, and neither is a phrase a verb of
    another clause stands before ("Perth, withdrawing his iron, began hammering it upon the anvil — the red mass sending off sparks":
    the mass is no Perth).
    """
    inner = {t.i for t in appositive.subtree}
    own = {t.i for t in anchor.subtree} - inner
    between = doc[min(anchor.i, appositive.i) + 1:max(anchor.i, appositive.i)]
    bare_names = anchor.pos_ == appositive.pos_ == "PROPN" and not any(  # "the court of Philip, Alexander,
        c.dep_ in ("det", "amod", "prep") for c in appositive.children)  # Croesus"; "Ty Coon, President of Vice" a title
    goes_on = any(c.dep_ == "conj" and c.pos_ == "PROPN" or c.dep_ == "cc" and doc[c.i - 1].text == ","
                  for c in appositive.children)  # "she, Ida, and Mrs Roe"; "Tom, the mate and cook" is one man
    one_and_many = (anchor.tag_ in ("NNS", "NNPS")) != (appositive.tag_ in ("NNS", "NNPS"))  # "Ida, the Holms"
    return not (bare_names or goes_on or one_and_many) and not any(
        t.text in _QUOTES or t.pos_ in ("VERB", "AUX") and t.i not in own | inner for t in between)


_QUOTES = frozenset('"“”‘’«»')


def owner_before(asked: Asked, term: Term, words: LineWords, doc: Any | None) -> bool:
    """Whether the line's possessive pronoun on the thing asked about can stand for the owner the question names.

    The owner must be the one name in the sentence before: "Maeve painted it. Her brother Tomas arrived"
    (Maeve's brother); after "Ilsa met Maeve" the line does not say whose brother he is.
    """
    if doc is None or term.role != "name" or not any(same(w, term.key) for w in map(key, WORD.findall(
            words.previous_text))):
        return False
    others = [w for w in re.findall(r"\b[A-Z][a-z]+", words.previous_text)
              if w.lower() not in FUNCTION_WORDS and not same(key(w), term.key)]
    if others and not _sole_subject(words.previous_text, term):
        return False  # "Ilsa met Maeve. Her brother …": whose brother the line does not say
    things = [thing for thing, owner in asked.owners if same(owner, term.key)]
    return any(same(key(t.lemma_), thing) and any(c.dep_ == "poss" and c.lower_ in ("his", "her", "their")
                                                  for c in t.children) for t in doc for thing in things)


def _sole_subject(sentence: str, term: Term) -> bool:
    """Whether ``term`` names the subject of ``sentence`` and no other name stands outside that subject but in a place.

    "Bram the son of Oswin was born in Hale. His mother …": Bram's mother (Oswin is part of the subject's
    phrase, Hale a place); after "Ilsa met Maeve" the possessive may be either's.
    """
    from karaka.nlp import parse

    doc = parse(sentence)
    subject = next((t for t in doc if t.dep_ in ("nsubj", "nsubjpass") and t.head.dep_ == "ROOT"), None)
    if subject is None or not same(key(subject.text), term.key):
        return False
    inside = {t.i for t in subject.subtree}
    return not any(t.pos_ == "PROPN" and t.i not in inside and not any(
        a.pos_ == "ADP" and a.lower_ in k.SPATIAL for a in t.ancestors) for t in doc)
