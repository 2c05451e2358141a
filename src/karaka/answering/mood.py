"""Whether a line states what it says, or only supposes it.

"If Ilse were a sailor, she might sail tomorrow" says nothing of what Ilse is; "I wish Ilse lived at Harrow"
nothing of where she lives. A counterfactual condition (an "if" or "unless" clause in the past tense under a
clause with would, could, might or should), what would have been ("he would have reached Oslo") and the finite
clause a verb of supposing governs are supposed, not stated. A manual's present-tense condition ("If --force
is given, files are overwritten") states a rule and stays stated, as does "I know Ilse lived at Harrow".
"""

from __future__ import annotations

from typing import Any

SUPPOSING = frozenset("wish pretend imagine suppose".split())
"""Verbs whose finite complement clause the speaker does not assert ("I wish she were here")."""

UNREAL_MODALS = frozenset("would could might should".split())
"""The modals of a main clause whose condition is contrary to fact ("…, it might be wrong")."""


def supposed(doc: Any, first: int) -> str:
    """Why the clause holding token ``first`` is only supposed, or "" when the line states it."""
    token = doc[first]
    for clause in (token, *token.ancestors):
        if clause.dep_ == "ccomp" and clause.head.lemma_ in SUPPOSING:
            return f"the line only supposes it (under {clause.head.text!r})"
        if clause.dep_ == "advcl" and _unreal_condition(clause):
            return "the line only supposes it (a condition contrary to fact)"
        auxes = {c.lower_ for c in clause.children if c.dep_ == "aux"}
        if clause.tag_ == "VBN" and "have" in auxes and auxes & UNREAL_MODALS:
            return "the line only supposes it (what would have been)"
    return ""


def _unreal_condition(verb: Any) -> bool:
    """An "if" clause in the past tense under a main clause with a modal of the unreal ("If she were …, it might")."""
    marked = any(c.dep_ == "mark" and c.lower_ in ("if", "unless") for c in verb.children)
    past = verb.tag_ == "VBD" or any(c.dep_ == "aux" and c.lower_ == "had" for c in verb.children)
    return marked and past and any(c.dep_ == "aux" and c.lower_ in UNREAL_MODALS
                                   for main in (verb.head, *verb.head.ancestors) for c in main.children)
