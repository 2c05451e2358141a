"""Ingestion stages: load → embed and store → extract (loop) → write → post-process → report.

The runner holds the workspace's writer lock for the whole run; stages change the in-memory
graph inside ``mutating()`` and save with ``flush()``.
"""

from __future__ import annotations

import functools
import hashlib
import json
import logging
import time
import uuid
from collections.abc import Callable
from pathlib import Path
from typing import Any, Literal, TypeVar, cast

import numpy as np
from langgraph.runtime import Runtime
from langgraph.types import Send

from karaka.config import Context
from karaka.estimate import describe, for_lines
from karaka.gsv.run import Loop
from karaka.kg import enrich, retrieval
from karaka.kg.report import build_report
from karaka.kg.units import PARSED_LANGUAGES, extractable, sentences_of, units_between, units_in
from karaka.kg.write import write_document
from karaka.loading import Budget, LoadedDocument, content_hash, load_and_refine_documents
from karaka.loading.languages import NAMES
from karaka.nlp.ahead import BLOCK, MIN_SENTENCES, ahead
from karaka.nodes.common import emit, services_of
from karaka.services import Services
from karaka.state.ingest import IngestState, Unit, UnitArgs
from karaka.store.atomic import atomic_write_text
from karaka.store.base import DocStatus
from karaka.store.embedded.workspace import REPORT_FILE

log = logging.getLogger("karaka.ingest")
notice = logging.getLogger("karaka.notice")
EMBED_BATCH = 256
BATCH_UNITS = 8  # units per worker under --strategy batched
F = TypeVar("F", bound=Callable[..., Any])
PARSER_UNITS = 128  # sentences per worker under --extractor parser (parsed in one nlp.pipe batch)


MAX_SWEEPS = 2
LOOKAHEAD = 4096  # units a round may look past when other workers finished or hold them


def exclusive(stage: str) -> Callable[[F], F]:
    """Run a graph-changing stage under the store's writer lock, from the newest saved state.

    In a workspace directory the run's session already holds it; in a database store, workers
    take turns here while their extraction (the slow part) runs side by side.
    """

    def wrap(fn: F) -> F:
        @functools.wraps(fn)
        def node(state: IngestState, runtime: Runtime[Context]) -> dict[str, Any]:
            with services_of(runtime).workspace.writing(stage):
                return fn(state, runtime)  # type: ignore[no-any-return]

        return cast(F, node)

    return wrap


def window(ctx: Context) -> int:
    """Sentences per unit: the parser always reads one sentence per unit."""
    return ctx.window if ctx.extractor == "llm" else 1


def assign_id(services: Services, doc: LoadedDocument, taken: set[str], replace: bool) -> tuple[str, str | None]:
    """The document id for a file, and a note when it replaces another source's document.

    The same source keeps its id. A new source gets the name it asks for when that is free; when
    another source holds it, it gets the name plus a short hash of its path, unless ``replace``
    says to replace that document.
    """
    records = services.workspace.records
    known = records.document_by_path(doc.source)
    if known is not None:
        return known["doc_id"], None
    holder = records.document(doc.name)
    if doc.name not in taken and (holder is None or replace):
        note = f"{doc.name}: replaced the document from {Path(holder['path']).name}" if holder else None
        return doc.name, note
    suffix = hashlib.sha1(doc.source.encode()).hexdigest()
    for size in (6, 10, 40):
        candidate = f"{doc.name}-{suffix[:size]}"
        if candidate not in taken and records.document(candidate) is None:
            return candidate, None
    raise ValueError(f"{doc.source}: no free document id")  # pragma: no cover - 40 hex digits collide


