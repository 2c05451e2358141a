"""Karaka: verified knowledge graphs of actions and their Pāṇinian roles, with line citations."""

from __future__ import annotations

import logging
from typing import Any

from karaka.version import VERSION as __version__

__all__ = ["Karaka", "__version__"]

logging.getLogger("karaka").addHandler(logging.NullHandler())  # a quiet library: callers configure logging


def __getattr__(name: str) -> Any:
    if name == "Karaka":
        from karaka.app.facade import Karaka

        return Karaka
    raise AttributeError(name)
