"""The graph's query index: graph.json's nodes, edges and entity names in SQLite (``graph.sqlite``).

A writer keeps the whole graph in memory and saves graph.json whole; every save also brings this
index up to date, from what the graph journaled since the last save (or whole, when the index was
not at the state the writer loaded). A question then reads only the nodes it visits
(:class:`StoredGraph`) instead of loading the graph, so a cold question costs about the same on a
shelf of books as on one file.

The index is derived and never trusted blindly: a reader uses it only when it is stamped with at
least the workspace's generation and with graph.json's size; otherwise (a crash between the two
writes, a damaged or replaced graph.json, a workspace written by an older version) the reader loads
graph.json whole, as before, and the next save rebuilds the index.
"""

from __future__ import annotations

import logging
import os
import sqlite3
import threading
from collections import Counter
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any
from urllib.parse import quote

import orjson

from karaka.store.atomic import UMASK
from karaka.store.base import Edge
from karaka.store.damage import DamagedFile, DiskFull, is_disk_full
from karaka.store.embedded.graph import JournaledGraph, KnowledgeGraph
from karaka.store.resolver import EntityResolver, aliases, entity_name, is_pronoun, mention_key, normalize_name
from karaka.store.schema import KARAKA_RELATIONS, SUBJECT_RELATIONS

log = logging.getLogger("karaka.index")

INDEX_FILE = "graph.sqlite"
VERSION = 1
"""The index's layout; an index of another layout is not read, and the next save rebuilds it."""
NAME, MENTION, ALIAS = 0, 1, 2
"""Kinds of rows in ``names``: an entity's own key, a mention written to it, an alias (name tail)."""

SCHEMA = """
CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS nodes (id TEXT PRIMARY KEY, type TEXT NOT NULL, doc_id TEXT, seq INTEGER,
                                  verb TEXT, attrs BLOB NOT NULL);
CREATE INDEX IF NOT EXISTS nodes_doc ON nodes (doc_id, seq);
CREATE INDEX IF NOT EXISTS nodes_verb ON nodes (verb) WHERE verb IS NOT NULL;
CREATE INDEX IF NOT EXISTS nodes_type ON nodes (type);
CREATE TABLE IF NOT EXISTS edges (source TEXT NOT NULL, target TEXT NOT NULL, relation TEXT NOT NULL,
                                  attrs BLOB NOT NULL, UNIQUE (source, relation, target));
CREATE INDEX IF NOT EXISTS edges_in ON edges (target, relation);
CREATE TABLE IF NOT EXISTS names (key TEXT NOT NULL, entity TEXT NOT NULL, kind INTEGER NOT NULL,
                                  name TEXT, source TEXT, relation TEXT);
CREATE INDEX IF NOT EXISTS names_key ON names (key, kind);
CREATE INDEX IF NOT EXISTS names_entity ON names (entity);
CREATE INDEX IF NOT EXISTS names_source ON names (source);
"""


def stamp(root: Path) -> tuple[int, int] | None:
    """(generation, graph.json size) the index was written for; None when there is none (or of another layout)."""
    path = root / INDEX_FILE
    if not path.exists():
        return None
    try:
        rows = dict(_query(path, "SELECT key, value FROM meta"))
        if rows.get("version") != str(VERSION):
            return None
        return int(rows["generation"]), int(rows["graph_size"])
    except (sqlite3.Error, KeyError, ValueError) as exc:
        log.warning("%s unreadable (%s): questions load graph.json instead; the next save rebuilds it", path, exc)
        return None


def damaged(root: Path) -> bool:
    """Whether the index exists and fails SQLite's own check (a removed index is rebuilt by the next save)."""
    path = root / INDEX_FILE
    if not path.exists():
        return False
    try:
        return bool(_query(path, "PRAGMA quick_check")[0][0] != "ok")
    except sqlite3.DatabaseError:
        return True


def _query(path: Path, sql: str) -> list[Any]:
    """The rows of one statement on the index, opened read-only for it."""
    db = _connect(path, read_only=True)
    try:
        return db.execute(sql).fetchall()
    finally:
        db.close()


def held_generation(root: Path, graph_file: Path) -> int | None:
    """The generation the index holds ``graph_file`` at; None when it holds another graph.json or none.

    A reader at generation G may read the index when this is at least G (a writer stamps the index
    before it bumps the generation); a writer that loaded at G saves only its changes when it is G.
    """
    found = stamp(root)
    try:
        return found[0] if found is not None and found[1] == graph_file.stat().st_size else None
    except OSError:
        return None


