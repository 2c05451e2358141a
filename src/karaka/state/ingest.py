"""State of the ingestion graph: ids, cursors and counters only (the data lives in the store)."""

from __future__ import annotations

import operator
from typing import Annotated, Any

from typing_extensions import TypedDict


class IngestInput(TypedDict):
    """What a caller gives the ingestion graph."""

    path: str
    """A file or a folder of .txt, .md and .pdf files."""


class IngestState(IngestInput):
    """Run progress (checkpointed)."""

    run_id: str
    """This run's id (also the key of its report)."""
    doc_ids: list[str]
    """Documents this run must process."""
    unchanged: list[str]
    """Documents skipped because their content hash is unchanged."""
    skipped: list[dict[str, str]]
    """Files that could not be ingested, with the reason."""
    warnings: list[str]
    """Loading warnings (fallback decodings, split lines)."""
    units_total: int
    """Extraction units (windows) in this run."""
    units_done: Annotated[int, operator.add]
    """Units finished in this run (resumed units are counted once stored)."""
    started: float
    """Run start (epoch seconds)."""
    report: dict[str, Any]
    """The final report."""


class IngestOutput(TypedDict):
    """What the ingestion graph returns."""

    run_id: str
    report: dict[str, Any]


class UnitArgs(TypedDict):
    """Extraction units sent to one worker (one window, or a batch for --strategy batched)."""

    run_id: str
    units: list[dict[str, Any]]
