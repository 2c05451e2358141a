"""The HTTP API: ``/chat`` and ``/chat/stream`` (SSE), ``/ingest``, ``/runs``, ``/documents``, ``/health``, ``/metrics``.

``create_app(ctx, server)`` builds the app for ``karaka serve``; the module-level ``app`` is the
same app configured from env ``KARAKA_*``, which ``langgraph dev`` mounts through langgraph.json's
``http.app`` so one server offers both the LangGraph API and ``/chat``.

With an API key set every endpoint but ``/health`` needs it, unless ``public_read`` lets anonymous
clients read (chat, runs, documents). Ingest paths, and every file found under them, must lie
inside the ingest root with symlinks resolved. Nothing the API returns names an absolute path of
the server.
"""

from __future__ import annotations

import asyncio
import hmac
import logging
import shutil
import sqlite3
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from dataclasses import replace as dc_replace
from pathlib import Path
from typing import Any

from fastapi import FastAPI, HTTPException, Request
from fastapi.exceptions import RequestValidationError
from fastapi.middleware.cors import CORSMiddleware
from fastapi.responses import JSONResponse, Response
from sse_starlette.sse import EventSourceResponse
from starlette.concurrency import run_in_threadpool

from karaka.app.http.answers import answer_while_connected, chat_events
from karaka.app.http.bodies import (
    confine,
    field_errors,
    json_body,
    parse,
    read_only,
    scrubbed,
    spoken_question,
    stage_uploads,
    unwritable,
)
from karaka.app.http.guard import Guard, split_setting
from karaka.app.http.limits import BodyLimit
from karaka.app.http.metrics import CONTENT_TYPE as METRICS_TYPE
from karaka.app.http.metrics import Metrics
from karaka.app.http.models import ChatRequest, IngestRequest
from karaka.app.http.runs import Runs
from karaka.config import Context, ServerSettings, resolve_context, resolve_server
from karaka.loading import Budget
from karaka.loading.web import is_url
from karaka.logs import attach_workspace_log
from karaka.services import get_services
from karaka.version import VERSION

log = logging.getLogger("karaka.api")
notice = logging.getLogger("karaka.notice")


def costs(ctx: Context, paths: list[Path]) -> dict[str, Any]:
    """The summed estimate of several paths, with the sentence a person reads (``text``)."""
    from karaka.estimate import describe, estimate

    found = [estimate(ctx, path) for path in paths]
    total = dict(found[0])
    for more in found[1:]:
        for key in ("documents", "lines", "extracted_lines", "requests", "extraction_requests",
                    "post_processing_requests", "prompt_tokens", "completion_tokens"):
            if key in total:
                total[key] += more.get(key, 0)
        total["seconds"] = None if total["seconds"] is None else total["seconds"] + (more["seconds"] or 0)
        total["skipped_files"] = total["skipped_files"] + more["skipped_files"]
    total["skipped_files"] = [{**s, "path": Path(s["path"]).name} for s in total["skipped_files"]]  # no server paths
    return {**total, "text": describe(total)}


