"""Whether anyone watches a run step by step: then loops and calls go through LangGraph and LangChain.

Karaka's own ingestion runs stream only ``custom`` events (progress) and say so in their config
(``PROGRESS_ONLY``, a configurable key, which LangGraph hands on to every node and subgraph).
Any other graph run may be watched: Studio streams ``updates``, ``values``, ``messages`` or
``debug`` with subgraphs, a user's ``invoke`` wants values, and LangSmith traces every call. A
watched run gets the LangGraph child per GSV-Retry loop and LangChain's run per call; an
unwatched one skips both (``karaka.gsv.run.run_loop``, ``karaka.models.call``).
"""

from __future__ import annotations

import os
from typing import Any

PROGRESS_ONLY = "karaka_progress_only"
"""The configurable key of a run whose caller streams only its progress events (no steps)."""
TRACING_ENV = ("LANGSMITH_TRACING", "LANGCHAIN_TRACING_V2", "LANGSMITH_TRACING_V2")


def progress_only(config: dict[str, Any]) -> dict[str, Any]:
    """``config`` for a run whose caller streams only progress: its loops may be walked directly."""
    return {**config, "configurable": {**config.get("configurable", {}), PROGRESS_ONLY: True}}


def watched() -> bool:
    """True inside a graph run not marked ``progress_only``, or when a tracer or callback listens."""
    if any(os.environ.get(name, "").lower() in ("1", "true") for name in TRACING_ENV):
        return True
    try:
        from langgraph.config import get_config

        config = get_config()
    except (ImportError, RuntimeError):  # outside any graph: nothing to watch it from
        return False
    callbacks = config.get("callbacks")
    if getattr(callbacks, "handlers", callbacks):
        return True
    return not config.get("configurable", {}).get(PROGRESS_ONLY)
