"""Parsing ahead of the GSV workers, in blocks, and on another core when a run is long.

The workers' analysis needs each sentence parsed. Parsing a block of ``BLOCK`` sentences in
one ``nlp.pipe`` call takes a third less time a sentence than a round's 16. And spaCy holds the
GIL for nearly all of a parse (a thread beside the workers made a run slower, not faster), while
the parse is about half of a line's work with a fast LLM. So on a machine with a core to spare, a
long run starts a second process: it loads the same pipeline and answers each block with a
``DocBin`` (0.04 ms a sentence each way). The parses come back identical, entities included, and
go into the shared parse cache, one block ahead of the round that needs them.
"""

from __future__ import annotations

import json
import logging
import os
import subprocess
import sys
import threading
from collections.abc import Callable
from typing import Any

from karaka.nlp import keep_parse, mended, nlp, parse_many

log = logging.getLogger("karaka.nlp")

BLOCK = 256  # sentences parsed in one batch (the parse cache holds 2,048)
MIN_SENTENCES = 1000  # a second process pays for its start (about a second of the other core) on runs this long


def _frame(stream: Any, payload: bytes) -> None:
    stream.write(len(payload).to_bytes(8, "little") + payload)
    stream.flush()


def _unframe(stream: Any) -> bytes | None:
    head = stream.read(8)
    if len(head) < 8:
        return None
    size = int.from_bytes(head, "little")
    body = stream.read(size)
    if len(body) < size:
        raise EOFError("the parsing process closed its output mid-reply")
    return bytes(body)


def serve() -> None:
    """The parsing process (``python -m karaka.nlp.ahead``): blocks in on stdin, ``DocBin`` bytes out, until EOF."""
    from spacy.tokens import DocBin

    model = nlp()
    source, sink = sys.stdin.buffer, sys.stdout.buffer
    while (request := _unframe(source)) is not None:
        binary = DocBin(store_user_data=False)
        for doc in model.pipe(json.loads(request), batch_size=BLOCK):
            binary.add(mended(doc))
        _frame(sink, binary.to_bytes())


class ParseProcess:
    """A parsing process started with ``python -m`` (no fork of a threaded parent, no re-import of its main)."""

    def __init__(self) -> None:
        self._process = subprocess.Popen([sys.executable, "-m", "karaka.nlp.ahead"], stdin=subprocess.PIPE,
                                         stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
        self.sent: list[tuple[Any, list[str]]] = []

    def send(self, key: Any, texts: list[str]) -> None:
        """Ask for a block to be parsed."""
        _frame(self._process.stdin, json.dumps(texts).encode())
        self.sent.append((key, texts))

    def receive(self, until: Any) -> None:
        """Cache the blocks sent, in order, up to and including ``until``."""
        from spacy.tokens import DocBin

        while self.sent:
            key, texts = self.sent.pop(0)
            reply = _unframe(self._process.stdout)
            if reply is None:
                raise EOFError(f"the parsing process ended (exit code {self._process.poll()})")
            for text, doc in zip(texts, DocBin().from_bytes(reply).get_docs(nlp().vocab), strict=True):
                keep_parse(text, doc)
            if key == until:
                return

    def close(self) -> None:
        """Stop the process (blocks not received are dropped)."""
        for stream in (self._process.stdin, self._process.stdout):
            try:
                if stream is not None:
                    stream.close()
            except OSError:
                pass
        try:
            self._process.wait(timeout=5)
        except subprocess.TimeoutExpired:
            self._process.kill()
            self._process.wait()


class Ahead:
    """Which blocks of a run were parsed or sent, and the parsing process when one runs."""

    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.done: set[Any] = set()
        self.process: ParseProcess | None = None
        self.failed = False
        """A process failed: this one parses from then on (a broken set-up would fail every time)."""

    def prepare(self, now: list[Any], soon: list[Any], texts: Callable[[Any], list[str]], spawn: bool) -> None:
        """Have the blocks ``now`` parsed on return, and ``soon`` sent to the process (when ``spawn`` allows one).

        Blocks are keys (a run and a block number); ``texts`` reads a block's sentences. Without a
        process, ``now`` is parsed here in one batch. A process that fails is stopped and its
        blocks parsed here.
        """
        with self.lock:
            if self.process is None and spawn and not self.failed and (os.cpu_count() or 1) > 1:
                try:
                    self.process = ParseProcess()
                except OSError as exc:
                    log.warning("no parsing process (%s); parsing in this one", exc)
                    self.failed = True
            here = [key for key in now if key not in self.done]  # neither parsed nor sent
            try:
                if self.process is not None:
                    sent = {key for key, _ in self.process.sent}
                    waiting = [key for key in now if key in sent]
                    if waiting:
                        self.process.receive(until=waiting[-1])
                    for key in soon:
                        if key not in self.done:
                            self.process.send(key, texts(key))
                            self.done.add(key)
            except (EOFError, OSError, ValueError) as exc:
                log.warning("the parsing process stopped (%s); parsing in this one", exc)
                self._stop()
                self.failed = True
                here = list(now)
            if here:
                parse_many([t for key in here for t in texts(key)], remember=True)
            self.done.update(now)

    def stop(self) -> None:
        """Stop the parsing process, if one runs, and forget the blocks."""
        with self.lock:
            self._stop()

    def _stop(self) -> None:
        if self.process is not None:
            self.process.close()
        self.process = None
        self.done.clear()


ahead = Ahead()


if __name__ == "__main__":
    serve()
