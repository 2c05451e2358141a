"""Logging set-up for entry points (the CLI, ``karaka serve``, the notebook facade).

The library itself only logs: ``karaka`` carries a NullHandler, so nothing reaches stdout or
stderr unless an entry point or the application configures logging. User-facing notices
(a writer waiting for the workspace, a model already loaded, unchanged documents) go to the
``karaka.notice`` logger, which the CLI prints.
"""

from __future__ import annotations

import logging
import sys
from pathlib import Path

FORMAT = "%(asctime)s %(levelname)s %(name)s %(message)s"


def attach_workspace_log(log_file: str | Path) -> None:
    """Also write INFO and above of ``karaka`` to the workspace's log file (once per file)."""
    logger = logging.getLogger("karaka")
    target = str(Path(log_file).resolve())
    if any(getattr(h, "baseFilename", None) == target for h in logger.handlers):
        return
    try:
        Path(target).parent.mkdir(parents=True, exist_ok=True)
        handler = logging.FileHandler(target, encoding="utf-8")
    except OSError:  # a read-only workspace: its readers log nowhere rather than fail
        return
    handler.setFormatter(logging.Formatter(FORMAT))
    handler.setLevel(logging.INFO)
    logger.addHandler(handler)
    if logger.level == logging.NOTSET or logger.level > logging.INFO:
        logger.setLevel(logging.INFO)


def show_notices(stream: object = None) -> None:
    """Print ``karaka.notice`` messages (INFO and above) to stderr, without a traceback or prefix noise."""
    logger = logging.getLogger("karaka.notice")
    if any(getattr(h, "_karaka_notice", False) for h in logger.handlers):
        return
    handler = logging.StreamHandler(stream or sys.stderr)  # type: ignore[arg-type]
    handler.setFormatter(logging.Formatter("   %(message)s"))
    handler._karaka_notice = True  # type: ignore[attr-defined]
    logger.addHandler(handler)
    logger.setLevel(logging.INFO)
