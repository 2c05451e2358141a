import json
import subprocess
import sys

import pytest

from tests.fakes import write_doc

pytestmark = pytest.mark.slow  # real processes, servers or databases: not in the fast tier

SPEC = ("Rama gave the bow to Lakshmana.", "He used it to kill Ravana.")


def karaka(*args, cwd):
    return subprocess.run([sys.executable, "-m", "karaka.app.cli", *args], cwd=cwd, capture_output=True,
                          text=True, timeout=300, env={"PATH": "/usr/bin:/bin", "HOME": str(cwd)})


def test_demo_then_ask_stats_export_remove(tmp_path):
    demo = karaka("demo", "--workspace", "ws", cwd=tmp_path)
    assert demo.returncode == 0, demo.stderr
    assert "He (Rama) [ramayana, Line 2]" in demo.stdout
    found = demo.stdout.split("Find documents about grapes", 1)[1].split("\n\n", 1)[0]
    assert "status: GROUNDED · retrieval" in found and "confidence" not in found  # a list of lines claims nothing
    assert (tmp_path / "ws" / "query_results.json").exists()
    ask = karaka("ask", "--workspace", "ws", "--llm", "none", "What did Rama give?", "--json", cwd=tmp_path)
    assert ask.returncode == 0, ask.stderr
    result = json.loads(ask.stdout)
    assert result["answers"] == ["the bow"] and result["citations"][0]["line_number"] == 1
    miss = karaka("ask", "--workspace", "ws", "--llm", "none", "Who painted the zebra?", cwd=tmp_path)
    assert miss.returncode == 1 and "NO_MATCH" in miss.stdout
    stats = json.loads(karaka("stats", "--workspace", "ws", cwd=tmp_path).stdout)
    assert stats["nodes_by_type"]["Document"] == 24 and "fables" in stats["documents"]
    export = karaka("export", "--workspace", "ws", "--format", "gexf", cwd=tmp_path)
    assert export.returncode == 0 and (tmp_path / "ws" / "export.gexf").exists()
    removed = karaka("remove", "--workspace", "ws", "fables", cwd=tmp_path)
    assert removed.returncode == 0
    stats = json.loads(karaka("stats", "--workspace", "ws", cwd=tmp_path).stdout)
    assert "fables" not in stats["documents"]


def test_user_errors_exit_2_without_traceback(tmp_path):
    missing = karaka("ingest", "nope/", "--workspace", "ws", "--llm", "none", "--extractor", "parser", cwd=tmp_path)
    assert missing.returncode == 2 and "no such file" in missing.stderr and "Traceback" not in missing.stderr
    empty = karaka("ask", "--workspace", "empty", "--llm", "none", "Who?", cwd=tmp_path)
    assert empty.returncode == 2 and "is empty" in empty.stderr
    bad = karaka("ingest", ".", "--workspace", "ws", "--llm", "warp:9", cwd=tmp_path)
    assert bad.returncode == 2 and "unknown LLM spec" in bad.stderr


def test_an_uncached_hub_model_is_refused_before_torch_loads(tmp_path):
    """Offline, a hub id with no cached config fails in a second, not after importing torch and transformers."""
    script = ("import os, sys\nos.environ['HF_HUB_OFFLINE'] = '1'\nfrom karaka.models import load_llm\n"
              "try:\n    load_llm('huggingface:no-org/no-such-model')\nexcept ValueError as exc:\n    print(exc)\n"
              "print(sorted(m for m in ('torch', 'transformers') if m in sys.modules))")
    run = subprocess.run([sys.executable, "-c", script], cwd=tmp_path, capture_output=True, text=True, timeout=120,
                         env={"PATH": "/usr/bin:/bin", "HOME": str(tmp_path)})
    assert "no-org/no-such-model: cannot load the model" in run.stdout, run.stderr
    assert run.stdout.strip().splitlines()[-1] == "[]"


