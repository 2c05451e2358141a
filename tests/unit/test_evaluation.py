import csv

from karaka.evaluation import evaluate, gold_role, token_f1
from tests.fakes import fake_context, script
from tests.scripted import ScriptedChatModel

HEADER = ["qasrl_id", "verb_idx", "verb", "question", "answer_range", "answer", "wh", "subj", "obj",
          "obj2", "aux", "prep", "is_passive"]


def row(**kw):
    return {**dict.fromkeys(HEADER, ""), "is_passive": "False", **kw}


def test_gold_role_mapping():
    assert gold_role(row(wh="who", subj="")) == "KARTA"
    assert gold_role(row(wh="what", subj="someone")) == "KARMA"
    assert gold_role(row(wh="who", subj="someone", obj="something", prep="to")) == "SAMPRADANA"
    assert gold_role(row(wh="what", subj="someone", obj="something", prep="with")) == "KARANA"
    assert gold_role(row(wh="what", subj="", is_passive="True")) == "KARMA"
    assert gold_role(row(wh="who", subj="something", prep="by", is_passive="True")) == "KARTA"
    assert gold_role(row(wh="where")) == "ADHIKARANA_SPATIAL" and gold_role(row(wh="why")) is None
    assert gold_role(row(wh="what", subj="someone", obj="something", prep="to")) is None


def test_token_f1():
    assert token_f1(["the", "bow"], ["bow"]) == 2 / 3
    assert token_f1([], ["x"]) == 0.0


def _files(tmp_path):
    sentences = tmp_path / "s.csv"
    gold = tmp_path / "g.csv"
    with open(sentences, "w", newline="") as handle:
        w = csv.writer(handle)
        w.writerow(["qasrl_id", "tokens", "sentence"])
        w.writerow(["s1", "Rama gave the bow to Lakshmana .", "Rama gave the bow to Lakshmana ."])
    with open(gold, "w", newline="") as handle:
        w = csv.DictWriter(handle, fieldnames=HEADER)
        w.writeheader()
        w.writerow(row(qasrl_id="s1", verb_idx="1", wh="who", subj="", answer_range="0:1"))
        w.writerow(row(qasrl_id="s1", verb_idx="1", wh="what", subj="someone", answer_range="2:4"))
        w.writerow(row(qasrl_id="s1", verb_idx="1", wh="who", subj="someone", obj="something", prep="to", answer_range="5:6"))
        w.writerow(row(qasrl_id="s1", verb_idx="1", wh="where", answer_range="0:1"))
    return gold, sentences


def test_scorer_on_hand_made_gold(tmp_path):
    gold, sentences = _files(tmp_path)
    scores = evaluate(gold, sentences)
    assert scores["roles"]["KARTA"]["tp"] == 1 and scores["roles"]["KARMA"]["tp"] == 1
    assert scores["roles"]["SAMPRADANA"]["tp"] == 1
    assert scores["roles"]["ADHIKARANA_SPATIAL"]["fn"] == 1
    assert scores["micro"]["precision"] == 1.0 and scores["micro"]["recall"] == 0.75


def test_gsv_eval_counts_calls_and_uses_the_parser_candidate(tmp_path):
    gold, sentences = _files(tmp_path)
    wrong = '{"kriyas": [{"line": 1, "verb": "give", "karakas": {"KARTA": "Lakshmana", "KARMA": "Rama"}}]}'
    for free, calls in ((False, 5.0), (True, 4.0)):
        model = ScriptedChatModel(script(kriya_extraction_prompt=[wrong]))
        ctx, _ = fake_context(tmp_path / f"ws{free}", model, parser_candidate=free, rule_checks=False)
        scores = evaluate(gold, sentences, extractor="gsv", ctx=ctx)
        assert scores["llm_calls_per_sentence"] == calls
        # the LLM's swapped roles are accepted without the free candidate; the parser's are right
        assert (scores["roles"]["KARTA"]["tp"] == 1) is free
        assert model.count("kriya_extraction_prompt") == (0 if free else 1)
