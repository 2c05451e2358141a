"""Paths that lead out of the ingest root or the workspace, against a real server: ``..``, encoded
slashes, absolute paths, symlinks and hard links out, device files and FIFOs. Each is refused with
a 4xx naming why; nothing outside is read or served."""

import os
import time

import httpx
import pytest

from karaka.app.api import create_app
from karaka.app.runner import run_ingest
from karaka.config import Context
from tests.fakes import write_doc
from tests.server_util import serve_in_thread

pytestmark = [pytest.mark.server, pytest.mark.slow]
SECRET = "The vault code is 4417."


@pytest.fixture
def served(tmp_path):
    root = tmp_path / "root"
    write_doc(root / "docs", "story.txt", "Rama gave the bow to Lakshmana.")
    write_doc(tmp_path / "outside", "secret.txt", SECRET)
    ctx = Context(workspace=str(tmp_path / "ws"), llm="none", extractor="parser")
    run_ingest(ctx, root / "docs")
    (root / "link_out").symlink_to(tmp_path / "outside")
    (root / "secret_link.txt").symlink_to(tmp_path / "outside" / "secret.txt")
    os.link(tmp_path / "outside" / "secret.txt", root / "hard.txt")
    os.mkfifo(root / "pipe.txt")
    with serve_in_thread(create_app(ctx, ingest_root=root)) as url, httpx.Client(base_url=url, timeout=60) as client:
        yield client, tmp_path


def _documents(client):
    return sorted(d["doc_id"] for d in client.get("/documents").json()["documents"])


@pytest.mark.parametrize("path", ["../outside/secret.txt", "docs/../../outside", "/etc/passwd", "link_out",
                                  "secret_link.txt", "link_out/secret.txt", "%2e%2e%2foutside", "..%2foutside",
                                  "/dev/zero", "docs/\x00x"])
def test_ingest_paths_out_of_the_root_are_refused(served, path):
    client, tmp_path = served
    refused = client.post("/ingest", json={"paths": [path]})
    assert 400 <= refused.status_code < 500, refused.text
    assert refused.json()["error"] and str(tmp_path) not in refused.text


def test_hard_links_and_fifos_inside_the_root_are_skipped_with_the_reason(served):
    client, _ = served
    for path in ("hard.txt", "pipe.txt"):
        started = client.post("/ingest", json={"paths": [path]})
        if started.status_code >= 400:  # refused outright
            assert started.json()["error"]
            continue
        run_id = started.json()["run_id"]
        for _ in range(600):
            run = client.get(f"/runs/{run_id}").json()
            if run["finished"]:
                break
            time.sleep(0.1)
        reasons = " ".join(s["error"] for s in (run["report"] or {}).get("skipped_files", [])) + str(run["error"])
        assert "hard link" in reasons or "not a regular file" in reasons, run
    assert _documents(client) == ["story"]
    asked = client.post("/chat", json={"messages": "What is the vault code?"}).json()["output"]
    assert all("4417" not in c["text"] for c in asked["citations"])


@pytest.mark.parametrize("doc", ["..%2f..%2fetc%2fpasswd", "%2e%2e", "story%2f..%2f..", "../../outside"])
def test_documents_file_never_serves_outside(served, doc):
    client, _ = served
    response = client.get(f"/documents/{doc}/file")
    assert 400 <= response.status_code < 500 and SECRET not in response.text and "root:" not in response.text
