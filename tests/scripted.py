"""Scripted chat models for tests of Karaka's own logic (never shipped in the package)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from pydantic import PrivateAttr

from karaka.models.base import KeyedChatModel

Responder = Callable[[str, str], str]


class ScriptedChatModel(KeyedChatModel):
    """Replies from a per-prompt-key script.

    ``script`` maps a prompt key to a list of replies (used in order, the last
    one repeating) or to a function ``(user_prompt, n) -> reply`` where n counts
    earlier calls with that key. An exception instance in a list is raised.
    """

    model_name: str = "fake"
    _script: dict[str, Any] = PrivateAttr(default_factory=dict)
    _seen: dict[str, int] = PrivateAttr(default_factory=dict)

    def __init__(self, script: dict[str, Any] | None = None, **kwargs: Any):
        super().__init__(**kwargs)
        self._script = dict(script or {})

    @property
    def _llm_type(self) -> str:
        return "karaka-fake"

    def respond(self, key: str, system: str, user: str) -> str:
        """Reply from the script; an unscripted key is a test bug."""
        if key not in self._script:
            raise AssertionError(f"fake model got unscripted prompt key {key!r}")
        with self._lock:
            n = self._seen.get(key, 0)
            self._seen[key] = n + 1
        entry = self._script[key]
        if callable(entry):
            reply = entry(user, n)
        else:
            reply = entry[min(n, len(entry) - 1)]
        if isinstance(reply, BaseException):
            raise reply
        return str(reply)
