"""Batched greedy decoding for the local transformers model: requests that arrive together share one ``generate``.

A GSV step asks several things at once (the three samples of a score, the candidates of a
generation, the windows of concurrent workers). Decoded one at a time, each waits for the others
while the model reads one row; decoded together, one forward pass serves them all. ``Batcher``
gathers the requests that arrive within ``wait_ms`` of the first (up to ``batch_size``), pads them
on the left and decodes them in one call, each row under its own JSON-schema constraint
(``RowGrammars``: one llguidance matcher a row) and its own token limit (``RowLimits``).

Decoding is greedy, so a row's reply does not depend on its neighbours: the same prompt decoded
alone or in a batch gives the same JSON (``benchmarks/llm_throughput.py`` checks it on real
prompts). Identical requests in one batch are decoded once.
"""

from __future__ import annotations

import json
import logging
import queue
import threading
import time
from collections import deque
from concurrent.futures import Future
from dataclasses import dataclass, field
from typing import Any

log = logging.getLogger("karaka.models")
BATCHES_KEPT = 100_000
"""How many batch sizes a ``Batcher`` remembers (a long run must not grow a list without end)."""


@dataclass(frozen=True)
class Request:
    """One prompt (already in the model's chat format), its schema or None, and its token limit."""

    prompt: str
    schema: dict[str, Any] | None
    max_new_tokens: int

    def key(self) -> str:
        """Identity for de-duplication inside one batch."""
        return json.dumps([self.prompt, self.schema, self.max_new_tokens], sort_keys=True)


@dataclass(frozen=True)
class Decoded:
    """A reply and what it cost."""

    text: str
    prompt_tokens: int
    completion_tokens: int


@dataclass
class _Pending:
    request: Request
    future: Future[Decoded] = field(default_factory=Future)


class RowGrammars:
    """A logits processor that holds each row to its own schema (``None``: the row is free).

    The first call sees the prompts; every later call first feeds each row's matcher the token
    that row chose last. A row whose JSON is complete may only end; a row that has ended is left
    alone, since ``generate`` pads it from then on.
    """

    def __init__(self, tokenizer: Any, schemas: list[dict[str, Any] | None]):
        import llguidance

        from karaka.models.grammar import compact_grammar, ll_tokenizer

        self.ll_tokenizer = ll_tokenizer(tokenizer)
        self.matchers: list[Any] = []
        for schema in schemas:
            if schema is None:
                self.matchers.append(None)
                continue
            matcher = llguidance.LLMatcher(self.ll_tokenizer, compact_grammar(schema))
            error = matcher.get_error()
            if error:
                raise ValueError(f"grammar for the schema is invalid: {error}")
            self.matchers.append(matcher)
        self.ends = {t for t in (tokenizer.eos_token_id, tokenizer.pad_token_id) if t is not None}
        self.ended = [False] * len(schemas)
        self.started = False
        self.bitmask: Any = None

    def __call__(self, input_ids: Any, scores: Any) -> Any:
        import llguidance.torch as llt

        rows = input_ids.shape[0]
        if rows != len(self.matchers):
            raise ValueError(f"{rows} rows for {len(self.matchers)} grammars")
        vocab = self.ll_tokenizer.vocab_size
        if self.bitmask is None:
            self.bitmask = llt.allocate_token_bitmask(rows, vocab)
        if scores.shape[-1] > vocab:  # the model's padded rows are never valid
            scores[:, vocab:] = float("-inf")
        for row, matcher in enumerate(self.matchers):
            if matcher is None or self.ended[row]:
                self.bitmask[row].fill_(-1)  # free, or ended: generate pads this row whatever is allowed
                continue
            if self.started:
                token = int(input_ids[row, -1])
                if matcher.is_stopped() or token in self.ends:  # the row just chose to end
                    self.ended[row] = True
                    self.bitmask[row].fill_(-1)
                    continue
                matcher.consume_token(token)
            llt.fill_next_token_bitmask(matcher, self.bitmask, row)  # a complete JSON allows only the end
        self.started = True
        llt.apply_token_bitmask_inplace(scores[:, :vocab], self.bitmask.to(scores.device))
        return scores


