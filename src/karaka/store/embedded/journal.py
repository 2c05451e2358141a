"""The graph that remembers what changed since it was saved, so the SQLite index is brought up to date instead of rebuilt."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from karaka.store.embedded.graph import KnowledgeGraph
from karaka.store.schema import SchemaError, normalize_edge


class JournaledGraph(KnowledgeGraph):
    """A graph that remembers what changed since the last save (what a save must write)."""

    def __init__(self) -> None:
        super().__init__()
        self.dirty_nodes: dict[str, None] = {}  # dicts as ordered sets: a save writes in the graph's order
        self.dirty_edges: dict[tuple[str, str, str], None] = {}
        self.removed: set[str] = set()
        self.removed_edges: set[tuple[str, str, str]] = set()

    def add_node(self, node_id: str, **attrs: Any) -> str:
        before = dict(self._g.nodes[node_id]) if node_id in self._g else None
        out = super().add_node(node_id, **attrs)
        if self._g.nodes[node_id] != before:  # a rewrite of the same node costs no row
            self.dirty_nodes[node_id] = None
        return out

    def add_edge(self, source: str, target: str, relation: str, **attrs: Any) -> tuple[str, str, str]:
        try:
            key = normalize_edge(source, target, relation)
        except SchemaError:
            return super().add_edge(source, target, relation, **attrs)  # raises it, logged
        data = self._g.get_edge_data(key[0], key[1], key=key[2])
        before = dict(data) if data is not None else None
        triple = super().add_edge(source, target, relation, **attrs)
        if self._g.get_edge_data(triple[0], triple[1], key=triple[2]) != before or triple in self.removed_edges:
            self.dirty_edges[triple] = None
        self.removed_edges.discard(triple)
        return triple

    def drop_nodes(self, nodes: Iterable[str]) -> None:
        """Remove nodes (journaled: their rows and their edges' rows go at the next save)."""
        gone = [n for n in nodes if n in self._g]
        for node in gone:  # what this node's edges journaled is moot: the save removes them with it
            for source, target, relation in [*self._g.out_edges(node, keys=True), *self._g.in_edges(node, keys=True)]:
                self.dirty_edges.pop((source, target, relation), None)
            self.dirty_nodes.pop(node, None)
            self.removed.add(node)
        super().drop_nodes(gone)

    def remove_edge(self, source: str, target: str, relation: str) -> bool:
        if not super().remove_edge(source, target, relation):
            return False
        self.dirty_edges.pop((source, target, relation), None)
        self.removed_edges.add((source, target, relation))
        return True

    def pending(self) -> bool:
        """Whether anything changed since the last save."""
        return bool(self.dirty_nodes or self.dirty_edges or self.removed or self.removed_edges)

    def clear_journal(self) -> None:
        """Forget the changes (they were saved, or the replica is being reloaded)."""
        self.dirty_nodes, self.dirty_edges, self.removed, self.removed_edges = {}, {}, set(), set()

    def edge_attrs(self, source: str, target: str, relation: str) -> dict[str, Any]:
        """One edge's attributes (without the relation key)."""
        data = self._g.get_edge_data(source, target, key=relation) or {}
        return {k: v for k, v in data.items() if k != "relation"}
