"""Answers that are tables: several things, each with a property (seed 004's table-first answers).

A question that asks for things *and their* property ("What are the compression levels and their
block sizes?", "List each option with its default") is answered with a table when the documents
hold one: the rows of a table in a document (Markdown, HTML, DOCX; a row is read as the sentence
``Level 1: Block size 100k, Speed fast``) whose fields include the property asked for, every row
cited by its own line. Each cell is in its row's line, so the table is GROUNDED row by row; a
document without such a table is answered as any question.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

from karaka.store.base import Store
from karaka.words import WORD

_OPENING = re.compile(r"^(?:please\s+)?(?:(?:what|which)(?:\s+(?:are|were|is|was))?|list|show|give|name|tell)"
                      r"(?:\s+me)?\s+", re.I)
_ASKED = (
    re.compile(r"^(?:all\s+|each\s+|every\s+)?(?:the\s+)?(?P<x>[^\W\d][\w -]*?)\s+(?:and|with|along with)\s+(?:their|its)\s+"
               r"(?P<y>[^\W\d][\w -]*?)\s*[?.!]?$", re.I),
    re.compile(r"\beach\s+(?P<x>[^\W\d][\w-]*)\s+(?:and|with)\s+its\s+(?P<y>[^\W\d][\w -]*?)\s*[?.!]?$", re.I),
)
MIN_ROWS = 2
MAX_ROWS = 40


@dataclass(frozen=True)
class Table:
    """A table answer: its two columns and its rows (thing, value, the line's node)."""

    columns: tuple[str, str]
    rows: list[tuple[str, str, str]]
    from_table: bool = True
    """Read off a document's table; False when read from sentences of prose (``prose_table``)."""

    def markdown(self, cites: list[str]) -> str:
        """The table in Markdown, a row's citation in its last column."""
        head = f"| {self.columns[0]} | {self.columns[1]} | source |\n|---|---|---|\n"
        return head + "\n".join(f"| {_cell(a)} | {_cell(b)} | {c} |" for (a, b, _), c in zip(self.rows, cites,
                                                                                            strict=True))


def _cell(text: str) -> str:
    return text.replace("|", "\\|")


def _stem(word: str) -> str:
    """A word without its plural ending: enough to match "sizes" with "size", "levels" with "Level"."""
    word = word.lower()
    if word.endswith("ies") and len(word) > 4:
        return word[:-3] + "y"
    if word.endswith(("sses", "shes", "ches", "xes")):
        return word[:-2]
    return word[:-1] if word.endswith("s") and not word.endswith("ss") and len(word) > 3 else word


def _words(text: str) -> list[str]:
    return [_stem(w) for w in WORD.findall(text)]


def asked_columns(question: str) -> tuple[str, str] | None:
    """The things and the property a question asks for as a table, or None."""
    text = _OPENING.sub("", " ".join(question.split()), count=1)
    for pattern in _ASKED:
        match = pattern.search(text)
        if match:
            x, y = match.group("x").strip(), match.group("y").strip()
            if x and y and x.lower() not in ("it", "they", "them"):
                return x, y
    return None


def _fields(text: str) -> tuple[str, list[str]]:
    """A row sentence's first cell and its other fields ("Block size 100k")."""
    first, _, rest = text.partition(": ")
    return first.strip(), [f.strip() for f in rest.split(", ") if f.strip()] if rest else []


def _value(fields: list[str], prop: list[str]) -> str | None:
    """The field that starts with the property's words, less them; None when no field does."""
    for field in fields:
        words = field.split()
        if len(words) > len(prop) and [_stem(w) for w in words[:len(prop)]] == prop:
            return " ".join(words[len(prop):])
    return None


def find_table(store: Store, columns: tuple[str, str], nodes: list[str]) -> Table | None:
    """The rows of the first retrieved document table that gives ``columns[1]`` for its things."""
    things, prop = _words(columns[0]), _words(columns[1])
    if not prop:
        return None
    for node in nodes:
        attrs: dict[str, Any] = store.graph.node(node) or {}
        if attrs.get("kind") != "table" or _value(_fields(str(attrs.get("text", "")))[1], prop) is None:
            continue
        rows = _rows(store, attrs, prop)
        named = " ".join(f"{first} {attrs.get('section', '')}" for first, _, _ in rows)
        if len(rows) >= MIN_ROWS and any(w in _words(named) for w in things):
            return Table(columns, rows[:MAX_ROWS])
    return None


def _rows(store: Store, hit: dict[str, Any], prop: list[str]) -> list[tuple[str, str, str]]:
    """The rows around a table line: the same document and section, lines of kind table, in order."""
    doc_id, section = str(hit.get("doc_id", "")), str(hit.get("section", ""))
    seq = int(hit.get("seq", 0))
    order = store.graph.document_nodes(doc_id)
    attrs = [store.graph.node(n) or {} for n in order]
    at = next((i for i, a in enumerate(attrs) if int(a.get("seq", -1)) == seq), None)
    if at is None:
        return []
    start, end = at, at
    while start > 0 and attrs[start - 1].get("kind") == "table" and str(attrs[start - 1].get("section", "")) == section:
        start -= 1
    while end + 1 < len(attrs) and attrs[end + 1].get("kind") == "table" \
            and str(attrs[end + 1].get("section", "")) == section:
        end += 1
    rows = []
    for i in range(start, end + 1):
        first, fields = _fields(str(attrs[i].get("text", "")))
        value = _value(fields, prop)
        if value is not None and first:
            rows.append((first, value, order[i]))
    return rows
