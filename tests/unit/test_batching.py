"""The batching queue of the local model node and the walk's concurrent branches, with a stand-in decoder.

The decoder itself (padding, one grammar a row, greedy equality) runs on the real SmolLM2 in
``tests/integration/test_realmodel.py``; here the stand-in answers each prompt in the real
reply shape, so what is tested is the gathering, the order of replies, and failures.
"""

from __future__ import annotations

import operator
import threading
import time
from typing import Annotated, TypedDict

import pytest

from karaka.config import Context
from karaka.models import batching
from karaka.models.batching import Batcher, Decoded, Request
from karaka.models.call import call_llm_samples
from karaka.walk import DirectRuntime, Walk


def _echo(model, tokenizer, requests):
    model.append(len(requests))
    time.sleep(0.01)
    if any(r.prompt == "boom" for r in requests):
        raise RuntimeError("decoder failed")
    return [Decoded(f'{{"reply": "{r.prompt}"}}', len(r.prompt), r.max_new_tokens) for r in requests]


@pytest.fixture
def echo(monkeypatch):
    monkeypatch.setattr(batching, "decode_together", _echo)


def test_requests_arriving_together_are_decoded_in_one_batch_and_each_gets_its_own_reply(echo):
    sizes: list[int] = []
    batcher = Batcher(sizes, None, batch_size=8, wait_ms=200)
    replies: dict[int, Decoded] = {}

    def ask(i: int) -> None:
        replies[i] = batcher.submit(Request(f"p{i}", None, 10 + i)).result(timeout=10)

    threads = [threading.Thread(target=ask, args=(i,)) for i in range(5)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(10)
    assert sizes == [5]
    assert {i: r.text for i, r in replies.items()} == {i: f'{{"reply": "p{i}"}}' for i in range(5)}
    assert [replies[i].completion_tokens for i in range(5)] == [10, 11, 12, 13, 14]


def test_a_batch_never_exceeds_its_size_and_a_lone_request_does_not_wait_for_company(echo):
    sizes: list[int] = []
    batcher = Batcher(sizes, None, batch_size=2, wait_ms=100)
    assert [d.text for d in batcher.decode([Request(f"q{i}", None, 5) for i in range(5)])] == \
        [f'{{"reply": "q{i}"}}' for i in range(5)]
    assert sizes == [2, 2, 1]
    alone = Batcher([], None, batch_size=4, wait_ms=0)
    started = time.perf_counter()
    alone.submit(Request("solo", None, 5)).result(timeout=10)
    assert time.perf_counter() - started < 1.0


def test_a_failed_batch_fails_each_of_its_callers_and_the_queue_goes_on(echo):
    batcher = Batcher([], None, batch_size=4, wait_ms=100)
    futures = [batcher.submit(Request(p, None, 5)) for p in ("a", "boom", "b")]
    for future in futures:
        with pytest.raises(RuntimeError, match="decoder failed"):
            future.result(timeout=10)
    assert batcher.submit(Request("after", None, 5)).result(timeout=10).text == '{"reply": "after"}'


def test_samples_from_a_batching_model_are_one_request():
    class Batching:
        model_name = "stand-in"

        def __init__(self) -> None:
            self.asked: list[int] = []

        def karaka_samples(self, system, user, n, *, max_tokens, schema=None):
            self.asked.append(n)
            return [Decoded('{"score": 90}', 40, 5)] * n

    llm = Batching()
    replies, requests = call_llm_samples(llm, "sys", "user", prompt_key="probe", n=3)  # type: ignore[arg-type]
    assert requests == 1 and llm.asked == [3]
    assert [r.text for r in replies] == ['{"score": 90}'] * 3
    assert [r.prompt_tokens for r in replies] == [40, 0, 0]  # the prompt is read once


class State(TypedDict, total=False):
    items: Annotated[list, operator.add]


class Send:
    def __init__(self, node: str, arg: int):
        self.node, self.arg = node, arg


def test_a_parallel_walk_runs_sent_branches_at_once_and_applies_them_in_order():
    threads: set[str] = set()
    barrier = threading.Barrier(3, timeout=5)

    def fan(state: State) -> dict:
        return {}

    def branch(arg: int) -> dict:
        threads.add(threading.current_thread().name)
        barrier.wait()  # all three branches must be running together to pass
        time.sleep(0.01 * (3 - arg))  # the last sent finishes first
        return {"items": [arg]}

    walk = Walk(steps={"fan": fan, "branch": branch},
                routes={"fan": lambda s: [Send("branch", i) for i in range(3)], "branch": "__end__"},
                first="fan", state=State)
    out = walk.run({}, DirectRuntime(Context(), parallel=True), limit=5)
    assert out["items"] == [0, 1, 2] and len(threads) == 3
    barrier.reset()
    with pytest.raises(threading.BrokenBarrierError):  # one after another, the first branch waits alone
        Walk(steps={"fan": fan, "branch": lambda a: (barrier.wait(timeout=0.2), {"items": [a]})[1]},
             routes=walk.routes, first="fan", state=State).run({}, DirectRuntime(Context()), limit=5)
