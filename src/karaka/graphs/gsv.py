"""The GSV-Retry subgraph: one builder, compiled once, reused by ingestion and query."""

from __future__ import annotations

from langgraph.graph import END, START, StateGraph

from karaka.config import Context
from karaka.nodes import gsv as n
from karaka.state.gsv import GSVInput, GSVOutput, GSVState


def build_gsv_graph() -> StateGraph[GSVState, Context, GSVInput, GSVOutput]:
    """Return the uncompiled GSV-Retry builder; the task is named in the input state."""
    builder = StateGraph(GSVState, context_schema=Context, input_schema=GSVInput, output_schema=GSVOutput)
    builder.add_node("start_attempt", n.start_attempt)
    builder.add_node("generate", n.generate)  # type: ignore[call-overload]  # a Send target takes GenerateArgs
    builder.add_node("collect", n.collect)
    builder.add_node("score", n.score)  # type: ignore[arg-type]  # a Send target takes ScoreArgs
    builder.add_node("verify", n.verify)
    builder.add_node("cross_validate", n.cross_validate)
    builder.add_node("expand", n.expand)
    builder.add_node("finish", n.finish)
    builder.add_edge(START, "start_attempt")
    builder.add_conditional_edges("start_attempt", n.route_generate, ["generate", "collect"])
    builder.add_conditional_edges("expand", n.route_generate, ["generate", "collect"])
    builder.add_edge("generate", "collect")
    builder.add_conditional_edges("collect", n.route_score, ["score", "verify"])
    builder.add_edge("score", "verify")
    builder.add_edge("verify", "cross_validate")
    builder.add_conditional_edges(
        "cross_validate", n.route_after_cross, ["start_attempt", "expand", "finish"]
    )
    builder.add_edge("finish", END)
    return builder


# Compiled once. ``checkpointer=False`` keeps its steps out of a parent's checkpoint:
# a loop's durable result is the unit result the parent stores, not its inner steps.
gsv_runner = build_gsv_graph().compile(checkpointer=False, name="gsv")

# Exported for langgraph dev / Studio, which supplies its own checkpointer.
graph = build_gsv_graph().compile(name="gsv")


def run_gsv(inputs: GSVInput, context: Context) -> GSVOutput:
    """Run one loop to completion (recursion bounded by max_retries)."""
    limit = 12 * context.max_retries + 10
    result = gsv_runner.invoke(inputs, context=context, config={"recursion_limit": limit})
    return result  # type: ignore[return-value]
