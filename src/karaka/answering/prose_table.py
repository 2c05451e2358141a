"""Tables read from prose: "Level 1 uses a block size of 100k." lines, one row each.

A question for things and their property ("the levels and their block sizes", "the harbours and
their keepers") whose documents hold no table is answered with a table when the lines read say,
one thing a sentence, which thing has which value:
- the thing: a noun of the first column's word with what names it in the sentence's parse
  ("Level 1", "the harbour of Aska", "the Avon river"): a number, a proper name or a piece of code
  attached to it;
- its value: the property's word in the same sentence with what it is said to be: the object of
  its "of" ("a block size of 100k"), the name it titles ("keeper Mara"), or what a copula makes
  it ("its depth is 40 m").
Each cell is in its row's line and tied to its word by the parse, so the table is GROUNDED row by
row; fewer than two rows, or two values for one thing, is no table.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from karaka.answering.line import Line
from karaka.answering.table import MAX_ROWS, MIN_ROWS, Table, _stem

NAMING = ("nummod", "appos", "compound", "npadvmod", "nmod")
"""Dependencies by which a number or a name names the noun it stands with ("Level 1", "river Avon")."""


def _is(token: Any, word: str) -> bool:
    return _stem(token.lemma_) == word or _stem(token.text) == word


def _identifier(token: Any) -> Any | None:
    """The number, name or code that names ``token`` in its sentence ("Level *1*", "harbour of *Aska*")."""
    for child in token.children:
        if child.dep_ in NAMING and (child.like_num or child.pos_ == "PROPN"):
            return child
    for child in token.children:
        if child.dep_ == "prep" and child.lower_ == "of":
            obj = next((c for c in child.children if c.dep_ == "pobj"), None)
            if obj is not None and (obj.pos_ == "PROPN" or obj.like_num or any(
                    c.dep_ == "nummod" for c in obj.children)):  # "of Aska", "of 100k", "of 40 metres"
                return obj
    if token.head.pos_ == "PROPN" and token.dep_ == "compound":
        return token.head  # "keeper Mara": the noun titles the name
    return None


def _phrase(token: Any) -> str:
    """A name with its own compound words ("Captain Lio", "North Star"), or a number with its unit letter."""
    words = [c for c in token.children if c.dep_ == "compound" and c.pos_ == "PROPN" and c.i < token.i]
    first = min([token.i, *(w.i for w in words)])
    return str(token.doc[first:token.i + 1].text)


def _thing(doc: Any, word: str) -> tuple[str, set[int]] | None:
    """The thing of the first column a sentence names, and the token positions it takes."""
    for token in doc:
        if _is(token, word) and token.pos_ in ("NOUN", "PROPN"):
            named = _identifier(token)
            if named is not None:
                first, last = min(token.i, named.i), max(token.i, named.i)
                text = str(doc[first:last + 1].text) if last - first <= 3 else _phrase(named)
                return text, set(range(first, last + 1))
    return None


def _value(doc: Any, words: list[str], taken: set[int]) -> str | None:
    """What the sentence says the property is, outside the thing's own words."""
    head_word = words[-1]
    for token in doc:
        if token.i in taken or not _is(token, head_word) or token.pos_ not in ("NOUN", "PROPN"):
            continue
        if words[:-1] and not all(any(_is(c, w) for c in token.children) for w in words[:-1]):
            continue  # "block size": "size" with "block" before it
        named = _identifier(token)
        if named is not None and named.i not in taken:
            return _phrase(named) if named.pos_ == "PROPN" else str(doc[named.left_edge.i:named.right_edge.i + 1].text)
        if token.dep_ == "nsubj" and token.head.lemma_ == "be":
            attr = next((c for c in token.head.children if c.dep_ in ("attr", "acomp")), None)
            if attr is not None and attr.i not in taken:
                return str(doc[attr.left_edge.i:attr.right_edge.i + 1].text)
    return None


def prose_table(columns: tuple[str, str], lines: list[Line],
                place: Callable[[str], tuple[str, int]] = lambda node: ("", 0)) -> Table | None:
    """A table of the things and their property that the read lines state one a sentence, or None.

    The best rows (the lines read first) are kept, in the documents' order (``place`` of a line's node).
    """
    things = [_stem(w) for w in columns[0].split()]
    prop = [_stem(w) for w in columns[1].split()]
    if not things or not prop:
        return None
    rows: dict[str, tuple[str, str, str]] = {}
    clashing: set[str] = set()
    for line in lines:
        if line.doc is None:
            continue
        for sentence in line.doc.sents:
            sent = sentence.as_doc()
            found = _thing(sent, things[-1])
            if found is None:
                continue
            value = _value(sent, prop, found[1])
            if value is None:
                continue
            name = found[0].lower()
            if name in rows and rows[name][1].lower() != value.lower():
                clashing.add(name)
            rows.setdefault(name, (found[0], value, line.node))
    kept = [row for name, row in rows.items() if name not in clashing]
    kept = sorted(kept[:MAX_ROWS], key=lambda row: place(row[2]))
    return Table(columns, kept, from_table=False) if len(kept) >= MIN_ROWS else None
