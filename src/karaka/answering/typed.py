"""Whether a span is of the kind a question asks for: a number of the counted thing, a name, a way or a path."""

from __future__ import annotations

import re
from typing import Any

from karaka.answering import kinds as k
from karaka.answering.question import CODE_TOKEN, Asked
from karaka.answering.shapes import code_shape
from karaka.answering.span import Span
from karaka.answering.spans import NUMBER_WORDS, UNIT
from karaka.answering.stems import key, same
from karaka.words import DEICTIC_PRONOUNS, FUNCTION_WORDS, POINTING_WORDS, PRONOUNS, WORD

_ANY_PRONOUN = PRONOUNS | DEICTIC_PRONOUNS
"""Every pronoun, pointing back or at the speaker: alone, it names nothing."""
_POINTING = re.compile(r"(?:this|that|these|those)\s+[^\W\d_]+", re.IGNORECASE)
"""A demonstrative and a bare noun: "this person" stands for someone named before, as a pronoun does."""
_PLACED = re.compile(r"(?:the\s+)?([^\W\d_]+)\s+[^\W\d_]+", re.IGNORECASE)
"""A noun picked by where the text puts it: "the following tags", "the above options"."""
_MULTIPLIER = re.compile(r"thousand|million|billion|trillion|hundred|dozen", re.IGNORECASE)
"""Words after a number that scale it and count whatever the question counts."""
_NOT_TIME_UNIT = re.compile(r"(?:[kKMGTP]i?)?(?:B|b|bit|bits|byte|bytes|bps|Hz|hz)$|%|percent", re.IGNORECASE)


def typed(asked: Asked, span: Span, after: str = "") -> tuple[bool, str]:
    """Whether a span is of the kind asked for, and why not (``after``: the line's text right after it)."""
    kind = asked.kind
    if kind in (k.TERM, k.NAME) and span.text.strip().lower() in _ANY_PRONOUN:
        return False, "a pronoun, which names nothing by itself"  # an action's role says what it stands for
    if kind in (k.TERM, k.NAME) and _POINTING.fullmatch(span.text.strip()):
        return False, "points back to what the line does not name"  # "This person will coordinate the fix"
    if kind in (k.TERM, k.NAME) and (placed := _PLACED.fullmatch(span.text.strip())) and \
            placed.group(1).lower() in POINTING_WORDS:
        return False, "points to where the text names it"  # "The following tags cause a break: br, li"
    if kind == k.TERM and any(same(asked.focus, key(w)) for w in k.CALLED_NOUNS) and not names(span.text):
        return False, f"says of what kind the {asked.focus_text} is, not what it is"  # "a wicked name"
    if kind == k.TERM:
        return True, ""
    if kind == k.VALUE and span.kind == k.VERSION and asked.focus and not any(
            same(asked.focus, key(w)) for w in k.VERSION_NOUNS | k.VALUE_NOUNS):
        return False, f"a version, not a {asked.focus_text}"  # "the LZ77 algorithm used in zip 1.9": 1.9 is no algorithm
    if kind == k.VALUE:  # a number, a literal, a string, a name; not a call or a flag ("load(x=1)", "--quiet")
        shaped = span.kind != k.CODE or code_shape(span.text) in ("name", "variable", "path", "number")
        return span.kind in (k.VALUE, k.QUANTITY, k.CODE, k.VERSION) and shaped and "(" not in span.text, \
            "not a value"
    if kind == k.MANNER and span.kind == k.CODE:  # "how do you install only the library?": by the command
        return code_shape(span.text) != "path", "a path, not a way"
    if kind == k.PLACE and span.kind == k.CODE:  # "where are the programs installed?": in a directory
        return code_shape(span.text) in ("path", "address"), "not a path"
    if span.kind != kind:
        return False, f"a {span.kind}, not a {kind}"
    if kind == k.QUANTITY:
        unit = re.sub(r"^[<>≤≥~]?\s?[\d.,\u202f\s–-]+(?:[kKMGT](?=\s|$))?", "", span.text).strip()  # "256K bytes"
        unit = re.sub(rf"^(?:(?:{NUMBER_WORDS})\b[\s-]*(?:and\s+)?)+", "", unit, flags=re.IGNORECASE).strip()  # "forty"
        if re.search(r"\bhow (long|old|often|soon)\b", asked.text, re.IGNORECASE) and unit and \
                _NOT_TIME_UNIT.search(unit) and not re.search(r"\bhow long (?:is|are|was|were)\b", asked.text,
                                                              re.IGNORECASE):  # "how long is the header?": a size
            return False, f"{span.text!r} measures no time"
        counted = asked.counted or (asked.focus if asked.wh == "how many" and asked.lang == "en" else "")
        measured = re.match(r"\s+of\s+(?:the\s+|his\s+|her\s+|its\s+|their\s+)?([^\W\d_]+)", after)
        if measured and counted and same(key(measured.group(1)), counted):
            return True, ""  # "three cups of flour" measures flour
        if counted and unit and not any(same(key(part), counted) for part in unit.split()[-1].split("/")) and (  # "UIDs/GIDs"
                not UNIT.fullmatch(unit) or UNIT.fullmatch(counted) or UNIT.fullmatch(counted + "s")
                or not _MULTIPLIER.fullmatch(unit.split()[-1]) and not re.search(r"\bhow much\b", asked.text, re.I)):
            # "64 GB" counts no hosts ("2 million" may); "how much memory" is measured in bytes
            return False, f"{span.text!r} counts {unit}, not what was asked"  # "how many meters": not "1 foot"
        if not counted and unit and not UNIT.fullmatch(unit) and re.search(r"\bhow\s+(?:much|many\s+times)\s+(?:more|less|"
                                                                          r"\w+er)\b", asked.text, re.IGNORECASE) \
                and not re.fullmatch(r"x|×|times|fold|-fold", unit.split()[-1], re.IGNORECASE):
            return False, f"{span.text!r} counts {unit}, not how much more"  # "how much faster?": not "two APIs"
        if not counted and unit and not UNIT.fullmatch(unit) and any(same(key(d), asked.focus) for d in k.DIMENSIONS) \
                and not any(same(key(unit.split()[-1]), key(w)) for w in WORD.findall(asked.text)):
            return False, f"{span.text!r} counts {unit}, not a {asked.focus_text}"  # "14 passengers" is no speed
    if kind == k.NAME and span.text.split() and span.text.split()[0].lower() in FUNCTION_WORDS:
        return False, "a role, not a name"
    if kind == k.NAME and asked.wh == "who" and re.fullmatch(r"[^\W\d_]+\s+\d{3,4}", span.text.strip()):
        return False, "a noun and a year, no one's name"  # "… schrieb pwdx im Jahre 2004"
    return True, ""


