"""The clause of a line a span stands in, where the line joins clauses that each have their own subject.

"The -Q flag tells it to print the queue, and the -W flag tells it where to write the log" says the
question's action twice: "-W" answers "which flag tells it where to write the log?" and not "which
flag tells it to print the queue?", though the line holds every word of both questions. Where the
line says the question's action in two clauses, a span proves an answer only with the question's
words in its own clause; a thing named may stand there as a pronoun ("it"), one for each pronoun,
an action never. Where the action is said once, the question's other words may stand anywhere.
"""

from __future__ import annotations

from typing import Any

from karaka.answering.line import LineWords
from karaka.answering.question import Asked
from karaka.answering.span import Span
from karaka.words import PRONOUNS

_SUBJECTS = frozenset(("nsubj", "nsubjpass", "csubj", "expl"))
_THINGS = frozenset(("NOUN", "PROPN", "NUM", "X", "SYM"))
"""What the parse says a word names (a thing a pronoun may stand for), not an action or a quality."""


def _clause_heads(root: Any) -> set[int]:
    """The verbs that head a clause of a sentence: its root, and each verb joined to one by "and" with a subject."""
    heads = {root.i}
    for t in root.subtree:  # a conjunct comes after the verb it is joined to
        if t.dep_ == "conj" and t.head.i in heads and t.pos_ in ("VERB", "AUX") and any(
                c.dep_ in _SUBJECTS for c in t.children):
            heads.add(t.i)
    return heads


def _clause_of(token: Any, heads: set[int]) -> int:
    """The clause a token stands in: its nearest ancestor (or itself) that heads one."""
    while token.i not in heads and token.head.i != token.i:
        token = token.head
    return token.i


def other_clause(asked: Asked, span: Span, words: LineWords, doc: Any | None) -> str:
    """Why the span's clause does not hold what the question asks, where another clause of the line does; else ""."""
    if doc is None or span.first < 0 or span.first >= len(doc):
        return ""
    sentence = doc[span.first].sent  # a line's other sentence ("3" over "The index is locked.") is no clause of it
    heads = _clause_heads(sentence.root)
    if len(heads) < 2:
        return ""
    own = _clause_of(doc[span.first], heads)
    acting = {_clause_of(doc[i], heads) for t in asked.terms if t.role == "verb"
              for i in words.find(t) if 0 <= i < len(doc)}
    if own not in acting or len(acting) < 2:
        return ""  # the question's action said once: its other words may stand anywhere in the sentence
    pronouns = sum(t.lower_ in PRONOUNS and _clause_of(t, heads) == own for t in sentence)
    placed = [(term, [i for i in words.find(term) if 0 <= i < len(doc)]) for term in asked.terms]
    apart = [(term, places) for term, places in placed if places
             and all(sentence.start <= i < sentence.end and _clause_of(doc[i], heads) != own for i in places)]
    things = [term for term, places in apart if term.role in ("noun", "name") or term.role == "word" and all(
        doc[i].pos_ in _THINGS for i in places)]  # "frobd": a name, as the line reads it
    if len(things) < len(apart) or len(things) > pronouns:  # a pronoun stands for one thing, and for no action
        return f"the question's {apart[0][0].text!r} is said in another clause of the line"
    return ""