def save(root: Path, graph: KnowledgeGraph, generation: int, graph_size: int, whole: bool) -> None:
    """Bring the index to ``graph`` (saved at ``generation``, graph.json ``graph_size`` bytes long).

    ``whole`` rebuilds it in a new file that replaces the old one; otherwise only what ``graph``
    journaled is written, in one transaction. A disk that fills up raises :class:`DiskFull`.
    """
    path = root / INDEX_FILE
    try:
        if whole or not isinstance(graph, JournaledGraph):
            _rebuild(path, graph, generation, graph_size)
        else:
            _apply(path, graph, generation, graph_size)
    except (OSError, sqlite3.OperationalError) as exc:
        if is_disk_full(exc):
            raise DiskFull(path) from exc
        raise


def _connect(path: Path, read_only: bool = False) -> sqlite3.Connection:
    if read_only:
        immutable = "&immutable=1" if not os.access(path.parent, os.W_OK) else ""
        uri = f"file:{quote(str(path))}?mode=ro{immutable}"
        return sqlite3.connect(uri, uri=True, check_same_thread=False, timeout=30)
    return sqlite3.connect(path, check_same_thread=False, timeout=30, isolation_level=None)


def _rebuild(path: Path, graph: KnowledgeGraph, generation: int, graph_size: int) -> None:
    tmp = path.with_name(f".{path.name}.tmp")
    tmp.unlink(missing_ok=True)
    try:
        _write_index(tmp, graph, generation, graph_size)
    except BaseException:  # a failed rebuild leaves no half-written file behind
        tmp.unlink(missing_ok=True)
        raise
    os.replace(tmp, path)


def _write_index(tmp: Path, graph: KnowledgeGraph, generation: int, graph_size: int) -> None:
    db = _connect(tmp)
    try:
        os.chmod(tmp, 0o666 & ~UMASK)
        db.execute("PRAGMA journal_mode = OFF")
        db.execute("PRAGMA synchronous = OFF")  # a new file: it is fsynced below before it replaces the old
        db.executescript(SCHEMA)
        db.execute("BEGIN")
        nodes = list(graph._g.nodes(data=True))
        db.executemany("INSERT INTO nodes VALUES (?, ?, ?, ?, ?, ?)", (_node_row(n, a) for n, a in nodes))
        edges = graph._g.edges(keys=True, data=True)  # a view: read twice below
        db.executemany("INSERT INTO edges VALUES (?, ?, ?, ?)", (_edge_row(s, t, k, a) for s, t, k, a in edges))
        db.executemany("INSERT INTO names VALUES (?, ?, ?, ?, ?, ?)",
                       (row for n, a in nodes if a.get("type") == "Entity" for row in _entity_names(n, a)))
        db.executemany("INSERT INTO names VALUES (?, ?, ?, ?, ?, ?)",
                       (row for s, t, k, a in edges for row in _mention(s, t, k, a)))
        _stamp(db, generation, graph_size)
        db.execute("COMMIT")
    finally:
        db.close()
    with open(tmp, "rb") as handle:
        os.fsync(handle.fileno())


