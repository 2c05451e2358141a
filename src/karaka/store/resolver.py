"""Entity resolution: normalise names, then match by embedding similarity; never merge pronouns."""

from __future__ import annotations

import re
import threading
import unicodedata
from dataclasses import dataclass

import numpy as np
from langchain_core.embeddings import Embeddings

PRONOUNS = frozenset(
    "he she it they him her his hers its their theirs which that who whom "
    "them i me we us you this these those himself herself itself themselves".split()
)
TITLES = frozenset(
    "dr mr mrs ms miss prof professor sir madam mme mx rev fr st lord lady hon".split()
)
ARTICLES = frozenset({"the", "a", "an"})
_PUNCT = re.compile(r"[^\w\s]")


def normalize_name(name: str) -> str:
    """Lower-case, drop titles (Dr., Mr.), articles and punctuation, squash spaces."""
    text = unicodedata.normalize("NFKC", name).lower()
    text = _PUNCT.sub(" ", text)
    words = text.split()
    while words and (words[0] in TITLES or words[0] in ARTICLES):
        words = words[1:]
    return " ".join(words)


def is_pronoun(name: str) -> bool:
    """True for a bare pronoun (he, it, which…)."""
    return name.strip().lower() in PRONOUNS


def display_name(name: str) -> str:
    """The mention as it will be shown: stripped of outer whitespace and quotes."""
    return " ".join(name.strip().strip("\"'“”‘’").split())


@dataclass(frozen=True)
class Resolved:
    """Where a mention landed."""

    entity_id: str
    canonical_name: str
    pronoun: bool


class EntityResolver:
    """Maps a mention to one canonical entity.

    Pronoun entities are scoped to their line (``He@doc_L2``) so that two
    different "he"s never become one node; IS_SAME_AS links them later.
    """

    def __init__(self, embeddings: Embeddings | None, threshold: float = 0.85):
        if not 0 < threshold <= 1:
            raise ValueError(f"threshold must be in (0, 1], got {threshold}")
        self.embeddings = embeddings
        self.threshold = threshold
        self._lock = threading.Lock()
        self._by_key: dict[str, str] = {}
        self._names: list[str] = []
        self._ids: list[str] = []
        self._matrix = np.zeros((0, 0), dtype=np.float32)

    def _vector(self, text: str) -> np.ndarray:
        assert self.embeddings is not None
        vec = np.asarray(self.embeddings.embed_query(text), dtype=np.float32)
        norm = float(np.linalg.norm(vec))
        return vec / norm if norm else vec

    def known(self, entity_id: str, canonical_name: str) -> None:
        """Register an existing entity (e.g. loaded from the graph)."""
        if is_pronoun(canonical_name):
            return
        with self._lock:
            key = normalize_name(canonical_name)
            if not key or key in self._by_key:
                return
            self._add(key, entity_id, canonical_name)

    def _add(self, key: str, entity_id: str, name: str) -> None:
        self._by_key[key] = entity_id
        if self.embeddings is None:
            return
        vec = self._vector(key)
        self._matrix = vec[None, :] if not self._ids else np.vstack([self._matrix, vec])
        self._ids.append(entity_id)
        self._names.append(name)

    def lookup(self, mention: str) -> str | None:
        """The entity a mention resolves to, without creating one."""
        key = normalize_name(mention)
        if not key or is_pronoun(mention):
            return None
        with self._lock:
            if key in self._by_key:
                return self._by_key[key]
            return self._nearest(key)

    def _nearest(self, key: str) -> str | None:
        if self.embeddings is None or not self._ids:
            return None
        sims = self._matrix @ self._vector(key)
        best = int(np.argmax(sims))
        return self._ids[best] if float(sims[best]) >= self.threshold else None

    def resolve(self, mention: str, scope: str = "") -> Resolved:
        """Resolve a mention, creating a new canonical entity when nothing matches.

        Args:
            mention: the words of the mention.
            scope: the Document node id, used to keep pronouns apart.
        """
        name = display_name(mention)
        if not name:
            raise ValueError("empty entity mention")
        if is_pronoun(name):
            return Resolved(f"{name}@{scope}" if scope else name, name, True)
        key = normalize_name(name) or name.lower()
        with self._lock:
            found = self._by_key.get(key) or self._nearest(key)
            if found is not None:
                self._by_key.setdefault(key, found)
                return Resolved(found, self._canonical(found), False)
            self._add(key, name, name)
            return Resolved(name, name, False)

    def _canonical(self, entity_id: str) -> str:
        try:
            return self._names[self._ids.index(entity_id)]
        except ValueError:
            return entity_id

    def forget(self, entity_ids: set[str]) -> None:
        """Drop entities that were removed from the graph."""
        with self._lock:
            self._by_key = {k: v for k, v in self._by_key.items() if v not in entity_ids}
            keep = [i for i, e in enumerate(self._ids) if e not in entity_ids]
            self._ids = [self._ids[i] for i in keep]
            self._names = [self._names[i] for i in keep]
            self._matrix = self._matrix[keep] if keep else np.zeros((0, 0), dtype=np.float32)
