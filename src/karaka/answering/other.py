"""What a line says of another thing than the question's: another action, owner, kind or product.

Each rules a span out that the line's words alone would prove: "The `purge` command deletes …" for
"which command adds …?", "Tom's ship" for "Ann's ship", "the north ward" for the south ward,
"SQLite 3.35" for the Python version.
"""

from __future__ import annotations

import re
from typing import Any

from karaka.answering import kinds as k
from karaka.answering.line import LineWords
from karaka.answering.question import Asked, Term
from karaka.answering.span import Span
from karaka.answering.stems import key, same
from karaka.words import DEICTIC_PRONOUNS, FUNCTION_WORDS


def other_owner(asked: Asked, words: LineWords, doc: Any | None) -> str:
    """Someone else's thing where the question asks of one's own: "my ship" or "Tom's ship" for "Ann's ship".

    A first- or second-person possessive is the speaker's or the listener's, never a third person's
    the question names (unless the line is its narrator's, and the narrator that third person: "my aunt" is
    Wren's in Wren's own lines); "his ship" may be Ann's, and a thing the line gives no owner may be anyone's.
    """
    if doc is None:
        return ""
    for thing, owner in asked.owners:
        places = [i for word, at in words.at.items() if same(thing, word) for i in at]
        owners = [[c for c in doc[i].children if c.dep_ == "poss"] for i in places]
        if not places or any(not found for found in owners):
            continue
        mine = words.narrator and any(same(key(w), owner) for w in words.narrator.split())
        if all(any(c.lower_ in DEICTIC_PRONOUNS and not (mine and c.lower_ == "my") or c.pos_ in ("PROPN", "NOUN")
                   and not same(key(c.text), owner)
                   and not same(key(c.lemma_), owner) for c in found) for found in owners):
            first = owners[0][0]
            return f"{first.text} {first.head.text}"
    return ""


def version_of(asked: Asked, span: Span, doc: Any | None) -> str:
    """The name right before a version, where the question names another ("SQLite 3.35" for "which Python version?").

    The name is a proper noun by the parse ("Since 7.32.0, …" names no product) and none of the question's words.
    """
    if doc is None or span.kind != k.VERSION or span.first <= 0 or not any(t.role == "name" for t in asked.terms):
        return ""
    before = doc[span.first - 1]
    if before.lower_ == "v" and span.first > 1:
        before = doc[span.first - 2]
    if before.pos_ != "PROPN" or before.lower_ in ("version", "release"):
        return ""
    return "" if any(same(key(before.text), t.key) for t in asked.terms) else before.text


def other_number(asked: Asked, text: str) -> str:
    """Another number after a word the question numbers: "Python 2" where the question asks of "Python 3" ("").

    A line that says both speaks of the question's too.
    """
    for m in re.finditer(r"\b([^\W\d_]{2,})\s+(\d+(?:\.\d+)*)\b", asked.text):
        word, number = re.escape(m.group(1)), m.group(2)
        said = re.findall(rf"\b{word}\s+(\d+(?:\.\d+)*)\b", text, re.IGNORECASE)
        if said and number not in said:
            return f"{m.group(1)} {said[0]}"
    return ""


def does_another(asked: Asked, span: Span, doc: Any | None) -> bool:
    """Whether the span is the doer or the object of another verb than the question's in its line.

    "The `purge` command deletes every cached page." says what purge does: it answers "which command
    deletes cached pages?", not "which command adds them?". Code the line only mentions ("see
    --raw for the output") is not bound to a verb, and the question's verb need not be there. A
    description under an entry whose main verb is another's says the entry does that other thing.
    """
    if span.start < 0 and doc is not None and asked.verb:  # the description under an entry: what it says the entry
        root = next((t for t in doc if t.dep_ == "ROOT"), None)  # does ("Allocate size bytes …" under XML_MemRealloc)
        return root is not None and root.pos_ == "VERB" and not any(
            t.pos_ == "VERB" and same(key(t.lemma_), asked.verb) for t in doc)
    return _bound_to(asked, span, doc) is not None


def in_another(asked: Asked, span: Span, doc: Any | None) -> str:
    """The other verb a span is bound to, where the line says the question's action elsewhere ("").

    "Reads a file and returns a `Document`" says what returns the Document, not what reads the file;
    "Use `--at` to change the time" binds --at to "use", whose purpose is the changing, and "activated
    by running dpkg-trigger" to "running", the activating's means: they answer.
    """
    bound = _bound_to(asked, span, doc)
    if doc is None or bound is None:
        return ""
    verb = bound
    while verb.dep_ == "conj" and verb.head.i != verb.i:
        verb = verb.head  # "Set X or pass --dir to move it": the purpose is the whole coordination's
    actions = [t for t in doc if (t.pos_ == "VERB" or t.dep_ == "ROOT" and t.i == t.sent.start)
               and same(key(t.lemma_), asked.verb)]  # "Cancels an object created by X.": a description's
    # opening verb, whatever the tagger called it, is the action it describes
    conditional = bound.dep_ == "advcl" and any(c.dep_ in ("mark", "advmod") and c.lower_ in _TIME_MARKS
                                                for c in bound.children)  # "… counted when --x=yes is specified"
    if conditional and _caused(asked) and any(bound.head.i == a.i for a in actions):
        return ""  # "which option makes it count?" asks for the condition it counts on: "if you use --x, it counts"
    if not actions and doc[span.first].head.dep_ == "agent" and not any(same(key(t.text), asked.verb) for t in doc):
        return bound.text  # "An object as returned by `setImmediate()`": the doer of the returning, in a line
        # where no word says the question's action (the line after it may: "Cancels an object …")
    return bound.text if actions and (conditional or not any(_serves(verb, a, described=True) or _serves(a, verb) for a in actions)) \
        else ""


