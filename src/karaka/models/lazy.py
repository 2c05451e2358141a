"""LangChain's embeddings interface without importing LangChain, and embeddings loaded on first use.

Importing ``langchain_core.embeddings`` pulls in LangChain's runnables and callbacks (0.2–0.4 s of
a cold `karaka ask`); the interface is two methods, so our embeddings implement it directly. The
type checker still sees them as LangChain ``Embeddings``, and LangChain code that takes an
``Embeddings`` takes them (it calls the methods; nothing checks the class).
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from langchain_core.embeddings import Embeddings

    _Base = Embeddings
else:
    _Base = object


class EmbeddingsBase(_Base):
    """``embed_documents`` and ``embed_query`` come from the subclass; the async forms run them in a thread."""

    async def aembed_documents(self, texts: list[str]) -> list[list[float]]:
        """Embed passages off the event loop."""
        import asyncio

        return await asyncio.to_thread(self.embed_documents, texts)

    async def aembed_query(self, text: str) -> list[float]:
        """Embed a query off the event loop."""
        import asyncio

        return await asyncio.to_thread(self.embed_query, text)


class LazyEmbeddings(EmbeddingsBase):
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
