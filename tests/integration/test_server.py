"""The HTTP API on a real uvicorn server on 127.0.0.1, read over HTTP (SSE included)."""

import json
import os
import subprocess
import sys
import time
from pathlib import Path

import httpx
import pytest

from karaka.app.api import create_app
from karaka.app.runner import run_ingest
from karaka.config import Context
from tests.fakes import fake_context, script, write_doc
from tests.scripted import ScriptedChatModel
from tests.server_util import free_port, serve_in_thread, sse_events, wait_http

pytestmark = [pytest.mark.server, pytest.mark.slow]

SPEC = ("Rama gave the bow to Lakshmana.", "He used it to kill Ravana.")
KEY = "s3cret-key"


@pytest.fixture
def parser_ws(tmp_path):
    docs = tmp_path / "root" / "docs"
    write_doc(docs, "test_doc_1.txt", *SPEC)
    ctx = Context(workspace=str(tmp_path / "ws"), llm="none", extractor="parser")
    run_ingest(ctx, docs)
    return ctx, tmp_path / "root"


def _wait_run(client, run_id, seconds=60):
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        run = client.get(f"/runs/{run_id}").json()
        if run["finished"]:
            return run
        time.sleep(0.1)
    raise AssertionError(f"run {run_id} did not finish in {seconds} s")


def test_health_chat_and_follow_up_on_a_thread(parser_ws):
    ctx, root = parser_ws
    with serve_in_thread(create_app(ctx, ingest_root=root)) as url, httpx.Client(base_url=url, timeout=30) as client:
        health = client.get("/health").json()
        assert health["status"] == "ok" and health["documents"] == 1 and health["nodes"] > 0

        first = client.post("/chat", json={"messages": "What did Rama give to Lakshmana?", "thread_id": "t-1"}).json()
        assert first["thread_id"] == "t-1"
        assert first["output"]["status"] == "GROUNDED" and first["output"]["answers"] == ["the bow"]
        assert [(c["doc_id"], c["line_number"]) for c in first["output"]["citations"]] == [("test_doc_1", 1)]

        follow = client.post("/chat", json={"messages": "And who gave it to him?", "thread_id": "t-1"}).json()
        assert follow["output"]["answers"] == ["Rama"]
        assert any("follow-up: 'him'" in step for step in follow["output"]["reasoning_trace"])

        # another thread has no memory of t-1: "him" stays unresolved
        other = client.post("/chat", json={"messages": "And who gave it to him?", "thread_id": "t-2"}).json()
        assert not any("follow-up" in step for step in other["output"]["reasoning_trace"])

        chat_list = client.post("/chat", json={"messages": [{"role": "user", "content": "Who killed Ravana?"}]}).json()
        assert chat_list["output"]["answers"] == ["He (Rama)"] and chat_list["thread_id"] is None  # no thread kept


def test_chat_stream_sends_tokens_then_done(parser_ws):
    ctx, root = parser_ws
    with serve_in_thread(create_app(ctx, ingest_root=root)) as url, httpx.Client(base_url=url, timeout=30) as client:
        with client.stream("POST", "/chat/stream", json={"messages": "Who killed Ravana?", "thread_id": "s1"}) as response:
            assert response.status_code == 200
            assert response.headers["content-type"].startswith("text/event-stream")
            events = sse_events(response)
    names = [name for name, _ in events]
    assert names.count("token") >= 3 and names[-1] == "done" and "error" not in names
    done = events[-1][1]
    assert "".join(data["text"] for name, data in events if name == "token") == done["text"]
    assert done["thread_id"] == "s1" and done["status"] == "GROUNDED"
    assert [s["line_number"] for s in done["sources"]] == [2, 1]  # the answering line first


