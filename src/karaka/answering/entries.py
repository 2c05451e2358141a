"""Entries of a list: the key a line opens with, and what the list says its keys are.

Two forms: an entry under a heading that names its keys ("3      The index is locked." under
EXIT STATUS: 3 is an exit status), and an entry that gives its key an arrow ("65534 → The
`nobody` UID": 65534 is the nobody UID). An arrow's description says what its key is when it
opens with a phrase headed by the noun asked about ("The `nobody` UID") or points back at it
("UIDs … are allocated from this range"); a key that is a range of numbers is a range.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING, Any

from karaka.answering import kinds as k
from karaka.answering.question import Asked, Term
from karaka.answering.span import Span, span_tokens
from karaka.answering.stems import key, same

if TYPE_CHECKING:
    from karaka.answering.line import LineWords

KEY = re.compile(r"-?\d+|[A-Z][A-Z\d_]+|-{1,2}[A-Za-z][\w-]*")
"""The key of an entry in a list under a heading: a number, a name in capitals, an option."""
ARROWS = ("→", "->", "=>", "⇒")
"""The marks that set an entry's key before its description."""
ARROW = re.compile(rf"\s*(?P<key>[^\s→].{{0,58}}?)\s+(?:{'|'.join(map(re.escape, ARROWS))})\s+(?P<rest>\S.*)")
"""An entry that gives its key an arrow: "0 → The root super-user.", "1…999 → System users."."""
NUMBER_RANGE = re.compile(r"\d[\d,.]*\s*(?:…|\.\.\.?|–|-|\bto\b)\s*\d[\d,.]*")
RANGE_NOUNS = frozenset({"range", "interval", "span"})
"""Nouns asked about that a range of numbers ("1000…60000") is one of by its shape."""


def keyed_entry(asked: Asked, span: Span, words: LineWords) -> bool:
    """Whether the span is the key an entry opens with, and the list says its keys are what was asked about.

    "3      The index is locked by another process." under EXIT STATUS: 3 is an exit status;
    "61184…65519 → UIDs for dynamic users are allocated from this range": a range.
    """
    if span.start < 0 or words.text[:span.start].strip():
        return False
    arrow = arrow_key(asked, words.text)
    return arrow is not None and arrow[1] == span.start or bool(KEY.fullmatch(span.text)) \
        and keys_named(asked, words)


def keys_named(asked: Asked, words: LineWords) -> bool:
    """Whether the list a line is an entry of says its keys are what was asked about.

    Its heading says so ("EXIT STATUS"), or the sentence that opens the list ("The command exits with
    the following values:"), which every entry goes on from.
    """
    return words.headed_as(asked.focus) or bool(asked.focus) and words.intro_text.rstrip().endswith(":") and any(
        same(asked.focus, w) for w in words.intro)


def arrow_key(asked: Asked, text: str) -> tuple[str, int] | None:
    """The key of an arrow entry (and where it starts) whose description says it is the thing asked about."""
    found = ARROW.match(text)
    if found is None or not asked.focus or len(found.group("key").split()) > 6:
        return None
    noun = rf"{re.escape(asked.focus_text or asked.focus)}\w{{0,2}}"
    rest, entry = found.group("rest"), found.group("key")
    opens_with = re.match(rf"(?:the\s+|an?\s+)?(?:[`'\"]?[\w-]+[`'\"]?\s+){{0,3}}{noun}\b", rest, re.IGNORECASE)
    points_back = re.search(rf"\b(?:this|that|the same)\s+{noun}\b", rest, re.IGNORECASE)
    shaped = any(same(asked.focus, key(n)) for n in RANGE_NOUNS) and NUMBER_RANGE.search(entry) is not None
    return (entry, found.start("key")) if opens_with or points_back or shaped else None


def entry_key(asked: Asked, text: str, words: LineWords, doc: Any | None) -> list[Span]:
    """The key an entry opens with, when the list says what its keys are (``keyed_entry``).

    "3" of "3      The index is locked." under EXIT STATUS answers "which exit status means …?";
    "65534" of "65534 → The `nobody` UID" answers "which UID is the nobody UID?".
    """
    if asked.kind not in (k.TERM, k.VALUE, k.QUANTITY):
        return []
    arrow = arrow_key(asked, text)
    if arrow is not None:
        entry, start = arrow
        return [Span(entry, asked.kind, start, start + len(entry), *span_tokens(doc, start, start + len(entry)))]
    found = re.match(rf"\s*({KEY.pattern})[:,]?\s+(?:[–-]\s+)?[^\W\d_]", text)  # a key, then its description
    if found is None or not keys_named(asked, words):
        return []
    return [Span(found.group(1), asked.kind, found.start(1), found.end(1), *span_tokens(doc, *found.span(1)))]


def opens_with_name(hard: list[Term], words: LineWords) -> bool:
    """Whether the line opens with a name or number the question asks about, or a label it asks of: an entry.

    "2      The directory does not exist." under EXIT STATUS answers "What does exit status 2 mean?":
    the heading says what the entry's key is a key of.
    """
    return any(t.role == "name" and 0 in words.find(t) for t in hard) or _labelled_by(hard, words.text)


_LABEL = re.compile(r"\s*([^\W\d_][\w -]{0,30}?)\s*:\s+\S")
"""A field's label: "Author: Ada Quist", "Maintainer: …"."""


def _labelled_by(hard: list[Term], text: str) -> bool:
    """Whether the line is a field whose label is a noun the question asks of ("Author: X" for "who is the author of …").

    A field under a heading describes what the heading names, as an entry of a list does.
    """
    label = _LABEL.match(text)
    words = re.findall(r"[^\W\d_]+", label.group(1)) if label else []
    return 0 < len(words) <= 3 and any(t.role == "noun" and any(same(key(w), t.key) for w in words) for t in hard)
