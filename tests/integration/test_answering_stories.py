"""Narrative text, offline: what a reader of a story would call proved; a made-up story."""

import pytest

from karaka.app.runner import run_ingest, run_query
from karaka.config import Context
from tests.fakes import write_doc

STORY = (
    "Mara walked to the mill at dawn.",
    "She sold the grain to Tomas for nine coins.",
    "Ivo went out of the village, and lived in the valley of Keld.",
    "3:16 Then Ivo paid forty coins for the orchard.",
    "The north gate has 12 guards and the south gate has 7 guards.",
)


@pytest.fixture(scope="module")
def ctx(tmp_path_factory):
    root = tmp_path_factory.mktemp("story")
    write_doc(root / "docs", "tale.txt", *STORY)
    context = Context(workspace=str(root / "ws"), llm="none", extractor="parser")
    run_ingest(context, root / "docs")
    return context


def test_a_pronoun_s_answer_names_its_antecedent_from_the_line_before(ctx):
    result = run_query(ctx, "Who sold the grain to Tomas?")
    assert result["status"] == "GROUNDED" and result["answers"] == ["She (Mara)"]
    assert [c["line_number"] for c in result["citations"]][:2] == [2, 1]  # the line, then the antecedent's


def test_a_subject_shared_by_two_conjoined_verbs_answers_for_both(ctx):
    result = run_query(ctx, "Where did Ivo live?")
    assert result["status"] == "GROUNDED" and "valley of Keld" in result["answers"][0]


def test_a_verse_number_is_never_the_amount(ctx):
    result = run_query(ctx, "How many coins did Ivo pay for the orchard?")
    assert result["status"] == "GROUNDED" and result["answers"] == ["forty coins"]


def test_the_question_s_words_pick_one_of_two_amounts_in_a_line(ctx):
    assert run_query(ctx, "How many guards does the south gate have?")["answers"] == ["7 guards"]
    assert run_query(ctx, "How many guards does the north gate have?")["answers"] == ["12 guards"]


def test_a_question_the_story_does_not_answer_is_not_grounded(ctx):
    result = run_query(ctx, "How many coins did Tomas pay for the mill?")
    assert result["status"] != "GROUNDED"
