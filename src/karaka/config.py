"""Settings, resolved here and nowhere else: flags > env ``KARAKA_*`` > workspace karaka.toml > defaults.

``Context`` holds what the graphs read (LangGraph Studio shows and edits it); ``ServerSettings``
holds what only ``karaka serve`` needs (keys, roots, ports), which Studio never sees.
"""

from __future__ import annotations

import dataclasses
import functools
import logging
import os
import tomllib
from dataclasses import dataclass, field, fields
from pathlib import Path
from typing import Any, Literal

CONFIG_FILE = "karaka.toml"
DEFAULT_LLM = "huggingface:nvidia/Llama-3.1-Nemotron-Nano-8B-v1"
RECORDED = ("llm", "extractor", "embeddings")


def default_workspace() -> str:
    """``$XDG_DATA_HOME/karaka/workspace`` (``~/.local/share/karaka/workspace``), not the cwd."""
    base = os.environ.get("XDG_DATA_HOME") or str(Path.home() / ".local" / "share")
    return str(Path(base) / "karaka" / "workspace")


def _setting(default: Any, description: str, group: str) -> Any:
    return field(default=default, metadata={"description": description, "group": group})


@dataclass(kw_only=True)
class Context:
    """Runtime settings of the three graphs, read through ``Runtime[Context]``.

    Every field is a plain value so that LangGraph Studio can render and edit it; live objects
    (models, stores) are looked up from these values in ``karaka.services``.
    """

    # -- where and with what ----------------------------------------------------------------
    workspace: str = _setting("", "Workspace directory (graph, vectors, records, checkpoints, logs). "
                              "Empty: $XDG_DATA_HOME/karaka/workspace.", "models")
    store: str = _setting("", "Where the knowledge base lives: empty for the workspace directory, or "
                          "postgresql://USER@HOST:PORT/DB for a database shared by many workers and servers "
                          "(the workspace directory then keeps config, logs and reports).", "models")
    llm: str = _setting(DEFAULT_LLM, "LLM spec: huggingface:MODEL, openai:MODEL@URL, llamacpp:PATH.gguf, "
                        "simulated, or none (parser extraction, parser plans, extractive answers).", "models")
    preset: str = _setting("", "A named group of settings, each below the ones given: offline, small-model or "
                           "strong-model (see PRESETS).", "models")
    embeddings: str = _setting("wordllama", "Embeddings spec: wordllama (bundled) or huggingface[:MODEL].", "models")
    prompts: str = _setting("", "A prompts JSON file overriding the packaged prompts (created when missing).", "models")
    max_tokens: int = _setting(512, "Most tokens one LLM reply may use.", "models")
    llm_timeout: float = _setting(600.0, "Seconds the client waits for one LLM reply before it gives up "
                                  "(a slow reply is waited for, not re-sent).", "models")
    llm_concurrency: int = _setting(4, "LLM calls in flight at once against one server.", "models")
    # -- GSV-Retry ------------------------------------------------------------------------------
    max_retries: int = _setting(5, "GSV-Retry attempts before a unit is exhausted.", "gsv")
    fast_path: bool = _setting(True, "Accept Candidate_A alone when it scores >= 95 and the blind verifier "
                               "picks it.", "gsv")
    rule_checks: bool = _setting(True, "Reject candidates whose words are not in the line, or whose kartā "
                                 "and karma are swapped against the parse.", "gsv")
    parser_candidate: bool = _setting(True, "Use the parser's analysis as the free Candidate_A; LLM candidates "
                                      "correct it; on exhaustion it is written as parser-fallback.", "gsv")
    llm_writes: bool = _setting(False, "The LLM writes Candidates B and C (a correction of the parser's draft), "
                                "for a strong model (7B or more); off, they are the parser's other readings of "
                                "the line and the LLM only chooses. A line the parser finds no action in is "
                                "written by the LLM either way.", "gsv")
    loop_steps: Literal["auto", "graph", "direct"] = _setting(
        "auto", "How a GSV-Retry loop runs: graph (a LangGraph child, each step streamed and traced), direct "
        "(the same nodes and routes walked without Pregel: faster), or auto (graph when the caller streams "
        "steps or traces, as Studio does; else direct).", "gsv")
    # -- ingestion ------------------------------------------------------------------------------
    extractor: Literal["llm", "parser"] = _setting("llm", "Who extracts: the LLM through GSV-Retry, or the "
                                                   "parser alone (implies --llm none unless an LLM is named).",
                                                   "ingestion")
    strategy: Literal["gsv", "batched"] = _setting("gsv", "gsv: one loop per unit; batched: one pass and one "
                                                   "validation call per batch, loops only for failures.", "ingestion")
    window: int = _setting(4, "Sentences per extraction unit of the LLM extractor (more: fewer requests per line; "
                                 "4 measured best, docs/benchmarks.md).", "ingestion")
    concurrency: int = _setting(4, "Extraction units in flight at once.", "ingestion")
    max_line_chars: int = _setting(1000, "Longer sentences are cut at word boundaries.", "ingestion")
    ocr_languages: str = _setting("eng", "Tesseract language packs for scanned PDF pages, joined by + (eng+fra); "
                                  "those not installed are left out.", "ingestion")
    speech_model: str = _setting("", "Speech recogniser for recordings and spoken questions: empty for the packaged "
                                 "Whisper tiny.en, or a faster-whisper model directory (small.en, large-v3).",
                                 "ingestion")
    reader_memory_mb: int = _setting(1024, "Memory a PDF, EPUB or DOCX file may take to read (its reader runs "
                                     "in a child process with this limit; a decompression bomb fails that file).",
                                     "ingestion")
    reader_seconds: float = _setting(1800.0, "Seconds a PDF, EPUB or DOCX file may take to read, OCR included.",
                                     "ingestion")
    max_pages: int = _setting(2000, "A PDF of more pages is skipped with the reason.", "ingestion")
    max_lines: int = _setting(200_000, "A file of more lines (sentences) is skipped with the reason.", "ingestion")
    allow_private_urls: bool = _setting(False, "Fetch URLs that lead to loopback, private or link-local addresses "
                                        "(refused by default: a server must not be a way into its own network).",
                                        "ingestion")
    url_max_bytes: int = _setting(50_000_000, "The largest web page or file fetched by URL, in bytes.", "ingestion")
    url_timeout: float = _setting(30.0, "Seconds a URL may take in all, redirects included.", "ingestion")
    resolver_threshold: float = _setting(0.85, "Embedding similarity at which two names are one entity.",
                                         "ingestion")
    coreference: bool = _setting(True, "Link pronouns to their antecedents (IS_SAME_AS).", "ingestion")
    coreference_llm: bool = _setting(False, "The LLM chooses a pronoun's antecedent among the heuristic's options "
                                     "(in both orders to replace its first), for a strong model; off, the "
                                     "heuristic's answer stands and costs no request (Qwen 1.5B's 8 "
                                     "replacements on the review samples were all wrong).", "ingestion")
    metaphors: bool = _setting(True, "Link epithets to known entities through GSV (needs an LLM).", "ingestion")
    entity_types: bool = _setting(True, "Type entities (Person, Location, ...).", "ingestion")
    causality: bool = _setting(True, "Find CAUSES links between actions.", "ingestion")
    # -- questions ------------------------------------------------------------------------------
    web_search: str = _setting("", "Web search as a fallback when the documents' answer is not proved: tavily, "
                               "searxng or brave (off when empty); only the question is sent.", "query")
    web_search_url: str = _setting("", "The provider's address (searxng: the instance; tavily and brave have "
                                   "defaults).", "query")
    web_search_key: str = _setting("", "The provider's key (else env TAVILY_API_KEY or BRAVE_API_KEY).", "query")
    web_search_timeout: float = _setting(10.0, "Seconds a web search may take.", "query")
    web_results: int = _setting(5, "Web results read for an answer.", "query")
    web_fetch_pages: bool = _setting(False, "Also fetch each result's page and read its text.", "query")
    mmr_lambda: float = _setting(1.0, "Maximal marginal relevance over the retrieved lines' vectors: 1 keeps the "
                                 "fused ranking (measured best on the dev sets), lower trades relevance for "
                                 "diversity (0.5: half each); duplicates are dropped whenever it is below 1.",
                                 "query")
    llm_plans: Literal["fallback", "always"] = _setting(
        "fallback", "With an LLM, who plans a question: fallback (the parser; the GSV-Retry loop only for what "
        "the parser cannot plan and for follow-ups) or always (the loop, seeded with the parser's plan).", "query")
    reranker: str = _setting("", "Cross-encoder model that reorders the retrieved lines (optional, needs the hf "
                             "extra).", "query")
    max_citations: int = _setting(5, "Most cited lines per answer, best first.", "query")


