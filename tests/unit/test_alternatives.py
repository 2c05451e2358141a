"""The parser's other readings of a line, and GSV-Retry choosing among them (the LLM writes nothing)."""

import json

import pytest

from karaka.config import Context
from karaka.graphs.gsv import run_gsv
from karaka.nlp.alternatives import for_loop
from karaka.nlp.roles import analyze_window, seed_candidate
from karaka.nodes.extract import offered
from tests.fakes import fake_context, script
from tests.scripted import ScriptedChatModel

HOUSE = "She bought the house with a garden in May."
STORM = "The storm weakened before it made landfall."


def readings(text):
    analysis = analyze_window({1: text})
    return analysis, for_loop({1: text}, analysis)


def roles(candidate, verb):
    return next(k["karakas"] for k in candidate["kriyas"] if k["verb"] == verb)


def test_a_prepositional_phrase_is_offered_on_the_noun_and_on_the_verb():
    analysis, options = readings(HOUSE)
    assert roles(seed_candidate(analysis), "buy")["KARANA"] == "with a garden in May"
    by_what = {o["what"]: o["data"] for o in options}
    on_noun = by_what["'with …' on 'house', not on 'bought'"]
    assert roles(on_noun, "buy") == {"KARTA": "She", "KARMA": "the house with a garden in May"}
    on_verb = by_what["'in …' on 'bought', not on 'garden'"]
    assert roles(on_verb, "buy")["ADHIKARANA_TEMPORAL"] == "in May"
    assert roles(on_verb, "buy")["KARANA"] == "with a garden"


def test_a_time_clause_is_offered_as_the_actions_time_and_every_reading_uses_the_lines_words():
    _, options = readings(STORM)
    assert [o["what"] for o in options] == ["'before it made landfall' as ADHIKARANA_TEMPORAL of 'weaken'"]
    assert roles(options[0]["data"], "weaken")["ADHIKARANA_TEMPORAL"] == "before it made landfall"
    for _, found in [readings(HOUSE), readings(STORM)]:
        for option in found:
            for item in option["data"]["kriyas"]:
                for value in item["karakas"].values():
                    assert value in HOUSE or value in STORM


def test_an_object_control_verbs_infinitive_is_offered_with_the_subject_as_its_karta():
    _, options = readings("They asked him to leave the room.")
    assert roles(options[0]["data"], "leave")["KARTA"] == "They"


def test_readings_are_offered_only_when_the_llm_chooses(tmp_path):
    analysis = analyze_window({1: STORM})
    seed = seed_candidate(analysis)
    assert offered(Context(workspace=str(tmp_path)), {1: STORM}, analysis, seed)
    assert offered(Context(workspace=str(tmp_path), llm_writes=True), {1: STORM}, analysis, seed) is None
    assert offered(Context(workspace=str(tmp_path)), {1: "Hello."}, {"kriyas": []}, {"kriyas": []}) is None


def _loop(tmp_path, text, scores, choice):
    """One loop over ``text`` with the parser's readings; ``scores`` maps a word the judged part holds to a score."""
    def score(user, n):
        part = user.split("Extraction:", 1)[1].split("Text:", 1)[0]
        return json.dumps({"score": next((v for k, v in scores.items() if k in part), 50), "reasoning": "x"})

    model = ScriptedChatModel(script(kriya_scoring_prompt=score,
                                     kriya_verification_prompt=[json.dumps({"choice": choice, "violations": [],
                                                                            "reasoning": "x"})]))
    ctx, _ = fake_context(tmp_path, model, max_retries=3)
    analysis = analyze_window({1: text})
    seed = seed_candidate(analysis)
    out = run_gsv({"task": "kriya", "source": f"[L1] {text}", "ref": {"doc_id": "d", "first_line": 1, "last_line": 1},
                   "seed": seed, "alternatives": offered(ctx, {1: text}, analysis, seed)}, ctx)
    return out, model, seed


