"""What a line calls a span: the kind of thing asked about ("the -q option"), a title before it ("user proxy"), a name.

``focus_near`` reads "which option …?" off the words around a span, ``titled`` finds the words a
bare kind noun names ("runs as user proxy"), ``named_so`` the name "called" or "named" gives the
thing asked about ("the night watchman is called Ortolan").
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING, Any

from karaka.answering import kinds as k
from karaka.answering.question import Asked
from karaka.answering.span import Span
from karaka.answering.stems import key, same

if TYPE_CHECKING:
    from karaka.answering.line import LineWords


_UNSPECIFIED = frozenset("a an any some each every this that these those another".split())
"""Determiners that leave open which one of its kind a phrase is."""


def focus_near(asked: Asked, span: Span, words: LineWords, doc: Any | None = None) -> bool:
    """Whether the line says the span is the kind of thing asked about ("which technique?").

    The span holds the word ("the flush method"), stands right before it with only nouns and
    adjectives between ("Rust target languages", "the -q option"), right after it ("option -q",
    "code: 0-00-1"), or before "as" or a copula and the word ("celadon as the glaze", "oak is
    the wood"). A word that merely stands near is not enough: "a notation into some other
    language" does not make the notation a language; nor is a phrase that leaves open which one
    it is ("a 64K range", "this range"), nor a word inside an identifier (``uid_t`` is no uid).
    """
    if not asked.focus:
        return True
    own = re.findall(r"(?<![^\W\d])[^\W\d_]+(?![^\W\d])", span.text)  # "uid" of ``uid_t`` is no uid; "RFC8878" is an RFC
    whole = re.findall(r"(?<!\w)[^\W\d_]+(?!\w)", span.text)  # words standing alone ("64K" is none)
    if len(whole) == 2 and whole[0].lower() in _UNSPECIFIED and same(key(whole[-1]), asked.focus):
        return False  # "a 64K range", "this range": one of the kind, not which ("a celadon glaze" says which)
    if own and re.search(r"(?:['’]s|\b(?:his|her|its|their|my|your|our))\s+[^\W\d_]+\W*$", span.text, re.IGNORECASE) \
            and same(key(own[-1]), asked.focus):
        return False  # "the White Whale's name", "its method": whose it is, not which
    if own and (same(key(own[-1]), asked.focus) or same(key(own[0]), asked.focus)
                and re.search(r"\d", span.text)):
        return True  # "the flush method", "Rooms 1 through 9"; not "the target language source files"
    if (head := _compound_head(span.text)) and same(key(head), asked.focus):
        return True  # "TypeError" is an error, "tty.ReadStream" a stream: a compound's last word is its kind
    if doc is not None and span.first >= 0:
        return _focus_in_parse(asked.focus, span, doc)
    word = r"[^\W_]+"
    before, after = words.text[:span.start], words.text[span.end:]
    right_after = re.match(rf"\s*[)`'\"’”]*\s*({word})(?:[\s-]+({word}))?", after)  # "`x.target` unit", "15 Zeichen"
    linked = re.match(rf"\s*,?\s*(?:as|is|are|was|were)\s+(?:the\s+|a\s+|an\s+|its\s+)?(?:{word}\s+)?({word})",
                      after)
    preceding = re.search(rf"({word})\s*(?:[:=(]|\bcalled|\bnamed)?\s*[\"'“‘`]?$", before)  # "option '-q'"
    return any(m is not None and any(g is not None and same(key(g), asked.focus) for g in m.groups())
               for m in (right_after, linked, preceding))


def _focus_in_parse(focus: str, span: Span, doc: Any) -> bool:
    """``focus_near`` read off the parse (tokens around the span)."""
    root = span_head(span, doc)
    if root.pos_ in ("NOUN", "PROPN") and is_word(root, focus) and span.last > root.i:
        return True  # "the laws of the State of Oregon": the span is laws, of a state
    if root.dep_ in ("attr", "acomp") and root.head.lemma_ == "be" and any(
            is_word(t, focus) for c in root.head.children if c.dep_ in ("nsubj", "nsubjpass") for t in c.subtree):
        return True  # "the maximum number of retries is 5": the copula says 5 is the number
    if root.dep_ == "pobj" and root.head.lower_ == "as":
        head = root.head.head  # "proposed the root of the cat hierarchy as /var/cache/man": it is the root
        while head.dep_ in ("pobj", "prep") and head.head.i != head.i and not is_word(head, focus):
            head = head.head
        if head.pos_ == "NOUN" and is_word(head, focus):
            return True
    i, words = span.last + 1, 0
    if doc[span.last].tag_ == "POS" or i < len(doc) and doc[i].tag_ == "POS":
        i = len(doc)  # "the White Whale's name": the whale has a name, it is none
    while i < len(doc) and words <= 3 and (doc[i].pos_ in ("NOUN", "PROPN", "ADJ") or _mark(doc[i])
                                           and doc[i].text not in ",;.:"):  # "Version: quill 1.0" labels, no noun run
        if is_word(doc[i], focus):
            return True  # "Rust target languages", "the -q option", "`flush()` method"
        words += not _mark(doc[i])
        i += 1
    j = span.last + 1
    if j < len(doc) and doc[j].lower_ in ("as", "is", "are", "was", "were"):
        k_ = j + 1
        while k_ < len(doc) and k_ <= j + 4 and doc[k_].pos_ in ("DET", "ADJ", "NOUN", "PROPN", "NUM"):
            if is_word(doc[k_], focus):
                return True  # "celadon as the glaze"
            k_ += 1
    before = span.first - 1
    while before >= 0 and (doc[before].text in ("called", "named") or _mark(doc[before])
                           and doc[before].text not in ",;."):
        before -= 1
    return before >= span.first - 4 and before >= 0 and is_word(doc[before], focus)  # "option -q", "code: 0-00-1"


def _mark(token: Any) -> bool:
    """A punctuation mark, a backquote among them (the tagger's ``is_punct`` leaves it out)."""
    return bool(token.is_punct) or token.pos_ == "PUNCT"


def is_word(token: Any, word: str) -> bool:
    """Whether a parsed token is the word of match key ``word``, by its lemma or as written."""
    return same(key(token.lemma_), word) or same(key(token.text), word)


def span_head(span: Span, doc: Any) -> Any:
    """A parsed span's head: its first token's highest ancestor that is still inside the span."""
    head = doc[span.first]
    while head.head.i != head.i and span.first <= head.head.i <= span.last:
        head = head.head
    return head


def named_so(asked: Asked, span: Span, doc: Any | None) -> bool:
    """Whether the line gives the span as the name of the thing asked about: "the night watchman is called Ortolan".

    The subject of "called" or "named" must hold the noun asked about and every word the question
    sets before it ("the day watchman" is another).
    """
    if doc is None or span.first < 0 or not asked.focus:
        return False
    head = span_head(span, doc)
    if head.dep_ not in ("oprd", "attr", "xcomp") or head.head.lemma_ not in ("name", "call"):
        return False
    said = [t for c in head.head.children if c.dep_ == "nsubjpass" for t in c.subtree]
    return any(is_word(t, asked.focus) for t in said) and all(
        any(is_word(t, term.key) for t in said) for term in asked.terms if term.head == asked.focus)


def titled(focus: str, doc: Any) -> list[tuple[str, int]]:
    """Words a bare kind noun before them names: "runs as user proxy", "owned by group mail".

    The noun stands without a determiner, as a title does ("user root"); "the user database" and
    "a proxy user" name no user, and neither does a plural ("user accounts").
    """
    out = []
    for t in doc[:-1]:
        word = doc[t.i + 1]
        if not is_word(t, focus) or t.dep_ != "compound" or word.i != t.head.i:
            continue
        if word.tag_ in ("NNS", "NNPS") or word.pos_ not in ("NOUN", "PROPN", "X") or any(
                c.dep_ in ("det", "poss") for c in word.children) or t.i > 0 and doc[t.i - 1].pos_ in ("ADJ", "NOUN"):
            continue
        if word.i + 1 < len(doc) and doc[word.i + 1].pos_ in ("NOUN", "PROPN"):
            continue  # "user proxy settings": a run of nouns, whose head is the last
        out.append((word.text, word.idx))
    return out


def numbered(asked: Asked, text: str) -> list[Span]:
    """The noun asked about with its number or value.

    "which chapter" → "Chapter 4", "which rooms" → "Rooms 1 through 9", "what code" → "code: 0-00-1".
    """
    if not asked.focus or asked.kind not in (k.TERM, k.CODE, k.VERSION, k.VALUE):
        return []
    out = []
    after = re.compile(r"(?:\s+[^\W\d_]+)?(?:\s+|\s*:\s*)v?\d[\w.-]*(?:\s*(?:through|to|and|-|–)\s*\d[\w.-]*)?")
    for word in re.finditer(r"\b[^\W\d_]{2,}\b", text):
        if not same(key(word.group(0)), asked.focus):
            continue
        m = after.match(text, word.end())
        if m:
            value = text[word.start():m.end()].rstrip(".,")
            out.append(Span(value, k.TERM, word.start(), word.start() + len(value)))
    return out


_TITLE = re.compile(r"[\"“]([^\"”]{2,120})[\"”]")
"""A quoted title: a book's, a paper's."""
_OWNED_WORK = re.compile(r"\s*(?:['’]s?)?\s+(?:[\w-]+\s+){0,2}?[\w-]+\s*,?\s*")
_BY_LIST = re.compile(r"\s*,?\s*by\s+(?:(?:[A-Z][\w.'’-]*\s*)+,?\s*(?:and\s+)?)*")


def credited(term: Any, span: Span, text: str) -> bool:
    """Whether a line credits the span with a work, where the question's verb is an authoring one ("who wrote …?").

    A bibliography says it by form, not by a verb: "Ada Quist and Bo Lind's book "Tides of Varna"" (the
    owner of the work named by its quoted title), "the paper "Counting Small Boats" by R. Holm, T. Vik and
    L. Aas" (who a quoted title is by).
    """
    if span.start < 0 or term.role != "verb" or not any(same(term.key, key(v)) for v in k.AUTHORING_VERBS):
        return False
    owner = span.text.endswith(("'s", "’s", "'", "’"))
    for title in _TITLE.finditer(text):
        between = text[span.end:title.start()]
        if span.end <= title.start() and _OWNED_WORK.fullmatch(between) and (owner or re.match(r"\s*['’]", between)):
            return True
        if title.end() <= span.start and _BY_LIST.fullmatch(text[title.end():span.start]):
            return True
    return False


_THANKS = frozenset("thanks thank gratitude credit".split())
"""Nouns that thank someone "for" what they did: the one thanked is its doer."""


def nominal_doer(asked: Asked, span: Span, doc: Any | None) -> bool:
    """Whether the span is who does the question's action named as a noun or credited with a work.

    "need approval by the CPC" (approve); "Ada Quist's book "Tides"" (write: ``credited``); "Thanks to
    Ada Quist for porting it" (port).
    """
    if asked.verb_term is not None and credited(asked.verb_term, span, doc.text if doc is not None else ""):
        return True  # "Ada Quist's book "Tides"": who wrote it, by the bibliography's form
    if doc is None or span.first < 0 or not asked.verb:
        return False
    head = doc[span.first]
    while head.dep_ in ("compound", "appos", "conj", "flat") and head.head.i != head.i:
        head = head.head  # "the Cross-Project Council (CPC)": the council is the doer
    action = head.head.head if head.dep_ == "pobj" and head.head.lower_ == "by" else None
    if action is not None and action.pos_ == "NOUN" and same(key(action.text), asked.verb):
        return True
    thanked = head.head.head if head.dep_ == "pobj" and head.head.lower_ == "to" else None  # "Thanks to Ada Quist
    return thanked is not None and thanked.lemma_.lower() in _THANKS and any(  # for porting it": she ported it
        g.tag_ == "VBG" and same(key(g.lemma_), asked.verb) for t in thanked.children if t.lower_ == "for" for g in t.children)


def _compound_head(text: str) -> str:
    """The last word of a type's name written in words with capitals ("Error" of ``TypeError``), else "".

    English compounds are headed by their last word, and so are the names of classes and types:
    ``ReadStream`` is a stream, ``ErrorHandler`` a handler, not an error. A qualified name's own
    identifier is its last dotted part ("tty.ReadStream"). A name opening in lower case is a
    function's or a variable's, often opening with a verb (``setRawMode`` is no mode); a name in
    capitals (``ERR_INVALID_TYPE``) or joined by underscores is left alone: its parts need not be words.
    """
    name = text.strip("`'\"()").rsplit(".", 1)[-1]
    words = re.fullmatch(r"[A-Z][a-z]+(?:[A-Z][a-z]+)*([A-Z][a-z]+)", name)
    return words.group(1) if words else ""
