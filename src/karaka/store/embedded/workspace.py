"""The embedded backend: one directory holds graph, vectors, records, checkpoints, logs and config.

Writers (ingestion, removal) hold the cross-process writer lock for their whole session and start
from the newest saved state; every save bumps the workspace generation in the records, and a
reader that sees a newer generation reloads the graph and vectors before it answers. So a server
sees documents a CLI run added, and nobody writes a stale copy over another process's work.
"""

from __future__ import annotations

import json
import logging
import os
import threading
import zipfile
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeVar

from karaka.store.base import DocStatus
from karaka.store.damage import REINGEST, REPAIR, DamagedFile
from karaka.store.embedded import index
from karaka.store.embedded.graph import KnowledgeGraph
from karaka.store.embedded.journal import JournaledGraph
from karaka.store.embedded.lock import WorkspaceLock, file_lock
from karaka.store.embedded.records import Records
from karaka.store.embedded.stored import ReadOnlyGraph, StoredGraph, StoredResolver
from karaka.store.embedded.vectors import DimensionMismatch, LineVectors, saved_counts, saved_dim
from karaka.store.resolver import EntityResolver
from karaka.store.schema import SUBJECT_RELATIONS

if TYPE_CHECKING:
    from langchain_core.embeddings import Embeddings

log = logging.getLogger("karaka.workspace")
T = TypeVar("T")

GRAPH_FILE = "graph.json"
VECTORS_FILE = "vectors.npz"
RECORDS_FILE = "karaka.db"
CHECKPOINTS_FILE = "checkpoints.sqlite"
REPORT_FILE = "report.json"
LOG_FILE = "karaka.log"
FAILURES_FILE = "failures.jsonl"
WRITER_LOCK = ".writer.lock"
FILES_LOCK = ".files.lock"


