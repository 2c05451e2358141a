"""Hybrid fallback retrieval: BM25 (bm25s) and FAISS, fused by reciprocal rank, then reranked."""

from __future__ import annotations

import logging
import re
import threading
from typing import Any

from karaka.services import Services

logging.getLogger("bm25s").setLevel(logging.WARNING)  # its DEBUG lines flood notebooks
RRF_K = 60
MIN_COSINE = 0.5
_STOP = frozenset(
    "a an the of to in on at by for with and or is was were are be been who what whom which when where "
    "why how did do does find documents document about show list me any all lines".split()
)
_cache: dict[int, tuple[int, Any, list[str]]] = {}
_lock = threading.Lock()


def _tokens(text: str) -> list[str]:
    return [w for w in re.findall(r"[a-z0-9]+", text.lower()) if w not in _STOP]


def _bm25(services: Services) -> tuple[Any, list[str]]:
    """A BM25 index over every Document node, rebuilt when the graph's lines change."""
    import bm25s

    g = services.workspace.graph.g
    docs = sorted(n for n, t in g.nodes(data="type") if t == "Document")
    key = id(services.workspace)
    with _lock:
        cached = _cache.get(key)
        if cached and cached[0] == len(docs) and cached[2] == docs:
            return cached[1], cached[2]
        if not docs:
            return None, []
        retriever = bm25s.BM25()
        retriever.index([_tokens(g.nodes[d]["text"]) or ["_"] for d in docs], show_progress=False)
        _cache[key] = (len(docs), retriever, docs)
        return retriever, docs


def hybrid_search(services: Services, question: str, k: int = 5) -> list[tuple[str, float]]:
    """Document node ids ranked by fused BM25 + vector rank; empty when nothing is relevant."""
    g = services.workspace.graph.g
    terms = _tokens(question)
    ranked: dict[str, float] = {}
    retriever, docs = _bm25(services)
    if docs and terms:
        ids, scores = retriever.retrieve([terms], k=min(20, len(docs)), show_progress=False)
        lexical = [(docs[int(i)], float(s)) for i, s in zip(ids[0], scores[0], strict=True) if float(s) > 0]
        for rank, (doc, _) in enumerate(lexical):
            ranked[doc] = ranked.get(doc, 0.0) + 1 / (RRF_K + rank + 1)
    vector = services.embeddings.embed_query(question)
    dense = [(f"{d}_L{n}", s) for d, n, s in services.workspace.vectors.search(vector, k=20) if s >= MIN_COSINE]
    for rank, (doc, _) in enumerate(dense):
        if doc in g:
            ranked[doc] = ranked.get(doc, 0.0) + 1 / (RRF_K + rank + 1)
    fused = sorted(ranked.items(), key=lambda p: (-p[1], p[0]))
    if services.ctx.reranker:
        fused = rerank(services, question, fused[: 4 * k])
    return fused[:k]


def rerank(services: Services, question: str, hits: list[tuple[str, float]]) -> list[tuple[str, float]]:
    """Cross-encoder reranking (``reranker`` = a transformers sequence-classification model)."""
    from karaka.models import load_cross_encoder

    g = services.workspace.graph.g
    scorer = load_cross_encoder(services.ctx.reranker)
    scores = scorer([(question, g.nodes[d]["text"]) for d, _ in hits])
    return sorted(zip([d for d, _ in hits], scores, strict=True), key=lambda p: -p[1])
