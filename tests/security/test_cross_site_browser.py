"""A real page on another origin, in headless Chromium, tries to make the user's browser write to a
keyless ``karaka serve`` on 127.0.0.1: a multipart upload and a text/plain question, both requests
a page may send without a CORS preflight. The server refuses them (Origin checked): nothing is
ingested, and the planted line is never cited."""

import os
import shutil
import subprocess
import sys
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import httpx
import pytest

from karaka.app.runner import run_ingest
from karaka.config import Context
from tests.fakes import write_doc
from tests.server_util import free_port, wait_http

pytestmark = [pytest.mark.server, pytest.mark.slow]
playwright_api = pytest.importorskip("playwright.sync_api")


def _attacker(target: str) -> str:
    """A page that, once opened, uploads a file to the target and asks it a question (no CORS preflight)."""
    return f"""<html><body><script>
  const form = new FormData();
  form.append("files", new Blob(["The attacker planted this line."], {{type: "text/plain"}}), "planted.txt");
  Promise.allSettled([
    fetch("{target}/ingest", {{method: "POST", mode: "no-cors", body: form}}),
    fetch("{target}/chat", {{method: "POST", mode: "no-cors", headers: {{"Content-Type": "text/plain"}},
                            body: JSON.stringify({{messages: "Who planted the line?"}})}}),
  ]).then(() => {{ document.title = "sent"; }});
</script></body></html>"""


def test_a_page_of_another_origin_cannot_write_through_the_browser(tmp_path):
    root = tmp_path / "root"
    write_doc(root / "docs", "story.txt", "Rama gave the bow to Lakshmana.")
    write_doc(root / "planted", "planted.txt", "The attacker planted this line.")
    ctx = Context(workspace=str(tmp_path / "ws"), llm="none", extractor="parser")
    run_ingest(ctx, root / "docs")
    port = free_port()
    server = subprocess.Popen([sys.executable, "-m", "karaka.app.cli", "serve", "--workspace", ctx.workspace, "--llm",
                               "none", "--port", str(port), "--ingest-root", str(root)], env=dict(os.environ),
                              stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    target = f"http://127.0.0.1:{port}"
    page_html = _attacker(target).encode()

    class Attacker(BaseHTTPRequestHandler):
        def log_message(self, *args):
            pass

        def do_GET(self):
            self.send_response(200)
            self.send_header("Content-Type", "text/html")
            self.end_headers()
            self.wfile.write(page_html)

    evil = ThreadingHTTPServer(("127.0.0.1", 0), Attacker)
    threading.Thread(target=evil.serve_forever, daemon=True).start()
    try:
        wait_http(target + "/health", server, seconds=90)
        with playwright_api.sync_playwright() as p:
            browser = p.chromium.launch(executable_path=shutil.which("chromium"), args=["--no-sandbox"])
            page = browser.new_page()
            page.goto(f"http://localhost:{evil.server_address[1]}/")  # another origin than the server's
            deadline = time.monotonic() + 30
            while page.title() != "sent":
                assert time.monotonic() < deadline
                time.sleep(0.1)
            browser.close()
        time.sleep(5.0)  # an ingest the upload had started would have finished by now
        with httpx.Client(base_url=target, timeout=30) as client:
            docs = [d["doc_id"] for d in client.get("/documents").json()["documents"]]
            assert docs == ["story"]
            answer = client.post("/chat", json={"messages": "Who planted the line?"}).json()["output"]
            assert not answer["citations"] or all(c["doc_id"] == "story" for c in answer["citations"])
    finally:
        evil.shutdown()
        server.terminate()
        server.communicate(timeout=20)
