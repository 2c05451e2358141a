"""File paths as one token.

The tokenizer splits ".quill/index.db" at its slash, and the parse then hangs the halves on the sentence as two things ("stored in .quill" and "index.db"). A path is
merged back into one token after the parse, keeping the dependency of its head, so a role holds
the whole path ("in .quill/index.db").
"""

from __future__ import annotations

import re
from typing import Any

PATH = re.compile(r"(?<![\w/~.$-])[~.]?[\w.$~-]*(?:/[\w.$*-]*[\w$*-])+/?(?![\w/])")
"""A path with at least one slash: "/etc/logrotate.conf", "~/.config/quill", ".quill/index.db", "src/" (not the
sentence's full stop after it)."""


def join_paths(doc: Any) -> Any:
    """``doc`` with each path the tokenizer split merged back into one token (in place; returned)."""
    spans = []
    for m in PATH.finditer(doc.text):
        if m.group(0).count("/") == len(m.group(0)) or re.fullmatch(r"[\d/]+", m.group(0)):
            continue  # a lone slash; a date or a fraction ("3/4", "12/05/2023") is no path
        span = doc.char_span(m.start(), m.end(), alignment_mode="strict")
        if span is not None and len(span) > 1:
            spans.append(span)
    if spans:
        with doc.retokenize() as retokenizer:
            for span in spans:
                retokenizer.merge(span)
    return doc
