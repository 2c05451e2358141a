"""Run the graphs with the workspace's SQLite checkpointer (CLI, notebook facade, HTTP)."""

from __future__ import annotations

import hashlib
from collections.abc import Callable, Iterator
from contextlib import ExitStack, contextmanager
from pathlib import Path
from typing import Any

from langgraph.checkpoint.sqlite import SqliteSaver

from karaka.config import Context, context_from
from karaka.graphs.ingest import RECURSION_LIMIT, build_ingest_graph
from karaka.graphs.query import build_query_graph
from karaka.services import get_services

Listener = Callable[[dict[str, Any]], None]


@contextmanager
def checkpointer(ctx: Context) -> Iterator[SqliteSaver]:
    """The workspace's SQLite checkpointer."""
    path = get_services(ctx).workspace.checkpoints_path
    with SqliteSaver.from_conn_string(str(path)) as saver:
        yield saver


def ingest_thread(ctx: Context, path: str | Path) -> str:
    """The same command gets the same thread, so re-running it resumes."""
    key = f"{Path(ctx.workspace).resolve()}|{Path(path).resolve()}"
    return "ingest-" + hashlib.sha256(key.encode()).hexdigest()[:16]


STAGES = ("load", "embed", "extract", "progress", "write", "post_process", "report")


def run_ingest(ctx: Context, path: str | Path, on_event: Listener | None = None,
               thread_id: str | None = None, stop_after: str | None = None) -> dict[str, Any]:
    """Ingest ``path``; an interrupted run with the same thread resumes where it stopped.

    ``stop_after`` (``embed``, ``write`` or ``post_process``) pauses the run after that stage,
    checkpointed; the next call resumes it. A stage already passed is not run again, so a
    notebook cell that runs one step can be re-run safely.
    """
    if not Path(path).exists():
        raise FileNotFoundError(f"{path}: no such file or directory")
    if stop_after is not None and stop_after not in STAGES:
        raise ValueError(f"stop_after must be one of {STAGES}, got {stop_after!r}")
    ctx = context_from(ctx)
    with checkpointer(ctx) as saver:
        interrupt: Any = [stop_after] if stop_after else None
        graph = build_ingest_graph().compile(checkpointer=saver, interrupt_after=interrupt)
        config: Any = {"configurable": {"thread_id": thread_id or ingest_thread(ctx, path)},
                       "recursion_limit": RECURSION_LIMIT, "max_concurrency": ctx.concurrency}
        snapshot = graph.get_state(config)
        pending = snapshot.next
        if pending and stop_after and min(STAGES.index(n) for n in pending) > STAGES.index(stop_after):
            return _paused(ctx, snapshot)
        inputs: Any = None if pending else {"path": str(path)}
        if pending and on_event:
            on_event({"event": "resume", "next": list(pending)})
        for mode, chunk in graph.stream(inputs, config, context=ctx, stream_mode=["custom", "updates"]):
            if mode == "custom" and on_event:
                on_event(chunk)  # type: ignore[arg-type]
        snapshot = graph.get_state(config)
        if snapshot.next:
            return _paused(ctx, snapshot)
    return dict(snapshot.values.get("report") or {})


def _paused(ctx: Context, snapshot: Any) -> dict[str, Any]:
    ws = get_services(ctx).workspace
    return {"paused": True, "next": sorted(set(snapshot.next), key=STAGES.index), "doc_ids": snapshot.values.get("doc_ids", []),
            "graph": ws.graph.stats(), "vectors": len(ws.vectors)}


def stream_query(ctx: Context, question: str, thread_id: str | None = None) -> Iterator[dict[str, Any]]:
    """Answer a question, yielding custom events (``token``, ``reset``, …) and finally ``{"event": "result"}``.

    With a thread id the conversation is kept in the workspace checkpointer, so a follow-up
    ("and who gave it to him?") can refer to the previous turn.
    """
    ctx = context_from(ctx)
    with ExitStack() as stack:
        if thread_id is None:
            graph = build_query_graph().compile()
            config: Any = {}
        else:
            saver = stack.enter_context(checkpointer(ctx))
            graph = build_query_graph().compile(checkpointer=saver)
            config = {"configurable": {"thread_id": thread_id}}
        result: dict[str, Any] = {}
        for mode, chunk in graph.stream({"question": question}, config, context=ctx, stream_mode=["custom", "values"]):
            if mode == "custom":
                yield chunk  # type: ignore[misc]
            elif isinstance(chunk, dict) and "result" in chunk:
                result = chunk["result"]
        yield {"event": "result", "result": dict(result)}


def run_query(ctx: Context, question: str, thread_id: str | None = None,
              on_event: Listener | None = None) -> dict[str, Any]:
    """Answer a question; a thread id keeps the conversation for follow-ups."""
    result: dict[str, Any] = {}
    for event in stream_query(ctx, question, thread_id):
        if event.get("event") == "result":
            result = event["result"]
        elif on_event is not None:
            on_event(event)
    return result
