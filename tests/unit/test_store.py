import json

import numpy as np
import pytest

from karaka.jsonparse import JSONRecoveryError, recover_json
from karaka.models.embeddings import WordLlamaEmbeddings
from karaka.prompts import PROMPT_FIELDS, SPEC_KEYS, Prompts, default_prompts, load_prompts, template_fields
from karaka.store.embedded.graph import KnowledgeGraph
from karaka.store.embedded.vectors import LineVectors
from karaka.store.resolver import EntityResolver
from karaka.store.schema import KARAKA_TO_RELATION, RELATIONS, SchemaError, karaka_relation, normalize_edge


@pytest.mark.parametrize("raw,expected", [
    ('{"a": 1}', {"a": 1}),
    ('Sure! Here it is:\n```json\n{"a": [1, 2,],}\n```', {"a": [1, 2]}),
    ("<think>let me think {bad}</think>{'a': 'b'}", {"a": "b"}),
    ('{"a": {"b": "c', {"a": {"b": "c"}}),
    ('prose {"score": 90, "ok": true, "x": null} trailing', {"score": 90, "ok": True, "x": None}),
    ("[1, 2", [1, 2]),
])
def test_json_recovery(raw, expected):
    assert recover_json(raw) == expected


def test_json_recovery_fails_clearly_with_raw():
    with pytest.raises(JSONRecoveryError) as err:
        recover_json("no json here")
    assert err.value.raw == "no json here"


def test_json_recovery_of_a_dict_in_doubled_braces_fails_clearly():
    """A small model's "{{...}}" reads in Python as a set holding a dict, which cannot be: no TypeError."""
    with pytest.raises(JSONRecoveryError):
        recover_json('{{"type": "Person"}}')


def test_ten_relations_and_three_node_types():
    assert len(RELATIONS) == 10
    kg = KnowledgeGraph()
    kg.add_document("d", 1, "Rama gave the bow.", line=1)
    kg.add_kriya("d_L1", 1, "give")
    kg.add_entity("Rama", "Rama")
    for kind, attrs in [("Kriya", {"verb": ""}), ("Entity", {}), ("Bogus", {}),
                        ("Document", {"doc_id": "d", "seq": 1, "line_number": 0, "text": "x"})]:
        with pytest.raises(SchemaError):
            kg.add_node(f"bad-{kind}", type=kind, **attrs)
    assert len(kg) == 3 and "bad-Kriya" not in kg


def test_edges_validate_relation_and_endpoints_and_leave_graph_unchanged():
    kg = KnowledgeGraph()
    kg.add_document("d", 1, "x", line=1)
    kg.add_kriya("d_L1", 1, "give")
    kg.add_entity("Rama", "Rama")
    edges = kg.stats()["edges"]
    with pytest.raises(SchemaError) as err:
        kg.add_edge("d_L1_K1", "Rama", "LIKES")
    assert err.value.field == "relation"
    with pytest.raises(SchemaError) as err:
        kg.add_edge("Rama", "d_L1_K1", "HAS_KARMA")
    assert err.value.field == "source"
    with pytest.raises(SchemaError):
        kg.add_edge("d_L1_K1", "Rama", "CITED_IN")
    with pytest.raises(SchemaError):
        kg.add_edge("d_L1_K1", "missing", "HAS_KARMA")
    assert kg.stats()["edges"] == edges


def test_legacy_and_ascii_relations_normalise():
    assert normalize_edge("k", "e", "HAS_KARTA") == ("k", "e", "HAS_KARTĀ")
    assert normalize_edge("e", "k", "IS_KARTĀ_OF") == ("k", "e", "HAS_KARTĀ")
    assert normalize_edge("k", "e", "targets_sampradana") == ("k", "e", "TARGETS_SAMPRADĀNA")
    kg = KnowledgeGraph()
    kg.add_document("d", 1, "x", line=1)
    kg.add_kriya("d_L1", 1, "give")
    kg.add_entity("Rama", "Rama")
    kg.add_edge("Rama", "d_L1_K1", "IS_KARTA_OF")
    kg.add_edge("d_L1_K1", "Rama", "HAS_KARTĀ")
    assert [(e.source, e.target, e.relation) for e in kg.edges_out("d_L1_K1")] == [("d_L1_K1", "Rama", "HAS_KARTĀ")]
    assert kg.stats()["edges"] == 1


def test_karaka_mapping():
    assert karaka_relation("KARTA") == "HAS_KARTĀ" and karaka_relation("adhikarana") == "LOCATED_IN"
    assert set(KARAKA_TO_RELATION.values()) | {"IS_SAME_AS", "CAUSES", "CITED_IN"} == set(RELATIONS)
    with pytest.raises(SchemaError):
        karaka_relation("AGENT")


def test_graph_save_is_atomic_and_round_trips(tmp_path):
    kg = KnowledgeGraph()
    kg.add_document("d", 1, "Rama gave the bow.", line=1)
    kg.add_kriya("d_L1", 1, "give", adjuncts={"MANNER": ["gladly"]})
    kg.add_edge("d_L1_K1", "d_L1", "CITED_IN")
    path = tmp_path / "graph.json"
    kg.save(path)
    loaded = KnowledgeGraph.load(path)
    assert loaded.to_json() == kg.to_json() and loaded.kriyas_by_verb("give") == {"d_L1_K1"}
    # written item by item, the file is byte for byte what one json.dumps of the whole graph gives
    assert path.read_text(encoding="utf-8") == json.dumps(kg.to_json(), ensure_ascii=False)
    assert not list(tmp_path.glob(".graph.json.*"))
    kg.export(tmp_path / "g.gexf", "gexf")
    assert "<gexf" in (tmp_path / "g.gexf").read_text()


