"""The GSV-Retry subgraph: one table of nodes and routes, compiled once, added inside the ingestion and query graphs.

The parents compose it here: ``loop`` is handed to the nodes that need it (the extract worker,
the planner, epithet linking), so ``get_graph(xray=True)`` of either parent draws ``generate``,
``score``, ``verify`` and ``cross_validate`` inside them, Studio shows them, and their events
stream with the parent's. ``WALK`` is the same table walked without Pregel when no one watches
the loop's steps (``karaka.gsv.run.run_loop``). ``nodes/`` never imports this module.
"""

from __future__ import annotations

import typing

from langgraph.graph import START, StateGraph
from langgraph.graph.state import CompiledStateGraph

from karaka.config import Context
from karaka.gsv.run import run_loop, walk_as
from karaka.nodes import gsv as n
from karaka.nodes import judge
from karaka.state.gsv import GSVInput, GSVOutput, GSVState
from karaka.walk import END, Walk

WALK = Walk(
    steps={"start_attempt": n.start_attempt, "generate": n.generate, "score": judge.score, "verify": judge.verify,
           "cross_validate": n.cross_validate},
    routes={"start_attempt": n.route_start, "generate": n.route_generated, "score": "verify",
            "verify": "cross_validate", "cross_validate": n.route_after_cross},
    ends={"start_attempt": ("generate", "score", "verify"), "generate": ("score", "verify"),
          "cross_validate": ("start_attempt", "generate", "score", "verify", END)},
    first="start_attempt", state=GSVState, output=tuple(typing.get_type_hints(GSVOutput)),
)


def build_gsv_graph() -> StateGraph[GSVState, Context, GSVInput, GSVOutput]:
    """Return the uncompiled GSV-Retry builder (from ``WALK``); the task is named in the input state."""
    builder = StateGraph(GSVState, context_schema=Context, input_schema=GSVInput, output_schema=GSVOutput)
    return add_walk(builder, WALK, WALK.steps)  # generate and score are Send targets: they take their own args


Builder = typing.TypeVar("Builder", bound="StateGraph[typing.Any, typing.Any, typing.Any, typing.Any]")


def add_walk(builder: Builder, walk: Walk, steps: dict[str, typing.Any]) -> Builder:
    """A table's nodes (``steps``, by name), its start and its routes, added to a LangGraph builder."""
    for name, step in steps.items():
        builder.add_node(name, step)
    builder.add_edge(START, walk.first)
    for name, route in walk.routes.items():
        if isinstance(route, str):
            builder.add_edge(name, route)
        else:
            builder.add_conditional_edges(name, route, list(walk.ends[name]))
    return builder


# Compiled once, with no checkpointer of its own: inside a parent it runs as the parent's child
# (see ``karaka.gsv.run.run_loop``), so Studio draws it and streams its events.
loop: CompiledStateGraph[GSVState, Context, GSVInput, GSVOutput] = walk_as(build_gsv_graph().compile(name="gsv"), WALK)

# Exported for langgraph dev / Studio, which supplies its own checkpointer.
graph = loop


def run_gsv(inputs: GSVInput, context: Context) -> GSVOutput:
    """Run one loop to completion outside any parent graph (evaluation, tests)."""
    return run_loop(loop, inputs, context)
