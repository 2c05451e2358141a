"""One directory holds everything a run needs: graph, vectors, records, checkpoints, logs, config."""

from __future__ import annotations

import json
import logging
import os
import threading
from pathlib import Path
from typing import Any

from langchain_core.embeddings import Embeddings

from karaka.store.graph import KnowledgeGraph
from karaka.store.records import Records
from karaka.store.resolver import EntityResolver
from karaka.store.vectors import LineVectors

GRAPH_FILE = "graph.json"
VECTORS_FILE = "vectors.npz"
RECORDS_FILE = "karaka.db"
CHECKPOINTS_FILE = "checkpoints.sqlite"
REPORT_FILE = "report.json"


class Workspace:
    """The stores of one workspace directory, loaded once and shared by every graph."""

    def __init__(self, root: str | Path, embeddings: Embeddings, threshold: float = 0.85):
        self.root = Path(root).resolve()
        if self.root.exists() and not self.root.is_dir():
            raise ValueError(f"workspace {self.root} exists and is not a directory")
        (self.root / "logs").mkdir(parents=True, exist_ok=True)
        self.lock = threading.RLock()
        self.embeddings = embeddings
        self.records = Records(self.root / RECORDS_FILE)
        self.graph = KnowledgeGraph.load(self.root / GRAPH_FILE)
        self.dim = len(embeddings.embed_query("dimension probe"))
        self.vectors = LineVectors.load(self.root / VECTORS_FILE, self.dim)
        self.resolver = EntityResolver(embeddings, threshold)
        for node in self.graph.nodes_of("Entity"):
            self.resolver.known(node, self.graph.g.nodes[node]["canonical_name"])
        self._attach_log()

    def _attach_log(self) -> None:
        logger = logging.getLogger("karaka")
        target = str(self.root / "logs" / "karaka.log")
        if not any(getattr(h, "baseFilename", None) == target for h in logger.handlers):
            handler = logging.FileHandler(target, encoding="utf-8")
            handler.setFormatter(logging.Formatter("%(asctime)s %(levelname)s %(name)s %(message)s"))
            logger.addHandler(handler)
            logger.setLevel(logging.INFO)

    @property
    def checkpoints_path(self) -> Path:
        """The SQLite checkpointer's file."""
        return self.root / CHECKPOINTS_FILE

    def flush(self) -> None:
        """Save the graph and the vectors (each atomically)."""
        with self.lock:
            self.graph.save(self.root / GRAPH_FILE)
            self.vectors.save(self.root / VECTORS_FILE)

    def log_failure(self, record: dict[str, Any]) -> None:
        """Append one JSON line to logs/failures.jsonl."""
        path = self.root / "logs" / "failures.jsonl"
        with self.lock, open(path, "a", encoding="utf-8") as handle:
            handle.write(json.dumps(record, ensure_ascii=False) + "\n")
            handle.flush()
            os.fsync(handle.fileno())

    def failures(self) -> list[dict[str, Any]]:
        """Every logged GSV failure."""
        path = self.root / "logs" / "failures.jsonl"
        if not path.exists():
            return []
        out = []
        for line in path.read_text(encoding="utf-8").splitlines():
            try:
                out.append(json.loads(line))
            except json.JSONDecodeError:
                continue  # a line cut off by a crash mid-append
        return out

    def remove_document(self, doc_id: str) -> dict[str, int]:
        """Delete a document's nodes, edges, vectors and records."""
        with self.lock:
            before = set(self.graph.nodes_of("Entity"))
            removed_nodes = self.graph.remove_document(doc_id)
            self.resolver.forget(before - set(self.graph.nodes_of("Entity")))
            removed_vectors = self.vectors.remove_doc(doc_id)
            self.records.remove_document(doc_id)
            self.flush()
        return {"nodes": removed_nodes, "vectors": removed_vectors}

    def close(self) -> None:
        """Close the records database."""
        self.records.close()
