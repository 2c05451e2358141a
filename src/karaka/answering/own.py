"""Whether a span is the question's own words: what it names, spells out or repeats is never its answer."""

from __future__ import annotations

import re

from karaka.answering import kinds as k
from karaka.answering.acronyms import abbreviation
from karaka.answering.identity import defined
from karaka.answering.line import ACRONYM, spelled_out
from karaka.answering.question import Asked, code_tokens
from karaka.answering.span import Span
from karaka.answering.stems import key, same
from karaka.words import FUNCTION_WORDS, WORD


def in_question(asked: Asked, span: Span) -> bool:
    """A span the question itself holds ("12 rooms" of "the inn with 12 rooms"), or made of its words.

    Code is read as written: case tells identifiers apart, so ``FROBZ`` (an environment variable) is
    not the program ``frobz`` that the question names. A code-shaped word of the kind asked for is
    never its answer, in any case: "ENVIRONMENT" (a manual's heading) names no environment variable.
    """
    thing = WORD.findall(defined(asked).lower())  # as written: "combining" does not name a "Combined Work"
    if thing and all(w in WORD.findall(span.text.lower()) for w in thing):
        return True  # "--tool=massif" names Massif: it does not say what Massif is
    if span.kind == k.CODE and asked.kind == k.TERM and any(
            w.lower() == t.text.lower() for w in WORD.findall(span.text) for t in asked.terms if t.role == "name"):
        return True  # nor what Massif does, counts or keeps: code that writes a name the question asks about
    if span.kind == k.CODE:
        if asked.focus:
            focus = {asked.focus} | {t.key for t in asked.terms if t.head == asked.focus}
            own = [key(w) for w in WORD.findall(span.text)]
            if own and all(any(same(w, f) for f in focus) for w in own):
                return True  # "ENVIRONMENT" names no environment variable: it is the kind asked for
        if "." in span.text and any(span.text.rsplit(".", 1)[1] == t.text for t in asked.terms if t.role == "name"):
            return True  # "tty.ReadStream" is the ReadStream the question names, qualified by its module
        bare = span.text.removesuffix("()")
        if any(bare == c[:-2] or bare.endswith("." + c[:-2]) for c in code_tokens(asked.text) if c.endswith("()")):
            return True  # "timersPromises.scheduler.yield" is the question's "scheduler.yield()", qualified
        # an identifier is named after what it holds (CACHE_DIR answers "which variable holds the cache
        # dir?"): only a token or phrase the question writes as it is written is the question's own
        return any(n in span.text or span.text in n for n in code_tokens(asked.text) if n) or \
            not span.text.startswith("-") and _phrase(span.text) in _phrase(asked.text)  # "--test" for "a test run"
        # is a flag named after what it does, as CACHE_DIR is; the question wrote the word, not the flag
    low = _phrase(span.text.lower(), numbers=True)  # "two" is "2"
    unpathed = re.sub(r"\S*/\S*", " ", asked.text.lower())  # "mail" is no word the question wrote in "/var/mail"
    if low.strip() and low in _phrase(unpathed, numbers=True):
        return True
    if any(n and (n in span.text.lower() or _word_of(span.text.lower(), n)) for n in asked.named):
        return True
    own = [key(w) for w in WORD.findall(span.text) if w.lower() not in FUNCTION_WORDS]
    if not own or span.kind in (k.QUANTITY, k.DATE, k.VERSION):
        return False
    if asked.focus and all(same(w, asked.focus) for w in own):
        return True  # "the method" is no method's name
    if all(any(same(w, key(n)) for n in k.KIND_NOUNS) and re.search(rf"\b{re.escape(w)}", asked.text, re.IGNORECASE)
           for w in own):
        return True  # "a kind" answers no "what kind of licence is it?": the question's frame
    own = [w for w in own if not (asked.focus and same(w, asked.focus))]  # "port 7000": the focus is not repeated
    spelled = {key(w) for a in ACRONYM.findall(asked.text) for m in spelled_out(a, span.text) for w in m.group(0).split()
               } if not thing and not abbreviation(asked) else set()  # "What is ZAP?", "What does ZAP stand for?":
    # "Zone Access Protocol" is what it is
    repeated = sum(any(same(w, t.key) for t in asked.terms) or w in spelled for w in own)  # "Lesser GPL" written out
    if span.kind in (k.NAME, k.TERM, k.PLACE) and not thing and not asked.defines:  # "Harbour Guide Edition" names
        # what was asked about; what a defined term is may reuse its words ("the Corresponding Source for the Work" of
        # a "Least Corresponding Source"), and so may what a thing does or what happens to it ("Non-integer delays
        # are truncated to an integer")
        return repeated >= 0.5 * len(own)
    return repeated == len(own)


def _word_of(text: str, name: str) -> bool:
    """Whether ``text`` is a whole word of ``name``: "mail" is not one of "/var/mail", "Moor" is of "Ilsa Moor"."""
    return re.search(rf"(?<![\w/.\\-]){re.escape(text)}(?![\w/.\\-])", name) is not None


_DIGITS = {w: str(n) for n, w in enumerate("zero one two three four five six seven eight nine ten eleven twelve".split())}


def _phrase(text: str, numbers: bool = False) -> str:
    """A text's words, one space between and around, as phrases are compared ("two" as "2" with ``numbers``)."""
    return " " + " ".join(_DIGITS.get(w, w) if numbers else w for w in WORD.findall(text)) + " "
