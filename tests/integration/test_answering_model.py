"""With a model, the model reads the lines and deterministic checks decide; made-up lines, scripted model."""

import json

import pytest

from karaka.answering.model import Reading, check
from karaka.answering.question import analyse
from karaka.app.runner import run_query
from tests.fakes import fake_context, script, write_doc
from tests.scripted import ScriptedChatModel

LINES = ("The ferry left the harbour at dawn.", "It reached the island by noon.",
         "The captain, Ada Lund, logged 14 passengers.", "A later list names 16 passengers.")


def ingested(tmp_path, reply=None, lines=LINES, name="ferry.txt"):
    """A workspace of one made-up document of ``lines``, and a scripted model that reads with ``reply``."""
    from karaka.app.runner import run_ingest

    docs = tmp_path / "docs"
    write_doc(docs, name, *lines)
    model = ScriptedChatModel(script(answer_read_prompt=reply)) if reply is not None else None
    ctx, model = fake_context(tmp_path / "ws", model)
    run_ingest(ctx, docs)
    return ctx, model


def line_of(user, text):
    """The number of the listed line that holds ``text``."""
    return next(int(line.split(".", 1)[0]) for line in user.splitlines() if text in line and line[:1].isdigit())


def replying(answer, quote, where):
    return lambda user, n: json.dumps({"line": line_of(user, where), "quote": quote, "answer": answer})


CITED = [{"doc_id": "ferry", "line_number": 3, "sentence": 0, "text": LINES[2]}]


@pytest.mark.parametrize(("reading", "problem"), [
    (Reading("14 passengers", 1, "logged 15 passengers"), "quote"),
    (Reading("15 passengers", 1, "logged 14 passengers"), "'15' is not in line 1"),
    (Reading("Bo Lund", 1, "The captain, Ada Lund"), "'Bo Lund' is not in line 1"),
    (Reading("many", 1, "logged 14 passengers"), "names no quantity"),
    (Reading("14 people", 1, "logged 14 passengers"), "line 1 does not say '14 people'"),
    (Reading("14 passengers", 4, "counted 14 passengers"), "not one of the 1 lines"),
])
def test_the_checks_name_what_is_wrong_with_a_reading(reading, problem):
    found = check(analyse("How many passengers did the captain log?"), reading, CITED)
    assert any(problem in p for p in found), found


def test_an_answer_may_leave_out_an_article_or_any_but_no_other_word():
    lines = [{"doc_id": "kiln", "line_number": 1, "sentence": 0,
              "text": "The first firing is slow to drive off any water that the clay still holds."}]
    asked = analyse("Why is the first firing slow?")
    assert check(asked, Reading("to drive off water", 1, "to drive off any water"), lines) == []
    dropped = check(asked, Reading("drive off all water", 1, "to drive off any water"), lines)
    assert any("does not say" in p for p in dropped)  # a word the line does not have is never said


def test_a_reading_its_line_holds_passes_the_checks():
    assert check(analyse("How many passengers did the captain log?"), Reading("14", 1, "logged 14 passengers"),
                 CITED) == []


def test_a_reading_from_a_line_about_another_version_is_rejected():
    lines = [{"doc_id": "changes", "line_number": 1, "sentence": 0, "section": "1.0.1", "text": "Released 2023-02-24."},
             {"doc_id": "changes", "line_number": 5, "sentence": 0, "section": "1.1.0", "text": "Released 2024-06-10."}]
    asked = analyse("When was version 1.1.0 released?")
    assert check(asked, Reading("2023-02-24", 1, "Released 2023-02-24."), lines) == ["line 1 is not about 1.1.0"]
    assert check(asked, Reading("2024-06-10", 2, "Released 2024-06-10."), lines) == []


def test_a_quote_numbered_with_the_wrong_line_is_read_from_the_line_that_holds_it():
    lines = [{"doc_id": "ferry", "line_number": 1, "sentence": 0, "text": LINES[0]}, *CITED]
    reading = Reading("14", 1, "logged 14 passengers")
    assert check(analyse("How many passengers did the captain log?"), reading, lines) == [] and reading.line == 2


def test_the_model_reads_what_the_reader_cannot_prove(tmp_path):
    ctx, model = ingested(tmp_path, replying("by noon", "It reached the island by noon", "It reached the island"))
    result = run_query(ctx, "When did the boat get to the island?")  # "get to" is not the line's word
    assert result["status"] == "GROUNDED" and result["answer_mode"] == "generated"
    assert "by noon" in result["answer"] and result["citations"][0]["text"] == LINES[1]
    assert result["llm_calls"] == 1 and model.count("answer_read_prompt") == 1


def test_a_reading_from_a_line_that_names_nothing_the_question_asks_about_is_not_grounded(tmp_path):
    """"A later list names 16 passengers" names neither Ada Lund nor a ferry: its neighbour does, which proves nothing."""
    ctx, _ = ingested(tmp_path, replying("16", "A later list names 16 passengers", "A later list"))
    result = run_query(ctx, "How many people did Ada Lund's ferry carry?")
    assert result["status"] != "GROUNDED" and "names nothing the question asks about" in " ".join(result["warnings"])


