"""The narrator of a first-person document: the name it gives itself, which its lines' "I" stands for.

A memoir or a novel told in the first person names its narrator early, outside any speech: "Call
me Wren.", "My name is Tam Rusk." Every "I", "me" and "my" of the narrator's own lines (not of a
speech in quotation marks) is then that name, as a reader takes it: "What did Wren throw over the
fire?" is answered by "I threw my coat over the fire.".
"""

from __future__ import annotations

import re
import threading
import weakref
from typing import Any

from karaka.kg.retrieval import index_key
from karaka.store.base import Store

SELF_NAMED = re.compile(r"\b(?:[Cc]all me|[Mm]y name (?:is|was))\s+([A-Z][\w'’-]+(?:\s+[A-Z][\w'’-]+){0,2})")
FIRST_LINES = 200
"""How far into a document its narrator must have named itself."""
SELF = frozenset({"i", "me", "myself"})
"""The narrator's own pronouns in an action's roles, which stand for its name."""
_QUOTES = re.compile(r"[\"“”«»]")
_FIRST = re.compile(r"\b(?:I|me|my|mine|myself)\b")

_cache: weakref.WeakKeyDictionary[Any, tuple[Any, dict[str, tuple[str, str]]]] = weakref.WeakKeyDictionary()
_lock = threading.Lock()


def narrators(store: Store) -> dict[str, tuple[str, str]]:
    """Each first-person document's narrator: doc_id → (the name it gives itself, the line that gives it)."""
    key = index_key(store)
    with _lock:
        cached = _cache.get(store)
        if cached is not None and cached[0] == key:
            return cached[1]
    found: dict[str, tuple[int, str, str]] = {}
    for node in store.graph.nodes_of("Document"):
        attrs = store.graph.node(node) or {}
        seq, doc_id, text = int(attrs.get("seq") or 0), str(attrs.get("doc_id", "")), str(attrs.get("text", ""))
        if seq > FIRST_LINES or doc_id in found and found[doc_id][0] < seq:
            continue
        named = SELF_NAMED.search(text)
        if named and not _QUOTES.search(text[:named.start()]):  # "“My name is Tom,” said the boy" is the boy's
            found[doc_id] = (seq, named.group(1), node)
    out = {doc_id: (name, node) for doc_id, (_, name, node) in found.items()}
    with _lock:
        _cache[store] = (key, out)
    return out


def narrated(text: str) -> bool:
    """Whether a line speaks in the narrator's own first person: an "I" or "my", and no speech in it."""
    return bool(_FIRST.search(text)) and not _QUOTES.search(text)