@exclusive("load")
def load(state: IngestState, runtime: Runtime[Context]) -> dict[str, Any]:
    """Load documents, give each its id; unchanged ones (same content hash) need no work at all."""
    services = services_of(runtime)
    ws, records = services.workspace, services.workspace.records
    if state.get("repair"):
        rows = records.documents()
        return _start(services, runtime, [r["doc_id"] for r in rows if r["status"] != DocStatus.DONE],
                      {"unchanged": [r["doc_id"] for r in rows if r["status"] == DocStatus.DONE],
                       "skipped": [], "warnings": []})
    root = state.get("root")
    loaded = load_and_refine_documents(state["path"], services.ctx.max_line_chars,
                                       confine=Path(root).resolve() if root else None,
                                       ocr_langs=services.ctx.ocr_languages, progress=lambda e: emit(runtime, e),
                                       budget=Budget.of(services.ctx))
    todo: list[str] = []
    unchanged: list[str] = []
    taken: set[str] = set()
    warnings = list(loaded.warnings) + _unparsed(services, loaded.docs)
    held = {str(r["sha256"]): r for r in records.documents() if r["status"] == DocStatus.DONE}
    for doc in loaded.docs:
        digest = content_hash(doc.lines)
        if doc.lines and digest in held and records.document_by_path(doc.source) is None:
            first = held[digest]  # a copy of a document read before, from another path: its lines would be
            warnings.append(f"{Path(doc.source).name}: the same text as document {first['doc_id']} "  # cited twice
                            f"(from {first['path']}); not ingested again")
            continue
        doc_id, note = assign_id(services, doc, taken, bool(state.get("replace")))
        taken.add(doc_id)
        if note:
            warnings.append(note)
        old = records.document(doc_id)
        if old is not None and old["sha256"] == digest and old["status"] == DocStatus.DONE:
            unchanged.append(doc_id)
            notice.info("unchanged, skipped: %s", doc_id)
            continue
        if old is not None and (old["sha256"] != digest or old["path"] != doc.source):
            with ws.mutating():
                removed, orphans = ws.graph.remove_document(doc_id)  # a changed document replaces its old nodes
                ws.forget(orphans)
                ws.vectors.remove_doc(doc_id)
        keep = old is not None and old["sha256"] == digest and old["path"] == doc.source
        records.put_document(doc_id, doc.source, digest, doc.lines, old["status"] if keep and old else DocStatus.LOADED)
        todo.append(doc_id)
        held.setdefault(digest, {"doc_id": doc_id, "path": doc.source})  # a second copy in the same run too
    return _start(services, runtime, todo, {"unchanged": unchanged, "skipped": loaded.skipped, "warnings": warnings})


def _start(services: Services, runtime: Runtime[Context], todo: list[str], found: dict[str, Any]) -> dict[str, Any]:
    """A new run over the documents ``todo`` (already in the records)."""
    records = services.workspace.records
    run_id = uuid.uuid4().hex[:12]
    records.start_run(run_id)
    rows = [records.document(d) for d in todo]
    lines = [r["n_lines"] if r else 0 for r in rows]
    counts = [units_in(n, window(services.ctx)) for n in lines]
    emit(runtime, {"event": "stage", "stage": "load", "documents": len(todo), "unchanged": found["unchanged"],
                   "skipped": len(found["skipped"]), "lines": sum(lines)})
    if services.ctx.llm != "none" and todo:  # what the model will cost, said before it is asked anything
        expected = for_lines(services.ctx, len(todo), sum(lines), _extracted(services, todo), records.reports())
        log.info("estimate: %s", describe(expected))
        emit(runtime, {"event": "estimate", **expected})
    return {"run_id": run_id, "doc_ids": todo, **found, "started": time.time(), "units_done": 0,
            "units_total": sum(counts), "window": window(services.ctx), "unit_counts": counts, "doc_lines": lines, "cursor": 0, "write_failures": []}


def _extracted(services: Services, doc_ids: list[str]) -> int:
    """How many of these documents' sentences the extractor reads."""
    parser = services.ctx.extractor == "parser"
    return sum(1 for d in doc_ids for line in services.workspace.records.lines(d) if extractable(line, parser))


def _unparsed(services: Services, docs: list[LoadedDocument]) -> list[str]:
    """A warning per language the parser has no model for: those documents are indexed, not parsed."""
    if services.ctx.extractor != "parser":
        return []
    by_lang: dict[str, list[str]] = {}
    for doc in docs:
        if doc.language not in PARSED_LANGUAGES:
            by_lang.setdefault(doc.language, []).append(Path(doc.source).name)
    return [f"not parsed ({NAMES.get(lang, lang)}: the parser reads English): {', '.join(names)}; "
            "their lines are indexed and answered by retrieval" for lang, names in sorted(by_lang.items())]


@exclusive("embed")
def embed(state: IngestState, runtime: Runtime[Context]) -> dict[str, Any]:
    """Document nodes and vectors for every sentence not yet embedded, in bounded batches."""
    services = services_of(runtime)
    ws = services.workspace
    for doc_id in state["doc_ids"]:
        have = set(ws.vectors.lines_of(doc_id))
        n_lines = (ws.records.document(doc_id) or {"n_lines": 0})["n_lines"]
        for start in range(1, n_lines + 1, EMBED_BATCH):
            batch = ws.records.lines(doc_id, start, start + EMBED_BATCH - 1)
            missing = [s for s in batch if s.seq not in have]
            vectors = np.asarray(services.embeddings.embed_documents([s.text for s in missing])) if missing else None
            with ws.mutating():
                for s in batch:
                    ws.graph.add_document(doc_id, s.seq, s.text, line=s.line, sentence=s.sentence, **s.place())
                if vectors is not None:
                    ws.vectors.add(doc_id, [s.seq for s in missing], vectors)
        ws.records.set_status(doc_id, DocStatus.EMBEDDED)
    ws.flush()
    emit(runtime, {"event": "stage", "stage": "embed", "documents": len(state["doc_ids"])})
    _parse_ahead(services, state, state.get("cursor", 0))
    return {}