def test_a_reading_from_a_line_whose_pronoun_stands_for_what_the_question_names_is_grounded(tmp_path):
    ctx, _ = ingested(tmp_path, replying("by noon", "It reached the island by noon", "It reached the island"))
    result = run_query(ctx, "When did the ferry arrive?")
    assert result["status"] == "GROUNDED" and "by noon" in result["answer"]


def test_a_reply_that_is_no_json_is_asked_again_once_with_the_reason(tmp_path):
    seen = []

    def reply(user, n):
        seen.append(user)
        if "rejected" not in user:
            return "It reached the island by noon."
        return json.dumps({"line": line_of(user, "It reached the island"), "quote": "reached the island by noon",
                           "answer": "by noon"})

    ctx, model = ingested(tmp_path, reply)
    result = run_query(ctx, "When did the boat get to the island?")
    assert result["status"] == "GROUNDED" and result["llm_calls"] == 2
    assert "not JSON" in seen[-1]


def test_a_reply_the_checks_reject_is_not_asked_again(tmp_path):
    ctx, _ = ingested(tmp_path, replying("by noon", "reached the islands at noon", "It reached the island"))
    result = run_query(ctx, "When did the boat get to the island?")
    assert result["llm_calls"] == 1  # read greedily, the same lines give the same reply


def test_the_model_and_the_reader_agree(tmp_path):
    ctx, model = ingested(tmp_path)  # the scripted model answers with the reader's first guess
    result = run_query(ctx, "How many passengers did the captain log?")
    assert result["status"] == "GROUNDED" and result["answers"] == ["14 passengers"]
    assert result["answer_mode"] == "generated" and result["llm_calls"] == 1
    assert result["evidence"]["why"] == "the model and the reader agree"


def test_when_the_model_gives_part_of_the_proved_span_the_span_is_shown_whole(tmp_path):
    ctx, _ = ingested(tmp_path, replying("14", "logged 14 passengers", "The captain"))
    result = run_query(ctx, "How many passengers did the captain log?")
    assert result["status"] == "GROUNDED" and result["answers"] == ["14 passengers"]


def test_when_both_verify_but_disagree_the_proved_answer_stands(tmp_path):
    ctx, _ = ingested(tmp_path, replying("16 passengers", "names 16 passengers", "A later list"))
    result = run_query(ctx, "How many passengers did the captain log?")
    assert result["status"] == "GROUNDED" and result["answers"] == ["14 passengers"]
    assert result["answer_mode"] == "extractive" and "16 passengers" in result["warnings"][0]


def test_an_answer_nothing_verifies_is_never_grounded(tmp_path):
    ctx, _ = ingested(tmp_path, replying("at midnight", "It reached the island at midnight", "It reached the island"))
    result = run_query(ctx, "When did the boat get to the island?")
    assert result["status"] in ("UNCERTAIN", "NO_ANSWER") and result["llm_calls"] == 1
    assert "midnight" not in " ".join(result["answers"]) or result["status"] == "UNCERTAIN"
    assert any("rejected" in w for w in result["warnings"])


def test_small_talk_gets_a_short_reply_without_retrieval_or_a_request(tmp_path):
    ctx, model = ingested(tmp_path)
    result = run_query(ctx, "Hello!")
    assert result["status"] == "SMALL_TALK" and result["citations"] == [] and result["llm_calls"] == 0
    assert model.count("answer_read_prompt") == 0 and not any("BM25" in t for t in result["reasoning_trace"])


def test_a_reading_from_a_line_about_something_else_is_not_grounded(tmp_path):
    ctx, _ = ingested(tmp_path, replying("Ada Lund", "The captain, Ada Lund", "The captain, Ada Lund"))
    result = run_query(ctx, "Which captain owns the lighthouse of the island harbour?")  # the line has a captain only
    assert result["status"] != "GROUNDED"
    assert any("Ada Lund" in w and "too few of the question's words" in w for w in result["warnings"])


def test_the_model_sees_the_line_the_reader_proved_first(tmp_path):
    """Retrieval ranks other lines above the one that proves "14 passengers"; the model gets that line first."""
    seen = []

    def reply(user, n):
        seen.append(line_of(user, "logged 14 passengers"))
        return json.dumps({"line": seen[-1], "quote": "logged 14 passengers", "answer": "14"})

    ctx, _ = ingested(tmp_path, reply, ("The captain logged the wind and the captain logged the tide for the passengers.",
                                        "Ada Lund was the captain.", "On the crossing she logged 14 passengers.",
                                        "Passengers liked the captain."))
    result = run_query(ctx, "How many passengers did the captain log?")
    assert seen == [1] and result["status"] == "GROUNDED" and "14" in result["answer"]


QUAY = ("The ferry Maren left the harbour of Tolby at dawn.", "The ferry Maren took berth 14 at Tolby.",
        "In spring the bridge fare on the Nesse crossing was raised to 12 crowns.")


