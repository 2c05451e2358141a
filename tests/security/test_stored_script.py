"""Documents that carry script, shown in headless Chromium (Debian's) by a real ``karaka serve``:
answers, citations, the cited line in context, the answer's graph, an entity's graph, the
documents list and a run's list of skipped files. Nothing runs: every payload would change
``document.title`` or set a flag."""

import os
import shutil
import subprocess
import sys
import time

import httpx
import pytest

from karaka.app.runner import run_ingest
from karaka.config import Context
from tests.fakes import write_doc
from tests.server_util import free_port, wait_http

pytestmark = [pytest.mark.server, pytest.mark.slow]
playwright_api = pytest.importorskip("playwright.sync_api")

RUN = "document.title='pwned';window.pwned=1"
PAYLOADS = [
    f"Mallory sent <script>{RUN}</script> to Bob.",
    f'Mallory gave <img src=x onerror="{RUN}"> to Bob.',
    f"Mallory posted [a link](javascript:{RUN}) for Bob.",
    f'Mallory drew <svg onload="{RUN}"><script>{RUN}</script></svg> for Bob.',
    f"Mallory hid <!-- <script>{RUN}</script> --> from Bob.",
    f'Mallory wrote <a href="javascript:{RUN}">click</a> to Bob.',
]


def _poll(page, expression: str, seconds: float = 60) -> None:
    deadline = time.monotonic() + seconds
    while not page.evaluate(expression):
        assert time.monotonic() < deadline, f"{expression} did not hold in {seconds} s"
        time.sleep(0.1)


@pytest.fixture(scope="module")
def hostile_server(tmp_path_factory):
    base = tmp_path_factory.mktemp("xss")
    write_doc(base / "docs", "<img src=x onerror=alert(1)>.md", *PAYLOADS)
    write_doc(base / "docs", "mallory.html", "<html><body>", *(f"<p>{p}</p>" for p in PAYLOADS), "</body></html>")
    ctx = Context(workspace=str(base / "ws"), llm="none", extractor="parser")
    run_ingest(ctx, base / "docs")
    port = free_port()
    process = subprocess.Popen([sys.executable, "-m", "karaka.app.cli", "serve", "--workspace", ctx.workspace, "--llm",
                                "none", "--port", str(port)], env=dict(os.environ), stdout=subprocess.PIPE,
                               stderr=subprocess.STDOUT, text=True)
    try:
        wait_http(f"http://127.0.0.1:{port}/health", process, seconds=90)
        yield f"http://127.0.0.1:{port}"
    finally:
        process.terminate()
        process.communicate(timeout=20)


def test_the_page_forbids_inline_script(hostile_server):
    policy = httpx.get(hostile_server + "/").headers["content-security-policy"]
    assert "script-src 'self'" in policy and "unsafe-inline" not in policy and "object-src 'none'" in policy


def test_stored_script_never_runs_in_the_page(hostile_server, tmp_path):
    chromium = shutil.which("chromium") or shutil.which("chromium-browser")
    assert chromium, "Debian's chromium is missing: scripts/setup.sh installs it"
    with playwright_api.sync_playwright() as p:
        browser = p.chromium.launch(executable_path=chromium, args=["--no-sandbox", "--disable-gpu"])
        page = browser.new_context().new_page()  # the page's own CSP in force
        page.on("dialog", lambda dialog: (_ for _ in ()).throw(AssertionError(f"a dialog opened: {dialog.message}")))
        page.goto(hostile_server + "/")
        title = page.title()
        for question in ("What did Mallory send to Bob?", "What did Mallory give to Bob?", "What did Mallory draw?"):
            turns = page.locator("#thread .turn").count()
            page.fill("#question", question)
            page.click("#ask-button")
            _poll(page, f"document.querySelectorAll('#thread .turn').length > {turns}")
            _poll(page, "document.getElementById('status').textContent.length > 0")
            cite = page.locator("#citations .cite").first
            if cite.count():
                cite.click()  # the cited line within its neighbours, and the answer's graph
                _poll(page, "document.querySelectorAll('#line-context li').length > 0")
        assert "Mallory" in page.text_content("#thread")
        page.click("#tab-graph")
        page.fill("#entity", "Mallory")
        page.click("#entity-form button")
        page.click("#tab-docs")
        _poll(page, "document.querySelectorAll('#documents tbody tr').length >= 2")
        hostile = tmp_path / f'<img src=x onerror="{RUN}">.pdf'
        hostile.write_bytes(b"<svg onload=alert(1)>not a pdf")
        page.set_input_files("#files", str(hostile))
        page.click("#upload-form button[type=submit]")  # a run whose skipped file is named in the runs list
        _poll(page, "document.getElementById('run-status').dataset.status !== undefined")
        assert "onerror" in page.inner_text("#run-problems")  # shown as text
        for link in page.locator("a[href^='javascript:']").all():
            pytest.fail(f"a javascript: link was made: {link.get_attribute('href')}")
        time.sleep(1.0)
        assert page.title() == title and page.evaluate("() => window.pwned === undefined")
        browser.close()