def test_ingest_with_failures_exits_3(tmp_path):
    docs = tmp_path / "docs"
    write_doc(docs, "ok.txt", *SPEC)
    (docs / "empty.txt").write_text("")
    run = karaka("ingest", "docs", "--workspace", "ws", "--llm", "none", "--extractor", "parser", cwd=tmp_path)
    assert run.returncode == 3 and "empty file" in run.stdout
    again = karaka("ingest", "docs", "--workspace", "ws", "--llm", "none", "--extractor", "parser", "--json",
                   cwd=tmp_path)
    report = json.loads(again.stdout)  # notices go to stderr, so --json stays parseable
    assert report["unchanged_documents"] == ["ok"] and "unchanged, skipped: ok" in again.stderr
    # the workspace remembers its models: a later `ask` without --llm does not reach for the default LLM
    assert 'llm = "none"' in (tmp_path / "ws" / "karaka.toml").read_text()
    ask = karaka("ask", "--workspace", "ws", "What did Rama give?", cwd=tmp_path)
    assert ask.returncode == 0 and "bow" in ask.stdout, ask.stderr
    missing_model = karaka("ask", "--workspace", "ws", "--llm", "huggingface:no-org/no-such-model", "Who?",
                           cwd=tmp_path)
    assert missing_model.returncode == 2 and "cannot load the model" in missing_model.stderr
    assert "Traceback" not in missing_model.stderr


def test_a_first_run_without_the_default_model_uses_the_parser_and_a_failed_one_binds_nothing(tmp_path):
    write_doc(tmp_path / "docs", "spec.txt", *SPEC)
    plain = karaka("ingest", "docs", "--workspace", "ws", cwd=tmp_path)  # HOME has no cached weights
    assert plain.returncode == 0, plain.stderr
    assert "using the offline parser" in plain.stderr
    assert 'llm = "none"' in (tmp_path / "ws" / "karaka.toml").read_text()
    failed = karaka("ingest", "docs", "--workspace", "ws2", "--llm", "huggingface:no-org/no-such-model", cwd=tmp_path)
    assert failed.returncode == 2 and "Traceback" not in failed.stderr
    assert not (tmp_path / "ws2" / "karaka.toml").exists()  # a run that failed records no settings
    parser = karaka("ingest", "docs", "--workspace", "ws2", "--extractor", "parser", cwd=tmp_path)
    assert parser.returncode == 0, parser.stderr
    ask = karaka("ask", "--workspace", "ws2", "What did Rama give?", cwd=tmp_path)
    assert ask.returncode == 0 and "the bow" in ask.stdout, ask.stderr


def test_the_exit_code_and_the_printed_report_agree(tmp_path):
    write_doc(tmp_path / "docs", "spec.md", *SPEC)
    (tmp_path / "docs" / "photo.png").write_bytes(b"\x89PNG\r\n\x1a\n\x00binary")
    run = karaka("ingest", "docs", "--workspace", "ws", "--extractor", "parser", cwd=tmp_path)
    assert run.returncode == 3
    assert "skipped docs/photo.png: unsupported file type .png" in run.stdout
    assert "docs/photo.png: docs/photo.png" not in run.stdout  # the path once
    assert "0 lines failed, 1 files skipped (exit 3)" in run.stdout
    clean = karaka("ingest", "docs/spec.md", "--workspace", "ws2", "--extractor", "parser", "--json", cwd=tmp_path)
    assert clean.returncode == 0 and json.loads(clean.stdout)["failures"] == []


