"""State of the ingestion graph: ids, cursors and counters only (the data lives in the store)."""

from __future__ import annotations

import operator
from dataclasses import dataclass
from enum import StrEnum
from typing import Annotated, Any, NotRequired

from typing_extensions import TypedDict

from karaka.store.ids import parse_unit_id, unit_id


def furthest(old: int, new: int) -> int:
    """Reducer: the larger of two positions (parallel rounds report how far each scanned)."""
    return max(old, new)


class UnitStatus(StrEnum):
    """The outcome of one extraction unit (stored with its result)."""

    GOLDEN = "golden"
    """Accepted by GSV-Retry (or extracted by the parser extractor)."""
    PARSER_FALLBACK = "parser-fallback"
    """GSV-Retry was exhausted; the parser's candidate passed the rule checks and was written."""
    FALLBACK = "fallback"
    """An exhausted window, redone one loop per line (its payload lists the line units)."""
    FAILED = "failed"
    """Exhausted, and no candidate passed the rule checks: nothing written."""
    EMPTY = "empty"
    """No action found in the line, or nothing in it to extract from (code, a table row)."""


WRITTEN_STATUSES = frozenset({UnitStatus.GOLDEN, UnitStatus.PARSER_FALLBACK})


class Provenance(StrEnum):
    """How a Kriyā came to be in the graph (stored on the node)."""

    GSV = "gsv"
    GSV_FAST_PATH = "gsv-fast-path"
    PARSER_FALLBACK = "parser-fallback"
    PARSER = "parser"
    BATCHED = "batched"


@dataclass(frozen=True)
class Unit:
    """A window of consecutive sentences of one document (``first..last`` by ``seq``)."""

    unit_id: str
    doc_id: str
    first: int
    last: int

    @property
    def single(self) -> bool:
        """True for a one-sentence unit."""
        return self.first == self.last

    @classmethod
    def of(cls, doc_id: str, first: int, last: int) -> Unit:
        """The unit covering ``first..last`` of a document."""
        return cls(unit_id(doc_id, first, last), doc_id, first, last)

    @classmethod
    def from_id(cls, value: str) -> Unit:
        """The unit a unit id names."""
        return cls(value, *parse_unit_id(value))


class IngestInput(TypedDict):
    """What a caller gives the ingestion graph."""

    path: str
    """A file or a folder of .txt, .md and .pdf files."""
    root: NotRequired[str | None]
    """When set, every file found (symlinks resolved) must lie inside this folder."""
    replace: NotRequired[bool]
    """Replace a document of another source that holds the same name (else the new one gets a new id)."""
    repair: NotRequired[bool]
    """Rebuild what the graph and vectors lack from the records (``path`` is not read)."""


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
    window: int
    """Sentences per unit this run was planned with (a resumed run with another window starts afresh)."""
    unit_counts: list[int]
    """Units per document (in ``doc_ids`` order)."""
    doc_lines: list[int]
    """Sentences per document (in ``doc_ids`` order)."""
    cursor: int
    """Index of the next unit to send; the units before it were sent in earlier rounds."""
    units_done: Annotated[int, operator.add]
    """Units finished in this run (resumed units are counted once stored)."""
    scanned: Annotated[int, furthest]
    """How far the rounds' scans reached (see ``UnitArgs.scanned``)."""
    sweeps: int
    """Rounds sent after the cursor reached the end, for units other workers held (database store)."""
    started: float
    """Run start (epoch seconds)."""
    write_failures: list[dict[str, str]]
    """Lines the write stage could not write, and units with no result (reported as failures)."""
    report: dict[str, Any]
    """The final report."""


class IngestOutput(TypedDict):
    """What the ingestion graph returns."""

    run_id: str
    report: dict[str, Any]


class UnitArgs(TypedDict):
    """Extraction units sent to one worker (one window, or a batch for --strategy batched)."""

    run_id: str
    units: list[str]
    """Unit ids (``Unit.from_id`` reads them): plain strings keep the checkpoint small."""
    wait: NotRequired[bool]
    """Wait for units another worker holds (the last sweep), instead of leaving them to it."""
    scanned: NotRequired[int]
    """The unit index the round's scan reached (a shared store's rounds skip others' units)."""
    skipped: NotRequired[int]
    """Units the scan passed over because another worker finished or holds them."""
