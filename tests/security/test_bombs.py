"""Files made to exhaust the server: a page of metres, a Flate bomb, 10,000 pages, ZIP bombs as DOCX
and EPUB, a 50 MB one-line text. Each fails its own file with a reason, within a memory bound that
the test measures on the real ``karaka serve`` process, and the server answers the next question."""

import os
import subprocess
import sys
import threading
import time
import zipfile
import zlib

import httpx
import psutil
import pytest

from karaka.app.runner import run_ingest
from karaka.config import Context
from tests.fakes import _pdf, _stream, write_doc
from tests.server_util import free_port, wait_http

pytestmark = [pytest.mark.server, pytest.mark.slow]

SERVER_RSS_LIMIT = 1024 ** 3
BOMB_BYTES = 1536 * 1024 ** 2  # what each bomb expands to: more than a reader may take (1 GiB)
PAGE = b"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 %d %d] /Contents 3 0 R >>"


def _deflated(size: int, wbits: int) -> bytes:
    packer, chunk, out = zlib.compressobj(1, zlib.DEFLATED, wbits), b" " * (1 << 20), []  # level 1: 7 MB, made in half the time of 9
    for _ in range(size >> 20):
        out.append(packer.compress(chunk))
    return b"".join(out) + packer.flush()


def _one_page(size: int, content: bytes, extra: bytes = b"") -> bytes:
    return _pdf([b"<< /Type /Catalog /Pages 2 0 R >>", b"<< /Type /Pages /Kids [4 0 R] /Count 1 >>",
                 _stream(content, extra), PAGE.replace(b"3 0 R", b"3 0 R") % (size, size)])


def _many_pages(count: int) -> bytes:
    kids = b" ".join(b"%d 0 R" % (4 + i) for i in range(count))
    return _pdf([b"<< /Type /Catalog /Pages 2 0 R >>", b"<< /Type /Pages /Kids [%s] /Count %d >>" % (kids, count),
                 _stream(b"0 0 1 1 re f")] + [PAGE % (612, 792)] * count)


def _zip_bomb(path, member: str, prefix: bytes = b"") -> None:
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED, compresslevel=1) as archive:
        if path.suffix == ".epub":
            archive.writestr("mimetype", "application/epub+zip")
            archive.writestr("META-INF/container.xml", '<?xml version="1.0"?><container version="1.0" xmlns="urn:'
                             'oasis:names:tc:opendocument:xmlns:container"><rootfiles><rootfile full-path="c.opf" '
                             'media-type="application/oebps-package+xml"/></rootfiles></container>')
            archive.writestr("c.opf", '<package xmlns="http://www.idpf.org/2007/opf" version="3.0"><metadata/>'
                             '<manifest><item id="a" href="a.xhtml" media-type="application/xhtml+xml"/></manifest>'
                             '<spine><itemref idref="a"/></spine></package>')
        with archive.open(member, "w", force_zip64=True) as out:
            out.write(prefix)
            chunk = b" " * (1 << 20)
            for _ in range(BOMB_BYTES >> 20):
                out.write(chunk)


@pytest.fixture(scope="module")
def bombs(tmp_path_factory):
    folder = tmp_path_factory.mktemp("bombs") / "root"
    write_doc(folder / "docs", "story.txt", "Rama gave the bow to Lakshmana.")
    hostile = folder / "hostile"
    hostile.mkdir()
    (hostile / "huge_page.pdf").write_bytes(_one_page(14_400, b"0 0 1 1 re f"))
    (hostile / "flate_bomb.pdf").write_bytes(_one_page(612, _deflated(BOMB_BYTES, 15), b"/Filter /FlateDecode "))
    (hostile / "ten_thousand_pages.pdf").write_bytes(_many_pages(10_000))
    _zip_bomb(hostile / "bomb.docx", "word/document.xml", b'<?xml version="1.0"?><w:document xmlns:w="http://'
              b'schemas.openxmlformats.org/wordprocessingml/2006/main"><w:body>')
    _zip_bomb(hostile / "bomb.epub", "a.xhtml", b"<html><body><p>")
    with open(hostile / "one_line.txt", "w") as out:
        for _ in range(50):
            out.write("The quick brown fox jumps over the lazy dog near the river bank. " * 16_000)
        out.write("\n")
    assert all(p.stat().st_size < 60 * 1024 ** 2 for p in hostile.iterdir())
    return folder


def test_bombs_fail_their_own_file_and_the_server_stays_small(bombs, tmp_path):
    ctx = Context(workspace=str(tmp_path / "ws"), llm="none", extractor="parser")
    run_ingest(ctx, bombs / "docs")
    port = free_port()
    process = subprocess.Popen([sys.executable, "-m", "karaka.app.cli", "serve", "--workspace", ctx.workspace, "--llm",
                                "none", "--port", str(port), "--ingest-root", str(bombs)],
                               env=dict(os.environ), stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    peak, stop = [0], threading.Event()

    def watch() -> None:
        server = psutil.Process(process.pid)
        while not stop.is_set():
            try:
                peak[0] = max(peak[0], server.memory_info().rss)
            except psutil.Error:
                return
            time.sleep(0.05)

    watcher = threading.Thread(target=watch, daemon=True)
    watcher.start()
    try:
        base = f"http://127.0.0.1:{port}"
        wait_http(base + "/health", process, seconds=90)
        with httpx.Client(base_url=base, timeout=60) as client:
            run_id = client.post("/ingest", json={"paths": ["hostile"]}).json()["run_id"]
            deadline = time.monotonic() + 300
            while not (run := client.get(f"/runs/{run_id}").json())["finished"]:
                assert time.monotonic() < deadline, "the run did not end in 300 s"
                asked = client.post("/chat", json={"messages": "What did Rama give to Lakshmana?"})
                assert asked.status_code == 200, asked.text  # questions are answered while the bombs are read
                time.sleep(0.5)
            skipped = {s["path"].rsplit("/", 1)[-1]: s["error"] for s in run["report"]["skipped_files"]}
            assert sorted(skipped) == ["bomb.docx", "bomb.epub", "flate_bomb.pdf", "huge_page.pdf", "one_line.txt",
                                       "ten_thousand_pages.pdf"], skipped
            assert "max_pages" in skipped["ten_thousand_pages.pdf"]
            assert "max_lines" in skipped["one_line.txt"]
            assert "too large to render" in skipped["huge_page.pdf"] or "no text" in skipped["huge_page.pdf"]
            for name in ("bomb.docx", "bomb.epub"):
                assert any(w in skipped[name] for w in ("reader_memory_mb", "bytes, over", "bytes (")), skipped[name]
            answer = client.post("/chat", json={"messages": "What did Rama give to Lakshmana?"}).json()["output"]
            assert answer["answers"] == ["the bow"] and client.get("/health").json()["documents"] == 1
    finally:
        stop.set()
        process.terminate()
        process.communicate(timeout=30)
    print(f"server peak RSS {peak[0] / 1024 ** 2:.0f} MiB")
    assert 0 < peak[0] < SERVER_RSS_LIMIT
