"""What each ``karaka`` subcommand does, given its parsed arguments; an exit code back (``cli.main`` parses and dispatches)."""

from __future__ import annotations

import argparse
import json
import os
import shutil
import sys
from importlib import resources
from pathlib import Path
from typing import Any

from karaka.app.render import Progress, print_answer, print_report, shortfall
from karaka.config import resolve_context, resolve_server

EXIT_OK, EXIT_NO_MATCH, EXIT_USAGE, EXIT_FAILURES = 0, 1, 2, 3
"""What ``karaka`` exits with: done; no answer proved (or nothing to do); a usage or storage error; failures."""


def _flags(args: argparse.Namespace, *names: str) -> dict[str, Any]:
    keys = ("workspace", "store", "llm", "preset", "embeddings", "prompts", "llm_timeout", "llm_concurrency", *names)
    return {k: getattr(args, k, None) for k in keys}


def _open(ctx: Any, check: bool = False) -> Any:
    """The context's services, the workspace log attached; ``check`` warns where its files disagree."""
    from karaka.logs import attach_workspace_log
    from karaka.services import get_services

    services = get_services(ctx)
    attach_workspace_log(services.workspace.log_path)
    if check and services.workspace.kind == "directory":
        for problem in services.workspace.problems():
            print(f"⚠️  {problem}", file=sys.stderr)
    return services


def cmd_demo(args: argparse.Namespace) -> int:
    """Ingest the bundled sample with the parser and WordLlama, then answer its questions."""
    from karaka.app.runner import run_ingest, run_query
    from karaka.services import forget_workspace
    from karaka.store.atomic import atomic_write_text

    flags = _flags(args)
    flags["workspace"] = flags["workspace"] or os.environ.get("KARAKA_WORKSPACE") or "demo_workspace"
    if flags["llm"] is None and "KARAKA_LLM" not in os.environ:
        flags["llm"], flags["extractor"] = "none", "parser"
    if args.fresh and Path(flags["workspace"]).exists():
        forget_workspace(flags["workspace"])
        shutil.rmtree(flags["workspace"])
    ctx = resolve_context(flags)
    _open(ctx)
    corpus = Path(str(resources.files("karaka") / "data"))
    print(f"✅ workspace {Path(ctx.workspace).resolve()} · llm {ctx.llm} · extractor {ctx.extractor}")
    report = run_ingest(ctx, corpus / "corpus", on_event=Progress())
    print_report(report)
    questions = json.loads((corpus / "questions.json").read_text(encoding="utf-8"))
    results = []
    for question in questions:
        print(f"\n❓ {question}")
        result = run_query(ctx, question)
        print_answer(result, trace=False)
        results.append(result)
    atomic_write_text(Path(ctx.workspace) / "query_results.json", json.dumps(results, indent=2, ensure_ascii=False))
    print(f"\n✅ saved {Path(ctx.workspace) / 'query_results.json'}; continue with "
          f"`karaka ask --workspace {ctx.workspace} \"...\"`, `karaka stats` or `karaka serve`")
    return EXIT_OK


def cmd_ingest(args: argparse.Namespace) -> int:
    """Ingest a path with a progress display and a final report."""
    from karaka.app.runner import run_ingest

    ctx = resolve_context(_flags(args, "window", "strategy", "extractor", "concurrency", "max_retries",
                                 "fast_path", "parser_candidate", "llm_writes"))
    if args.estimate:
        return _estimate(ctx, args)
    _open(ctx, check=(Path(ctx.workspace) / "graph.json").exists())  # a damaged file is named, not skipped over
    root = Path(args.ingest_root).resolve() if args.ingest_root else None
    report = run_ingest(ctx, args.path, on_event=None if args.json else Progress(), root=root, replace=args.replace)
    if args.json:
        print(json.dumps(report, indent=2, ensure_ascii=False))
    else:
        print_report(report)
    return EXIT_FAILURES if any(shortfall(report)) else EXIT_OK


