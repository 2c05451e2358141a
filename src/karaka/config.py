"""Settings: one context dataclass, resolved flags > env ``KARAKA_*`` > workspace toml > defaults."""

from __future__ import annotations

import dataclasses
import os
import tomllib
from dataclasses import dataclass, field, fields
from pathlib import Path
from typing import Any, Literal

CONFIG_FILE = "karaka.toml"
DEFAULT_LLM = "huggingface:nvidia/Llama-3.1-Nemotron-Nano-8B-v1"


@dataclass(kw_only=True)
class Context:
    """Runtime settings shared by every graph (read through ``Runtime[Context]``).

    Every field is a plain value so that LangGraph Studio can render and edit it;
    live objects (models, stores) are looked up from these values in ``services``.
    """

    workspace: str = field(default="karaka_workspace", metadata={"description": "Workspace dir."})
    llm: str = field(default=DEFAULT_LLM, metadata={"description": "LLM spec, e.g. simulated."})
    embeddings: str = field(default="wordllama", metadata={"description": "Embeddings spec."})
    prompts: str = field(default="", metadata={"description": "User prompts file (optional)."})
    max_retries: int = 5
    fast_path: bool = True
    max_tokens: int = 512
    window: int = 1
    strategy: Literal["gsv", "batched"] = "gsv"
    extractor: Literal["llm", "parser"] = "llm"
    rule_checks: bool = True
    parser_candidate: bool = False
    concurrency: int = 4
    resolver_threshold: float = 0.85
    coreference: bool = True
    metaphors: bool = True
    entity_types: bool = True
    causality: bool = True
    answer_checks: bool = True
    reranker: str = ""
    max_line_chars: int = 1000
    api_key: str = ""
    ingest_root: str = ""


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


def resolve_context(flags: dict[str, Any] | None = None, env: dict[str, str] | None = None) -> Context:
    """Build a Context from flags, then env ``KARAKA_*``, then the workspace's toml, then defaults.

    Args:
        flags: values given explicitly (None values are ignored).
        env: environment mapping; defaults to ``os.environ``.
    """
    flags = {k: v for k, v in (flags or {}).items() if v is not None}
    env = dict(os.environ if env is None else env)
    known = {f.name: f for f in fields(Context)}
    unknown = set(flags) - set(known)
    if unknown:
        raise ValueError(f"unknown setting(s): {sorted(unknown)}")
    from_env = {
        name: env[f"KARAKA_{name.upper()}"] for name in known if f"KARAKA_{name.upper()}" in env
    }
    workspace = flags.get("workspace") or from_env.get("workspace") or Context.workspace
    from_file = read_workspace_config(workspace)
    merged: dict[str, Any] = {}
    for source in (from_file, from_env, flags):
        for name, value in source.items():
            if name not in known:
                raise ValueError(f"unknown setting {name!r} in {CONFIG_FILE} or KARAKA_* env")
            merged[name] = _coerce(name, known[name].type, value)
    merged["workspace"] = str(workspace)
    if merged.get("llm") == "none":
        merged.setdefault("extractor", "parser")  # no LLM: the parser extracts
    ctx = Context(**merged)
    validate_context(ctx)
    object.__setattr__(ctx, "_resolved", True)
    return ctx


def validate_context(ctx: Context) -> None:
    """Raise ValueError naming the first bad setting."""
    if ctx.window < 1:
        raise ValueError(f"window must be >= 1, got {ctx.window}")
    if ctx.max_retries < 1:
        raise ValueError(f"max_retries must be >= 1, got {ctx.max_retries}")
    if ctx.concurrency < 1:
        raise ValueError(f"concurrency must be >= 1, got {ctx.concurrency}")
    if ctx.strategy not in ("gsv", "batched"):
        raise ValueError(f"strategy must be gsv or batched, got {ctx.strategy!r}")
    if ctx.extractor not in ("llm", "parser"):
        raise ValueError(f"extractor must be llm or parser, got {ctx.extractor!r}")
    if ctx.llm == "none" and ctx.extractor == "llm":
        raise ValueError("--llm none needs --extractor parser (there is no LLM to extract with)")
    if not 0 < ctx.resolver_threshold <= 1:
        raise ValueError(f"resolver_threshold must be in (0, 1], got {ctx.resolver_threshold}")


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
