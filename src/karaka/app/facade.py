"""The notebook-friendly facade: ``Karaka(workspace=..., llm=..., embeddings=...)``.

It prints nothing: runs report through their return values and ``on_event``; the workspace's
log file receives what the library logs. ``karaka.notebook`` renders results for people.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from karaka.app.runner import run_ingest, run_query
from karaka.config import remember_models, resolve_context
from karaka.logs import attach_workspace_log
from karaka.models import load_embeddings, load_llm, register
from karaka.services import get_services


def _spec(value: Any, kind: str) -> str:
    if value is None or isinstance(value, str):
        return value  # type: ignore[return-value]
    return register(f"{kind}-{id(value)}", value)


class Karaka:
    """Thin wrapper over the graphs; models and stores load once per process.

    ``llm`` and ``embeddings`` take a spec string or a langchain object; other settings are
    Context fields. Unset ones come from env ``KARAKA_*`` and the workspace's karaka.toml.
    """

    def __init__(self, workspace: str | Path | None = None, llm: Any = None, embeddings: Any = "wordllama",
                 **settings: Any):
        if llm is not None:
            settings["llm"] = _spec(llm, "llm")
        self.context = resolve_context({"workspace": str(workspace) if workspace else None,
                                        "embeddings": _spec(embeddings, "emb"), **settings})
        load_embeddings(self.context.embeddings)  # a re-run notes "model already loaded"
        load_llm(self.context.llm, self.context.max_tokens, timeout=self.context.llm_timeout,
                 concurrency=self.context.llm_concurrency)
        self.services = get_services(self.context)
        attach_workspace_log(self.services.workspace.log_path)
        remember_models(self.context)

    def ingest(self, path: str | Path, stop_after: str | None = None, on_event: Any = None,
               replace: bool = False) -> dict[str, Any]:
        """Ingest a file or folder; returns the run report.

        ``stop_after="embed"`` / ``"write"`` pauses after that stage (the notebook's three
        ingestion cells); the next call resumes. Re-running is safe: nothing is duplicated.
        """
        return run_ingest(self.context, path, on_event=on_event, stop_after=stop_after, replace=replace)

    def ask(self, question: str, thread_id: str | None = None) -> dict[str, Any]:
        """Answer a question with citations."""
        return run_query(self.context, question, thread_id=thread_id)

    def stats(self) -> dict[str, Any]:
        """Graph counts and documents."""
        ws = self.services.workspace
        with ws.reading():
            return {**ws.graph.stats(), "documents": len(ws.records.documents()), "vectors": len(ws.vectors)}

    def remove(self, doc_id: str) -> dict[str, int]:
        """Delete a document's nodes, edges and vectors."""
        return self.services.workspace.remove_document(doc_id)
