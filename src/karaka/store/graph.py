"""The knowledge graph: a NetworkX MultiDiGraph behind schema-checked writes."""

from __future__ import annotations

import json
import logging
from collections import Counter, defaultdict
from pathlib import Path
from typing import Any

import networkx as nx

from karaka.store.atomic import atomic_write, atomic_write_text
from karaka.store.schema import (
    KARAKA_RELATIONS,
    SchemaError,
    normalize_edge,
    validate_edge,
    validate_node,
)

log = logging.getLogger("karaka.graph")


def document_id(doc_id: str, line: int) -> str:
    """Document node id ``{doc_id}_L{line}``."""
    return f"{doc_id}_L{line}"


def kriya_id(doc_id: str, line: int, seq: int) -> str:
    """Kriyā node id ``{doc_id}_L{line}_K{seq}``."""
    return f"{doc_id}_L{line}_K{seq}"


class KnowledgeGraph:
    """Schema-checked writes, idempotent upserts, a verb index, atomic saves."""

    def __init__(self) -> None:
        self.g = nx.MultiDiGraph()
        self._by_verb: dict[str, set[str]] = defaultdict(set)
        self._by_doc: dict[str, set[str]] = defaultdict(set)

    # -- writes -------------------------------------------------------------------------------
    def add_node(self, node_id: str, **attrs: Any) -> str:
        """Insert or update a node; a violation raises SchemaError and changes nothing."""
        merged = {**self.g.nodes[node_id], **attrs} if node_id in self.g else dict(attrs)
        try:
            validate_node(node_id, merged)
            if node_id in self.g and self.g.nodes[node_id]["type"] != merged["type"]:
                raise SchemaError(
                    f"node {node_id!r} is a {self.g.nodes[node_id]['type']}, not {merged['type']}",
                    field="type",
                )
        except SchemaError as exc:
            log.warning("schema violation: add_node %s %s: %s", node_id, attrs, exc)
            raise
        self.g.add_node(node_id, **merged)
        if merged["type"] == "Kriya":
            self._by_verb[merged["verb"].lower()].add(node_id)
        if merged["type"] in ("Kriya", "Document"):
            self._by_doc[merged["doc_id"]].add(node_id)
        return node_id

    def add_edge(self, source: str, target: str, relation: str, **attrs: Any) -> tuple[str, str, str]:
        """Insert an edge once per (source, target, relation); returns the normalised triple."""
        try:
            source, target, relation = normalize_edge(source, target, relation)
            for end, name in ((source, "source"), (target, "target")):
                if end not in self.g:
                    raise SchemaError(f"{relation}: {name} node {end!r} does not exist", field=name)
            validate_edge(self.g.nodes[source]["type"], self.g.nodes[target]["type"], relation)
            if relation == "IS_SAME_AS" and source == target:
                raise SchemaError(f"IS_SAME_AS loop on {source!r}", field="target")
        except SchemaError as exc:
            log.warning("schema violation: add_edge %s -%s-> %s: %s", source, relation, target, exc)
            raise
        self.g.add_edge(source, target, key=relation, relation=relation, **attrs)
        return source, target, relation

    def add_document(self, doc_id: str, line: int, text: str) -> str:
        """Document node for one line."""
        return self.add_node(
            document_id(doc_id, line), type="Document", doc_id=doc_id, line_number=line, text=text
        )

    def add_kriya(self, doc_id: str, line: int, seq: int, verb: str, **attrs: Any) -> str:
        """Kriyā node ``{doc_id}_L{line}_K{seq}``."""
        node = kriya_id(doc_id, line, seq)
        return self.add_node(
            node, type="Kriya", verb=verb, doc_id=doc_id, line_number=line, **attrs
        )

    def add_entity(self, entity_id: str, canonical_name: str, **attrs: Any) -> str:
        """Entity node (id is its canonical name)."""
        return self.add_node(entity_id, type="Entity", canonical_name=canonical_name, **attrs)

    def remove_document(self, doc_id: str) -> int:
        """Delete a document's Document and Kriyā nodes and entities left with no use."""
        nodes = list(self._by_doc.pop(doc_id, set()))
        touched = {
            t for n in nodes if self.g.nodes[n]["type"] == "Kriya" for t in self.g.successors(n)
        }
        for node in nodes:
            attrs = self.g.nodes[node]
            if attrs["type"] == "Kriya":
                self._by_verb[attrs["verb"].lower()].discard(node)
        self.g.remove_nodes_from(nodes)
        orphans = [
            e for e in touched
            if e in self.g and self.g.nodes[e]["type"] == "Entity" and not self.uses(e)
        ]
        self.g.remove_nodes_from(orphans)
        return len(nodes) + len(orphans)

    # -- reads --------------------------------------------------------------------------------
    def uses(self, entity: str) -> list[tuple[str, str]]:
        """(kriyā, relation) pairs whose kāraka edge ends at ``entity``."""
        return [
            (src, rel) for src, _, rel in self.g.in_edges(entity, keys=True)
            if rel in KARAKA_RELATIONS
        ]

    def nodes_of(self, kind: str) -> list[str]:
        """All node ids of one type."""
        return [n for n, t in self.g.nodes(data="type") if t == kind]

    def kriyas_by_verb(self, verb: str) -> set[str]:
        """Kriyā ids whose verb equals ``verb`` (case-insensitive)."""
        return set(self._by_verb.get(verb.lower(), set()))

    def verbs(self) -> list[str]:
        """Distinct verbs in the graph."""
        return [v for v, ids in self._by_verb.items() if ids]

    def doc_nodes(self, doc_id: str) -> set[str]:
        """Document and Kriyā node ids of one document."""
        return set(self._by_doc.get(doc_id, set()))

    def neighbors(self, node: str, relation: str, direction: str = "out") -> list[str]:
        """Neighbours along one relation."""
        if direction == "out":
            return [t for _, t, k in self.g.out_edges(node, keys=True) if k == relation]
        return [s for s, _, k in self.g.in_edges(node, keys=True) if k == relation]

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
        nodes = Counter(t for _, t in self.g.nodes(data="type"))
        edges = Counter(k for _, _, k in self.g.edges(keys=True))
        return {
            "nodes": self.g.number_of_nodes(), "edges": self.g.number_of_edges(),
            "nodes_by_type": dict(sorted(nodes.items())), "edges_by_relation": dict(sorted(edges.items())),
        }

    def violations(self) -> list[str]:
        """Every node and edge that breaks the schema (empty for a healthy graph)."""
        found = []
        for node, attrs in self.g.nodes(data=True):
            try:
                validate_node(node, attrs)
            except SchemaError as exc:
                found.append(str(exc))
        for src, dst, key, attrs in self.g.edges(keys=True, data=True):
            try:
                if attrs.get("relation") != key:
                    raise SchemaError(f"edge key {key!r} != relation", field="relation")
                validate_edge(self.g.nodes[src].get("type"), self.g.nodes[dst].get("type"), key)
            except SchemaError as exc:
                found.append(f"{src} -{key}-> {dst}: {exc}")
        return found

    # -- persistence --------------------------------------------------------------------------
    def to_json(self) -> dict[str, Any]:
        """Node-link JSON."""
        return nx.node_link_data(self.g, edges="edges")  # type: ignore[no-any-return]

    def save(self, path: str | Path) -> None:
        """Atomic save as node-link JSON: a crash mid-save leaves the last good copy."""
        atomic_write_text(path, json.dumps(self.to_json(), ensure_ascii=False))

    @classmethod
    def load(cls, path: str | Path) -> KnowledgeGraph:
        """Load a saved graph; a missing file gives an empty graph."""
        kg = cls()
        path = Path(path)
        if not path.exists():
            return kg
        data = json.loads(path.read_text(encoding="utf-8"))
        g = nx.node_link_graph(data, directed=True, multigraph=True, edges="edges")
        for node, attrs in g.nodes(data=True):
            kg.add_node(node, **attrs)
        for src, dst, key, attrs in g.edges(keys=True, data=True):
            kg.g.add_edge(src, dst, key=key, **attrs)
        return kg

    def export(self, path: str | Path, fmt: str) -> Path:
        """Export as ``gexf`` or ``json``."""
        path = Path(path)
        if fmt == "json":
            self.save(path)
        elif fmt == "gexf":
            clean = nx.MultiDiGraph()
            for node, attrs in self.g.nodes(data=True):
                clean.add_node(node, **{k: v for k, v in attrs.items() if v is not None})
            for src, dst, key, attrs in self.g.edges(keys=True, data=True):
                clean.add_edge(src, dst, key=key, **{k: v for k, v in attrs.items() if v is not None})
            atomic_write(path, lambda handle: nx.write_gexf(clean, handle))
        else:
            raise ValueError(f"export format must be gexf or json, got {fmt!r}")
        return path