@dataclass(kw_only=True)
class ServerSettings:
    """What ``karaka serve`` needs besides a Context; never shown in Studio."""

    api_key: str = _setting("", "When set, every endpoint but /health needs it (Bearer or X-API-Key).", "server")
    public_read: bool = _setting(False, "With an API key: let anonymous clients read (chat, runs, documents).",
                                 "server")
    ingest_root: str = _setting("", "POST /ingest paths must lie inside it (default: the server's cwd).", "server")
    max_request_bytes: int = _setting(20 * 1024 * 1024, "Larger request bodies get 413.", "server")
    max_turns: int = _setting(5, "Turns kept per conversation thread.", "server")
    allowed_origins: str = _setting("", "Comma-separated web origins (https://host:port) whose pages may change "
                                        "this server (ingest, delete, chat); its own origin always may.", "server")
    allowed_hosts: str = _setting("", "Comma-separated Host names a loopback server answers to besides localhost "
                                      "and 127.0.0.1 ('*': any; guards against DNS rebinding).", "server")


_BOOL_TRUE = {"1", "true", "yes", "on"}
_BOOL_FALSE = {"0", "false", "no", "off"}


def _coerce(name: str, kind: Any, value: Any) -> Any:
    """Convert a string setting to the field's type; raise ValueError naming the field."""
    if not isinstance(value, str):
        return value
    kind_name = kind if isinstance(kind, str) else getattr(kind, "__name__", str(kind))
    try:
        if kind_name == "bool":
            low = value.strip().lower()
            if low in _BOOL_TRUE:
                return True
            if low in _BOOL_FALSE:
                return False
            raise ValueError(value)
        if kind_name == "int":
            return int(value)
        if kind_name == "float":
            return float(value)
    except ValueError:
        raise ValueError(f"setting {name!r}: cannot read {value!r} as {kind_name}") from None
    return value


