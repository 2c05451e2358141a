"""References in questions, in several citation styles; made-up names."""

import pytest

from karaka.answering.reference import Reference, parse


@pytest.mark.parametrize(("question", "name", "chapter", "verse"), [
    ("What does Chronicle 4:8 say?", "Chronicle", "4", "8"),
    ("Chr 4:8", "Chr", "4", "8"),
    ("What does chapter 4 verse 8 of the Chronicle say?", "Chronicle", "4", "8"),
    ("Lanterns, ch. 2, v. 11", "Lanterns", "2", "11"),
    ("What happens in Lanterns chapter 2?", "Lanterns", "2", ""),
    ("What is chapter IV of the Voyage about?", "Voyage", "4", ""),
    ("Quote verse 3 of chapter 2 of Lanterns", "Lanterns", "2", "3"),
    ("SN 35.28", "", "SN 35", "28"),
    ("2 Chronicle 1:3", "2 Chronicle", "1", "3"),
])
def test_chapter_and_verse_references(question, name, chapter, verse):
    ref = parse(question)
    assert ref is not None and (ref.name, ref.chapter, ref.verse) == (name, chapter, verse)


def test_ranges_sections_and_pages():
    assert parse("Show me Chronicle 4:8-10") == Reference("Chronicle", "4", "8", "10", shown="Show me Chronicle 4:8-10")
    section = parse("What does section 3.2 say?")
    assert section is not None and (section.section, section.name) == ("3.2", "")
    page = parse("What is on page 12 of the tarfile manual?")
    assert page is not None and (page.page, page.name) == (12, "tarfile manual")  # "manual" names no document
    assert parse("tarfile manual, p. 7") == Reference("tarfile manual", page=7, shown="tarfile manual, p. 7")


@pytest.mark.parametrize("question", [
    "Who built the tower?",
    "How old was Oren in chapter 1?",        # a question about a chapter, not its text
    "Why did the storm in chapter 2 break the tower?",
    "What is new in Python 3.11?",
    "How many pages does the manual have?",
])
def test_questions_that_ask_more_than_the_text_at_a_place_are_not_references(question):
    assert parse(question) is None


def test_a_reference_reads_as_its_place():
    assert Reference("Chr", "4", "8").label("chronicle") == "chronicle 4:8"
    assert Reference("", "SN 35", "28").label() == "SN 35.28"
    assert Reference("Lanterns", "2").label() == "Lanterns chapter 2"
