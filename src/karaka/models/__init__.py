"""Model providers chosen by a spec string; one load per process.

LLM specs: ``huggingface:MODEL[:batch=N,wait_ms=M]`` (hub id, local dir, .gguf path or ``smollm2``;
requests arriving within M ms are decoded N at a time),
``openai:MODEL@BASE_URL``, ``llamacpp:PATH.gguf[:threads=N,ctx=N,parallel=N]`` (or
``llamacpp:smollm2``; llama.cpp's server in-process on loopback), ``simulated[:latency=S,score=N]``,
``none`` (no LLM: parser extraction and extractive answers), or ``registered:NAME``
for an object passed in from Python. Embedding specs: ``wordllama``,
``huggingface[:MODEL]``, ``registered:NAME``.
"""

from __future__ import annotations

import logging
import os
import threading
from pathlib import Path
from typing import TYPE_CHECKING, Any

from karaka.models.call import set_concurrency

if TYPE_CHECKING:  # the provider libraries load with the provider a spec names, not at import
    from langchain_core.embeddings import Embeddings
    from langchain_core.language_models import BaseChatModel

__all__ = ["load_embeddings", "load_llm", "register"]

log = logging.getLogger("karaka.models")
notice = logging.getLogger("karaka.notice")
_lock = threading.Lock()
_cache: dict[str, Any] = {}
_registered: dict[str, Any] = {}


def register(name: str, model: Any) -> str:
    """Make a Python object reachable as spec ``registered:NAME``; returns the spec."""
    _registered[name] = model
    return f"registered:{name}"


def _options(text: str) -> dict[str, str]:
    pairs = [p for p in text.split(",") if p]
    out = {}
    for pair in pairs:
        if "=" not in pair:
            raise ValueError(f"bad option {pair!r}: expected key=value")
        key, value = pair.split("=", 1)
        out[key.strip()] = value.strip()
    return out


def _build_llm(spec: str, max_tokens: int, timeout: float) -> BaseChatModel | None:
    kind, _, rest = spec.partition(":")
    if kind == "none":
        return None
    if kind == "simulated":
        from karaka.models.simulated import SimulatedChatModel

        opts = _options(rest)
        unknown = set(opts) - {"latency", "score"}
        if unknown:
            raise ValueError(f"simulated: unknown option(s) {sorted(unknown)}")
        return SimulatedChatModel(
            latency=float(opts.get("latency", 0)), score=int(opts.get("score", 96))
        )
    if kind == "huggingface":
        name, opts = rest, {}
        head, _, tail = rest.rpartition(":")
        if head and "=" in tail:
            name, opts = head, _options(tail)
        unknown = set(opts) - {"batch", "wait_ms"}
        if unknown:
            raise ValueError(f"huggingface: unknown option(s) {sorted(unknown)}: use batch=N,wait_ms=M")
        name = name or "nvidia/Llama-3.1-Nemotron-Nano-8B-v1"
        _hub_model_at_hand(name)
        from karaka.models.huggingface import load_huggingface_chat

        return load_huggingface_chat(name, max_tokens,
                                     batch_size=int(opts.get("batch", 16)), wait_ms=float(opts.get("wait_ms", 5)))
    if kind == "openai":
        try:
            from langchain_openai import ChatOpenAI
        except ImportError as exc:
            raise ValueError("the openai provider needs the 'openai' extra") from exc
        model, _, base_url = rest.partition("@")
        if not model:
            raise ValueError("openai spec needs a model: openai:MODEL@http://host:port/v1")
        return ChatOpenAI(
            model=model, base_url=base_url or os.environ.get("OPENAI_BASE_URL"),
            api_key=os.environ.get("OPENAI_API_KEY", "not-needed"),  # type: ignore[arg-type]
            temperature=0.7, max_retries=0, timeout=timeout,
        )
    if kind == "llamacpp":
        from karaka.models.llamacpp import load_llamacpp_chat

        return load_llamacpp_chat(rest, max_tokens, timeout)
    if kind == "registered":
        if rest not in _registered:
            raise ValueError(f"no model registered as {rest!r}")
        return _registered[rest]  # type: ignore[no-any-return]
    raise ValueError(
        f"unknown LLM spec {spec!r}: use huggingface:, openai:, llamacpp:, simulated, none"
    )


