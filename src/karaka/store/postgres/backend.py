"""The PostgreSQL backend: one database holds a knowledge base for many workers and servers.

PostgreSQL is the system of record: documents, sentences, unit results, decisions and runs
(``PgRecords``), the graph (``kg_nodes``/``kg_edges``, indexed by document, verb, source and
target), the line vectors (``line_vectors``) and LangGraph's checkpoints (``PostgresSaver``).

Each process keeps a replica of the graph (NetworkX) and of the vectors (FAISS) in memory, so a
traversal hop costs what it costs on the embedded backend. Every save is one transaction that
writes only what changed since the last save and stamps it with a new generation; a replica
catches up by reading the rows stamped after its own generation (and the tombstones of what was
removed), so a server sees another machine's documents on its next question without reloading.

Concurrency: graph-changing stages hold a cross-machine advisory lock (``writing``) and start
from the newest state; extraction, the slow part, does not: each unit is claimed with a
session advisory lock that PostgreSQL frees when the claiming process dies, so ``kill -9``
leaves nothing locked.
"""

from __future__ import annotations

import json
import logging
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

from karaka.store.embedded.graph import KnowledgeGraph
from karaka.store.embedded.journal import JournaledGraph
from karaka.store.embedded.vectors import LineVectors
from karaka.store.embedded.workspace import Workspace
from karaka.store.postgres.db import (
    SCHEMA,
    SETUP_LOCK,
    AdvisoryLocks,
    Database,
    PgRecords,
    StoreError,
    lock_key,
    redact,
)

if TYPE_CHECKING:
    from langchain_core.embeddings import Embeddings

log = logging.getLogger("karaka.postgres")
WRITER = lock_key("karaka:writer")
ROW_BATCH = 5000


class JournaledVectors(LineVectors):
    """Line vectors that remember which lines were added and which documents removed."""

    def __init__(self, dim: int):
        super().__init__(dim)
        self.added: set[tuple[str, int]] = set()
        self.removed_docs: set[str] = set()

    def add(self, doc_id: str, lines: list[int], vectors: np.ndarray) -> None:
        super().add(doc_id, lines, vectors)
        self.added |= {(doc_id, line) for line in lines}

    def remove_doc(self, doc_id: str) -> int:
        count = super().remove_doc(doc_id)
        self.removed_docs.add(doc_id)
        self.added = {a for a in self.added if a[0] != doc_id}
        return count

    def vector(self, doc_id: str, line: int) -> np.ndarray:
        """A stored (normalised) vector."""
        return np.asarray(self.index.reconstruct(self._by_doc[doc_id][line]), dtype=np.float32)

    def load_rows(self, rows: list[tuple[str, int, bytes]]) -> None:
        """Add stored rows (already normalised), grouped by document; not journaled."""
        by_doc: dict[str, list[tuple[int, bytes]]] = {}
        for doc_id, seq, blob in rows:
            by_doc.setdefault(doc_id, []).append((seq, blob))
        for doc_id, items in by_doc.items():
            matrix = np.frombuffer(b"".join(b for _, b in items), dtype=np.float32).reshape(len(items), self.dim)
            LineVectors.add(self, doc_id, [s for s, _ in items], matrix.copy())

    def clear_journal(self) -> None:
        """Forget the changes."""
        self.added, self.removed_docs = set(), set()