def _bound_to(asked: Asked, span: Span, doc: Any | None) -> Any | None:
    """The verb other than the question's whose doer or object the span is, or None."""
    if doc is None or span.first < 0 or not asked.verb:
        return None
    head = doc[span.first]
    while head.dep_ in ("compound", "amod", "nmod", "appos", "punct", "conj") and head.head.i != head.i:
        head = head.head  # "the `purge` command": the command is the doer; "X or Y" share the place of X
    if head.dep_ == "pobj" and head.head.dep_ == "agent":
        head = head.head  # "allocated by XML_MemMalloc or XML_MemRealloc": the doer of a passive
    bound = head.dep_ in ("nsubj", "nsubjpass", "dobj", "agent") and head.head.pos_ == "VERB" and not same(
        key(head.head.lemma_), asked.verb)
    return head.head if bound else None


def _caused(asked: Asked) -> bool:
    """Whether the question asks what makes its action happen ("Which flag makes the server log requests?")."""
    words = [key(w) for w in re.findall(r"[^\W\d_]+", asked.text)]
    if not asked.verb or asked.verb not in words:
        return False  # "When was it written?": the verb's key is "writ", no word of the question
    causes = {key(c) for c in k.CAUSATIVES} | {"made"}
    return any(w in causes for w in words[:words.index(asked.verb)])


_TIME_MARKS = frozenset("once after before when whenever until while since if unless".split())
"""Conjunctions that open a clause of time or condition: what it says happens beside the main action, not for it."""


def _serves(lower: Any, upper: Any, described: bool = False) -> bool:
    """Whether ``lower`` hangs under ``upper`` as its means or purpose, not as another action joined by "and".

    ``described``: ``lower`` is the span's own verb, and a clause describing a noun on the way up
    (``acl``, ``relcl``) tells which thing the action takes, not how it is done. The other way up,
    "provides the X program, which reads the file" says what X itself does: the relative clause serves.
    """
    token = lower
    while token.head.i != token.i and token.i != upper.i:
        if token.dep_ == "conj" and token.head.i == upper.i or token.dep_ == "advcl" and any(
                c.dep_ == "mark" and c.lower_ in _TIME_MARKS for c in token.children):
            return False  # "Once you have allocated it, construct X": a time, neither a means nor a purpose; "reads
            # a file and returns X": another action (but "X can be used to build and package it" serves the using)
        if described and (token.dep_ == "relcl" or token.dep_ == "acl" and not any(
                c.dep_ == "aux" and c.lower_ == "to" for c in token.children)):
            return False  # "Cancels an object created by X": a clause that tells which object, not how it is
            # cancelled ("use the option to define X" gives the option's purpose: it serves)
        token = token.head
    return token.i == upper.i and lower.i != upper.i


def other_kind(asked: Asked, words: LineWords, doc: Any | None) -> str:
    """A noun of the question that the line qualifies otherwise: "north ward" for a question on the south ward.

    The modifier is soft (a line may leave it out), but not contradicted.
    """
    if doc is None:
        return ""
    asked_keys = {t.key for t in asked.terms} | ({key(w) for w in k.DEFAULT_WORDS} if asked.default else set())
    for term in asked.terms:  # "the default value is 5" qualifies no other value for "the default priority value"
        if not term.head or words.find(term):
            continue
        for i in [i for word, at in words.at.items() if same(term.head, word) for i in at]:
            mods = [c for c in doc[i].children if c.dep_ in ("amod", "compound") and c.is_alpha]
            if mods and not any(any(same(key(c.lemma_), a) for a in asked_keys) for c in mods):
                return f"{mods[0].text} {doc[i].text}"
    return ""


def qualified_otherwise(asked: Asked, term: Term, text: str) -> bool:
    """A noun the question qualifies ("the writable side") that ``text`` only qualifies otherwise ("the readable side").

    The sentences around a line lend it their words; one that speaks of another kind of the thing
    lends none of it.
    """
    before = rf"\b([^\W\d_]+)\s+{re.escape(term.text)}\b"
    mine = re.search(before, asked.text, re.IGNORECASE) if term.role == "noun" else None
    if mine is None or mine.group(1).lower() in FUNCTION_WORDS:
        return False
    others = [w for w in re.findall(before, text, re.IGNORECASE) if w.lower() not in FUNCTION_WORDS]
    return bool(others) and not any(same(key(w), key(mine.group(1))) for w in others)


def argument_of(asked: Asked, span: Span, text: str) -> str:
    """The call the question names whose brackets hold the span ("size_t" in "ffi_alloc (size_t size)"), or ""."""
    if span.start < 0:
        return ""
    opened = text.rfind("(", 0, span.start)
    if opened < 0 or ")" in text[opened:span.start]:
        return ""
    before = re.search(r"([\w.]+)\s*$", text[:opened])
    named = before.group(1) if before else ""
    return named if named and any(t.role == "name" and t.key == named.lower() for t in asked.terms) else ""
