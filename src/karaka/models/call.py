"""The one function every LLM call goes through: ``call_llm_isolated``."""

from __future__ import annotations

import contextlib
import logging
import math
import threading
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from karaka.jsonparse import strip_think
from karaka.watch import watched

if TYPE_CHECKING:  # langchain_core's model classes load with the first call, not at import
    from langchain_core.language_models import BaseChatModel
    from langchain_core.messages import AIMessageChunk

log = logging.getLogger("karaka.llm")

BACKOFF_SECONDS: tuple[float, ...] = (1.0, 2.0, 4.0)
_TRANSIENT_NAMES = ("Connection", "RateLimit", "ServiceUnavailable", "InternalServer")
_slots: dict[int, tuple[BaseChatModel, threading.BoundedSemaphore]] = {}


def set_concurrency(llm: BaseChatModel, limit: int) -> None:
    """Allow at most ``limit`` calls in flight to this model (a server's slots, a GPU); set once per model."""
    if id(llm) not in _slots:
        _slots[id(llm)] = (llm, threading.BoundedSemaphore(max(1, limit)))


def _slot(llm: BaseChatModel) -> contextlib.AbstractContextManager[Any]:
    held = _slots.get(id(llm))
    return held[1] if held is not None and held[0] is llm else contextlib.nullcontext()


@dataclass(frozen=True)
class LLMReply:
    """Text of one call plus what it cost."""

    text: str
    prompt_tokens: int
    completion_tokens: int


class LLMCallError(RuntimeError):
    """A call failed for good (after the transient retries)."""


def approx_tokens(text: str) -> int:
    """Rough token count (4 characters a token) for providers that report none."""
    return max(1, math.ceil(len(text) / 4)) if text else 0


def is_transient(exc: BaseException) -> bool:
    """True for errors worth retrying: dropped connections, rate limits, a server's 5xx.

    A timeout is not: the server is still working on the request, and sending it again only
    queues a second copy behind the first (raise ``llm_timeout`` instead).
    """
    if isinstance(exc, TimeoutError) or "Timeout" in type(exc).__name__:
        return False
    if isinstance(exc, ConnectionError):
        return True
    return any(part in type(exc).__name__ for part in _TRANSIENT_NAMES)


def model_name(llm: BaseChatModel) -> str:
    """A readable name for logs."""
    for attr in ("model_name", "model_id", "model"):
        value = getattr(llm, attr, None)
        if isinstance(value, str) and value:
            return value
    return type(llm).__name__


class ThinkFilter:
    """Pass streamed text through, except a leading ``<think>…</think>`` block."""

    def __init__(self, sink: Callable[[str], None]):
        self.sink, self.buffer, self.open = sink, "", True

    def __call__(self, piece: str) -> None:
        if not self.open:
            self.sink(piece)
            return
        self.buffer += piece
        head = self.buffer.lstrip()
        if head.startswith("<think>"):
            if "</think>" not in head:
                return
            head = head.split("</think>", 1)[1].lstrip()
        elif len(head) < len("<think>") and "<think>".startswith(head):
            return
        self.open = False
        if head:
            self.sink(head)


def _streamed(llm: BaseChatModel, messages: list, config: dict, max_tokens: int,
              on_token: Callable[[str], None], **extra: Any) -> AIMessageChunk:
    from langchain_core.messages import AIMessageChunk

    sink = ThinkFilter(on_token)
    total: AIMessageChunk | None = None
    for chunk in llm.stream(messages, config=config, max_tokens=max_tokens, **extra):  # type: ignore[arg-type]
        total = chunk if total is None else total + chunk
        if isinstance(chunk.content, str) and chunk.content:
            sink(chunk.content)
    return total if total is not None else AIMessageChunk(content="")