def create_app(ctx: Context | None = None, server: ServerSettings | None = None, *,
               ingest_root: str | Path | None = None, api_key: str | None = None, public_read: bool | None = None,
               max_request_bytes: int | None = None) -> FastAPI:
    """The Karaka HTTP app.

    Args:
        ctx: graph settings; None resolves env ``KARAKA_*`` and the workspace toml on first use.
        server: server settings; None resolves env ``KARAKA_*``.
        ingest_root: overrides ``server.ingest_root``.
        api_key: overrides ``server.api_key``.
        public_read: overrides ``server.public_read``.
        max_request_bytes: overrides ``server.max_request_bytes``.
    """
    settings = server or resolve_server()
    overrides: dict[str, Any] = {k: v for k, v in {"ingest_root": str(ingest_root) if ingest_root else None, "api_key": api_key,
                                   "public_read": public_read, "max_request_bytes": max_request_bytes}.items()
                 if v is not None}
    settings = dc_replace(settings, **overrides)
    state: dict[str, Any] = {"ctx": ctx}
    metrics = Metrics()

    def context() -> Context:
        if state["ctx"] is None:
            state["ctx"] = resolve_context()
        if "log" not in state:
            attach_workspace_log(get_services(state["ctx"]).workspace.log_path)
            state["log"] = True
        return state["ctx"]  # type: ignore[no-any-return]

    def runs() -> Runs:
        if "runs" not in state:
            state["runs"] = Runs(context(), root(), metrics)
        return state["runs"]  # type: ignore[no-any-return]

    def root() -> Path:
        return Path(settings.ingest_root or Path.cwd()).resolve()

    def authorised(request: Request, write: bool) -> None:
        if not settings.api_key or (settings.public_read and not write):
            return
        given = request.headers.get("x-api-key") or ""
        auth = request.headers.get("authorization") or ""
        if auth.lower().startswith("bearer "):
            given = auth[7:].strip()
        if not hmac.compare_digest(given.encode(), settings.api_key.encode()):
            raise HTTPException(401, "this endpoint needs the API key (Authorization: Bearer KEY or X-API-Key)")

    @asynccontextmanager
    async def lifespan(_: FastAPI) -> AsyncIterator[None]:
        await run_in_threadpool(_warm)
        folding = asyncio.create_task(_fold_now_and_then(lambda: state.get("ctx")))
        yield
        folding.cancel()
        stopped = state["runs"].interrupt_all() if "runs" in state else []
        notice.warning("server stopping%s", f"; ingestion runs interrupted: {', '.join(stopped)} (GET /runs/ID "
                                            "says so; POST the same /ingest to resume)" if stopped else "")

    app = FastAPI(title="Karaka", version=VERSION, lifespan=lifespan,
                  description="Verified kāraka knowledge graphs with line-level citations.")
    app.state.karaka_context = context
    app.state.karaka_authorised = authorised

    @app.exception_handler(RequestValidationError)
    async def invalid(_: Request, exc: RequestValidationError) -> JSONResponse:
        return JSONResponse({"error": field_errors(exc)}, status_code=422)

    @app.exception_handler(HTTPException)
    async def http_error(_: Request, exc: HTTPException) -> JSONResponse:
        return JSONResponse({"error": exc.detail}, status_code=exc.status_code)

    @app.exception_handler(Exception)
    async def crashed(_: Request, exc: Exception) -> JSONResponse:
        if read_only(exc):
            return JSONResponse({"error": unwritable(exc).detail}, status_code=409)
        log.exception("request failed")
        return JSONResponse({"error": f"internal error: {type(exc).__name__}: {scrubbed(exc)} "
                                      "(the server's log has the details)"}, status_code=500)

    @app.get("/health")
    async def health() -> dict[str, Any]:
        return await run_in_threadpool(_health, await run_in_threadpool(context), settings)

    @app.post("/chat")
    async def chat(request: Request) -> dict[str, Any]:
        authorised(request, write=False)
        ctx = await run_in_threadpool(context)
        heard = None
        if request.headers.get("content-type", "").startswith("multipart/form-data"):
            heard, thread_id = await spoken_question(request, Path(ctx.workspace), Budget.of(ctx))
            body = parse(ChatRequest, {"messages": heard, "thread_id": thread_id})
        else:
            body = parse(ChatRequest, await json_body(request))
        question = body.question()
        try:
            result = await answer_while_connected(request, ctx, question, body.thread_id, metrics)
        except Exception as exc:  # noqa: BLE001 - a failed query must answer, not drop the connection
            log.exception("chat failed")
            metrics.question_failures.inc()
            raise HTTPException(500, f"the query failed: {scrubbed(exc)}") from None
        if result is None:  # nobody is listening any more
            raise HTTPException(499, "the client closed the connection")
        return {"output": result, "thread_id": body.thread_id, **({"heard": heard} if heard is not None else {})}

    @app.post("/chat/stream")
    async def chat_stream(request: Request) -> EventSourceResponse:
        authorised(request, write=False)
        body = parse(ChatRequest, await json_body(request))
        question = body.question()
        try:
            ctx = await run_in_threadpool(context)
        except ValueError as exc:
            raise HTTPException(500, f"bad server settings: {exc}") from None
        return EventSourceResponse(chat_events(ctx, question, body.thread_id, metrics))

    @app.post("/ingest", status_code=202)
    async def ingest(request: Request) -> dict[str, Any]:
        authorised(request, write=True)
        kind = request.headers.get("content-type", "")
        ctx = await run_in_threadpool(context)
        registry = await run_in_threadpool(runs)
        if kind.startswith("multipart/form-data"):
            try:
                staged, replace, names = await stage_uploads(request, Path(ctx.workspace))
            except OSError as exc:
                raise unwritable(exc) from None
            run = registry.start([staged], staged=staged, replace=replace, names=names)
        else:
            body = parse(IngestRequest, await json_body(request))
            if body.urls:
                bad = [u for u in body.urls if not is_url(u)]
                if bad:
                    raise HTTPException(422, f"urls: {bad[0]!r} is not an http(s) URL")
                run = registry.start([], replace=body.replace, urls=body.urls)  # fetched in the run, not here
            else:
                base = await run_in_threadpool(root)
                paths = [await run_in_threadpool(confine, base, raw) for raw in body.paths]
                run = registry.start(paths, replace=body.replace)
        return {"run_id": run.id, "status": run.status, "links": {"run": f"/runs/{run.id}",
                                                                   "stream": f"/runs/{run.id}/stream"}}

    @app.post("/estimate")
    async def estimate(request: Request) -> dict[str, Any]:
        """What ingesting these files would cost (lines, LLM requests, tokens, time); nothing is kept."""
        authorised(request, write=True)
        ctx = await run_in_threadpool(context)
        if request.headers.get("content-type", "").startswith("multipart/form-data"):
            try:
                staged, _, _ = await stage_uploads(request, Path(ctx.workspace))
            except OSError as exc:
                raise unwritable(exc) from None
            try:
                return await run_in_threadpool(costs, ctx, [staged])
            finally:
                await run_in_threadpool(shutil.rmtree, staged, True)
        body = parse(IngestRequest, await json_body(request))
        if body.urls:
            raise HTTPException(422, "urls: a web page's cost is known once it is fetched; estimate files or paths")
        base = await run_in_threadpool(root)
        return await run_in_threadpool(costs, ctx, [await run_in_threadpool(confine, base, raw) for raw in body.paths])

    @app.get("/metrics", include_in_schema=True)
    async def metrics_text(request: Request) -> Response:
        authorised(request, write=False)
        if "runs" in state:
            metrics.open_runs.set(state["runs"].open())
        return Response(metrics.text(), media_type=METRICS_TYPE)

    @app.get("/runs/{run_id}")
    async def get_run(run_id: str, request: Request) -> dict[str, Any]:
        authorised(request, write=False)
        run = await run_in_threadpool(lambda: runs().get(run_id))
        if run is None:
            raise HTTPException(404, f"run {run_id!r} not found")
        return run.view()

    @app.delete("/runs/{run_id}", status_code=202)
    async def cancel_run(run_id: str, request: Request) -> dict[str, Any]:
        authorised(request, write=True)
        registry = await run_in_threadpool(runs)
        run = await run_in_threadpool(registry.cancel, run_id)
        if run is None:
            raise HTTPException(404, f"run {run_id!r} not found")
        if run.finished is not None:
            raise HTTPException(409, f"run {run_id!r} has already ended ({run.status})")
        return {"run_id": run.id, "status": "cancelling"}

    @app.get("/runs/{run_id}/stream")
    async def stream_run(run_id: str, request: Request) -> EventSourceResponse:
        authorised(request, write=False)
        registry = await run_in_threadpool(runs)
        run = await run_in_threadpool(registry.get, run_id)
        if run is None:
            raise HTTPException(404, f"run {run_id!r} not found")
        return EventSourceResponse(registry.events(run))

    @app.get("/documents")
    async def documents(request: Request) -> dict[str, Any]:
        authorised(request, write=False)
        return await run_in_threadpool(_documents, await run_in_threadpool(context))

    @app.delete("/documents/{doc_id}")
    async def remove(doc_id: str, request: Request) -> dict[str, Any]:
        authorised(request, write=True)
        try:
            return await run_in_threadpool(_remove, await run_in_threadpool(context), doc_id)
        except (OSError, sqlite3.OperationalError) as exc:
            raise unwritable(exc) from None

    from karaka.app.http.views import add_views

    add_views(app, context, authorised, root)
    app.add_middleware(BodyLimit, limit=settings.max_request_bytes)  # type: ignore[arg-type]
    app.add_middleware(Guard, allowed_origins=split_setting(settings.allowed_origins),  # type: ignore[arg-type]
                       allowed_hosts=split_setting(settings.allowed_hosts))
    if settings.allowed_origins:  # pages of these origins may call the API from a browser (no cookies: a key)
        app.add_middleware(CORSMiddleware, allow_origins=list(split_setting(settings.allowed_origins)),  # type: ignore[arg-type]
                           allow_credentials=False, allow_methods=["GET", "POST", "DELETE"],
                           allow_headers=["Authorization", "X-API-Key", "Content-Type"])
    return app


