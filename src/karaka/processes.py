"""Child Python processes spoken to in JSON: one request on stdin, JSON lines back on stdout.

The child sends ``{"event": …}`` lines as it works and one other line, its answer, at the end
(``send``). The parent (``run_child``) hands each event to a callback as it comes, stops the child
when the callback raises or the time runs out, and returns the answer with how the child ended.
Used to read untrusted files under a memory limit (``loading.isolated``) and to ingest beside a
server (``http.child``); JSON, never pickle, so a child that hostile input subverted cannot make
the parent run code.
"""

from __future__ import annotations

import json
import subprocess
import sys
import tempfile
import threading
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any


@dataclass(frozen=True)
class Ended:
    """How a child ended: its answer (empty when it sent none), exit code, stderr's end, and if it ran out of time."""

    answer: dict[str, Any]
    returncode: int | None
    stderr: str
    timed_out: bool


def run_child(module: str, request: dict[str, Any], on_event: Callable[[Any], None] | None = None, *,
              env: dict[str, str] | None = None, seconds: float | None = None,
              started: Callable[[subprocess.Popen[bytes]], None] | None = None) -> Ended:
    """Run ``python -m module`` with ``request`` and read its lines until it ends.

    An exception ``on_event`` raises stops the child and goes on up; after ``seconds`` the child
    is killed and ``timed_out`` says so.
    """
    errors = tempfile.TemporaryFile()  # a file, not a pipe: a chatty child never blocks on a full pipe
    child = subprocess.Popen([sys.executable, "-m", module], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                             stderr=errors, env=env)
    if started is not None:
        started(child)
    timed_out = threading.Event()

    def kill() -> None:
        timed_out.set()
        child.kill()

    timer = threading.Timer(seconds, kill) if seconds else None
    if timer is not None:
        timer.daemon = True
        timer.start()
    answer: dict[str, Any] = {}
    try:
        assert child.stdin is not None and child.stdout is not None
        child.stdin.write(json.dumps(request).encode())
        child.stdin.close()
        for line in child.stdout:
            message = json.loads(line)
            if "event" in message:
                if on_event is not None:
                    on_event(message["event"])
            else:
                answer = message
        child.wait()
    finally:
        if timer is not None:
            timer.cancel()
        if child.poll() is None:
            child.terminate()  # an ingestion child resumes like any interrupted run
            try:
                child.wait(timeout=60)
            except subprocess.TimeoutExpired:
                child.kill()
                child.wait()
        errors.seek(0)
        stderr = errors.read()[-65536:].decode(errors="replace")
        errors.close()
    return Ended(answer, child.returncode, stderr, timed_out.is_set())


def request() -> dict[str, Any]:
    """The child's side: the request the parent sent."""
    return dict(json.loads(sys.stdin.read()))


def send(message: dict[str, Any]) -> None:
    """The child's side: one line to the parent (``{"event": …}`` as it works, anything else to answer)."""
    sys.stdout.write(json.dumps(message, ensure_ascii=False, default=str) + "\n")
    sys.stdout.flush()