def structured_kwargs(llm: BaseChatModel, schema: dict[str, Any] | None) -> dict[str, Any]:
    """Per-call arguments that make the provider decode JSON that fits ``schema``.

    A model with a ``karaka_structured(schema)`` method says for itself (the llamacpp provider
    sends a compact llguidance grammar; the huggingface provider masks logits with one). Other
    OpenAI-compatible servers (vLLM, Ollama, llama.cpp server, NIM) take ``response_format`` with
    a JSON schema. Anything else gets nothing and its output goes through JSON recovery.
    """
    if schema is None:
        return {}
    own = getattr(llm, "karaka_structured", None)
    if callable(own):
        return dict(own(schema))
    if type(llm).__name__ != "ChatOpenAI":
        return {}
    return {"response_format": {"type": "json_schema",
                                "json_schema": {"name": "karaka_output", "schema": schema, "strict": False}}}


def _retrying(llm: BaseChatModel, prompt_key: str, backoff: Sequence[float], sleep: Callable[[float], None],
              request: Callable[[], Any]) -> Any:
    """Make ``request`` under the model's concurrency slot, retrying transient errors after each wait."""
    name = model_name(llm)
    attempts = len(backoff) + 1
    for attempt in range(1, attempts + 1):
        try:
            with _slot(llm):
                return request()
        except Exception as exc:  # noqa: BLE001 - classified below, re-raised typed
            transient = is_transient(exc)
            log.warning(
                "llm call failed: prompt=%s model=%s attempt=%d/%d transient=%s error=%r",
                prompt_key, name, attempt, attempts, transient, exc,
            )
            if transient and attempt < attempts:
                sleep(backoff[attempt - 1])
                continue
            raise LLMCallError(f"{prompt_key} on {name} failed after {attempt} attempt(s): {exc}") from exc
    raise LLMCallError(f"{prompt_key} on {name}: no attempt made")  # pragma: no cover


def _reply(message: Any, system_prompt: str, user_prompt: str) -> LLMReply:
    raw = message.content if isinstance(message.content, str) else str(message.content)
    usage = getattr(message, "usage_metadata", None) or {}
    prompt_tokens = int(usage.get("input_tokens") or approx_tokens(system_prompt + user_prompt))
    completion_tokens = int(usage.get("output_tokens") or approx_tokens(raw))
    return LLMReply(strip_think(raw), prompt_tokens, completion_tokens)


def _messages(system_prompt: str, user_prompt: str) -> list[Any]:
    from langchain_core.messages import HumanMessage, SystemMessage

    return [SystemMessage(content=system_prompt), HumanMessage(content=user_prompt)]


def call_llm_isolated(
    llm: BaseChatModel,
    system_prompt: str,
    user_prompt: str,
    *,
    prompt_key: str,
    max_tokens: int = 512,
    backoff: Sequence[float] = BACKOFF_SECONDS,
    sleep: Callable[[float], None] = time.sleep,
    on_token: Callable[[str], None] | None = None,
    schema: dict[str, Any] | None = None,
    greedy: bool = False,
) -> LLMReply:
    """Make one stateless call: a system and a user message, no history.

    Transient errors are retried after each wait in ``backoff`` (1, 2, 4 s);
    every failure is logged with the prompt key, model and attempt number.
    With ``on_token`` the reply is streamed and each piece of text is passed on as it
    arrives (a leading ``<think>`` block is held back). With ``schema`` a provider that supports
    constrained decoding is asked for JSON that fits it (see ``structured_kwargs``). With
    ``greedy`` a provider that samples (an OpenAI-compatible server, at temperature 0.7 for the
    extraction loop's varied candidates) decodes at temperature 0: a reading of the same lines
    gives the same reply on every run. Local models decode greedily anyway.

    Raises:
        LLMCallError: the call still failed after the retries, or failed for good.
    """
    own = getattr(llm, "karaka_reply", None)
    if on_token is None and callable(own) and not watched():
        text = _retrying(llm, prompt_key, backoff, sleep, lambda: own(prompt_key, system_prompt, user_prompt))
        return LLMReply(strip_think(text), approx_tokens(system_prompt + user_prompt), approx_tokens(text))
    messages = _messages(system_prompt, user_prompt)
    config = {"metadata": {"prompt_key": prompt_key}, "callbacks": []}
    extra = structured_kwargs(llm, schema)
    sampling = {"temperature": 0.0} if greedy and takes_n(llm) else {}

    def request() -> Any:
        if on_token is None:
            return llm.invoke(messages, config=config, max_tokens=max_tokens, **extra, **sampling)  # type: ignore[arg-type]
        return _streamed(llm, messages, config, max_tokens, on_token, **sampling)

    return _reply(_retrying(llm, prompt_key, backoff, sleep, request), system_prompt, user_prompt)


