"""What a new user meets in a first hour: folders with links and repeated names, two ingests at once, a
server beside the CLI, citations, huge lines, offline asking, progress output; real processes where it matters."""

import json
import os
import sqlite3
import subprocess
import sys
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import httpx
import pytest

from karaka.app.runner import run_ingest, run_query
from karaka.config import Context
from karaka.nlp.rules import rule_violations
from karaka.services import get_services
from tests.fakes import write_doc
from tests.server_util import free_port, serve_in_thread, wait_http

pytestmark = pytest.mark.slow  # real processes, servers or databases: not in the fast tier

KEY = "k3y"


def karaka(*args, cwd, env=None, timeout=300):
    base = {"PATH": "/usr/bin:/bin", "HOME": str(cwd), "HF_HUB_OFFLINE": "1"}
    return subprocess.run([sys.executable, "-m", "karaka.app.cli", *args], cwd=cwd, capture_output=True, text=True,
                          timeout=timeout, env={**base, **(env or {})})


def graph_docs(workspace: Path) -> dict[str, int]:
    """Kriyās per document, read from the saved graph file."""
    data = json.loads((workspace / "graph.json").read_text())
    out: dict[str, int] = {}
    for node in data["nodes"]:
        if node.get("type") == "Kriya":
            out[node["doc_id"]] = out.get(node["doc_id"], 0) + 1
    return out


# -- 1. symlinks found while walking a folder are confined too ---------------------------------------
def test_symlinks_inside_a_folder_cannot_leak_outside_files(tmp_path):
    root, outside = tmp_path / "root", tmp_path / "outside"
    write_doc(outside, "secret.txt", "The vault code is 4921.")
    write_doc(root / "links", "ok.txt", "Rama gave the bow to Lakshmana.")
    (root / "links" / "secret.txt").symlink_to(outside / "secret.txt")
    (root / "links" / "passwd.txt").symlink_to("/etc/passwd")
    ctx = Context(workspace=str(tmp_path / "ws"), llm="none", extractor="parser")
    from karaka.app.api import create_app

    with serve_in_thread(create_app(ctx, ingest_root=root, api_key=KEY)) as url, \
            httpx.Client(base_url=url, timeout=30, headers={"X-API-Key": KEY}) as client:
        run_id = client.post("/ingest", json={"paths": ["links"]}).json()["run_id"]
        deadline = time.monotonic() + 60
        while (run := client.get(f"/runs/{run_id}").json())["finished"] is None and time.monotonic() < deadline:
            time.sleep(0.1)
        skipped = {Path(s["path"]).name: s["error"] for s in run["report"]["skipped_files"]}
        assert set(skipped) == {"secret.txt", "passwd.txt"} and all("outside the ingest root" in e
                                                                    for e in skipped.values())
        assert str(tmp_path) not in json.dumps(run) and "/etc" not in json.dumps(run)
        answer = client.post("/chat", json={"messages": "What is the vault code?"}).json()["output"]
        assert "4921" not in json.dumps(answer) and all(c["doc_id"] != "secret" for c in answer["citations"])
        assert str(tmp_path) not in json.dumps(client.get("/health").json())
    cli = karaka("ingest", "links", "--workspace", "ws2", "--extractor", "parser", "--ingest-root", ".", "--json",
                 cwd=root)
    report = json.loads(cli.stdout)
    assert cli.returncode == 3 and {Path(s["path"]).name for s in report["skipped_files"]} == {"secret.txt",
                                                                                              "passwd.txt"}


# -- 2. two writers on one workspace ----------------------------------------------------------------
def test_two_concurrent_cli_ingests_keep_every_document(tmp_path):
    for name in ("alpha", "beta"):
        write_doc(tmp_path / name, f"{name}.txt", *[f"Rama gave gift {i} of {name} to Sita." for i in range(30)])
    args = ("--workspace", "ws", "--llm", "simulated:latency=0.01", "--concurrency", "2", "--json")
    with ThreadPoolExecutor(2) as pool:
        runs = list(pool.map(lambda n: karaka("ingest", n, *args, cwd=tmp_path), ("alpha", "beta")))
    assert [r.returncode for r in runs] == [0, 0], [r.stderr for r in runs]
    assert graph_docs(tmp_path / "ws") == {"alpha": 30, "beta": 30}
    with sqlite3.connect(tmp_path / "ws" / "karaka.db") as db:
        assert dict(db.execute("SELECT doc_id, status FROM documents")) == {"alpha": "done", "beta": "done"}
    again = karaka("ingest", "alpha", *args, cwd=tmp_path)
    assert json.loads(again.stdout)["unchanged_documents"] == ["alpha"]


