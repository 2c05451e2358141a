"""Embeddings that load their model on the first call, and import nothing heavy until then."""

from __future__ import annotations

import threading
from collections.abc import Callable
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from langchain_core.embeddings import Embeddings

    Base = Embeddings
else:  # LangChain's base class (and its 0.4 s import) is not needed to hand calls on
    Base = object


class LazyEmbeddings(Base):
    """LangChain's ``Embeddings`` interface over a model loaded on the first call.

    A question answered from the graph alone never pays for loading the model, nor for importing
    LangChain to describe it.
    """

    def __init__(self, load: Callable[[], Embeddings]):
        self._load = load
        self._model: Embeddings | None = None
        self._lock = threading.Lock()

    @property
    def model(self) -> Embeddings:
        """The real embeddings (loaded now if not yet)."""
        with self._lock:
            if self._model is None:
                self._model = self._load()
            return self._model

    def embed_documents(self, texts: list[str]) -> list[list[float]]:
        """Embed passages with the real model."""
        return self.model.embed_documents(texts)

    def embed_query(self, text: str) -> list[float]:
        """Embed a query with the real model."""
        return self.model.embed_query(text)
