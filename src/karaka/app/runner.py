"""Run the graphs with the workspace's checkpointer (CLI, notebook facade, HTTP).

Ingestion runs in a store session: a workspace directory lets one writer process in at a time for
the whole run; a PostgreSQL store lets many workers in at once, each on its own checkpoint thread,
sharing the units through claims. Every run starts with a consistency check; a finished run keeps
only its newest checkpoint. Questions without a thread keep no checkpoint at all; a thread keeps
only its newest checkpoint (its last turns), written once per question.
"""

from __future__ import annotations

import hashlib
import logging
import time
from collections.abc import Callable, Iterator
from dataclasses import replace
from pathlib import Path
from typing import Any

from karaka.answering import web
from karaka.config import Context, check_ingest_settings, context_from, remember_models
from karaka.loading.web import is_url
from karaka.services import get_services
from karaka.store.checkpoints import close_savers, open_saver, prune_thread
from karaka.watch import progress_only

notice = logging.getLogger("karaka.notice")

Listener = Callable[[dict[str, Any]], None]
STAGES = ("load", "embed", "extract", "progress", "write", "post_process", "report")


def checkpointer(ctx: Context) -> Any:
    """The store's checkpointer (SQLite in a workspace directory, PostgresSaver in a database)."""
    return open_saver(get_services(ctx).workspace)


def close_checkpointers() -> None:
    """Close every cached checkpointer connection (tests, shutdown)."""
    close_savers()


def ingest_thread(ctx: Context, path: str | Path, kind: str = "ingest") -> str:
    """The same command gets the same thread, so re-running it resumes."""
    key = f"{get_services(ctx).workspace.location}|{Path(path).resolve()}"
    return f"{kind}-" + hashlib.sha256(key.encode()).hexdigest()[:16]


def _stream(graph: Any, inputs: Any, config: Any, ctx: Context, modes: list[str]) -> Iterator[tuple[str, Any]]:
    """(mode, chunk) of a run, subgraphs included (the GSV loop's events come from inside).

    A run streamed for its progress alone is marked so (``watch.progress_only``): its loops are walked.
    """
    if modes == ["custom"]:
        config = progress_only(config)
    for _, mode, chunk in graph.stream(inputs, config, context=ctx, stream_mode=modes, subgraphs=True):
        yield mode, chunk


def run_repair(ctx: Context, on_event: Listener | None = None) -> dict[str, Any]:
    """Rebuild what the graph and the vectors lack from the records.

    The ingestion graph runs over the stored documents that are not complete, reading no source
    file: their sentences, unit results and decisions are in the records.
    """
    ctx = context_from(ctx)
    root = get_services(ctx).workspace.root
    return run_ingest(ctx, root, on_event, thread_id=ingest_thread(ctx, root, "repair"), repair=True)


def stage_urls(ctx: Context, urls: list[str]) -> Path:
    """Fetch web pages into WORKSPACE/fetched/<id of the URL list>/ (see ``loading.web``); the folder to ingest.

    The same URLs stage into the same folder, so an interrupted run over them resumes.
    """
    from karaka.loading.web import stage

    ctx = context_from(ctx)
    folder = Path(ctx.workspace) / "fetched" / hashlib.sha1("\n".join(urls).encode()).hexdigest()[:12]
    return stage(urls, folder, allow_private=ctx.allow_private_urls, max_bytes=ctx.url_max_bytes,
                 timeout=ctx.url_timeout)


