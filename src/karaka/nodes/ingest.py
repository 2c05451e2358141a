"""Ingestion stages: load → embed and store → extract (loop) → write → post-process → report."""

from __future__ import annotations

import json
import sys
import time
import uuid
from typing import Any, Literal

import numpy as np
from langgraph.runtime import Runtime
from langgraph.types import Send

from karaka.config import Context
from karaka.loading import content_hash, load_and_refine_documents
from karaka.nodes import postprocess
from karaka.nodes.common import emit, services_of
from karaka.nodes.units import pending_units, total_units
from karaka.nodes.write import write_document
from karaka.state.ingest import IngestState, UnitArgs
from karaka.store.atomic import atomic_write_text
from karaka.store.workspace import REPORT_FILE

EMBED_BATCH = 256
BATCH_UNITS = 8  # units per worker under --strategy batched


def load(state: IngestState, runtime: Runtime[Context]) -> dict[str, Any]:
    """Load documents; unchanged ones (same content hash) need no work at all."""
    services = services_of(runtime)
    ws, records = services.workspace, services.workspace.records
    loaded = load_and_refine_documents(state["path"], services.ctx.max_line_chars)
    todo, unchanged = [], []
    for doc_id, lines in loaded.docs.items():
        digest = content_hash(lines)
        old = records.document(doc_id)
        if old is not None and old["sha256"] == digest and old["status"] == "done":
            unchanged.append(doc_id)
            continue
        if old is not None and old["sha256"] != digest:
            ws.remove_document(doc_id)  # a changed document replaces its old nodes and edges
        records.put_document(doc_id, loaded.sources[doc_id], digest, lines,
                             old["status"] if old and old["sha256"] == digest else "loaded")
        todo.append(doc_id)
    for doc_id in unchanged:
        print(f"   ↻ unchanged, skipped: {doc_id}", file=sys.stderr)  # stdout stays clean for --json
    run_id = uuid.uuid4().hex[:12]
    records.start_run(run_id)
    emit(runtime, {"event": "stage", "stage": "load", "documents": len(todo), "unchanged": len(unchanged),
                   "skipped": len(loaded.skipped)})
    return {"run_id": run_id, "doc_ids": todo, "unchanged": unchanged, "skipped": loaded.skipped,
            "warnings": loaded.warnings, "started": time.time(), "units_done": 0,
            "units_total": total_units(records, todo, services.ctx.window if services.ctx.extractor == "llm" else 1)}


def embed(state: IngestState, runtime: Runtime[Context]) -> dict[str, Any]:
    """Document nodes and FAISS vectors for every line not yet embedded."""
    services = services_of(runtime)
    ws = services.workspace
    for doc_id in state["doc_ids"]:
        lines = ws.records.lines(doc_id)
        with ws.lock:
            for n, text in enumerate(lines, 1):
                ws.graph.add_document(doc_id, n, text)
            have = set(ws.vectors.lines_of(doc_id))
            missing = [n for n in range(1, len(lines) + 1) if n not in have]
            for start in range(0, len(missing), EMBED_BATCH):
                chunk = missing[start : start + EMBED_BATCH]
                vectors = np.asarray(services.embeddings.embed_documents([lines[n - 1] for n in chunk]))
                ws.vectors.add(doc_id, chunk, vectors)
        ws.records.set_status(doc_id, "embedded")
    ws.flush()
    emit(runtime, {"event": "stage", "stage": "embed", "documents": len(state["doc_ids"])})
    return {}


def _window(ctx: Context) -> int:
    return ctx.window if ctx.extractor == "llm" else 1


def route_extract(state: IngestState, runtime: Runtime[Context]) -> list[Send] | Literal["write"]:
    """Send the next round of pending units to workers, or move on to writing."""
    services = services_of(runtime)
    ctx = services.ctx
    per_worker = BATCH_UNITS if (ctx.strategy == "batched" and ctx.extractor == "llm") else 1
    units = pending_units(services.workspace.records, state["doc_ids"], _window(ctx),
                          limit=per_worker * ctx.concurrency * 4)
    if not units:
        return "write"
    return [Send("extract", UnitArgs(run_id=state["run_id"], units=units[i : i + per_worker]))
            for i in range(0, len(units), per_worker)]


def progress(state: IngestState, runtime: Runtime[Context]) -> dict[str, Any]:
    """Join point after each round; reports progress."""
    emit(runtime, {"event": "progress", "done": state.get("units_done", 0),
                   "total": state.get("units_total", 0)})
    return {}


def write(state: IngestState, runtime: Runtime[Context]) -> dict[str, Any]:
    """Apply every golden result to the graph (idempotent) and save it."""
    services = services_of(runtime)
    ws = services.workspace
    failures = []
    with ws.lock:
        for doc_id in state["doc_ids"]:
            failures += write_document(ws, doc_id, _window(services.ctx))
            ws.records.set_status(doc_id, "written")
        ws.flush()
    if failures:
        ws.log_failure({"run_id": state["run_id"], "stage": "write", "failures": failures})
    emit(runtime, {"event": "stage", "stage": "write", "failures": len(failures)})
    return {}


STEPS = (
    ("coreference", postprocess.resolve_coreferences),
    ("metaphors", postprocess.link_metaphors),
    ("entity_types", postprocess.type_entities),
    ("causality", postprocess.find_causes),
)


def post_process(state: IngestState, runtime: Runtime[Context]) -> dict[str, Any]:
    """Run each enabled step; every LLM decision is memoised, so a resume repeats none."""
    services = services_of(runtime)
    ws = services.workspace
    results: dict[str, Any] = {}
    for name, step in STEPS:
        if not getattr(services.ctx, name):
            results[name] = "off"
            continue
        if services.llm is None and name == "metaphors":
            results[name] = "skipped: needs an LLM"
            continue
        with ws.lock:
            count = sum(step(services, doc_id, state["run_id"]) for doc_id in state["doc_ids"])
        results[name] = {"count": count, "method": "llm" if services.llm is not None else "heuristic"}
        emit(runtime, {"event": "stage", "stage": f"post:{name}", "count": count})
    with ws.lock:
        for doc_id in state["doc_ids"]:
            ws.records.set_status(doc_id, "done")
        ws.flush()
    return {"report": {"post_processing": results}}


def report(state: IngestState, runtime: Runtime[Context]) -> dict[str, Any]:
    """Build, print and save the final report."""
    from karaka.nodes.reporting import build_report

    services = services_of(runtime)
    body = build_report(services, state)
    atomic_write_text(services.workspace.root / REPORT_FILE, json.dumps(body, indent=2, ensure_ascii=False))
    services.workspace.records.finish_run(state["run_id"], body)
    emit(runtime, {"event": "report", "run_id": state["run_id"]})
    return {"report": body}

