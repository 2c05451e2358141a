"""The ``karaka`` command line.

Exit codes: 0 success, 1 no proved answer (UNCERTAIN, NO_ANSWER or NO_MATCH), 2 usage or user error, 3 a run finished
with failures (or a question got no verified plan).
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import sqlite3
import sys
from importlib import resources
from pathlib import Path
from typing import Any

from karaka import __version__
from karaka.app.render import Progress, print_answer, print_report, shortfall
from karaka.config import resolve_context, resolve_server
from karaka.store.postgres.db import StoreError

EXIT_OK, EXIT_NO_MATCH, EXIT_USAGE, EXIT_FAILURES = 0, 1, 2, 3


def _common() -> argparse.ArgumentParser:
    parent = argparse.ArgumentParser(add_help=False)
    parent.add_argument("--workspace", help="workspace directory (env KARAKA_WORKSPACE; "
                                            "default $XDG_DATA_HOME/karaka/workspace)")
    parent.add_argument("--store", help="postgresql://USER@HOST:PORT/DB keeps the knowledge base in PostgreSQL, "
                                        "shared by many workers and servers (env KARAKA_STORE; default: the "
                                        "workspace directory)")
    parent.add_argument("--llm", help="LLM spec: huggingface:MODEL, openai:MODEL@URL, llamacpp:PATH.gguf, "
                                      "simulated, none (default: the workspace's; else Nemotron where its weights and a "
                                      "GPU are, else none: the offline parser)")
    parent.add_argument("--preset", choices=["offline", "small-model", "strong-model"],
                        help="a named group of settings (README: Configuration); flags you give win")
    parent.add_argument("--embeddings", help="embeddings spec: wordllama (default) or huggingface[:MODEL]")
    parent.add_argument("--prompts", help="prompts JSON file overriding the packaged ones (created if missing)")
    parent.add_argument("--llm-timeout", type=float, dest="llm_timeout",
                        help="seconds to wait for one LLM reply (env KARAKA_LLM_TIMEOUT; default 600)")
    parent.add_argument("--llm-concurrency", type=int, dest="llm_concurrency",
                        help="LLM calls in flight at once against one server (default 4)")
    return parent


def build_parser() -> argparse.ArgumentParser:
    """The argument parser."""
    common = _common()
    parser = argparse.ArgumentParser(prog="karaka", description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--version", action="version", version=f"karaka {__version__}")
    sub = parser.add_subparsers(dest="command", required=True)
    demo = sub.add_parser("demo", parents=[common], help="offline demo on the bundled sample corpus")
    demo.add_argument("--fresh", action="store_true", help="delete the demo workspace first")
    ingest = sub.add_parser("ingest", parents=[common], help="ingest a file or folder")
    ingest.add_argument("path", help="a .txt, .md, .html, .pdf, .epub or .docx file, or a folder of them")
    ingest.add_argument("--window", type=int, help="sentences per extraction unit of the LLM extractor (default 4)")
    ingest.add_argument("--strategy", choices=["gsv", "batched"], help="one GSV loop per unit (default), or "
                                                                         "one pass + one validation per batch")
    ingest.add_argument("--extractor", choices=["llm", "parser"], help="llm: GSV-Retry (default); parser: spaCy "
                                                                        "alone, no LLM unless --llm names one")
    ingest.add_argument("--concurrency", type=int, help="extraction units in flight at once (default 4)")
    ingest.add_argument("--max-retries", type=int, dest="max_retries", help="GSV attempts per unit (default 5)")
    ingest.add_argument("--no-fast-path", action="store_false", dest="fast_path", default=None,
                        help="always run the full three-candidate attempt")
    ingest.add_argument("--no-parser-candidate", action="store_false", dest="parser_candidate", default=None,
                        help="do not use the parser's analysis as the free Candidate_A (and parser fallback)")
    ingest.add_argument("--llm-writes", action="store_true", dest="llm_writes", default=None,
                        help="the LLM writes Candidates B and C (a strong model) instead of choosing among the "
                             "parser's other readings")
    ingest.add_argument("--ingest-root", dest="ingest_root", help="refuse files (symlinks resolved) outside this folder")
    ingest.add_argument("--replace", action="store_true", help="a file whose name another source's document holds "
                                                               "replaces that document (else it gets its own id)")
    ingest.add_argument("--json", action="store_true", help="print the report as JSON")
    ingest.add_argument("--estimate", action="store_true", help="say what the run would cost (lines, LLM requests, "
                        "tokens, time) and stop: no model is loaded, nothing is written")
    ask = sub.add_parser("ask", parents=[common], help="answer a question with citations")
    ask.add_argument("question", nargs="?", help="the question (or --audio)")
    ask.add_argument("--audio", help="a spoken question: a .wav, .mp3, .ogg or .flac recording (setting speech_model)")
    ask.add_argument("--trace", action="store_true", help="print the reasoning trace")
    ask.add_argument("--json", action="store_true", help="print the whole result as JSON")
    ask.add_argument("--thread", help="conversation thread id (for follow-up questions)")
    ask.add_argument("--web-search", dest="web_search", choices=["tavily", "searxng", "brave"],
                     help="ask the web when the documents do not prove an answer (env KARAKA_WEB_SEARCH; "
                          "the key in KARAKA_WEB_SEARCH_KEY, TAVILY_API_KEY or BRAVE_API_KEY)")
    ask.add_argument("--web-search-url", dest="web_search_url", help="the provider's address (SearXNG's instance)")
    serve = sub.add_parser("serve", parents=[common], help="HTTP API and web page: /, /chat, /ingest, /runs, /health")
    serve.add_argument("--host", default="127.0.0.1", help="address to listen on (default 127.0.0.1)")
    serve.add_argument("--port", type=int, default=8123, help="port (default 8123)")
    serve.add_argument("--ingest-root", dest="ingest_root",
                       help="POST /ingest paths must lie inside it (env KARAKA_INGEST_ROOT; default: cwd)")
    serve.add_argument("--public-read", action="store_true", dest="public_read", default=None,
                       help="with KARAKA_API_KEY set, let anonymous clients read (chat, runs, documents)")
    serve.add_argument("--insecure", action="store_true",
                       help="listen on a non-loopback address without an API key (anyone who reaches it may "
                            "ingest and delete)")
    sub.add_parser("stats", parents=[common], help="graph statistics")
    sub.add_parser("repair", parents=[common], help="check graph, vectors and records agree; rebuild what "
                                                    "graph.json or vectors.npz lack from karaka.db")
    remove = sub.add_parser("remove", parents=[common], help="delete a document's nodes, edges and vectors")
    remove.add_argument("doc_id", help="the document id (see `karaka stats`)")
    export = sub.add_parser("export", parents=[common], help="export the graph")
    export.add_argument("--format", choices=["gexf", "json"], default="gexf", help="file format (default gexf)")
    export.add_argument("--output", help="output file (default WORKSPACE/export.FORMAT)")
    migrate = sub.add_parser("migrate", help="copy a workspace directory into a PostgreSQL store")
    migrate.add_argument("--from", dest="source", required=True, help="the workspace directory")
    migrate.add_argument("--to", dest="target", required=True, help="postgresql://USER@HOST:PORT/DB (empty)")
    migrate.add_argument("--embeddings", help="embeddings spec the workspace was built with (default: its own)")
    ev = sub.add_parser("eval", parents=[common], help="evaluate extraction against QA-SRL gold")
    ev.add_argument("what", choices=["extraction"], help="what to evaluate")
    ev.add_argument("--gold", required=True, help="QA-SRL gold CSV (*.gold.csv)")
    ev.add_argument("--sentences", required=True, help="QA-SRL sentences CSV (*.full.csv)")
    ev.add_argument("--extractor", choices=["parser", "llm", "gsv"], default="parser",
                    help="parser, single LLM pass, or the full GSV loop (default parser)")
    ev.add_argument("--limit", type=int, help="first N sentences only")
    ev.add_argument("--json", action="store_true", help="print the scores as JSON")
    return parser


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


def _fewer_malloc_arenas() -> None:
    """Ask glibc for two malloc arenas instead of one per thread.

    The graph's worker threads each got an arena, and memory freed after a parse batch stayed with
    them: a long run held several hundred megabytes it no longer used.
    """
    try:
        import ctypes

        ctypes.CDLL("libc.so.6").mallopt(-8, 2)  # M_ARENA_MAX
    except (OSError, AttributeError):  # not glibc: nothing to tune
        pass


def _storage_message(exc: BaseException) -> str:
    """One line for a user: a full disk gets the remedy, a SQLite error the file it came from."""
    from karaka.store.damage import RESUME, is_disk_full

    text = str(exc).strip() or type(exc).__name__
    if is_disk_full(exc) and "free space" not in text:
        return f"{text}; {RESUME}"
    if isinstance(exc, sqlite3.Error):
        return f"{_database_of(exc)}: {text}; if it is damaged, move it aside and run `karaka ingest PATH` again " \
               "for your documents"
    return text


def _database_of(exc: BaseException) -> str:
    """Which workspace database an SQLite error came from, by the code it was raised in."""
    tb = exc.__traceback__
    files = []
    while tb is not None:
        files.append(tb.tb_frame.f_code.co_filename)
        tb = tb.tb_next
    for marker, name in (("checkpoint", "checkpoints.sqlite (LangGraph's checkpoints; finished units are kept "
                                        "in karaka.db)"), ("store/index", "graph.sqlite (the graph's index)"),
                         ("store/records", "karaka.db")):
        if any(marker in f for f in reversed(files)):
            return name
    return "a workspace database (karaka.db or checkpoints.sqlite)"


def _quiet_stdout() -> None:
    """Point stdout at /dev/null, so flushing at exit raises no second BrokenPipeError."""
    devnull = os.open(os.devnull, os.O_WRONLY)
    os.dup2(devnull, sys.stdout.fileno())
    os.close(devnull)


def close_workspaces() -> None:
    """Close every open workspace and checkpointer: their write-ahead logs are folded into the files."""
    from karaka.services import close_all
    from karaka.store.checkpoints import close_savers

    try:
        close_all()
        close_savers()
    except Exception as exc:  # noqa: BLE001 - closing at exit must not mask the command's outcome
        print(f"⚠️  closing the workspace: {exc}", file=sys.stderr)


def main(argv: list[str] | None = None) -> int:
    """Entry point."""
    from karaka.logs import show_notices

    _fewer_malloc_arenas()
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")
    show_notices()
    args = build_parser().parse_args(argv)
    try:
        return COMMANDS[args.command](args)
    except BrokenPipeError:  # `karaka ask … | head -1`: the reader stopped reading, which is no error of ours
        _quiet_stdout()
        return EXIT_OK
    except (ValueError, OSError, TimeoutError, StoreError, sqlite3.Error) as exc:  # OSError: paths, permissions
        print(f"❌ karaka {args.command}: {_storage_message(exc)}", file=sys.stderr)
        return EXIT_USAGE
    except KeyboardInterrupt:
        print("\n⚠️  interrupted; run the same command again to resume", file=sys.stderr)
        return 130
    except Exception as exc:
        if not type(exc).__module__.startswith(("psycopg", "psycopg_pool")):
            raise
        print(f"❌ karaka {args.command}: PostgreSQL: {str(exc).strip() or type(exc).__name__}; "
              "run the same command again to resume", file=sys.stderr)
        return EXIT_USAGE


def entry() -> None:
    """The ``karaka`` console script: run, flush, and leave without the interpreter's slow teardown.

    Everything a command writes is saved atomically before it returns; what is left at exit is only
    the freeing of loaded models and graphs (about 0.35 s on a 2-core machine), which the OS does
    faster when the process ends.
    """
    import logging

    code = main()
    close_workspaces()
    try:
        sys.stdout.flush()
    except BrokenPipeError:
        _quiet_stdout()
    sys.stderr.flush()
    logging.shutdown()
    os._exit(code)


if __name__ == "__main__":
    entry()