def _apply(path: Path, graph: JournaledGraph, generation: int, graph_size: int) -> None:
    db = _connect(path)
    try:
        db.execute("BEGIN IMMEDIATE")
        gone = sorted(graph.removed)
        db.executemany("DELETE FROM nodes WHERE id = ?", ((n,) for n in gone))
        db.executemany("DELETE FROM edges WHERE source = ?", ((n,) for n in gone))
        db.executemany("DELETE FROM edges WHERE target = ?", ((n,) for n in gone))
        db.executemany("DELETE FROM names WHERE entity = ? OR source = ?", ((n, n) for n in gone))
        for source, target, relation in sorted(graph.removed_edges):
            db.execute("DELETE FROM edges WHERE source = ? AND relation = ? AND target = ?", (source, relation, target))
            db.execute("DELETE FROM names WHERE source = ? AND relation = ? AND entity = ?", (source, relation, target))
        for node in graph.dirty_nodes:
            attrs = graph.node(node)
            if attrs is None:
                continue
            db.execute("INSERT INTO nodes VALUES (?, ?, ?, ?, ?, ?) ON CONFLICT (id) DO UPDATE SET type = excluded.type, "
                       "doc_id = excluded.doc_id, seq = excluded.seq, verb = excluded.verb, attrs = excluded.attrs",
                       _node_row(node, attrs))
            if attrs.get("type") == "Entity":
                rows = _entity_names(node, attrs)
                held = db.execute("SELECT key, kind, name FROM names WHERE entity = ? AND kind != ? ORDER BY rowid",
                                  (node, MENTION)).fetchall()
                if held != [(r[0], r[2], r[3]) for r in rows]:  # a changed name: its rows anew
                    db.execute("DELETE FROM names WHERE entity = ? AND kind != ?", (node, MENTION))
                    db.executemany("INSERT INTO names VALUES (?, ?, ?, ?, ?, ?)", rows)
        for source, target, relation in graph.dirty_edges:
            if source not in graph or target not in graph:
                continue
            attrs = graph.edge_attrs(source, target, relation)
            db.execute("INSERT INTO edges VALUES (?, ?, ?, ?) ON CONFLICT (source, relation, target) "
                       "DO UPDATE SET attrs = excluded.attrs", _edge_row(source, target, relation, attrs))
            mention = list(_mention(source, target, relation, attrs))
            held = db.execute("SELECT key, entity, kind, name, source, relation FROM names WHERE source = ? "
                              "AND relation = ? AND entity = ?", (source, relation, target)).fetchall()
            if held != mention:
                db.execute("DELETE FROM names WHERE source = ? AND relation = ? AND entity = ?",
                           (source, relation, target))
                db.executemany("INSERT INTO names VALUES (?, ?, ?, ?, ?, ?)", mention)
        _stamp(db, generation, graph_size)
        db.execute("COMMIT")
    except BaseException:
        if db.in_transaction:
            db.execute("ROLLBACK")
        raise
    finally:
        db.close()


def _stamp(db: sqlite3.Connection, generation: int, graph_size: int) -> None:
    db.executemany("INSERT INTO meta VALUES (?, ?) ON CONFLICT (key) DO UPDATE SET value = excluded.value",
                   [("generation", str(generation)), ("graph_size", str(graph_size)), ("version", str(VERSION))])


def _node_row(node: str, attrs: dict[str, Any]) -> tuple[Any, ...]:
    verb = str(attrs["verb"]).lower() if attrs.get("type") == "Kriya" and attrs.get("verb") else None
    seq = attrs.get("seq") if attrs.get("type") in ("Document", "Kriya") else None
    return node, attrs.get("type"), attrs.get("doc_id"), seq, verb, orjson.dumps(attrs)


def _edge_row(source: str, target: str, relation: str, attrs: dict[str, Any]) -> tuple[Any, ...]:
    return source, target, relation, orjson.dumps({k: v for k, v in attrs.items() if k != "relation"})


def _entity_names(node: str, attrs: dict[str, Any]) -> list[tuple[Any, ...]]:
    """An entity's rows in ``names``: its own key (with its name), then its aliases (as the resolver files them)."""
    name = str(attrs.get("canonical_name") or "")
    key = normalize_name(name)
    if not key or is_pronoun(name):
        return []
    return ([(key, node, NAME, name, None, None)]
            + [(alias, node, ALIAS, None, None, None) for alias in sorted(aliases(name))])


def _mention(source: str, target: str, relation: str, attrs: dict[str, Any]) -> Iterator[tuple[Any, ...]]:
    """The row a kāraka edge's surface span adds to ``names`` (none for a pronoun or no span)."""
    span = attrs.get("span")
    if not span or relation not in KARAKA_RELATIONS:
        return
    name = entity_name(str(span), relation not in SUBJECT_RELATIONS)
    if name and not is_pronoun(name):
        yield mention_key(name), target, MENTION, None, source, relation


class ReadOnlyGraph(RuntimeError):
    """A write to a graph read from the index (writers hold the workspace and load the graph whole)."""


