"""The graph's query index (graph.sqlite): a question reads the nodes it visits, and every read
answers as the whole graph does, after first saves, later saves of changes, removals and faults."""

import os
import shutil
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest

from karaka.app.runner import close_checkpointers, run_ingest, run_query
from karaka.config import Context
from karaka.services import close_all, get_services
from karaka.store.damage import DiskFull
from karaka.store.embedded import index
from karaka.store.embedded.graph import KnowledgeGraph
from karaka.store.embedded.stored import ReadOnlyGraph, StoredGraph
from karaka.store.embedded.workspace import Workspace

CORPUS = Path(__file__).resolve().parents[2] / "src" / "karaka" / "data" / "corpus"
QUESTIONS = ["Who gave the bow to Rama?", "Where did Sita live?", "Why did the crow drop the cheese?",
             "Who killed Ravana?", "What did the fox say?"]


def _new_process():
    close_all()
    close_checkpointers()


def _same_reads(stored: StoredGraph, whole: KnowledgeGraph) -> None:
    """Every read of the protocol gives the same on both (in the same order)."""
    assert len(stored) == len(whole) and stored.stats() == whole.stats()
    for kind in ("Document", "Kriya", "Entity"):
        assert stored.nodes_of(kind) == whole.nodes_of(kind)
    assert sorted(stored.verbs()) == sorted(whole.verbs())
    assert stored.doc_ids() == whole.doc_ids()
    assert stored.first_lines() == whole.first_lines() and stored.line_counts() == whole.line_counts()
    assert sorted(stored.mentions()) == sorted(whole.mentions())
    for doc_id in whole.doc_ids():
        assert stored.document_nodes(doc_id) == whole.document_nodes(doc_id)
        assert stored.kriyas_of(doc_id) == whole.kriyas_of(doc_id)
        assert stored.document_at(doc_id, 2) == whole.document_at(doc_id, 2)
    for verb in whole.verbs():
        assert stored.kriyas_by_verb(verb.upper()) == whole.kriyas_by_verb(verb.upper())
    for node in whole.nodes_of("Document") + whole.nodes_of("Kriya") + whole.nodes_of("Entity"):
        assert node in stored and stored.node(node) == whole.node(node)
        assert stored.edges_out(node) == whole.edges_out(node)
        assert stored.edges_in(node) == whole.edges_in(node)
        assert stored.in_degree(node) == whole.in_degree(node) and sorted(stored.uses(node)) == sorted(whole.uses(node))
        assert stored.same_as_closure(node) == whole.same_as_closure(node)
    assert "no such node" not in stored and stored.node("no such node") is None


def _check(ws_path: Path) -> Workspace:
    """A reader of the workspace reads from a fresh index that answers as graph.json loaded whole."""
    ctx = Context(workspace=str(ws_path), llm="none")
    ws = get_services(ctx).workspace
    with ws.reading():
        assert isinstance(ws.graph, StoredGraph), "a reader of a freshly saved workspace uses the index"
        whole = KnowledgeGraph.load(ws_path / "graph.json")
        _same_reads(ws.graph, whole)
        built = Workspace._resolver_for(ws, whole)  # the resolver a whole-graph process builds
        names = [str(whole.node(e)["canonical_name"]) for e in whole.nodes_of("Entity")]
        spans = [span for _, span, _ in whole.mentions()]
        for mention in names + spans + ["the old Ayodhya", "Hanumanji", "a fox in the forest"]:
            assert ws.resolver.candidates(mention) == built.candidates(mention), mention
    return ws


def _ingested(tmp_path: Path) -> Context:
    """The packaged corpus ingested by the parser into ``tmp_path/ws``, as a finished process leaves it."""
    docs = tmp_path / "docs"
    shutil.copytree(CORPUS, docs)
    ctx = Context(workspace=str(tmp_path / "ws"), llm="none", extractor="parser")
    run_ingest(ctx, docs)
    _new_process()
    return ctx


def _answers(ctx: Context) -> list[tuple[str, str]]:
    return [(out["answer"], out["status"]) for out in (run_query(ctx, q) for q in QUESTIONS)]


def test_after_ingestion_removal_and_changes_the_index_answers_as_the_whole_graph(tmp_path):
    docs = tmp_path / "docs"
    shutil.copytree(CORPUS, docs)
    ctx = Context(workspace=str(tmp_path / "ws"), llm="none", extractor="parser")
    run_ingest(ctx, docs)  # the first save builds the index whole, later saves write what changed
    _new_process()
    _check(tmp_path / "ws")
    with_index = _answers(ctx)
    _new_process()
    (tmp_path / "ws" / "graph.sqlite").rename(tmp_path / "graph.sqlite.aside")
    assert _answers(ctx) == with_index, "the same answers from graph.json loaded whole"
    _new_process()
    (tmp_path / "graph.sqlite.aside").rename(tmp_path / "ws" / "graph.sqlite")

    ws = get_services(ctx).workspace
    ws.remove_document("fables")  # a removal: nodes, their edges and their names leave the index
    (docs / "fables.md").unlink()
    (docs / "more.txt").write_text("Hanuman carried the mountain to Lanka. He gave the herb to Lakshmana.\n"
                                   "Rama thanked Hanuman in Lanka because the herb saved Lakshmana.\n", encoding="utf-8")
    run_ingest(ctx, docs)
    _new_process()
    ws = _check(tmp_path / "ws")
    with ws.reading():
        assert not any(d.startswith("fables") for d in ws.graph.doc_ids())
        assert ws.graph.document_nodes("more")


