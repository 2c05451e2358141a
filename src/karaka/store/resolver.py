"""Entity resolution: one canonical entity per name, an alias index, embeddings as a last resort.

A mention resolves, in order, to the entity with the same normalised key ("Dr. Aris" = "aris"),
else to the one entity whose name's embedding is at least ``threshold`` similar. New names become
new entities. Pronouns never merge: each is scoped to its line.

The alias index lets short and long names meet without merging distinct people: every entity is
also filed under the tails of its name ("Chief Inspector Andy Freeburn" under "andy freeburn" and
"freeburn") and, for common nouns, under its head noun ("the operation by the gunmen" under
"operation"). ``candidates`` returns every entity filed under a key, so a query decides among them
with the rest of its constraints; ``resolve`` links a new name to an alias only when exactly one
entity claims it.
"""

from __future__ import annotations

import re
import threading
import unicodedata
from collections import defaultdict
from collections.abc import Collection
from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np

from karaka.words import ARTICLES, PRONOUNS

if TYPE_CHECKING:
    from langchain_core.embeddings import Embeddings

TITLES = frozenset(
    "dr mr mrs ms miss prof professor sir madam mme mx rev fr st lord lady hon president king queen "
    "prince princess general gen captain capt colonel col sergeant sgt lieutenant lt inspector chief "
    "commander judge senator governor mayor minister saint pope bishop archbishop duke".split()
)
LEADING_PREPOSITIONS = frozenset(
    "in on at by for with from to into onto during before after since until till through across over under "
    "near within without among between behind beside around along above below beneath toward towards upon "
    "via per following despite throughout inside outside as of".split()
)
_PUNCT = re.compile(r"[^\w\s]")


def normalize_name(name: str) -> str:
    """Lower-case, drop leading titles (Dr., Mr.) and articles, punctuation, squash spaces."""
    text = unicodedata.normalize("NFKC", name).lower()
    text = _PUNCT.sub(" ", text)
    words = text.split()
    while len(words) > 1 and (words[0] in TITLES or words[0] in ARTICLES):
        words = words[1:]
    if words and words[0] in ARTICLES:
        words = words[1:]
    return " ".join(words)


def mention_key(name: str) -> str:
    """The key an entity name is filed and looked up under: normalised, else lower-cased."""
    return normalize_name(name) or name.lower()


def is_pronoun(name: str) -> bool:
    """True for a bare pronoun (he, it, which…)."""
    return name.strip().lower() in PRONOUNS


def display_name(name: str) -> str:
    """The mention as it will be shown: stripped of outer whitespace and quotes."""
    return " ".join(name.strip().strip("\"'“”‘’`").split())


def entity_name(span: str, prepositional: bool = False) -> str:
    """The entity a surface span names: its leading article (and preposition) dropped.

    The preposition goes only for a prepositional role (place, time, instrument…).

    "the bow" names "bow"; "in a statement" (a place) names "statement"; "Dr. Aris" stays "Dr. Aris".
    """
    words = display_name(span).split()
    if prepositional and words and words[0].lower() in LEADING_PREPOSITIONS:
        words = words[1:]  # a lone preposition names nothing
    if len(words) > 1 and words[0].lower() in ARTICLES:
        words = words[1:]
    return " ".join(words)


MAX_NAME_WORDS = 8
"""A phrase longer than this is a description, not a name with short forms."""


def aliases(name: str) -> set[str]:
    """The keys an entity is filed under besides its own: name tails and the head noun."""
    key = normalize_name(name)
    words = key.split()
    if not 2 <= len(words) <= MAX_NAME_WORDS:  # a long description ("the arrival of …") is no name to shorten
        return set()
    out = {" ".join(words[i:]) for i in range(1, len(words))}
    shown = display_name(name).split()
    proper = [w for w in shown if w[:1].isupper()]
    if len(proper) >= 2 and proper[-2:] == shown[-2:]:  # the name without its titles and roles: "andy freeburn"
        out.add(normalize_name(" ".join(proper[-2:])))
    return {a for a in out if a and a not in ARTICLES and a not in PRONOUNS and len(a) > 2}


def given_name(name: str) -> str:
    """The key of a full name's first word ("tomas" of "Tomas Berg"), by which a story calls the person later.

    Only a name of two or three capitalised words; "" for anything else. A mention is taken for
    the full name only when one entity has that first word (``EntityResolver.candidates``).
    """
    shown = display_name(name).split()
    if not 2 <= len(shown) <= 3 or not all(w[:1].isupper() and w[1:2].islower() for w in shown):
        return ""
    first = normalize_name(shown[0])
    return first if len(first) > 2 and first not in ARTICLES and first not in PRONOUNS else ""


_NAMED = re.compile(r"\b(?:named|called)\s+((?:[A-Z][\w'’-]+)(?:\s+[A-Z][\w'’-]+)?)")


