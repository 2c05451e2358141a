"""A workspace on a read-only file system (a read-only bind mount): every request that would write
fails with a 4xx or a ``failed`` run naming why; nothing hangs, reads still answer."""

import subprocess

import httpx
import pytest

from karaka.app.api import create_app
from karaka.app.runner import run_ingest
from karaka.config import Context
from tests.fakes import write_doc
from tests.server_util import serve_in_thread, sse_events

pytestmark = [pytest.mark.server, pytest.mark.slow]


@pytest.fixture
def read_only_ws(tmp_path):
    docs = tmp_path / "root" / "docs"
    write_doc(docs, "story.txt", "Rama gave the bow to Lakshmana.")
    write_doc(tmp_path / "root" / "more", "more.txt", "Sita followed Rama into the forest.")
    ctx = Context(workspace=str(tmp_path / "ws"), llm="none", extractor="parser")
    run_ingest(ctx, docs)
    ws = tmp_path / "ws"
    mounted = subprocess.run(["mount", "--bind", str(ws), str(ws)], capture_output=True)
    if mounted.returncode != 0:
        pytest.skip(f"cannot bind-mount here: {mounted.stderr.decode().strip()}")
    try:
        subprocess.run(["mount", "-o", "remount,ro,bind", str(ws)], check=True, capture_output=True)
        yield ctx, tmp_path / "root"
    finally:
        subprocess.run(["umount", str(ws)], check=False)


def test_writes_fail_clearly_and_reads_still_answer(read_only_ws):
    ctx, root = read_only_ws
    with serve_in_thread(create_app(ctx, ingest_root=root)) as url, httpx.Client(base_url=url, timeout=60) as client:
        answer = client.post("/chat", json={"messages": "What did Rama give to Lakshmana?"})
        assert answer.status_code == 200 and answer.json()["output"]["answers"] == ["the bow"]
        started = client.post("/ingest", json={"paths": ["more"]})
        assert started.status_code == 202
        with client.stream("GET", f"/runs/{started.json()['run_id']}/stream") as response:
            events = sse_events(response, limit=1000)  # the stream ends
        run = client.get(f"/runs/{started.json()['run_id']}").json()
        assert run["status"] == "failed" and "read-only" in run["error"].lower(), run
        assert events[-1][0] == "run"
        upload = client.post("/ingest", files=[("files", ("x.txt", b"Hanuman leapt.\n", "text/plain"))])
        assert upload.status_code == 409 and "cannot be written" in upload.json()["error"]
        removed = client.delete("/documents/story")
        assert removed.status_code == 409 and "cannot be written" in removed.json()["error"]
        assert str(root.parent) not in upload.text + removed.text + str(run)
        assert client.get("/health").json()["documents"] == 1
