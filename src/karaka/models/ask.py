"""One rendered, counted call of a prompt to the configured model (or ``n`` samples of it)."""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from karaka.models.call import LLMReply, call_llm_isolated, call_llm_samples

if TYPE_CHECKING:
    from karaka.services import Services


def ask(services: Services, key: str, suffix: str = "", on_token: Callable[[str], None] | None = None,
        schema: dict[str, Any] | None = None, max_tokens: int | None = None, **fields: Any) -> LLMReply:
    """Render prompt ``key`` with ``fields`` (plus ``suffix``) and make one isolated call.

    ``schema`` (a JSON schema) asks providers with constrained decoding for fitting JSON;
    ``max_tokens`` overrides the configured budget (judges need only a short reply).
    """
    prompts = services.prompts
    return call_llm_isolated(
        services.require_llm(), prompts["system_prompt"], prompts.render(key, **fields) + suffix,
        prompt_key=key, max_tokens=max_tokens or services.ctx.max_tokens, on_token=on_token, schema=schema,
    )


def ask_samples(services: Services, key: str, n: int, suffix: str = "", schema: dict[str, Any] | None = None,
                max_tokens: int | None = None, **fields: Any) -> tuple[list[LLMReply], int]:
    """``n`` independent replies to prompt ``key`` (one request where the server takes ``n``), and the requests made."""
    prompts = services.prompts
    return call_llm_samples(
        services.require_llm(), prompts["system_prompt"], prompts.render(key, **fields) + suffix,
        prompt_key=key, n=n, max_tokens=max_tokens or services.ctx.max_tokens, schema=schema,
    )
