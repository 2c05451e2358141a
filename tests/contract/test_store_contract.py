"""The storage contract (``karaka.store.base``), one suite for every backend.

Each backend is a fixture parameter that opens a ``Store`` on a fresh location and can reopen it
(as another process would): the embedded directory backend (NetworkX + FAISS + SQLite) and the
PostgreSQL backend on a real server (``pg_url``: a fresh database per test).
"""

import numpy as np
import pytest

from karaka.models.embeddings import WordLlamaEmbeddings
from karaka.store.base import SourceLine
from karaka.store.embedded.workspace import Workspace
from karaka.store.postgres.backend import PgStore
from karaka.store.schema import SchemaError

BACKENDS = ["embedded", "postgresql"]


@pytest.fixture(scope="module")
def embeddings():
    return WordLlamaEmbeddings()


@pytest.fixture(params=BACKENDS)
def backend(request, tmp_path, embeddings):
    opened = []

    def open_store():
        if request.param == "embedded":
            store = Workspace(tmp_path / "ws", embeddings)
        elif request.param == "postgresql":
            url = request.getfixturevalue("pg_url") if not opened else opened[0].url
            store = PgStore(url, tmp_path / f"ws{len(opened)}", embeddings)
        else:  # pragma: no cover - a backend named above without an opener is a test bug
            raise AssertionError(request.param)
        opened.append(store)
        return store

    yield open_store
    for store in opened:
        store.close()


LINES = [SourceLine(1, 1, 0, "Rama gave the bow to Lakshmana."), SourceLine(2, 2, 0, "He used it to kill Ravana.")]


def _fill(store):
    with store.writing("contract"):
        store.records.put_document("epic", "docs/epic.txt", "sha-1", LINES, "loaded")
        for s in LINES:
            store.graph.add_document("epic", s.seq, s.text, line=s.line)
        store.graph.add_kriya("epic_L1", 1, "give")
        store.graph.add_kriya("epic_L2", 1, "use")
        store.graph.add_kriya("epic_L2", 2, "kill")
        for name in ("Rama", "Lakshmana", "Ravana", "bow"):
            store.graph.add_entity(name, name)
        store.graph.add_entity("He@epic_L2", "He")
        store.graph.add_edge("epic_L1_K1", "Rama", "HAS_KARTĀ", span="Rama")
        store.graph.add_edge("epic_L1_K1", "bow", "HAS_KARMA", span="the bow")
        store.graph.add_edge("epic_L1_K1", "Lakshmana", "TARGETS_SAMPRADĀNA")
        store.graph.add_edge("epic_L2_K2", "He@epic_L2", "HAS_KARTĀ")
        store.graph.add_edge("epic_L2_K2", "Ravana", "HAS_KARMA")
        store.graph.add_edge("He@epic_L2", "Rama", "IS_SAME_AS")
        store.graph.add_edge("epic_L2_K1", "epic_L2_K2", "CAUSES")
        for kriya, doc in (("epic_L1_K1", "epic_L1"), ("epic_L2_K1", "epic_L2"), ("epic_L2_K2", "epic_L2")):
            store.graph.add_edge(kriya, doc, "CITED_IN")
        store.vectors.add("epic", [1, 2], np.asarray(store.embeddings.embed_documents([s.text for s in LINES])))
        store.flush()


def test_graph_reads(backend):
    store = backend()
    _fill(store)
    kg = store.graph
    assert len(kg) == 2 + 3 + 5 and "epic_L1_K1" in kg
    assert kg.node("epic_L1_K1")["verb"] == "give" and kg.node("epic_L1_K1")["line_number"] == 1
    assert {e.target for e in kg.edges_out("epic_L1_K1")} == {"Rama", "bow", "Lakshmana", "epic_L1"}
    assert [e.attrs.get("span") for e in kg.edges_out("epic_L1_K1", "HAS_KARMA")] == ["the bow"]
    assert kg.neighbors("epic_L2_K2", "CAUSES", "in") == ["epic_L2_K1"]
    assert sorted(kg.uses("Rama")) == [("epic_L1_K1", "HAS_KARTĀ")]
    assert kg.kriyas_by_verb("KILL") == {"epic_L2_K2"} and set(kg.verbs()) == {"give", "use", "kill"}
    assert kg.document_at("epic", 2) == "epic_L2" and kg.document_nodes("epic") == ["epic_L1", "epic_L2"]
    assert kg.kriyas_of("epic") == ["epic_L1_K1", "epic_L2_K1", "epic_L2_K2"]
    assert kg.same_as_closure("He@epic_L2") == {"He@epic_L2", "Rama"}
    assert kg.stats()["nodes_by_type"] == {"Document": 2, "Kriya": 3, "Entity": 5}
    assert kg.violations() == [] and kg.doc_ids() == ["epic"]


