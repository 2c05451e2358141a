"""Line retrieval: BM25 (bm25s) with FAISS vectors, optionally reranked by a cross-encoder.

BM25 leads: the bundled WordLlama vectors are static word embeddings, good at paraphrase and weak
at precision, so they only order the lines BM25 scores alike and add the lines it cannot find (a
question that shares no word with its line). Fused by reciprocal rank, even at a quarter of BM25's
weight, they lifted lines BM25 ranked fourteen places lower above its best (docs/design.md).
"""

from __future__ import annotations

import functools
import hashlib
import json
import logging
import os
import re
import shutil
import threading
import unicodedata
import weakref
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from karaka.services import Services
from karaka.store.base import Store
from karaka.words import SEARCH_STOP_WORDS, WORD

logging.getLogger("bm25s").setLevel(logging.WARNING)  # its DEBUG lines flood notebooks and CLIs
RRF_K = 60
"""A hit's score is 1 / (RRF_K + its rank): scores that add up across lines as reciprocal ranks do."""
FETCH_K = 32
"""Fused lines MMR chooses among (seed 003's fetch_k)."""
MIN_COSINE = 0.5
NEIGHBOUR_WEIGHT = 0.3
"""The share of the lines before and after a line that its BM25 score is lifted by (``lexical``). Chosen
before measuring, not fitted: 0.3 on the dev sets gave docs dev's first cited line 57.9 → 68.4 %,
the action set's (unrelated sentences side by side) 85.7 → 85.3 %, multi-hop recall@5 94.8 → 95.2."""
_cache: weakref.WeakKeyDictionary[Any, tuple[tuple[int, int], Lexical | None]] = weakref.WeakKeyDictionary()
"""Each open store's index, kept while the store lives (keyed by the store itself: an id can be a dead store's)."""
_lock = threading.Lock()


_VERSION = re.compile(r"(?<![\w.])v?\d+(?:\.\d+)+(?!\w|\.\w)")
_FLAG = re.compile(r"(?<![\w-])--?[a-z][^\W_]*(?:-[^\W_]+)+")  # a flag of words: "-W, --warndays" are words already
_CJK = re.compile(r"[\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uac00-\ud7af\uf900-\ufaff]+")


def tokens(text: str) -> list[str]:
    """Lower-cased words without stopwords (the same for lines and questions).

    Text is NFKC-normalised as the lines were. Chinese, Japanese and Korean runs, which have no
    spaces between words, give their characters and each pair of neighbouring characters, so a
    question finds a line without a word segmenter.
    """
    text = unicodedata.normalize("NFKC", text).lower()
    out = _VERSION.findall(text)  # "1.0.0" is one word as well as three numbers
    out += _FLAG.findall(text)  # "--leak-check" is one word as well as two; "--leak-check-heuristics" is another
    for word in WORD.findall(text):
        if word in SEARCH_STOP_WORDS:
            continue
        if not _CJK.search(word):
            out.append(word)
            continue
        for piece in re.split(f"({_CJK.pattern})", word):
            if not piece:
                continue
            if not _CJK.fullmatch(piece):
                out.append(piece)
                continue
            out += list(piece) + [piece[i:i + 2] for i in range(len(piece) - 1)]
    return out


def line_words(attrs: dict[str, Any]) -> str:
    """What a line is found by: its text, the headings above it and its document's name.

    A line under "## [1.0.0] - 2023-02-24" of python-dotenv's changelog answers a question about
    python-dotenv 1.0.0 although neither is in the line itself.
    """
    name = re.sub(r"[_\W]+", " ", str(attrs.get("doc_id", "")))
    return f"{attrs.get('text', '')} {attrs.get('section', '')} {name}"


@dataclass(frozen=True)
class Hit:
    """A ranked line: its Document node and fused score."""

    document: str
    score: float


def index_key(store: Store) -> tuple[int, int]:
    """What an index over the lines is rebuilt on: the workspace generation and the graph's size."""
    return store.records.generation(), len(store.graph)


@dataclass(frozen=True)
class Lexical:
    """The BM25 index over every line, the lines' Document nodes, and each line's neighbours in its document."""

    retriever: Any
    docs: list[str]
    before: Any
    """For each line, the index of the line before it in its document (-1: none)."""
    after: Any


def neighbours(attrs: list[dict[str, Any]]) -> tuple[Any, Any]:
    """For each line (its Document node's attributes), the lines before and after it in its document.

    Indices into ``attrs``; -1 where there is none.
    """
    before = np.full(len(attrs), -1, dtype=np.int64)
    after = np.full(len(attrs), -1, dtype=np.int64)
    by_doc: dict[str, list[tuple[int, int]]] = {}
    for i, line in enumerate(attrs):
        by_doc.setdefault(str(line.get("doc_id", "")), []).append((int(line.get("seq", 0)), i))
    for lines in by_doc.values():
        lines.sort()
        for (_, a), (_, b) in zip(lines, lines[1:], strict=False):
            after[a], before[b] = b, a
    return before, after