def takes_n(llm: BaseChatModel) -> bool:
    """Whether one request can ask for several completions (``n``): OpenAI-compatible servers can."""
    return any(cls.__name__ == "BaseChatOpenAI" for cls in type(llm).__mro__)


def call_llm_samples(
    llm: BaseChatModel,
    system_prompt: str,
    user_prompt: str,
    *,
    prompt_key: str,
    n: int,
    max_tokens: int = 512,
    backoff: Sequence[float] = BACKOFF_SECONDS,
    sleep: Callable[[float], None] = time.sleep,
    schema: dict[str, Any] | None = None,
) -> tuple[list[LLMReply], int]:
    """``n`` independent replies to one prompt, and the number of requests that made them.

    An OpenAI-compatible server (llama.cpp, vLLM) gets one request with ``n`` completions: it reads
    the prompt once and decodes the replies together; a model with ``karaka_samples`` (the local
    transformers node) decodes them in one batch. Other providers get ``n`` isolated calls.
    The prompt's tokens are counted once per request (on the first reply of that request).

    Raises:
        LLMCallError: a request still failed after the retries, or failed for good.
    """
    batched = getattr(llm, "karaka_samples", None)
    if n > 1 and callable(batched) and not watched():
        decoded = _retrying(llm, prompt_key, backoff, sleep,
                            lambda: batched(system_prompt, user_prompt, n, max_tokens=max_tokens, schema=schema))
        return [LLMReply(strip_think(d.text), d.prompt_tokens if i == 0 else 0, d.completion_tokens)
                for i, d in enumerate(decoded)], 1
    if n <= 1 or not takes_n(llm):
        return [call_llm_isolated(llm, system_prompt, user_prompt, prompt_key=prompt_key, max_tokens=max_tokens,
                                  backoff=backoff, sleep=sleep, schema=schema) for _ in range(max(n, 1))], max(n, 1)
    messages = _messages(system_prompt, user_prompt)
    config = {"metadata": {"prompt_key": prompt_key}, "callbacks": []}
    extra = structured_kwargs(llm, schema)

    def request() -> Any:
        return llm.generate([messages], config, max_tokens=max_tokens, n=n, **extra)  # type: ignore[arg-type]

    result = _retrying(llm, prompt_key, backoff, sleep, request)
    raws = [str(g.message.content) for g in result.generations[0]]
    usage = (result.llm_output or {}).get("token_usage") or {}
    prompt_tokens = int(usage.get("prompt_tokens") or approx_tokens(system_prompt + user_prompt))
    completions = ([int(usage["completion_tokens"]) // len(raws)] * len(raws) if usage.get("completion_tokens")
                   else [approx_tokens(raw) for raw in raws])
    replies = [LLMReply(strip_think(raw), prompt_tokens if i == 0 else 0, completions[i])
               for i, raw in enumerate(raws)]
    missing = n - len(replies)
    requests = 1
    if missing > 0:  # a server that ignores n: the rest one by one
        more, used = call_llm_samples(llm, system_prompt, user_prompt, prompt_key=prompt_key, n=missing,
                                      max_tokens=max_tokens, backoff=backoff, sleep=sleep, schema=schema)
        replies += more
        requests += used
    return replies[:n], requests