def _estimate(ctx: Any, args: argparse.Namespace) -> int:
    from karaka.estimate import describe, estimate
    from karaka.loading.web import is_url

    if is_url(args.path):
        raise ValueError("--estimate reads local files; fetch the page first or ingest the URL directly")
    root = Path(args.ingest_root).resolve() if args.ingest_root else None
    found = estimate(ctx, args.path, root)
    if args.json:
        print(json.dumps(found, indent=2, ensure_ascii=False))
        return EXIT_OK
    print(f"📏 {describe(found)}")
    for skipped in found["skipped_files"]:
        print(f"   would skip {skipped['path']}: {skipped['error']}")
    return EXIT_OK


def _require_graph(ctx: Any) -> None:
    from karaka.store.embedded.workspace import RECORDS_FILE

    root = Path(ctx.workspace)
    if not ctx.store and not (root / RECORDS_FILE).exists():
        if (root / "graph.json").exists():
            raise ValueError(f"{root / RECORDS_FILE}: missing, though graph.json is there (the records of every "
                             f"document are gone); run `karaka ingest PATH --workspace {root}` again for your "
                             "documents to rebuild them (the graph is rewritten, not duplicated)")
        raise ValueError(f"workspace {ctx.workspace} is empty: run `karaka ingest PATH` (or `karaka demo`) first")


def cmd_ask(args: argparse.Namespace) -> int:
    """Answer a question."""
    from karaka.app.runner import run_query

    ctx = resolve_context(_flags(args, "web_search", "web_search_url"))
    _require_graph(ctx)
    question = args.question
    if args.audio:
        from karaka.loading import Budget, hear

        question = hear(Path(args.audio), Budget.of(ctx))
        print(f"🎤 heard: {question}", file=sys.stderr if args.json else sys.stdout)
    if not question:
        raise ValueError("ask needs a question, or a recording of one with --audio")
    _open(ctx, check=True)
    result = run_query(ctx, question, thread_id=args.thread, direct=True)
    if args.json:
        print(json.dumps(result, indent=2, ensure_ascii=False))
    else:
        print_answer(result, trace=args.trace)
    if result["status"] in ("NO_MATCH", "NO_ANSWER", "UNCERTAIN"):
        return EXIT_NO_MATCH  # no answer a line proves
    return EXIT_FAILURES if result["status"] == "ERROR" else EXIT_OK


def cmd_serve(args: argparse.Namespace) -> int:
    """Serve the HTTP API and the web page (uvicorn); the API key comes from env KARAKA_API_KEY."""
    import uvicorn

    from karaka.app.api import create_app
    from karaka.app.http.guard import loopback

    ctx = resolve_context(_flags(args))
    server = resolve_server({"ingest_root": args.ingest_root, "public_read": args.public_read})
    if not server.api_key and not args.insecure and not loopback(args.host):
        print(f"❌ refusing to listen on {args.host} without an API key: anyone who can reach it could ingest "
              "and delete documents. Set KARAKA_API_KEY, or pass --insecure if that is what you want.",
              file=sys.stderr)
        return EXIT_USAGE
    _open(ctx, check=True)  # load the models before the first request; name damaged or missing files
    root = Path(server.ingest_root or Path.cwd()).resolve()
    print(f"✅ serving {_open(ctx).workspace.location} on http://{args.host}:{args.port} · "
          f"llm {ctx.llm} · ingest root {root} · API key {'on' if server.api_key else 'off'}"
          f"{' (public read)' if server.api_key and server.public_read else ''}", flush=True)
    uvicorn.run(create_app(ctx, server), host=args.host, port=args.port, log_level="warning")
    return EXIT_OK


def _reader(args: argparse.Namespace, check: bool = False) -> Any:
    ctx = resolve_context({**_flags(args), "llm": "none", "extractor": "parser"})
    _require_graph(ctx)
    return _open(ctx, check).workspace


def cmd_stats(args: argparse.Namespace) -> int:
    """Print graph statistics."""
    ws = _reader(args, check=True)
    with ws.reading():
        print(json.dumps({**ws.graph.stats(), "documents": [d["doc_id"] for d in ws.records.documents()],
                          "vectors": len(ws.vectors)}, indent=2, ensure_ascii=False))
    return EXIT_OK


