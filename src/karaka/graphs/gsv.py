"""The GSV-Retry subgraph: one builder, compiled once, added inside the ingestion and query graphs.

The parents compose it here: ``loop`` is handed to the nodes that need it (the extract worker,
the planner, epithet linking), so ``get_graph(xray=True)`` of either parent draws ``generate``,
``score``, ``verify`` and ``cross_validate`` inside them, Studio shows them, and their events
stream with the parent's. ``nodes/`` never imports this module.
"""

from __future__ import annotations

from langgraph.graph import START, StateGraph
from langgraph.graph.state import CompiledStateGraph

from karaka.config import Context
from karaka.nodes import gsv as n
from karaka.state.gsv import GSVInput, GSVOutput, GSVState


def build_gsv_graph() -> StateGraph[GSVState, Context, GSVInput, GSVOutput]:
    """Return the uncompiled GSV-Retry builder; the task is named in the input state."""
    builder = StateGraph(GSVState, context_schema=Context, input_schema=GSVInput, output_schema=GSVOutput)
    builder.add_node("start_attempt", n.start_attempt)
    builder.add_node("generate", n.generate)  # type: ignore[call-overload]  # a Send target takes GenerateArgs
    builder.add_node("score", n.score)  # type: ignore[call-overload, arg-type]  # a Send target takes ScoreArgs
    builder.add_node("verify", n.verify)
    builder.add_node("cross_validate", n.cross_validate)
    builder.add_edge(START, "start_attempt")
    builder.add_conditional_edges("start_attempt", n.route_start, ["generate", "score", "verify"])
    builder.add_conditional_edges("generate", n.route_generated, ["score", "verify"])
    builder.add_edge("score", "verify")
    builder.add_edge("verify", "cross_validate")
    builder.add_conditional_edges("cross_validate", n.route_after_cross,
                                  ["start_attempt", "generate", "score", "verify", "__end__"])
    return builder


# Compiled once, with no checkpointer of its own: inside a parent it runs as the parent's child
# (see ``karaka.nodes.common.run_loop``), so Studio draws it and streams its events.
loop: CompiledStateGraph[GSVState, Context, GSVInput, GSVOutput] = build_gsv_graph().compile(name="gsv")

# Exported for langgraph dev / Studio, which supplies its own checkpointer.
graph = loop


def run_gsv(inputs: GSVInput, context: Context) -> GSVOutput:
    """Run one loop to completion outside any parent graph (evaluation, tests)."""
    from karaka.kg.calls import run_loop

    return run_loop(loop, inputs, context)
