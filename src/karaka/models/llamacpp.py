"""Local GGUF models through llama.cpp's own server (``xllamacpp``), started in-process on loopback.

``xllamacpp`` ships prebuilt CPU wheels (seconds to install) with llama.cpp's OpenAI-compatible
server. Karaka starts one server per model and process on 127.0.0.1 (a free port) and talks to it
with the ``openai`` client, so a local model and a remote vLLM or Ollama take the same path.
Structured output is enforced by llguidance inside the server, with compact JSON: no free
whitespace for a small model to spend its budget on.
"""

from __future__ import annotations

import logging
import os
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from langchain_openai import ChatOpenAI
from pydantic import PrivateAttr

from karaka.models.grammar import compact_grammar

log = logging.getLogger("karaka.models")

@dataclass(frozen=True)
class ServerOptions:
    """How the in-process server runs one GGUF file."""

    path: str
    threads: int = 0
    """CPU threads; 0 picks one per core, but one on a machine of two cores or fewer."""
    ctx: int = 8192
    """Context tokens, shared by all slots."""
    parallel: int = 3
    """Slots: requests decoded together in one batch (a GSV step sends three at once)."""
    gpu_layers: int = 0

    @property
    def n_threads(self) -> int:
        if self.threads > 0:
            return self.threads
        cores = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else (os.cpu_count() or 1)
        return 1 if cores <= 2 else cores


def parse_spec(rest: str) -> ServerOptions:
    """``PATH.gguf[:threads=N,ctx=N,parallel=N,gpu_layers=N]`` or ``smollm2[:...]``."""
    path, opts = rest, ""
    head, sep, tail = rest.rpartition(":")
    if sep and "=" in tail:
        path, opts = head, tail
    if path == "smollm2":
        from karaka.models.huggingface import packaged_smollm2

        path = str(packaged_smollm2())
    if not path or not Path(path).is_file():
        raise ValueError(f"llamacpp: GGUF file not found: {path!r}")
    values: dict[str, int] = {}
    for pair in filter(None, opts.split(",")):
        key, sep, value = pair.partition("=")
        if not sep or key.strip() not in ("threads", "ctx", "parallel", "gpu_layers") or not value.strip().isdigit():
            raise ValueError(f"llamacpp: bad option {pair!r}; use threads=N, ctx=N, parallel=N, gpu_layers=N")
        values[key.strip()] = int(value)
    return ServerOptions(path=path, **values)


def start_server(options: ServerOptions) -> Any:
    """Start llama.cpp's server in this process on 127.0.0.1 (a free port); it lives as long as the object."""
    try:
        import xllamacpp
    except ImportError as exc:
        raise ValueError("the llamacpp provider needs the 'llamacpp' extra: pip install 'karaka[llamacpp]'") from exc
    if options.n_threads == 1:
        os.environ.setdefault("OMP_WAIT_POLICY", "PASSIVE")  # a spinning waiter steals the only other core
    params = xllamacpp.CommonParams()
    params.model.path = options.path
    params.n_ctx = options.ctx
    params.n_parallel = options.parallel
    params.kv_unified = True  # slots share the context: one long prompt does not starve on a fixed share
    params.cpuparams.n_threads = options.n_threads
    params.cpuparams_batch.n_threads = options.n_threads
    params.n_gpu_layers = options.gpu_layers
    params.hostnames = ["127.0.0.1"]
    params.port = 0
    params.verbosity = -1  # the library stays quiet; llama.cpp would log every request to stderr
    server = xllamacpp.Server(params)
    log.info("llama.cpp server for %s on %s (%d thread(s), %d slot(s), ctx %d)", options.path,
             server.listening_address, options.n_threads, options.parallel, options.ctx)
    return server


class KarakaChatLlamaCpp(ChatOpenAI):
    """ChatOpenAI against a llama.cpp server, with schemas sent as compact llguidance grammars."""

    _server: Any = PrivateAttr(default=None)

    def karaka_structured(self, schema: dict[str, Any]) -> dict[str, Any]:
        """Per-call arguments that constrain the reply to compact JSON fitting ``schema``."""
        return {"extra_body": {"grammar": compact_grammar(schema)}}


def load_llamacpp_chat(rest: str, max_tokens: int, timeout: float, *, temperature: float = 0.7) -> KarakaChatLlamaCpp:
    """Start a server for the GGUF ``rest`` names and return a chat model bound to it."""
    options = parse_spec(rest)
    server = start_server(options)
    model = KarakaChatLlamaCpp(
        model=Path(options.path).stem, base_url=f"{server.listening_address}/v1",
        api_key="not-needed",  # type: ignore[arg-type]
        temperature=temperature, max_retries=0, timeout=timeout, max_completion_tokens=max_tokens,
    )
    model._server = server  # the server stops when the model is collected
    return model
