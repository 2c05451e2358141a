"""Hostile requests against a real server on 127.0.0.1: cross-site writes, DNS rebinding, malformed
input. Each gets a 4xx naming why, no server path, and the server answers the next request."""

import asyncio
import json
import os
import subprocess
import sys
import threading
import time
from collections import Counter
from dataclasses import replace as dc_replace

import httpx
import psutil
import pytest

import karaka.app.runner
from karaka.app.api import create_app
from karaka.app.runner import run_ingest
from karaka.config import Context, resolve_server
from tests.fakes import write_doc
from tests.server_util import free_port, serve_in_thread, wait_http

pytestmark = [pytest.mark.server, pytest.mark.slow]


@pytest.fixture
def served(tmp_path):
    docs = tmp_path / "root" / "docs"
    write_doc(docs, "story.txt", "Rama gave the bow to Lakshmana.")
    ctx = Context(workspace=str(tmp_path / "ws"), llm="none", extractor="parser")
    run_ingest(ctx, docs)
    write_doc(tmp_path / "root" / "planted", "planted.txt", "The attacker planted this line.")
    with serve_in_thread(create_app(ctx, ingest_root=tmp_path / "root")) as url, \
            httpx.Client(base_url=url, timeout=30) as client:
        yield client, url, tmp_path


def _documents(client):
    return sorted(d["doc_id"] for d in client.get("/documents").json()["documents"])


def test_a_page_of_another_origin_may_not_change_a_keyless_server(served):
    client, url, _ = served
    port = url.rsplit(":", 1)[1]
    evil = {"Origin": "http://attacker.example", "Content-Type": "text/plain"}
    for path, body in (("/ingest", '{"paths": ["planted"]}'), ("/chat", '{"messages": "Who gave the bow?"}')):
        refused = client.post(path, content=body, headers=evil)
        assert refused.status_code == 403 and "attacker.example" in refused.json()["error"], path
    upload = client.post("/ingest", files=[("files", ("x.txt", b"Planted line.\n", "text/plain"))],
                         headers={"Origin": f"http://127.0.0.1:{int(port) + 1}"})
    assert upload.status_code == 403 and "cross-site" in upload.json()["error"]
    assert client.delete("/documents/story", headers={"Origin": "null"}).status_code == 403
    assert client.delete("/documents/story", headers={"Sec-Fetch-Site": "cross-site"}).status_code == 403
    # the server's own page may, and so may clients that are not browsers (no Origin)
    own = client.post("/chat", json={"messages": "Who gave the bow?"}, headers={"Origin": url})
    assert own.status_code == 200 and own.json()["output"]["answers"] == ["Rama"]
    assert _documents(client) == ["story"]


def test_json_endpoints_take_json_only(served):
    client, _, _ = served
    plain = client.post("/chat", content='{"messages": "Who gave the bow?"}', headers={"Content-Type": "text/plain"})
    assert plain.status_code == 415 and "JSON" in plain.json()["error"]
    form = client.post("/ingest", content="paths=planted", headers={"Content-Type": "application/x-www-form-urlencoded"})
    assert form.status_code == 415
    streamed = client.post("/chat/stream", files={"audio": ("q.wav", b"RIFF", "audio/wav")})
    assert streamed.status_code == 415
    for path in ("/chat", "/estimate"):  # a page of another site may not send files there either
        foreign = client.post(path, files={"audio": ("q.wav", b"RIFF", "audio/wav")},
                              headers={"Origin": "http://attacker.example"})
        assert foreign.status_code == 403, path
    assert _documents(client) == ["story"]


def test_dns_rebinding_host_is_refused(served):
    client, _, _ = served
    rebound = client.get("/documents", headers={"Host": "attacker.example:8123"})
    assert rebound.status_code == 421 and "allowed_hosts" in rebound.json()["error"]
    assert client.get("/documents", headers={"Host": "localhost:8123"}).status_code == 200


def test_malformed_input_gets_4xx_without_server_paths(served):
    client, _, tmp_path = served
    cases = [
        client.post("/ingest", json={"paths": ["a" * 10_000]}),
        client.post("/ingest", json={"paths": ["x/" * 200 + "b" * 300]}),
        client.post("/chat", content=b'{"messages": "\\ud800 who?"}', headers={"Content-Type": "application/json"}),
        client.post("/chat", content=b'{"messages": "who?", "thread_id": ' + b"7" * 5000 + b"}",
                    headers={"Content-Type": "application/json"}),
        client.post("/chat", content=b"[" * 5000 + b"]" * 5000, headers={"Content-Type": "application/json"}),
        client.post("/chat", json={"messages": "w" * 1_000_000}),
    ]
    for response in cases:
        assert 400 <= response.status_code < 500, response.text[:200]
        assert response.json()["error"] and str(tmp_path) not in response.text
    long_name = client.post("/ingest", files=[("files", ("n" * 300 + ".txt", b"Sita followed Rama.\n", "text/plain"))])
    assert long_name.status_code == 202
    assert client.get("/health").status_code == 200


