"""The notebook-friendly facade: ``Karaka(workspace=..., llm=..., embeddings=...)``."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from karaka.config import resolve_context
from karaka.models import load_embeddings, load_llm, register
from karaka.runner import run_ingest, run_query
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

    def __init__(self, workspace: str | Path = "karaka_workspace", llm: Any = None,
                 embeddings: Any = "wordllama", **settings: Any):
        if llm is not None:
            settings["llm"] = _spec(llm, "llm")
        self.context = resolve_context({"workspace": str(workspace), "embeddings": _spec(embeddings, "emb"), **settings})
        load_embeddings(self.context.embeddings)  # says "model already loaded" on a re-run
        load_llm(self.context.llm, self.context.max_tokens)
        self.services = get_services(self.context)

    def ingest(self, path: str | Path, stop_after: str | None = None, on_event: Any = None) -> dict[str, Any]:
        """Ingest a file or folder; returns the run report.

        ``stop_after="embed"`` / ``"write"`` pauses after that stage (the notebook's three
        ingestion cells); the next call resumes. Re-running is safe: nothing is duplicated.
        """
        return run_ingest(self.context, path, on_event=on_event, stop_after=stop_after)

    def ask(self, question: str, thread_id: str | None = None) -> dict[str, Any]:
        """Answer a question with citations."""
        return run_query(self.context, question, thread_id=thread_id)

    def stats(self) -> dict[str, Any]:
        """Graph counts and documents."""
        ws = self.services.workspace
        return {**ws.graph.stats(), "documents": len(ws.records.documents()), "vectors": len(ws.vectors)}

    def remove(self, doc_id: str) -> dict[str, int]:
        """Delete a document's nodes, edges and vectors."""
        return self.services.workspace.remove_document(doc_id)
