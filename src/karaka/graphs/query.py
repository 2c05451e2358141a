"""The query graph: classify → plan (GSV-Retry) → retrieve → traverse → answer → finalize, compiled from ``QUERY``.

The table lives in ``graphs/direct.py`` (it imports no LangGraph, for a cold `karaka ask`); here the
planner is given the GSV-Retry subgraph, so the drawing shows its nodes inside ``plan``.
"""

from __future__ import annotations

from langgraph.graph import StateGraph
from langgraph.graph.state import CompiledStateGraph

from karaka.config import Context
from karaka.graphs.direct import QUERY
from karaka.graphs.gsv import add_walk, loop
from karaka.nodes import query as q
from karaka.state.query import QueryInput, QueryOutput, QueryState


def build_query_graph() -> StateGraph[QueryState, Context, QueryInput, QueryOutput]:
    """Return the uncompiled query builder, node for node and route for route the ``QUERY`` table."""
    builder = StateGraph(QueryState, context_schema=Context, input_schema=QueryInput, output_schema=QueryOutput)
    steps = {name: q.make_plan(loop) if name == "plan" else step for name, step in QUERY.steps.items()}
    return add_walk(builder, QUERY, steps)


graph: CompiledStateGraph[QueryState, Context, QueryInput, QueryOutput] = build_query_graph().compile(name="query")