def test_schema_violations_change_nothing(backend):
    store = backend()
    _fill(store)
    before = store.graph.stats()
    with pytest.raises(SchemaError):
        store.graph.add_edge("Rama", "epic_L1_K1", "HAS_KARTĀ")  # an Entity cannot hold a kāraka
    with pytest.raises(SchemaError):
        store.graph.add_edge("epic_L1_K1", "Rama", "LOVES")  # not one of the ten relations
    with pytest.raises(SchemaError):
        store.graph.add_kriya("epic_L9", 1, "go")  # a Kriyā needs its Document node
    assert store.graph.stats() == before


def test_vectors(backend):
    store = backend()
    _fill(store)
    assert len(store.vectors) == 2 and store.vectors.lines_of("epic") == [1, 2]
    query = store.embeddings.embed_query("Who killed Ravana?")
    assert store.vectors.search(query, k=1)[0][:2] == ("epic", 2)
    assert store.vectors.nearby("epic", 1, window=3) == [2]


def test_records(backend):
    store = backend()
    _fill(store)
    records = store.records
    assert records.document("epic")["path"] == "docs/epic.txt"
    assert records.document_by_path("docs/epic.txt")["doc_id"] == "epic"
    assert [d["doc_id"] for d in records.documents()] == ["epic"]
    assert records.lines("epic") == LINES and records.line("epic", 2) == LINES[1]
    records.put_result("epic:1-1", "epic", 1, 1, "golden", {"kriyas": []}, llm_calls=4, prompt_tokens=10,
                       attempts=1, fast_path=True, seconds=0.1, run_id="r1")
    assert records.result("epic:1-1")["payload"] == {"kriyas": []} and records.done_units("epic") == {"epic:1-1"}
    records.put_decision("coref:He", "coreference", "epic", {"target": "Rama"}, 1, 5, "r1")
    assert records.decision("coref:He") == {"target": "Rama"} and records.decision("coref:nobody") is None
    assert records.decision_costs("r1") == {"coreference": {"calls": 1, "prompt_tokens": 5, "decisions": 1}}
    records.start_run("r1")
    records.finish_run("r1", {"lines": 2})
    assert records.run("r1")["report"] == {"lines": 2}
    generation = records.generation()
    assert records.bump_generation() == generation + 1


def test_a_second_opener_sees_the_saved_state_and_removal_is_whole(backend):
    store = backend()
    _fill(store)
    other = backend()
    with other.reading():
        assert other.graph.kriyas_of("epic") == ["epic_L1_K1", "epic_L2_K1", "epic_L2_K2"]
        assert len(other.vectors) == 2
    removed = other.remove_document("epic")
    assert removed["vectors"] == 2 and removed["nodes"] >= 5
    with store.reading():  # the first opener notices the newer generation and reloads
        assert store.graph.kriyas_of("epic") == [] and len(store.vectors) == 0
        assert store.records.document("epic") is None and "Rama" not in store.graph


def test_failures_are_kept(backend):
    store = backend()
    store.log_failure({"ref": "epic:1-1", "cause": "exhausted"})
    assert backend().failures()[-1]["cause"] == "exhausted"


def test_removed_edges_and_nodes_reach_a_reopened_store_and_a_writer_rewrites_in_place(backend):
    from karaka.kg.write import write_document
    from karaka.state.ingest import Unit

    store = backend()
    _fill(store)
    with store.writing("contract"):
        assert store.graph.remove_edge("epic_L1_K1", "Lakshmana", "TARGETS_SAMPRADĀNA")
        assert not store.graph.remove_edge("epic_L1_K1", "Lakshmana", "TARGETS_SAMPRADĀNA")
        store.graph.discard(["epic_L2_K1"])
        store.flush()
    other = backend()
    with other.reading():
        assert "Lakshmana" not in other.graph.neighbors("epic_L1_K1", "TARGETS_SAMPRADĀNA")
        assert "epic_L2_K1" not in other.graph and other.graph.neighbors("epic_L2_K2", "CAUSES", "in") == []
    kriya = {"line": 1, "verb": "give", "karakas": {"KARTA": "Rama", "KARMA": "the bow", "SAMPRADANA": "to Lakshmana"}}
    store.records.put_result(Unit.of("epic", 1, 1).unit_id, "epic", 1, 1, "golden", {"kriyas": [kriya]}, llm_calls=0,
                             prompt_tokens=0, attempts=1, fast_path=False, seconds=0.0, run_id="r")
    for writer in (store, other):  # two processes write the same document in turn
        with writer.writing("contract"):
            assert write_document(writer, "epic", 1) == ([], ["epic:2-2"])
            writer.flush()
    with store.reading():
        assert sorted((e.target, e.relation) for e in store.graph.edges_out("epic_L1_K1")) == [
            ("Lakshmana", "TARGETS_SAMPRADĀNA"), ("Rama", "HAS_KARTĀ"), ("bow", "HAS_KARMA"), ("epic_L1", "CITED_IN")]
        assert store.graph.kriyas_of("epic") == ["epic_L1_K1"]  # the line 2 Kriyās had no result: rewritten away
