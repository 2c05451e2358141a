"""The HTTP API: ``/chat``, ``/chat/stream`` (SSE), ``/ingest``, ``/runs/{id}``, ``/health``.

``create_app(ctx)`` builds the app for ``karaka serve``; the module-level ``app`` is the same
app configured from env ``KARAKA_*``, which ``langgraph dev`` mounts through langgraph.json's
``http.app`` so one server offers both the LangGraph API and ``/chat``.
"""

from __future__ import annotations

import asyncio
import hmac
import json
import logging
import re
import threading
import time
import uuid
from collections.abc import AsyncIterator, Awaitable, Callable, Iterator
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from fastapi import FastAPI, HTTPException, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse
from pydantic import BaseModel, ConfigDict, Field, ValidationError
from sse_starlette.sse import EventSourceResponse
from starlette.concurrency import run_in_threadpool
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from karaka import __version__
from karaka.config import Context, resolve_context
from karaka.runner import run_ingest, run_query, stream_query
from karaka.services import get_services

log = logging.getLogger("karaka.api")

MAX_REQUEST_BYTES = 20 * 1024 * 1024
MAX_QUESTION_CHARS = 4000
_SAFE_NAME = re.compile(r"[^A-Za-z0-9._-]+")


class ChatMessage(BaseModel):
    """One message of a chat history; only the last user message is asked."""

    model_config = ConfigDict(extra="ignore")
    role: str = "user"
    content: str = Field(max_length=MAX_QUESTION_CHARS)


class ChatRequest(BaseModel):
    """``{"messages": "<text>", "thread_id"?: "..."}`` (a list of role/content messages also works)."""

    model_config = ConfigDict(extra="forbid")
    messages: str | list[ChatMessage] = Field(max_length=MAX_QUESTION_CHARS)
    thread_id: str | None = Field(default=None, max_length=128, pattern=r"^[A-Za-z0-9_.:-]+$")

    def question(self) -> str:
        if isinstance(self.messages, str):
            text = self.messages
        else:
            users = [m.content for m in self.messages if m.role in ("user", "human")]
            text = users[-1] if users else ""
        if not text.strip():
            raise HTTPException(422, "messages: the question is empty")
        return text.strip()


class IngestRequest(BaseModel):
    """``{"paths": ["docs/a.txt", ...]}``, relative to the configured ingest root."""

    model_config = ConfigDict(extra="forbid")
    paths: list[str] = Field(min_length=1, max_length=100)


@dataclass
class Run:
    """An ingestion run started over HTTP."""

    id: str
    paths: list[str]
    status: str = "queued"
    events: list[dict[str, Any]] = field(default_factory=list)
    done: int = 0
    total: int = 0
    report: dict[str, Any] | None = None
    error: str | None = None
    started: float = field(default_factory=time.time)
    finished: float | None = None

    def view(self) -> dict[str, Any]:
        return {"run_id": self.id, "status": self.status, "paths": self.paths,
                "progress": {"done": self.done, "total": self.total}, "report": self.report,
                "error": self.error, "started": self.started, "finished": self.finished}

    @classmethod
    def from_view(cls, view: dict[str, Any]) -> Run:
        """A finished run back from its stored ``view()``."""
        run = cls(id=view["run_id"], paths=view["paths"], status=view["status"], report=view["report"],
                  error=view["error"], started=view["started"], finished=view["finished"],
                  done=view["progress"]["done"], total=view["progress"]["total"])
        run.events.append({"event": "done", "status": run.status})
        return run