def test_streamed_llm_answer_is_the_checked_reading(tmp_path):
    docs = tmp_path / "docs"
    write_doc(docs, "test_doc_1.txt", *SPEC)
    seen = []

    def reply(user, n):  # no JSON first: rejected, asked once more with the reason
        seen.append(user)
        if len(seen) == 1:
            return "He used it to kill Ravana."
        return json.dumps({"line": next(int(x[0]) for x in user.splitlines() if "He used it" in x),
                           "quote": "used it to kill Ravana", "answer": "to kill Ravana"})

    ctx, model = fake_context(tmp_path / "ws", ScriptedChatModel(script(answer_read_prompt=reply)))
    run_ingest(ctx, docs)
    with serve_in_thread(create_app(ctx)) as url, httpx.Client(base_url=url, timeout=30) as client:
        with client.stream("POST", "/chat/stream", json={"messages": "Why did Rama use the bow?"}) as response:
            events = sse_events(response)
    names = [name for name, _ in events]
    assert names[-1] == "done" and "reset" not in names and model.count("answer_read_prompt") == 2
    done = events[-1][1]
    assert "".join(d["text"] for n, d in events if n == "token") == done["text"]
    assert done["status"] == "GROUNDED" and "to kill Ravana" in done["text"] and "rejected" in seen[-1]


def test_stream_reports_errors_as_an_event(tmp_path):
    ctx = Context(workspace=str(tmp_path / "ws"), llm="registered:no-such-model", extractor="parser")
    with serve_in_thread(create_app(ctx)) as url, httpx.Client(base_url=url, timeout=30) as client:
        with client.stream("POST", "/chat/stream", json={"messages": "Who killed Ravana?"}) as response:
            events = sse_events(response)
        assert [name for name, _ in events] == ["error"] and "no-such-model" in events[0][1]["error"]
        failed = client.post("/chat", json={"messages": "Who killed Ravana?"})
        assert failed.status_code == 500 and "no-such-model" in failed.json()["error"]


def test_bad_requests_get_clear_4xx(parser_ws):
    ctx, root = parser_ws
    app = create_app(ctx, ingest_root=root, max_request_bytes=10_000)
    with serve_in_thread(app) as url, httpx.Client(base_url=url, timeout=30) as client:
        bad = client.post("/chat", content=b'{"messages": "Who', headers={"content-type": "application/json"})
        assert bad.status_code == 400 and "malformed JSON" in bad.json()["error"]
        missing = client.post("/chat", json={"question": "Who killed Ravana?"})
        assert missing.status_code == 422 and "messages" in missing.json()["error"]
        empty = client.post("/chat", json={"messages": "   "})
        assert empty.status_code == 422 and "empty" in empty.json()["error"]
        wrong_type = client.post("/chat", json={"messages": 42})
        assert wrong_type.status_code == 422
        bad_thread = client.post("/chat", json={"messages": "Who?", "thread_id": "../../etc"})
        assert bad_thread.status_code == 422 and "thread_id" in bad_thread.json()["error"]
        huge = client.post("/chat", json={"messages": "x" * 20_000})
        assert huge.status_code == 413 and "larger than 10000 bytes" in huge.json()["error"]
        assert client.get("/runs/nope").status_code == 404
        assert client.get("/health").status_code == 200  # the server carries on