@pytest.fixture(scope="module")
def embeddings():
    return WordLlamaEmbeddings()


def test_resolver_merges_titles_and_keeps_pronouns_apart(embeddings):
    resolver = EntityResolver(embeddings)
    ids = {resolver.resolve(name).entity_id for name in ("Dr. Aris", "Aris", "Dr Aris")}
    assert ids == {"Dr. Aris"}
    he1, he2 = resolver.resolve("He", scope="a_L1"), resolver.resolve("he", scope="b_L4")
    assert he1.pronoun and he1.entity_id != he2.entity_id
    assert resolver.resolve("Ravana").entity_id == "Ravana" != resolver.resolve("Rama").entity_id
    # the entity a span names drops its article: "the bow" names "bow", found by either form
    assert resolver.lookup("the bow") is None and resolver.resolve("the bow").entity_id == "bow"
    assert resolver.lookup("bow") == "bow" == resolver.lookup("the bow")


def test_a_name_a_description_gives_finds_the_description(embeddings):
    """"a smith named Golan, who …" is filed under "Golan" too: a question about Golan reaches it."""
    resolver = EntityResolver(embeddings)
    smith = resolver.resolve("a smith named Golan, whose forge stood by the ford").entity_id
    named = resolver.resolve("Golan").entity_id
    assert smith != named and resolver.candidates("Golan") == [named, smith]


def test_vectors_map_lines_and_save_atomically(tmp_path, embeddings):
    vec = LineVectors(embeddings.dim)
    texts = ["Rama gave the bow.", "He used it.", "The crow drank water."]
    vec.add("d", [1, 2, 3], np.asarray(embeddings.embed_documents(texts)))
    top = vec.search(np.asarray(embeddings.embed_query("crow water")), k=1)[0]
    assert top[:2] == ("d", 3)
    assert vec.nearby("d", 2, window=1) and set(vec.nearby("d", 2, window=1)) == {1, 3}
    vec.save(tmp_path / "v.npz")
    loaded = LineVectors.load(tmp_path / "v.npz", embeddings.dim)
    assert loaded.refs == vec.refs and loaded.remove_doc("d") == 3 and len(loaded) == 0


def test_prompts_have_the_spec_keys_and_checked_fields(tmp_path):
    prompts = Prompts({})
    assert set(SPEC_KEYS) <= set(prompts.templates)
    for key, fields in PROMPT_FIELDS.items():
        assert template_fields(default_prompts()[key]) == fields
    assert "karta" in prompts["kriya_verification_prompt"].lower()
    for check in ("HALLUCINATION", "OMISSION", "ROLE SWAP", "WRONG VERB"):
        assert check in prompts["kriya_verification_prompt"]
    assert '"score"' in prompts["kriya_scoring_prompt"] and '"reasoning"' in prompts["kriya_scoring_prompt"]
    with pytest.raises(ValueError, match="takes"):
        prompts.render("answer_read_prompt", lines="c")


def test_missing_prompts_file_is_created_and_bad_placeholders_rejected(tmp_path):
    path = tmp_path / "my" / "prompts.json"
    prompts = load_prompts(path)
    assert path.exists() and json.loads(path.read_text())["answer_read_prompt"] == prompts["answer_read_prompt"]
    path.write_text(json.dumps({"answer_read_prompt": "Answer {question} from {lnes} {hints}"}))
    with pytest.raises(ValueError, match="answer_read_prompt"):
        load_prompts(path)


def test_a_records_file_of_the_previous_schema_gains_the_book_columns_and_keeps_its_lines(tmp_path):
    import sqlite3

    from karaka.store.embedded.records import SCHEMA_VERSION, Records

    path = tmp_path / "karaka.db"
    db = sqlite3.connect(path)
    db.executescript("""
        CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
        CREATE TABLE documents (doc_id TEXT PRIMARY KEY, path TEXT NOT NULL, sha256 TEXT NOT NULL,
          n_lines INTEGER NOT NULL, status TEXT NOT NULL, updated REAL NOT NULL);
        CREATE TABLE lines (doc_id TEXT NOT NULL, seq INTEGER NOT NULL, line_number INTEGER NOT NULL,
          sentence INTEGER NOT NULL, text TEXT NOT NULL, page INTEGER NOT NULL DEFAULT 0,
          page_line INTEGER NOT NULL DEFAULT 0, section TEXT NOT NULL DEFAULT '', kind TEXT NOT NULL DEFAULT '',
          method TEXT NOT NULL DEFAULT '', lang TEXT NOT NULL DEFAULT '', PRIMARY KEY (doc_id, seq));
        INSERT INTO lines VALUES ('tale', 1, 3, 0, 'Mara sold the grain.', 0, 0, 'Market', '', '', 'en');
        PRAGMA user_version = 3;""")
    db.close()
    records = Records(path)
    [line] = records.lines("tale")
    assert (line.text, line.section, line.chapter, line.verse) == ("Mara sold the grain.", "Market", "", "")
    records.close()
    assert sqlite3.connect(path).execute("PRAGMA user_version").fetchone()[0] == SCHEMA_VERSION
