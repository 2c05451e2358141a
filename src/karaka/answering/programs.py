"""Programs a line names: beside the noun asked about ("the postinst script") or as what is run ("run make")."""

from __future__ import annotations

import re
from typing import Any

from karaka.answering.question import Asked
from karaka.answering.stems import key, same
from karaka.words import POINTING_WORDS

RUN_VERBS = frozenset("run execute invoke launch call type".split())
"""Verbs whose object names a program: "by running dpkg-trigger", "type make"."""


def named_programs(asked: Asked, text: str, doc: Any | None) -> list[tuple[str, int]]:
    """Plain words named as a program.

    Next to the noun asked about ("the postinst script", "the program gzip"), or what is run ("by running mkbundle").
    """
    if doc is None or not len(doc):
        return []
    out = []
    for t in doc:
        if t.is_punct or t.is_stop or t.lower_ in POINTING_WORDS or not re.fullmatch(r"[A-Za-z][\w.+-]*", t.text) \
                or t.pos_ not in ("NOUN", "PROPN", "X", "VERB", "ADJ"):  # "the following script" names none
            continue
        after, before = (doc[t.i + 1] if t.i + 1 < len(doc) else None), (doc[t.i - 1] if t.i else None)
        beside = any(n is not None and same(key(n.lemma_), asked.focus) for n in (after, before)) and not any(
            c.dep_ in ("nsubj", "nsubjpass") and same(key(c.lemma_), asked.focus) for c in t.children)
        # "the purge command deletes …": what the command does, not its name
        ran = t.tag_ != "NNS" and (t.dep_ in ("dobj", "obj") and t.head.lemma_.lower() in RUN_VERBS or any(
            c.dep_ == "amod" and c.lemma_.lower() in RUN_VERBS for c in t.children))  # "by running mkbundle"; a
        # plural ("running linters and tests") says what kind of thing is run, it names no program
        if (beside and not same(key(t.lemma_), asked.focus)) or ran:
            word = next((m for m in re.finditer(r"[\w.+-]*\w", text) if m.start() <= t.idx < m.end()), None)
            found = (word.group(0), word.start()) if word else (t.text, t.idx)  # "dpkg-trigger" whole
            if not ran and (t.tag_ == "NNS" and before is not None and same(key(before.lemma_), asked.focus)
                            or any(same(key(found[0]), term.key) for term in asked.terms)
                            or t.pos_ == "VERB" and after is not None and any(a.i == t.i for a in after.ancestors)):
                continue  # "command lines" says what kind of lines; "editing commands", asked of, and "complete
                # command names", the verb's object, name no command
            out.append(_command_line(doc, t, text, found) if ran else found)
    return out


def _command_line(doc: Any, t: Any, text: str, found: tuple[str, int]) -> tuple[str, int]:
    """What is run, whole: the words the parse compounds before it and the flags and paths after it.

    "run quill reindex --all after an upgrade" runs "quill reindex --all".
    """
    first = t.i
    while first > 0 and doc[first - 1].dep_ == "compound" and doc[first - 1].head.i == t.i:
        first -= 1
    last = t.i
    while last + 1 < len(doc) and re.match(r"-|\S*[/=]", doc[last + 1].text):
        last += 1
    start = min(doc[first].idx, found[1])
    end = max(doc[last].idx + len(doc[last].text), found[1] + len(found[0]))
    return text[start:end], start
