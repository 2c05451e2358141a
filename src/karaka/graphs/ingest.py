"""The ingestion graph: load → embed → extract (Send loop) → write → post-process → report.

The extract workers and the post-processing step are given the GSV-Retry subgraph here, so the
drawing (``get_graph(xray=True)``) shows its nodes inside them.
"""

from __future__ import annotations

from langgraph.graph import END, START, StateGraph
from langgraph.graph.state import CompiledStateGraph
from langgraph.types import RetryPolicy

from karaka.config import Context
from karaka.graphs.gsv import loop
from karaka.nodes import ingest as n
from karaka.nodes.extract import make_extract
from karaka.state.ingest import IngestInput, IngestOutput, IngestState


def build_ingest_graph() -> StateGraph[IngestState, Context, IngestInput, IngestOutput]:
    """Return the uncompiled ingestion builder."""
    builder = StateGraph(IngestState, context_schema=Context, input_schema=IngestInput, output_schema=IngestOutput)
    builder.add_node("load", n.load)
    builder.add_node("embed", n.embed)
    builder.add_node("extract", make_extract(loop),  # type: ignore[call-overload, arg-type]  # a Send target
                     retry_policy=RetryPolicy(max_attempts=2))
    builder.add_node("progress", n.progress)
    builder.add_node("write", n.write)
    builder.add_node("post_process", n.make_post_process(loop))
    builder.add_node("report", n.report)
    builder.add_edge(START, "load")
    builder.add_edge("load", "embed")
    builder.add_conditional_edges("embed", n.route_extract, ["extract", "write"])
    builder.add_edge("extract", "progress")
    builder.add_conditional_edges("progress", n.route_extract, ["extract", "write"])
    builder.add_edge("write", "post_process")
    builder.add_edge("post_process", "report")
    builder.add_edge("report", END)
    return builder


graph: CompiledStateGraph[IngestState, Context, IngestInput, IngestOutput] = build_ingest_graph().compile(name="ingest")

# The extract loop takes two supersteps a round; rounds grow with the corpus, so runs
# set a limit far above any corpus rather than the default 25.
RECURSION_LIMIT = 10_000_000
