"""The web page in a real headless Chromium (Debian's package, driven by Playwright) against a real
``karaka serve`` on 127.0.0.1 with the demo corpus. Screenshots of each view land in
``test-artifacts/screenshots/`` (or $KARAKA_ARTIFACTS) for a person to look at.
"""

import os
import shutil
import subprocess
import sys
from importlib import resources
from pathlib import Path

import pytest

from karaka.app.runner import run_ingest
from karaka.config import Context
from tests.server_util import free_port, wait_http

pytestmark = [pytest.mark.server, pytest.mark.slow]
playwright_api = pytest.importorskip("playwright.sync_api")

KEY = "page-key"
SHOTS = Path(os.environ.get("KARAKA_ARTIFACTS", "test-artifacts")) / "screenshots"
WAIT_MS = 60_000


def _chromium() -> str:
    path = shutil.which("chromium") or shutil.which("chromium-browser")
    assert path, "Debian's chromium is missing: scripts/setup.sh installs it (apt-get install chromium)"
    return path


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    base = tmp_path_factory.mktemp("page")
    ctx = Context(workspace=str(base / "ws"), llm="none", extractor="parser")
    run_ingest(ctx, Path(str(resources.files("karaka") / "data" / "corpus")))
    port = free_port()
    env = {**os.environ, "KARAKA_API_KEY": KEY, "KARAKA_ALLOW_PRIVATE_URLS": "true"}  # the test's site is on loopback
    process = subprocess.Popen(
        [sys.executable, "-m", "karaka.app.cli", "serve", "--workspace", ctx.workspace, "--llm", "none",
         "--port", str(port), "--ingest-root", str(base)],
        env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    try:
        wait_http(f"http://127.0.0.1:{port}/health", process, seconds=90)
        yield f"http://127.0.0.1:{port}", base
    finally:
        process.terminate()
        process.communicate(timeout=20)


@pytest.fixture(scope="module")
def browser():
    with playwright_api.sync_playwright() as p:
        chromium = p.chromium.launch(executable_path=_chromium(), args=["--no-sandbox", "--disable-gpu"])
        yield chromium
        chromium.close()


@pytest.fixture
def page(browser, server):
    url, _ = server
    context = browser.new_context(viewport={"width": 1280, "height": 1000}, bypass_csp=True)  # waits eval
    page = context.new_page()
    page.set_default_timeout(WAIT_MS)
    page.goto(url + "/")
    yield page
    context.close()


def _key(page, key=KEY):
    page.fill("#api-key", key)
    page.click("#key-form button")


def _shot(page, name):
    SHOTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(SHOTS / f"{name}.png"), full_page=True)


def _ask(page, question):
    turns = page.locator("#thread .turn").count()
    page.fill("#question", question)
    page.click("#ask-button")
    page.wait_for_function(f"document.querySelectorAll('#thread .turn').length > {turns}")


def test_ask_streams_the_answer_opens_the_cited_line_and_draws_its_graph(page):
    _key(page)
    _ask(page, "Who killed Ravana?")
    assert page.text_content("#status") == "GROUNDED"
    assert "Rama" in page.text_content("#answer")
    first = page.locator("#citations .cite").first
    assert first.text_content() == "[ramayana, Line 2]"
    first.click()
    page.wait_for_selector("#line-context li.cited")
    assert "He used it to kill Ravana." in page.text_content("#line-context li.cited")
    assert page.locator("#line-context li").count() > 1  # the line within its neighbours
    page.wait_for_function("window.karaka.answer && window.karaka.answer.nodes().length > 0")
    karta = page.evaluate("""() => window.karaka.answer.edges().filter(e => e.source().data('label') === 'kill'
        && e.data('shown') === 'KARTĀ').map(e => e.target().data('label'))""")
    assert karta == ["He"]
    same = page.evaluate("() => window.karaka.answer.edges('[label = \"IS_SAME_AS\"]').map(e => e.target().data('label'))")
    assert "Rama" in same
    page.evaluate("() => window.karaka.answer.nodes('[label = \"kill\"]').emit('tap')")
    assert "He used it to kill Ravana." in page.text_content("#answer-node")
    page.click("#trace-box summary")
    assert page.locator("#trace li").count() > 0
    _shot(page, "ask")
    _ask(page, "What did Rama give?")  # a follow-up keeps the thread
    assert page.locator("#thread .turn").count() == 2 and "bow" in page.text_content("#answer")


