"""A small base for chat models that answer from the prompt key alone (simulated, fake)."""

from __future__ import annotations

import re
import threading
from collections.abc import Iterator
from typing import Any

from langchain_core.callbacks import CallbackManagerForLLMRun
from langchain_core.language_models import BaseChatModel
from langchain_core.messages import AIMessage, AIMessageChunk, BaseMessage
from langchain_core.outputs import ChatGeneration, ChatResult
from pydantic import PrivateAttr


def prompt_key_of(run_manager: CallbackManagerForLLMRun | None) -> str:
    """The prompt key that ``call_llm_isolated`` put in the run metadata."""
    metadata = getattr(run_manager, "metadata", None) or {}
    return str(metadata.get("prompt_key", ""))


class KeyedChatModel(BaseChatModel):
    """Answers ``respond(key, system, user)``; counts calls per prompt key (thread-safe)."""

    _lock: threading.Lock = PrivateAttr(default_factory=threading.Lock)
    _calls: list[tuple[str, str]] = PrivateAttr(default_factory=list)

    def respond(self, key: str, system: str, user: str) -> str:
        """Return the raw reply text for one call."""
        raise NotImplementedError

    @property
    def calls(self) -> list[tuple[str, str]]:
        """(prompt key, user prompt) of every call so far, in order."""
        with self._lock:
            return list(self._calls)

    def count(self, key: str | None = None) -> int:
        """Number of calls, optionally for one prompt key."""
        with self._lock:
            return sum(1 for k, _ in self._calls if key is None or k == key)

    def karaka_reply(self, key: str, system: str, user: str) -> str:
        """One call, counted: what ``invoke`` answers, without LangChain's run around it.

        ``call_llm_isolated`` takes this path when no one traces or streams the call, since the
        run (callbacks, message objects, run ids) costs far more than these models' answers.
        """
        with self._lock:
            self._calls.append((key, user))
        return self.respond(key, system, user)

    def _generate(
        self,
        messages: list[BaseMessage],
        stop: list[str] | None = None,
        run_manager: CallbackManagerForLLMRun | None = None,
        **kwargs: Any,
    ) -> ChatResult:
        system = str(messages[0].content) if len(messages) > 1 else ""
        text = self.karaka_reply(prompt_key_of(run_manager), system, str(messages[-1].content))
        return ChatResult(generations=[ChatGeneration(message=AIMessage(content=text))])

    def stream(self, input: Any, config: Any = None, *, stop: list[str] | None = None,
               **kwargs: Any) -> Iterator[AIMessageChunk]:
        """The same reply, word by word (exercises the token streaming path).

        BaseChatModel.stream hands ``_stream`` no run manager, so the prompt key would be lost;
        one ``invoke`` keeps it.
        """
        message = self.invoke(input, config, stop=stop, **kwargs)
        for piece in re.findall(r"\S+\s*|\s+", str(message.content)):
            yield AIMessageChunk(content=piece)
