"""The ``karaka`` command line.

Exit codes: 0 success, 1 NO_MATCH, 2 usage or user error, 3 a run finished with failures.
"""

from __future__ import annotations

import argparse
import json
import logging
import os
import shutil
import sys
from importlib import resources
from pathlib import Path
from typing import Any

from karaka.config import resolve_context

EXIT_OK, EXIT_NO_MATCH, EXIT_USAGE, EXIT_FAILURES = 0, 1, 2, 3


def _common() -> argparse.ArgumentParser:
    parent = argparse.ArgumentParser(add_help=False)
    parent.add_argument("--workspace", help="workspace directory (env KARAKA_WORKSPACE)")
    parent.add_argument("--llm", help="LLM spec: huggingface:MODEL, openai:MODEL@URL, llamacpp:PATH, simulated, none")
    parent.add_argument("--embeddings", help="embeddings spec: wordllama (default) or huggingface")
    parent.add_argument("--prompts", help="prompts JSON file (created with the defaults if missing)")
    return parent


def build_parser() -> argparse.ArgumentParser:
    """The argument parser."""
    common = _common()
    parser = argparse.ArgumentParser(prog="karaka", description=__doc__)
    sub = parser.add_subparsers(dest="command", required=True)
    demo = sub.add_parser("demo", parents=[common], help="offline demo on the bundled sample corpus")
    demo.add_argument("--fresh", action="store_true", help="delete the demo workspace first")
    ingest = sub.add_parser("ingest", parents=[common], help="ingest a file or folder")
    ingest.add_argument("path")
    ingest.add_argument("--window", type=int, help="lines per extraction unit (default 1)")
    ingest.add_argument("--strategy", choices=["gsv", "batched"])
    ingest.add_argument("--extractor", choices=["llm", "parser"])
    ingest.add_argument("--concurrency", type=int)
    ingest.add_argument("--max-retries", type=int, dest="max_retries")
    ingest.add_argument("--no-fast-path", action="store_false", dest="fast_path", default=None)
    ingest.add_argument("--parser-candidate", action="store_true", dest="parser_candidate", default=None)
    ingest.add_argument("--json", action="store_true", help="print the report as JSON")
    ask = sub.add_parser("ask", parents=[common], help="answer a question with citations")
    ask.add_argument("question")
    ask.add_argument("--trace", action="store_true", help="print the reasoning trace")
    ask.add_argument("--json", action="store_true", help="print the whole result as JSON")
    ask.add_argument("--thread", help="conversation thread id (for follow-up questions)")
    serve = sub.add_parser("serve", parents=[common], help="HTTP API: /chat, /chat/stream, /ingest, /runs, /health")
    serve.add_argument("--host", default="127.0.0.1")
    serve.add_argument("--port", type=int, default=8123)
    serve.add_argument("--ingest-root", dest="ingest_root",
                       help="POST /ingest paths must lie inside it (env KARAKA_INGEST_ROOT; default: cwd)")
    sub.add_parser("stats", parents=[common], help="graph statistics")
    remove = sub.add_parser("remove", parents=[common], help="delete a document's nodes, edges and vectors")
    remove.add_argument("doc_id")
    export = sub.add_parser("export", parents=[common], help="export the graph")
    export.add_argument("--format", choices=["gexf", "json"], default="gexf")
    export.add_argument("--output", help="output file (default: WORKSPACE/graph.FORMAT export)")
    ev = sub.add_parser("eval", parents=[common], help="evaluate extraction against QA-SRL gold")
    ev.add_argument("what", choices=["extraction"])
    ev.add_argument("--gold", required=True)
    ev.add_argument("--sentences", required=True)
    ev.add_argument("--extractor", choices=["parser", "llm", "gsv"], default="parser")
    ev.add_argument("--limit", type=int)
    ev.add_argument("--json", action="store_true")
    return parser


def _flags(args: argparse.Namespace, *names: str) -> dict[str, Any]:
    keys = ("workspace", "llm", "embeddings", "prompts", *names)
    return {k: getattr(args, k, None) for k in keys}


