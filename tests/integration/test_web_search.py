"""Web search as a cited fallback, against a server on 127.0.0.1 that answers in each provider's
documented JSON format: the answer is cited as the web, apart from the documents; only the
question is sent; failures are named and the documents' answer still comes back."""

import json
import subprocess
import sys
import threading
import time
from dataclasses import replace
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from urllib.parse import parse_qs, urlparse

import httpx
import pytest

from karaka.app.api import create_app
from karaka.app.runner import run_ingest, run_query
from karaka.config import Context
from tests.fakes import write_doc
from tests.server_util import serve_in_thread

pytestmark = [pytest.mark.server, pytest.mark.slow]

RESULT = {"title": "History of the telephone", "path": "/bell",
          "text": "Alexander Graham Bell invented the telephone in 1876."}
OTHER = {"title": "Lighthouses", "path": "/lights", "text": "The lighthouse keeper trimmed the wick every night."}


class Provider(BaseHTTPRequestHandler):
    mode = "ok"
    seen: list[str] = []

    def log_message(self, *args):  # quiet
        pass

    def _send(self, status: int, body: bytes) -> None:
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def _answer(self, shape: str) -> None:
        if self.mode == "slow":
            time.sleep(3)
        if self.mode in ("401", "429"):
            return self._send(int(self.mode), b'{"error": "no"}')
        if self.mode == "bad":
            return self._send(200, b"<html>not json")
        base = f"http://{self.headers['Host']}"
        rows = [{"title": r["title"], "url": base + r["path"], shape: r["text"]} for r in (RESULT, OTHER)]
        body = {"web": {"results": rows}} if shape == "description" else {"results": rows}
        self._send(200, json.dumps(body).encode())

    def do_GET(self):
        url = urlparse(self.path)
        self.seen.append(json.dumps(parse_qs(url.query)))
        self._answer("description" if url.path.startswith("/res/") else "content")

    def do_POST(self):
        self.seen.append(self.rfile.read(int(self.headers["Content-Length"])).decode())
        assert self.headers["Authorization"] == "Bearer k3y"
        self._answer("content")


@pytest.fixture(scope="module")
def provider():
    server = ThreadingHTTPServer(("127.0.0.1", 0), Provider)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    yield f"http://127.0.0.1:{server.server_address[1]}"
    server.shutdown()


@pytest.fixture(scope="module")
def workspace(tmp_path_factory):
    base = tmp_path_factory.mktemp("websearch")
    write_doc(base / "docs", "epic.txt", "Rama gave the bow to Lakshmana.")
    ctx = Context(workspace=str(base / "ws"), llm="none", extractor="parser")
    run_ingest(ctx, base / "docs")
    return ctx


SETTINGS = {"tavily": ("/search", "k3y"), "searxng": ("", ""), "brave": ("/res/v1/web/search", "k3y")}


@pytest.mark.parametrize("name", sorted(SETTINGS))
def test_each_provider_answers_cited_as_the_web(workspace, provider, name):
    Provider.mode, Provider.seen = "ok", []
    path, key = SETTINGS[name]
    ctx = replace(workspace, web_search=name, web_search_url=provider + path, web_search_key=key)
    result = run_query(ctx, "Who invented the telephone?")
    assert result["status"] == "GROUNDED" and result["source"] == "web"
    assert result["answers"] == ["Alexander Graham Bell"] and result["citations"] == []  # no document proves it
    web = result["web"]
    assert web["citations"][0]["cite"] == f"[web: History of the telephone, {provider}/bell]"
    assert result["answer"].endswith(web["citations"][0]["cite"])
    assert len(Provider.seen) == 1 and "Who invented the telephone?" in Provider.seen[0]
    assert "Rama" not in Provider.seen[0] and "bow" not in Provider.seen[0]  # never a document's text


def test_off_by_default_and_not_asked_when_the_documents_prove_it(workspace, provider):
    Provider.mode, Provider.seen = "ok", []
    off = run_query(workspace, "Who invented the telephone?")
    assert "web" not in off and off["status"] != "GROUNDED"
    on = replace(workspace, web_search="searxng", web_search_url=provider)
    proved = run_query(on, "What did Rama give to Lakshmana?")
    assert proved["answers"] == ["the bow"] and "web" not in proved and Provider.seen == []


@pytest.mark.parametrize(("mode", "said"), [("401", "refused the key"), ("429", "too many requests"),
                                            ("bad", "unexpected format"), ("slow", "timed out")])
def test_provider_failures_are_named_and_the_documents_answer_stands(workspace, provider, mode, said):
    Provider.mode = mode
    ctx = replace(workspace, web_search="tavily", web_search_url=provider + "/search", web_search_key="k3y",
                  web_search_timeout=1.0)
    result = run_query(ctx, "Who invented the telephone?")
    assert result["status"] in ("NO_MATCH", "NO_ANSWER", "UNCERTAIN") and "source" not in result
    assert any(said in w for w in result["warnings"]), result["warnings"]
    Provider.mode = "ok"


def test_cli_and_http_show_web_sources_apart(workspace, provider):
    Provider.mode = "ok"
    shown = subprocess.run([sys.executable, "-m", "karaka.app.cli", "ask", "--workspace", workspace.workspace, "--llm",
                            "none", "--web-search", "searxng", "--web-search-url", provider,
                            "Who invented the telephone?"], capture_output=True, text=True, timeout=300)
    assert "from the web (GROUNDED; not your documents):" in shown.stdout
    assert f"[w1] [web: History of the telephone, {provider}/bell]" in shown.stdout
    assert "status: GROUNDED (web)" in shown.stdout
    ctx = replace(workspace, web_search="searxng", web_search_url=provider)
    with serve_in_thread(create_app(ctx)) as url:
        output = httpx.post(url + "/chat", json={"messages": "Who invented the telephone?"}, timeout=120).json()["output"]
    assert output["source"] == "web" and output["web"]["citations"][0]["url"] == provider + "/bell"


def test_the_page_lists_web_sources_apart(workspace, provider):
    import os
    import shutil

    from tests.server_util import free_port, wait_http

    playwright_api = pytest.importorskip("playwright.sync_api")
    Provider.mode = "ok"
    port = free_port()
    env = {**os.environ, "KARAKA_WEB_SEARCH": "searxng", "KARAKA_WEB_SEARCH_URL": provider}
    process = subprocess.Popen([sys.executable, "-m", "karaka.app.cli", "serve", "--workspace", workspace.workspace,
                                "--llm", "none", "--port", str(port)], env=env, stdout=subprocess.DEVNULL,
                               stderr=subprocess.DEVNULL)
    try:
        wait_http(f"http://127.0.0.1:{port}/health", process, seconds=90)
        with playwright_api.sync_playwright() as p:
            browser = p.chromium.launch(executable_path=shutil.which("chromium"), args=["--no-sandbox"])
            page = browser.new_page()
            page.goto(f"http://127.0.0.1:{port}/")
            page.fill("#question", "Who invented the telephone?")
            page.click("#ask-button")
            page.wait_for_selector("#web-box:not([hidden]) #web-citations a", timeout=60_000)
            link = page.locator("#web-citations a").first
            assert link.text_content() == f"[web: History of the telephone, {provider}/bell]"
            assert link.get_attribute("href") == provider + "/bell"
            assert page.locator("#citations li").count() == 0  # the documents' lines are not mixed in
            browser.close()
    finally:
        process.terminate()
        process.communicate(timeout=20)
