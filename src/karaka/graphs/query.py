"""The query graph: classify → plan (GSV-Retry) → traverse → hybrid fallback → answer → finalize.

The planner is given the GSV-Retry subgraph here, so the drawing shows its nodes inside ``plan``.
"""

from __future__ import annotations

from langgraph.graph import END, START, StateGraph
from langgraph.graph.state import CompiledStateGraph

from karaka.config import Context
from karaka.graphs.gsv import loop
from karaka.nodes import query as q
from karaka.state.query import QueryInput, QueryOutput, QueryState


def build_query_graph() -> StateGraph[QueryState, Context, QueryInput, QueryOutput]:
    """Return the uncompiled query builder."""
    builder = StateGraph(QueryState, context_schema=Context, input_schema=QueryInput, output_schema=QueryOutput)
    builder.add_node("classify", q.classify)
    builder.add_node("plan", q.make_plan(loop))  # type: ignore[arg-type]  # a node built around the loop
    builder.add_node("traverse", q.traverse_graph)
    builder.add_node("hybrid", q.hybrid)
    builder.add_node("find", q.find)
    builder.add_node("answer", q.answer)
    builder.add_node("finalize", q.finalize)
    builder.add_edge(START, "classify")
    builder.add_conditional_edges("classify", q.route_intent, ["plan", "find"])
    builder.add_conditional_edges("plan", q.route_plan, ["traverse", "finalize"])
    builder.add_conditional_edges("traverse", q.route_found, ["answer", "hybrid"])
    builder.add_edge("hybrid", "answer")
    builder.add_edge("find", "finalize")
    builder.add_edge("answer", "finalize")
    builder.add_edge("finalize", END)
    return builder


graph: CompiledStateGraph[QueryState, Context, QueryInput, QueryOutput] = build_query_graph().compile(name="query")