class Runs:
    """Ingestion runs, one at a time on a worker thread (they share the workspace)."""

    def __init__(self, ctx: Context):
        self.ctx = ctx
        self.runs: dict[str, Run] = {}
        self.lock = threading.Lock()
        self.pool = ThreadPoolExecutor(max_workers=1, thread_name_prefix="karaka-ingest")

    def start(self, paths: list[Path], staged: Path | None = None) -> Run:
        run = Run(id=uuid.uuid4().hex[:12], paths=[str(p) for p in paths])
        with self.lock:
            self.runs[run.id] = run
        self.pool.submit(self._work, run, paths, staged)
        return run

    def _record(self, run: Run, event: dict[str, Any]) -> None:
        with self.lock:
            if event.get("event") == "progress":
                run.done, run.total = int(event.get("done", 0)), int(event.get("total", 0))
            run.events.append(event)

    def _work(self, run: Run, paths: list[Path], staged: Path | None) -> None:
        run.status = "running"
        records = get_services(self.ctx).workspace.records
        records.start_run(f"http-{run.id}")
        reports, errors = [], []
        for path in ([staged] if staged else paths):
            try:
                reports.append(run_ingest(self.ctx, path, on_event=lambda e: self._record(run, e)))
            except Exception as exc:  # noqa: BLE001 - reported on the run, the server carries on
                log.exception("ingest run %s failed on %s", run.id, path)
                errors.append(f"{path.name}: {exc}")
        with self.lock:
            run.report = reports[-1] if len(reports) == 1 else {"reports": reports} if reports else None
            run.error = "; ".join(errors) or None
            failures = sum(len(r.get("failures", [])) + len(r.get("skipped_files", [])) for r in reports)
            run.status = "failed" if errors and not reports else "finished_with_failures" if errors or failures else "finished"
            run.finished = time.time()
            run.events.append({"event": "done", "status": run.status})
        records.finish_run(f"http-{run.id}", run.view())  # GET /runs/{id} still answers after a restart

    def get(self, run_id: str) -> Run | None:
        with self.lock:
            run = self.runs.get(run_id)
        if run is None and re.fullmatch(r"[0-9a-f]{12}", run_id):
            row = get_services(self.ctx).workspace.records.run(f"http-{run_id}")
            if row and row["report"]:
                run = Run.from_view(row["report"])
        return run


class BodyLimit:
    """Reject request bodies over ``limit`` bytes with 413 (declared or streamed)."""

    def __init__(self, app: ASGIApp, limit: int):
        self.app, self.limit = app, limit

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        declared = dict(scope.get("headers") or []).get(b"content-length")
        if declared is not None and declared.isdigit() and int(declared) > self.limit:
            await _too_large(send, self.limit)
            return
        seen = 0

        async def limited() -> Message:
            nonlocal seen
            message = await receive()
            seen += len(message.get("body", b""))
            if seen > self.limit:
                raise _BodyTooLarge
            return message

        try:
            await self.app(scope, limited, send)
        except _BodyTooLarge:
            await _too_large(send, self.limit)


class _BodyTooLarge(Exception):
    pass


async def _too_large(send: Send, limit: int) -> None:
    body = json.dumps({"error": f"request body is larger than {limit} bytes"}).encode()
    await send({"type": "http.response.start", "status": 413,
                "headers": [(b"content-type", b"application/json"), (b"content-length", str(len(body)).encode())]})
    await send({"type": "http.response.body", "body": body})


def _field_errors(exc: ValidationError | RequestValidationError) -> str:
    parts = []
    for err in exc.errors():
        where = ".".join(str(p) for p in err.get("loc", ()) if p != "body") or "body"
        parts.append(f"{where}: {err.get('msg')}")
    return "; ".join(parts)


def _confine(root: Path, raw: str) -> Path:
    """Resolve ``raw`` inside ``root`` (symlinks followed) or refuse with 403."""
    candidate = (root / raw).resolve()
    if candidate != root and root not in candidate.parents:
        raise HTTPException(403, f"paths: {raw!r} is outside the ingest root")
    if not candidate.exists():
        raise HTTPException(404, f"paths: {raw!r} does not exist under the ingest root")
    return candidate


async def _json_body(request: Request) -> Any:
    raw = await request.body()
    if not raw:
        raise HTTPException(400, "the request body is empty; send JSON")
    try:
        return json.loads(raw)
    except (json.JSONDecodeError, UnicodeDecodeError) as exc:
        raise HTTPException(400, f"malformed JSON: {exc}") from None


def _parse(model: type[BaseModel], data: Any) -> Any:
    try:
        return model.model_validate(data)
    except ValidationError as exc:
        raise HTTPException(422, _field_errors(exc)) from None