class StoredGraph(KnowledgeGraph):
    """The graph as the index holds it: each read fetches what it needs (read-only).

    It answers every read of :class:`KnowledgeGraph` the same way; what needs the whole graph
    (export, the schema check, the JSON form) loads graph.json through ``load_whole``, once.
    """

    def __init__(self, path: Path, load_whole: Callable[[], KnowledgeGraph]):
        super().__init__()
        self.path = path
        self._db = _connect(path, read_only=True)
        self._lock = threading.Lock()
        self._load_whole = load_whole
        self._whole: KnowledgeGraph | None = None
        self._nodes: dict[str, dict[str, Any] | None] = {}
        self._out: dict[str, list[Edge]] = {}
        self._in: dict[str, list[Edge]] = {}

    def _rows(self, sql: str, args: tuple[Any, ...] = ()) -> list[Any]:
        try:
            with self._lock:
                return self._db.execute(sql, args).fetchall()
        except sqlite3.DatabaseError as exc:
            raise DamagedFile(self.path, f"damaged ({exc})", "run `karaka repair --workspace {root}` to rebuild it "
                              "from graph.json") from exc

    def whole(self) -> KnowledgeGraph:
        """The whole graph, loaded from graph.json on first use."""
        if self._whole is None:
            self._whole = self._load_whole()
        return self._whole

    def close(self) -> None:
        """Close the index (a newer generation replaced this graph)."""
        with self._lock:
            self._db.close()

    # -- reads ----------------------------------------------------------------------------------
    def __contains__(self, node_id: object) -> bool:
        return isinstance(node_id, str) and self.node(node_id) is not None

    def __len__(self) -> int:
        return int(self._rows("SELECT count(*) FROM nodes")[0][0])

    def node(self, node_id: str) -> dict[str, Any] | None:
        if node_id not in self._nodes:
            rows = self._rows("SELECT attrs FROM nodes WHERE id = ?", (node_id,))
            self._nodes[node_id] = orjson.loads(rows[0][0]) if rows else None
        return self._nodes[node_id]

    def _edges(self, node: str, out: bool) -> list[Edge]:
        cache = self._out if out else self._in
        if node not in cache:
            if out:
                rows = self._rows("SELECT source, target, relation, attrs FROM edges WHERE source = ? ORDER BY rowid",
                                  (node,))
            else:
                rows = self._rows("SELECT e.source, e.target, e.relation, e.attrs FROM edges AS e JOIN nodes AS n "
                                  "ON n.id = e.source WHERE e.target = ? ORDER BY n.rowid, e.rowid", (node,))
            by_end: dict[str, list[Edge]] = {}  # a loaded graph's order: by the other end, then by relation
            for s, t, r, a in rows:
                by_end.setdefault(t if out else s, []).append(Edge(s, t, r, {"relation": r, **orjson.loads(a)}))
            cache[node] = [edge for edges in by_end.values() for edge in edges]
        return cache[node]

    def edges_out(self, node: str, relation: str | None = None) -> list[Edge]:
        return [e for e in self._edges(node, True) if relation is None or e.relation == relation]

    def edges_in(self, node: str, relation: str | None = None) -> list[Edge]:
        return [e for e in self._edges(node, False) if relation is None or e.relation == relation]

    def neighbors(self, node: str, relation: str, direction: str = "out") -> list[str]:
        if direction == "out":
            return [e.target for e in self.edges_out(node, relation)]
        return [e.source for e in self.edges_in(node, relation)]

    def in_degree(self, node: str) -> int:
        if node in self._in:
            return len(self._in[node])
        return int(self._rows("SELECT count(*) FROM edges WHERE target = ?", (node,))[0][0])

    def uses(self, entity: str) -> list[tuple[str, str]]:
        return [(e.source, e.relation) for e in self.edges_in(entity) if e.relation in KARAKA_RELATIONS]

    def nodes_of(self, kind: str) -> list[str]:
        return [n for (n,) in self._rows("SELECT id FROM nodes WHERE type = ? ORDER BY rowid", (kind,))]

    def kriyas_by_verb(self, verb: str) -> set[str]:
        return {n for (n,) in self._rows("SELECT id FROM nodes WHERE verb = ?", (verb.lower(),))}

    def verbs(self) -> list[str]:
        return [v for (v,) in self._rows("SELECT DISTINCT verb FROM nodes WHERE verb IS NOT NULL")]

    def doc_ids(self) -> list[str]:
        return [d for (d,) in self._rows("SELECT DISTINCT doc_id FROM nodes WHERE doc_id IS NOT NULL ORDER BY doc_id")]

    def document_at(self, doc_id: str, seq: int) -> str | None:
        rows = self._rows("SELECT id FROM nodes WHERE doc_id = ? AND seq = ? AND type = 'Document'", (doc_id, seq))
        return str(rows[0][0]) if rows else None

    def document_nodes(self, doc_id: str) -> list[str]:
        return [n for (n,) in self._rows("SELECT id FROM nodes WHERE doc_id = ? AND type = 'Document' ORDER BY seq",
                                         (doc_id,))]

    def kriyas_of(self, doc_id: str) -> list[str]:
        rows = self._rows("SELECT id, seq FROM nodes WHERE doc_id = ? AND type = 'Kriya'", (doc_id,))
        return [n for n, _ in sorted(rows, key=lambda r: (r[1], r[0].rsplit("_K", 1)[1].zfill(6)))]

    def first_lines(self) -> dict[str, str]:
        rows = self._rows("SELECT doc_id, attrs FROM nodes WHERE type = 'Document' AND seq = 1")
        return {d: str(orjson.loads(a).get("text", "")) for d, a in sorted(rows)}

    def line_counts(self) -> dict[str, int]:
        return dict(self._rows("SELECT doc_id, count(*) FROM nodes WHERE type = 'Document' GROUP BY doc_id"))

    def mentions(self) -> Iterator[tuple[str, str, str]]:
        rows = self._rows("SELECT target, relation, attrs FROM edges")
        for target, relation, attrs in rows:
            span = orjson.loads(attrs).get("span") if relation in KARAKA_RELATIONS else None
            if span:
                yield target, str(span), relation

    def stats(self) -> dict[str, Any]:
        nodes = Counter(dict(self._rows("SELECT type, count(*) FROM nodes GROUP BY type")))
        edges = Counter(dict(self._rows("SELECT relation, count(*) FROM edges GROUP BY relation")))
        return {"nodes": sum(nodes.values()), "edges": sum(edges.values()),
                "nodes_by_type": dict(sorted(nodes.items())), "edges_by_relation": dict(sorted(edges.items()))}

    # -- the entity names (what the resolver looks up) ----------------------------------------
    def name_owner(self, key: str) -> str | None:
        """The entity a key names: the entity of that name first, else one a mention was written to."""
        for kind in (NAME, MENTION):
            rows = self._rows("SELECT entity FROM names WHERE key = ? AND kind = ? ORDER BY rowid LIMIT 1", (key, kind))
            if rows:
                return str(rows[0][0])
        return None

    def alias_owners(self, key: str) -> list[str]:
        """The entities filed under ``key`` as an alias (a tail of their names)."""
        return sorted({e for (e,) in self._rows("SELECT entity FROM names WHERE key = ? AND kind = ?", (key, ALIAS))})

    def entity_names(self) -> list[tuple[str, str]]:
        """(entity, canonical name) of every named entity, in the order they were written."""
        return self._rows("SELECT entity, name FROM names WHERE kind = ? ORDER BY rowid", (NAME,))

    # -- what needs the whole graph -----------------------------------------------------------
    def violations(self) -> list[str]:
        return self.whole().violations()

    def to_json(self) -> dict[str, Any]:
        return self.whole().to_json()

    def export(self, path: str | Path, fmt: str) -> Path:
        return self.whole().export(path, fmt)

    # -- no writes ------------------------------------------------------------------------------
    def _read_only(self, *_: Any, **__: Any) -> Any:
        raise ReadOnlyGraph(f"the graph read from {self.path} is read-only: write inside Workspace.writing()")

    add_node = update_node = add_edge = add_document = add_kriya = add_entity = _read_only
    remove_document = drop_nodes = discard = remove_edge = put_raw = put_raw_edge = save = _read_only