def run_ingest(ctx: Context, path: str | Path, on_event: Listener | None = None, thread_id: str | None = None,
               stop_after: str | None = None, root: str | Path | None = None, replace: bool = False,
               repair: bool = False) -> dict[str, Any]:
    """Ingest ``path``; an interrupted run with the same thread resumes where it stopped.

    ``stop_after`` (``embed``, ``write`` or ``post_process``) pauses the run after that stage,
    checkpointed; the next call resumes it. ``root`` confines every file found (symlinks
    resolved) to a folder; ``replace`` lets a new source take over a document of the same name.
    ``repair`` (see ``run_repair``) reads no file.
    """
    if is_url(str(path)):
        path = stage_urls(ctx, [str(path)])
    if not Path(path).exists():
        raise FileNotFoundError(f"{path}: no such file or directory")
    if stop_after is not None and stop_after not in STAGES:
        raise ValueError(f"stop_after must be one of {STAGES}, got {stop_after!r}")
    from karaka.graphs.ingest import RECURSION_LIMIT, build_ingest_graph  # a question never loads the ingestion side
    from karaka.nodes.ingest import window

    ctx = context_from(ctx)
    check_ingest_settings(ctx)
    workspace = get_services(ctx).workspace
    with workspace.session(thread_id or ingest_thread(ctx, path), f"ingest {Path(path).name}") as thread:
        with workspace.writing("consistency check"):
            workspace.requeue_incomplete()
        interrupt: Any = [stop_after] if stop_after else None
        saver = checkpointer(ctx)
        graph = build_ingest_graph().compile(checkpointer=saver, interrupt_after=interrupt)
        # LangGraph hangs when max_concurrency is 1 and a step has several tasks (the GSV loop always
        # has: three scores), so it gets at least 2; --concurrency 1 sends one unit task per round.
        config: Any = {"configurable": {"thread_id": thread},
                       "recursion_limit": RECURSION_LIMIT, "max_concurrency": max(2, ctx.concurrency)}
        snapshot = graph.get_state(config)
        # Tasks left to run, those that finished before an interruption included: after Ctrl-C the
        # worker threads finish and save their writes, so ``next`` is empty though the step never ended.
        pending = tuple(task.name for task in snapshot.tasks)
        planned = snapshot.values.get("window")
        if pending and planned is not None and planned != window(ctx):
            notice.info("the interrupted run read %d sentences a unit and this one reads %d: starting afresh "
                        "(finished units of the same size are kept)", planned, window(ctx))
            saver.delete_thread(thread)
            snapshot, pending = graph.get_state(config), ()
        if not pending and snapshot.values:
            saver.delete_thread(thread)  # the same command after a finished run: a new run, clean state
        if pending and stop_after and min(STAGES.index(n) for n in pending) > STAGES.index(stop_after):
            return _paused(ctx, snapshot)
        inputs: Any = None if pending else {"path": str(path), "root": str(root) if root else None, "replace": replace,
                                            "repair": repair}
        if pending and on_event:
            on_event({"event": "resume", "next": list(pending)})
        for _, chunk in _stream(graph, inputs, config, ctx, ["custom"]):
            if on_event:
                on_event(chunk)
        snapshot = graph.get_state(config)
        remember_models(ctx)  # only a run that worked with them binds the workspace to its models
        if snapshot.tasks:
            return _paused(ctx, snapshot)
        prune_thread(saver, thread)  # finished: its steps are no longer needed to resume
    return dict(snapshot.values.get("report") or {})


def _paused(ctx: Context, snapshot: Any) -> dict[str, Any]:
    ws = get_services(ctx).workspace
    return {"paused": True, "next": sorted({task.name for task in snapshot.tasks}, key=STAGES.index),
            "doc_ids": snapshot.values.get("doc_ids", []), "graph": ws.graph.stats(), "vectors": len(ws.vectors)}


def stream_query(ctx: Context, question: str, thread_id: str | None = None) -> Iterator[dict[str, Any]]:
    """Answer a question, yielding custom events (``token``, ``reset``, …) and finally ``{"event": "result"}``.

    With a thread id the conversation is kept in the workspace checkpointer (its newest
    checkpoint only), so a follow-up ("and who gave it to him?") can refer to the previous turn.
    """
    from karaka.graphs.query import build_query_graph

    ctx = context_from(ctx)
    if thread_id is None:
        graph = build_query_graph().compile()
        config: Any = {}
        durability: Any = None
    else:
        saver = checkpointer(ctx)
        graph = build_query_graph().compile(checkpointer=saver)
        config, durability = {"configurable": {"thread_id": thread_id}}, "exit"
    result: dict[str, Any] = {}
    timings: dict[str, float] = {}
    last = time.perf_counter()
    stream = graph.stream({"question": question}, config, context=ctx, stream_mode=["custom", "values", "updates"],
                          subgraphs=True, durability=durability)
    for namespace, mode, chunk in stream:
        if mode == "custom" and isinstance(chunk, dict):
            yield chunk
        elif mode == "updates" and not namespace and isinstance(chunk, dict):
            now = time.perf_counter()
            for node in chunk:  # the time since the previous step, given to the node that ended it
                timings[node] = timings.get(node, 0.0) + (now - last) / len(chunk)
            last = now
        elif mode == "values" and not namespace and isinstance(chunk, dict) and "result" in chunk:
            result = chunk["result"]
    if thread_id is not None:
        prune_thread(saver, thread_id)
    yield {"event": "timings", "timings": timings}
    yield {"event": "result", "result": dict(result)}


def run_query(ctx: Context, question: str, thread_id: str | None = None,
              on_event: Listener | None = None, direct: bool = False) -> dict[str, Any]:
    """Answer a question; a thread id keeps the conversation for follow-ups.

    ``direct`` (a cold CLI process) walks the query graph's nodes without importing LangGraph
    when there is no LLM and no thread: the same nodes, routes and result (``graphs/direct.py``).
    """
    if direct and thread_id is None and get_services(ctx).llm is None:
        from karaka.graphs.direct import run_direct

        return run_direct(context_from(ctx), question, on_event)
    result: dict[str, Any] = {}
    for event in stream_query(ctx, question, thread_id):
        if event.get("event") == "result":
            result = event["result"]
        elif on_event is not None:
            on_event(event)
    return result


def _ingest_and_ask(ctx: Context, folder: Path, question: str) -> dict[str, Any]:
    """Ingest ``folder`` with the parser into ``ctx.workspace``, then answer ``question`` there (web search)."""
    run_ingest(replace(ctx, llm="none"), folder)
    return run_query(ctx, question)


web.set_answerer(_ingest_and_ask)