def cmd_repair(args: argparse.Namespace) -> int:
    """Set aside a damaged graph.json or vectors.npz, then rebuild what they lack from karaka.db."""
    from karaka.app.runner import run_repair
    from karaka.store.embedded.index import INDEX_FILE
    from karaka.store.embedded.workspace import set_aside_damaged

    ctx = resolve_context(_flags(args))
    if ctx.store:
        raise ValueError("repair works on a workspace directory; a PostgreSQL store keeps one transaction per save")
    _require_graph(ctx)
    for line in set_aside_damaged(Path(ctx.workspace).resolve()):
        print(f"⚠️  {line}")
    ws = _open(ctx).workspace
    damage = ws.records.damage()
    if damage:  # the records are the source of every rebuild: nothing to repair from
        print(f"❌ {ws.records.path}: damaged (SQLite's check: {damage}); move it aside and run "
              f"`karaka ingest PATH --workspace {ws.root}` again for your documents (the graph is rewritten, "
              "not duplicated)", file=sys.stderr)
        return EXIT_FAILURES
    problems = ws.problems()
    for problem in problems:
        print(f"🔧 {problem}")
    with ws.writing("repair"):
        queued = ws.requeue_incomplete()
        if ws.reindex():
            print(f"🔧 {ws.root / INDEX_FILE}: rebuilt (questions read the graph from it instead of loading graph.json)")
    if not queued and not problems:
        print(f"✅ {ws.root}: graph, vectors and records agree; nothing to repair")
        return EXIT_OK
    report = run_repair(ctx, on_event=Progress())
    print_report(report)
    left = ws.problems()
    for problem in left:
        print(f"❌ {problem}", file=sys.stderr)
    return EXIT_FAILURES if left or report.get("failures") else EXIT_OK


def cmd_remove(args: argparse.Namespace) -> int:
    """Remove a document."""
    ws = _reader(args)
    with ws.reading():
        known = ws.records.document(args.doc_id) is not None or bool(ws.graph.document_nodes(args.doc_id))
    if not known:
        raise ValueError(f"no document {args.doc_id!r} in workspace {ws.root}")
    removed = ws.remove_document(args.doc_id)
    print(f"✅ removed {args.doc_id}: {removed['nodes']} nodes, {removed['vectors']} vectors")
    return EXIT_OK


def cmd_export(args: argparse.Namespace) -> int:
    """Export the graph as GEXF or JSON."""
    ws = _reader(args)
    out = Path(args.output or ws.root / f"export.{args.format}")
    with ws.reading():
        ws.graph.export(out, args.format)
    print(f"✅ wrote {out}")
    return EXIT_OK


def cmd_eval(args: argparse.Namespace) -> int:
    """Score extraction against QA-SRL gold."""
    from karaka.evaluation import evaluate, format_table

    flags = _flags(args)
    if args.extractor == "parser":
        flags.update(llm="none", extractor="parser")
    ctx = resolve_context(flags)
    scores = evaluate(args.gold, args.sentences, extractor=args.extractor, ctx=ctx, limit=args.limit)
    print(json.dumps(scores, indent=2) if args.json else format_table(scores))
    return EXIT_OK


def cmd_migrate(args: argparse.Namespace) -> int:
    """Copy a workspace directory into a PostgreSQL store; the directory is left as it was."""
    from karaka.store.migrate import migrate

    source = resolve_context({"workspace": args.source, "embeddings": args.embeddings, "llm": "none"})
    _require_graph(source)
    target = resolve_context({"workspace": args.source, "store": args.target, "embeddings": args.embeddings,
                              "llm": "none"})
    counts = migrate(_open(source).workspace, _open(target).workspace)
    print(f"✅ copied {args.source} into {_open(target).workspace.location}: "
          + ", ".join(f"{v} {k}" for k, v in counts.items()))
    print(f"   use it with --store {_open(target).workspace.location} (env KARAKA_STORE)")
    return EXIT_OK


COMMANDS = {"demo": cmd_demo, "migrate": cmd_migrate, "ingest": cmd_ingest, "ask": cmd_ask, "serve": cmd_serve,
            "stats": cmd_stats, "repair": cmd_repair, "remove": cmd_remove, "export": cmd_export, "eval": cmd_eval}
