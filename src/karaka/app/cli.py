"""The ``karaka`` command line.

Exit codes: 0 success, 1 no proved answer (UNCERTAIN, NO_ANSWER or NO_MATCH), 2 usage or user error, 3 a run finished
with failures (or a question got no verified plan).
"""

from __future__ import annotations

import argparse
import os
import sqlite3
import sys

from karaka.app.commands import COMMANDS, EXIT_OK, EXIT_USAGE
from karaka.store.postgres.db import StoreError
from karaka.version import VERSION


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
    parser.add_argument("--version", action="version", version=f"karaka {VERSION}")
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
