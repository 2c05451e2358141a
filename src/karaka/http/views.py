"""Read views for people and the web page (filled in by the web page's issue)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from fastapi import FastAPI


def add_views(app: FastAPI, context: Callable[[], Any], authorised: Callable[..., None]) -> None:
    """Add the page's read endpoints to ``app``."""