class Workspace:
    """The stores of one workspace directory, loaded once per process and shared by every graph."""

    kind = "directory"

    def __init__(self, root: str | Path, embeddings: Embeddings, threshold: float = 0.85,
                 on_wait: Callable[[str], None] | None = None):
        self._open_folder(root, embeddings, threshold)
        self.writer = WorkspaceLock(self.root / WRITER_LOCK, on_wait or (lambda text: log.warning("%s", text)))
        self.records = Records(self.root / RECORDS_FILE)
        self.graph = KnowledgeGraph()
        self._vectors: LineVectors | None = None
        self._refresh()

    def _open_folder(self, root: str | Path, embeddings: Embeddings, threshold: float) -> None:
        """The workspace folder (made with its logs/) and what every backend keeps in memory."""
        self.root = Path(root).resolve()
        if self.root.exists() and not self.root.is_dir():
            raise ValueError(f"workspace {self.root} exists and is not a directory")
        if not (self.root / "logs").is_dir():
            (self.root / "logs").mkdir(parents=True, exist_ok=True)
        self.embeddings = embeddings
        self.threshold = threshold
        self._mutex = threading.RLock()
        self._resolver: EntityResolver | None = None
        self._dim: int | None = None
        self._generation = -1
        self._index_synced = False  # whether the index holds the graph as loaded (a save writes only the changes)

    @property
    def location(self) -> str:
        """Where the knowledge base lives."""
        return str(self.root)

    @property
    def dim(self) -> int:
        """The vectors' dimension: as saved, else as the embeddings give (which loads them)."""
        if self._dim is None:
            self._dim = self._saved_dim() or len(self.embeddings.embed_query("dimension probe"))
        return self._dim

    def _saved_dim(self) -> int | None:
        """The dimension of the vectors already saved (None when there are none)."""
        return _read(self.root / VECTORS_FILE, saved_dim)

    @property
    def resolver(self) -> EntityResolver:
        """The entity resolver of the current graph, built on first use (a question may never need it)."""
        with self._mutex:
            if self._resolver is None:
                self._resolver = self._resolver_for(self.graph)
            return self._resolver

    def forget(self, entities: set[str]) -> None:
        """Tell the resolver (when built) that these entities left the graph."""
        with self._mutex:
            if self._resolver is not None:
                self._resolver.forget(entities)

    def _resolver_for(self, graph: KnowledgeGraph) -> EntityResolver:
        """An entity resolver that knows every entity of ``graph`` and every mention written to one."""
        if isinstance(graph, StoredGraph):
            return StoredResolver(graph, self.embeddings, self.threshold)
        resolver = EntityResolver(self.embeddings, self.threshold)
        for node in graph.nodes_of("Entity"):
            resolver.known(node, graph.node(node)["canonical_name"])  # type: ignore[index]
        for entity, span, relation in graph.mentions():
            resolver.known_mention(span, entity, prepositional=relation not in SUBJECT_RELATIONS)
        return resolver

    @property
    def vectors(self) -> LineVectors:
        """The line vectors, loaded on first use (a question answered from the graph never needs them)."""
        with self._mutex:
            if self._vectors is None:
                with file_lock(self.root / FILES_LOCK, shared=True):
                    self._vectors = _read(self.root / VECTORS_FILE, lambda path: LineVectors.load(path, self.dim))
            return self._vectors

    # -- freshness ------------------------------------------------------------------------------
    def _refresh(self, whole: bool = False) -> bool:
        """Catch up when another process saved a newer generation; True if the graph was replaced.

        A reader gets the graph from its index (``StoredGraph``: nothing loaded up front) when the
        index is fresh; a writer (``whole``) and a reader of a workspace whose index is not fresh
        load graph.json whole.
        """
        generation = self.records.generation()
        if generation == self._generation and not (whole and isinstance(self.graph, StoredGraph)):
            return False
        with file_lock(self.root / FILES_LOCK, shared=True):
            generation = self.records.generation()
            graph_file = self.root / GRAPH_FILE
            held = index.held_generation(self.root, graph_file)
            graph: KnowledgeGraph
            if not whole and held is not None and held >= generation:
                graph = StoredGraph(self.root / index.INDEX_FILE, lambda: _read(graph_file, KnowledgeGraph.load))
            else:
                graph = _read(graph_file, JournaledGraph.load)
                self._index_synced = held == generation
        self.graph, self._resolver = graph, None
        if generation != self._generation:
            self._vectors = None
        if self._generation >= 0 and generation != self._generation:
            log.info("workspace %s: reloaded generation %d", self.root, generation)
        self._generation = generation
        return True

    @contextmanager
    def reading(self) -> Iterator[None]:
        """Read the newest saved state (reloaded if another process saved since)."""
        with self._mutex:
            self._refresh()
            yield

    @contextmanager
    def writing(self, purpose: str = "") -> Iterator[None]:
        """Hold the cross-process writer lock and start from the newest saved state.

        Every thread of this process shares the hold (they share this in-memory workspace);
        other processes wait, with a notice through ``on_wait``.
        """
        with self.writer.hold(purpose):
            with self._mutex:
                self._refresh(whole=True)
            yield

    @contextmanager
    def session(self, name: str, purpose: str = "") -> Iterator[str]:
        """An ingestion run: one writer process at a time holds the workspace for the whole run.

        Yields the checkpoint thread to use (``name``; a database store may give another worker
        another slot).
        """
        with self.writing(purpose):
            yield name

    @contextmanager
    def claim(self, unit_ids: list[str], wait: bool = False) -> Iterator[list[str]]:
        """Claim pieces of work: all of them (the session already excludes other writers).

        A piece is a unit to extract, a document to post-process or a decision to ask.
        """
        yield list(unit_ids)

    def taken_units(self, unit_ids: list[str]) -> set[str]:
        """Units another worker finished or holds: none here (one writer process at a time)."""
        return set()

    @contextmanager
    def mutating(self) -> Iterator[None]:
        """Order in-process changes to the in-memory graph (held briefly, inside ``writing``)."""
        with self._mutex:
            yield

    def flush(self) -> None:
        """Save the graph and the vectors (each atomically), bring the graph's index up to date, then bump the generation."""
        with self._mutex, file_lock(self.root / FILES_LOCK, shared=False):
            graph, graph_file = self.graph, self.root / GRAPH_FILE
            if isinstance(graph, StoredGraph):
                raise ReadOnlyGraph(f"{self.root}: save inside Workspace.writing(), which loads the graph to change")
            graph.save(graph_file)
            if self._vectors is not None:
                self._vectors.save(self.root / VECTORS_FILE)
            generation, whole = self.records.generation() + 1, not self._index_synced
            self._index_synced = False  # until the index holds this save
            index.save(self.root, graph, generation, graph_file.stat().st_size, whole)
            if isinstance(graph, JournaledGraph):
                graph.clear_journal()
            self._generation = self.records.bump_generation()
            self._index_synced = self._generation == generation

    def reindex(self) -> bool:
        """Rebuild the graph's index when it is missing or stale (call inside ``writing``); True if rebuilt.

        A workspace saved by an older version, or whose index was lost, answers questions from
        graph.json loaded whole until its next save or this.
        """
        with self._mutex, file_lock(self.root / FILES_LOCK, shared=False):
            graph, graph_file = self.graph, self.root / GRAPH_FILE
            if isinstance(graph, StoredGraph) or not graph_file.exists():
                return False
            held = index.held_generation(self.root, graph_file)
            if held is not None and held >= self._generation:
                return False
            index.save(self.root, graph, self._generation, graph_file.stat().st_size, whole=True)
            self._index_synced = True
            return True

    # -- consistency ----------------------------------------------------------------------------
    def problems(self) -> list[str]:
        """Where graph, vectors and records disagree, one line each with the command that repairs it.

        Counts are compared per document: a document's sentences in the records, its Document
        nodes in the graph and its vectors. Empty for a healthy workspace.
        """
        with self._mutex:
            known = {r["doc_id"] for r in self.records.documents()}
            out = []
            stray = [d for d in self.graph.doc_ids() if d not in known]
            if stray:
                out.append(f"{self.root / RECORDS_FILE}: no record of {len(stray)} documents that "
                           f"{GRAPH_FILE} holds ({', '.join(stray[:3])}{', …' if len(stray) > 3 else ''}); "
                           + REINGEST.format(root=self.root).replace("move it aside and run", "run"))
            unitless = self._unitless()
            if unitless:  # a damaged write-ahead log rolled them back: re-extracting restores them
                out.append(f"{self.root / RECORDS_FILE}: no unit results for {len(unitless)} documents the graph "
                           f"holds ({', '.join(unitless[:3])}{', …' if len(unitless) > 3 else ''}); the same "
                           f"`karaka ingest PATH --workspace {self.root}` restores them")
            for name, lacking, effect in zip((GRAPH_FILE, VECTORS_FILE), self._incomplete(),
                                             ("", " (answers fall back to keyword search)"), strict=True):
                if lacking:
                    what = "is missing" if not (self.root / name).exists() else f"lacks {len(lacking)} documents"
                    out.append(f"{self.root / name}: {what}{effect}; " + REPAIR.format(root=self.root))
            return out

    def _check_vectors_file(self) -> None:
        """Raise DamagedFile when vectors.npz fails its checksums (read through, not loaded)."""
        path = self.root / VECTORS_FILE
        if self._vectors is not None or not path.exists():
            return
        try:
            with file_lock(self.root / FILES_LOCK, shared=True), zipfile.ZipFile(path) as archive:
                bad = archive.testzip()
        except (zipfile.BadZipFile, OSError) as exc:
            raise DamagedFile(path, f"damaged ({type(exc).__name__}: {exc})", REPAIR.format(root=self.root)) from exc
        if bad is not None:
            raise DamagedFile(path, f"damaged (Bad CRC-32 for {bad!r})", REPAIR.format(root=self.root))

    def _unitless(self) -> list[str]:
        """Documents marked done whose Kriyās the graph holds but whose unit results the records lack."""
        done = [r["doc_id"] for r in self.records.documents() if r["status"] == DocStatus.DONE]
        with_results = self.records.documents_with_results()  # one query; the graph is asked of the rest only
        return [d for d in done if d not in with_results and self.graph.kriyas_of(d)]

    def _incomplete(self) -> tuple[list[str], list[str]]:
        """Documents marked done whose sentences the graph lacks, and those the vectors lack."""
        done = [r for r in self.records.documents() if r["status"] == DocStatus.DONE]
        counts, lines = self._vector_counts(), self.graph.line_counts()
        return ([r["doc_id"] for r in done if lines.get(r["doc_id"], 0) != r["n_lines"]],
                [r["doc_id"] for r in done if counts.get(r["doc_id"], 0) != r["n_lines"]])

    def _vector_counts(self) -> dict[str, int]:
        """Vectors per document: from the loaded index, else from the file without loading the index."""
        if self._vectors is not None:
            return {r["doc_id"]: len(self._vectors.lines_of(r["doc_id"])) for r in self.records.documents()}
        with file_lock(self.root / FILES_LOCK, shared=True):
            return _read(self.root / VECTORS_FILE, saved_counts)

    def requeue_incomplete(self) -> list[str]:
        """Documents marked done that the graph, the vectors or the unit results lack go back to the queue.

        Raises:
            DamagedFile: vectors.npz fails its checksums.

        A crash between a save and a status update, a deleted or damaged file, or a writer of an
        older version could leave "done" in the records with the graph or the vectors lacking the
        document; its stored unit results make the next ingestion of it cheap.
        """
        with self._mutex:
            self._check_vectors_file()  # read through once a run, not at every question
            graph, vectors = self._incomplete()
            requeued = list(dict.fromkeys(graph + vectors + self._unitless()))
            for doc_id in requeued:
                self.records.set_status(doc_id, DocStatus.LOADED)
                log.warning("document %s is marked done but the graph, the vectors or the records lack part of it: "
                            "re-queued", doc_id)
        return requeued

    # -- paths and logs -------------------------------------------------------------------------
    @property
    def checkpoints_path(self) -> Path:
        """The SQLite checkpointer's file."""
        return self.root / CHECKPOINTS_FILE

    @property
    def log_path(self) -> Path:
        """The workspace log (entry points attach it; see ``karaka.logs``)."""
        return self.root / "logs" / LOG_FILE

    def log_failure(self, record: dict[str, Any]) -> None:
        """Append one JSON line to logs/failures.jsonl."""
        path = self.root / "logs" / FAILURES_FILE
        with self._mutex, open(path, "a", encoding="utf-8") as handle:
            handle.write(json.dumps(record, ensure_ascii=False, default=str) + "\n")
            handle.flush()
            os.fsync(handle.fileno())

    def failures(self) -> list[dict[str, Any]]:
        """Every logged GSV failure."""
        path = self.root / "logs" / FAILURES_FILE
        if not path.exists():
            return []
        out = []
        with open(path, encoding="utf-8") as handle:
            for line in handle:
                try:
                    out.append(json.loads(line))
                except json.JSONDecodeError:
                    continue  # a line cut off by a crash mid-append
        return out

    def remove_document(self, doc_id: str) -> dict[str, int]:
        """Delete a document's nodes, edges, vectors and records."""
        with self.writing(f"remove {doc_id}"), self._mutex:
            removed_nodes, orphans = self.graph.remove_document(doc_id)
            self.forget(orphans)
            removed_vectors = self.vectors.remove_doc(doc_id)
            self.records.remove_document(doc_id)
            self.flush()
        return {"nodes": removed_nodes, "vectors": removed_vectors}

    def close(self) -> None:
        """Close the records database."""
        self.records.close()


