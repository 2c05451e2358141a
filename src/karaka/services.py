"""Live objects behind a Context: models, prompts and the store, loaded once per process."""

from __future__ import annotations

import functools
import logging
import os
import threading
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from karaka.config import Context
from karaka.models import load_embeddings, load_llm
from karaka.models.call import LLMReply, call_llm_isolated, call_llm_samples
from karaka.models.lazy import LazyEmbeddings
from karaka.prompts import Prompts, load_prompts
from karaka.store.embedded.workspace import Workspace

if TYPE_CHECKING:
    from langchain_core.embeddings import Embeddings
    from langchain_core.language_models import BaseChatModel

notice = logging.getLogger("karaka.notice")
_lock = threading.Lock()
_workspaces: dict[tuple[str, str, float, str], Workspace] = {}
_prompts: dict[tuple[str, float], Prompts] = {}


@dataclass
class Services:
    """What nodes need besides their state."""

    ctx: Context
    embeddings: Embeddings
    prompts: Prompts
    workspace: Workspace

    @property
    def llm(self) -> BaseChatModel | None:
        """The configured LLM (loaded on first use), or None for ``--llm none``."""
        return load_llm(self.ctx.llm, self.ctx.max_tokens, timeout=self.ctx.llm_timeout,
                        concurrency=self.ctx.llm_concurrency, announce=False)

    def require_llm(self) -> BaseChatModel:
        """The LLM, or a clear error when the configuration has none."""
        llm = self.llm
        if llm is None:
            raise ValueError("this step needs an LLM but --llm is 'none'")
        return llm


def _prompts_for(path: str) -> Prompts:
    mtime = Path(path).stat().st_mtime if path and Path(path).exists() else 0.0
    key = (path, mtime)
    if key not in _prompts:
        _prompts[key] = load_prompts(path or None)
    return _prompts[key]


_lazy: dict[str, LazyEmbeddings] = {}


@functools.lru_cache(maxsize=64)
def _root(workspace: str, cwd: str) -> str:
    """A workspace's absolute path (resolved once per path and cwd: every node asks)."""
    return str(Path(workspace).resolve())


def get_services(ctx: Context) -> Services:
    """Resolve a context to live objects, reusing whatever this process already loaded.

    Models load on first use: a question the graph answers never loads the embeddings or the LLM.
    """
    with _lock:
        embeddings = _lazy.get(ctx.embeddings)
        if embeddings is None:
            spec = ctx.embeddings
            embeddings = _lazy[spec] = LazyEmbeddings(lambda: load_embeddings(spec, announce=False))
        prompts = _prompts_for(ctx.prompts)
        key = (_root(ctx.workspace, os.getcwd()), ctx.embeddings, ctx.resolver_threshold, ctx.store)
        workspace = _workspaces.get(key)
        if workspace is None:
            workspace = open_store(ctx, embeddings)
            _workspaces[key] = workspace
    return Services(ctx, embeddings, prompts, workspace)


def open_store(ctx: Context, embeddings: Embeddings) -> Workspace:
    """The store a context names: its workspace directory, or a PostgreSQL database."""
    if ctx.store:
        from karaka.store.postgres.backend import PgStore

        return PgStore(ctx.store, ctx.workspace, embeddings, ctx.resolver_threshold, on_wait=notice.warning)
    return Workspace(ctx.workspace, embeddings, ctx.resolver_threshold, on_wait=notice.warning)


def forget_workspace(path: str | Path) -> None:
    """Drop cached workspaces for a path (after it is deleted or rebuilt)."""
    root = str(Path(path).resolve())
    with _lock:
        for key in [k for k in _workspaces if k[0] == root]:
            _workspaces.pop(key).close()


def close_all() -> None:
    """Close every workspace this process opened (a CLI command's end: their logs are folded in)."""
    with _lock:
        while _workspaces:
            _workspaces.popitem()[1].close()


def ask(services: Services, key: str, suffix: str = "", on_token: Callable[[str], None] | None = None,
        schema: dict[str, Any] | None = None, max_tokens: int | None = None, greedy: bool = False,
        **fields: Any) -> LLMReply:
    """Render prompt ``key`` with ``fields`` (plus ``suffix``) and make one isolated call.

    ``schema`` (a JSON schema) asks providers with constrained decoding for fitting JSON;
    ``max_tokens`` overrides the configured budget (judges need only a short reply); ``greedy``
    decodes at temperature 0 (a reading that must not change between runs).
    """
    prompts = services.prompts
    return call_llm_isolated(
        services.require_llm(), prompts["system_prompt"], prompts.render(key, **fields) + suffix,
        prompt_key=key, max_tokens=max_tokens or services.ctx.max_tokens, on_token=on_token, schema=schema,
        greedy=greedy,
    )


def ask_samples(services: Services, key: str, n: int, suffix: str = "", schema: dict[str, Any] | None = None,
                max_tokens: int | None = None, **fields: Any) -> tuple[list[LLMReply], int]:
    """``n`` independent replies to prompt ``key`` (one request where the server takes ``n``), and the requests made."""
    prompts = services.prompts
    return call_llm_samples(
        services.require_llm(), prompts["system_prompt"], prompts.render(key, **fields) + suffix,
        prompt_key=key, n=n, max_tokens=max_tokens or services.ctx.max_tokens, schema=schema,
    )