def test_a_bare_number_from_a_line_that_never_speaks_of_the_amount_asked_for_is_not_grounded(tmp_path):
    """14 is no speed where the line never speaks of a speed: the berth's number is not the ferry's speed."""
    ctx, _ = ingested(tmp_path, replying("14", "took berth 14", "took berth"), QUAY, "quay.txt")
    result = run_query(ctx, "What was the top speed of the ferry Maren?")
    assert result["status"] != "GROUNDED", result["reasoning_trace"]
    assert "never speaks of the speed asked about" in " ".join(result["warnings"])


def test_a_reading_from_a_line_that_names_the_thing_asked_for_stands_though_the_model_read_the_relation(tmp_path):
    """The line names the fare and the model reads that it went up to 12: the reader alone calls 12 no fare."""
    ctx, _ = ingested(tmp_path, replying("12 crowns", "was raised to 12 crowns", "bridge fare"), QUAY, "quay.txt")
    result = run_query(ctx, "What fare did the Nesse crossing charge after spring?")
    assert result["status"] == "GROUNDED" and "12 crowns" in result["answer"], result["reasoning_trace"]


def test_an_answer_to_why_must_be_a_reason_its_line_gives():
    asked = analyse("Why did the town close the old bridge?")
    lines = [{"text": "The town closed the old bridge to protect the walkers.", "doc_id": "town", "line": 1},
             {"text": "The town closed the old bridge after years of letting carts cross it.", "doc_id": "town", "line": 2}]
    assert check(asked, Reading("to protect the walkers", 1, "to protect the walkers"), lines) == []
    assert check(asked, Reading("protect the walkers", 1, "to protect the walkers"), lines) == []
    assert check(asked, Reading("years of letting carts cross it", 2, "after years of letting carts cross it"), lines) == [
        "line 2 gives no reason where it says 'years of letting carts cross it'"]


def test_a_long_answer_is_said_by_a_line_that_ends_with_it():
    lines = [{"doc_id": "mill", "line_number": 1, "sentence": 0,
              "text": "The mill's keepers were Ada Lund, Bo Berg, Cai Orm, Dag Ek and Eva Holm."}]
    reading = Reading("Ada Lund, Bo Berg, Cai Orm, Dag Ek and Eva Holm", 1, "Ada Lund, Bo Berg")
    assert check(analyse("Who were the keepers of the mill?"), reading, lines) == []


def test_a_list_answer_is_said_by_a_line_that_says_each_of_its_items():
    lines = [{"doc_id": "kiln", "line_number": 1, "sentence": 0,
              "text": "The kiln takes oak or birch logs, never pine."}]
    asked = analyse("Which woods does the kiln take?")
    assert check(asked, Reading("oak, birch", 1, "oak or birch logs"), lines) == []
    assert check(asked, Reading("oak, ash", 1, "oak or birch logs"), lines) == ["line 1 does not say 'oak, ash'"]


def test_an_answer_made_of_the_question_s_own_words_is_rejected_unless_the_question_offers_a_choice():
    lines = [{"doc_id": "ferry", "line_number": 1, "sentence": 0, "text": "Ada Lund sailed her ferry, the Gull, to Brack."}]
    own = check(analyse("What is the name of Ada Lund's ferry?"), Reading("Ada Lund", 1, "Ada Lund sailed"), lines)
    assert "the answer is the question's own words" in own
    assert check(analyse("What is the name of Ada Lund's ferry?"), Reading("the Gull", 1, "the Gull"), lines) == []
    choice = check(analyse("Did Ada Lund sail to Brack or to Venn?"), Reading("Brack", 1, "to Brack"), lines)
    assert "the answer is the question's own words" not in choice


def test_a_reading_from_a_line_that_never_names_a_name_the_question_gives_is_not_grounded(tmp_path):
    """"The captain, Ada Lund" is a captain, but of no ship the question names: Gull is in no line near."""
    ctx, _ = ingested(tmp_path, replying("Ada Lund", "The captain, Ada Lund", "The captain, Ada Lund"))
    result = run_query(ctx, "Who is the captain of the Gull?")
    assert result["status"] != "GROUNDED"
    assert any("never names Gull" in w for w in result["warnings"]), result["warnings"]


def test_a_reading_that_takes_no_part_in_the_line_s_action_is_not_grounded(tmp_path):
    """"away" is where the sack went, not what was thrown: an answer to "what did … throw?" must stand in an
    argument of the throwing when the line says it."""
    lines = ("Ivo angrily threw the heavy sack away.", "The sack held grain.")
    ctx, _ = ingested(tmp_path, replying("away", "threw the heavy sack away", "Ivo angrily"), lines=lines)
    result = run_query(ctx, "What did Ivo throw over the wall?")  # no line speaks of a wall: the reader proves nothing
    assert result["status"] != "GROUNDED"
    assert any("takes no part in the line's throw" in w for w in result["warnings"]), result["warnings"]
    ctx, _ = ingested(tmp_path / "2", replying("the heavy sack", "threw the heavy sack away", "Ivo angrily"), lines=lines)
    result = run_query(ctx, "What did Ivo throw over the wall?")
    assert result["status"] == "GROUNDED" and "the heavy sack" in result["answer"]