class Progress:
    """A rich progress bar fed by the graph's custom stream events."""

    def __init__(self) -> None:
        from rich.progress import BarColumn, MofNCompleteColumn, TextColumn, TimeElapsedColumn, TimeRemainingColumn
        from rich.progress import Progress as RichProgress

        self.bar = RichProgress(TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn(),
                                TextColumn("{task.fields[rate]} units/s · failures {task.fields[failed]}"),
                                TimeElapsedColumn(), TimeRemainingColumn(), transient=False)
        self.task: Any = None
        self.failed = 0

    def __call__(self, event: dict[str, Any]) -> None:
        kind = event.get("event")
        if kind == "stage":
            self.bar.console.print(f"✅ {event['stage']}: " + ", ".join(f"{k}={v}" for k, v in event.items() if k not in ("event", "stage")))
        elif kind == "resume":
            self.bar.console.print(f"↻ resuming an interrupted run at {event['next']}")
        elif kind == "progress":
            if self.task is None:
                self.task = self.bar.add_task("extracting", total=event["total"], rate="-", failed=0)
            elapsed = self.bar.tasks[0].elapsed or 0
            rate = f"{event['done'] / elapsed:.1f}" if elapsed else "-"
            self.bar.update(self.task, completed=event["done"], total=event["total"], rate=rate, failed=self.failed)
        elif kind == "unit" and event.get("status") == "failed":
            self.failed += 1


def print_report(report: dict[str, Any]) -> None:
    """Human summary of an ingestion report."""
    graph = report.get("graph", {})
    print(f"📄 documents {report.get('documents')} · lines {report.get('lines')} · "
          f"nodes {graph.get('nodes')} · edges {graph.get('edges')}")
    print(f"   nodes by type: {graph.get('nodes_by_type')}")
    print(f"   edges by relation: {graph.get('edges_by_relation')}")
    gsv, calls = report.get("gsv", {}), report.get("llm_calls", {})
    print(f"   GSV success {gsv.get('success_rate')} · fast path {gsv.get('fast_path_rate')} · "
          f"LLM calls/line mean {calls.get('per_line_mean')} max {calls.get('per_line_max')} · "
          f"prompt tokens/line {calls.get('prompt_tokens_per_line_mean')}")
    print(f"   post-processing: {report.get('post_processing')}")
    for doc in report.get("unchanged_documents", []):
        print(f"   ↻ unchanged: {doc}")
    for skip in report.get("skipped_files", []):
        print(f"   ⚠️  skipped {skip['path']}: {skip['error']}")
    for warning in report.get("warnings", []):
        print(f"   ⚠️  {warning}")
    for failure in report.get("failures", []):
        print(f"   ❌ {failure['ref']}: {failure['cause']}")


def print_answer(result: dict[str, Any], trace: bool) -> None:
    """Answer, numbered citations, status."""
    print(result["answer"])
    for i, cite in enumerate(result.get("citations", []), 1):
        print(f"  [{i}] [{cite['doc_id']}, Line {cite['line_number']}] {cite['text']}")
    print(f"status: {result['status']} · retrieval: {result['retrieval']} · LLM calls: {result['llm_calls']}")
    for warning in result.get("warnings", []):
        print(f"⚠️  {warning}")
    if trace:
        for step in result.get("reasoning_trace", []):
            print(f"  → {step}")


def remember_models(ctx: Any) -> None:
    """Write the models a workspace is built with to its karaka.toml, once.

    Later ``karaka ask/serve --workspace ...`` then continue with them instead of the default LLM.
    """
    config = Path(ctx.workspace) / "karaka.toml"
    if config.exists() or ctx.llm.startswith("registered"):
        return
    from karaka.store.atomic import atomic_write_text

    atomic_write_text(config, f'[karaka]\nllm = "{ctx.llm}"\nextractor = "{ctx.extractor}"\n'
                              f'embeddings = "{ctx.embeddings}"\n')


def cmd_demo(args: argparse.Namespace) -> int:
    """Ingest the bundled sample with the parser and WordLlama, then answer its questions."""
    from karaka.runner import run_ingest, run_query
    from karaka.services import forget_workspace

    flags = _flags(args)
    flags["workspace"] = flags["workspace"] or os.environ.get("KARAKA_WORKSPACE") or "demo_workspace"
    if flags["llm"] is None and "KARAKA_LLM" not in os.environ:
        flags["llm"], flags["extractor"] = "none", "parser"
    if args.fresh and Path(flags["workspace"]).exists():
        forget_workspace(flags["workspace"])
        shutil.rmtree(flags["workspace"])
    ctx = resolve_context(flags)
    remember_models(ctx)
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
    from karaka.store.atomic import atomic_write_text

    atomic_write_text(Path(ctx.workspace) / "query_results.json", json.dumps(results, indent=2, ensure_ascii=False))
    print(f"\n✅ saved {Path(ctx.workspace) / 'query_results.json'}; continue with "
          f"`karaka ask --workspace {ctx.workspace} --llm {ctx.llm} \"...\"` or `karaka stats`")
    return EXIT_OK


