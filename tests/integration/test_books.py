"""A made-up book end to end: its chapters and verses as coordinates, references answered, the frame left out."""

import httpx
import pytest

from karaka.app.api import create_app
from karaka.app.runner import run_ingest, run_query
from karaka.config import Context
from karaka.services import get_services
from tests.server_util import serve_in_thread

CHRONICLE = """The Project Gutenberg eBook of The Chronicle of Keld

This eBook is for the use of anyone anywhere at no cost and with almost no restrictions whatsoever.

*** START OF THE PROJECT GUTENBERG EBOOK THE CHRONICLE OF KELD ***

Produced by the volunteers of the lamp library.

THE CHRONICLE OF KELD

Chapter 1

1:1 In the first year of the lamp, Oren built a tower of grey stone
upon the northern cliff.

1:2 Oren was forty years old when he lit the lamp.

1:3 The fishermen saw the light and praised him.

Chapter 2

2:1 After seven winters a storm broke the tower.

2:2 Then Mara carried new stones from the quarry of Velm.

2:3 Mara rebuilt the tower in twelve days.

*** END OF THE PROJECT GUTENBERG EBOOK THE CHRONICLE OF KELD ***

Section 1. General Terms of Use and Redistributing Project Gutenberg electronic works
"""

VOYAGE = """THE VOYAGE OF THE HERON

CHAPTER I.

The Harbour

The Heron left the harbour of Aska with nine sailors.

The captain, Lio, steered toward the western isles.

CHAPTER II.

The Storm

A storm tore the sail on the third night.
"""


@pytest.fixture(scope="module")
def ctx(tmp_path_factory):
    root = tmp_path_factory.mktemp("books")
    (root / "docs").mkdir()
    (root / "docs" / "chronicle.txt").write_text(CHRONICLE, encoding="utf-8")
    (root / "docs" / "voyage.txt").write_text(VOYAGE, encoding="utf-8")
    context = Context(workspace=str(root / "ws"), llm="none", extractor="parser")
    run_ingest(context, root / "docs")
    return context


def test_the_frame_is_not_in_the_graph_and_verse_numbers_are_not_in_the_text(ctx):
    ws = get_services(ctx).workspace
    texts = [s.text for s in ws.records.lines("chronicle")]
    assert not any("Gutenberg" in t or "eBook" in t or "Produced by" in t for t in texts)
    assert "Oren was forty years old when he lit the lamp." in texts
    assert not any(t[:1].isdigit() for t in texts)


@pytest.mark.parametrize(("question", "cited"), [
    ("What does Chronicle 1:2 say?", "[chronicle 1:2]"),
    ("chron 2:2", "[chronicle 2:2]"),
    ("What does chapter 2 verse 3 of the Chronicle say?", "[chronicle 2:3]"),
    ("Chronicle, ch. 1, v. 3", "[chronicle 1:3]"),
    ("What does Chronicle 2:1-2 say?", "[chronicle 2:1]"),
    ("Chronical 1:2", "[chronicle 1:2]"),  # a near spelling of the name
])
def test_a_reference_returns_the_cited_unit(ctx, question, cited):
    result = run_query(ctx, question)
    assert result["status"] == "GROUNDED" and result["intent"] == "reference"
    assert cited in result["answer"] and result["citations"][0]["chapter"] == cited.split()[-1][0]


def test_a_range_cites_every_verse_of_it(ctx):
    result = run_query(ctx, "What does Chronicle 2:1-2 say?")
    assert [c["verse"] for c in result["citations"]] == ["1", "2"]
    assert "storm" in result["answer"] and "quarry of Velm" in result["answer"]


def test_a_chapter_answers_with_its_opening_lines_and_cites_them(ctx):
    result = run_query(ctx, "What happens in Voyage chapter 2?")
    assert result["status"] == "GROUNDED" and "storm tore the sail" in result["answer"]
    assert result["citations"][0]["chapter"] == "2" and "verse" not in result["citations"][0]
    assert "[voyage, ch. 2, line" in result["answer"]


def test_a_place_that_does_not_exist_is_said_to_be_missing(ctx):
    result = run_query(ctx, "What does Chronicle 7:2 say?")
    assert result["status"] != "GROUNDED" and result["answer"] == "Chronicle has no verse 7:2."
    assert run_query(ctx, "What happens in Voyage chapter 9?")["answer"] == "Voyage has no chapter 9."


def test_a_name_that_is_no_document_s_is_answered_as_a_question(ctx):
    result = run_query(ctx, "What does Psalmody 3:1 say?")
    assert result["intent"] == "answer"


def test_questions_about_the_book_are_never_answered_with_its_numbering(ctx):
    result = run_query(ctx, "How old was Oren when he lit the lamp?")
    assert result["status"] == "GROUNDED" and result["answers"] == ["forty years"]
    assert result["citations"][0]["verse"] == "2" and "[chronicle 1:2]" in result["answer"]
    days = run_query(ctx, "In how many days did Mara rebuild the tower?")
    assert "1" not in days["answers"] and "2" not in days["answers"] and "3" not in days["answers"]