def test_serve_refuses_a_public_address_without_a_key(tmp_path):
    ctx = Context(workspace=str(tmp_path / "ws"), llm="none", extractor="parser")
    env = {k: v for k, v in os.environ.items() if k != "KARAKA_API_KEY"}
    refused = subprocess.run([sys.executable, "-m", "karaka.app.cli", "serve", "--workspace", ctx.workspace,
                              "--llm", "none", "--host", "0.0.0.0", "--port", str(free_port())],
                             env=env, capture_output=True, text=True, timeout=120)
    assert refused.returncode == 2 and "without an API key" in refused.stderr and "--insecure" in refused.stderr
    port = free_port()
    process = subprocess.Popen([sys.executable, "-m", "karaka.app.cli", "serve", "--workspace", ctx.workspace,
                                "--llm", "none", "--host", "0.0.0.0", "--port", str(port), "--insecure"],
                               env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    try:
        wait_http(f"http://127.0.0.1:{port}/health", process, seconds=90)
        assert json.loads(httpx.get(f"http://127.0.0.1:{port}/health").text)["auth"] == "none"
    finally:
        process.terminate()
        process.communicate(timeout=20)


def test_questions_of_clients_that_left_stop_and_nothing_leaks(served, monkeypatch):
    client, url, _ = served
    process = psutil.Process()
    started = []
    real = karaka.app.runner.stream_query

    def counted(*args, **kwargs):
        started.append(1)
        return real(*args, **kwargs)

    monkeypatch.setattr(karaka.app.runner, "stream_query", counted)

    async def drop(count: int) -> None:
        async with httpx.AsyncClient(base_url=url, timeout=30) as dropper:
            async def one() -> None:
                async with dropper.stream("POST", "/chat/stream", json={"messages": "Who gave the bow to Lakshmana?"}):
                    pass  # closed before the answer comes
            for start in range(0, count, 50):
                await asyncio.gather(*(one() for _ in range(min(50, count - start))))

    def pool() -> int:
        """AnyIO's worker threads: a pool its limiter caps (40 by default), grown by a burst and pruned
        only when later work comes, so a burst larger than the warm-up's leaves more of them up."""
        return sum(t.name.startswith("AnyIO worker thread") for t in threading.enumerate())

    def settled(threads: int, handles: int) -> tuple[int, int]:
        """The counts besides AnyIO's pool once the dropped questions' threads have ended (up to 20 s)."""
        deadline = time.monotonic() + 20
        while True:
            time.sleep(0.5)
            counts = process.num_threads() - pool(), process.num_fds()
            if (counts[0] <= threads + 4 and counts[1] <= handles + 4) or time.monotonic() > deadline:
                return counts

    asyncio.run(drop(100))  # fills the thread pools a server keeps
    assert client.post("/chat", json={"messages": "Who gave the bow?"}).status_code == 200  # and the native
    time.sleep(1.0)  # pools a whole answer starts once (dropped questions may end before they reach them)
    threads, handles = process.num_threads() - pool(), process.num_fds()
    began, before = time.monotonic(), len(started)
    asyncio.run(drop(400))
    answered = client.post("/chat", json={"messages": "Who gave the bow?"})
    assert answered.status_code == 200 and answered.json()["output"]["answers"] == ["Rama"]
    assert time.monotonic() - began < 60
    while (ran := len(started)) < before + 401 and time.monotonic() - began < 60:  # what was queued runs now
        time.sleep(1.0)
        if len(started) == ran:
            break
    after_threads, after_handles = settled(threads, handles)  # counted once the queue has run: busy is no leak
    assert len(started) - before < 200, f"{len(started) - before} of 400 dropped questions ran"
    assert pool() <= 40  # AnyIO's default limiter: the pool cannot grow past it, however many questions came
    assert after_threads <= threads + 4 and after_handles <= handles + 4, (
        threads, after_threads, handles, after_handles, threading.active_count(),  # Python's own, by name:
        sorted(Counter(t.name.rstrip("0123456789_ ") for t in threading.enumerate()).items()))


def test_no_origin_gets_cors_access_unless_configured(served, tmp_path):
    client, _, _ = served
    asked = {"Origin": "https://tools.example", "Access-Control-Request-Method": "POST",
             "Access-Control-Request-Headers": "content-type"}
    preflight = client.options("/chat", headers=asked)
    assert "access-control-allow-origin" not in preflight.headers
    assert "access-control-allow-origin" not in client.get("/health", headers={"Origin": "https://tools.example"}).headers
    ctx = Context(workspace=str(tmp_path / "ws"), llm="none", extractor="parser")
    app = create_app(ctx, dc_replace(resolve_server(), allowed_origins="https://tools.example"))
    with serve_in_thread(app) as url, httpx.Client(base_url=url, timeout=30) as other:
        allowed = other.options("/chat", headers=asked)
        assert allowed.headers["access-control-allow-origin"] == "https://tools.example"
        assert "access-control-allow-credentials" not in allowed.headers
        posted = other.post("/chat", json={"messages": "Who gave the bow?"}, headers={"Origin": "https://tools.example"})
        assert posted.status_code == 200


def test_invalid_utf8_bodies_get_400(served):
    client, _, _ = served
    bad = client.post("/chat", content=b'{"messages": "caf\xe9 \xff"}', headers={"Content-Type": "application/json"})
    assert bad.status_code == 400 and "malformed JSON" in bad.json()["error"]
    assert client.get("/health").status_code == 200
