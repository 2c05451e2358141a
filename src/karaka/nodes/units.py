"""Units of extraction work: windows of consecutive lines of one document."""

from __future__ import annotations

from typing import Any

from karaka.store.records import Records


def unit_id(doc_id: str, first: int, last: int) -> str:
    """Stable id of a window of lines."""
    return f"{doc_id}:{first}-{last}"


def plan_units(doc_id: str, n_lines: int, window: int) -> list[dict[str, Any]]:
    """Consecutive windows of ``window`` lines covering a document."""
    return [
        {"unit_id": unit_id(doc_id, first, min(first + window - 1, n_lines)), "doc_id": doc_id,
         "first": first, "last": min(first + window - 1, n_lines)}
        for first in range(1, n_lines + 1, window)
    ]


def numbered(lines: dict[int, str]) -> str:
    """Source text of a window: ``[Ln] text`` per line."""
    return "\n".join(f"[L{n}] {text}" for n, text in sorted(lines.items()))


def pending_units(records: Records, doc_ids: list[str], window: int, limit: int) -> list[dict[str, Any]]:
    """The next ``limit`` units without a stored result, in document order."""
    out: list[dict[str, Any]] = []
    for doc_id in doc_ids:
        row = records.document(doc_id)
        if row is None:
            continue
        done = records.done_units(doc_id)
        for unit in plan_units(doc_id, row["n_lines"], window):
            if unit["unit_id"] not in done:
                out.append(unit)
                if len(out) >= limit:
                    return out
    return out


def total_units(records: Records, doc_ids: list[str], window: int) -> int:
    """Units needed to cover the documents."""
    total = 0
    for doc_id in doc_ids:
        row = records.document(doc_id)
        if row is not None:
            total += len(plan_units(doc_id, row["n_lines"], window))
    return total