def test_the_page_s_source_view_shows_the_verse_among_its_chapter(ctx):
    with serve_in_thread(create_app(ctx)) as url, httpx.Client(base_url=url, timeout=30) as client:
        view = client.get("/views/line", params={"doc_id": "chronicle", "line": 16, "around": 5}).json()
        assert view["citation"] == "[chronicle 1:2]" and (view["chapter"], view["verse"]) == ("1", "2")
        assert {line["chapter"] for line in view["lines"]} == {"1"}  # the chapter around the verse, not the next
        chat = client.post("/chat", json={"messages": "Chron 2:3"}).json()
        assert (chat["output"]["citations"][0]["chapter"], chat["output"]["citations"][0]["verse"]) == ("2", "3")


def test_which_book_tells_of_something_ranks_the_books_and_their_chapters(ctx):
    result = run_query(ctx, "Which book tells of the storm that tore the sail?")
    assert result["intent"] == "find" and result["status"] == "GROUNDED"
    assert result["documents"][0]["doc_id"] == "voyage"
    assert "sail" in result["documents"][0]["best_line"]["text"] and result["answer"].startswith("voyage: ")
    assert result["chapters"][0] == {"doc_id": "voyage", "chapter": "2", "score": result["chapters"][0]["score"]}


def test_a_section_and_a_page_are_found_by_their_number(tmp_path):
    from tests.fakes import text_pdf

    docs = tmp_path / "docs"
    docs.mkdir()
    (docs / "lamp-guide.md").write_text("# Lamp guide\n\n## 3.1 Wicks\n\nTrim the wick daily.\n\n"
                                        "## 3.2 Oil\n\nUse whale oil in winter.\n", encoding="utf-8")
    (docs / "tide-tables.pdf").write_bytes(text_pdf([[(72, 700, "The spring tide comes at noon.")],
                                                     [(72, 700, "The neap tide comes at dusk.")]]))
    ctx = Context(workspace=str(tmp_path / "ws"), llm="none", extractor="parser")
    run_ingest(ctx, docs)
    section = run_query(ctx, "What does section 3.2 of the lamp guide say?")
    assert section["status"] == "GROUNDED" and "whale oil" in section["answer"]
    page = run_query(ctx, "What is on page 2 of the tide tables?")
    assert page["status"] == "GROUNDED" and "neap tide" in page["answer"] and page["citations"][0]["page"] == 2
    assert run_query(ctx, "What is on page 9 of the tide tables?")["answer"] == "Tide-tables has no page 9."


LANTERN = """THE LANTERN KEEPERS

Chapter 1

Tova kept the lantern on the hill of Ardel.

Chapter 2

In spring a fog covered the hill for nine days.
The ships of Ardel could not see the lantern.
Tova climbed the tower and lit a second flame.
Two ships came safely into the harbour.
The elders of Ardel thanked Tova at the gate.
"""


def _summary_reply(user, n):
    """A summary that tells one true sentence and invents a name the lines never hold."""
    import json

    return json.dumps({"sentences": [
        {"text": "Fog covered the hill for nine days, so Tova lit a second flame.", "lines": [1, 3]},
        {"text": "Captain Brann wrecked his ship on the rocks.", "lines": [4]}]})


@pytest.fixture(scope="module")
def lantern(tmp_path_factory):
    root = tmp_path_factory.mktemp("lantern")
    (root / "docs").mkdir()
    (root / "docs" / "lantern.txt").write_text(LANTERN, encoding="utf-8")
    run_ingest(Context(workspace=str(root / "ws"), llm="none", extractor="parser"), root / "docs")
    return root / "ws"


def _with_model(workspace, reply):
    from tests.fakes import fake_context, script
    from tests.scripted import ScriptedChatModel

    model = ScriptedChatModel(script(chapter_summary_prompt=reply))
    return fake_context(workspace, model, extractor="parser")


def test_with_a_model_a_chapter_is_told_in_sentences_its_lines_bear_out(lantern):
    ctx, model = _with_model(lantern, _summary_reply)
    result = run_query(ctx, "What happens in Lantern chapter 2?")
    assert result["status"] == "GROUNDED" and result["answer_mode"] == "summary"
    assert result["answer"].startswith("Fog covered the hill for nine days, so Tova lit a second flame. [lantern, ch. 2")
    assert "Brann" not in result["answer"] and any("'Brann'" in w for w in result["warnings"])
    assert result["llm_calls"] == 1 and model._seen["chapter_summary_prompt"] == 1
    cited = [c["text"] for c in result["citations"][:2]]
    assert cited == ["In spring a fog covered the hill for nine days.", "Tova climbed the tower and lit a second flame."]


def test_a_summary_no_sentence_of_which_stands_gives_the_chapter_s_opening_lines(lantern):
    ctx, _ = _with_model(lantern, ['{"sentences": [{"text": "Brann sailed home.", "lines": [2]}]}'])
    result = run_query(ctx, "What happens in Lantern chapter 2?")
    assert result["status"] == "GROUNDED" and result["answer_mode"] == "extractive"
    assert "begins: In spring a fog covered the hill" in result["answer"]
    assert "borne out" in result["warnings"][0] and "'Brann'" in result["warnings"][1]
    assert result["llm_calls"] == 1


def test_a_verse_is_never_summarised(lantern):
    ctx, model = _with_model(lantern, _summary_reply)
    result = run_query(ctx, "What happens in Lantern chapter 1?")  # one line: the text itself
    assert result["answer"].startswith("Tova kept the lantern on the hill of Ardel.") and result["llm_calls"] == 0
    assert "chapter_summary_prompt" not in model._seen