def read_workspace_config(workspace: str | Path) -> dict[str, Any]:
    """Read ``karaka.toml`` from a workspace; an absent file is an empty config."""
    path = Path(workspace) / CONFIG_FILE
    if not path.exists():
        return {}
    try:
        data = tomllib.loads(path.read_text(encoding="utf-8"))
    except tomllib.TOMLDecodeError as exc:
        raise ValueError(f"{path}: invalid TOML: {exc}") from exc
    return dict(data.get("karaka", data))


def _layers(kind: type, flags: dict[str, Any], env: dict[str, str], workspace: str | None) -> dict[str, Any]:
    known = {f.name: f for f in fields(kind)}
    unknown = set(flags) - set(known)
    if unknown:
        raise ValueError(f"unknown setting(s): {sorted(unknown)}")
    from_env = {name: env[f"KARAKA_{name.upper()}"] for name in known if f"KARAKA_{name.upper()}" in env}
    from_file = read_workspace_config(workspace) if workspace else {}
    merged: dict[str, Any] = {}
    for source in (from_file, from_env, flags):
        for name, value in source.items():
            if name not in known:
                if source is from_file and kind is not Context:
                    continue
                raise ValueError(f"unknown setting {name!r} in {CONFIG_FILE} or KARAKA_* env")
            merged[name] = _coerce(name, known[name].type, value)
    return merged