def create_app(ctx: Context | None = None, *, ingest_root: str | Path | None = None, api_key: str | None = None,
               max_request_bytes: int = MAX_REQUEST_BYTES) -> FastAPI:
    """The Karaka HTTP app.

    Args:
        ctx: settings; None resolves env ``KARAKA_*`` and the workspace toml on first use.
        ingest_root: ``/ingest`` paths must lie inside it (default: ``ctx.ingest_root``, else the cwd).
        api_key: when set (default ``ctx.api_key``), write endpoints need ``Authorization: Bearer KEY``
            or ``X-API-Key: KEY``.
        max_request_bytes: larger request bodies get 413.
    """
    state: dict[str, Any] = {"ctx": ctx}

    def context() -> Context:
        if state["ctx"] is None:
            state["ctx"] = resolve_context()
        return state["ctx"]

    def runs() -> Runs:
        if "runs" not in state:
            state["runs"] = Runs(context())
        return state["runs"]

    def root() -> Path:
        return Path(ingest_root or context().ingest_root or Path.cwd()).resolve()

    def require_key(request: Request) -> None:
        key = api_key if api_key is not None else context().api_key
        if not key:
            return
        given = request.headers.get("x-api-key") or ""
        auth = request.headers.get("authorization") or ""
        if auth.lower().startswith("bearer "):
            given = auth[7:].strip()
        if not hmac.compare_digest(given.encode(), key.encode()):
            raise HTTPException(401, "this endpoint needs the API key (Authorization: Bearer KEY or X-API-Key)")

    app = FastAPI(title="Karaka", version=__version__,
                  description="Verified kāraka knowledge graphs with line-level citations.")

    @app.exception_handler(RequestValidationError)
    async def invalid(_: Request, exc: RequestValidationError) -> JSONResponse:
        return JSONResponse({"error": _field_errors(exc)}, status_code=422)

    @app.exception_handler(HTTPException)
    async def http_error(_: Request, exc: HTTPException) -> JSONResponse:
        return JSONResponse({"error": exc.detail}, status_code=exc.status_code)

    @app.get("/health")
    async def health() -> dict[str, Any]:
        return await run_in_threadpool(_health, await run_in_threadpool(context))

    @app.post("/chat")
    async def chat(request: Request) -> dict[str, Any]:
        body = _parse(ChatRequest, await _json_body(request))
        question, thread = body.question(), body.thread_id or uuid.uuid4().hex
        try:
            result = await run_in_threadpool(run_query, await run_in_threadpool(context), question, thread)
        except Exception as exc:  # noqa: BLE001 - a failed query must answer, not drop the connection
            log.exception("chat failed")
            raise HTTPException(500, f"the query failed: {exc}") from None
        return {"output": result, "thread_id": thread}

    @app.post("/chat/stream")
    async def chat_stream(request: Request) -> EventSourceResponse:
        body = _parse(ChatRequest, await _json_body(request))
        question, thread = body.question(), body.thread_id or uuid.uuid4().hex
        try:
            ctx = await run_in_threadpool(context)
        except ValueError as exc:
            raise HTTPException(500, f"bad server settings: {exc}") from None
        return EventSourceResponse(_chat_events(ctx, question, thread))

    @app.post("/ingest", status_code=202)
    async def ingest(request: Request) -> dict[str, Any]:
        await run_in_threadpool(require_key, request)
        kind = request.headers.get("content-type", "")
        ctx = await run_in_threadpool(context)
        if kind.startswith("multipart/form-data"):
            staged = await _stage_uploads(request, Path(ctx.workspace))
            run = (await run_in_threadpool(runs)).start([staged], staged)
        else:
            body = _parse(IngestRequest, await _json_body(request))
            base = await run_in_threadpool(root)
            paths = [await run_in_threadpool(_confine, base, raw) for raw in body.paths]
            run = (await run_in_threadpool(runs)).start(paths)
        return {"run_id": run.id, "status": run.status, "links": {"run": f"/runs/{run.id}",
                                                                   "stream": f"/runs/{run.id}/stream"}}

    @app.get("/runs/{run_id}")
    async def get_run(run_id: str) -> dict[str, Any]:
        run = await run_in_threadpool(lambda: runs().get(run_id))
        if run is None:
            raise HTTPException(404, f"run {run_id!r} not found")
        return run.view()

    @app.get("/runs/{run_id}/stream")
    async def stream_run(run_id: str) -> EventSourceResponse:
        registry = await run_in_threadpool(runs)
        run = await run_in_threadpool(registry.get, run_id)
        if run is None:
            raise HTTPException(404, f"run {run_id!r} not found")
        return EventSourceResponse(_run_events(registry, run))

    @app.delete("/documents/{doc_id}")
    async def remove(doc_id: str, request: Request) -> dict[str, Any]:
        await run_in_threadpool(require_key, request)
        return await run_in_threadpool(_remove, await run_in_threadpool(context), doc_id)

    app.add_middleware(BodyLimit, limit=max_request_bytes)  # type: ignore[arg-type]
    return app


