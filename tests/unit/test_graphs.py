"""The three graphs' structure: GSV-Retry drawn inside both parents, snapshots of the drawings."""

import os
from pathlib import Path

import pytest

from karaka.graphs import gsv, ingest, query

SNAPSHOTS = Path(__file__).parent / "snapshots"
GSV_NODES = ("start_attempt", "generate", "score", "verify", "cross_validate")
GRAPHS = {"gsv": gsv.graph, "ingest": ingest.graph, "query": query.graph}


@pytest.mark.parametrize("parent,holder", [("ingest", "extract"), ("ingest", "post_process"), ("query", "plan")])
def test_gsv_nodes_are_drawn_inside_both_parents(parent, holder):
    graph = GRAPHS[parent].get_graph(xray=True)
    for node in GSV_NODES:
        assert f"{holder}:{node}" in graph.nodes, f"{parent} does not show {node} inside {holder}"


def test_nodes_import_no_graph_module():
    nodes = Path(ingest.__file__).parents[1] / "nodes"
    for module in nodes.glob("*.py"):
        assert "karaka.graphs" not in module.read_text(), f"{module.name} imports graphs/"


@pytest.mark.parametrize("name", sorted(GRAPHS))
def test_mermaid_snapshot(name):
    """Any structural change shows in review: run with KARAKA_UPDATE_SNAPSHOTS=1 to accept it."""
    drawn = GRAPHS[name].get_graph(xray=True).draw_mermaid()
    path = SNAPSHOTS / f"{name}.mmd"
    if os.environ.get("KARAKA_UPDATE_SNAPSHOTS") == "1":
        path.write_text(drawn, encoding="utf-8")
    assert path.exists(), f"no snapshot {path.name}: run with KARAKA_UPDATE_SNAPSHOTS=1"
    assert drawn == path.read_text(encoding="utf-8"), f"{name} changed; review and update {path.name}"


def test_direct_walk_follows_the_compiled_query_graph():
    """``graphs/direct.py`` walks the same nodes along the same edges as the LangGraph query graph."""
    import typing

    from karaka.graphs import direct

    drawn = query.graph.get_graph()
    nodes = {n for n in drawn.nodes if not n.startswith("__")}
    assert set(direct.QUERY.steps) == nodes
    edges = {(e.source, e.target) for e in drawn.edges if e.source != "__start__"}
    walked = set()
    for node, route in direct.QUERY.routes.items():
        targets = [route] if isinstance(route, str) else typing.get_args(typing.get_type_hints(route)["return"])
        walked |= {(node, t) for t in targets}
    assert walked == edges
