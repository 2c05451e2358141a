"""Questions over HTTP: the query runs on a thread that stops when its client leaves; SSE events."""

from __future__ import annotations

import asyncio
import json
import logging
import threading
from collections.abc import AsyncIterator, Awaitable, Callable, Iterator
from typing import Any

from fastapi import Request

from karaka.app import runner
from karaka.app.http.metrics import Metrics, Timer
from karaka.config import Context

log = logging.getLogger("karaka.api")


async def threaded(events: Callable[[], Iterator[dict[str, Any]]]) -> AsyncIterator[dict[str, Any]]:
    """Iterate ``events()`` on a thread and yield its items here, ending with its error if any.

    When the consumer goes away (the client disconnected), the thread stops at its next event, and
    work still waiting for a thread never starts.
    """
    loop = asyncio.get_running_loop()
    queue: asyncio.Queue[dict[str, Any] | None] = asyncio.Queue()
    stop = threading.Event()

    def push(item: dict[str, Any] | None) -> None:
        if not loop.is_closed():
            loop.call_soon_threadsafe(queue.put_nowait, item)

    def work() -> None:
        try:
            if stop.is_set():
                return
            source = events()
            for item in source:
                if stop.is_set():
                    close = getattr(source, "close", None)
                    if close is not None:
                        close()
                    return
                push(item)
        except Exception as exc:  # noqa: BLE001 - turned into an error event
            log.exception("streamed work failed")
            push({"event": "error", "error": str(exc) or type(exc).__name__})
        finally:
            push(None)

    future: Awaitable[None] = loop.run_in_executor(None, work)
    try:
        while (item := await queue.get()) is not None:
            yield item
        await future
    finally:
        stop.set()


async def _gone(request: Request) -> None:
    """Return once the client of ``request`` has disconnected."""
    while not await request.is_disconnected():
        await asyncio.sleep(0.25)


async def answer_while_connected(request: Request, ctx: Context, question: str,
                                  thread: str | None, metrics: Metrics) -> dict[str, Any] | None:
    """The query's result, or None when the client left first (its work then stops)."""

    async def collect() -> dict[str, Any]:
        result: dict[str, Any] = {}
        timer, timings = Timer(), {}
        async for event in threaded(lambda: runner.stream_query(ctx, question, thread)):
            if event.get("event") == "result":
                result = event["result"]
            elif event.get("event") == "timings":
                timings = event["timings"]
            elif event.get("event") == "error":
                raise RuntimeError(event["error"])
        metrics.question({**result, "timings": timings}, timer())
        return result

    answer, gone = asyncio.ensure_future(collect()), asyncio.ensure_future(_gone(request))
    done, _ = await asyncio.wait({answer, gone}, return_when=asyncio.FIRST_COMPLETED)
    for task in (answer, gone):
        if task not in done:
            task.cancel()
    return answer.result() if answer in done else None


async def chat_events(ctx: Context, question: str, thread: str | None,
                       metrics: Metrics) -> AsyncIterator[dict[str, str]]:
    """A question's events as SSE: ``token``, ``reset``, ``error``, then ``done`` with the result."""
    timer, timings = Timer(), {}
    async for event in threaded(lambda: runner.stream_query(ctx, question, thread)):
        kind = event.get("event")
        if kind == "timings":
            timings = event["timings"]
        elif kind == "token":
            yield {"event": "token", "data": json.dumps({"text": event["text"]}, ensure_ascii=False)}
        elif kind == "reset":
            yield {"event": "reset", "data": json.dumps({"reason": event.get("reason", "")}, ensure_ascii=False)}
        elif kind == "error":
            metrics.question_failures.inc()
            yield {"event": "error", "data": json.dumps({"error": event["error"]}, ensure_ascii=False)}
        elif kind == "result":
            result = event["result"]
            metrics.question({**result, "timings": timings}, timer())
            yield {"event": "done", "data": json.dumps({
                "text": result.get("answer", ""), "sources": result.get("citations", []), "thread_id": thread,
                "status": result.get("status"), "result": result}, ensure_ascii=False)}
