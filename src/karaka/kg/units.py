"""Units of extraction work: windows of consecutive sentences of one document."""

from __future__ import annotations

from bisect import bisect_right
from collections.abc import Iterable, Iterator
from itertools import accumulate
from typing import TYPE_CHECKING

from karaka.loading.sentences import NOT_EXTRACTED
from karaka.state.ingest import Unit
from karaka.store.base import SourceLine

if TYPE_CHECKING:
    from karaka.store.embedded.records import Records

PARSED_LANGUAGES = frozenset({"", "en"})
"""Languages the bundled parser (spaCy's English model) reads; "" is too little text to tell."""


def extractable(line: SourceLine, parser: bool) -> bool:
    """Whether a sentence goes to the kāraka extractor.

    Code and table rows never do (they are indexed and cited as they are); a sentence in a
    language the parser has no model for does not go to the parser (an LLM may read it).
    """
    return parser_reads(line.kind, line.lang) if parser else line.kind not in NOT_EXTRACTED


def parser_reads(kind: str, lang: str) -> bool:
    """Whether the parser reads a line of this kind and language: English (or unknown) prose."""
    return kind not in NOT_EXTRACTED and lang in PARSED_LANGUAGES


def plan_units(doc_id: str, n_lines: int, window: int) -> Iterator[Unit]:
    """Consecutive windows of ``window`` sentences covering a document."""
    for first in range(1, n_lines + 1, window):
        yield Unit.of(doc_id, first, min(first + window - 1, n_lines))


def units_in(n_lines: int, window: int) -> int:
    """How many windows cover ``n_lines`` sentences."""
    return (n_lines + window - 1) // window


def units_between(doc_ids: list[str], counts: list[int], lines: list[int], window: int, start: int,
                  end: int) -> list[Unit]:
    """The run's units with index ``start`` up to (not including) ``end`` (documents in order).

    The first document is found by bisection over the running totals, then the units are read
    in order: a round costs its own size, not the number of documents (65,000 small documents
    made each round scan them all, and the run quadratic).
    """
    prefix = list(accumulate(counts))
    d = bisect_right(prefix, start)
    offset = start - (prefix[d - 1] if d else 0)
    out: list[Unit] = []
    index = start
    while index < end and d < len(doc_ids):
        if offset >= counts[d]:
            d, offset = d + 1, 0
            continue
        first = offset * window + 1
        out.append(Unit.of(doc_ids[d], first, min(first + window - 1, lines[d])))
        offset, index = offset + 1, index + 1
    return out


def sentences_of(records: Records, units: Iterable[Unit], parser: bool = True) -> dict[tuple[str, int], str]:
    """The sentences of ``units`` by (document, seq): one read per document, first to last unit.

    A sentence that is not ``extractable`` reads as "" (nothing for the extractor to find).
    """
    spans: dict[str, tuple[int, int]] = {}
    for unit in units:
        first, last = spans.get(unit.doc_id, (unit.first, unit.last))
        spans[unit.doc_id] = (min(first, unit.first), max(last, unit.last))
    return {(doc_id, s.seq): s.text if extractable(s, parser) else "" for doc_id, (first, last) in spans.items()
            for s in records.lines(doc_id, first, last)}


def numbered(lines: dict[int, str]) -> str:
    """Source text of a window: ``[Ln] text`` per sentence."""
    return "\n".join(f"[L{n}] {text}" for n, text in sorted(lines.items()))