def _bm25(store: Store, generation: tuple[int, int]) -> Lexical | None:
    """A BM25 index over every Document node, rebuilt when the workspace generation changes.

    A workspace folder keeps it in ``bm25/`` (memory-mapped on load), with the lines' neighbours,
    so a cold question on a large workspace reads it instead of tokenising every line again.
    """
    import bm25s

    logging.getLogger("bm25s").setLevel(logging.WARNING)  # bm25s sets its own level when first imported
    with _lock:
        cached = _cache.get(store)
        if cached and cached[0] == generation:
            return cached[1]
        folder = Path(root) / BM25_FOLDER if (root := getattr(store, "root", None)) is not None else None
        found = _load_index(folder, generation) if folder is not None else None
        if found is None:
            docs = store.graph.nodes_of("Document")
            if not docs:
                return None
            attrs = [store.graph.node(d) or {} for d in docs]  # each node read once, for its words and place
            retriever = bm25s.BM25()
            retriever.index([tokens(line_words(a)) or ["_"] for a in attrs], show_progress=False)
            found = Lexical(retriever, docs, *neighbours(attrs))
            if folder is not None:
                _save_index(folder, generation, found)
        _cache[store] = (generation, found)
        return found


BM25_FOLDER = "bm25"


@functools.cache
def tokens_stamp() -> str:
    """A fingerprint of how ``tokens`` splits text: a saved index made by another tokeniser is rebuilt, not read."""
    made = "\n".join([WORD.pattern, _VERSION.pattern, _FLAG.pattern, _CJK.pattern, " ".join(sorted(SEARCH_STOP_WORDS))])
    return hashlib.sha256(made.encode()).hexdigest()[:16]


def _load_index(folder: Path, generation: tuple[int, int]) -> Lexical | None:
    """The saved index when it was built on this generation, else None."""
    import bm25s

    try:
        stamp = json.loads((folder / "stamp.json").read_text(encoding="utf-8"))
        if tuple(stamp["generation"]) != tuple(generation) or stamp.get("tokens") != tokens_stamp():
            return None
        retriever = bm25s.BM25.load(str(folder), mmap=True, show_progress=False)
        with np.load(folder / "neighbours.npz") as saved:
            return Lexical(retriever, list(stamp["docs"]), saved["before"], saved["after"])
    except (OSError, ValueError, KeyError):
        return None


def _save_index(folder: Path, generation: tuple[int, int], index: Lexical) -> None:
    """Save the index beside the workspace's files (a new folder renamed over the old); skipped when read-only."""
    from karaka.store.embedded.lock import is_read_only

    if not folder.parent.is_dir() or is_read_only(folder.parent):
        return
    fresh = folder.with_name(f"{folder.name}.{os.getpid()}.tmp")
    try:
        shutil.rmtree(fresh, ignore_errors=True)
        index.retriever.save(str(fresh), show_progress=False)
        np.savez(fresh / "neighbours.npz", before=index.before, after=index.after)
        (fresh / "stamp.json").write_text(json.dumps({"generation": list(generation), "tokens": tokens_stamp(), "docs": index.docs}),
                                          encoding="utf-8")
        old = folder.with_name(f"{folder.name}.{os.getpid()}.old")
        if folder.exists():
            folder.rename(old)
        fresh.rename(folder)
        shutil.rmtree(old, ignore_errors=True)
    except OSError as exc:
        logging.getLogger("karaka.retrieval").warning("BM25 index not saved: %s", exc)
        shutil.rmtree(fresh, ignore_errors=True)


PREPARE_LINES = 10_000
"""A run that leaves a workspace this large builds the BM25 index at its end (below that the first question builds it in well under a second)."""


def prepare_lexical(store: Store) -> bool:
    """Build and save the BM25 index of a large workspace now, so its first question does not pay for it."""
    if len(store.graph.nodes_of("Document")) < PREPARE_LINES:
        return False
    _bm25(store, index_key(store))
    return True


