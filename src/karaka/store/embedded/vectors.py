"""FAISS line vectors, each id mapped to (doc_id, line_number), saved in one atomic file."""

from __future__ import annotations

import io
from pathlib import Path
from typing import Any

import numpy as np

from karaka.store.atomic import atomic_write


def _faiss() -> Any:
    import faiss  # loaded with the first vector operation: a question the graph answers never needs it

    return faiss


class DimensionMismatch(ValueError):
    """Saved vectors of another dimension than the embeddings give: other embeddings, not a damaged file."""


def saved_dim(path: str | Path) -> int | None:
    """The dimension of the vectors saved at ``path`` (None when there is no file)."""
    if not Path(path).exists():
        return None
    with np.load(path, allow_pickle=False) as data:
        return int(data["meta"][0])


def saved_counts(path: str | Path) -> dict[str, int]:
    """Vectors saved per document, read without the index (empty when there is no file)."""
    if not Path(path).exists():
        return {}
    counts: dict[str, int] = {}
    with np.load(path, allow_pickle=False) as data:
        for doc in data["docs"].tolist():
            counts[doc] = counts.get(doc, 0) + 1
    return counts


class LineVectors:
    """Inner-product FAISS index over normalised line embeddings."""

    def __init__(self, dim: int):
        self.dim = dim
        self.index = _faiss().IndexIDMap2(_faiss().IndexFlatIP(dim))
        self.refs: dict[int, tuple[str, int]] = {}
        self._by_doc: dict[str, dict[int, int]] = {}  # doc_id -> line -> vector id
        self._next = 0

    def __len__(self) -> int:
        return len(self.refs)

    def lines_of(self, doc_id: str) -> list[int]:
        """Indexed line numbers of a document."""
        return sorted(self._by_doc.get(doc_id, {}))

    def _map(self, vid: int, doc_id: str, line: int) -> None:
        self.refs[vid] = (doc_id, line)
        self._by_doc.setdefault(doc_id, {})[line] = vid

    def add(self, doc_id: str, lines: list[int], vectors: np.ndarray) -> None:
        """Add (or replace) the vectors of some lines of one document."""
        vectors = np.ascontiguousarray(vectors, dtype=np.float32)
        if vectors.shape != (len(lines), self.dim):
            raise ValueError(f"vectors shape {vectors.shape} != ({len(lines)}, {self.dim})")
        known = self._by_doc.get(doc_id, {})
        stale = [known[ln] for ln in lines if ln in known]
        if stale:
            self._remove_ids(stale)
        _faiss().normalize_L2(vectors)
        ids = np.arange(self._next, self._next + len(lines), dtype=np.int64)
        self._next += len(lines)
        self.index.add_with_ids(vectors, ids)
        for vid, line in zip(ids.tolist(), lines, strict=True):
            self._map(vid, doc_id, line)

    def _remove_ids(self, ids: list[int]) -> None:
        self.index.remove_ids(np.asarray(ids, dtype=np.int64))  # type: ignore[arg-type]
        for vid in ids:
            doc_id, line = self.refs.pop(vid)
            lines = self._by_doc.get(doc_id, {})
            lines.pop(line, None)
            if not lines:
                self._by_doc.pop(doc_id, None)

    def remove_doc(self, doc_id: str) -> int:
        """Delete every vector of a document; returns how many."""
        ids = list(self._by_doc.get(doc_id, {}).values())
        if ids:
            self._remove_ids(ids)
        return len(ids)

    def search(self, vector: np.ndarray | list[float], k: int = 5) -> list[tuple[str, int, float]]:
        """K nearest lines: (doc_id, line, cosine)."""
        if not self.refs:
            return []
        query = np.ascontiguousarray(np.asarray(vector, dtype=np.float32).reshape(1, -1))
        _faiss().normalize_L2(query)
        scores, ids = self.index.search(query, min(k, len(self.refs)))
        return [
            (*self.refs[int(i)], float(s))
            for s, i in zip(scores[0], ids[0], strict=True) if int(i) in self.refs
        ]

    def vector(self, doc_id: str, line: int) -> np.ndarray | None:
        """The normalised vector of one line, or None when it has none."""
        vid = self._by_doc.get(doc_id, {}).get(line)
        return None if vid is None else np.asarray(self.index.reconstruct(vid))

    def nearby(self, doc_id: str, line: int, window: int = 3, k: int = 5) -> list[int]:
        """Lines of the same document within ``window`` of ``line``, most similar first."""
        known = self._by_doc.get(doc_id, {})
        if line not in known:
            return []
        anchor = self.index.reconstruct(known[line])
        near = [ln for ln in range(line - window, line + window + 1) if ln != line and ln in known]
        scored = [(float(np.dot(anchor, self.index.reconstruct(known[ln]))), ln) for ln in near]
        return [ln for _, ln in sorted(scored, key=lambda p: (-p[0], p[1]))[:k]]

    def save(self, path: str | Path) -> None:
        """One atomic file holding the index and the id map."""
        blob = _faiss().serialize_index(self.index)
        ids = np.fromiter(self.refs, dtype=np.int64, count=len(self.refs))
        docs = np.array([self.refs[i][0] for i in ids.tolist()], dtype=object)
        lines = np.array([self.refs[i][1] for i in ids.tolist()], dtype=np.int64)

        def write(handle: io.BufferedIOBase) -> None:
            np.savez(
                handle, index=blob, ids=ids, docs=docs.astype(str), lines=lines,
                meta=np.array([self.dim, self._next], dtype=np.int64),
            )

        atomic_write(path, write)  # type: ignore[arg-type]

    @classmethod
    def load(cls, path: str | Path, dim: int) -> LineVectors:
        """Load from ``path``; a missing file gives an empty index of ``dim``."""
        path = Path(path)
        if not path.exists():
            return cls(dim)
        with np.load(path, allow_pickle=False) as data:
            saved_dim, next_id = (int(x) for x in data["meta"])
            if saved_dim != dim:
                raise DimensionMismatch(
                    f"{path}: vectors have dim {saved_dim}, the embeddings give {dim}; "
                    "use the embeddings this workspace was built with"
                )
            vec = cls(dim)
            vec.index = _faiss().deserialize_index(data["index"])  # type: ignore[assignment]
            for vid, doc, line in zip(data["ids"].tolist(), data["docs"].tolist(), data["lines"].tolist(), strict=True):
                vec._map(vid, doc, line)
            vec._next = next_id
        return vec
