"""The installed package's version, read from its metadata: pyproject.toml states it once."""

from __future__ import annotations

from importlib.metadata import PackageNotFoundError, version

try:
    VERSION = version("karaka")
except PackageNotFoundError:  # run from a source tree that was never installed
    VERSION = "0+unknown"
