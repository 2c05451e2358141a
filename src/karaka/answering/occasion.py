"""Whose time or reason a span is: the question's action's, or another word's of the same line.

A time proves "when", and a reason "why", only where it hangs from the question's action in the
parse: "said on Monday that she left in March" dates the saying by Monday, the leaving by March.
"""

from __future__ import annotations

from typing import Any

from karaka.answering.line import Line
from karaka.answering.naming import span_head
from karaka.answering.question import Asked
from karaka.answering.span import Span


def hangs_elsewhere(asked: Asked, span: Span, line: Line) -> str:
    """The word a time or a reason hangs from when it is not the question's action, though the line says it ("").

    The parse is followed up from the span through prepositions, conjunctions and time words ("the
    spring of 1990") to the first other word. The span is the action's when that word is the action;
    a verb joined to it by "and" ("arrested and released yesterday"), unless the span stands between
    the two and the later one opens with a frame of its own ("came in 1983 and at his peak was
    publishing": 1983 is the coming's); or a verb above the action, unless a clause describing a noun
    lies between ("In 1377 he wrote of mistakes historians made" dates the writing). A span under the
    action ("arrested yesterday for a theft ten years ago") or on another branch ("the Act of 1990,
    which bans …") is something else's.
    """
    doc = line.doc
    verb = asked.verb_term
    if doc is None or verb is None or span.first < 0:
        return ""
    actions = [doc[i] for i in line.words.find(verb)]
    if not actions:
        return ""  # the line says the action otherwise: the question's words decide
    at = {a.i for a in actions}
    token = span_head(span, doc)
    while token.head.i != token.i:
        token = token.head
        passed = token.pos_ in ("ADP", "SCONJ", "CCONJ", "PART", "PUNCT", "DET") \
            or token.ent_type_ in ("DATE", "TIME") or _same_occasion(token)
        if passed and token.i not in at:
            continue
        return "" if any(_times(token, action, span) for action in actions) else token.text
    return ""


def _times(anchor: Any, action: Any, span: Span) -> bool:
    """Whether a time hanging from ``anchor`` is also the time of ``action`` (see ``hangs_elsewhere``)."""
    if anchor.i == action.i:
        return True
    if _joined(anchor, action) or _joined(action, anchor):
        later = max(anchor, action, key=lambda t: t.i)
        framed = any(c.dep_ in ("prep", "advmod", "npadvmod") and c.i < later.i and c.i > span.last
                     for c in later.children)
        return not (min(anchor.i, action.i) < span.first < later.i and framed)
    token = action
    while token.head.i != token.i:
        if token.dep_ in ("relcl", "acl", "appos"):
            return False
        token = token.head
        if token.i == anchor.i:
            return True
    return False


def _joined(later: Any, earlier: Any) -> bool:
    """Whether ``later`` is joined to ``earlier`` by "and" (a chain of conjuncts)."""
    token = later
    while token.dep_ == "conj":
        token = token.head
        if token.i == earlier.i:
            return True
    return False


def action_around(asked: Asked, line: Line) -> bool:
    """Whether only the sentences around a line say the question's action: a time or a reason in it is another's."""
    verb = asked.verb_term
    return verb is not None and not line.words.verbless and not line.words.find(verb) and line.words.in_around(verb)


def holds_action(span: Span, line: Line, asked: Asked) -> bool:
    """Whether a span holds the question's action itself: a time or a reason of that action is outside it."""
    verb = asked.verb_term
    return verb is not None and span.first >= 0 and any(span.first <= i <= span.last for i in line.words.find(verb))


def _same_occasion(token: Any) -> bool:
    """A present participle that says how its head's action went ("she defended it, telling the press on Monday").

    With no subject or marker of its own, it happens when its head does.
    """
    return token.dep_ == "advcl" and token.tag_ == "VBG" and not any(
        c.dep_ in ("nsubj", "nsubjpass", "mark") for c in token.children)