def _health(ctx: Context) -> dict[str, Any]:
    ws = get_services(ctx).workspace
    return {"status": "ok", "version": __version__, "workspace": str(Path(ctx.workspace).resolve()),
            "llm": ctx.llm, "extractor": ctx.extractor, "documents": len(ws.records.documents()),
            "nodes": ws.graph.g.number_of_nodes()}


def _remove(ctx: Context, doc_id: str) -> dict[str, Any]:
    ws = get_services(ctx).workspace
    if ws.records.document(doc_id) is None:
        raise HTTPException(404, f"document {doc_id!r} not found")
    return {"removed": doc_id, **ws.remove_document(doc_id)}


async def _threaded(events: Callable[[], Iterator[dict[str, Any]]]) -> AsyncIterator[dict[str, Any]]:
    """Iterate ``events()`` on a thread and yield its items here, ending with its error if any."""
    loop = asyncio.get_running_loop()
    queue: asyncio.Queue[dict[str, Any] | None] = asyncio.Queue()

    def push(item: dict[str, Any] | None) -> None:
        loop.call_soon_threadsafe(queue.put_nowait, item)

    def work() -> None:
        try:
            for item in events():
                push(item)
        except Exception as exc:  # noqa: BLE001 - turned into an error event
            log.exception("streamed work failed")
            push({"event": "error", "error": str(exc) or type(exc).__name__})
        finally:
            push(None)

    future: Awaitable[None] = loop.run_in_executor(None, work)
    while (item := await queue.get()) is not None:
        yield item
    await future


async def _chat_events(ctx: Context, question: str, thread: str) -> AsyncIterator[dict[str, str]]:
    async for event in _threaded(lambda: stream_query(ctx, question, thread)):
        kind = event.get("event")
        if kind == "token":
            yield {"event": "token", "data": json.dumps({"text": event["text"]})}
        elif kind == "reset":
            yield {"event": "reset", "data": json.dumps({"reason": event.get("reason", "")})}
        elif kind == "error":
            yield {"event": "error", "data": json.dumps({"error": event["error"]})}
        elif kind == "result":
            result = event["result"]
            yield {"event": "done", "data": json.dumps({
                "text": result.get("answer", ""), "sources": result.get("citations", []), "thread_id": thread,
                "status": result.get("status"), "result": result}, ensure_ascii=False)}


async def _run_events(runs: Runs, run: Run) -> AsyncIterator[dict[str, str]]:
    """Replay a run's events from the start, then follow it until it ends."""
    sent = 0
    while True:
        with runs.lock:
            fresh, finished = run.events[sent:], run.finished is not None
        for event in fresh:
            yield {"event": str(event.get("event", "progress")), "data": json.dumps(event, default=str)}
        sent += len(fresh)
        if finished and sent >= len(run.events):
            yield {"event": "run", "data": json.dumps(run.view(), default=str)}
            return
        await asyncio.sleep(0.1)


async def _stage_uploads(request: Request, workspace: Path) -> Path:
    """Save multipart ``files`` into WORKSPACE/uploads/<id>/ with safe names."""
    form = await request.form()
    uploads = [f for f in form.getlist("files") if hasattr(f, "filename")]
    if not uploads:
        raise HTTPException(422, "files: send one or more files in the multipart field 'files'")
    target = workspace / "uploads" / uuid.uuid4().hex[:12]
    await run_in_threadpool(target.mkdir, parents=True, exist_ok=True)
    for upload in uploads:
        name = _SAFE_NAME.sub("_", Path(str(upload.filename or "upload.txt")).name).lstrip(".") or "upload.txt"
        data = await upload.read()  # type: ignore[union-attr]
        await run_in_threadpool((target / name).write_bytes, data)
    return target


app = create_app()