def test_entity_graph_from_the_search_box(page):
    _key(page)
    page.click("#tab-graph")
    page.fill("#entity", "Rama")
    page.click("#entity-form button")
    page.wait_for_function("window.karaka.entity && window.karaka.entity.nodes().length > 1")
    verbs = page.evaluate("() => window.karaka.entity.nodes('[type = \"Kriya\"]').map(n => n.data('label'))")
    assert "give" in verbs
    _shot(page, "graph")


def _upload(page, path):
    """Upload one file from the Documents tab; returns the run's final status."""
    _key(page)
    page.click("#tab-docs")
    page.set_input_files("#files", str(path))
    page.click("#upload-form button[type=submit]")
    page.wait_for_selector("#run-status[data-status]")
    return page.get_attribute("#run-status", "data-status")


def test_upload_shows_progress_to_done_and_remove(page, server):
    _, base = server
    upload = base / "hanuman.txt"
    upload.write_text("Hanuman leapt across the ocean.\nHe found Sita in the grove.\n", encoding="utf-8")
    page.on("dialog", lambda dialog: dialog.accept())
    assert _upload(page, upload) == "finished"
    assert page.evaluate("() => document.getElementById('progress').value === document.getElementById('progress').max")
    page.wait_for_selector("#documents tbody tr:has-text('hanuman')")
    _shot(page, "documents")
    page.click("button[aria-label^='Remove hanuman']")
    page.wait_for_function("!document.querySelector('#documents tbody').textContent.includes('hanuman')")


def test_choosing_files_shows_what_their_ingestion_would_cost_before_the_upload(page, server):
    _, base = server
    chosen = base / "angada.txt"
    chosen.write_text("Angada carried the message.\nRavana refused it.\nThe envoy returned.\n", encoding="utf-8")
    _key(page)
    page.click("#tab-docs")
    page.set_input_files("#files", str(chosen))
    page.wait_for_function("document.getElementById('estimate').textContent.startsWith('Estimate:')")
    assert "1 document(s), 3 lines" in page.text_content("#estimate")
    assert not page.is_visible("#run")  # nothing was ingested


def test_a_question_asked_aloud_is_heard_answered_and_cited(page, server, tmp_path):
    from tests.fakes import speech

    recording = speech(tmp_path / "question.wav", "What did the hungry fox see?")
    _key(page)
    page.set_input_files("#spoken", str(recording))
    page.wait_for_selector("#status")
    assert page.input_value("#question").rstrip("?.").lower() == "what did the hungry fox see"
    assert page.text_content("#status") == "GROUNDED" and "grapes" in page.text_content("#answer")


def test_live_metrics_count_the_questions_asked(page):
    _key(page)
    _ask(page, "Who killed Ravana?")
    page.click("#tab-docs")
    page.click("#metrics-box summary")
    page.wait_for_selector("#metrics dd[data-metric='Questions answered']")
    assert int(page.text_content("#metrics dd[data-metric='Questions answered']")) >= 1
    assert int(page.text_content("#metrics dd[data-metric='GROUNDED']")) >= 1
    assert page.text_content("#metrics dd[data-metric='Mean answer time']").endswith(" s")
    _shot(page, "metrics")


