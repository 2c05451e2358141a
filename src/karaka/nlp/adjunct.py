"""A noun that the small model reads as a verb, right after "which" or "what".

"Which build system compiles pkgconf?" is parsed with "build" as a verb whose object is "system"
and whose clause is the subject of "compiles": the question would ask what builds a system. Such a
question is parsed once more with a plain noun in the verb's place ("Which data system compiles
…?"), and that parse is given back with the question's own words. A word the parse itself
makes the subject or object of the sentence, with "which" as its determiner, and yet tags a verb
("Which function allocates memory?") is a noun. The other way round, a plural noun the parse makes
the root with a subject and an object ("Which environment variable lists host names …?") is the
question's verb, read again with a present tense in its place. After "does", "do" or "did", a name the
tagger made the verb or a noun before the verb ("What does chage return …?", "How does DHAT measure program
progress?") is read again as a plain noun, where that makes the word after it the question's verb.
"""

from __future__ import annotations

from typing import Any

from karaka.nlp.older import read_with
from karaka.words import PRONOUNS

STAND_IN = "data"
"""A noun that is never a verb, put where the misread one stands."""
STAND_IN_VERB = "makes"
"""A present tense that is never a noun, put where a verb read as a plural noun stands."""


def read_adjunct(doc: Any, model: Any) -> Any:
    """``doc``, or its parse with the word after "which"/"what" read as a noun before the noun it modifies."""
    for wh in doc[:-3]:
        word, noun = doc[wh.i + 1], doc[wh.i + 2]
        if wh.lower_ not in ("which", "what") or word.pos_ != "VERB":
            continue
        if wh.head.i == word.i and wh.dep_ == "det" and word.dep_ in ("nsubj", "nsubjpass", "dobj", "pobj"):
            word.pos_, word.tag_ = "NOUN", "NN"  # "Which function allocates …": a subject with "which" is a noun
            return doc
        if word.dep_ == "csubj" and noun.pos_ == "NOUN" and noun.head.i == word.i and word.head.pos_ in ("VERB", "AUX"):
            read = read_with(doc, model, word, STAND_IN, word.lower_, "NOUN")
            return read if read is not None and read[noun.i].pos_ == "NOUN" else doc
    for aux in doc[:-2] if len(doc) and doc[0].lower_ in ("which", "what", "how", "when", "where", "why", "who") else ():
        word, after = doc[aux.i + 1], doc[aux.i + 2]
        if aux.lower_ in ("does", "do", "did") and (word.pos_ in ("VERB", "PROPN", "NOUN") and after.tag_ == "NN" or
                                                    word.pos_ == "PRON" and word.lower_ not in PRONOUNS):
            read = read_with(doc, model, word, STAND_IN, word.lower_, "NOUN")  # "does chage return", "does DHAT
            if read is not None and read[after.i].pos_ == "VERB" and read[after.i].dep_ == "ROOT":  # measure …": the
                if word.pos_ == "PROPN":  # name is the subject, the verb after it the question's
                    read[word.i].pos_, read[word.i].tag_ = "PROPN", "NNP"  # (and the name stays a name)
                return read
    root = next((t for t in doc if t.dep_ == "ROOT"), None)
    if root is not None and root.tag_ == "NNS" and doc[0].lower_ in ("which", "what") and {"nsubj", "dobj"} <= {
            c.dep_ for c in root.children}:  # "Which environment variable lists host names …?": a noun has no
        from karaka.nlp import verb_lemma  # subject and object

        return read_with(doc, model, root, STAND_IN_VERB, verb_lemma(root.text), "VERB") or doc
    return doc