def default_llm(env: dict[str, str]) -> str:
    """The design's Nemotron where it can be loaded here (its weights cached and a CUDA GPU), else none.

    Decided before any work starts, so a plain ``karaka ingest docs/`` on a laptop runs the offline
    parser instead of failing half-way on a model it cannot load; one notice says so.
    """
    hub = env.get("HF_HUB_CACHE") or str(Path(env.get("HF_HOME") or Path.home() / ".cache" / "huggingface") / "hub")
    return _default_for(hub)


@functools.lru_cache(maxsize=4)
def _default_for(hub: str) -> str:
    model = DEFAULT_LLM.split(":", 1)[1]
    if any((Path(hub) / f"models--{model.replace('/', '--')}" / "snapshots").glob("*/config.json")):
        import torch  # only where the weights are: a laptop without them never imports it

        if torch.cuda.is_available():
            return DEFAULT_LLM
    logging.getLogger("karaka.notice").warning(
        "no GPU with %s here: using the offline parser (name a model with --llm, or set KARAKA_LLM)", model)
    return "none"


PRESETS: dict[str, dict[str, Any]] = {
    "offline": {"llm": "none", "extractor": "parser", "metaphors": False, "coreference_llm": False},
    "small-model": {"extractor": "llm", "parser_candidate": True, "llm_writes": False, "fast_path": True,
                    "llm_plans": "fallback", "coreference_llm": False, "metaphors": False},
    "strong-model": {"extractor": "llm", "parser_candidate": True, "llm_writes": True, "fast_path": True,
                     "llm_plans": "always", "coreference_llm": True, "metaphors": True},
}
"""Named settings (paper-qa's idea): ``offline``, the parser and no model; ``small-model`` (SmolLM2,
Qwen 1.5B), where the model chooses among the parser's readings and plans only what the parser
cannot; ``strong-model`` (Nemotron 8B and up), where it writes candidates, plans every question,
picks pronouns' antecedents and links metaphors. A setting given by flag, env or the workspace's
file wins over its preset."""


def resolve_context(flags: dict[str, Any] | None = None, env: dict[str, str] | None = None) -> Context:
    """Build a Context from flags, then env ``KARAKA_*``, then the workspace's toml, then defaults.

    The parser extractor implies no LLM unless one is named; no LLM implies the parser extractor.

    Args:
        flags: values given explicitly (None values are ignored).
        env: environment mapping; defaults to ``os.environ``.
    """
    flags = {k: v for k, v in (flags or {}).items() if v is not None}
    env = dict(os.environ if env is None else env)
    workspace = flags.get("workspace") or env.get("KARAKA_WORKSPACE") or default_workspace()
    merged = _layers(Context, flags, env, workspace)
    merged["workspace"] = str(workspace)
    preset = merged.get("preset") or ""
    if preset and preset not in PRESETS:
        raise ValueError(f"setting 'preset': {preset!r} is none of {', '.join(PRESETS)}")
    for name, value in PRESETS.get(preset, {}).items():
        merged.setdefault(name, value)
    if merged.get("extractor") == "parser" and "llm" not in merged:
        merged["llm"] = "none"
    if "llm" not in merged:
        merged["llm"] = default_llm(env)
    if merged.get("llm") == "none":
        merged.setdefault("extractor", "parser")
    ctx = Context(**merged)
    validate_context(ctx)
    object.__setattr__(ctx, "_resolved", True)
    return ctx


