import json

import pytest

from karaka.config import Context
from karaka.graphs.gsv import build_gsv_graph, run_gsv
from karaka.nodes.gsv import ALL_INVALID_FEEDBACK, DISAGREE_FEEDBACK, top_labels
from karaka.nodes.judge import read_score
from karaka.services import get_services
from tests.fakes import fake_context
from tests.scripted import ScriptedChatModel


@pytest.fixture(autouse=True, params=["direct", "graph"])
def loop_steps(request, monkeypatch):
    """Every loop test runs both ways: walked directly and as the LangGraph graph."""
    monkeypatch.setenv("KARAKA_LOOP_STEPS", request.param)
    return request.param


SOURCE = "[L1] Rama gave the bow to Lakshmana."
GOOD = {"kriyas": [{"line": 1, "verb": "give", "karakas": {"KARTA": "Rama", "KARMA": "bow"}}]}
OTHER = {"kriyas": [{"line": 1, "verb": "give", "karakas": {"KARTA": "Rama", "KARMA": "Lakshmana"}}]}
FULL = {"kriyas": [{"line": 1, "verb": "give", "karakas": {"KARTA": "Rama", "KARMA": "bow", "SAMPRADANA": "Lakshmana"}}]}
PARTIAL = {"kriyas": [{"line": 1, "verb": "give", "karakas": {"KARMA": "the bow"}}]}
BARE = {"kriyas": [{"line": 1, "verb": "give", "karakas": {"KARTA": "Rama"}}]}
DISTINCT = [json.dumps(GOOD), json.dumps(FULL), json.dumps(PARTIAL)]


def distinct(user, n):
    """Three different valid candidates per attempt (GOOD, FULL, PARTIAL in turn)."""
    return DISTINCT[n % 3]


def inputs():
    return {"task": "kriya", "source": SOURCE, "ref": {"doc_id": "d", "first_line": 1, "last_line": 1}}


def by_label(scores: dict[str, int]):
    """Score by which candidate is being scored (its KARMA)."""
    def respond(user, n):
        karma = "Lakshmana" if '"KARMA": "Lakshmana"' in user else "bow"
        return json.dumps({"reasoning": "x", "score": scores[karma]})
    return respond


def run(tmp_path, script, **settings):
    model = ScriptedChatModel(script)
    ctx, _ = fake_context(tmp_path, model, **settings)
    return run_gsv(inputs(), ctx), model


def test_full_attempt_agreement_uses_13_calls(tmp_path):
    out, model = run(tmp_path, {
        "kriya_extraction_prompt": distinct,
        "kriya_scoring_prompt": ['{"reasoning": "fine", "score": 80}'],
        "kriya_verification_prompt": ['{"choice": "Candidate_B", "reasoning": "ok"}'],
    }, fast_path=False)
    assert out["status"] == "accepted" and out["golden"]["kriyas"][0]["karakas"]["KARMA"] == "bow"
    assert out["llm_calls"] == 13 == model.count()
    assert model.count("kriya_extraction_prompt") == 3 and model.count("kriya_scoring_prompt") == 9
    assert out["attempt"] == 1 and not out["fast_path"]


def test_verifier_never_sees_scores(tmp_path):
    _, model = run(tmp_path, {
        "kriya_extraction_prompt": distinct,
        "kriya_scoring_prompt": ['{"reasoning": "SCORE-REASON", "score": 80}'],
        "kriya_verification_prompt": ['{"choice": "Candidate_A", "reasoning": "ok"}'],
    }, fast_path=False)
    verifier_prompts = [u for k, u in model.calls if k == "kriya_verification_prompt"]
    assert verifier_prompts and all("80" not in u and "SCORE-REASON" not in u for u in verifier_prompts)


def test_disagreement_retries_with_exact_feedback(tmp_path):
    generated = []

    def generate(user, n):
        generated.append(user)
        return json.dumps(GOOD if n % 3 else OTHER)  # one OTHER and two GOOD per attempt

    def verdict(user, n):
        """Attempt 1: pick the low-scored OTHER (disagreement); attempt 2: a GOOD one."""
        wanted = '"Lakshmana"' if n == 0 else '"bow"'
        blocks = [b for b in user.split("Candidate_")[1:] if wanted in b.split("\n\n")[0]]
        return json.dumps({"choice": "Candidate_" + blocks[0][0], "reasoning": "x"})

    out, model = run(tmp_path, {
        "kriya_extraction_prompt": generate,
        "kriya_scoring_prompt": by_label({"bow": 90, "Lakshmana": 40}),
        "kriya_verification_prompt": verdict,
    }, fast_path=False)
    assert out["status"] == "accepted" and out["attempt"] == 2
    assert out["history"][0]["feedback"] == DISAGREE_FEEDBACK
    assert DISAGREE_FEEDBACK in generated[-1] and DISAGREE_FEEDBACK not in generated[0]
    assert out["llm_calls"] == 20  # per attempt 3 generations, 2 distinct candidates scored 3 times, 1 verdict