class StoredResolver(EntityResolver):
    """The resolver of a :class:`StoredGraph`: names are looked up in the index, not loaded.

    ``candidates`` answers as the resolver built from the whole graph does; the embedding
    fallback (no name matches) reads every entity name once, on first need.
    """

    def __init__(self, graph: StoredGraph, embeddings: Any, threshold: float = 0.85):
        super().__init__(embeddings, threshold)
        self.graph = graph
        self._loaded = False

    def candidates(self, mention: str) -> list[str]:
        key = normalize_name(entity_name(mention, prepositional=True))
        if not key or is_pronoun(mention):
            return []
        exact = self.graph.name_owner(key)
        out = ([exact] if exact is not None else []) + [e for e in self.graph.alias_owners(key) if e != exact]
        if out:
            return out
        near = self._near(key)
        return [near] if near is not None else []

    def lookup(self, mention: str) -> str | None:
        key = normalize_name(mention)
        if not key or is_pronoun(mention):
            return None
        return self.graph.name_owner(key) or self._near(key)

    def _near(self, key: str) -> str | None:
        with self._lock:
            if not self._loaded:
                for entity, name in self.graph.entity_names():
                    self.known(entity, name)
                self._loaded = True
            return self._nearest(key)

    def _read_only(self, *_: Any, **__: Any) -> Any:
        raise ReadOnlyGraph("the resolver of a stored graph only looks up: write inside Workspace.writing()")

    resolve = prepare = _read_only  # type: ignore[assignment]

