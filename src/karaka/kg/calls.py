"""The two ways operations reach a model: one rendered, counted LLM call, and one GSV-Retry loop."""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from karaka.config import Context
from karaka.models.call import LLMReply, call_llm_isolated, call_llm_samples
from karaka.services import Services
from karaka.state.gsv import GSVInput, GSVOutput

if TYPE_CHECKING:  # LangGraph is imported by the graphs; a cold `karaka ask` without an LLM needs none of it
    from langgraph.graph.state import CompiledStateGraph

    Loop = CompiledStateGraph[Any, Any, Any, Any]  # the compiled GSV-Retry subgraph, handed in by graphs/
else:
    Loop = Any


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


def run_loop(loop: Loop, inputs: GSVInput, ctx: Context) -> GSVOutput:
    """Run one GSV-Retry loop as a child of the calling node.

    The child streams its events with the parent's (Studio highlights its nodes) but keeps its
    inner steps out of the parent's checkpoint: the caller stores the loop's outcome durably, and
    checkpointing every inner step cost 3x the time and 6.5x the checkpoint size when measured
    (README, design decisions).
    """
    try:  # the config key a parent uses to lend its checkpointer to a child graph
        from langgraph._internal._constants import CONFIG_KEY_CHECKPOINTER
    except ImportError:  # pragma: no cover - older layouts
        CONFIG_KEY_CHECKPOINTER = "__pregel_checkpointer"

    config: Any = {"recursion_limit": 12 * ctx.max_retries + 10, "configurable": {CONFIG_KEY_CHECKPOINTER: None}}
    return loop.invoke(inputs, config=config, context=ctx)  # type: ignore[return-value]
