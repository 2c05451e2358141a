"""Re-runs and interruptions never lose or duplicate: the same command again, Ctrl-C, a second write."""

import random
import signal
import sqlite3
import subprocess
import sys
import time

import numpy as np
import pytest

from karaka.app.runner import close_checkpointers, run_ingest
from karaka.config import Context
from karaka.kg.write import write_document
from karaka.services import forget_workspace, get_services
from karaka.state.ingest import Unit
from karaka.store.base import SourceLine
from karaka.store.embedded.workspace import Workspace
from tests.fakes import write_doc

pytestmark = pytest.mark.slow  # real processes, servers or databases: not in the fast tier

NAMES = ["Rama", "Sita", "Hanuman", "Ravana", "Lakshmana", "Bharata"]


def _extracted_lines(workspace):
    """Per document: (sentences, sentences with a stored result, status)."""
    with sqlite3.connect(workspace / "karaka.db") as db:
        return {doc: (n, db.execute("SELECT COUNT(*) FROM results WHERE doc_id = ?", (doc,)).fetchone()[0], status)
                for doc, n, status in db.execute("SELECT doc_id, n_lines, status FROM documents")}


def test_the_same_command_five_times_with_edits_extracts_every_line(tmp_path):
    rng = random.Random(7)
    docs = tmp_path / "docs"

    def write(i, salt):
        write_doc(docs, f"d{i}.txt", *(f"{rng.choice(NAMES)} gave the gift {salt}-{i}-{j} to {rng.choice(NAMES)}."
                                       for j in range(100)))

    for i in range(10):
        write(i, 0)
    ctx = Context(workspace=str(tmp_path / "ws"), llm="none", extractor="parser", concurrency=1)
    for run in range(5):
        if run:
            for i in rng.sample(range(10), 3):
                write(i, run)
        report = run_ingest(ctx, docs)
        assert not report["failures"], report["failures"]
        per_doc = _extracted_lines(tmp_path / "ws")
        assert len(per_doc) == 10
        assert all(n == got == 100 and status == "done" for n, got, status in per_doc.values()), (run, per_doc)
        if run:
            assert report["documents"] == 3 and len(report["unchanged_documents"]) == 7, report


def test_a_write_stage_never_marks_done_a_document_with_units_missing(tmp_path):
    docs = tmp_path / "docs"
    write_doc(docs, "a.txt", *(f"Rama gave gift {i} to Sita." for i in range(6)))
    ctx = Context(workspace=str(tmp_path / "ws"), llm="none", extractor="parser")
    run_ingest(ctx, docs, stop_after="embed")
    run_ingest(ctx, docs, stop_after="write")  # extraction and write done; post-processing pending
    ws = get_services(ctx).workspace
    with sqlite3.connect(tmp_path / "ws" / "karaka.db") as db:  # a unit result lost (a rolled-back database)
        db.execute("DELETE FROM results WHERE unit_id = (SELECT MIN(unit_id) FROM results)")
    failures, missing = write_document(ws, "a", 1)
    assert len(missing) == 1 and not failures


def _results(workspace):
    try:
        with sqlite3.connect(f"file:{workspace / 'karaka.db'}?mode=ro", uri=True, timeout=1) as db:
            return db.execute("SELECT COUNT(*) FROM results").fetchone()[0]
    except sqlite3.OperationalError:
        return 0


def _hear_ctrl_c():
    """Give the child Ctrl-C's default action, as a terminal's foreground command has.

    A suite started as a background job of a non-interactive shell (as CI may start it) inherits
    SIGINT ignored (POSIX), and Python then never turns SIGINT into KeyboardInterrupt: the run
    would ignore the interrupt and finish.
    """
    signal.signal(signal.SIGINT, signal.SIG_DFL)


