"""Whether a line states what it says, or only supposes it.

"If Ilse were a sailor, she might sail tomorrow" says nothing of what Ilse is; "I wish Ilse lived at Harrow"
nothing of where she lives. A counterfactual condition (an "if" or "unless" clause in the past tense under a
clause with would, could, might or should), what would have been ("he would have reached Oslo") and the finite
clause a verb of supposing governs are supposed, not stated. A manual's present-tense condition ("If --force
is given, files are overwritten") states a rule and stays stated, as does "I know Ilse lived at Harrow".
"""

from __future__ import annotations

from typing import Any

from karaka.answering.stems import key

SUPPOSING = frozenset("wish pretend imagine suppose".split())
"""Verbs whose finite complement clause the speaker does not assert ("I wish she were here")."""

UNREAL_MODALS = frozenset("would could might should".split())
"""The modals of a main clause whose condition is contrary to fact ("…, it might be wrong")."""

DENYING = frozenset("unable fail refuse decline neglect forget".split())
"""Negative implicatives: "Ivo refused to sign it" says he did not sign it, as "Ivo did not sign it" does."""


def supposed(doc: Any, first: int, verb: str = "", negated: bool = False) -> str:
    """Why the clause holding token ``first`` is only supposed or denied, or "" when the line states it.

    ``verb``: the question's, as a match key; a question about the denying ("what did she refuse to sign?")
    reads it as stated, and so does a ``negated`` question ("what did she not sign?").
    """
    token = doc[first]
    for clause in (token, *token.ancestors):
        if not negated and (denier := denied(clause)) and key(clause.head.lemma_) != verb:
            return f"the line says it did not happen (under {denier!r})"
        if clause.dep_ == "ccomp" and clause.head.lemma_ in SUPPOSING:
            return f"the line only supposes it (under {clause.head.text!r})"
        if clause.dep_ == "advcl" and _unreal_condition(clause):
            return "the line only supposes it (a condition contrary to fact)"
        auxes = {c.lower_ for c in clause.children if c.dep_ == "aux"}
        if clause.tag_ == "VBN" and "have" in auxes and auxes & UNREAL_MODALS:
            return "the line only supposes it (what would have been)"
    return ""


CONDITIONS = frozenset("if unless when whenever once until".split())
"""Marks of a clause that states a condition, not what happened: "if you fail to cure it within 30 days"."""


def denied(verb: Any) -> str:
    """The word that says an infinitive's action did not happen ("unable" of "was unable to marry"), or "".

    A denial in a condition ("if the holder fails to notify you within 60 days, …") says nothing
    happened or not: it sets a rule, and the rule's numbers answer.
    """
    if verb.dep_ != "xcomp":
        return ""
    governor = verb.head
    if governor.lemma_.lower() not in DENYING or any(
            c.dep_ == "mark" and c.lower_ in CONDITIONS for t in (governor, *governor.ancestors) for c in t.children):
        return ""
    return governor.text


def _unreal_condition(verb: Any) -> bool:
    """An "if" clause in the past tense under a main clause with a modal of the unreal ("If she were …, it might")."""
    marked = any(c.dep_ == "mark" and c.lower_ in ("if", "unless") for c in verb.children)
    past = verb.tag_ == "VBD" or any(c.dep_ == "aux" and c.lower_ == "had" for c in verb.children)
    return marked and past and any(c.dep_ == "aux" and c.lower_ in UNREAL_MODALS
                                   for main in (verb.head, *verb.head.ancestors) for c in main.children)