def _per_worker(ctx: Context) -> int:
    if ctx.extractor == "parser":
        return PARSER_UNITS
    return BATCH_UNITS if ctx.strategy == "batched" else 1


def _round(ctx: Context) -> int:
    """Units sent per round: a few tasks per allowed worker, one task when only one may run."""
    return _per_worker(ctx) * (ctx.concurrency * 4 if ctx.concurrency > 1 else 1)


def _units(state: IngestState, ctx: Context, start: int, end: int) -> list[Unit]:
    """The run's units with index ``start`` up to (not including) ``end``."""
    return units_between(state["doc_ids"], state["unit_counts"], state["doc_lines"], window(ctx), start,
                         min(end, state.get("units_total", 0)))


def _round_units(state: IngestState, ctx: Context, start: int) -> list[Unit]:
    """The units of the round that begins at unit index ``start``."""
    return _units(state, ctx, start, start + _round(ctx))


def _parse_ahead(services: Services, state: IngestState, start: int) -> None:
    """Have the round that begins at unit ``start`` parsed before its workers need it, and the next block sent.

    Sentences are parsed in blocks of ``BLOCK`` (``karaka.nlp.ahead``); a long run parses them in a
    second process, one block ahead, in parser mode as with an LLM: this process analyses, embeds
    and writes while the other parses.
    """
    ctx, total = services.ctx, state.get("units_total", 0)
    if start >= total:
        return
    parser = ctx.extractor == "parser"
    per_block = max(1, BLOCK // window(ctx))
    first, last = start // per_block, (min(start + _round(ctx), total) - 1) // per_block

    def texts(key: tuple[str, int]) -> list[str]:
        units = _units(state, ctx, key[1] * per_block, (key[1] + 1) * per_block)
        return [t for t in sentences_of(services.workspace.records, units, parser=parser).values() if t]

    run = state["run_id"]
    soon = [(run, last + 1)] if (last + 1) * per_block < total else []
    ahead.prepare([(run, b) for b in range(first, last + 1)], soon, texts,
                  spawn=(total - start) * window(ctx) >= MIN_SENTENCES)


def route_extract(state: IngestState, runtime: Runtime[Context]) -> list[Send] | Literal["write"]:
    """Send the next round of units (from the run's cursor) to workers, or move on to writing.

    In a store shared by several workers, the round skips units another worker finished or
    holds, looking up to ``LOOKAHEAD`` units ahead, so a worker spends no round on others' work.
    """
    services = services_of(runtime)
    ctx = services.ctx
    per_worker = _per_worker(ctx)
    start = state.get("cursor", 0)
    scanned, skipped = start, 0
    if services.workspace.kind == "directory":
        ids = [u.unit_id for u in _round_units(state, ctx, start)]
    else:
        ids, scanned = _free_units(state, services, start)
        skipped = scanned - start - len(ids)
    wait = False
    if not ids and scanned < state.get("units_total", 0):  # a stretch wholly done or held elsewhere
        return [Send("extract", UnitArgs(run_id=state["run_id"], units=[], scanned=scanned, skipped=skipped))]
    if not ids and state.get("sweeps", 0) < MAX_SWEEPS:
        ids, wait, scanned = _unfinished(state, services), True, state.get("units_total", 0)  # held by others
    if not ids:
        return "write"
    return [Send("extract", UnitArgs(run_id=state["run_id"], units=ids[i:i + per_worker], wait=wait,
                                     scanned=scanned, skipped=skipped if i == 0 else 0))
            for i in range(0, len(ids), per_worker)]


def _free_units(state: IngestState, services: Services, start: int) -> tuple[list[str], int]:
    """Up to a round of units from ``start`` that no worker finished or holds, and where the scan ended."""
    end = min(start + LOOKAHEAD, state.get("units_total", 0))
    units = _units(state, services.ctx, start, end)
    taken = services.workspace.taken_units([u.unit_id for u in units]) if units else set()
    picked: list[str] = []
    for i, unit in enumerate(units):
        if unit.unit_id not in taken:
            picked.append(unit.unit_id)
            if len(picked) == _round(services.ctx):
                return picked, start + i + 1
    return picked, end


def _unfinished(state: IngestState, services: Services) -> list[str]:
    """Units of the run with no stored result (another worker held them; or it died holding them)."""
    ctx, records = services.ctx, services.workspace.records
    done = {u for doc_id in state["doc_ids"] for u in records.done_units(doc_id)}
    return [u.unit_id for u in _units(state, ctx, 0, state.get("units_total", 0)) if u.unit_id not in done]


def progress(state: IngestState, runtime: Runtime[Context]) -> dict[str, Any]:
    """Join point after each round: advance the cursor, report progress, parse the next round ahead."""
    services = services_of(runtime)
    total = state.get("units_total", 0)
    if state.get("cursor", 0) >= total:  # a sweep round ended
        return {"sweeps": state.get("sweeps", 0) + 1}
    step = _round(services.ctx) if services.workspace.kind == "directory" else 0
    cursor = min(max(state.get("cursor", 0) + step, state.get("scanned", 0)), total)
    emit(runtime, {"event": "progress", "done": state.get("units_done", 0), "total": total})
    _parse_ahead(services, state, cursor)
    return {"cursor": cursor}


@exclusive("write")
def write(state: IngestState, runtime: Runtime[Context]) -> dict[str, Any]:
    """Apply every accepted result to the graph (idempotent) and save it."""
    services = services_of(runtime)
    ws = services.workspace
    ahead.stop()  # extraction is over: no more parsing ahead
    failures = []
    written = []
    for doc_id in state["doc_ids"]:
        with ws.mutating():
            failed, missing = write_document(ws, doc_id, window(services.ctx))
        failures += failed
        if missing:  # never marked done with lines unextracted: the next run extracts them
            log.error("%s: %d units have no extraction result; the document stays queued", doc_id, len(missing))
            failures += [{"ref": unit, "cause": "not extracted (the next run of the same command extracts it)"}
                         for unit in missing]
        else:
            written.append(doc_id)
    ws.flush()
    for doc_id in written:
        ws.records.set_status(doc_id, DocStatus.WRITTEN)
    if failures:
        ws.log_failure({"run_id": state["run_id"], "stage": "write", "failures": failures})
    emit(runtime, {"event": "stage", "stage": "write", "failures": len(failures)})
    return {"write_failures": failures}


def make_post_process(loop: Loop) -> Any:
    """The post-processing node; epithet linking runs the GSV-Retry ``loop`` it is given."""

    def post_process(state: IngestState, runtime: Runtime[Context]) -> dict[str, Any]:
        """Run each enabled step; every LLM decision is memoised, so a resume repeats none.

        The independent decisions (types, causes) are asked first, outside the writer lock, for
        the documents this worker claims; then, under the lock, the steps find them memoised.
        """
        services = services_of(runtime)
        ws = services.workspace
        for waiting in (False, True):  # one free document at a time; then wait for what others decide
            for doc_id in state["doc_ids"]:
                with ws.claim([f"post:{doc_id}"], waiting) as mine:
                    if mine:
                        enrich.decide_ahead(services, doc_id, state["run_id"])
        with ws.writing("post-process"):
            results: dict[str, Any] = {}
            for name, step in enrich.STEPS:
                if not getattr(services.ctx, name):
                    results[name] = "off"
                    continue
                if services.llm is None and name == "metaphors":
                    results[name] = "skipped: needs an LLM"
                    continue
                with ws.mutating():
                    count = sum(step(services, doc_id, state["run_id"], loop) for doc_id in state["doc_ids"])
                results[name] = {"count": count, "method": "llm" if services.llm is not None else "heuristic"}
                emit(runtime, {"event": "stage", "stage": f"post:{name}", "count": count})
            ws.flush()
            for doc_id in state["doc_ids"]:
                if (ws.records.document(doc_id) or {}).get("status") == DocStatus.WRITTEN:
                    ws.records.set_status(doc_id, DocStatus.DONE)
            if state["doc_ids"] and retrieval.prepare_lexical(ws):
                emit(runtime, {"event": "stage", "stage": "index", "index": "bm25"})
        return {"report": {"post_processing": results}}

    return post_process


def report(state: IngestState, runtime: Runtime[Context]) -> dict[str, Any]:
    """Build and save the final report."""
    services = services_of(runtime)
    body = build_report(services, state)
    atomic_write_text(services.workspace.root / REPORT_FILE, json.dumps(body, indent=2, ensure_ascii=False))
    services.workspace.records.finish_run(state["run_id"], body)
    emit(runtime, {"event": "report", "run_id": state["run_id"], "report": body})
    return {"report": body}


