"""Constrained decoding shared by the local providers: llguidance grammars for compact JSON.

The llama.cpp server takes the grammar string itself; the huggingface provider masks each step's
logits with an llguidance matcher built from the same string (``GrammarLogitsProcessor``).
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


def _ll_tokenizer(tokenizer: Any) -> Any:
    import llguidance.hf

    with _lock:
        if id(tokenizer) not in _tokenizers:
            _tokenizers[id(tokenizer)] = (tokenizer, llguidance.hf.from_tokenizer(tokenizer))
        return _tokenizers[id(tokenizer)][1]


class GrammarLogitsProcessor:
    """A transformers logits processor that allows only tokens continuing JSON that fits ``schema``.

    One instance serves one generation of one sequence (batch size 1): the first call sees the
    prompt, every later call first feeds the matcher the token chosen last. Once the JSON is
    complete only end-of-sequence is allowed.
    """

    def __init__(self, tokenizer: Any, schema: dict[str, Any]):
        import llguidance

        self.ll_tokenizer = _ll_tokenizer(tokenizer)
        self.matcher = llguidance.LLMatcher(self.ll_tokenizer, compact_grammar(schema))
        error = self.matcher.get_error()
        if error:
            raise ValueError(f"grammar for the schema is invalid: {error}")
        self.started = False
        self.bitmask: Any = None

    def __call__(self, input_ids: Any, scores: Any) -> Any:
        import llguidance.torch as llt

        if input_ids.shape[0] != 1:
            raise ValueError("constrained decoding serves one sequence at a time")
        if self.started:
            self.matcher.consume_token(int(input_ids[0, -1]))
        self.started = True
        vocab = self.ll_tokenizer.vocab_size
        if self.bitmask is None:
            self.bitmask = llt.allocate_token_bitmask(1, vocab)
        llt.fill_next_token_bitmask(self.matcher, self.bitmask, 0)
        if scores.shape[-1] > vocab:  # the model's padded rows are never valid
            scores[:, vocab:] = float("-inf")
        llt.apply_token_bitmask_inplace(scores[:, :vocab], self.bitmask.to(scores.device))
        return scores