def resolve_server(flags: dict[str, Any] | None = None, env: dict[str, str] | None = None) -> ServerSettings:
    """Server settings from flags, then env ``KARAKA_*`` (never from the workspace file: keys stay out of it)."""
    flags = {k: v for k, v in (flags or {}).items() if v is not None}
    settings = ServerSettings(**_layers(ServerSettings, flags, dict(os.environ if env is None else env), None))
    if settings.max_turns < 1:
        raise ValueError(f"max_turns must be >= 1, got {settings.max_turns}")
    return settings


def validate_context(ctx: Context) -> None:
    """Raise ValueError naming the first bad setting."""
    for name in ("window", "max_retries", "concurrency", "llm_concurrency", "max_citations", "max_tokens"):
        if getattr(ctx, name) < 1:
            raise ValueError(f"{name} must be >= 1, got {getattr(ctx, name)}")
    if ctx.llm_timeout <= 0:
        raise ValueError(f"llm_timeout must be > 0, got {ctx.llm_timeout}")
    if ctx.strategy not in ("gsv", "batched"):
        raise ValueError(f"strategy must be gsv or batched, got {ctx.strategy!r}")
    if ctx.loop_steps not in ("auto", "graph", "direct"):
        raise ValueError(f"loop_steps must be auto, graph or direct, got {ctx.loop_steps!r}")
    if ctx.llm_plans not in ("fallback", "always"):
        raise ValueError(f"llm_plans must be fallback or always, got {ctx.llm_plans!r}")
    if ctx.extractor not in ("llm", "parser"):
        raise ValueError(f"extractor must be llm or parser, got {ctx.extractor!r}")
    if ctx.store and not ctx.store.startswith(("postgresql://", "postgres://")):
        raise ValueError(f"store must be empty (the workspace directory) or postgresql://..., got {ctx.store!r}")
    if not 0 < ctx.resolver_threshold <= 1:
        raise ValueError(f"resolver_threshold must be in (0, 1], got {ctx.resolver_threshold}")


def check_ingest_settings(ctx: Context) -> None:
    """What only ingestion needs: an LLM to extract with, unless the parser extracts."""
    if ctx.llm == "none" and ctx.extractor == "llm":
        raise ValueError("--extractor llm needs an LLM: name one with --llm, or use --extractor parser")


def context_from(value: Context | dict[str, Any] | None) -> Context:
    """Accept a Context, or the dict (or nothing) that ``langgraph dev`` / Studio sends.

    What is not given comes from env ``KARAKA_*``, the workspace toml and the defaults, so a
    dev server started with ``.env.example`` runs offline without any context in the request.
    Studio fills the context form with the schema defaults (and LangGraph may hand over a
    Context built from them), so a value equal to its default counts as not given.
    """
    if isinstance(value, Context):
        if getattr(value, "_resolved", False):
            return value
        value = as_dict(value)
    defaults = {f.name: f.default for f in fields(Context)}
    return resolve_context({k: v for k, v in (value or {}).items() if k in defaults and v != defaults[k]})


def as_dict(ctx: Context) -> dict[str, Any]:
    """Plain-dict form of a context."""
    return dataclasses.asdict(ctx)


def remember_models(ctx: Context) -> bool:
    """Write the models a workspace is built with to its karaka.toml, once; True if written.

    Later ``ask``/``serve`` on the workspace then continue with them instead of the default LLM.
    Every entry point that ingests calls this (through the runner), so a workspace made from
    Python is recorded like one made by the CLI.
    """
    from karaka.store.atomic import atomic_write_text

    config = Path(ctx.workspace) / CONFIG_FILE
    if config.exists() or ctx.llm.startswith("registered") or ctx.embeddings.startswith("registered"):
        return False
    body = "".join(f'{name} = "{getattr(ctx, name)}"\n' for name in RECORDED)
    if ctx.store:
        from karaka.store.postgres.db import redact

        body += f'store = "{redact(ctx.store, mark="")}"\n'  # a password stays in PGPASSWORD or ~/.pgpass
    atomic_write_text(config, "[karaka]\n" + body)
    return True