def test_ctrl_c_then_the_same_command_resumes(tmp_path):
    docs = tmp_path / "docs"
    for d in range(3):
        write_doc(docs, f"book{d}.txt", *(f"{NAMES[i % 6]} gave the gift {d}-{i} to {NAMES[(i + 1) % 6]}."
                                          for i in range(60)))
    ws = tmp_path / "ws"
    cmd = [sys.executable, "-m", "karaka.app.cli", "ingest", str(docs), "--workspace", str(ws),
           "--llm", "simulated:latency=0.03", "--concurrency", "2", "--window", "1"]
    process = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True,
                               preexec_fn=_hear_ctrl_c)
    deadline = time.monotonic() + 120
    while _results(ws) < 20 and time.monotonic() < deadline and process.poll() is None:
        time.sleep(0.05)
    process.send_signal(signal.SIGINT)
    _, err = process.communicate(timeout=60)
    assert process.returncode == 130, err
    before = _results(ws)
    assert 20 <= before < 180
    resumed = subprocess.run(cmd, capture_output=True, text=True, timeout=300)
    assert resumed.returncode == 0, resumed.stderr
    assert "resuming an interrupted run" in resumed.stdout
    assert "/180 units" in resumed.stdout and "180/180 units" in resumed.stdout.replace("\r", "\n")
    assert _results(ws) == 180


class _Embeddings:
    """Names with hand-set vectors: "ayodhya city" is nearer "old city of ayodhya" than "ayodhya"."""

    table = {"ayodhya": (1, 0, 0), "ayodhya city": (0.9, 0.436, 0), "old city of ayodhya": (0.8, 0.573, 0.179)}

    def _one(self, text):
        vec = np.zeros(8, dtype=np.float32)
        if text in self.table:
            vec[:3] = self.table[text]
        else:
            vec[3 + sum(map(ord, text)) % 5] = 1.0
        return vec.tolist()

    def embed_documents(self, texts):
        return [self._one(t) for t in texts]

    def embed_query(self, text):
        return self._one(text)


def _workspace_with_results(root):
    ws = Workspace(root, _Embeddings())
    lines = ["Rama lived in Ayodhya.", "Sita lived in Ayodhya city.", "Bharata lived in the old city of Ayodhya."]
    ws.records.put_document("a", "a.txt", "hash", [SourceLine(i, i, 0, t) for i, t in enumerate(lines, 1)], "embedded")
    for seq, (who, where) in enumerate([("Rama", "in Ayodhya"), ("Sita", "in Ayodhya city"),
                                        ("Bharata", "in the old city of Ayodhya")], 1):
        ws.graph.add_document("a", seq, lines[seq - 1], line=seq)
        unit = Unit.of("a", seq, seq)
        kriya = {"line": seq, "verb": "live", "karakas": {"KARTA": who, "ADHIKARANA_SPATIAL": where}}
        ws.records.put_result(unit.unit_id, "a", seq, seq, "golden", {"kriyas": [kriya]}, llm_calls=0,
                              prompt_tokens=0, attempts=1, fast_path=False, seconds=0.0, run_id="r")
    return ws


def test_writing_twice_in_two_processes_gives_the_same_graph_byte_for_byte(tmp_path):
    first = _workspace_with_results(tmp_path / "ws")
    assert write_document(first, "a", 1) == ([], [])
    first.flush()
    first.graph.export(tmp_path / "once.json", "json")
    assert first.graph.neighbors("a_L2_K1", "LOCATED_IN") == ["Ayodhya"]  # nearest when it was written
    first.close()

    second = Workspace(tmp_path / "ws", _Embeddings())  # a new process: the resolver is rebuilt from the graph
    with second.writing():
        assert second.resolver.resolve("in Ayodhya city", prepositional=True).entity_id == "Ayodhya"
        assert write_document(second, "a", 1) == ([], [])
        second.flush()
    second.graph.export(tmp_path / "twice.json", "json")
    assert (tmp_path / "twice.json").read_bytes() == (tmp_path / "once.json").read_bytes()
    second.close()


def test_a_rewrite_drops_the_edges_and_kriyas_a_unit_no_longer_has(tmp_path):
    ws = _workspace_with_results(tmp_path / "ws")
    write_document(ws, "a", 1)
    unit = Unit.of("a", 3, 3)  # the third line now reads differently: one Kriyā, no place
    ws.records.put_result(unit.unit_id, "a", 3, 3, "golden",
                          {"kriyas": [{"line": 3, "verb": "rule", "karakas": {"KARTA": "Bharata"}}]},
                          llm_calls=0, prompt_tokens=0, attempts=1, fast_path=False, seconds=0.0, run_id="r2")
    write_document(ws, "a", 1)
    assert ws.graph.node("a_L3_K1")["verb"] == "rule"
    assert [e.relation for e in ws.graph.edges_out("a_L3_K1")] == ["CITED_IN", "HAS_KARTĀ"]
    assert "old city of Ayodhya" not in ws.graph  # no Kriyā uses it any more
    ws.close()


