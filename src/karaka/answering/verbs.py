"""The verb of a question and the noun it asks about, found in its parse ("which curl option limits …": limits acts)."""

from __future__ import annotations

import re

from karaka.answering import kinds as k
from karaka.words import AUXILIARIES, FUNCTION_WORDS, LIGHT_VERBS

_NOT_NAMES = FUNCTION_WORDS | {"ought", "need", "dare"}
"""Words a tagger may call an auxiliary or a preposition rightly: never a name mis-tagged."""


def before_auxiliary(tokens: list, start: int):  # type: ignore[no-untyped-def]
    """The word before the auxiliary that closes "which X Y does …" (within four words).

    Whatever the tagger called the words before it ("which storage engine does": a tagger may
    read "storage" as a verb).
    """
    for i in range(start, min(start + 4, len(tokens))):
        if tokens[i].lower_ in AUXILIARIES:
            return tokens[i - 1] if i > start and tokens[i - 1].is_alpha else None
        if not (tokens[i].is_alpha or tokens[i].text == "-") or i > start and tokens[i].pos_ == "ADP":
            return None  # "which option of chage may …": the option is asked for, of chage
    return None


def mistagged_name(tokens: list, i: int) -> bool:  # type: ignore[type-arg]
    """A name the tagger mis-tagged right after "which" or "what", a noun after it ("which curl option").

    After "which" a word tagged as a verb ("which zip tool"; not "what causes cancer"); after either, a
    word tagged as an auxiliary or a preposition that is no such word ("what curl exit code", "what frob
    exit code": a program's name the tagger does not know); after "does", a word tagged as an auxiliary,
    a preposition or a particle before the verb that is no such word ("What does quill do?", "which
    command does sg work like?").
    """
    word, before = tokens[i], tokens[i - 1] if i else None
    if before is None or word.lower_ in AUXILIARIES or i + 1 >= len(tokens):
        return False
    if before.lower_ in ("do", "does", "did") and word.pos_ in ("AUX", "ADP", "PART") and word.is_alpha and not word.is_stop \
            and word.lower_ not in _NOT_NAMES and tokens[i + 1].pos_ in ("VERB", "AUX"):
        return True  # "What does quill do?": the subject between the auxiliary and the verb
    if tokens[i + 1].pos_ not in ("NOUN", "PROPN"):
        return False
    return (before.lower_ == "which" and word.pos_ == "VERB" and word.tag_ in ("VB", "VBP", "VBZ")  # not "what causes"
            or before.lower_ in ("which", "what") and word.pos_ in ("AUX", "ADP") and word.is_alpha and len(word) > 2
            and word.lower_ not in _NOT_NAMES)


def verb_after(tokens: list, i: int):  # type: ignore[no-untyped-def, type-arg]
    """The first word after the asked-about noun that can act: a verb, or a plural-looking word the tagger called a noun."""
    for t in tokens[i + 1:]:
        if t.pos_ in ("VERB", "AUX") and t.lemma_.lower() not in LIGHT_VERBS:
            return t
        if t.pos_ == "NOUN" and t.tag_ in ("NNS", "VBZ") and t.i == i + 1:
            return t  # "which option limits the …": "limits" acts
    return None


IDENTIFIER = re.compile(r"[a-z]\d|\d[a-z]|[a-z][A-Z]")
"""A word written as a name in code ("asn1Coding", "gull2"): it names a thing, whatever the tagger made of it."""


def past_identifier(tokens: list, verb):  # type: ignore[no-untyped-def, type-arg]
    """The verb, or the word after it when the tagger took a name for it ("What does asn1Coding generate?")."""
    if verb is None or not IDENTIFIER.search(verb.text):
        return verb
    return next((t for t in tokens[verb.i + 1:] if t.is_alpha and t.is_lower and t.lower_ not in FUNCTION_WORDS),
                verb)