@pytest.mark.parametrize("loop_steps", ["direct", "graph"])
def test_a_reading_replaces_candidate_a_when_the_verifier_picks_it_and_it_alone_scores_top(tmp_path, monkeypatch,
                                                                                           loop_steps):
    monkeypatch.setenv("KARAKA_LOOP_STEPS", loop_steps)
    out, model, seed = _loop(tmp_path, STORM, {"ADHIKARANA_TEMPORAL": 90, "weaken": 70}, "Candidate_B")
    assert out["status"] == "accepted" and out["origin"] == "alternative"
    assert roles(out["golden"], "weaken")["ADHIKARANA_TEMPORAL"] == "before it made landfall"
    keys = [k for k, _ in model.calls]
    assert "kriya_extraction_prompt" not in keys and "kriya_correction_prompt" not in keys  # it chose, never wrote
    # A and B scored three times each (one call a sample with this model); A under 95 ends the fast path without
    # a verdict; one verdict on the readings
    assert (keys.count("kriya_scoring_prompt"), keys.count("kriya_verification_prompt")) == (6, 1)
    assert not out["fast_path"]
    # The verifier saw only the Kriyā the readings differ in, not the shared 'make'; the scorer saw all of each.
    verdict = next(u.split("Text:")[0] for k, u in model.calls if k == "kriya_verification_prompt")
    assert '"weaken"' in verdict and '"make"' not in verdict
    assert all('"make"' in u for k, u in model.calls if k == "kriya_scoring_prompt")


@pytest.mark.parametrize("scores", [{"weaken": 90}, {"ADHIKARANA_TEMPORAL": 79, "weaken": 70}],
                         ids=["tie", "under-the-margin"])
def test_a_reading_not_clearly_above_candidate_a_keeps_the_parser_and_the_loop_ends_for_its_fallback(tmp_path, scores):
    out, model, seed = _loop(tmp_path, STORM, scores, "Candidate_B")
    assert out["status"] == "exhausted" and out["golden"] is None
    assert out["attempt"] == 1  # one reading only: nothing left to offer a second attempt
    assert [k for k, _ in model.calls].count("kriya_verification_prompt") == 1


def test_the_verifiers_pick_of_candidate_a_among_readings_is_accepted(tmp_path):
    out, _, seed = _loop(tmp_path, HOUSE, {"buy": 80}, "Candidate_A")
    assert out["status"] == "accepted" and out["golden"] == seed and out["origin"] == "parser"


def test_more_readings_than_an_attempt_holds_go_to_the_next_attempt(tmp_path):
    # HOUSE has three readings: B and C in attempt 1, the third in attempt 2 (Candidate_B again).
    out, model, _ = _loop(tmp_path, HOUSE, {"with a garden\"": 95}, "Candidate_C")
    assert out["attempt"] == 2
    first, second = out["history"]
    assert [c["origin"] for c in first["candidates"]] == ["parser", "alternative", "alternative"]
    assert [c["origin"] for c in second["candidates"]] == ["parser", "alternative"]
    assert second["candidates"][1]["what"] not in {c.get("what") for c in first["candidates"]}


def test_without_a_reading_a_rejected_candidate_a_ends_the_loop_without_generation(tmp_path):
    model = ScriptedChatModel(script(kriya_scoring_prompt=['{"score": 40, "reasoning": "x"}']))
    ctx, _ = fake_context(tmp_path, model)
    text = "The council approved the budget."
    analysis = analyze_window({1: text})
    seed = seed_candidate(analysis)
    alternatives = offered(ctx, {1: text}, analysis, seed)
    assert alternatives == []
    out = run_gsv({"task": "kriya", "source": f"[L1] {text}", "ref": {"doc_id": "d"}, "seed": seed,
                   "alternatives": alternatives}, ctx)
    assert out["status"] == "exhausted" and out["llm_calls"] == 3  # scored thrice, below 95: no verdict, no writing
    assert {k for k, _ in model.calls} == {"kriya_scoring_prompt"}


def test_a_relative_clause_is_offered_on_the_other_noun_of_n_of_m():
    _, options = readings("She met the daughter of the colonel who was standing on the balcony.")
    by_what = {o["what"]: o["data"] for o in options}
    moved = by_what["'standing …' on 'daughter', not on 'colonel'"]
    assert roles(moved, "stand")["KARTA"] == "the daughter of the colonel"
    assert all(roles(o["data"], "stand")["KARTA"] == "the colonel" for o in options if o["data"] is not moved)
