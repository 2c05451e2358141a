"""Whether anyone watches a run step by step: then loops and calls go through LangGraph and LangChain.

Karaka's own runs stream only ``custom`` events (progress) from the top graph. Studio streams
``updates``, ``values``, ``messages`` or ``debug`` with subgraphs, and LangSmith traces every
call. A watched run gets the LangGraph child per GSV-Retry loop and LangChain's run per call;
an unwatched one skips both (``karaka.kg.calls.run_loop``, ``karaka.models.call``).
"""

from __future__ import annotations

import os

CONFIG_KEY_STREAM = "__pregel_stream"  # the config key a parent uses to lend a child its stream
STEP_MODES = frozenset({"values", "updates", "debug", "tasks", "checkpoints", "messages"})
TRACING_ENV = ("LANGSMITH_TRACING", "LANGCHAIN_TRACING_V2", "LANGSMITH_TRACING_V2")


def watched() -> bool:
    """True when a parent streams subgraphs in a mode that shows steps, or a tracer or callback listens."""
    if any(os.environ.get(name, "").lower() in ("1", "true") for name in TRACING_ENV):
        return True
    try:
        from langgraph.config import get_config

        config = get_config()
    except (ImportError, RuntimeError):  # outside any graph: nothing to watch it from
        return False
    stream = config.get("configurable", {}).get(CONFIG_KEY_STREAM)
    if stream is not None and set(getattr(stream, "modes", ())) & STEP_MODES:
        return True
    callbacks = config.get("callbacks")
    return bool(getattr(callbacks, "handlers", callbacks))
