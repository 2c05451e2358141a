"""Constrained decoding shared by the local providers: llguidance grammars for compact JSON.

The llama.cpp server takes the grammar string itself; the huggingface provider masks each step's
logits with an llguidance matcher a row built from the same string (``batching.RowGrammars``).
"""

from __future__ import annotations

import json
import threading
from typing import Any

# Compact JSON: exactly one space after a comma and a colon, none elsewhere.
COMPACT = {"whitespace_flexible": False, "item_separator": ", ", "key_separator": ": "}
_lock = threading.Lock()
_tokenizers: dict[int, Any] = {}


def compact_grammar(schema: dict[str, Any]) -> str:
    """A llguidance grammar (Lark with a JSON-schema rule) for compact JSON fitting ``schema``."""
    return "%llguidance {}\nstart: %json " + json.dumps({**schema, "x-guidance": COMPACT})


def ll_tokenizer(tokenizer: Any) -> Any:
    """The llguidance view of a transformers tokenizer (made once per tokenizer)."""
    import llguidance.hf

    with _lock:
        if id(tokenizer) not in _tokenizers:
            _tokenizers[id(tokenizer)] = (tokenizer, llguidance.hf.from_tokenizer(tokenizer))
        return _tokenizers[id(tokenizer)][1]
