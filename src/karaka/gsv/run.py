"""The GSV-Retry loop run for one unit: as a LangGraph child of the calling node, or walked directly."""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any, TypeVar

from karaka.config import Context, context_from
from karaka.services import get_services
from karaka.state.gsv import GSVInput, GSVOutput
from karaka.walk import DirectRuntime
from karaka.watch import watched

if TYPE_CHECKING:  # LangGraph is imported by the graphs; a cold `karaka ask` without an LLM needs none of it
    from langgraph.graph.state import CompiledStateGraph

    from karaka.walk import Walk

    Loop = CompiledStateGraph[Any, Any, Any, Any]  # the compiled GSV-Retry subgraph, handed in by graphs/
else:
    Loop = Any

L = TypeVar("L")
_walks: dict[int, tuple[Any, Walk]] = {}
_unsaved: dict[int, tuple[Any, Any]] = {}


def walk_as(loop: L, walk: Walk) -> L:
    """Remember that ``walk`` is ``loop``'s nodes and routes as plain tables; returns ``loop``."""
    _walks[id(loop)] = (loop, walk)
    return loop


def run_loop(loop: Loop, inputs: GSVInput, ctx: Context) -> GSVOutput:
    """Run one GSV-Retry loop: as a LangGraph child of the calling node, or walked directly.

    ``ctx.loop_steps`` says which: ``graph``, ``direct``, or ``auto`` (the child when the caller
    watches its steps, see ``watched``; else the walk, which runs the same nodes, routes and
    reducers without a Pregel loop per unit, and passes their events to the parent's stream).

    The child streams its events with the parent's (Studio highlights its nodes) but keeps its
    inner steps out of the parent's checkpoint: the caller stores the loop's outcome durably, and
    checkpointing every inner step cost 3x the time and 6.5x the checkpoint size when measured
    (README, design decisions).
    """
    ctx = context_from(ctx)
    limit = 12 * ctx.max_retries + 10
    held = _walks.get(id(loop))
    if held is not None and held[0] is loop and (ctx.loop_steps == "direct" or
                                                 (ctx.loop_steps == "auto" and not watched())):
        runtime = DirectRuntime(ctx, _parent_writer(), parallel=_batches(ctx))
        return held[1].run(dict(inputs), runtime, limit)  # type: ignore[return-value]
    unsaved = _unsaved.get(id(loop))
    if unsaved is None or unsaved[0] is not loop:  # the same loop, compiled never to inherit a checkpointer
        unsaved = _unsaved[id(loop)] = (loop, loop.copy({"checkpointer": False}))
    return unsaved[1].invoke(inputs, config={"recursion_limit": limit}, context=ctx)  # type: ignore[no-any-return,return-value]


def _batches(ctx: Context) -> bool:
    """Whether the context's model decodes concurrent requests together (the local transformers node)."""
    if not ctx.llm.startswith("huggingface"):
        return False
    return hasattr(get_services(ctx).llm, "batcher")


def _parent_writer() -> Callable[[dict[str, Any]], None] | None:
    try:
        from langgraph.config import get_stream_writer

        return get_stream_writer()
    except (ImportError, RuntimeError):
        return None
