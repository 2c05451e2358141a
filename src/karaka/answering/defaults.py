"""How a line calls a value the default: "default: 88", "defaults to 88", "88 (the default)", "Standardmäßig …"."""

from __future__ import annotations

import re

from karaka.answering import kinds as k
from karaka.answering.line import LineWords
from karaka.answering.question import Asked, Term
from karaka.answering.span import Span
from karaka.answering.stems import key, same
from karaka.words import FUNCTION_WORDS, WORD

_DEFAULT = re.compile(r"\b(?:defaults?|default(?:s|ed)? (?:to|is|value)|by default|standard(?:(?!i[sz])[a-zäöüß]{3,})?|"
                      r"voreingestellt|"
                      r"voreinstellung|vorgabe(?:wert)?|par défaut|por defecto|predeterminado)\b", re.IGNORECASE)
"""How a line calls a value the default, in the four languages (every word of ``kinds.DEFAULT_WORDS``; a German
compound: "Standardsignal", "standardmäßig")."""


def said_default(span: Span, text: str, before: str = "") -> bool:
    """Whether the line calls the span the default: "default: 88", "defaults to 88", "88 (the default)".

    A value given with the condition that overrides it is the default too: "listens on port 7070
    unless TERN_PORT is set". So is each entry of a list that the line ``before`` introduces as the
    defaults, with a colon: "The default location is:" over "`/srv/cache` on servers".
    """
    if before.rstrip().endswith(":") and says_default(before):
        return True
    opener = re.match(r"\s*(?:by|per)\s+default\b", text, re.IGNORECASE)  # "By default, the files are owned by …"
    if opener and 0 <= span.start and not re.search(r"[;.]\s", text[opener.end():span.start]):
        return True  # the clause it opens says what holds by default, all of it
    for m in _DEFAULT.finditer(text):
        gap = text[m.end():span.start] if m.end() <= span.start else text[span.end:m.start()]
        if len(gap) <= 40 and not re.search(r"[;.]\s", gap):
            return True
    unless = re.search(r"\bunless\b", text[span.end:]) if span.end >= 0 and span.kind in (k.QUANTITY, k.VALUE) \
        else None  # a number or a literal; "-q hides the output unless --verbose is given" says no default
    return unless is not None and unless.start() <= 40 and not re.search(r"[;.,]\s", text[span.end:][:unless.start()])


def says_default(text: str) -> bool:
    """Whether a line speaks of a default at all ("Standardmäßig ist dies 450 kiB.", "The default is 3.")."""
    return _DEFAULT.search(text) is not None


_DEFAULT_IS = re.compile(r"\b(?:defaults?|voreinstellung|standardwert|défaut)\b((?:\W+\w+){0,2})\W*$", re.IGNORECASE)
"""A default named right before a value, only function words between: "the default is 3", "defaults to 3"."""


def called_default(span: Span, text: str) -> bool:
    """Whether the line calls the value itself the default, right before it ("the default is 3", "default: 3").

    Narrower than ``said_default``, which also takes a default said further on ("0 … (the default)"):
    this one lets a bare number answer a default question.
    """
    found = _DEFAULT_IS.search(text[:span.start]) if span.start >= 0 else None
    return found is not None and all(w.lower() in FUNCTION_WORDS for w in WORD.findall(found.group(1)))


def default_of_focus(asked: Asked, words: LineWords) -> bool:
    """Whether the line, the line it goes on from or its neighbours name the noun whose default is asked.

    "By default, timesyncd uses the NTP servers X" gives no default port; a heading's "Porting …"
    names no port. A generic noun ("the default value of --x") names its thing otherwise.
    """
    if _generic(asked):
        return True
    noun = focus_term(asked)
    return bool(words.find(noun)) or words.in_intro(noun) or words.in_around(noun)


def names_focus(asked: Asked, words: LineWords) -> bool:
    """Whether a default question's own noun stands in the line itself ("--threshold=X [default: 0.1%]").

    Such a line speaks of the thing asked, whatever heading names its program. A generic noun
    ("Default value: 100" for "the default weight value") names no thing.
    """
    return asked.default and not _generic(asked) and bool(words.find(focus_term(asked)))


def focus_term(asked: Asked) -> Term:
    """The noun asked about as a term a line may hold (the question's own terms leave it out)."""
    return Term(asked.focus, False, asked.focus_text, "noun")


def _generic(asked: Asked) -> bool:
    """Whether the question's noun is none, or one that says no thing of its own ("value", "name")."""
    return not asked.focus or any(same(key(w), asked.focus) for w in k.VALUE_NOUNS | k.CALLED_NOUNS)