def test_all_invalid_feedback_carries_reasoning(tmp_path):
    # The verifier's ALL_INVALID names a violation the checker confirms (a word of the line no candidate holds).
    verdicts = ['{"choice": "ALL_INVALID", "reasoning": "the recipient \'Lakshmana\' is missing"}',
                '{"choice": "Candidate_A", "reasoning": "ok"}']
    out, model = run(tmp_path, {
        "kriya_extraction_prompt": [json.dumps(GOOD), json.dumps(PARTIAL), json.dumps(BARE)],
        "kriya_scoring_prompt": ['{"reasoning": "x", "score": 70}'],
        "kriya_verification_prompt": verdicts,
    }, fast_path=False)
    noted = "the recipient 'Lakshmana' is missing ('Lakshmana' is in the text but no candidate holds it)"
    expected = ALL_INVALID_FEEDBACK.format(reasoning=noted)
    assert out["history"][0]["feedback"] == expected
    assert expected.startswith("Retry: All previous candidates were invalid. Verifier noted: the recipient")
    assert any(expected in u for k, u in model.calls if k == "kriya_extraction_prompt")


def test_invalid_scores_are_asked_again_boundedly(tmp_path):
    # The first two scoring replies (whichever slots get them) are invalid; each is asked again.
    def scorer(user, n):
        return ['{"score": 0}', '{"score": "high"}'][n] if n < 2 else '{"reasoning": "ok", "score": 88}'

    out, model = run(tmp_path, {
        "kriya_extraction_prompt": distinct,
        "kriya_scoring_prompt": scorer,
        "kriya_verification_prompt": ['{"choice": "Candidate_A", "reasoning": "ok"}'],
    }, fast_path=False)
    assert out["status"] == "accepted"
    assert model.count("kriya_scoring_prompt") == 11
    calls = out["history"][0]["score_calls"]
    assert all(s["score"] == 88 for s in calls) and sum(s["asks"] for s in calls) == 11


def test_scoring_slot_gives_up_after_max_asks(tmp_path):
    out, model = run(tmp_path, {
        "kriya_extraction_prompt": distinct,
        "kriya_scoring_prompt": ['{"score": 250}'],
        "kriya_verification_prompt": ['{"choice": "Candidate_A", "reasoning": "ok"}'],
    }, fast_path=False, max_retries=1)
    assert model.count("kriya_scoring_prompt") == 27
    assert out["status"] == "exhausted"


def test_exhaustion_returns_none_with_diagnostics(tmp_path):
    out, model = run(tmp_path, {
        "kriya_extraction_prompt": distinct,
        "kriya_scoring_prompt": ['{"reasoning": "x", "score": 60}'],
        "kriya_verification_prompt": ['{"choice": "ALL_INVALID", "reasoning": "nope"}'],
    }, fast_path=False, max_retries=2)
    assert out["golden"] is None and out["status"] == "exhausted" and out["attempt"] == 2
    assert len(out["history"]) == 2 and out["history"][1]["verdict"]["choice"] == "ALL_INVALID"
    ws = get_services(Context(workspace=str(tmp_path), llm="none", extractor="parser")).workspace
    failure = ws.failures()[-1]
    assert failure["ref"]["doc_id"] == "d" and failure["source"] == SOURCE
    assert failure["history"][0]["candidates"][0]["data"]["kriyas"][0]["karakas"] == GOOD["kriyas"][0]["karakas"]
    assert failure["history"][0]["candidates"][0]["raw"] == json.dumps(GOOD)


def test_fast_path_accepts_after_one_generation_three_scores_one_verify(tmp_path):
    out, model = run(tmp_path, {
        "kriya_extraction_prompt": [json.dumps(GOOD)],
        "kriya_scoring_prompt": ['{"reasoning": "x", "score": 96}'],
        "kriya_verification_prompt": ['{"choice": "Candidate_A", "reasoning": "ok"}'],
    })
    assert out["fast_path"] and out["status"] == "accepted"
    assert out["llm_calls"] == 5 == model.count()
    assert model.count("kriya_scoring_prompt") == 3 and model.count("kriya_verification_prompt") == 1


def test_fast_path_with_free_parser_candidate_uses_exactly_4_calls(tmp_path):
    model = ScriptedChatModel({
        "kriya_scoring_prompt": ['{"reasoning": "x", "score": 99}'],
        "kriya_verification_prompt": ['{"choice": "Candidate_A", "reasoning": "ok"}'],
    })
    ctx, _ = fake_context(tmp_path, model)
    out = run_gsv({**inputs(), "seed": GOOD}, ctx)
    assert out["fast_path"] and out["llm_calls"] == 4 == model.count()
    assert model.count("kriya_extraction_prompt") == 0


