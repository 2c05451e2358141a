"""Values a line names for what is asked about, whatever their shape: the default a sentence gives a setting."""

from __future__ import annotations

import re
from typing import Any

from karaka.answering.question import Asked
from karaka.answering.stems import key, same
from karaka.nlp.phrases import span as phrase
from karaka.words import WORD

DEFAULTS_TO = re.compile(r"\bdefaults?\s+to\s+([^.,;:()\s][^.,;:()]*)", re.IGNORECASE)
_CLAUSE_GOES_ON = re.compile(r"\s+(?:unless|if|when|and|or|but|which|because|so)\b.*", re.IGNORECASE)
_GERMAN_DEFAULT_IS = re.compile(r"\b(Standard(?!i[sz])\w{3,}|Vorgabe\w*|Voreinstellung)\b((?:\s+[^\s.;:]+){0,3}?)\s+"
                                r"(?:ist|sind|lautet|lauten)\s+[»„\"]?([^\s.,;:»“\"]+)")
"""A German default named by its compound and a copula: "Das Standardsignal für kill ist TERM"."""
_DEFAULT_FIELD = re.compile(r"[\[(]\s*(?:by\s+default|default|per\s+Vorgabe|standardmäßig|par\s+défaut)\s*:?\s*"
                            r"([^\s\])]+)\s*[\])]", re.IGNORECASE)
"""A default given in brackets: "[default: bb.out.%p]", "(default: 3)", "(by default SIGTERM)", "(per Vorgabe SIGTERM)"."""
MOST_WORDS = 6
"""A value is a word or a short phrase ("letter", "the number of CPUs"); more words after "defaults to" say how the
default is found, which is no value to show."""


def named_defaults(asked: Asked, text: str, doc: Any | None) -> list[tuple[str, int]]:
    """Words the line says are the default of what is asked about, whatever their shape.

    "The default mode is wideband", "The page size defaults to letter": each only where the sentence
    names the thing asked about.
    """
    def of_focus(words: str) -> bool:
        return not asked.focus or any(same(key(w), asked.focus) for w in WORD.findall(words.lower()))

    found = []
    for m in DEFAULTS_TO.finditer(text):
        raw = _CLAUSE_GOES_ON.sub("", m.group(1)).rstrip()
        value = raw.strip("`")  # "defaults to `info`": the code's own text
        sentence = re.split(r"(?<=[.!?])\s+", text[:m.start()])[-1]
        if value and len(value.split()) <= MOST_WORDS and of_focus(sentence):
            found.append((value, m.start(1) + len(raw) - len(raw.lstrip("`"))))
    for m in _DEFAULT_FIELD.finditer(text):  # "--bb-out-file=<name> [default: bb.out.%p]": the value whole
        found.append((m.group(1), m.start(1)))
    for m in _GERMAN_DEFAULT_IS.finditer(text):  # "Das Standardsignal für kill ist TERM."
        if asked.focus in m.group(1).lower() or of_focus(m.group(2)):  # the compound's own noun, or one after it
            found.append((m.group(3), m.start(3)))
    for t in doc if doc is not None else ():
        subject = next((c for c in t.head.children if c.dep_ == "nsubj"), None)
        if t.dep_ in ("attr", "acomp") and t.head.lemma_ == "be" and subject is not None and any(
                w.lower_ in ("default", "defaults") for w in subject.subtree) and t.pos_ in ("NOUN", "ADJ", "PROPN") \
                and of_focus(" ".join(w.text for w in subject.subtree)):
            found.append((phrase(t), t.left_edge.idx))  # "the number of CPUs", not "the number"
        elif t.dep_ == "attr" and t.head.lemma_ == "be" and subject is not None and subject.pos_ in ("NOUN", "PROPN") \
                and any(w.lower_ == "default" for w in t.subtree) and of_focus(" ".join(w.text for w in t.subtree)):
            found.append((phrase(subject), subject.left_edge.idx))  # "since Frobz is the default tool": the other way
    return found
