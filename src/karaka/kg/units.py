"""Units of extraction work: windows of consecutive sentences of one document."""

from __future__ import annotations

from collections.abc import Iterator

from karaka.state.ingest import Unit


def plan_units(doc_id: str, n_lines: int, window: int) -> Iterator[Unit]:
    """Consecutive windows of ``window`` sentences covering a document."""
    for first in range(1, n_lines + 1, window):
        yield Unit.of(doc_id, first, min(first + window - 1, n_lines))


def units_in(n_lines: int, window: int) -> int:
    """How many windows cover ``n_lines`` sentences."""
    return (n_lines + window - 1) // window


def unit_at(doc_ids: list[str], counts: list[int], lines: list[int], window: int, index: int) -> Unit | None:
    """The ``index``-th unit of a run (documents in order), or None past the end."""
    for doc_id, count, n_lines in zip(doc_ids, counts, lines, strict=True):
        if index < count:
            first = index * window + 1
            return Unit.of(doc_id, first, min(first + window - 1, n_lines))
        index -= count
    return None


def numbered(lines: dict[int, str]) -> str:
    """Source text of a window: ``[Ln] text`` per sentence."""
    return "\n".join(f"[L{n}] {text}" for n, text in sorted(lines.items()))
