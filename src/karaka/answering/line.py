"""A line of the pool as the readers see it: its text, parse, words and place; and the little words a span is trimmed of."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from karaka.answering.evidence import LineWords

DETERMINERS = frozenset("the a an this that these those his her its their our my your some any".split())


PRONOUNS = frozenset("he she it they him her them his its their who which that this these those i we you".split())


@dataclass
class Line:
    """One line of the pool, read."""

    node: str
    text: str
    doc: Any | None
    words: LineWords
    rank: int
    intro: str = ""
    """The line it goes on from (whose words it reads with), or ""."""
    kind: str = ""
    """The line's kind (``code``, ``table``, ``heading``…; "" for prose)."""
    section: str = ""
    """The innermost heading above it."""
