"""The embedded knowledge graph: a NetworkX MultiDiGraph behind schema-checked writes."""

from __future__ import annotations

import json
import logging
from collections import Counter, defaultdict
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import IO, Any

import networkx as nx
import orjson

from karaka.store.atomic import atomic_write
from karaka.store.base import Edge
from karaka.store.ids import document_node, kriya_node
from karaka.store.schema import KARAKA_RELATIONS, SchemaError, normalize_edge, validate_edge, validate_node

log = logging.getLogger("karaka.graph")


class KnowledgeGraph:
    """Schema-checked writes, idempotent upserts, verb and document indexes, atomic saves.

    Implements :class:`karaka.store.base.GraphStore`; callers never touch the NetworkX graph.
    """

    def __init__(self) -> None:
        self._g = nx.MultiDiGraph()
        self._by_verb: dict[str, set[str]] = defaultdict(set)
        self._by_doc: dict[str, set[str]] = defaultdict(set)
        self._by_seq: dict[tuple[str, int], str] = {}

    # -- writes -------------------------------------------------------------------------------
    def add_node(self, node_id: str, **attrs: Any) -> str:
        """Insert or update a node; a violation raises SchemaError and changes nothing."""
        old = self._g.nodes[node_id] if node_id in self._g else None
        merged = {**old, **attrs} if old is not None else dict(attrs)
        try:
            validate_node(node_id, merged)
            if old is not None and old["type"] != merged["type"]:
                raise SchemaError(f"node {node_id!r} is a {old['type']}, not {merged['type']}", field="type")
        except SchemaError as exc:
            log.warning("schema violation: add_node %s %s: %s", node_id, attrs, exc)
            raise
        self._g.add_node(node_id, **merged)
        if merged["type"] == "Kriya":
            self._by_verb[merged["verb"].lower()].add(node_id)
        if merged["type"] in ("Kriya", "Document"):
            self._by_doc[merged["doc_id"]].add(node_id)
        if merged["type"] == "Document":
            self._by_seq[(merged["doc_id"], merged["seq"])] = node_id
        return node_id

    def update_node(self, node_id: str, **attrs: Any) -> None:
        """Set attributes of an existing node (checked like any write)."""
        if node_id not in self._g:
            raise SchemaError(f"node {node_id!r} does not exist", field="id")
        self.add_node(node_id, **attrs)

    def add_edge(self, source: str, target: str, relation: str, **attrs: Any) -> tuple[str, str, str]:
        """Insert an edge once per (source, target, relation); returns the normalised triple."""
        try:
            source, target, relation = normalize_edge(source, target, relation)
            for end, name in ((source, "source"), (target, "target")):
                if end not in self._g:
                    raise SchemaError(f"{relation}: {name} node {end!r} does not exist", field=name)
            validate_edge(self._g.nodes[source]["type"], self._g.nodes[target]["type"], relation)
            if relation == "IS_SAME_AS" and source == target:
                raise SchemaError(f"IS_SAME_AS loop on {source!r}", field="target")
        except SchemaError as exc:
            log.warning("schema violation: add_edge %s -%s-> %s: %s", source, relation, target, exc)
            raise
        self._g.add_edge(source, target, key=relation, relation=relation, **attrs)
        return source, target, relation

    def add_document(self, doc_id: str, seq: int, text: str, *, line: int, sentence: int = 0,
                     **place: Any) -> str:
        """Document node for one sentence (``seq``) that starts on file line ``line``.

        ``place`` holds its other coordinates where set (``SourceLine.place``: page, page_line,
        section, kind, method, lang).
        """
        return self.add_node(document_node(doc_id, line, sentence), type="Document", doc_id=doc_id,
                             seq=seq, line_number=line, sentence=sentence, text=text, **place)

    def add_kriya(self, document: str, k: int, verb: str, **attrs: Any) -> str:
        """Kriyā node ``{document}_K{k}``, on the same document and line as its Document node."""
        doc = self._g.nodes[document] if document in self._g else None
        if doc is None or doc.get("type") != "Document":
            raise SchemaError(f"Kriyā needs an existing Document node, not {document!r}", field="document")
        return self.add_node(kriya_node(document, k), type="Kriya", verb=verb, doc_id=doc["doc_id"],
                             line_number=doc["line_number"], seq=doc["seq"], **attrs)

    def add_entity(self, entity_id: str, canonical_name: str, **attrs: Any) -> str:
        """Entity node (its id is its canonical key)."""
        return self.add_node(entity_id, type="Entity", canonical_name=canonical_name, **attrs)

    def remove_document(self, doc_id: str) -> tuple[int, set[str]]:
        """Delete a document's Document and Kriyā nodes, and entities left with no use.

        Returns the number of nodes removed and the ids of the orphaned entities removed.
        """
        nodes = list(self._by_doc.get(doc_id, set()))
        touched = {t for n in nodes if self._g.nodes[n]["type"] == "Kriya" for t in self._g.successors(n)}
        self.drop_nodes(nodes)
        orphans = {e for e in touched if e in self._g and self._g.nodes[e]["type"] == "Entity" and not self.uses(e)}
        self.drop_nodes(orphans)
        return len(nodes) + len(orphans), orphans

    def drop_nodes(self, nodes: Iterable[str]) -> None:
        """Remove nodes (and their edges) and their index entries; unknown ids are ignored."""
        for node in nodes:
            if node not in self._g:
                continue
            attrs = self._g.nodes[node]
            if attrs["type"] == "Kriya":
                self._by_verb[attrs["verb"].lower()].discard(node)
            if attrs["type"] in ("Kriya", "Document"):
                self._by_doc[attrs["doc_id"]].discard(node)
                if not self._by_doc[attrs["doc_id"]]:
                    del self._by_doc[attrs["doc_id"]]
            if attrs["type"] == "Document":
                self._by_seq.pop((attrs["doc_id"], attrs["seq"]), None)
            self._g.remove_node(node)

    def discard(self, nodes: Iterable[str]) -> None:
        """Remove nodes and their edges (a backend that saves changes records the removal)."""
        self.drop_nodes(nodes)

    def remove_edge(self, source: str, target: str, relation: str) -> bool:
        """Remove one edge; False when there was none."""
        if not self._g.has_edge(source, target, key=relation):
            return False
        self._g.remove_edge(source, target, key=relation)
        return True

    def mentions(self) -> Iterator[tuple[str, str, str]]:
        """(entity, surface span, relation) of every kāraka edge that keeps its span."""
        for _, target, key, span in self._g.edges(keys=True, data="span"):
            if span and key in KARAKA_RELATIONS:
                yield target, str(span), key

    def put_raw(self, node: str, attrs: dict[str, Any]) -> None:
        """Insert or replace a node as stored (already checked when it was written), with its indexes."""
        if node in self._g:
            old = self._g.nodes[node]
            if old.get("type") == "Kriya" and old.get("verb") != attrs.get("verb"):
                self._by_verb[str(old["verb"]).lower()].discard(node)
            self._g.nodes[node].clear()
        self._g.add_node(node, **attrs)
        if attrs.get("type") == "Kriya":
            self._by_verb[str(attrs["verb"]).lower()].add(node)
        if attrs.get("type") in ("Kriya", "Document"):
            self._by_doc[attrs["doc_id"]].add(node)
        if attrs.get("type") == "Document":
            self._by_seq[(attrs["doc_id"], attrs["seq"])] = node

    def put_raw_edge(self, source: str, target: str, relation: str, attrs: dict[str, Any]) -> None:
        """Insert or replace an edge as stored (both ends must be present)."""
        self._g.add_edge(source, target, key=relation, **{"relation": relation, **attrs})

    # -- reads --------------------------------------------------------------------------------
    def __contains__(self, node_id: object) -> bool:
        return node_id in self._g

    def __len__(self) -> int:
        return int(self._g.number_of_nodes())

    def node(self, node_id: str) -> dict[str, Any] | None:
        """A node's attributes (read-only by convention), or None."""
        return self._g.nodes[node_id] if node_id in self._g else None

    def edges_out(self, node: str, relation: str | None = None) -> list[Edge]:
        """Outgoing edges, optionally of one relation."""
        return [Edge(node, t, k, a) for _, t, k, a in self._g.out_edges(node, keys=True, data=True)
                if relation is None or k == relation]

    def edges_in(self, node: str, relation: str | None = None) -> list[Edge]:
        """Incoming edges, optionally of one relation."""
        return [Edge(s, node, k, a) for s, _, k, a in self._g.in_edges(node, keys=True, data=True)
                if relation is None or k == relation]

    def neighbors(self, node: str, relation: str, direction: str = "out") -> list[str]:
        """Neighbours along one relation."""
        if direction == "out":
            return [t for _, t, k in self._g.out_edges(node, keys=True) if k == relation]
        return [s for s, _, k in self._g.in_edges(node, keys=True) if k == relation]

    def in_degree(self, node: str) -> int:
        """Number of incoming edges (how common an entity is)."""
        return int(self._g.in_degree(node)) if node in self._g else 0

    def uses(self, entity: str) -> list[tuple[str, str]]:
        """(kriyā, relation) pairs whose kāraka edge ends at ``entity``."""
        return [(s, k) for s, _, k in self._g.in_edges(entity, keys=True) if k in KARAKA_RELATIONS]

    def nodes_of(self, kind: str) -> list[str]:
        """All node ids of one type."""
        return [n for n, t in self._g.nodes(data="type") if t == kind]

    def kriyas_by_verb(self, verb: str) -> set[str]:
        """Kriyā ids whose verb equals ``verb`` (case-insensitive)."""
        return set(self._by_verb.get(verb.lower(), set()))

    def verbs(self) -> list[str]:
        """Distinct verbs in the graph."""
        return [v for v, ids in self._by_verb.items() if ids]

    def doc_ids(self) -> list[str]:
        """Documents that have nodes in the graph."""
        return sorted(d for d, ids in self._by_doc.items() if ids)

    def document_at(self, doc_id: str, seq: int) -> str | None:
        """The Document node of a document's ``seq``-th sentence."""
        return self._by_seq.get((doc_id, seq))

    def document_nodes(self, doc_id: str) -> list[str]:
        """A document's Document nodes in reading order."""
        nodes = [n for n in self._by_doc.get(doc_id, ()) if self._g.nodes[n]["type"] == "Document"]
        return sorted(nodes, key=lambda n: self._g.nodes[n]["seq"])

    def kriyas_of(self, doc_id: str) -> list[str]:
        """A document's Kriyā nodes in reading order."""
        nodes = [n for n in self._by_doc.get(doc_id, ()) if self._g.nodes[n]["type"] == "Kriya"]
        return sorted(nodes, key=lambda n: (self._g.nodes[n]["seq"], n.rsplit("_K", 1)[1].zfill(6)))

    def first_lines(self) -> dict[str, str]:
        """Each document's first sentence (its title, where it has one), by document id."""
        out = {}
        for doc_id in self.doc_ids():
            first = self._by_seq.get((doc_id, 1))
            if first is not None:
                out[doc_id] = str(self._g.nodes[first].get("text", ""))
        return out

    def line_counts(self) -> dict[str, int]:
        """How many Document nodes (sentences) each document has."""
        return {d: sum(self._g.nodes[n]["type"] == "Document" for n in ids) for d, ids in self._by_doc.items() if ids}

    def same_as_closure(self, entity: str, limit: int = 50) -> set[str]:
        """The entity and every entity joined to it by IS_SAME_AS (either direction)."""
        seen, frontier = {entity}, [entity]
        while frontier and len(seen) < limit:
            node = frontier.pop()
            for nxt in self.neighbors(node, "IS_SAME_AS") + self.neighbors(node, "IS_SAME_AS", "in"):
                if nxt not in seen:
                    seen.add(nxt)
                    frontier.append(nxt)
        return seen

    def stats(self) -> dict[str, Any]:
        """Counts of nodes by type and edges by relation."""
        nodes = Counter(t for _, t in self._g.nodes(data="type"))
        edges = Counter(k for _, _, k in self._g.edges(keys=True))
        return {"nodes": self._g.number_of_nodes(), "edges": self._g.number_of_edges(),
                "nodes_by_type": dict(sorted(nodes.items())), "edges_by_relation": dict(sorted(edges.items()))}

    def violations(self) -> list[str]:
        """Every node and edge that breaks the schema (empty for a healthy graph)."""
        found = []
        for node, attrs in self._g.nodes(data=True):
            try:
                validate_node(node, attrs)
            except SchemaError as exc:
                found.append(str(exc))
        for src, dst, key, attrs in self._g.edges(keys=True, data=True):
            try:
                if attrs.get("relation") != key:
                    raise SchemaError(f"edge key {key!r} != relation", field="relation")
                validate_edge(self._g.nodes[src].get("type"), self._g.nodes[dst].get("type"), key)
            except SchemaError as exc:
                found.append(f"{src} -{key}-> {dst}: {exc}")
        return found

    # -- persistence --------------------------------------------------------------------------
    def to_json(self) -> dict[str, Any]:
        """Node-link JSON (edges carry their attributes: surface spans, methods)."""
        return nx.node_link_data(self._g, edges="edges")  # type: ignore[no-any-return]

    def save(self, path: str | Path, canonical: bool = False) -> None:
        """Atomic save as node-link JSON: a crash mid-save leaves the last good copy.

        Written item by item (the same bytes as ``json.dumps(self.to_json())``) so a large graph is
        never held a second time as one dict and one string. ``canonical`` sorts nodes, edges and
        attributes, so the same graph always gives the same bytes (exports).
        """
        g = self._g

        def write(handle: IO[bytes]) -> None:
            out = handle
            head = {"directed": g.is_directed(), "multigraph": g.is_multigraph(), "graph": g.graph}
            out.write(json.dumps(head, ensure_ascii=False)[:-1].encode("utf-8") + b', "nodes": [')
            for i, node in enumerate(sorted(g) if canonical else g):
                item = {**g.nodes[node], "id": node}
                out.write((", " if i else "").encode()
                          + json.dumps(item, ensure_ascii=False, sort_keys=canonical).encode("utf-8"))
            out.write(b'], "edges": [')
            edges = g.edges(keys=True, data=True)
            for i, (u, v, k, d) in enumerate(sorted(edges, key=lambda e: e[:3]) if canonical else edges):
                item = {**d, "source": u, "target": v, "key": k}
                out.write((", " if i else "").encode()
                          + json.dumps(item, ensure_ascii=False, sort_keys=canonical).encode("utf-8"))
            out.write(b"]}")

        atomic_write(path, write)

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> KnowledgeGraph:
        """A graph from node-link JSON (as ``to_json`` writes it); ``violations()`` checks it whole.

        Every node and edge was checked when it was written, so loading rebuilds the graph and its
        indexes directly (a 2,000-line workspace loads in a fraction of the checked path's time).
        ``data`` is consumed: its node and edge dicts become the graph's attributes.
        """
        kg = cls()
        g = kg._g
        for item in data.get("nodes", []):
            node = item.pop("id")
            kg.put_raw(node, item)
        succ, pred = g._succ, g._pred  # filled directly: add_edges_from's checks were most of a large load
        for e in data.get("edges", []):
            u, v, key = e.pop("source"), e.pop("target"), e.pop("key")
            if u not in succ or v not in succ:
                g.add_edge(u, v, key=key, **e)  # an end the nodes did not list: networkx adds it
                continue
            keys = succ[u].get(v)
            if keys is None:
                keys = succ[u][v] = pred[v][u] = g.edge_key_dict_factory()
            keys[key] = e
        return kg

    @classmethod
    def load(cls, path: str | Path) -> KnowledgeGraph:
        """Load a saved graph; a missing file gives an empty graph."""
        path = Path(path)
        if not path.exists():
            return cls()
        return cls.from_json(orjson.loads(path.read_bytes()))  # orjson: a large graph parses 2-3x faster

    def export(self, path: str | Path, fmt: str) -> Path:
        """Export as ``gexf`` or ``json``."""
        path = Path(path)
        if fmt == "json":
            self.save(path, canonical=True)
        elif fmt == "gexf":
            clean = nx.MultiDiGraph()
            for node in sorted(self._g):
                attrs = self._g.nodes[node]
                clean.add_node(node, **{k: _gexf_value(attrs[k]) for k in sorted(attrs) if attrs[k] is not None})
            for src, dst, key, attrs in sorted(self._g.edges(keys=True, data=True), key=lambda e: e[:3]):
                clean.add_edge(src, dst, key=key, **{k: _gexf_value(v) for k, v in attrs.items() if v is not None})
            atomic_write(path, lambda handle: nx.write_gexf(clean, handle))
        else:
            raise ValueError(f"export format must be gexf or json, got {fmt!r}")
        return path


def _gexf_value(value: Any) -> Any:
    """GEXF holds scalars only: lists and dicts travel as JSON text."""
    return json.dumps(value, ensure_ascii=False, sort_keys=True) if isinstance(value, list | dict) else value
