"""The lines a question's answer is read from: the ranked lines, each with the line it brings.

A title brings the text below it, a line ending in ":" or cut mid-sentence the line that goes on,
"the following script" the code under it, a sentence the one that gives its reason ("This is because
…") and, for a question about a default, the sentence after a description that gives the default
("Sets the queue's directory. The default is /var/q."). An entry of a list is read with the sentence
that opens the list ("… exits with the following values:"), however far above it stands, and a line
that says "this location" with the line above that named the clone location the question asks of.
"""

from __future__ import annotations

import re
from typing import Any

from karaka.answering import kinds as k
from karaka.answering.defaults import says_default
from karaka.answering.question import Asked
from karaka.answering.stems import key
from karaka.store.base import Store
from karaka.store.ids import document_node
from karaka.words import WORD

POOL = 12
"""Lines read for a question (the graph's and retrieval's best), besides the lines they bring."""
_GOES_ON = re.compile(r"^(?:(?:this|that|it) (?:is|was) (?:because|due to|why|so|done)|the reason (?:is|was|for this))\b",
                      re.IGNORECASE)
"""A sentence that gives the reason for the one before it ("This is because …"); a sentence that opens with
"Because" gives the reason for its own main clause."""
_FORWARD = re.compile(r"\bthe following\b|\bas follows\b", re.IGNORECASE)
"""A sentence that points at what comes next: "Running the following script on macOS adds …" over its code."""
_CUT = re.compile(r"(?:,|\b(?:the|a|an|of|to|in|on|at|by|for|with|from|and|or|as|is|are|see))$", re.IGNORECASE)
"""The end of a line cut mid-sentence: the next line goes on with it."""


def pool(store: Store, asked: Asked, nodes: list[str], size: int = POOL) -> list[tuple[str, int, str]]:
    """(node, rank, the node it goes on from) of the lines to read: ``nodes`` in order, and the lines they bring."""
    out: list[tuple[str, int, str]] = []
    seen: set[str] = set()
    for rank, node in enumerate(dict.fromkeys(nodes)):
        if len(out) >= size:
            break
        attrs = store.graph.node(node)
        if attrs is None or node in seen:
            continue
        out.append((node, rank, ""))
        seen.add(node)
        follow = _brings(store, asked, attrs)
        if follow and follow not in seen:
            out.append((follow, rank, node))
            seen.add(follow)
    return out


def _brings(store: Store, asked: Asked, attrs: dict[str, Any]) -> str:
    """The line a line brings with it: what it introduces, the sentence that gives its reason or its default."""
    if "seq" not in attrs:
        return ""
    after = store.records.lines(str(attrs["doc_id"]), int(attrs["seq"]) + 1, int(attrs["seq"]) + 2)
    if not after:
        return ""
    text = str(attrs.get("text", "")).rstrip()
    follow = after[0]
    if asked.kind == k.REASON:
        follow = next((s for s in after if _GOES_ON.match(s.text)), follow)
        if _GOES_ON.match(follow.text):
            return document_node(str(attrs["doc_id"]), follow.line, follow.sentence)
    brought = document_node(str(attrs["doc_id"]), follow.line, follow.sentence)
    if asked.default and not says_default(text) and says_default(follow.text) and attrs.get("kind") != "heading":
        return _stored(store, brought)  # "Sets the queue's directory. The default is /var/q.": the default of that
    short_title = len(text) < 60 and not text.endswith(".") and attrs.get("kind") not in ("code", "table") and (
        attrs.get("kind") == "heading" or not _has_verb(text))
    listed = short_title and attrs.get("kind") != "heading" and len(follow.text.split()) <= 2 and not _has_verb(
        follow.text)  # "gender" over "maintainer": a list of bare words, no title over its text
    introduces = text.endswith(":") or short_title and not listed or _CUT.search(text) or (
        _FORWARD.search(text) and follow.kind == "code")
    return _stored(store, brought) if introduces else ""


def _stored(store: Store, node: str) -> str:
    """The node when the graph holds it (a line the graph left out brings nothing), else ""."""
    return node if store.graph.node(node) is not None else ""


def _has_verb(text: str) -> bool:
    """Whether a short line says an action (then it is no title over the next line)."""
    from karaka.nlp import parse

    return any(t.pos_ == "VERB" for t in parse(text))


LIST_REACH = 40
"""The most sentences back to the sentence that opens a list of entries."""


def list_intro(store: Store, attrs: dict[str, Any]) -> str:
    """The sentence ending in ":" that opens the list a line's entry stands in, or "".

    "The command exits with the following values:" over entries headed "0", "1", "2" introduces every
    entry, not only the first after it: "1 permission denied" says an exit value of the command.
    """
    section, seq = str(attrs.get("section") or ""), int(attrs.get("seq") or 0)
    parent = section.rpartition(" › ")[0]
    if not parent or seq < 2:
        return ""
    for s in reversed(store.records.lines(str(attrs.get("doc_id", "")), max(1, seq - LIST_REACH), seq - 1)):
        if s.section == parent:
            return s.text if s.text.rstrip().endswith(":") else ""
        if not s.section.startswith(f"{parent} › "):
            return ""
    return ""


REFERRED_REACH = 5
"""The most lines above a "this …" that the line it points back to may stand, in the same part."""


def referred_line(store: Store, attrs: dict[str, Any], doc: Any | None, asked: Asked) -> str:
    """The line above that a "this NOUN" of the line points back to, where it names the noun as the question does.

    "The --src option can be used to modify this location." speaks of the clone location a line
    above named ("The default clone location is:"): asked "which option modifies the clone location?",
    that line's words are the line's as an introduction's are. A "this file" the question gives no
    word of its own ("which file …?") points nowhere: it may be the document itself.
    """
    pointed = {key(t.head.lemma_) for t in doc or [] if t.lower_ in ("this", "these") and t.dep_ == "det"
               and t.head.pos_ == "NOUN"}
    section, seq = str(attrs.get("section") or ""), int(attrs.get("seq") or 0)
    if not pointed or seq < 2:
        return ""  # most lines point at nothing: the question's words are read only for those that do
    said = [key(w) for w in WORD.findall(asked.text)]
    terms = {t.key for t in asked.terms}
    pairs = {(a, b) for a, b in zip(said, said[1:], strict=False) if a in terms and b in terms}  # "clone location"
    nouns = pointed & {b for _, b in pairs}
    if not nouns:
        return ""
    for s in reversed(store.records.lines(str(attrs.get("doc_id", "")), max(1, seq - REFERRED_REACH), seq - 1)):
        if s.section != section:
            return ""
        keys = [key(w) for w in WORD.findall(s.text)]
        if any((a, b) in pairs and b in nouns for a, b in zip(keys, keys[1:], strict=False)):
            return s.text
    return ""
