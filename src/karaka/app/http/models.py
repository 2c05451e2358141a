"""Request bodies of the HTTP API (pydantic: a bad field gets 422 naming it)."""

from __future__ import annotations

from fastapi import HTTPException
from pydantic import BaseModel, ConfigDict, Field, model_validator

MAX_QUESTION_CHARS = 4000


class ChatMessage(BaseModel):
    """One message of a chat history; only the last user message is asked."""

    model_config = ConfigDict(extra="ignore")
    role: str = "user"
    content: str = Field(max_length=MAX_QUESTION_CHARS)


class ChatRequest(BaseModel):
    """``{"messages": "<text>", "thread_id"?: "..."}`` (a list of role/content messages also works)."""

    model_config = ConfigDict(extra="forbid")
    messages: str | list[ChatMessage] = Field(max_length=MAX_QUESTION_CHARS)
    thread_id: str | None = Field(default=None, max_length=128, pattern=r"^[A-Za-z0-9_.:-]+$")

    def question(self) -> str:
        """The question asked (the last user message)."""
        if isinstance(self.messages, str):
            text = self.messages
        else:
            users = [m.content for m in self.messages if m.role in ("user", "human")]
            text = users[-1] if users else ""
        if not text.strip():
            raise HTTPException(422, "messages: the question is empty")
        return text.strip()


class IngestRequest(BaseModel):
    """``{"paths": ["docs/a.txt", ...], "replace"?: false}`` under the ingest root, or ``{"urls": [...]}``.

    URLs are web pages the server fetches (``allow_private_urls`` governs local ones).
    """

    model_config = ConfigDict(extra="forbid")
    paths: list[str] = Field(default_factory=list, max_length=100)
    urls: list[str] = Field(default_factory=list, max_length=100)
    replace: bool = False

    @model_validator(mode="after")
    def _one_kind(self) -> IngestRequest:
        if bool(self.paths) == bool(self.urls):
            raise ValueError("send either paths or urls (one or more)")
        return self
