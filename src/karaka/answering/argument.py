"""Whether a span of a parsed line is an argument of the question's action there: a check on a model's reading.

"What did Ivo throw over Orla?" is not answered by "overboard" from "threatened to throw him
overboard" (an adverb of the throwing, not what was thrown), nor "What replaced the lamp?" by a
name that stands in another clause of the line ("The lamp was to be replaced; Tam was sent to see
to it"). When the line says the question's action, a who- or what-answer must stand in one of its
arguments: its subject, object, a prepositional object, a complement; or be the subject a joined
verb shares ("Ivo went out and dwelt in Keld") or the noun a relative clause on the action
describes ("the man who sold the mill").
"""

from __future__ import annotations

from typing import Any

from karaka.answering import kinds as k
from karaka.answering.line import LineWords
from karaka.answering.question import Asked
from karaka.answering.span import Span

ARGUMENTS = frozenset("nsubj nsubjpass csubj dobj iobj dative attr oprd agent prep pobj ccomp xcomp acomp "
                      "npadvmod appos".split())
"""Dependents of a verb that say who or what takes part in it (not its adverbs, particles or auxiliaries)."""
ASKED_KINDS = (k.NAME, k.TERM)
"""Kinds whose answer is someone or something taking part in the action: "who", "what", "which"."""


def outside_action(asked: Asked, span: Span, words: LineWords, doc: Any | None) -> bool:
    """Whether the line says the question's action but the span stands in none of its arguments.

    The action is found as the reader finds it (``LineWords.find`` of the question's verb), where
    the parse makes it a verb.
    """
    verb = asked.verb_term
    if asked.kind not in ASKED_KINDS or verb is None or doc is None or span.first < 0:
        return False
    actions = [doc[i] for i in words.find(verb) if doc[i].pos_ in ("VERB", "AUX")]
    if not actions:
        return False  # the line words the action otherwise: the model reads what the parse cannot
    inside = set(range(span.first, span.last + 1))
    return not any(inside & _argument_tokens(verb) for verb in actions)


def _argument_tokens(verb: Any) -> set[int]:
    """The tokens of a verb's arguments, with the subject it shares and the noun its clause describes."""
    tokens = {t.i for c in verb.children if c.dep_ in ARGUMENTS for t in c.subtree}
    head = verb.head
    if verb.dep_ in ("conj", "xcomp") and head.i != verb.i:
        tokens |= {t.i for c in head.children if c.dep_ in ("nsubj", "nsubjpass") for t in c.subtree}
    if verb.dep_ in ("relcl", "acl") and head.i != verb.i:
        tokens |= {head.i} | {c.i for c in head.children if c.dep_ in ("compound", "amod", "det", "poss")}
    return tokens
