"""An HTTP ingestion run in a child process, so the server's questions keep their latency.

Parsing a folder is CPU work in Python; on the server's own threads it competes with every
question for the interpreter (p95 of ``/chat`` rose from 2–5 s to 15.6 s during an HTTP ingest,
against the same figure as idle when another process ingests). So a run whose models a second
process can load cheaply (the parser, or a model behind an HTTP server) runs as
``python -m karaka.app.http.child``: it reads the run's settings on stdin and answers with JSON lines,
``{"event": …}`` as the run goes and ``{"report": …}`` or ``{"error": …}`` at the end. The server
sees what it wrote at its next read, as it sees a CLI run's. A run with a model loaded in the
server's memory (a local GGUF or transformers model, or one registered in-process) runs on a
server thread as before: loading it twice would cost its memory twice.
"""

from __future__ import annotations

import dataclasses
import subprocess
from collections.abc import Callable
from pathlib import Path
from typing import Any

from karaka.config import Context
from karaka.processes import request, run_child, send

IN_CHILD_MODELS = ("none", "openai")
"""Model kinds a child process can use without loading weights into memory."""


def runs_in_child(ctx: Context) -> bool:
    """Whether an ingestion run of ``ctx`` runs in a child process (see the module's docstring)."""
    kind = (ctx.llm or "none").split(":", 1)[0]
    return kind in IN_CHILD_MODELS and not str(ctx.embeddings).startswith("registered")


def ingest_in_child(ctx: Context, path: Path, root: Path, replace: bool, on_event: Callable[[dict[str, Any]], None],
                    started: Callable[[subprocess.Popen[bytes]], None] | None = None) -> dict[str, Any]:
    """``run_ingest(ctx, path, on_event, root=root, replace=replace)`` in a child process.

    An exception ``on_event`` raises (a cancelled run) stops the child, which resumes like any
    interrupted run, and goes on up.

    Raises:
        RuntimeError: the run failed in the child (the message is the child's).
    """
    asked = {"ctx": {**dataclasses.asdict(ctx), "workspace": str(Path(ctx.workspace).resolve())},
             "path": str(path), "root": str(root), "replace": replace}
    ended = run_child("karaka.app.http.child", asked, on_event, started=started)
    if "report" in ended.answer:
        return dict(ended.answer["report"])
    raise RuntimeError(ended.answer.get("error") or f"the ingestion process ended with exit code {ended.returncode}")


def _child() -> None:
    from karaka.app.runner import run_ingest

    asked = request()
    fields = {f.name for f in dataclasses.fields(Context)}
    ctx = Context(**{k: v for k, v in asked["ctx"].items() if k in fields})
    try:
        report = run_ingest(ctx, Path(asked["path"]), on_event=lambda e: send({"event": e}),
                            root=Path(asked["root"]), replace=bool(asked["replace"]))
    except Exception as exc:  # noqa: BLE001 - the parent records it on the run
        send({"error": str(exc) or type(exc).__name__})
        return
    send({"report": report})


if __name__ == "__main__":
    _child()