def test_a_stale_or_missing_index_is_not_read_and_the_next_save_rebuilds_it(tmp_path):
    ctx = _ingested(tmp_path)
    graph_file = tmp_path / "ws" / "graph.json"
    graph_file.write_bytes(graph_file.read_bytes() + b" ")  # graph.json not as the index was stamped
    ws = get_services(ctx).workspace
    with ws.reading():
        assert not isinstance(ws.graph, StoredGraph), "a stale index is not read: graph.json is loaded whole"
    with ws.writing():
        assert ws.reindex() and not ws.reindex(), "rebuilt once, then fresh"
    _new_process()
    _check(tmp_path / "ws")
    _new_process()
    db = sqlite3.connect(tmp_path / "ws" / "graph.sqlite")
    db.execute("UPDATE meta SET value = '0' WHERE key = 'version'")  # an index of another layout
    db.commit()
    db.close()
    ws = get_services(ctx).workspace
    with ws.reading():
        assert not isinstance(ws.graph, StoredGraph)
    _new_process()
    (tmp_path / "ws" / "graph.sqlite").unlink()
    ws = get_services(ctx).workspace
    with ws.reading():
        assert not isinstance(ws.graph, StoredGraph)
    with ws.writing():
        ws.flush()  # a save with no index to update rebuilds it whole
    _new_process()
    _check(tmp_path / "ws")


def test_a_full_disk_while_the_index_is_written_loses_nothing(tmp_path, monkeypatch):
    docs = tmp_path / "docs"
    shutil.copytree(CORPUS, docs)
    ctx = Context(workspace=str(tmp_path / "ws"), llm="none", extractor="parser")
    real, calls = index._apply, {"n": 0}

    def full(*args):
        calls["n"] += 1
        if calls["n"] == 2:
            raise DiskFull(tmp_path / "ws" / "graph.sqlite")
        return real(*args)

    monkeypatch.setattr(index, "_apply", full)
    with pytest.raises(OSError, match="no space left"):
        run_ingest(ctx, docs)
    monkeypatch.undo()
    _new_process()
    run_ingest(ctx, docs)  # the same command again
    _new_process()
    ws = _check(tmp_path / "ws")
    assert ws.problems() == []


def test_a_reader_never_writes_through_the_index(tmp_path):
    ctx = _ingested(tmp_path)
    ws = get_services(ctx).workspace
    with ws.reading():
        before = (tmp_path / "ws" / "graph.json").read_bytes()
        with pytest.raises(ReadOnlyGraph, match="graph.sqlite is read-only"):
            ws.graph.add_entity("Bharata", "Bharata")
        with pytest.raises(ReadOnlyGraph, match="writing"):
            ws.flush()  # would otherwise save an empty graph over graph.json
        assert (tmp_path / "ws" / "graph.json").read_bytes() == before
    with ws.writing():
        ws.graph.add_entity("Bharata", "Bharata")  # a writer holds the whole graph
        ws.flush()
    _new_process()
    ws = get_services(ctx).workspace
    with ws.reading():
        assert ws.graph.node("Bharata") == {"type": "Entity", "canonical_name": "Bharata"}


def test_a_damaged_index_is_named_and_repair_rebuilds_it(tmp_path):
    docs = tmp_path / "docs"
    shutil.copytree(CORPUS, docs)
    ws = tmp_path / "ws"
    karaka = [sys.executable, "-m", "karaka.app.cli"]
    subprocess.run(karaka + ["ingest", str(docs), "--workspace", str(ws), "--extractor", "parser", "--llm", "none"],
                   check=True, capture_output=True)
    path = ws / "graph.sqlite"
    data = bytearray(path.read_bytes())
    page = 4096
    data[2 * page:] = os.urandom(len(data) - 2 * page)  # the header and the stamp readable, the tables garbled
    path.write_bytes(bytes(data))
    asked = subprocess.run(karaka + ["ask", "Who gave the bow to Rama?", "--workspace", str(ws)],
                           capture_output=True, text=True)
    assert asked.returncode == 2 and f"{path}: damaged" in asked.stderr and "karaka repair" in asked.stderr, asked.stderr
    repaired = subprocess.run(karaka + ["repair", "--workspace", str(ws)], capture_output=True, text=True)
    assert "graph.sqlite removed: damaged" in repaired.stdout and "graph.sqlite: rebuilt" in repaired.stdout
    asked = subprocess.run(karaka + ["ask", "Who gave the bow to Rama?", "--workspace", str(ws)],
                           capture_output=True, text=True)
    assert asked.returncode in (0, 1) and "Traceback" not in asked.stderr, asked.stderr
    _check(ws)


def test_a_large_run_leaves_the_bm25_index_so_its_first_question_builds_nothing(tmp_path, monkeypatch):
    import bm25s

    from karaka.kg import retrieval

    monkeypatch.setattr(retrieval, "PREPARE_LINES", 1)  # the packaged corpus counts as large
    ctx = _ingested(tmp_path)
    assert (tmp_path / "ws" / "bm25").is_dir()
    built, real = [], bm25s.BM25.index
    monkeypatch.setattr(bm25s.BM25, "index", lambda self, *a, **k: built.append(1) or real(self, *a, **k))
    result = run_query(ctx, QUESTIONS[0])
    assert result["status"] in ("GROUNDED", "UNCERTAIN", "NO_ANSWER") and built == [], \
        "the saved index was read, not rebuilt"
