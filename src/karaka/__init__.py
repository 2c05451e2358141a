"""Karaka: verified knowledge graphs of actions and their Pāṇinian roles, with line citations."""

from __future__ import annotations

import logging
from typing import Any

__version__ = "0.2.0"
__all__ = ["Karaka"]

logging.getLogger("karaka").addHandler(logging.NullHandler())  # a quiet library: callers configure logging


def __getattr__(name: str) -> Any:
    if name == "Karaka":
        from karaka.app.facade import Karaka

        return Karaka
    raise AttributeError(name)