def test_done_in_the_records_means_the_graph_holds_the_document(tmp_path):
    write_doc(tmp_path / "docs", "a.txt", "Rama gave the bow to Lakshmana.")
    ctx = Context(workspace=str(tmp_path / "ws"), llm="none", extractor="parser")
    run_ingest(ctx, tmp_path / "docs")
    ws = get_services(ctx).workspace
    ws.graph.remove_document("a")  # as a lost write would leave it: "done" with nothing in the graph
    ws.flush()
    report = run_ingest(ctx, tmp_path / "docs")
    assert report["unchanged_documents"] == [] and report["documents"] == 1
    assert ws.graph.kriyas_of("a")


# -- 3. a running server and a CLI writer ----------------------------------------------------------
def test_server_sees_cli_documents_and_its_delete_keeps_them(tmp_path):
    write_doc(tmp_path / "one", "rama.txt", "Rama gave the bow to Lakshmana.")
    write_doc(tmp_path / "two", "sita.txt", "Sita followed Rama into the forest.")
    assert karaka("ingest", "one", "--workspace", "ws", "--extractor", "parser", cwd=tmp_path).returncode == 0
    port = free_port()
    server = subprocess.Popen([sys.executable, "-m", "karaka.app.cli", "serve", "--workspace", "ws", "--port", str(port)],
                              cwd=tmp_path, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                              env={**os.environ, "HF_HUB_OFFLINE": "1"})
    try:
        wait_http(f"http://127.0.0.1:{port}/health", server, seconds=90)
        with httpx.Client(base_url=f"http://127.0.0.1:{port}", timeout=30) as client:
            assert client.get("/health").json()["documents"] == 1
            assert karaka("ingest", "two", "--workspace", "ws", "--extractor", "parser",
                          cwd=tmp_path).returncode == 0
            assert client.get("/health").json()["documents"] == 2  # the server reloaded the newer generation
            answer = client.post("/chat", json={"messages": "Who followed Rama?"}).json()["output"]
            assert answer["answers"] == ["Sita"]
            assert client.delete("/documents/rama").status_code == 200
        assert graph_docs(tmp_path / "ws") == {"sita": 1}  # the CLI's document survived the server's write
    finally:
        server.terminate()
        server.communicate(timeout=30)


# -- 4. document ids are unique per source; replacing is explicit ------------------------------------
def test_same_file_name_from_two_folders_keeps_both(tmp_path):
    write_doc(tmp_path / "a", "notes.txt", "Rama gave the bow to Lakshmana.")
    write_doc(tmp_path / "b", "notes.txt", "Sita followed Rama.")
    ctx = Context(workspace=str(tmp_path / "ws"), llm="none", extractor="parser")
    run_ingest(ctx, tmp_path / "a" / "notes.txt")
    run_ingest(ctx, tmp_path / "b" / "notes.txt")
    ids = sorted(d["doc_id"] for d in get_services(ctx).workspace.records.documents())
    assert ids[0] == "notes" and ids[1].startswith("notes-") and len(ids) == 2
    assert run_ingest(ctx, tmp_path / "a" / "notes.txt")["unchanged_documents"] == ["notes"]
    write_doc(tmp_path / "c", "notes.txt", "Hanuman carried the mountain.")
    replaced = run_ingest(ctx, tmp_path / "c" / "notes.txt", replace=True)  # only an explicit replace
    assert any("replaced the document from notes.txt" in w for w in replaced["warnings"])
    records = get_services(ctx).workspace.records
    assert records.document("notes")["path"].endswith("c/notes.txt") and len(records.documents()) == 2
    assert not get_services(ctx).workspace.graph.kriyas_by_verb("give")  # a's actions went with it


# -- 6. citations name the file's line; other scripts' sentence ends ---------------------------------
def test_citations_name_the_file_line_and_sentence(tmp_path):
    docs = tmp_path / "docs"
    write_doc(docs, "history.txt", "History", "", "Rama gave the bow to Lakshmana. Sita followed Rama.", "",
              "Hanuman carried the mountain.")
    write_doc(docs, "hindi.txt", "राम ने धनुष दिया। लक्ष्मण ने धनुष लिया।", "सीता ने राम का अनुसरण किया।")
    ctx = Context(workspace=str(tmp_path / "ws"), llm="none", extractor="parser")
    run_ingest(ctx, docs)
    carried = run_query(ctx, "What did Hanuman carry?")["citations"][0]
    assert (carried["line_number"], carried["sentence"]) == (5, 0)
    followed = run_query(ctx, "Who followed Rama?")["citations"][0]
    assert (followed["line_number"], followed["sentence"]) == (3, 2)
    hindi = get_services(ctx).workspace.records.lines("hindi")
    assert [(s.line, s.sentence) for s in hindi] == [(1, 1), (1, 2), (2, 0)]


