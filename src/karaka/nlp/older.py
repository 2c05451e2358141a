"""Older English the small model misreads: strong pasts it does not know, and clauses it parses with no verb.

The model learned from modern news and web text. An older book's strong past tenses ("spake",
"bare") are missing from its lemmatizer's table, and a rare past it does know ("begat", "strove")
it may tag as a noun, so that "And Reuel begat Hobab." parses as one noun phrase with no action at
all. Such a sentence is parsed once more with the past replaced by a common verb of the same
place ("met" before an object, "went" before anything else), and that parse is given back with
the sentence's own words and the verb's own lemma. The same holds for a present tense the tagger
reads as a plural noun after a name it does not know ("Inkpot converts Markdown notes to PDF.").
"""

from __future__ import annotations

from typing import Any

from karaka.words import AUXILIARIES

OLDER_PASTS = {
    "spake": ("speak", "spoke"), "bare": ("bear", "bore"), "brake": ("break", "broke"), "clave": ("cleave", "clove"),
    "drave": ("drive", "drove"), "gat": ("get", "got"), "sware": ("swear", "swore"), "tare": ("tear", "tore"),
    "shewed": ("show", "showed"), "digged": ("dig", "dug"), "holpen": ("help", "helped"), "wist": ("wit", "knew"),
}
"""Early Modern English strong pasts (and a weak "shewed") that modern English spells otherwise, with their verb and
its modern past: a closed class of the grammar of the period, not words of one text. Only one right after its
subject is read as a verb ("Melda bare him a son"; "bare feet" stays an adjective)."""

_OBJECT_STARTS = ("DET", "PROPN", "NOUN", "PRON", "NUM", "ADJ")
_SUBJECT_ENDS = ("NOUN", "PROPN", "PRON")


def past_of_older(word: str) -> str:
    """The verb an older strong past belongs to ("spake" → "speak"), or ""."""
    return OLDER_PASTS.get(word.lower(), ("", ""))[0]


def read_again(doc: Any, model: Any, irregular: Any) -> Any:
    """``doc``, or the parse of the same sentence with a modern verb in place of an older or misread past.

    An older past right after its subject is parsed as its modern past ("bare" as "bore"). In a
    sentence the tagger left with no verb at all, a past it knows (``irregular`` maps a word to its
    verb's lemma, "" for none) right after its subject is parsed as a common verb of the same place
    ("met" before an object, "went" before anything else), and a plural noun right after a name
    opening it as a present tense ("Inkpot converts …": "makes"), as is a present tense the tagger made an
    auxiliary ("Osprey hides lost packets": "hides" no auxiliary). The parse keeps the sentence's own words,
    with the verb's own lemma. A past the tagger calls a verb but leaves unlemmatised gets its lemma.
    """
    for token in doc:  # "strove" tagged a verb but left unlemmatised
        if token.pos_ == "VERB" and token.lemma_.lower() == token.lower_ and (verb := irregular(token.text)):
            token.lemma_ = verb
    if len(doc) < 3:
        return doc
    after_subject = [t for t in doc[1:-1] if doc[t.i - 1].pos_ in _SUBJECT_ENDS]
    older = next((t for t in after_subject if t.lower_ in OLDER_PASTS), None)
    misread = next((t for t in after_subject if t.pos_ == "AUX" and t.lower_ not in AUXILIARIES
                    and t.lower_.endswith("s") and t.lower_ != "'s"), None)  # "Osprey hides lost packets"
    if older is not None:
        past, (lemma, stand_in) = older, OLDER_PASTS[older.lower_]
    elif misread is not None:
        from karaka.nlp import verb_lemma

        past, lemma, stand_in = misread, verb_lemma(misread.text), "makes"
    elif doc[-1].text in (".", "!", "?", ";", ":") and not any(t.pos_ in ("VERB", "AUX") for t in doc):
        past = next((t for t in after_subject if irregular(t.text)), None)  # not a heading ("The Left Bank")
        if past is not None:
            lemma, stand_in = irregular(past.text), "met" if doc[past.i + 1].pos_ in _OBJECT_STARTS else "went"
        else:  # "Inkpot converts Markdown notes to PDF.": a present tense read as a plural noun after a name
            past = next((t for t in doc[1:4] if t.tag_ == "NNS" and doc[t.i - 1].text[:1].isupper()
                         and doc[t.i + 1].pos_ in _OBJECT_STARTS), None) or next(  # an object after it: "Red
                (t for t in doc[2:-2] if t.tag_ == "NNS" and t.dep_ == "ROOT" and doc[t.i - 1].dep_ in ("compound", "nsubj")
                 and doc[t.i - 1].head.i == t.i and doc[t.i + 1].pos_ in _OBJECT_STARTS), None)  # apples on …" is
            # none; "For tar files, quux checks a CRC": the subject the parse made the root's compound or subject
            if past is None:
                return doc
            lemma, stand_in = past.lemma_, "makes"
    else:
        return doc
    return read_with(doc, model, past, stand_in, lemma, "VERB") or doc


def read_with(doc: Any, model: Any, token: Any, stand_in: str, lemma: str, pos: str) -> Any | None:
    """``doc`` parsed again with ``stand_in`` in ``token``'s place, over its own words and ``lemma`` for the token.

    None when the sentence read so splits into other tokens, or the stand-in is not read as ``pos``.
    """
    other = model(doc.text[:token.idx] + stand_in + doc.text[token.idx + len(token.text):])
    if len(other) != len(doc) or other[token.i].pos_ != pos:
        return None
    lemmas = [t.lemma_ for t in other]
    lemmas[token.i] = lemma
    return keep_words(doc, other, lemmas, names=doc)


def keep_words(doc: Any, other: Any, lemmas: list[str] | None = None, names: Any = None) -> Any:
    """``other``'s parse of a sentence read otherwise, over ``doc``'s own words (and ``names``' entities, else its own).

    ``other`` has as many tokens as ``doc``: the same sentence with a word put in or its case changed.
    """
    from spacy.tokens import Doc

    return Doc(doc.vocab, words=[t.text for t in doc], spaces=[bool(t.whitespace_) for t in doc],
               tags=[t.tag_ for t in other], pos=[t.pos_ for t in other],
               lemmas=lemmas if lemmas is not None else [t.lemma_ for t in other],
               morphs=[str(t.morph) for t in other], heads=[t.head.i for t in other], deps=[t.dep_ for t in other],
               ents=[f"{t.ent_iob_}-{t.ent_type_}" if t.ent_type_ else "O" for t in (names if names is not None else other)])
