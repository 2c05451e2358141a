"""Web pages by URL, from a real HTTP server on 127.0.0.1: fetched, cited by their URL's name, refused with reasons."""

import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import httpx
import pytest

from karaka.app.api import create_app
from karaka.app.runner import run_ingest, run_query
from karaka.config import Context
from karaka.loading import DocumentError
from karaka.loading.web import fetch, name_of
from karaka.services import get_services
from tests.server_util import serve_in_thread

PAGE = """<!doctype html><html><head><title>Lamp guide</title></head><body>
<nav><a href="/">Home</a> <a href="/about">About</a></nav>
<main><h1>Lamp guide</h1>
<h2>Wicks</h2>
<p>The keeper trims the wick every evening before sunset.</p>
<p>A brass lamp burns whale oil for nine hours.</p>
</main><footer>Copyright the lamp society</footer></body></html>"""


class Pages(BaseHTTPRequestHandler):
    def do_GET(self):  # noqa: N802 - http.server's name
        if self.path == "/guide/lamps.html":
            body = PAGE.encode()
            self.send_response(200)
            self.send_header("Content-Type", "text/html; charset=utf-8")
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)
        elif self.path == "/moved":
            self.send_response(301)
            self.send_header("Location", "/guide/lamps.html")
            self.end_headers()
        elif self.path.startswith("/loop"):
            self.send_response(302)
            self.send_header("Location", f"/loop{len(self.path)}")
            self.end_headers()
        elif self.path == "/slow":
            time.sleep(3)
            self.send_response(200)
            self.end_headers()
        elif self.path == "/big":
            self.send_response(200)
            self.send_header("Content-Type", "text/plain")
            self.end_headers()
            self.wfile.write(b"word " * 50_000)
        else:
            self.send_response(404)
            self.end_headers()

    def log_message(self, *args):
        pass


@pytest.fixture(scope="module")
def site():
    server = ThreadingHTTPServer(("127.0.0.1", 0), Pages)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{server.server_address[1]}"
    server.shutdown()


def test_a_page_by_url_is_ingested_with_its_url_as_source_and_cited_by_its_name(site, tmp_path):
    ctx = Context(workspace=str(tmp_path / "ws"), llm="none", extractor="parser", allow_private_urls=True)
    report = run_ingest(ctx, f"{site}/guide/lamps.html")
    assert report["skipped_files"] == []
    doc = get_services(ctx).workspace.records.document("127.0.0.1__guide__lamps")
    assert doc is not None and doc["path"] == f"{site}/guide/lamps.html"
    result = run_query(ctx, "How long does a brass lamp burn?")
    assert result["status"] == "GROUNDED" and result["answers"] == ["nine hours"]
    assert "[127.0.0.1__guide__lamps, § Wicks, line" in result["answer"]
    texts = [s.text for s in get_services(ctx).workspace.records.lines("127.0.0.1__guide__lamps")]
    assert not any("Copyright" in t or "About" in t for t in texts)  # the page's furniture is left out


def test_refusals_name_the_url_and_the_reason(site):
    with pytest.raises(DocumentError, match="local or private address"):
        fetch(f"{site}/guide/lamps.html")  # 127.0.0.1 without allow_private_urls
    with pytest.raises(DocumentError, match="only http and https"):
        fetch("file:///etc/passwd", allow_private=True)
    with pytest.raises(DocumentError, match="redirected more than 5 times"):
        fetch(f"{site}/loop", allow_private=True)
    with pytest.raises(DocumentError, match="timed out after 1 s"):
        fetch(f"{site}/slow", allow_private=True, timeout=1)
    with pytest.raises(DocumentError, match="over the limit of 1000 bytes"):
        fetch(f"{site}/big", allow_private=True, max_bytes=1000)
    with pytest.raises(DocumentError, match="answered 404"):
        fetch(f"{site}/missing", allow_private=True)
    final, kind, body = fetch(f"{site}/moved", allow_private=True)
    assert final.endswith("/guide/lamps.html") and kind == "text/html" and b"brass lamp" in body


def test_a_redirect_to_a_private_address_is_refused_too(site, tmp_path):
    class Bounce(BaseHTTPRequestHandler):
        def do_GET(self):  # noqa: N802
            self.send_response(302)
            self.send_header("Location", f"{site}/guide/lamps.html")
            self.end_headers()

        def log_message(self, *args):
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), Bounce)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        with pytest.raises(DocumentError, match="local or private"):
            fetch(f"http://127.0.0.1:{server.server_address[1]}/")
    finally:
        server.shutdown()


def test_names_made_from_urls():
    assert name_of("https://example.org/guide/intro.html") == "example.org__guide__intro"
    assert name_of("https://example.org/") == "example.org"
    assert name_of("https://example.org/a%20b/c.pdf?x=1") == "example.org__a_b__c"


def test_post_ingest_urls_fetches_in_the_run_and_lists_each_failure(site, tmp_path):
    ctx = Context(workspace=str(tmp_path / "ws"), llm="none", extractor="parser", allow_private_urls=True)
    with serve_in_thread(create_app(ctx)) as url, httpx.Client(base_url=url, timeout=30) as client:
        started = client.post("/ingest", json={"urls": [f"{site}/guide/lamps.html", f"{site}/loop", "ftp://x/y"]})
        assert started.status_code == 422 and "ftp://x/y" in started.json()["error"]
        started = client.post("/ingest", json={"urls": [f"{site}/guide/lamps.html", f"{site}/loop"]})
        assert started.status_code == 202
        run_id = started.json()["run_id"]
        for _ in range(300):
            run = client.get(f"/runs/{run_id}").json()
            if run["status"] not in ("queued", "running"):
                break
            time.sleep(0.1)
        assert run["status"] == "finished_with_failures" and run["paths"][0].endswith("/guide/lamps.html")
        skipped = run["report"]["skipped_files"]
        assert [s["path"] for s in skipped] == [f"{site}/loop"] and "redirected more than" in skipped[0]["error"]
        chat = client.post("/chat", json={"messages": "How long does a brass lamp burn?"}).json()["output"]
        assert chat["citations"][0]["doc_id"] == "127.0.0.1__guide__lamps"
        assert client.post("/ingest", json={"paths": ["a"], "urls": [f"{site}/x"]}).status_code == 422