# -- 7. citations are capped --------------------------------------------------------------------------
def test_one_huge_line_gives_few_citations(tmp_path):
    docs = tmp_path / "docs"
    docs.mkdir()
    (docs / "huge.txt").write_text("Rama gave the bow to Lakshmana " * 20000 + ".\n")
    ctx = Context(workspace=str(tmp_path / "ws"), llm="none", extractor="parser")
    run_ingest(ctx, docs)
    result = run_query(ctx, "What did Rama give?")
    assert 1 <= len(result["citations"]) <= ctx.max_citations


# -- 8. verbatim spans pass the rule checks -----------------------------------------------------------
def test_rule_checks_accept_spans_copied_from_the_line():
    line = "Dr. Aris gave the book ( about US$ 49 million ) to Mira."
    item = {"verb": "give", "karakas": {"KARTA": "Dr. Aris", "KARMA": "the book ( about US$ 49 million )",
                                        "SAMPRADANA": "Mira"}}
    assert rule_violations(item, line) == []
    bad = rule_violations({"verb": "give", "karakas": {"KARTA": "Dr. Watson"}}, line)
    assert bad and "watson" in bad[0]  # the feedback names the offending word


def test_a_corpus_with_dr_aris_ingests_with_the_simulated_llm(tmp_path):
    lines = [f"Sita gave gift {i} to Rama." for i in range(1999)] + ["Dr. Aris gave the book to Mira."]
    write_doc(tmp_path / "docs", "corpus.txt", *lines)
    run = karaka("ingest", "docs", "--workspace", "ws", "--llm", "simulated", "--window", "8", "--json",
                 cwd=tmp_path, timeout=600)
    assert run.returncode == 0, run.stderr[-2000:]
    assert json.loads(run.stdout)["failures"] == []


# -- 9. the parser extractor needs no LLM; every entry point records its settings --------------------
def test_parser_extractor_needs_no_llm_and_asking_offline_always_works(tmp_path):
    write_doc(tmp_path / "docs", "a.txt", "Rama gave the bow to Lakshmana.")
    run = karaka("ingest", "docs", "--workspace", "ws", "--extractor", "parser", cwd=tmp_path)
    assert run.returncode == 0, run.stderr
    assert 'llm = "none"' in (tmp_path / "ws" / "karaka.toml").read_text()
    from karaka import Karaka

    Karaka(workspace=tmp_path / "py", llm="none").ingest(tmp_path / "docs")
    assert 'llm = "none"' in (tmp_path / "py" / "karaka.toml").read_text()
    assert karaka("ask", "--workspace", "py", "What did Rama give?", cwd=tmp_path).returncode == 0
    built = karaka("ingest", "docs", "--workspace", "llm", "--llm", "simulated", cwd=tmp_path)
    assert built.returncode == 0
    offline = karaka("ask", "--workspace", "llm", "--llm", "none", "What did Rama give?", cwd=tmp_path)
    assert offline.returncode == 0 and "the bow" in offline.stdout