def lexical(store: Store, question: str, k: int = 20) -> list[tuple[str, float]]:
    """BM25 over every line, each line's score lifted by its neighbours': (Document node, score), best first.

    A line scores its own BM25 plus ``NEIGHBOUR_WEIGHT`` times the scores of the lines before and
    after it in its document: a manual's line is often a fragment whose subject the line before
    names ("-k, --keep" and then "Keep input files."), and a story's "he" is named a sentence back.
    Only lines that hold a word of the question are returned: the neighbours order them.
    """
    terms = tokens(question)
    index = _bm25(store, index_key(store))
    if index is None or not terms:
        return []
    own = np.asarray(index.retriever.get_scores(terms), dtype=np.float64)
    padded = np.append(own, 0.0)  # index -1, no neighbour, scores 0
    lifted = own + NEIGHBOUR_WEIGHT * (padded[index.before] + padded[index.after])
    return [(index.docs[int(i)], float(lifted[i])) for i in _top(np.where(own > 0, lifted, -1.0), k) if own[i] > 0]


def _top(values: Any, k: int) -> Any:
    """The indices of the ``k`` largest values, largest first, ties in index order.

    The same as a stable sort of every line, cut at ``k``, without sorting every line.
    """
    if len(values) <= k:
        return np.argsort(-values, kind="stable")
    kth = np.partition(values, len(values) - k)[len(values) - k]
    near = np.flatnonzero(values >= kth)  # the k largest and every tie of the k-th
    return near[np.argsort(-values[near], kind="stable")][:k]


def dense(services: Services, question: str, k: int = 20) -> list[tuple[str, float]]:
    """Vector search over every line: (Document node, cosine), best first."""
    store = services.workspace
    out = []
    for doc_id, seq, score in store.vectors.search(services.embeddings.embed_query(question), k=k):
        if score < MIN_COSINE:
            continue
        node = store.graph.document_at(doc_id, seq)
        if node is not None:
            out.append((node, score))
    return out


def hybrid_search(services: Services, question: str, k: int = 5) -> list[Hit]:
    """Document nodes ranked: BM25's order, its ties broken by the vectors, then the lines only the vectors find."""
    near = {node: rank for rank, (node, _) in enumerate(dense(services, question))}
    found = lexical(services.workspace, question)
    order = [n for n, _ in sorted(found, key=lambda p: (-round(p[1], 9), near.get(p[0], len(near)), p[0]))]
    lexical_nodes = {n for n, _ in found}
    order += [n for n in near if n not in lexical_nodes]
    hits = [Hit(n, 1.0 / (RRF_K + rank + 1)) for rank, n in enumerate(order)]
    if services.ctx.reranker:
        hits = rerank(services, question, hits[: 4 * k])
    if services.ctx.mmr_lambda < 1.0:
        hits = diversify(services, hits[: max(FETCH_K, 2 * k)], k, services.ctx.mmr_lambda)
    return hits[:k]


def diversify(services: Services, hits: list[Hit], k: int, lam: float) -> list[Hit]:
    """Maximal marginal relevance over the lines' vectors, duplicates dropped (seed 003: k 8, fetch_k 32).

    Each pick maximises ``lam * relevance - (1 - lam) * (the highest cosine to a line already
    picked)``, relevance being the fused score over the best one's; a line whose text (case and
    spaces aside) was picked already is left out. A line without a vector is like no other.
    """
    if not hits:
        return hits
    store = services.workspace
    vectors, texts = [], []
    for hit in hits:
        attrs = store.graph.node(hit.document) or {}
        vectors.append(store.vectors.vector(str(attrs.get("doc_id", "")), int(attrs.get("seq", -1))))
        texts.append(" ".join(str(attrs.get("text", "")).lower().split()))
    best = max(h.score for h in hits) or 1.0
    left, picked, seen = list(range(len(hits))), list[int](), set[str]()
    while left and len(picked) < k:
        def value(i: int) -> float:
            mine = vectors[i]
            near = [float(np.dot(mine, theirs)) for j in picked
                    if mine is not None and (theirs := vectors[j]) is not None]
            return lam * hits[i].score / best - (1 - lam) * max(near, default=0.0)

        choice = max(left, key=lambda i: (value(i), -i))
        left.remove(choice)
        if texts[choice] and texts[choice] in seen:
            continue
        seen.add(texts[choice])
        picked.append(choice)
    return [hits[i] for i in picked]


def rerank(services: Services, question: str, hits: list[Hit]) -> list[Hit]:
    """Cross-encoder reranking (``reranker`` = a transformers sequence-classification model)."""
    from karaka.models import load_cross_encoder

    scorer = load_cross_encoder(services.ctx.reranker)
    texts = [str((services.workspace.graph.node(h.document) or {}).get("text", "")) for h in hits]
    scores = scorer([(question, t) for t in texts])
    return [Hit(h.document, float(s)) for h, s in sorted(zip(hits, scores, strict=True), key=lambda p: -p[1])]