def test_a_table_answer_is_drawn_as_a_table_with_a_cited_row_each(page, server):
    _, base = server
    upload = base / "kiln.md"
    upload.write_text("# Kiln\n\n## Programs\n\n| Program | Peak temperature |\n|---|---|\n| Bisque | 1000 C |\n"
                      "| Glaze | 1240 C |\n", encoding="utf-8")
    assert _upload(page, upload) == "finished"
    page.click("#tab-ask")
    _ask(page, "What are the programs and their peak temperatures?")
    page.wait_for_selector("#answer-table tbody tr")
    rows = page.locator("#answer-table tbody tr")
    assert rows.count() == 2 and rows.nth(1).locator("td").nth(1).text_content() == "1240 C"
    rows.nth(1).locator("button.cite").click()
    page.wait_for_function("(document.querySelector('#line-context li.cited') || {}).textContent"
                           "?.includes('1240 C')")
    _shot(page, "table-answer")


def test_a_run_with_a_skipped_file_says_which_and_why(page, server):
    _, base = server
    bad = base / "scan.pdf"
    bad.write_bytes(b"<html><body>not a pdf</body></html>")
    assert _upload(page, bad) == "finished_with_failures"
    problems = page.inner_text("#run-problems")
    assert problems.startswith("skipped scan.pdf: ") and len(problems) > len("skipped scan.pdf: ") + 5
    _shot(page, "run-problems")


def test_a_book_uploaded_as_epub_is_cited_by_its_chapter_and_a_web_page_by_its_url(page, server):
    from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
    from threading import Thread

    from tests.fakes import epub

    _, base = server
    book = epub(base / "heron.epub", [("The Harbour", ["The Heron left the harbour of Aska with nine sailors."]),
                                      ("The Storm", ["A storm tore the sail on the third night."])])
    assert _upload(page, book) == "finished"

    class Page(BaseHTTPRequestHandler):
        def do_GET(self):  # noqa: N802
            body = b"<html><body><main><h1>Ferry notes</h1><p>The ferry to Keld leaves at dawn.</p></main></body></html>"
            self.send_response(200)
            self.send_header("Content-Type", "text/html")
            self.end_headers()
            self.wfile.write(body)

        def log_message(self, *args):
            pass

    site = ThreadingHTTPServer(("127.0.0.1", 0), Page)
    Thread(target=site.serve_forever, daemon=True).start()
    try:
        page.fill("#urls", f"http://127.0.0.1:{site.server_address[1]}/ferry.html")
        page.evaluate("document.getElementById('run-status').removeAttribute('data-status')")
        page.click("#url-form button[type=submit]")
        page.wait_for_selector("#run-status[data-status]")
        assert page.get_attribute("#run-status", "data-status") == "finished"
        page.wait_for_selector("#documents tbody tr:has-text('127.0.0.1__ferry')")
    finally:
        site.shutdown()
    page.click("#tab-ask")
    _ask(page, "What tore the sail on the third night?")
    first = page.locator("#citations .cite").first
    assert first.text_content().startswith("[heron, ch. 2, line ")
    first.click()
    page.wait_for_selector("#line-context li.cited")
    assert "(§ The Storm)" in page.text_content("#line-title")
    _shot(page, "book")


def test_a_wrong_key_shows_the_refusal(page):
    _key(page, "wrong-key")
    page.fill("#question", "Who killed Ravana?")
    page.click("#ask-button")
    page.wait_for_selector("#notice:not([hidden])")
    assert "needs the API key" in page.text_content("#notice")
    _shot(page, "refused")


def test_keyboard_and_a_narrow_screen(browser, server):
    url, _ = server
    context = browser.new_context(viewport={"width": 390, "height": 800}, bypass_csp=True)
    page = context.new_page()
    page.goto(url + "/")
    page.focus("#tab-ask")
    page.keyboard.press("ArrowRight")
    assert page.is_visible("#view-graph") and not page.is_visible("#view-ask")
    assert page.evaluate("() => document.activeElement.id") == "tab-graph"
    for field in ("question", "entity", "files", "api-key"):
        assert page.locator(f"label[for={field}]").count() == 1
    assert page.evaluate("() => document.documentElement.scrollWidth") <= 392  # no sideways scrolling
    _shot(page, "narrow")
    context.close()
