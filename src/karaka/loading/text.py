"""Plain text: each file line as it is; wrapped paragraphs are rejoined by ``sentences``."""

from __future__ import annotations

from karaka.loading.sentences import Raw, clean


def text_lines(text: str) -> list[Raw]:
    """A text file's lines, numbered from 1."""
    return [Raw(number, clean(raw)) for number, raw in enumerate(_lines(text), 1)]


def _lines(text: str) -> list[str]:
    return text.replace("\r\n", "\n").replace("\r", "\n").split("\n")