def cmd_ingest(args: argparse.Namespace) -> int:
    """Ingest a path with a progress bar and a final report."""
    from karaka.runner import run_ingest

    ctx = resolve_context(_flags(args, "window", "strategy", "extractor", "concurrency", "max_retries",
                                 "fast_path", "parser_candidate"))
    remember_models(ctx)
    report = run_ingest(ctx, args.path, on_event=None if args.json else Progress())
    if args.json:
        print(json.dumps(report, indent=2, ensure_ascii=False))
    else:
        print_report(report)
    return EXIT_FAILURES if report.get("failures") or report.get("skipped_files") else EXIT_OK


def _require_graph(ctx: Any) -> None:
    from karaka.store.workspace import GRAPH_FILE

    if not (Path(ctx.workspace) / GRAPH_FILE).exists():
        raise ValueError(f"workspace {ctx.workspace} is empty: run `karaka ingest PATH` (or `karaka demo`) first")


def cmd_ask(args: argparse.Namespace) -> int:
    """Answer a question."""
    from karaka.runner import run_query

    ctx = resolve_context(_flags(args))
    _require_graph(ctx)
    result = run_query(ctx, args.question, thread_id=args.thread)
    if args.json:
        print(json.dumps(result, indent=2, ensure_ascii=False))
    else:
        print_answer(result, trace=args.trace)
    return EXIT_NO_MATCH if result["status"] == "NO_MATCH" else (EXIT_FAILURES if result["status"] == "ERROR" else EXIT_OK)


def cmd_serve(args: argparse.Namespace) -> int:
    """Serve the HTTP API (uvicorn) on the workspace; the API key comes from env KARAKA_API_KEY."""
    import uvicorn

    from karaka.api import create_app
    from karaka.services import get_services

    ctx = resolve_context(_flags(args, "ingest_root"))
    get_services(ctx)  # load the models before the first request, and fail early on a bad spec
    root = Path(ctx.ingest_root or Path.cwd()).resolve()
    print(f"✅ serving workspace {Path(ctx.workspace).resolve()} on http://{args.host}:{args.port} · "
          f"llm {ctx.llm} · ingest root {root} · API key {'on' if ctx.api_key else 'off'}", flush=True)
    uvicorn.run(create_app(ctx, ingest_root=root), host=args.host, port=args.port, log_level="warning")
    return EXIT_OK


def cmd_stats(args: argparse.Namespace) -> int:
    """Print graph statistics."""
    from karaka.services import get_services

    ctx = resolve_context({**_flags(args), "llm": "none", "extractor": "parser"})
    _require_graph(ctx)
    ws = get_services(ctx).workspace
    print(json.dumps({**ws.graph.stats(), "documents": [d["doc_id"] for d in ws.records.documents()],
                      "vectors": len(ws.vectors)}, indent=2, ensure_ascii=False))
    return EXIT_OK


def cmd_remove(args: argparse.Namespace) -> int:
    """Remove a document."""
    from karaka.services import get_services

    ctx = resolve_context({**_flags(args), "llm": "none", "extractor": "parser"})
    ws = get_services(ctx).workspace
    if ws.records.document(args.doc_id) is None and not ws.graph.doc_nodes(args.doc_id):
        raise ValueError(f"no document {args.doc_id!r} in workspace {ctx.workspace}")
    removed = ws.remove_document(args.doc_id)
    print(f"✅ removed {args.doc_id}: {removed['nodes']} nodes, {removed['vectors']} vectors")
    return EXIT_OK


def cmd_export(args: argparse.Namespace) -> int:
    """Export the graph as GEXF or JSON."""
    from karaka.services import get_services

    ctx = resolve_context({**_flags(args), "llm": "none", "extractor": "parser"})
    _require_graph(ctx)
    ws = get_services(ctx).workspace
    out = Path(args.output or Path(ctx.workspace) / f"export.{args.format}")
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


COMMANDS = {"demo": cmd_demo, "ingest": cmd_ingest, "ask": cmd_ask, "serve": cmd_serve, "stats": cmd_stats,
            "remove": cmd_remove, "export": cmd_export, "eval": cmd_eval}


def main(argv: list[str] | None = None) -> int:
    """Entry point."""
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")
    logging.basicConfig(level=logging.ERROR)
    logging.getLogger("bm25s").setLevel(logging.WARNING)
    args = build_parser().parse_args(argv)
    try:
        return COMMANDS[args.command](args)
    except (ValueError, OSError) as exc:  # OSError: missing paths, permissions, unreadable model files
        print(f"❌ karaka {args.command}: {exc}", file=sys.stderr)
        return EXIT_USAGE
    except KeyboardInterrupt:
        print("\n⚠️  interrupted; run the same command again to resume", file=sys.stderr)
        return 130


if __name__ == "__main__":
    sys.exit(main())
