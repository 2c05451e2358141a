"""A sentence written in capitals, or opening in lower case, parsed as if it were written in sentence case.

Licences shout their disclaimers ("THE SOFTWARE IS PROVIDED "AS IS", WITHOUT WARRANTY OF ANY
KIND."), and the small tagger reads a run of capitals as proper nouns: no verb, no action. The
sentence is parsed again in lower case after its first letter, and keeps its own words. A manual
page opens its sentences with a command's name in lower case ("tarn runs on Linux."), which the
tagger reads as a noun before a plural noun, again with no verb: such a sentence is parsed again
with a capital first letter.
"""

from __future__ import annotations

from typing import Any

from karaka.nlp.older import keep_words

MIN_WORDS = 5
"""Fewer words in capitals are a heading or a name ("EXIT STATUS", "GNU GPL"), not a shouted sentence."""


def read_cased(doc: Any, model: Any) -> Any:
    """``doc``, or the parse of its sentence-case text with its own words.

    When it is written in capitals, or opens in lower case with no verb.
    """
    letters = [c for c in doc.text if c.isalpha()]
    words = [t for t in doc if t.is_alpha]
    first = next((t for t in doc if not t.is_space), None)
    if first is not None and first.is_alpha and first.is_lower and len(words) >= 3 and doc[-1].is_punct \
            and not any(t.pos_ in ("VERB", "AUX") for t in doc):  # "tarn runs on Linux."
        text = doc.text[:first.idx] + first.text[:1].upper() + doc.text[first.idx + 1:]
    elif len(words) >= MIN_WORDS and sum(c.isupper() for c in letters) >= 0.9 * len(letters):
        text = doc.text[:1] + doc.text[1:].lower()
    else:
        return doc
    other = model(text)
    return keep_words(doc, other) if len(other) == len(doc) else doc