# -- 10. server robustness --------------------------------------------------------------------------
def test_checkpoints_stay_bounded_and_bad_requests_get_json_errors(tmp_path):
    write_doc(tmp_path / "docs", "a.txt", "Rama gave the bow to Lakshmana.")
    ctx = Context(workspace=str(tmp_path / "ws"), llm="none", extractor="parser")
    run_ingest(ctx, tmp_path / "docs")
    from karaka.app.api import create_app

    with serve_in_thread(create_app(ctx, ingest_root=tmp_path)) as url, httpx.Client(base_url=url, timeout=30) as client:
        for _ in range(20):
            assert client.post("/chat", json={"messages": "What did Rama give?"}).status_code == 200
        for _ in range(10):
            assert client.post("/chat", json={"messages": "What did Rama give?", "thread_id": "t"}).status_code == 200
        with sqlite3.connect(tmp_path / "ws" / "checkpoints.sqlite") as db:
            per_thread = dict(db.execute("SELECT thread_id, COUNT(*) FROM checkpoints GROUP BY thread_id"))
        assert {k: v for k, v in per_thread.items() if not k.startswith("ingest-")} == {"t": 1}
        assert [v for k, v in per_thread.items() if k.startswith("ingest-")] == [1]  # a finished run's newest
        with ThreadPoolExecutor(20) as pool:
            codes = list(pool.map(lambda i: client.post("/chat", json={"messages": "What did Rama give?",
                                                                       "thread_id": f"c{i % 4}"}).status_code,
                                  range(40)))
        assert codes == [200] * 40
        nul = client.post("/ingest", json={"paths": ["docs\x00/a.txt"]})
        assert nul.status_code == 422 and "NUL" in nul.json()["error"]
        nested = client.post("/chat", content=("[" * 5000 + "]" * 5000).encode(),
                             headers={"content-type": "application/json"})
        assert nested.status_code == 400 and "nested" in nested.json()["error"]


# -- 11. files that are not plain files ------------------------------------------------------------
def test_fifos_and_symlink_loops_are_reported_not_hung_on(tmp_path):
    docs = tmp_path / "docs"
    write_doc(docs, "ok.txt", "Rama gave the bow to Lakshmana.")
    os.mkfifo(docs / "x.txt")
    (docs / "loop").mkdir()
    (docs / "loop" / "again").symlink_to(docs / "loop")
    run = karaka("ingest", "docs", "--workspace", "ws", "--extractor", "parser", "--json", cwd=tmp_path, timeout=120)
    errors = " ".join(s["error"] for s in json.loads(run.stdout)["skipped_files"])
    assert run.returncode == 3 and "not a regular file (a FIFO)" in errors and "symlink loop" in errors
    assert graph_docs(tmp_path / "ws") == {"ok": 1}


# -- 12, 13. a CLI that reads well ----------------------------------------------------------------
def test_cli_progress_lines_version_and_no_noise(tmp_path):
    write_doc(tmp_path / "docs", "a.txt", *[f"Sita gave gift {i} to Rama." for i in range(40)])
    first = karaka("ingest", "docs", "--workspace", "ws", "--extractor", "parser", cwd=tmp_path)
    assert first.returncode == 0 and "extracting 40/40 units" in first.stdout
    assert "DEBUG" not in first.stdout + first.stderr and "None" not in first.stdout
    again = karaka("ingest", "docs", "--workspace", "ws", "--extractor", "parser", cwd=tmp_path)
    assert "documents 0 new or changed, 1 unchanged" in again.stdout
    assert karaka("--version", cwd=tmp_path).stdout.startswith("karaka ")
    assert "WORKSPACE/export.FORMAT" in karaka("export", "--help", cwd=tmp_path).stdout
    assert not (tmp_path / "karaka_workspace").exists()


# -- 14. the graph keeps what the extractor found ---------------------------------------------------
def test_exported_graph_scores_within_two_points_of_the_extractor():
    sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "benchmarks"))
    from export_fidelity import DATA, run

    assert DATA.exists(), f"{DATA}: the shared QA-SRL data sits beside the checkout"
    result = run("wikinews", limit=120)
    assert result["sentences"] == 120 and result["lost_points"] <= 2.0, result


@pytest.mark.parametrize(("lines", "word"), [
    (("Rama said that the people were not considered Roman.", "Sita met Roman at the gate."), "Roman"),  # a clause's
    (("Clark presents data indicating that error rates have fallen since 2011.", "Rama met Sita in 2011."), "2011"),
    (("The radio reported the arrival of Edgar Lungu , the president who landed in South Africa after he fell ill .",
      "Rama visited South Africa."), "South Africa"),  # a name inside a long description
])
def test_a_word_is_never_made_an_alias_of_a_phrase_that_merely_holds_it(tmp_path, lines, word):
    write_doc(tmp_path / "docs", "a.txt", *lines)
    ctx = Context(workspace=str(tmp_path / "ws"), llm="none", extractor="parser")
    run_ingest(ctx, tmp_path / "docs")
    graph = get_services(ctx).workspace.graph
    assert any(graph.node(e)["canonical_name"] == word for e in graph.nodes_of("Entity"))
    aliases = [(graph.node(e)["canonical_name"], x.target) for e in graph.nodes_of("Entity")
               for x in graph.edges_out(e, "IS_SAME_AS") if x.attrs.get("method") == "alias"]
    assert not aliases, aliases