def name_given(name: str) -> str:
    """The name a description gives its thing, as written ("Golan" of "a champion named Golan, whose …"), or ""."""
    found = _NAMED.search(display_name(name))
    return found.group(1) if found and len(found.group(1)) > 2 and found.group(1).lower() not in PRONOUNS else ""


def named_in(name: str) -> str:
    """The key of the name a description gives its thing ("golan"), or ""."""
    return normalize_name(name_given(name))


def with_given(found: list[str], given: Collection[str]) -> list[str]:
    """``found`` and the one entity a first name opens, when only one has it: "Tomas" is also "Tomas Berg"."""
    return found + list(given) if len(given) == 1 and not set(given) & set(found) else found


@dataclass(frozen=True)
class Resolved:
    """Where a mention landed."""

    entity_id: str
    canonical_name: str
    pronoun: bool
    alias_of: str | None = None
    """An existing entity that this new entity is another name of (a unique alias match)."""


class EntityResolver:
    """Maps a mention to one canonical entity (see the module docstring)."""

    def __init__(self, embeddings: Embeddings | None, threshold: float = 0.85):
        if not 0 < threshold <= 1:
            raise ValueError(f"threshold must be in (0, 1], got {threshold}")
        self.embeddings = embeddings
        self.threshold = threshold
        self._lock = threading.RLock()
        self._by_key: dict[str, str] = {}
        self._names: dict[str, str] = {}  # entity id -> canonical name
        self._aliases: dict[str, set[str]] = defaultdict(set)
        self._given: dict[str, set[str]] = defaultdict(set)  # a full name's first word -> its entities
        self._ids: list[str] = []  # rows of the embedding matrix
        self._rows = np.zeros((0, 0), dtype=np.float32)  # room for more rows: the matrix is its first len(_ids)
        self._prepared: dict[str, tuple[np.ndarray, int, int, float]] = {}
        """Per key: its vector, how many rows it was compared with, the best row and its similarity."""
        self._key_vectors: dict[str, np.ndarray] = {}  # the last prepared batch's vectors, by key
        self._pending: list[str] = []  # registered but not yet embedded (embedded in one batch, on demand)

    def _vectors(self, texts: list[str]) -> np.ndarray:
        assert self.embeddings is not None
        vecs = np.asarray(self.embeddings.embed_documents(texts), dtype=np.float32)
        norms = np.linalg.norm(vecs, axis=1, keepdims=True)
        return vecs / np.where(norms == 0, 1, norms)

    def known(self, entity_id: str, canonical_name: str) -> None:
        """Register an existing entity (e.g. loaded from the graph); embedding waits until needed."""
        if is_pronoun(canonical_name):
            return
        with self._lock:
            key = normalize_name(canonical_name)
            if not key or key in self._by_key:
                return
            self._add(key, entity_id, canonical_name)

    def known_mention(self, span: str, entity_id: str, prepositional: bool) -> None:
        """Register a mention already written to ``entity_id``, so it resolves there again.

        A name can reach an entity by embedding similarity; which entity is nearest depends on
        what was known at the time, so a new process would not always find the same one. The
        mentions on the graph's edges make resolution the same whatever the process.
        """
        name = entity_name(span, prepositional)
        if not name or is_pronoun(name):
            return
        with self._lock:
            if entity_id in self._names:
                self._by_key.setdefault(mention_key(name), entity_id)

    def _add(self, key: str, entity_id: str, name: str) -> None:
        self._by_key[key] = entity_id
        self._names[entity_id] = name
        for alias in aliases(name):
            self._aliases[alias].add(entity_id)
        for given in (given_name(name), named_in(name)):  # "Tomas" of "Tomas Berg"; "Golan" of "a man named Golan"
            if given:
                self._given[given].add(entity_id)
        if self.embeddings is not None:
            self._pending.append(entity_id)

    def _embed_pending(self) -> None:
        if not self._pending:
            return
        ids = [e for e in self._pending if e in self._names]
        self._pending = []
        if not ids:
            return
        texts = [normalize_name(self._names[e]) or self._names[e] for e in ids]
        missing = [t for t in texts if t not in self._key_vectors]
        if missing:
            self._key_vectors.update(zip(missing, self._vectors(missing), strict=True))
        vecs = np.stack([self._key_vectors[t] for t in texts])
        used = len(self._ids)
        if used + len(ids) > len(self._rows):  # grow by doubling: appending stays linear
            rows = np.zeros((max(2 * len(self._rows), used + len(ids), 256), vecs.shape[1]), dtype=np.float32)
            if used:
                rows[:used] = self._rows[:used]
            self._rows = rows
        self._rows[used:used + len(ids)] = vecs
        self._ids += ids

    @property
    def _matrix(self) -> np.ndarray:
        return self._rows[: len(self._ids)]

    def prepare(self, mentions: list[tuple[str, bool]]) -> None:
        """Embed and compare a batch of mentions at once (one document's), before they are resolved one by one.

        Each ``(span, prepositional)`` not known by name gets its vector and its nearest entity in
        one matrix product; resolving it later compares it only with the entities added since.
        The outcome is that of resolving each alone.
        """
        if self.embeddings is None:
            return
        with self._lock:
            self._prepared, self._key_vectors = {}, {}  # what the last document left unused
            names = [entity_name(span, prepositional) for span, prepositional in mentions]
            keys = list(dict.fromkeys(mention_key(name) for name in names if name and not is_pronoun(name)))
            keys = [key for key in keys if key not in self._by_key]
            if not keys:
                return
            self._embed_pending()
            vecs = self._vectors(keys)
            self._key_vectors.update(zip(keys, vecs, strict=True))  # a new entity's own vector: embedded once
            if self._ids:
                sims = vecs @ self._matrix.T
                best = np.argmax(sims, axis=1)
                for i, (key, vec, row) in enumerate(zip(keys, vecs, best, strict=True)):
                    self._prepared[key] = (vec, len(self._ids), int(row), float(sims[i, row]))
            else:
                for key, vec in zip(keys, vecs, strict=True):
                    self._prepared[key] = (vec, 0, -1, -1.0)

    def lookup(self, mention: str) -> str | None:
        """The entity a mention resolves to, without creating one."""
        key = normalize_name(mention)
        if not key or is_pronoun(mention):
            return None
        with self._lock:
            if key in self._by_key:
                return self._by_key[key]
            return self._nearest(key)

    def candidates(self, mention: str) -> list[str]:
        """Every entity a mention may name: its exact match first, then the alias claims."""
        key = normalize_name(entity_name(mention, prepositional=True))
        if not key or is_pronoun(mention):
            return []
        with self._lock:
            out: list[str] = []
            exact = self._by_key.get(key)
            if exact is not None:
                out.append(exact)
            out += sorted(e for e in self._aliases.get(key, ()) if e != exact)
            out = with_given(out, self._given.get(key, ()))
            if not out:
                near = self._nearest(key)
                if near is not None:
                    out.append(near)
            return out

    def _nearest(self, key: str) -> str | None:
        if self.embeddings is None:
            return None
        self._embed_pending()
        if not self._ids:
            return None
        held = self._prepared.pop(key, None)
        if held is None:
            sims = self._matrix @ self._vectors([key])[0]
            best = int(np.argmax(sims))
            return self._ids[best] if float(sims[best]) >= self.threshold else None
        vec, seen, row, sim = held
        if seen < len(self._ids):  # entities added since it was prepared
            tail = self._matrix[seen:] @ vec
            j = int(np.argmax(tail))
            if float(tail[j]) > sim:
                row, sim = seen + j, float(tail[j])
        return self._ids[row] if sim >= self.threshold else None

    def resolve(self, mention: str, scope: str = "", prepositional: bool = False) -> Resolved:
        """Resolve a mention, creating a new canonical entity when nothing matches.

        Args:
            mention: the words of the mention (a surface span: "in a statement", "the bow").
            scope: the Document node id, used to keep pronouns apart.
            prepositional: the span fills a prepositional role (place, time, instrument…), so a
                leading preposition is not part of the name.
        """
        name = entity_name(mention, prepositional)
        if not name:
            raise ValueError("empty entity mention")
        if is_pronoun(name):
            return Resolved(f"{name}@{scope}" if scope else name, name, True)
        key = mention_key(name)
        with self._lock:
            found = self._by_key.get(key) or self._nearest(key)
            if found is not None:
                self._by_key.setdefault(key, found)
                return Resolved(found, self._names.get(found, found), False)
            claims = self._aliases.get(key, set())
            alias_of = next(iter(claims)) if len(claims) == 1 and _is_proper(name) else None
            self._add(key, name, name)
            return Resolved(name, name, False, alias_of)

    def forget(self, entity_ids: set[str]) -> None:
        """Drop entities that were removed from the graph."""
        if not entity_ids:
            return
        with self._lock:
            self._prepared = {}  # rows move
            self._by_key = {k: v for k, v in self._by_key.items() if v not in entity_ids}
            for entity in entity_ids:
                self._names.pop(entity, None)
            for table in (self._aliases, self._given):
                for key in list(table):
                    table[key] -= entity_ids
                    if not table[key]:
                        del table[key]
            keep = [i for i, e in enumerate(self._ids) if e not in entity_ids]
            self._rows = self._rows[keep] if keep else np.zeros((0, 0), dtype=np.float32)
            self._ids = [self._ids[i] for i in keep]
            self._pending = [e for e in self._pending if e not in entity_ids]


def _is_proper(name: str) -> bool:
    """A capitalised name; a bare number or date ("2011") is none, so it is no one's alias."""
    words = name.split()
    return any(w[:1].isupper() for w in words) and all(
        w[:1].isupper() or not w[:1].isalpha() for w in words if w.lower() not in ARTICLES)
