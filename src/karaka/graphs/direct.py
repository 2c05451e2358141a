"""The query graph walked without LangGraph: a cold `karaka ask` with no LLM and no thread.

Without an LLM the query graph is a straight walk: no GSV loop, no checkpoint, no parallel
branch. ``run_direct`` walks the same nodes along the same routes with the same reducer
(``karaka.walk``) and returns the same result; tests check ``QUERY`` against the compiled
graph's edges and the answers against the graph's. Everything else (threads, an LLM, the HTTP
API, Studio) runs the LangGraph graph.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from karaka.config import Context
from karaka.nodes import query as q
from karaka.services import get_services
from karaka.state.query import QueryState
from karaka.walk import END, DirectRuntime, Walk

QUERY = Walk(
    steps={"classify": q.classify, "plan": q.make_plan(None), "traverse": q.traverse_graph, "hybrid": q.hybrid,
           "find": q.find, "answer": q.answer, "finalize": q.finalize},
    routes={"classify": q.route_intent, "plan": q.route_plan, "traverse": q.route_found,
            "hybrid": "answer", "find": "finalize", "answer": "finalize", "finalize": END},
    first="classify", state=QueryState,
)


def run_direct(ctx: Context, question: str,
               on_event: Callable[[dict[str, Any]], None] | None = None) -> dict[str, Any]:
    """Answer ``question`` by the query graph's nodes in order; the same ``QueryResult`` as the graph."""
    if get_services(ctx).llm is not None:
        raise ValueError("the direct walk answers without an LLM only; run the query graph")
    state = QUERY.run({"question": question}, DirectRuntime(ctx, on_event), limit=len(QUERY.steps))
    return dict(state["result"])
