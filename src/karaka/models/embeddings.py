"""Embedding providers: WordLlama (bundled, offline default) and llama-3.2-nv-embedqa."""

from __future__ import annotations

import logging
import sys
import types
from pathlib import Path
from typing import Any

import numpy as np

from karaka.models.lazy import EmbeddingsBase


class _RequestsOnDemand(types.ModuleType):
    """Stands in for ``requests`` in wordllama, which needs it only to download (never here)."""

    def __getattr__(self, name: str) -> Any:
        import requests

        return getattr(requests, name)


def _quiet_import() -> Any:
    """Import wordllama without the root-logger set-up it does at import (``logging.basicConfig``).

    A library must not configure the application's logging; left alone, that call makes every
    INFO line of every logger print to stderr. ``requests`` (0.1 s of a cold question) is imported
    only if wordllama ever reaches for it.
    """
    root = logging.getLogger()
    handlers, level = list(root.handlers), root.level
    stand_in = None if "requests" in sys.modules else _RequestsOnDemand("requests")
    if stand_in is not None:
        sys.modules["requests"] = stand_in
    try:
        import wordllama
    finally:
        if stand_in is not None and sys.modules.get("requests") is stand_in:
            del sys.modules["requests"]
    for handler in [h for h in root.handlers if h not in handlers]:
        root.removeHandler(handler)
    root.setLevel(level)
    return wordllama


class WordLlamaEmbeddings(EmbeddingsBase):
    """WordLlama static embeddings; the weights ship inside the wheel."""

    def __init__(self, dim: int = 256):
        wordllama = _quiet_import()
        WordLlama = wordllama.WordLlama  # noqa: N806 - the library's class

        self.dim = dim
        self._model = WordLlama.load(
            cache_dir=Path(wordllama.__file__).parent, disable_download=True, dim=dim
        )

    def _embed(self, texts: list[str]) -> list[list[float]]:
        if not texts:
            return []
        vectors = np.asarray(self._model.embed(texts, norm=True), dtype=np.float32)
        return vectors.tolist()

    def embed_documents(self, texts: list[str]) -> list[list[float]]:
        """Embed passages."""
        return self._embed(texts)

    def embed_query(self, text: str) -> list[float]:
        """Embed a query."""
        return self._embed([text])[0]


class NVEmbedQAEmbeddings(EmbeddingsBase):
    """nvidia/llama-3.2-nv-embedqa-1b-v2 with the prefixes its model card asks for."""

    def __init__(self, model_id: str = "nvidia/llama-3.2-nv-embedqa-1b-v2"):
        try:
            import torch
            from transformers import AutoModel, AutoTokenizer
        except ImportError as exc:
            raise ValueError("huggingface embeddings need the 'hf' extra") from exc
        self._torch = torch
        self._tokenizer = AutoTokenizer.from_pretrained(model_id, trust_remote_code=True)
        self._model: Any = AutoModel.from_pretrained(model_id, trust_remote_code=True).eval()
        if torch.cuda.is_available():
            self._model = self._model.to("cuda")

    def _embed(self, texts: list[str]) -> list[list[float]]:
        torch = self._torch
        batch = self._tokenizer(texts, padding=True, truncation=True, max_length=512, return_tensors="pt")
        batch = {k: v.to(self._model.device) for k, v in batch.items()}
        with torch.no_grad():
            hidden = self._model(**batch).last_hidden_state
        mask = batch["attention_mask"].unsqueeze(-1).to(hidden.dtype)
        pooled = (hidden * mask).sum(1) / mask.sum(1)
        pooled = torch.nn.functional.normalize(pooled, dim=-1)
        return pooled.float().cpu().numpy().tolist()

    def embed_documents(self, texts: list[str]) -> list[list[float]]:
        """Embed passages with the ``passage:`` prefix."""
        return self._embed([f"passage: {t}" for t in texts])

    def embed_query(self, text: str) -> list[float]:
        """Embed a query with the ``query:`` prefix."""
        return self._embed([f"query: {text}"])[0]