def _hub_model_at_hand(name: str) -> None:
    """Refuse, before torch and transformers load (seconds), a hub model that is neither cached nor to be fetched.

    Offline (``HF_HUB_OFFLINE``, the CLI's default) a hub id whose ``config.json`` is not in the
    local cache cannot load; a local folder, a GGUF file and ``smollm2`` are left to the loader.
    """
    if name == "smollm2" or name.endswith(".gguf") or Path(name).exists() \
            or os.environ.get("HF_HUB_OFFLINE", "").lower() not in ("1", "true", "yes", "on"):
        return
    from huggingface_hub import try_to_load_from_cache

    try:
        found = try_to_load_from_cache(name, "config.json")
    except ValueError:  # not a hub id either ("no such/dir"): no model by that name
        found = None
    if not isinstance(found, str):
        raise ValueError(
            f"huggingface:{name}: cannot load the model (it is not in the local Hugging Face cache and "
            "HF_HUB_OFFLINE is set). Download it first (unset HF_HUB_OFFLINE), or choose another --llm: none, "
            "simulated, openai:MODEL@URL, huggingface:smollm2")


def _announce(spec: str) -> None:
    notice.info("model already loaded: %s", spec)


def load_llm(spec: str, max_tokens: int = 512, announce: bool = True, *, timeout: float = 600.0,
             concurrency: int = 4) -> BaseChatModel | None:
    """Load (once per process) the chat model a spec names; ``none`` gives None.

    A second load returns the cached model and, with ``announce``, says so (a notice: "model
    already loaded"); the graphs' own look-ups pass ``announce=False``. ``concurrency`` bounds the
    calls in flight to this model (one server's slots); ``timeout`` is the client's wait for a reply.
    """
    key = f"llm|{spec}|{timeout}"
    with _lock:
        if key in _cache:
            if announce and not spec.startswith(("simulated", "registered", "none")):
                _announce(spec)
            return _cache[key]  # type: ignore[no-any-return]
        model = _build_llm(spec, max_tokens, timeout)
        if model is not None:  # a model that batches takes as many calls as it decodes at once
            batch = getattr(getattr(model, "batcher", None), "batch_size", 0)
            set_concurrency(model, max(concurrency, batch))
        if not spec.startswith("registered"):
            _cache[key] = model
        return model


def load_embeddings(spec: str, announce: bool = True) -> Embeddings:
    """Load (once per process) the embeddings a spec names (a second load says so, as ``load_llm``)."""
    kind, _, rest = spec.partition(":")
    if kind == "registered":
        if rest not in _registered:
            raise ValueError(f"no embeddings registered as {rest!r}")
        return _registered[rest]  # type: ignore[no-any-return]
    key = f"emb|{spec}"
    with _lock:
        if key in _cache:
            if announce:
                _announce(spec)
            return _cache[key]  # type: ignore[no-any-return]
        if kind == "wordllama":
            from karaka.models.embeddings import WordLlamaEmbeddings

            model: Embeddings = WordLlamaEmbeddings(dim=int(rest) if rest else 256)
        elif kind == "huggingface":
            from karaka.models.embeddings import NVEmbedQAEmbeddings

            model = NVEmbedQAEmbeddings(rest or "nvidia/llama-3.2-nv-embedqa-1b-v2")
        else:
            raise ValueError(f"unknown embeddings spec {spec!r}: use wordllama or huggingface")
        _cache[key] = model
        return model


def load_cross_encoder(name: str) -> Any:
    """A cross-encoder scorer ``[(query, passage)] -> [float]`` (needs the 'hf' extra)."""
    key = f"rerank|{name}"
    with _lock:
        if key in _cache:
            return _cache[key]
        try:
            import torch
            from transformers import AutoModelForSequenceClassification, AutoTokenizer
        except ImportError as exc:
            raise ValueError("a cross-encoder reranker needs the 'hf' extra") from exc
        tokenizer = AutoTokenizer.from_pretrained(name)
        model = AutoModelForSequenceClassification.from_pretrained(name).eval()

        def score(pairs: list[tuple[str, str]]) -> list[float]:
            batch = tokenizer([q for q, _ in pairs], [p for _, p in pairs], padding=True,
                              truncation=True, return_tensors="pt")
            with torch.no_grad():
                logits = model(**batch).logits
            return logits[:, -1].float().tolist()

        _cache[key] = score
        return score
