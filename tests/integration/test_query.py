import json

from karaka.app.runner import run_ingest, run_query
from karaka.config import Context
from tests.fakes import fake_context, script, write_doc
from tests.scripted import ScriptedChatModel

SPEC = ("Rama gave the bow to Lakshmana.", "He used it to kill Ravana.")


def ingested(tmp_path, model=None, **settings):
    docs = tmp_path / "docs"
    write_doc(docs, "test_doc_1.txt", *SPEC)
    ctx, model = fake_context(tmp_path / "ws", model, **settings)
    run_ingest(ctx, docs)
    return ctx, model


def test_single_hop(tmp_path):
    ctx, _ = ingested(tmp_path)
    result = run_query(ctx, "What did Rama give?")
    assert result["status"] == "GROUNDED" and result["retrieval"] == "graph"
    assert result["answers"] == ["the bow"]  # the span as the line says it
    assert [(c["doc_id"], c["line_number"]) for c in result["citations"]] == [("test_doc_1", 1)]
    assert result["citations"][0]["text"] == SPEC[0]


def test_multi_hop_through_same_as(tmp_path):
    ctx, _ = ingested(tmp_path)
    result = run_query(ctx, "Who killed Ravana?")
    assert result["answers"] == ["He (Rama)"]
    assert [c["line_number"] for c in result["citations"]] == [2, 1]  # the answering line first, then the antecedent
    assert any("IS_SAME_AS" in step for step in result["reasoning_trace"])


def test_causal_chain_expansion(tmp_path):
    ctx, _ = ingested(tmp_path)
    result = run_query(ctx, "Why was Ravana killed?")
    assert any("CAUSES hop" in step for step in result["reasoning_trace"])
    assert {c["line_number"] for c in result["citations"]} >= {2}


def test_no_match_makes_no_answer_call(tmp_path):
    ctx, model = ingested(tmp_path)
    result = run_query(ctx, "What did Hanuman eat at the harbour?")
    assert result["status"] == "NO_MATCH" and result["citations"] == []
    assert model.count("answer_read_prompt") == 0 and result["llm_calls"] == 0


def test_an_exhausted_plan_loop_falls_back_to_the_parser_plan_else_reads_the_lines(tmp_path):
    model = ScriptedChatModel(script(query_verification_prompt=['{"choice": "ALL_INVALID", "reasoning": "bad plan"}']))
    ctx, model = ingested(tmp_path, model, max_retries=2, llm_plans="always")
    result = run_query(ctx, "What did Rama give?")
    assert result["status"] == "GROUNDED" and "the parser's plan used" in " ".join(result["reasoning_trace"])
    assert model.count("answer_read_prompt") == 1
    ctx, _ = ingested(tmp_path / "off", model, max_retries=2, parser_candidate=False, llm_plans="always")
    without = run_query(ctx, "What did Rama give?")  # no plan at all: the answer is read off the retrieved lines
    assert without["plan"] is None and "no plan" in " ".join(without["reasoning_trace"])
    assert without["status"] in ("GROUNDED", "UNCERTAIN") and without["citations"]


def test_the_lines_are_read_when_the_graph_has_no_such_action(tmp_path):
    ctx, _ = ingested(tmp_path)
    result = run_query(ctx, "What did Lakshmana receive from the bow?")
    assert result["retrieval"] == "hybrid" and result["citations"]
    assert 1 in {c["line_number"] for c in result["citations"]}


def test_find_documents_intent_returns_ranked_documents(tmp_path):
    ctx, model = ingested(tmp_path)
    result = run_query(ctx, "Find documents about Ravana")
    assert result["intent"] == "find" and result["documents"][0]["doc_id"] == "test_doc_1"
    assert model.count("answer_read_prompt") == 0


def test_parser_plan_and_extractive_answer_without_llm(tmp_path):
    docs = tmp_path / "docs"
    write_doc(docs, "test_doc_1.txt", *SPEC)
    ctx = Context(workspace=str(tmp_path / "ws"), llm="none", extractor="parser")
    run_ingest(ctx, docs)
    result = run_query(ctx, "What did Rama give?")
    assert result["answer_mode"] == "extractive" and result["answers"] == ["the bow"] and result["llm_calls"] == 0
    killer = run_query(ctx, "Who killed Ravana?")
    assert killer["answers"] == ["He (Rama)"]


def test_follow_up_question_uses_thread_memory(tmp_path):
    seen = []

    def planner(user, n):
        seen.append(user)
        return script()["query_decomposition_prompt"](user.replace("Previous question", "Prev"), n)

    ctx, _ = ingested(tmp_path, ScriptedChatModel(script(query_decomposition_prompt=planner)))
    run_query(ctx, "What did Rama give?", thread_id="t1")
    run_query(ctx, "and who gave it to him?", thread_id="t1")
    assert "Previous question: What did Rama give?" in seen[-1]
    json.dumps(seen)


def test_the_bm25_index_is_kept_in_the_workspace_and_loaded_not_rebuilt(tmp_path, monkeypatch):
    import bm25s

    from karaka.kg import retrieval

    docs = tmp_path / "docs"
    write_doc(docs, "test_doc_1.txt", *SPEC)
    ctx = Context(workspace=str(tmp_path / "ws"), llm="none", extractor="parser")
    run_ingest(ctx, docs)
    first = run_query(ctx, "Which colour was the bow?")
    assert (tmp_path / "ws" / "bm25" / "stamp.json").exists()
    retrieval._cache.clear()  # as a new process would start

    def no_rebuild(*args, **kwargs):
        raise AssertionError("the saved index was rebuilt")

    monkeypatch.setattr(bm25s.BM25, "index", no_rebuild)
    again = run_query(ctx, "Which colour was the bow?")
    assert [c["line_number"] for c in again["citations"]] == [c["line_number"] for c in first["citations"]]
    write_doc(docs, "test_doc_2.txt", "Sita wore a red sari.")
    monkeypatch.undo()
    run_ingest(ctx, docs)  # a new generation: the index is built again, with the new line
    assert any(c["doc_id"] == "test_doc_2" for c in run_query(ctx, "What did Sita wear?")["citations"])


def test_an_index_saved_by_another_tokeniser_is_rebuilt_not_read(tmp_path, monkeypatch):
    """An upgrade that splits words otherwise (another stop-word list) must not search the old index's words."""
    import bm25s

    from karaka.kg import retrieval

    docs = tmp_path / "docs"
    write_doc(docs, "test_doc_1.txt", *SPEC)
    ctx = Context(workspace=str(tmp_path / "ws"), llm="none", extractor="parser")
    run_ingest(ctx, docs)
    run_query(ctx, "Which colour was the bow?")
    stamp = tmp_path / "ws" / "bm25" / "stamp.json"
    saved = json.loads(stamp.read_text())
    assert saved["tokens"] == retrieval.tokens_stamp()
    stamp.write_text(json.dumps({**saved, "tokens": "an older tokeniser"}))
    retrieval._cache.clear()
    built = []
    index = bm25s.BM25.index
    monkeypatch.setattr(bm25s.BM25, "index", lambda self, *a, **k: built.append(1) or index(self, *a, **k))
    run_query(ctx, "Which colour was the bow?")
    assert built, "the index of another tokeniser was read"
    assert json.loads(stamp.read_text())["tokens"] == retrieval.tokens_stamp()