FOLD_SECONDS = 60.0


async def _fold_now_and_then(ctx: Callable[[], Context | None]) -> None:
    """Fold karaka.db's write-ahead log every minute: a server killed with -9 then leaves little in it."""
    while True:
        await asyncio.sleep(FOLD_SECONDS)
        current = ctx()
        if current is not None and not current.store:
            try:
                await run_in_threadpool(_fold, current)
            except Exception:  # noqa: BLE001 - a busy or damaged file is named by the requests that use it
                log.debug("fold of karaka.db's log skipped", exc_info=True)


def _fold(ctx: Context) -> None:
    get_services(ctx).workspace.records.fold()


def _warm() -> None:
    """Load spaCy before the first request: two requests importing it at once can see it half-imported."""
    from karaka.nlp import nlp

    try:
        nlp()("Warm up the parser.")
    except ValueError as exc:  # no English model: the requests that need one will say so
        log.warning("spaCy not loaded at start: %s", exc)


def _health(ctx: Context, settings: ServerSettings) -> dict[str, Any]:
    ws = get_services(ctx).workspace
    with ws.reading():
        return {"status": "ok", "version": VERSION, "workspace": ws.root.name, "llm": ctx.llm,
                "extractor": ctx.extractor, "documents": len(ws.records.documents()), "nodes": len(ws.graph),
                "auth": "key" if settings.api_key else "none", "public_read": settings.public_read}


def _documents(ctx: Context) -> dict[str, Any]:
    ws = get_services(ctx).workspace
    with ws.reading():
        rows = ws.records.documents()
        return {"documents": [{"doc_id": r["doc_id"], "name": Path(r["path"]).name, "lines": r["n_lines"],
                               "status": r["status"], "updated": r["updated"],
                               "kriyas": len(ws.graph.kriyas_of(r["doc_id"]))} for r in rows]}


def _remove(ctx: Context, doc_id: str) -> dict[str, Any]:
    ws = get_services(ctx).workspace
    with ws.reading():
        known = ws.records.document(doc_id) is not None
    if not known:
        raise HTTPException(404, f"document {doc_id!r} not found")
    return {"removed": doc_id, **ws.remove_document(doc_id)}


app = create_app()
