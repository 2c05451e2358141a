"""A question's slips of the keyboard, read as the documents' word they slip from ("killd": killed).

A word is a slip when it is in lower case (names and code are left as written), four letters or
more, neither in the documents (in any form: "waited" holds "wait") nor an English word
(pyspellchecker's dictionary), and one edit away (a letter added, dropped, changed, or two
swapped) from the words of exactly one stem the documents use. An English word the documents
lack ("invented" beside their "inverted") is never changed: the question may ask what they do
not say, and then it must be refused.
"""

from __future__ import annotations

import functools
import re
import threading
import weakref
from dataclasses import dataclass
from typing import Any

from karaka.answering.corpus import corpus_text
from karaka.answering.languages import language
from karaka.answering.stems import key
from karaka.kg.retrieval import index_key
from karaka.store.base import Store
from karaka.words import FUNCTION_WORDS

_WORD = re.compile(r"(?<![\w'’.-])[a-z]{4,}(?![\w'’-])")


@dataclass(frozen=True)
class Vocabulary:
    """The documents' words in lower case, and by stem (``stems.key``) the shortest word of it."""

    words: frozenset[str]
    stems: dict[str, str]


_cache: weakref.WeakKeyDictionary[Any, tuple[tuple[int, int], Vocabulary]] = weakref.WeakKeyDictionary()
_lock = threading.Lock()


def vocabulary(store: Store) -> Vocabulary:
    """The documents' words, kept until the workspace changes."""
    generation = index_key(store)
    with _lock:
        cached = _cache.get(store)
        if cached is not None and cached[0] == generation:
            return cached[1]
    words = frozenset(re.findall(r"[a-z]+", corpus_text(store)))
    stems: dict[str, str] = {}
    for word in sorted(words, key=len):
        stems.setdefault(key(word), word)
    found = Vocabulary(words, stems)
    with _lock:
        _cache[store] = (generation, found)
    return found


@functools.lru_cache(maxsize=1)
def _english() -> Any:
    from spellchecker import SpellChecker

    return SpellChecker(language="en", distance=1)


def corrected(store: Store, question: str) -> tuple[str, list[tuple[str, str]]]:
    """The question with its slips replaced, and each (slip, word) replaced."""
    if language(question) != "en":
        return question, []
    candidates = [m for m in _WORD.finditer(question) if m.group(0) not in FUNCTION_WORDS]
    if not candidates:
        return question, []
    known = vocabulary(store)
    absent = [m for m in candidates if m.group(0) not in known.words and key(m.group(0)) not in known.stems]
    if not absent:
        return question, []
    unknown = _english().unknown([m.group(0) for m in absent])
    out, fixed = question, []
    for m in reversed(absent):
        word = m.group(0)
        near = _nearest(word, known) if word in unknown else ""
        if near:
            out = out[:m.start()] + near + out[m.end():]
            fixed.append((word, near))
    return out, fixed[::-1]


def _nearest(word: str, known: Vocabulary) -> str:
    """The documents' word one edit from ``word`` or from its stem, when all such words share one stem; "" otherwise."""
    stem = key(word)
    found: dict[str, str] = {}
    for other in known.words:
        if other[0] == word[0] and abs(len(other) - len(word)) <= 1 and edits(word, other) <= 1:
            found.setdefault(key(other), other)
    for other_stem, other in known.stems.items():
        if other_stem[:1] == stem[:1] and abs(len(other_stem) - len(stem)) <= 1 and edits(stem, other_stem) <= 1:
            found.setdefault(other_stem, other)
    return next(iter(found.values())) if len(found) == 1 else ""


def edits(a: str, b: str) -> int:
    """Letters added, dropped, changed or two neighbours swapped to make ``b`` of ``a`` (Damerau-Levenshtein)."""
    rows = [list(range(len(b) + 1))]
    for i, x in enumerate(a, 1):
        row = [i] + [0] * len(b)
        for j, y in enumerate(b, 1):
            row[j] = min(rows[-1][j] + 1, row[j - 1] + 1, rows[-1][j - 1] + (x != y))
            if i > 1 and j > 1 and x == b[j - 2] and a[i - 2] == y:
                row[j] = min(row[j], rows[-2][j - 2] + 1)
        rows.append(row)
    return rows[-1][-1]