def test_the_same_command_after_the_records_were_lost_rewrites_the_same_graph(tmp_path):
    docs = tmp_path / "docs"
    write_doc(docs, "a.txt", *(f"{NAMES[i % 6]} met {NAMES[(i + 2) % 6]} in Ayodhya city {i}." for i in range(20)))
    ctx = Context(workspace=str(tmp_path / "ws"), llm="none", extractor="parser")
    run_ingest(ctx, docs)
    ws = get_services(ctx).workspace
    with ws.reading():
        ws.graph.export(tmp_path / "once.json", "json")
    forget_workspace(ctx.workspace)
    close_checkpointers()
    for name in ("karaka.db", "karaka.db-wal", "karaka.db-shm"):
        (tmp_path / "ws" / name).unlink(missing_ok=True)
    report = run_ingest(ctx, docs)
    assert report["documents"] == 1 and not report["failures"]
    ws = get_services(ctx).workspace
    with ws.reading():
        ws.graph.export(tmp_path / "twice.json", "json")
    assert (tmp_path / "twice.json").read_bytes() == (tmp_path / "once.json").read_bytes()


def test_a_role_whose_span_names_nothing_is_left_out_and_the_rest_written(tmp_path):
    ws = Workspace(tmp_path / "ws", _Embeddings())
    line = "The length parameter is now optional for `'ECDH'`, `'X25519'`, and `'X448'`."
    ws.records.put_document("w", "w.md", "hash", [SourceLine(1, 1, 0, line)], "embedded")
    ws.graph.add_document("w", 1, line, line=1)
    kriya = {"line": 1, "verb": "be", "karakas": {"KARTA": "The length parameter", "ADHIKARANA_SPATIAL": "for `",
                                                  "KARMA": ["`'ECDH'`", "'"]}}
    ws.records.put_result(Unit.of("w", 1, 1).unit_id, "w", 1, 1, "golden", {"kriyas": [kriya]}, llm_calls=0,
                          prompt_tokens=0, attempts=1, fast_path=False, seconds=0.0, run_id="r")
    assert write_document(ws, "w", 1) == ([], [])
    assert sorted(e.relation for e in ws.graph.edges_out("w_L1_K1")) == ["CITED_IN", "HAS_KARMA", "HAS_KARTĀ"]
    ws.close()


def test_a_line_that_failed_to_write_is_a_failure_of_the_run(tmp_path, monkeypatch):
    import karaka.nodes.ingest as ingest_nodes

    docs = tmp_path / "docs"
    write_doc(docs, "a.txt", "Rama gave the bow to Sita.", "Sita thanked Rama.")
    real = ingest_nodes.write_document

    def write_with_a_failure(store, doc_id, window):
        failures, missing = real(store, doc_id, window)
        return [*failures, {"ref": f"{doc_id}:2", "cause": "schema: test"}], missing

    monkeypatch.setattr(ingest_nodes, "write_document", write_with_a_failure)
    report = run_ingest(Context(workspace=str(tmp_path / "ws"), llm="none", extractor="parser"), docs)
    assert report["failures"] == [{"ref": "a:2", "cause": "schema: test"}]


def test_a_copy_of_a_document_from_another_folder_is_named_and_not_ingested_twice(tmp_path):
    """The same text from another path (a moved folder, a second copy) would cite every line twice."""
    write_doc(tmp_path / "a", "tale.txt", "Orm sold the boat to Ilse.", "Ilse rowed it to the mill.")
    write_doc(tmp_path / "b", "tale.txt", "Orm sold the boat to Ilse.", "Ilse rowed it to the mill.")
    write_doc(tmp_path / "b", "notes.txt", "Orm sold the boat to Ilse.", "Ilse rowed it to the mill.")
    write_doc(tmp_path / "b", "other.txt", "Ilse rowed the boat to the weir.")
    ctx = Context(workspace=str(tmp_path / "ws"), llm="none", extractor="parser", concurrency=1)
    run_ingest(ctx, tmp_path / "a")
    report = run_ingest(ctx, tmp_path / "b")
    assert not report["failures"] and report["documents"] == 1  # only other.txt is new
    copies = [w for w in report["warnings"] if "the same text as document tale" in w]
    assert sorted(w.split(":")[0] for w in copies) == ["notes.txt", "tale.txt"], report["warnings"]
    assert sorted(_extracted_lines(tmp_path / "ws")) == ["other", "tale"]
