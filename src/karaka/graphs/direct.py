"""The query graph walked without LangGraph: a cold `karaka ask` with no LLM and no thread.

Importing LangGraph (and LangChain's tracers and LangSmith with it) costs about 1.2 s, more than a
third of a cold CLI question. Without an LLM the query graph is a straight walk: no GSV loop, no
checkpoint, no parallel branch. ``run_direct`` walks the same nodes along the same routes with the
same reducer and returns the same result; tests check ``NEXT`` against the compiled graph's edges
and the answers against the graph's. Everything else (threads, an LLM, the HTTP API, Studio) runs
the LangGraph graph.
"""

from __future__ import annotations

import inspect
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from karaka.config import Context
from karaka.nodes import query as q
from karaka.services import get_services
from karaka.state.query import last_turns

END = "__end__"
STEPS: dict[str, Callable[..., Any]] = {
    "classify": q.classify, "plan": q.make_plan(None), "traverse": q.traverse_graph, "hybrid": q.hybrid,
    "find": q.find, "answer": q.answer, "finalize": q.finalize,
}
NEXT: dict[str, str | Callable[..., str]] = {
    "classify": q.route_intent, "plan": q.route_plan, "traverse": q.route_found,
    "hybrid": "answer", "find": "finalize", "answer": "finalize", "finalize": END,
}
REDUCERS: dict[str, Callable[[Any, Any], Any]] = {"turns": last_turns}


@dataclass
class DirectRuntime:
    """What the nodes read from LangGraph's ``Runtime``: the context and the custom-event writer."""

    context: Context
    stream_writer: Callable[[dict[str, Any]], None] | None = None


def _call(fn: Callable[..., Any], state: dict[str, Any], runtime: DirectRuntime) -> Any:
    return fn(state, runtime) if len(inspect.signature(fn).parameters) > 1 else fn(state)


def run_direct(ctx: Context, question: str,
               on_event: Callable[[dict[str, Any]], None] | None = None) -> dict[str, Any]:
    """Answer ``question`` by the query graph's nodes in order; the same ``QueryResult`` as the graph."""
    if get_services(ctx).llm is not None:
        raise ValueError("the direct walk answers without an LLM only; run the query graph")
    runtime = DirectRuntime(ctx, on_event)
    state: dict[str, Any] = {"question": question}
    node = "classify"
    for _ in range(len(STEPS)):  # every route leads forward, so each node runs at most once
        for key, value in (_call(STEPS[node], state, runtime) or {}).items():
            state[key] = REDUCERS[key](state.get(key), value) if key in REDUCERS else value
        route = NEXT[node]
        node = route if isinstance(route, str) else _call(route, state, runtime)
        if node == END:
            return dict(state["result"])
    raise RuntimeError(f"the query walk did not end (at {node})")
