"""Copy a workspace directory into a PostgreSQL store (``karaka migrate``)."""

from __future__ import annotations

from typing import Any

from karaka.store.embedded.journal import JournaledGraph
from karaka.store.embedded.workspace import Workspace
from karaka.store.postgres.backend import JournaledVectors, PgStore

TABLES = ("documents", "lines", "results", "decisions", "runs")
BATCH = 5000


def migrate(source: Workspace, target: PgStore) -> dict[str, Any]:
    """Copy records, graph, vectors and failure logs; the target must hold no documents yet.

    Checkpoints are not copied: a finished run needs none, and an interrupted one, run again
    against the store, reuses every unit result copied here.
    """
    with source.reading(), target.writing("migrate"):
        if target.records.documents():
            raise ValueError(f"{target.location} already holds documents: migrate into an empty database")
        counts: dict[str, Any] = {}
        with target.records._transaction() as cur:
            for table in TABLES:
                rows = [tuple(r) for r in source.records._rows(f"SELECT * FROM {table}")]
                if rows:
                    marks = ", ".join("?" * len(rows[0]))
                    for start in range(0, len(rows), BATCH):
                        cur.executemany(f"INSERT INTO {table} VALUES ({marks})", rows[start:start + BATCH])
                counts[table] = len(rows)
        graph = JournaledGraph.from_json(source.graph.to_json())
        assert isinstance(graph, JournaledGraph)
        graph.dirty_nodes = dict.fromkeys(graph.nodes_of("Document") + graph.nodes_of("Kriya") + graph.nodes_of("Entity"))
        graph.dirty_edges = {(e.source, e.target, e.relation): None for n in graph.dirty_nodes for e in graph.edges_out(n)}
        vectors = JournaledVectors(source.vectors.dim)
        for doc_id in sorted({doc for doc, _ in source.vectors.refs.values()}):
            lines = source.vectors.lines_of(doc_id)
            ids = [source.vectors._by_doc[doc_id][line] for line in lines]
            vectors.add(doc_id, lines, source.vectors.index.reconstruct_batch(ids))  # type: ignore[call-arg]
        target.graph, target._vectors, target._dim = graph, vectors, source.vectors.dim
        for record in source.failures():
            target.log_failure(record)
        target.flush()
        target._generation = -1  # the next reader rebuilds the resolver from the copied entities
        counts.update(nodes=len(graph), edges=len(graph.dirty_edges), vectors=len(vectors),
                      failures=len(source.failures()))
    return counts
