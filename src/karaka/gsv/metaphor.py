"""The metaphor task: which known entity an epithet names."""

from __future__ import annotations

from pydantic import BaseModel


class MetaphorLink(BaseModel):
    """Which known entity an epithet names."""

    target: str | None = None
    reasoning: str = ""

