"""Karaka: verified knowledge graphs of actions and their Pāṇinian roles, with line citations."""

from __future__ import annotations

from typing import Any

__version__ = "0.1.0"
__all__ = ["Karaka"]


def __getattr__(name: str) -> Any:
    if name == "Karaka":
        from karaka.facade import Karaka

        return Karaka
    raise AttributeError(name)
