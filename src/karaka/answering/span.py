"""A span of a line: its text, its kind, where it stands in the line and in the parse."""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

REASON_OPENERS = re.compile(r"\b(?:because|so that|in order to|so as to|due to|owing to|as a result of|"
                             r"parce que|afin de|car|weil|da|damit|um)\b[^.;]*", re.IGNORECASE)


@dataclass(frozen=True)
class Span:
    """A span of a line of one kind: its text, where it is in the line, and its token range when parsed."""

    text: str
    kind: str
    start: int
    end: int
    first: int = -1
    """Its first token in the parse (-1 for an unparsed line)."""
    last: int = -1


def span_tokens(doc: Any | None, start: int, end: int) -> tuple[int, int]:
    """The first and last token of the parse that a character range covers ((-1, -1) without a parse)."""
    if doc is None or not len(doc):
        return -1, -1
    inside = [t.i for t in doc if t.idx < end and t.idx + len(t.text) > start]
    return (inside[0], inside[-1]) if inside else (-1, -1)
