"""A sentence written in capitals, parsed as if it were written in sentence case.

Licences shout their disclaimers ("THE SOFTWARE IS PROVIDED "AS IS", WITHOUT WARRANTY OF ANY
KIND."), and the small tagger reads a run of capitals as proper nouns: no verb, no action. The
sentence is parsed again in lower case after its first letter, and keeps its own words.
"""

from __future__ import annotations

from typing import Any

from karaka.nlp.older import keep_words

MIN_WORDS = 5
"""Fewer words in capitals are a heading or a name ("EXIT STATUS", "GNU GPL"), not a shouted sentence."""


def read_cased(doc: Any, model: Any) -> Any:
    """``doc``, or the parse of its sentence-case text with its own words when it is written in capitals."""
    letters = [c for c in doc.text if c.isalpha()]
    words = [t for t in doc if t.is_alpha]
    if len(words) < MIN_WORDS or sum(c.isupper() for c in letters) < 0.9 * len(letters):
        return doc
    other = model(doc.text[:1] + doc.text[1:].lower())
    return keep_words(doc, other) if len(other) == len(doc) else doc