def head_of_run(tokens: list, start: int):  # type: ignore[no-untyped-def]
    """The last noun of the noun run starting at ``start`` ("X server command-line option" → option)."""
    head = tokens[start]
    i = start
    while i < len(tokens) and (tokens[i].pos_ in ("NOUN", "PROPN", "ADJ", "NUM") or tokens[i].text == "-"
                               or tokens[i].dep_ == "compound" or i == start and mistagged_name(tokens, i)):
        if i > start and _verb_in_disguise(tokens, i):  # "which option prints the output": "prints" is the verb
            return tokens[i - 1] if tokens[i - 1].is_alpha else head  # the run's last word is its head, noun or not
        if tokens[i].pos_ in ("NOUN", "PROPN"):
            head = tokens[i]
        i += 1
    return head


def _verb_in_disguise(tokens: list, i: int) -> bool:  # type: ignore[type-arg]
    """A word tagged as a noun that a determiner or a pronoun follows: in a question it is the verb.

    So is a plural-looking one an adverb or a question word follows ("which option limits only the
    connection phase", "which variable changes where it keeps its data").
    """
    nxt = tokens[i + 1] if i + 1 < len(tokens) else None
    if tokens[i].pos_ != "NOUN" or nxt is None:
        return False
    return nxt.pos_ in ("DET", "PRON") and nxt.dep_ != "poss" and nxt.tag_ not in ("WDT", "WP", "WP$") \
        or tokens[i].tag_ == "NNS" and (
        nxt.pos_ == "ADV" or nxt.lower_ in k.WH_WORDS and nxt.tag_ != "WDT")  # "voices which use …": a relative


def verb_lemma(token) -> str:  # type: ignore[no-untyped-def]
    """A verb's lemma, also where the tagger took it for a noun ("prints" → "print")."""
    if token.pos_ == "VERB":
        return str(token.lemma_)
    from karaka.nlp import verb_lemma

    return verb_lemma(token.text)


def verb_by_position(tokens: list, focus: object):  # type: ignore[no-untyped-def, type-arg]
    """The verb of a question whose parse has none.

    A noun-tagged word a determiner follows ("which option prints the output"), the last word of a
    do-question, whatever its tag ("which version does the guide describe?", "what did Tam lower?"), or
    the participle that ends a passive one ("how are the crates which hold apples labelled?").
    """
    for i in range(1, len(tokens)):
        if tokens[i] is not focus and _verb_in_disguise(tokens, i):
            return tokens[i]
    slot = _after_subject(tokens)
    if slot is not None and slot is not focus:
        return slot  # "what did Tam lower into the well?": the tagger's adverb stands where the verb must
    words = [t for t in tokens if t.is_alpha]
    last = words[-1] if words else None
    if last is not None and any(t.lower_ in ("do", "does", "did") for t in words) and last.pos_ in ("NOUN", "VERB",
                                                                                                   "ADJ") \
            and last is not focus and not any(t.pos_ == "ADP" for t in tokens[max(0, last.i - 3):last.i]):
        return last  # "which version does the guide describe?"; not "… for the mail server?"
    if last is not None and last.tag_ == "VBN" and last is not focus and any(t.lemma_ == "be" for t in words[:3]):
        return last  # "how are the crates which hold apples labelled?": a passive's participle ends it
    return None


_SUBJECT = ("DET", "ADJ", "NUM", "PROPN", "NOUN", "PRON")


def _after_subject(tokens: list):  # type: ignore[no-untyped-def, type-arg]
    """The word after the subject of "did": where the base form of a do-question's verb stands, whatever its tag.

    The subject runs from "did" to its last noun, name or pronoun ("did the old crew | lower"); the word
    after it is the verb when the tagger took it for an adjective or an adverb ("lower", "free"), never
    when it is a function word ("what does Bob do then?": "do" is the verb, a light one).
    """
    do = next((t for t in tokens if t.lower_ in ("do", "does", "did") and t.dep_ == "aux"), None)
    if do is None:
        return None
    end = None
    for t in tokens[do.i + 1:]:
        if t.pos_ not in _SUBJECT:
            break
        if t.pos_ in ("PROPN", "NOUN", "PRON"):
            end = t
    after = tokens[end.i + 1] if end is not None and end.i + 1 < len(tokens) else None
    if after is None or after.pos_ not in ("ADJ", "ADV") or not after.is_alpha or after.lower_ in FUNCTION_WORDS:
        return None
    return after


