"""The documents' lines as one text, kept until the workspace changes: required words, rarity, definitions.

``corpus_text`` joins every line with its headings and document name (squashed, one a line);
``corpus_check`` says whether a word is anywhere in it, ``rarity`` how rare it is, and
``definitions`` finds the lines that say what a named thing is, in the documents' order.
"""

from __future__ import annotations

import functools
import math
import re
import threading
import weakref
from collections.abc import Callable
from typing import Any

from karaka.kg.retrieval import index_key
from karaka.store.base import Store

DEFINITIONS = 3
"""Lines that say what a thing is, read first for "who is X?" and "what is X?"."""
SCANNED = 2000
"""Lines holding the thing's name looked at for a definition, at most (a common word stops early)."""

_cache: weakref.WeakKeyDictionary[Any, tuple[tuple[int, int], str, list[str], list[str]]] = weakref.WeakKeyDictionary()
_cache_lock = threading.Lock()


def squash(text: str) -> str:
    """Text as required words are looked for in it: lower case, runs of other characters one space."""
    return " ".join(re.sub(r"[^\w.=/-]+", " ", text.lower()).split())


def _corpus(store: Store) -> tuple[str, list[str], list[str]]:
    """The squashed lines joined, the same lines one by one, and their nodes (in the graph's order)."""
    key = index_key(store)
    with _cache_lock:
        cached = _cache.get(store)
        if cached is None or cached[0] != key:
            nodes, texts = [], []
            for node in store.graph.nodes_of("Document"):
                if a := store.graph.node(node) or {}:
                    nodes.append(node)
                    texts.append(squash(f"{a.get('text', '')} {a.get('section', '')} {a.get('doc_id', '')}"))
            cached = _cache[store] = (key, "\n".join(texts), texts, nodes)
        return cached[1], cached[2], cached[3]


def corpus_text(store: Store) -> str:
    """Every line of the documents with its headings and document name, squashed, one a line.

    Kept until the workspace changes, like the BM25 index.
    """
    return _corpus(store)[0]


def rarity(store: Store) -> Callable[[str], float]:
    """``rarity(word_key)``: how rare a word is among the lines (an inverse document frequency)."""
    text = corpus_text(store)
    lines = text.count("\n") + 1

    @functools.lru_cache(maxsize=256)
    def idf(word: str) -> float:
        found = len(re.findall(rf"(?<![\w]){re.escape(word)}", text)) if word else 0
        return math.log(1 + lines / (1 + found))

    return idf


def corpus_check(store: Store) -> Callable[[str], bool]:
    """``has(word)``: whether any line of the documents (or their headings) holds ``word``.

    The lines are joined when a question first needs them and kept until the workspace changes.
    """
    def has(word: str) -> bool:
        return squash(word) in corpus_text(store)

    return has


_OWNER = r"(?:[A-Z][\w.]*\s+){0,2}[A-Z]\w*['’]s"
"""Whose a thing is, as a name writes it: "Tam, Ada Quist's brother," says who Tam is by whose brother he is."""


def definitions(store: Store, thing: str, limit: int = DEFINITIONS) -> list[str]:
    """The first lines, in the documents' order, that say what ``thing`` is by the shape of the sentence.

    "Tam, a miller of Oster", "Tam was a miller", "Tam, Ada's brother,", "the miller was Tam,", "a miller named Tam",
    "frobz: a tool …": an apposition, a copula or a naming right at the name. A text introduces
    someone or something where it first says what they are; later lines mostly say what they do.
    The reader still proves the span it reads there (``identity``): the shape only brings the line.
    """
    name = re.escape(" ".join(thing.split()))
    if not name:
        return []
    shapes = re.compile(rf"(?<![\w-]){name}(?:\s*(?:,|:|\(|—|–)\s*|\s+(?:is|was|are|were)\s+)(?:an?|the|one"
                        rf"|{_OWNER})\s"
                        rf"|\b(?:is|was|are|were)\s+{name}\s*(?:,|$)|\b(?:named|called)\s+{name}(?![\w-])",
                        re.IGNORECASE)
    return _first_lines(store, squash(thing), shapes, limit)


def _first_lines(store: Store, word: str, shapes: re.Pattern[str], limit: int) -> list[str]:
    """The first ``limit`` lines holding ``word`` whose text has one of the ``shapes``."""
    _, texts, nodes = _corpus(store)
    found: list[str] = []
    scanned = 0
    for i, squashed in enumerate(texts):
        if word not in squashed:
            continue
        scanned += 1
        attrs = store.graph.node(nodes[i]) or {}
        if shapes.search(str(attrs.get("text", ""))):
            found.append(nodes[i])
            if len(found) >= limit:
                break
        if scanned >= SCANNED:
            break
    return found