def _read(path: Path, read: Callable[[Path], T]) -> T:
    """``read(path)``; a file that cannot be read is named, with the command that rebuilds it."""
    try:
        return read(path)
    except (DamagedFile, DimensionMismatch, PermissionError):  # named already; other embeddings; not damage
        raise
    except (OSError, ValueError, KeyError, IndexError, TypeError, RuntimeError, zipfile.BadZipFile) as exc:
        raise DamagedFile(path, f"damaged ({type(exc).__name__}: {exc})", REPAIR) from exc  # JSON errors too


def set_aside_damaged(root: Path) -> list[str]:
    """Rename a damaged graph.json or vectors.npz to ``NAME.damaged`` so a repair can rebuild it.

    A damaged graph.sqlite (the graph's index, derived from graph.json) is removed: the repair
    rebuilds it. Returns one line per file set aside. A damaged karaka.db cannot be rebuilt from the others:
    it raises ``DamagedFile`` with the remedy.
    """
    if (root / RECORDS_FILE).exists():
        Records(root / RECORDS_FILE).close()  # raises DamagedFile for a file that is not a database
    moved = []
    if index.damaged(root):  # derived from graph.json: removed, and rebuilt by the repair's save
        (root / index.INDEX_FILE).unlink()
        moved.append(f"{index.INDEX_FILE} removed: damaged (it is rebuilt from graph.json)")
    for name, check in ((GRAPH_FILE, KnowledgeGraph.load),
                        (VECTORS_FILE, lambda path: LineVectors.load(path, saved_dim(path) or 1))):
        path = root / name
        if not path.exists():
            continue
        try:
            _read(path, check)
        except DamagedFile as exc:
            path.replace(path.with_name(name + ".damaged"))
            moved.append(f"{name} set aside as {name}.damaged ({exc})")
    return moved