def test_fast_path_miss_continues_to_full_attempt(tmp_path):
    out, model = run(tmp_path, {
        "kriya_extraction_prompt": distinct,
        "kriya_scoring_prompt": ['{"reasoning": "x", "score": 90}'],
        "kriya_verification_prompt": ['{"choice": "Candidate_C", "reasoning": "ok"}'],
    })
    assert out["status"] == "accepted" and not out["fast_path"]
    assert out["llm_calls"] == 13  # 1 + 3 (fast), then 2 + 6 + 1


def test_rule_check_failure_is_in_trace_and_feedback(tmp_path):
    invented = {"kriyas": [{"line": 1, "verb": "give", "karakas": {"KARTA": "Hanuman", "KARMA": "bow"}}]}
    out, model = run(tmp_path, {
        "kriya_extraction_prompt": [json.dumps(invented), json.dumps(invented), json.dumps(invented), json.dumps(GOOD)],
        "kriya_scoring_prompt": ['{"reasoning": "x", "score": 80}'],
        "kriya_verification_prompt": ['{"choice": "Candidate_A", "reasoning": "ok"}'],
    }, fast_path=False, max_retries=2)
    first = out["history"][0]
    assert any("Hanuman" in e for c in first["candidates"] for e in c["errors"])
    assert "Hanuman" in first["feedback"] and model.count("kriya_verification_prompt") >= 1


def test_malformed_output_never_crashes(tmp_path):
    out, model = run(tmp_path, {
        "kriya_extraction_prompt": [
            "<think>hmm</think> Sure! ```json\n{'kriyas': [{'line': 1, 'verb': 'give', 'karakas': {'KARTA': 'Rama', 'KARMA': 'bow',},}]\n```",
            "Here: {'kriyas': [{'line': 1, 'verb': 'give', 'karakas': {'KARMA': 'bow'}}]",
            "```json\n{\"kriyas\": [{\"verb\": \"give\", \"karakas\": {\"KARTA\": \"Rama\"}}]}\n```"],
        "kriya_scoring_prompt": ['Score: {"reasoning": "x", "score": 85'],
        "kriya_verification_prompt": ["I pick candidate B because it is complete."],
    }, fast_path=False)
    assert out["status"] == "accepted" and out["golden"]["kriyas"][0]["karakas"]["KARMA"] == "bow"


def test_tie_rule_accepts_verifier_choice_among_tied_top():
    assert top_labels({"Candidate_A": 80.0, "Candidate_B": 80.0, "Candidate_C": 70.0}) == ["Candidate_A", "Candidate_B"]
    assert top_labels({"Candidate_A": None}) == []


def test_tie_accepts_verifier_pick(tmp_path):
    out, _ = run(tmp_path, {
        "kriya_extraction_prompt": distinct,
        "kriya_scoring_prompt": ['{"reasoning": "x", "score": 75}'],
        "kriya_verification_prompt": ['{"choice": "Candidate_C", "reasoning": "ok"}'],
    }, fast_path=False)
    assert out["status"] == "accepted" and out["history"][0]["accepted"] == "Candidate_C"


@pytest.mark.parametrize("text,expected", [
    ('{"reasoning": "r", "score": 42}', 42), ('{"score": "77"}', 77), ("55", 55),
    ('{"score": 0}', None), ('{"score": 101}', None), ('{"score": 50.5}', None), ('{"score": true}', None),
])
def test_read_score(text, expected):
    assert read_score(text)[0] == expected


def test_graph_structure():
    # `finish` was merged into cross_validate (one superstep less); the drawings are snapshotted in test_graphs.
    mermaid = build_gsv_graph().compile().get_graph().draw_mermaid()
    for node in ("start_attempt", "generate", "score", "verify", "cross_validate"):
        assert node in mermaid


def test_a_correction_of_a_line_with_the_same_verb_twice_duplicates_no_kriya():
    from karaka.gsv.kriya import kriya_merge

    draft = {"kriyas": [{"line": 1, "verb": "go", "karakas": {"KARTA": "Rama"}},
                        {"line": 1, "verb": "go", "karakas": {"KARTA": "Sita"}}]}
    correction = {"kriyas": [{"line": 1, "verb": "go", "karakas": {"ADHIKARANA_SPATIAL": "to the forest"}},
                             {"line": 1, "verb": "go", "karakas": {"ADHIKARANA_SPATIAL": "to Lanka"}}]}
    merged = kriya_merge(draft, correction)["kriyas"]
    assert [k["karakas"] for k in merged] == [{"KARTA": "Rama", "ADHIKARANA_SPATIAL": "to the forest"},
                                             {"KARTA": "Sita", "ADHIKARANA_SPATIAL": "to Lanka"}]