def test_ingest_needs_the_key_and_stays_inside_the_root(parser_ws, tmp_path):
    ctx, root = parser_ws
    write_doc(root / "more", "hanuman.txt", "Hanuman carried the mountain to Lanka.")
    (tmp_path / "secret.txt").write_text("Ravana hid the gold.\n")
    with serve_in_thread(create_app(ctx, ingest_root=root, api_key=KEY)) as url, \
            httpx.Client(base_url=url, timeout=30) as anonymous, \
            httpx.Client(base_url=url, timeout=30, headers={"X-API-Key": KEY}) as client:
        assert anonymous.post("/ingest", json={"paths": ["more"]}).status_code == 401
        assert anonymous.delete("/runs/0123456789ab").status_code == 401  # runs control needs the key too
        # with a key set, every endpoint but /health needs it, and /health names no server path
        for method, path in (("POST", "/chat"), ("POST", "/chat/stream"), ("GET", "/runs/abc"), ("GET", "/documents")):
            assert anonymous.request(method, path, json={"messages": "Who?"}).status_code == 401, path
        health = anonymous.get("/health").json()
        assert health["status"] == "ok" and str(tmp_path) not in json.dumps(health)
        auth = {"Authorization": f"Bearer {KEY}"}
        outside = client.post("/ingest", json={"paths": ["../secret.txt"]}, headers=auth)
        assert outside.status_code == 403 and "outside the ingest root" in outside.json()["error"]
        absolute = client.post("/ingest", json={"paths": [str(tmp_path / "secret.txt")]}, headers=auth)
        assert absolute.status_code == 403
        assert client.post("/ingest", json={"paths": []}, headers=auth).status_code == 422

        started = client.post("/ingest", json={"paths": ["more"]})
        assert started.status_code == 202
        run_id = started.json()["run_id"]
        with client.stream("GET", f"/runs/{run_id}/stream") as response:
            events = sse_events(response)
        names = [name for name, _ in events]
        assert "stage" in names and names[-1] == "run"
        run = _wait_run(client, run_id)
        assert run["status"] == "finished" and run["report"]["documents"] == 1
        assert str(tmp_path) not in json.dumps(run)  # runs name paths relative to the ingest root
        answer = client.post("/chat", json={"messages": "What did Hanuman carry?"}).json()["output"]
        assert answer["answers"] == ["the mountain"]
        assert client.get("/health").json()["documents"] == 2
        assert anonymous.delete("/documents/hanuman").status_code == 401
        removed = client.delete("/documents/hanuman", headers=auth)
        assert removed.status_code == 200 and removed.json()["nodes"] > 0
        assert client.delete("/documents/hanuman", headers=auth).status_code == 404
        gone = client.post("/chat", json={"messages": "What did Hanuman carry?"}).json()["output"]
        assert gone["status"] == "NO_MATCH" and client.get("/health").json()["documents"] == 1

    # a restarted server still knows the finished run
    with serve_in_thread(create_app(ctx, ingest_root=root, api_key=KEY, public_read=True)) as url, \
            httpx.Client(base_url=url, timeout=30) as client:
        # public read: anonymous clients may read, never write
        assert client.post("/ingest", json={"paths": ["more"]}).status_code == 401
        again = client.get(f"/runs/{run_id}").json()
        assert again["status"] == "finished" and again["report"]["documents"] == 1
        with client.stream("GET", f"/runs/{run_id}/stream") as response:
            assert [name for name, _ in sse_events(response)] == ["done", "run"]


def test_upload_ingests_files_and_reports_bad_ones(parser_ws):
    ctx, root = parser_ws
    files = [("files", ("sita.txt", b"Sita followed Rama into the forest.\n", "text/plain")),
             ("files", ("../../evil.txt", b"Ravana took Sita to Lanka.\n", "text/plain")),
             ("files", ("blob.txt", bytes(range(256)) * 4, "application/octet-stream"))]
    with serve_in_thread(create_app(ctx, ingest_root=root)) as url, httpx.Client(base_url=url, timeout=30) as client:
        started = client.post("/ingest", files=files)
        assert started.status_code == 202
        run = _wait_run(client, started.json()["run_id"])
        assert run["status"] == "finished_with_failures"
        skipped = run["report"]["skipped_files"]
        assert [s["path"].rsplit("/", 1)[-1] for s in skipped] == ["blob.txt"]
        assert "binary" in skipped[0]["error"]
        saved = sorted(p.name for p in (Path(ctx.workspace) / "uploads").rglob("*") if p.is_file())
        assert saved == ["blob.txt", "evil.txt", "sita.txt"]
        answer = client.post("/chat", json={"messages": "Who followed Rama?"}).json()["output"]
        assert answer["answers"] == ["Sita"]
        assert client.get("/health").json()["documents"] == 3  # test_doc_1, sita, evil (renamed)


def test_two_uploads_of_the_same_name_are_both_kept(parser_ws):
    ctx, root = parser_ws
    files = [("files", ("README.md", b"Sita followed Rama into the forest.\n", "text/markdown")),
             ("files", ("README.md", b"Ravana took Sita to Lanka.\n", "text/markdown"))]
    with serve_in_thread(create_app(ctx, ingest_root=root)) as url, httpx.Client(base_url=url, timeout=30) as client:
        run = _wait_run(client, client.post("/ingest", files=files).json()["run_id"])
        assert run["status"] == "finished" and run["paths"] == ["README.md", "README.md"]
        assert run["report"]["run_id"] == run["run_id"]  # the report carries the id POST /ingest answered
        docs = client.get("/documents").json()["documents"]
        readmes = sorted(d["doc_id"] for d in docs if d["name"] == "README.md")
        assert len(readmes) == 2 and "README" in readmes  # the second kept under its own id
        assert client.post("/chat", json={"messages": "Who followed Rama?"}).json()["output"]["answers"] == ["Sita"]
        assert client.post("/chat", json={"messages": "Who took Sita?"}).json()["output"]["answers"] == ["Ravana"]