def test_ingest_a_url_an_epub_and_a_word_document_from_the_command_line(tmp_path):
    import threading
    from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

    from tests.fakes import docx, epub

    class Page(BaseHTTPRequestHandler):
        def do_GET(self):  # noqa: N802
            self.send_response(200)
            self.send_header("Content-Type", "text/html")
            self.end_headers()
            self.wfile.write(b"<html><body><main><h1>Ferry</h1><p>The ferry to Keld first sailed on 3 May 1921.</p></main></body></html>")

        def log_message(self, *args):
            pass

    site = ThreadingHTTPServer(("127.0.0.1", 0), Page)
    threading.Thread(target=site.serve_forever, daemon=True).start()
    url = f"http://127.0.0.1:{site.server_address[1]}/ferry.html"
    try:
        refused = karaka("ingest", url, "--workspace", "ws", "--llm", "none", "--json", cwd=tmp_path)
        assert refused.returncode == 3 and "local or private address" in refused.stdout  # no setting: refused
        fetched = subprocess.run([sys.executable, "-m", "karaka.app.cli", "ingest", url, "--workspace", "ws", "--llm", "none"],
                                 cwd=tmp_path, capture_output=True, text=True, timeout=300,
                                 env={"PATH": "/usr/bin:/bin", "HOME": str(tmp_path), "KARAKA_ALLOW_PRIVATE_URLS": "1"})
        assert fetched.returncode == 0, fetched.stdout + fetched.stderr
    finally:
        site.shutdown()
    books = tmp_path / "books"
    books.mkdir()
    epub(books / "voyage.epub", [("The Harbour", ["The Heron left the harbour with nine sailors."])])
    docx(books / "report.docx", [("Heading1", "Repairs"), ("Normal", "The crew replaced the mast in March.")])
    assert karaka("ingest", "books", "--workspace", "ws", "--llm", "none", cwd=tmp_path).returncode == 0
    ask = json.loads(karaka("ask", "--workspace", "ws", "When did the ferry to Keld first sail?", "--json", cwd=tmp_path).stdout)
    assert ask["status"] == "GROUNDED" and ask["citations"][0]["doc_id"] == "127.0.0.1__ferry"
    mast = karaka("ask", "--workspace", "ws", "When did the crew replace the mast?", cwd=tmp_path).stdout
    assert "[report, § Repairs, line 2]" in mast
    sailors = karaka("ask", "--workspace", "ws", "How many sailors left the harbour?", cwd=tmp_path).stdout
    assert "[voyage, ch. 1, line" in sailors


def test_estimate_says_the_cost_before_a_run_and_learns_from_the_run_it_predicted(tmp_path):
    docs = tmp_path / "docs"
    write_doc(docs, "one.txt", *SPEC, "Sita waited in the grove.", "Hanuman carried the ring to Sita.")
    write_doc(tmp_path / "more", "two.txt", "Bharata ruled from Nandigrama.", "He kept the sandals on the throne.",
              "The people praised Bharata.", "Rama returned to Ayodhya.")
    first = karaka("ingest", "docs", "--workspace", "ws", "--llm", "simulated", "--estimate", cwd=tmp_path)
    assert first.returncode == 0, first.stderr
    assert "1 document(s), 4 lines" in first.stdout and "LLM requests" in first.stdout
    assert "time unknown" in first.stdout and not (tmp_path / "ws").exists()  # nothing written, no model loaded
    run = karaka("ingest", "docs", "--workspace", "ws", "--llm", "simulated", "--json", cwd=tmp_path)
    assert run.returncode == 0, run.stderr
    actual = json.loads(run.stdout)["llm_calls"]
    shown = karaka("ingest", "docs", "--workspace", "shown", "--llm", "simulated", cwd=tmp_path)
    assert shown.stdout.count("📏") == 1 and "LLM requests" in shown.stdout  # said once, when the run starts
    again = karaka("ingest", "more", "--workspace", "ws", "--llm", "simulated", "--estimate", "--json", cwd=tmp_path)
    predicted = json.loads(again.stdout)
    assert "earlier run" in predicted["basis"] and predicted["seconds"] is not None
    later = json.loads(karaka("ingest", "more", "--workspace", "ws", "--llm", "simulated", "--json",
                              cwd=tmp_path).stdout)["llm_calls"]
    spent = later["extraction"] + later["post_processing"]
    assert abs(predicted["requests"] - spent) <= 0.2 * spent, (predicted, later, actual)