class RowLimits:
    """A stopping criterion that ends each row at its own ``max_new_tokens``."""

    def __init__(self, prompt_length: int, limits: list[int]):
        self.prompt_length = prompt_length
        self.limits = limits

    def __call__(self, input_ids: Any, scores: Any, **kwargs: Any) -> Any:
        import torch

        made = input_ids.shape[1] - self.prompt_length
        return torch.tensor([made >= limit for limit in self.limits], device=input_ids.device)


def decode_together(model: Any, tokenizer: Any, requests: list[Request]) -> list[Decoded]:
    """Decode ``requests`` greedily in one ``generate`` call (identical requests once); replies in order."""
    import torch
    from transformers import LogitsProcessorList, StoppingCriteriaList

    unique: dict[str, int] = {}
    for request in requests:
        unique.setdefault(request.key(), len(unique))
    distinct = list({r.key(): r for r in requests}.values())
    tokenizer.padding_side = "left"
    batch = tokenizer([r.prompt for r in distinct], return_tensors="pt", padding=True, add_special_tokens=False)
    batch = {k: v.to(model.device) for k, v in batch.items()}
    length = batch["input_ids"].shape[1]
    limits = [r.max_new_tokens for r in distinct]
    processors = LogitsProcessorList()
    if any(r.schema is not None for r in distinct):
        processors.append(RowGrammars(tokenizer, [r.schema for r in distinct]))
    with torch.no_grad():
        output = model.generate(
            **batch, max_new_tokens=max(limits), do_sample=False, logits_processor=processors,
            stopping_criteria=StoppingCriteriaList([RowLimits(length, limits)]),
            pad_token_id=tokenizer.pad_token_id, temperature=None, top_p=None, top_k=None,
        )
    stops = {tokenizer.pad_token_id, tokenizer.eos_token_id}
    replies = []
    for row, request in enumerate(distinct):
        made = [int(t) for t in output[row, length:length + request.max_new_tokens]]
        while made and made[-1] in stops:  # the end and the padding after a row finished
            made.pop()
        prompt_tokens = int(batch["attention_mask"][row].sum())
        replies.append(Decoded(tokenizer.decode(made, skip_special_tokens=True), prompt_tokens, len(made)))
    return [replies[unique[r.key()]] for r in requests]


class Batcher:
    """Gathers requests from many threads and decodes them together (``decode_together``).

    The first request of a batch waits ``wait_ms`` for others, then up to ``batch_size`` go to the
    model in one call; one thread decodes, so the model is never used by two callers at once.
    ``batch_size`` 1 decodes each request alone, as a plain pipeline would.
    """

    def __init__(self, model: Any, tokenizer: Any, batch_size: int = 8, wait_ms: float = 5.0):
        self.model, self.tokenizer = model, tokenizer
        self.batch_size, self.wait = max(1, batch_size), max(0.0, wait_ms) / 1000
        self.queue: queue.Queue[_Pending] = queue.Queue()
        self.lock = threading.Lock()
        self.thread: threading.Thread | None = None
        self.batches: deque[int] = deque(maxlen=BATCHES_KEPT)  # the sizes of the last batches (benchmarks, tests)

    def submit(self, request: Request) -> Future[Decoded]:
        """Queue one request; its reply arrives on the returned future."""
        pending = _Pending(request)
        self.queue.put(pending)
        with self.lock:
            if self.thread is None or not self.thread.is_alive():
                self.thread = threading.Thread(target=self._serve, name="karaka-decode", daemon=True)
                self.thread.start()
        return pending.future

    def decode(self, requests: list[Request]) -> list[Decoded]:
        """Several requests at once (a GSV step's samples): submitted together, so they share a batch."""
        futures = [self.submit(r) for r in requests]
        return [f.result() for f in futures]

    def _serve(self) -> None:
        while True:
            batch = [self.queue.get()]
            deadline = time.monotonic() + self.wait
            while len(batch) < self.batch_size:
                left = deadline - time.monotonic()
                try:
                    batch.append(self.queue.get(timeout=left) if left > 0 else self.queue.get_nowait())
                except queue.Empty:
                    break
            self.batches.append(len(batch))
            try:
                replies = decode_together(self.model, self.tokenizer, [p.request for p in batch])
            except Exception as exc:  # noqa: BLE001 - every caller of this batch gets the error
                log.warning("batched decoding of %d request(s) failed: %r", len(batch), exc)
                for pending in batch:
                    pending.future.set_exception(exc)
                continue
            for pending, reply in zip(batch, replies, strict=True):
                pending.future.set_result(reply)