def test_karaka_serve_command(parser_ws):
    ctx, _ = parser_ws
    port = free_port()
    env = {**os.environ, "KARAKA_API_KEY": KEY}
    process = subprocess.Popen(
        [sys.executable, "-m", "karaka.app.cli", "serve", "--workspace", ctx.workspace, "--llm", "none",
         "--port", str(port)], env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    try:
        wait_http(f"http://127.0.0.1:{port}/health", process, seconds=90)
        with httpx.Client(base_url=f"http://127.0.0.1:{port}", timeout=30) as client:
            assert client.post("/chat", json={"messages": "What did Rama give?"}).status_code == 401
            result = client.post("/chat", json={"messages": "What did Rama give?"},
                                 headers={"X-API-Key": KEY}).json()["output"]
            assert result["answers"] == ["the bow"] and result["status"] == "GROUNDED"
            assert client.post("/ingest", json={"paths": ["."]}).status_code == 401
    finally:
        process.terminate()
        output = process.communicate(timeout=20)[0]
    assert f"127.0.0.1:{port}" in output and "API key on" in output


def test_page_and_views_answer_and_refuse_clearly(parser_ws):
    ctx, root = parser_ws
    with serve_in_thread(create_app(ctx, ingest_root=root, api_key=KEY)) as url, \
            httpx.Client(base_url=url, timeout=30, headers={"X-API-Key": KEY}) as client:
        page = httpx.get(url + "/", timeout=30)
        assert page.status_code == 200 and "/ui/app.js" in page.text  # the page itself needs no key
        assert httpx.get(url + "/ui/vendor/cytoscape-3.34.4.min.js", timeout=30).status_code == 200
        assert httpx.get(url + "/ui/../api.py", timeout=30).status_code == 404
        assert httpx.get(url + "/views/graph", params={"cite": "test_doc_1:2"}, timeout=30).status_code == 401
        graph = client.get("/views/graph", params={"cite": "test_doc_1:2"}).json()
        kinds = {(e["data"]["label"], e["data"]["relation"]) for e in graph["elements"]["edges"]}
        assert ("KARTA", "HAS_KARTĀ") in kinds and ("IS_SAME_AS", "IS_SAME_AS") in kinds
        assert {k["label"] for k in graph["kriyas"]} >= {"use", "kill"}
        assert client.get("/views/graph", params={"cite": "no-line"}).status_code == 422
        view = client.get("/views/line", params={"doc_id": "test_doc_1", "line": 2, "around": 1}).json()
        assert [(x["line"], x["cited"]) for x in view["lines"]] == [(1, False), (2, True)]
        assert client.get("/views/line", params={"doc_id": "nope", "line": 1}).json()["error"] == \
            "document 'nope' not found"
        assert client.get("/views/line", params={"doc_id": "test_doc_1", "line": 99}).status_code == 404
        entity = client.get("/views/entity", params={"name": "rama"}).json()
        assert entity["entity"] == "Rama" and "give" in {k["label"] for k in entity["kriyas"]}
        assert client.get("/views/entity", params={"name": "Nobody"}).status_code == 404
        names = client.get("/views/entities", params={"q": "ra"}).json()["entities"]
        assert {"Rama", "Ravana"} <= {n["name"] for n in names}


def test_a_cancelled_run_stops_and_the_same_ingest_resumes_it(parser_ws):
    ctx, root = parser_ws
    for n in range(12):
        write_doc(root / "many", f"part{n}.txt", *(f"Traveller {n} carried lamp {k} to village {k}." for k in range(60)))
    with serve_in_thread(create_app(ctx, ingest_root=root)) as url, httpx.Client(base_url=url, timeout=60) as client:
        run_id = client.post("/ingest", json={"paths": ["many"]}).json()["run_id"]
        deadline = time.monotonic() + 60
        while client.get(f"/runs/{run_id}").json()["progress"]["done"] == 0:
            assert time.monotonic() < deadline
            time.sleep(0.05)
        cancelled = client.delete(f"/runs/{run_id}")
        assert cancelled.status_code == 202 and cancelled.json()["status"] == "cancelling"
        run = _wait_run(client, run_id)
        assert run["status"] == "cancelled" and "resume" in run["error"]
        assert client.delete(f"/runs/{run_id}").status_code == 409
        assert client.delete("/runs/000000000000").status_code == 404
        statuses = [d["status"] for d in client.get("/documents").json()["documents"]]
        assert statuses.count("done") < 13, statuses
        again = _wait_run(client, client.post("/ingest", json={"paths": ["many"]}).json()["run_id"], seconds=240)
        statuses = [d["status"] for d in client.get("/documents").json()["documents"]]
        assert again["status"] == "finished" and statuses == ["done"] * 13, statuses
        answer = client.post("/chat", json={"messages": "What did Traveller 11 carry to village 59?"}).json()["output"]
        assert answer["citations"] and answer["citations"][0]["doc_id"] == "part11"


def test_metrics_are_scraped_during_an_ingest_and_questions(parser_ws):
    from prometheus_client.parser import text_string_to_metric_families

    ctx, root = parser_ws
    write_doc(root / "more", "hanuman.txt", *(f"Hanuman carried stone {k} to the bridge." for k in range(30)))

    def scrape(client) -> dict:
        response = client.get("/metrics")
        assert response.status_code == 200 and response.headers["content-type"].startswith("text/plain")
        return {(s.name, tuple(sorted(s.labels.items()))): s.value
                for family in text_string_to_metric_families(response.text) for s in family.samples}

    with serve_in_thread(create_app(ctx, ingest_root=root, api_key=KEY)) as url, \
            httpx.Client(base_url=url, timeout=60, headers={"X-API-Key": KEY}) as client:
        assert httpx.get(url + "/metrics").status_code == 401  # metrics need the key as every read does
        run_id = client.post("/ingest", json={"paths": ["more"]}).json()["run_id"]
        during = scrape(client)  # scraped while the run is open
        assert ("karaka_open_runs", ()) in during
        for question in ("What did Rama give to Lakshmana?", "Who carried stone 7?", "What colour was the sky?"):
            assert client.post("/chat", json={"messages": question}).status_code == 200
        with client.stream("POST", "/chat/stream", json={"messages": "Who used it to kill Ravana?"}) as response:
            sse_events(response)
        assert _wait_run(client, run_id)["status"] == "finished"
        after = scrape(client)
    answered = {labels: v for (name, labels), v in after.items() if name == "karaka_questions_total"}
    assert sum(answered.values()) == 4
    assert any(dict(labels)["status"] == "GROUNDED" for labels in answered)
    assert after[("karaka_question_seconds_count", (("stage", "total"),))] == 4
    assert any(name == "karaka_question_seconds_count" and labels != (("stage", "total"),) for name, labels in after)
    assert after[("karaka_ingested_lines_total", ())] == 30
    assert after[("karaka_ingest_runs_total", (("status", "finished"),))] == 1
    assert after[("karaka_open_runs", ())] == 0 and after[("karaka_ingest_lines_per_second", ())] > 0


def test_estimate_reads_uploaded_files_keeps_nothing_and_names_bad_ones(parser_ws):
    ctx, root = parser_ws
    files = [("files", ("sita.txt", b"Sita followed Rama into the forest.\nShe waited.\n", "text/plain")),
             ("files", ("blob.txt", bytes(range(256)) * 4, "application/octet-stream"))]
    with serve_in_thread(create_app(ctx, ingest_root=root)) as url, httpx.Client(base_url=url, timeout=30) as client:
        found = client.post("/estimate", files=files)
        assert found.status_code == 200, found.text
        body = found.json()
        assert body["documents"] == 1 and body["lines"] == 2 and body["requests"] == 0  # this server has no model
        assert [s["path"] for s in body["skipped_files"]] == ["blob.txt"] and str(root) not in found.text
        assert body["text"].startswith("1 document(s), 2 lines")
        assert not any(p.is_file() for p in (Path(ctx.workspace) / "uploads").rglob("*"))  # nothing kept
        by_path = client.post("/estimate", json={"paths": ["docs"]}).json()
        assert by_path["lines"] == 2 and by_path["documents"] == 1
        assert client.post("/estimate", json={"paths": ["../../etc"]}).status_code in (403, 422)