class PgStore(Workspace):
    """A knowledge base in a PostgreSQL database; the workspace directory keeps config, logs, reports."""

    kind = "postgresql"

    def __init__(self, url: str, root: str | Path, embeddings: Embeddings, threshold: float = 0.85,
                 on_wait: Callable[[str], None] | None = None):
        self.url = url
        self._open_folder(root, embeddings, threshold)
        self.on_wait = on_wait or (lambda text: log.warning("%s", text))
        self.db = Database(url)
        self.locks = AdvisoryLocks(url)
        with self.locks.hold(SETUP_LOCK, "schema set-up"):  # CREATE … IF NOT EXISTS races between processes
            with self.db.transaction() as cur:
                cur.execute(SCHEMA)
        self.records = PgRecords(self.db)
        self.graph: JournaledGraph = JournaledGraph()
        self._vectors: JournaledVectors | None = None
        self._refresh()

    def __repr__(self) -> str:
        return f"PgStore({redact(self.url)})"

    @property
    def location(self) -> str:
        """Where the knowledge base lives (password left out)."""
        return redact(self.url)

    def _saved_dim(self) -> int | None:
        """The dimension of the vectors already stored (float32 blobs; None when there are none)."""
        rows = self.db.rows("SELECT length(vec) / 4 FROM line_vectors LIMIT 1")
        return int(rows[0][0]) if rows else None

    @property
    def vectors(self) -> JournaledVectors:  # type: ignore[override]
        """The line vectors, loaded on first use and kept in step with the graph's generation."""
        with self._mutex:
            if self._vectors is None:
                vectors = JournaledVectors(self.dim)
                with self.db.transaction() as cur:
                    cur.execute("SET TRANSACTION ISOLATION LEVEL REPEATABLE READ")
                    cur.execute("SELECT doc_id, seq, vec FROM line_vectors ORDER BY doc_id, seq")
                    vectors.load_rows([(d, s, bytes(v)) for d, s, v in cur.fetchall()])
                self._vectors = vectors
            return self._vectors

    def _vector_counts(self) -> dict[str, int]:
        """Vectors per document, from the replica (the database holds no vectors file)."""
        return {r["doc_id"]: len(self.vectors.lines_of(r["doc_id"])) for r in self.records.documents()}

    # -- freshness ------------------------------------------------------------------------------
    def _refresh(self, whole: bool = False) -> bool:
        """Catch up with saves made elsewhere: rows stamped after our generation, then tombstones."""
        generation = self.records.generation()
        if generation == self._generation:
            return False
        if self._generation < 0:
            self._reload()
        else:
            self._catch_up(self._generation)
        return True

    def _reload(self) -> None:
        graph = JournaledGraph()
        with self.db.transaction() as cur:
            cur.execute("SET TRANSACTION ISOLATION LEVEL REPEATABLE READ")
            cur.execute("SELECT value::bigint FROM meta WHERE key = 'generation'")
            generation = int(cur.fetchone()[0])
            cur.execute("SELECT id, attrs FROM kg_nodes")
            for node, attrs in cur.fetchall():
                graph.put_raw(node, attrs)
            cur.execute("SELECT source, target, relation, attrs FROM kg_edges")
            for source, target, relation, attrs in cur.fetchall():
                graph.put_raw_edge(source, target, relation, attrs)
        self.graph, self._vectors, self._resolver = graph, None, None
        self._generation = generation

    def _catch_up(self, since: int) -> None:
        with self.db.transaction() as cur:
            cur.execute("SET TRANSACTION ISOLATION LEVEL REPEATABLE READ")
            cur.execute("SELECT value::bigint FROM meta WHERE key = 'generation'")
            generation = int(cur.fetchone()[0])
            cur.execute("SELECT kind, key FROM kg_removed WHERE gen > %s ORDER BY gen", (since,))
            removed = cur.fetchall()
            cur.execute("SELECT id, attrs FROM kg_nodes WHERE gen > %s", (since,))
            nodes = cur.fetchall()
            cur.execute("SELECT source, target, relation, attrs FROM kg_edges WHERE gen > %s", (since,))
            edges = cur.fetchall()
            vectors = None
            if self._vectors is not None:
                cur.execute("SELECT doc_id, seq, vec FROM line_vectors WHERE gen > %s", (since,))
                vectors = [(d, s, bytes(v)) for d, s, v in cur.fetchall()]
        gone = {key for kind, key in removed if kind == "node"}
        KnowledgeGraph.drop_nodes(self.graph, gone)  # replicated, not a change of ours to save
        for kind, key in removed:
            if kind == "edge":
                KnowledgeGraph.remove_edge(self.graph, *json.loads(key))
        for node, attrs in nodes:
            self.graph.put_raw(node, attrs)
        for source, target, relation, attrs in edges:
            self.graph.put_raw_edge(source, target, relation, attrs)
        self._resolver = None  # rebuilt from the caught-up graph when next needed
        if self._vectors is not None and vectors is not None:
            for kind, key in removed:
                if kind == "vectors":
                    LineVectors.remove_doc(self._vectors, key)
            self._vectors.load_rows(vectors)
        log.info("store %s: caught up from generation %d to %d", self.location, since, generation)
        self._generation = generation

    @contextmanager
    def writing(self, purpose: str = "") -> Iterator[None]:
        """Hold the cross-machine writer lock and start from the newest saved state.

        A block that fails leaves nothing half-saved: unsaved changes are dropped and the replica
        reloads from the database.
        """
        with self.locks.hold(WRITER, f"the writer lock of {self.location}", self.on_wait):
            with self._mutex:
                self._refresh()
            try:
                yield
            except BaseException:
                with self._mutex:
                    if self.graph.pending() or (self._vectors is not None and self._vectors.added):
                        log.warning("store %s: unsaved changes dropped (%s failed)", self.location, purpose)
                        self._generation = -1
                raise

    @contextmanager
    def session(self, name: str, purpose: str = "") -> Iterator[str]:
        """A run's checkpoint thread: ``name``, or ``name-2``… while other live workers hold it.

        Workers on the same documents share the work through unit claims, not through a thread;
        a worker killed mid-run frees its slot, and the same command resumes its checkpoint.
        """
        slot = 1
        while not self.locks.try_lock(lock_key(f"karaka:session:{name}:{slot}")):
            slot += 1
        key = lock_key(f"karaka:session:{name}:{slot}")
        try:
            yield name if slot == 1 else f"{name}-{slot}"
        finally:
            self.locks.unlock(key)

    @contextmanager
    def claim(self, unit_ids: list[str], wait: bool = False) -> Iterator[list[str]]:
        """Claim pieces of work; yields the ones this worker got (all of them when ``wait``).

        A piece is a unit to extract, a document to post-process or a decision to ask.
        """
        got: list[str] = []
        try:
            for unit in unit_ids:
                key = lock_key(f"karaka:unit:{unit}")
                if wait:
                    self.locks.wait(key, f"unit {unit}", self.on_wait)
                    got.append(unit)
                elif self.locks.try_lock(key):
                    got.append(unit)
            yield got
        finally:
            for unit in got:
                self.locks.unlock(lock_key(f"karaka:unit:{unit}"))

    def taken_units(self, unit_ids: list[str]) -> set[str]:
        """Units already stored, or claimed right now by another worker's live connection."""
        done = {r[0] for r in self.db.rows("SELECT unit_id FROM results WHERE unit_id = ANY(%s)", (unit_ids,))}
        held = self.locks.held_elsewhere()
        return done | {u for u in unit_ids if u not in done and lock_key(f"karaka:unit:{u}") in held}

    def flush(self) -> None:
        """Save what changed since the last save, in one transaction, under a new generation."""
        with self._mutex:
            graph, vectors = self.graph, self._vectors
            try:
                with self.db.transaction() as cur:
                    cur.execute("UPDATE meta SET value = (value::bigint + 1)::text WHERE key = 'generation' "
                                "RETURNING value::bigint")
                    generation = int(cur.fetchone()[0])
                    self._save_graph(cur, graph, generation)
                    if vectors is not None:
                        self._save_vectors(cur, vectors, generation)
            except BaseException:
                self._generation = -1  # the replica holds changes the database does not: reload it
                raise
            graph.clear_journal()
            if vectors is not None:
                vectors.clear_journal()
            self._generation = generation

    @staticmethod
    def _save_graph(cur: Any, graph: JournaledGraph, generation: int) -> None:
        for source, target, relation in sorted(graph.removed_edges):
            cur.execute("DELETE FROM kg_edges WHERE source = %s AND relation = %s AND target = %s",
                        (source, relation, target))
            cur.execute("INSERT INTO kg_removed VALUES (%s, 'edge', %s)",
                        (generation, json.dumps([source, target, relation], ensure_ascii=False)))
        if graph.removed:
            removed = sorted(graph.removed)
            cur.execute("DELETE FROM kg_nodes WHERE id = ANY(%s)", (removed,))
            cur.executemany("INSERT INTO kg_removed VALUES (%s, 'node', %s)", [(generation, n) for n in removed])
        nodes = []
        for node in graph.dirty_nodes:
            attrs = graph.node(node)
            if attrs is not None:
                nodes.append((node, attrs["type"], attrs.get("doc_id"), attrs.get("verb"),
                              json.dumps(attrs, ensure_ascii=False), generation))
        for start in range(0, len(nodes), ROW_BATCH):
            cur.executemany(
                "INSERT INTO kg_nodes VALUES (%s, %s, %s, %s, %s::jsonb, %s) ON CONFLICT (id) DO UPDATE SET "
                "type = EXCLUDED.type, doc_id = EXCLUDED.doc_id, verb = EXCLUDED.verb, attrs = EXCLUDED.attrs, "
                "gen = EXCLUDED.gen", nodes[start:start + ROW_BATCH])
        edges = [(s, t, r, json.dumps(graph.edge_attrs(s, t, r), ensure_ascii=False), generation)
                 for s, t, r in graph.dirty_edges if s in graph and t in graph]
        for start in range(0, len(edges), ROW_BATCH):
            cur.executemany(
                "INSERT INTO kg_edges VALUES (%s, %s, %s, %s::jsonb, %s) ON CONFLICT (source, relation, target) "
                "DO UPDATE SET attrs = EXCLUDED.attrs, gen = EXCLUDED.gen", edges[start:start + ROW_BATCH])

    @staticmethod
    def _save_vectors(cur: Any, vectors: JournaledVectors, generation: int) -> None:
        for doc_id in sorted(vectors.removed_docs):
            cur.execute("DELETE FROM line_vectors WHERE doc_id = %s", (doc_id,))
            cur.execute("INSERT INTO kg_removed VALUES (%s, 'vectors', %s)", (generation, doc_id))
        rows = [(d, s, vectors.vector(d, s).tobytes(), generation) for d, s in sorted(vectors.added)]
        for start in range(0, len(rows), ROW_BATCH):
            cur.executemany(
                "INSERT INTO line_vectors VALUES (%s, %s, %s, %s) ON CONFLICT (doc_id, seq) "
                "DO UPDATE SET vec = EXCLUDED.vec, gen = EXCLUDED.gen", rows[start:start + ROW_BATCH])

    # -- paths and logs -------------------------------------------------------------------------
    @property
    def checkpoints_path(self) -> Path:
        """Not used: the checkpoints live in the database (``PostgresSaver``)."""
        raise StoreError("a PostgreSQL store keeps its checkpoints in the database")

    def log_failure(self, record: dict[str, Any]) -> None:
        """Store one failure record."""
        self.db.rows("INSERT INTO failures (record) VALUES (%s)", (json.dumps(record, ensure_ascii=False,
                                                                           default=str),))

    def failures(self) -> list[dict[str, Any]]:
        """Every stored failure record, oldest first."""
        return [json.loads(r[0]) for r in self.db.rows("SELECT record FROM failures ORDER BY id")]

    def size_bytes(self) -> int:
        """The database's size on disk."""
        return int(self.db.rows("SELECT pg_database_size(current_database())")[0][0])

    def close(self) -> None:
        """Close both connections (which frees every lock this process held)."""
        self.locks.close()
        self.db.close()