def names(text: str) -> bool:
    """Whether a span names something: a capitalised word besides function words, a number, a quote or code."""
    return any(w[:1].isupper() and w.lower() not in FUNCTION_WORDS for w in WORD.findall(text)) or any(
        c.isdigit() or c in "\"“”'`«»" for c in text) or bool(CODE_TOKEN.search(text))


def counted_noun(asked: Asked, span: Span, doc: Any | None) -> str:
    """The noun a bare number counts in its line ("one" of "in one round chapter"), or "".

    Only a noun that is neither a unit nor a word of the question: then the number answers nothing else.
    """
    if doc is None or span.first < 0 or span.first != span.last:
        return ""
    number = doc[span.first]
    while number.dep_ == "conj" and number.head.like_num and number.head.i < number.i:
        number = number.head  # "1, 2 and 3 chapters"
    numbered = number.dep_ == "conj" and any(c.dep_ == "nummod" and c.like_num for c in number.head.children)
    if number.dep_ != "nummod" and not numbered:  # "Sections 1 and 2": the 2 numbers sections as the 1 does
        return ""
    noun = number.head
    if noun.pos_ not in ("NOUN", "PROPN") or UNIT.fullmatch(noun.text) or any(
            same(key(noun.lemma_), t.key) or same(key(noun.text), t.key) for t in asked.terms) or any(
            same(key(noun.lemma_), w) for w in (asked.counted, asked.focus) if w):
        return ""
    return noun.text


def labels_an_item(span: Span, text: str) -> bool:
    """Whether a span is a number alone in brackets, the label of an item of a list: "either (1) a copy … or (2) …"."""
    return span.start > 0 and re.fullmatch(r"\d{1,2}|[ivx]{1,4}", span.text.strip()) is not None and re.search(
        r"\(\s*$", text[:span.start]) is not None and re.match(r"\s*\)", text[span.end:]) is not None


def numbers_the_line(asked: Asked, span: Span, text: str) -> bool:
    """Whether a span is the number a line opens with before a name: a verse's or a paragraph's, no amount.

    "5 Egil died …" counts no Egils; "12 Apples were eaten" counts the apples a question asks the number of.
    """
    found = re.fullmatch(r"\d{1,3}\s+([A-Z][a-z]+)", span.text)
    return span.start == len(text) - len(text.lstrip()) and found is not None and not (
        asked.counted and same(key(found.group(1)), asked.counted))