def stranded(participle) -> bool:  # type: ignore[no-untyped-def]
    """Whether a participle ends its question waiting for the wh-word: "based on?", "used to store?".

    "What is grep based on?" is read by the small tagger as "what is grep (based on)", the
    participle hung on the subject; a preposition or a "to" verb without its object says the
    wh-word is that object, and the participle the question's action. "Who is the man named
    Ishmael?" has its object: the participle describes the man.
    """
    last = max(t.i for t in participle.subtree)
    if any(not t.is_punct for t in participle.doc[last + 1:]):
        return False
    return any(c.dep_ == "prep" and not any(g.dep_ == "pobj" for g in c.children)
               or c.dep_ == "xcomp" and c.tag_ == "VB" and not any(g.dep_ in ("dobj", "prep") for g in c.children)
               for c in participle.children)


def verb_of(doc):  # type: ignore[no-untyped-def]
    """The question's main verb: the root when it is a verb, else the verb the root governs.

    A causative hands on to the verb it governs: "which option makes the printer use both sides" is
    about using them; under a "be", the participle the tagger hung on it or on its subject is the
    verb ("when was a man arrested?", "when is the tide turning?").
    """
    root = next((t for t in doc if t.dep_ == "ROOT"), None)
    if root is None:
        return None
    asker = next((c for c in root.children if c.pos_ == "VERB" and (
        c.dep_ == "csubj" and any(g.dep_ == "nsubj" and g.lower_ in k.WH_WORDS for g in c.children)
        or c.dep_ == "ccomp" and root.i > 0 and doc[root.i - 1].lower_ in ("do", "does", "did")
        and any(g.dep_ == "nsubj" and root.i < g.i < c.i for g in c.children))), None)
    if asker is not None:  # "Who wrote the dpkg triggers specification?" ("triggers" taken for the root);
        return asker  # "What does git bugreport learn …?" (the subject's first word taken for it)
    if root.pos_ == "VERB" and root.lemma_.lower() not in k.CAUSATIVES | LIGHT_VERBS:
        return root
    if root.pos_ in ("NOUN", "ADV", "ADJ") and any(c.dep_ == "aux" and c.lower_ in ("do", "does", "did")
                                                   for c in root.children):
        return root  # "what did Ann nail to the door?", "where do Ann and Tom live?": a noun, an adverb or an
        # adjective takes no "did", the tagger misread the verb
    governed = next((c for c in root.children if c.pos_ == "VERB" and (c.dep_ in (
        "xcomp", "ccomp", "conj", "advcl", "csubj", "pcomp") or c.dep_ == "dobj" and root.lemma_.lower() == "do")), None)
    # "What exit code does frobz return when …?": "does" read as the root, the verb as its object
    if governed is not None:  # "who thought was the finest picture?": the thinking is asked about; "With what
        # did they cut it?": the tagger's root is the fronted preposition, the cutting its complement
        return governed
    if root.lemma_.lower() == "be":  # "when was the old mill built?", "when is the tide turning?": a tagger may
        said = next((c for c in root.children if c.dep_ == "acomp" and c.pos_ == "VERB"), None)  # hang the
        subject = next((c for c in root.children if c.dep_ in ("nsubj", "nsubjpass")), None)  # participle on the noun
        if said is None and subject is not None:
            said = next((c for c in subject.children if c.dep_ == "acl" and c.tag_ in ("VBN", "VBG") and (
                not any(g.dep_ in ("attr", "acomp") for g in root.children) or stranded(c))), None)
        if said is not None:
            return said
    return root if root.pos_ == "VERB" and root.lemma_.lower() not in LIGHT_VERBS else None
