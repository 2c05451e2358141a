"""The graph read from its SQLite index node by node as a question visits it (``StoredGraph``), and the resolver over it."""

from __future__ import annotations

import sqlite3
import threading
from collections import Counter
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import orjson

from karaka.store.base import Edge
from karaka.store.damage import DamagedFile
from karaka.store.embedded.graph import KnowledgeGraph
from karaka.store.embedded.index import ALIAS, GIVEN, MENTION, NAME, connect
from karaka.store.resolver import EntityResolver, entity_name, is_pronoun, normalize_name, with_given
from karaka.store.schema import KARAKA_RELATIONS


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
        self._db = connect(path, read_only=True)
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
        return self._owners(key, ALIAS)

    def given_owners(self, key: str) -> list[str]:
        """The entities whose full name opens with the word ``key`` ("tomas" of "Tomas Berg")."""
        return self._owners(key, GIVEN)

    def _owners(self, key: str, kind: int) -> list[str]:
        return sorted({e for (e,) in self._rows("SELECT entity FROM names WHERE key = ? AND kind = ?", (key, kind))})

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
        out = with_given(out, self.graph.given_owners(key))
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
