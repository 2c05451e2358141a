"""Helpers shared by nodes: one rendered, counted LLM call."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from langgraph.runtime import Runtime

from karaka.config import Context, context_from
from karaka.models.call import LLMReply, call_llm_isolated
from karaka.services import Services, get_services


def services_of(runtime: Runtime[Context] | None) -> Services:
    """The live services for a node's runtime context."""
    ctx = context_from(runtime.context if runtime is not None else None)
    return get_services(ctx)


def ask(services: Services, key: str, suffix: str = "", on_token: Callable[[str], None] | None = None,
        schema: dict[str, Any] | None = None, **fields: Any) -> LLMReply:
    """Render prompt ``key`` with ``fields`` (plus ``suffix``) and make one isolated call.

    ``schema`` (a JSON schema) asks providers with constrained decoding for fitting JSON.
    """
    prompts = services.prompts
    return call_llm_isolated(
        services.require_llm(), prompts["system_prompt"], prompts.render(key, **fields) + suffix,
        prompt_key=key, max_tokens=services.ctx.max_tokens, on_token=on_token, schema=schema,
    )


def emit(runtime: Runtime[Context] | None, event: dict[str, Any]) -> None:
    """Send a custom stream event (progress) when someone is listening."""
    writer = getattr(runtime, "stream_writer", None)
    if writer is not None:
        writer(event)
