"""The query graph as one table, and its walk without LangGraph: a cold `karaka ask` with no LLM and no thread.

``QUERY`` is the query graph's only declaration: ``graphs/query.py`` compiles it for LangGraph
(with the GSV-Retry loop inside ``plan``), and ``run_direct`` walks the same nodes along the same
routes with the same reducers (``karaka.walk``), without importing LangGraph, when there is no LLM
to plan with and no thread to keep. Everything else (threads, an LLM, the HTTP API, Studio) runs
the compiled graph.
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
    steps={"classify": q.classify, "basic": q.basic, "plan": q.make_plan(None), "retrieve": q.retrieve,
           "traverse": q.traverse_graph, "find": q.find, "answer": q.answer, "web_search": q.web_search,
           "reference": q.reference, "finalize": q.finalize},
    routes={"classify": q.route_intent, "basic": "finalize", "plan": "retrieve", "retrieve": "traverse",
            "traverse": "answer", "find": "finalize", "answer": "web_search", "web_search": "finalize",
            "reference": q.route_reference,
            "finalize": END},
    ends={"classify": ("plan", "find", "basic", "reference"), "reference": ("plan", "finalize")},
    first="classify", state=QueryState,
)


def run_direct(ctx: Context, question: str,
               on_event: Callable[[dict[str, Any]], None] | None = None) -> dict[str, Any]:
    """Answer ``question`` by the query graph's nodes in order; the same ``QueryResult`` as the graph."""
    if get_services(ctx).llm is not None:
        raise ValueError("the direct walk answers without an LLM only; run the query graph")
    state = QUERY.run({"question": question}, DirectRuntime(ctx, on_event), limit=len(QUERY.steps))
    return dict(state["result"])
