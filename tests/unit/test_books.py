"""Plain-text books read with their own coordinates; made-up books only."""

import pytest

from karaka.loading import refine
from karaka.loading.book import book_lines, number, unframed
from karaka.store.ids import cite

FRAMED = """The Project Gutenberg eBook of Lanterns

This eBook is for the use of anyone anywhere at no cost.

*** START OF THE PROJECT GUTENBERG EBOOK LANTERNS ***

Produced by a volunteer of the lamp library.

[Transcriber's Note: obvious misprints
have been corrected.]

LANTERNS

CHAPTER I.

The Lamp-Maker

Aldo made lanterns in the town of Serre.

CHAPTER II.

He sold one lantern to the ferryman for three coins.

*** END OF THE PROJECT GUTENBERG EBOOK LANTERNS ***

Section 1. General Terms of Use
"""

VERSES = """The Chronicle of Keld

Chapter 1

1:1 In the first year Oren built a tower of grey stone upon
the northern cliff.

1:2 Oren was forty years old when he lit the lamp.

1:3 The fishermen praised him.

Chapter 2

2:1 A storm broke the tower.
"""


def test_the_gutenberg_frame_credits_and_notes_are_blank_lines_and_numbers_stay_the_file_s():
    lines = unframed(FRAMED.split("\n"))
    assert len(lines) == len(FRAMED.split("\n"))
    kept = " ".join(lines)
    assert "Aldo made lanterns" in kept and "three coins" in kept
    for gone in ("eBook", "START OF", "END OF", "Produced by", "Transcriber", "misprints", "General Terms"):
        assert gone not in kept
    assert lines.index("Aldo made lanterns in the town of Serre.") == FRAMED.split("\n").index(
        "Aldo made lanterns in the town of Serre.")


def test_chapter_headings_become_sections_and_chapters_with_their_title():
    sentences = refine(FRAMED)
    aldo = next(s for s in sentences if s.text.startswith("Aldo"))
    assert (aldo.chapter, aldo.section) == ("1", "CHAPTER I. The Lamp-Maker")
    ferry = next(s for s in sentences if "ferryman" in s.text)
    assert ferry.chapter == "2" and ferry.verse == ""
    assert all("Gutenberg" not in s.text for s in sentences)


def test_numbered_verses_leave_the_text_and_wrapped_verses_join():
    sentences = refine(VERSES)
    first = next(s for s in sentences if s.text.startswith("In the first year"))
    assert first.text.endswith("upon the northern cliff.") and (first.chapter, first.verse) == ("1", "1")
    forty = next(s for s in sentences if "forty" in s.text)
    assert forty.text.startswith("Oren was forty") and forty.place()["verse"] == "2" and forty.line == 8
    assert next(s for s in sentences if "storm" in s.text).chapter == "2"


@pytest.mark.parametrize(("text", "chapter", "verse"), [
    ("Canto 3\n\n[1] The pilgrims climbed.\n\n[2] The river fell.\n\n[3] Night came.\n\nCanto 4\n\n[1] Dawn.\n", "3",
     "2"),
    ("SN 35.27 The hall was cold.\n\nSN 35.28 The hall burned.\n\nSN 35.29 The hall was rebuilt.\n", "SN 35", "28"),
    ("§ 1 Every boat carries a bell.\n\n§ 2 The bell is rung at fog.\n\n§ 3 The keeper keeps the rope.\n", "", "2"),
    ("BOOK II.\n\nChapter 1\n\nThe fleet sailed.\n\nChapter 2\n\n1. The bell rang.\n\n2. The fog came.\n\n"
     "3. The fleet returned.\n", "2", "2"),
    ("Chapter 1\n\n1 Egil kept a forge.\n\n2 The fog came over Rund.\n\n3 Egil slept.\n\nChapter 2\n\n1 Dawn.\n",
     "1", "2"),  # a bare number and a space, as many translations print a verse
])
def test_numbered_units_in_several_styles(text, chapter, verse):
    second = next(s for s in refine(text) if any(w in s.text for w in ("river", "burned", "fog", "The fog")))
    assert (second.chapter, second.verse) == (chapter, verse)
    assert not second.text[:1].isdigit() and not second.text.startswith(("[", "§", "SN"))


def test_book_and_chapter_headings_nest():
    text = "BOOK I.\n\nChapter 1\n\nThe ships waited.\n\nBOOK II.\n\nChapter 1\n\nThe ships sailed.\n\nChapter 2\n\nRain.\n"
    sailed = next(s for s in refine(text) if "sailed" in s.text)
    assert sailed.section == "BOOK II. › Chapter 1" and sailed.chapter == "1"


def test_a_short_numbered_list_in_an_essay_is_not_a_book():
    text = "Steps to brew tea.\n\n1. Boil the water.\n\n2. Warm the pot.\n\n3. Pour the water.\n"
    sentences = refine(text)
    assert all(s.verse == "" and s.chapter == "" for s in sentences)
    assert any(s.text.startswith("1.") or s.text.startswith("Boil") for s in sentences)
    assert book_lines(text) and not any(r.verse for r in book_lines(text))


def test_bare_numbers_count_as_chapters_only_when_they_count_up():
    book = "THE RIVER\n\nI.\n\nThe river rose.\n\nII.\n\nThe river fell.\n\nIII.\n\nThe river froze.\n"
    assert [s.chapter for s in refine(book) if "river" in s.text] == ["1", "2", "3"]
    table = "Totals\n\n12\n\napples were sold.\n\n7\n\npears were sold.\n\n40\n\nplums were sold.\n"
    assert all(s.chapter == "" for s in refine(table))


@pytest.mark.parametrize(("written", "value"), [("IV", 4), ("xii", None), ("XII", 12), ("twelve", 12), ("7.", 7),
                                                ("MCM", 1900), ("river", None)])
def test_chapter_numbers_in_digits_roman_numerals_and_words(written, value):
    assert number(written) == value


def test_citations_read_in_the_book_s_own_terms():
    assert cite("chronicle", 9, chapter="1", verse="2") == "[chronicle 1:2]"
    assert cite("chronicle", 9, 2, chapter="1", verse="2") == "[chronicle 1:2, sentence 2]"
    assert cite("suttas", 4, chapter="SN 35", verse="28") == "[suttas, SN 35.28]"
    assert cite("rules", 4, verse="3") == "[rules, v. 3]"
    assert cite("epic", 40, section="BOOK I. The Quarrel", chapter="1") == "[epic, Book 1, line 40]"
    assert cite("novel", 40, section="CHAPTER I. The Lamp-Maker", chapter="1") == "[novel, ch. 1, line 40]"
    assert cite("manual", 40, section="OPTIONS") == "[manual, § OPTIONS, line 40]"


def test_a_paragraph_that_opens_like_a_heading_is_text():
    text = ("CHAPTER 1. The Shelf.\n\nThe lamps stood on a shelf.\n\nCHAPTER 2. The Kinds.\n\n"
            "BOOK I. (Brass), CHAPTER I. (Ship lamp).—This lamp, among the keepers of old known as the\n"
            "storm lamp, burns whale oil.\n\nCHAPTER 3. The End.\n\nThe shelf was empty.\n")
    sentences = refine(text)
    assert [s.text for s in sentences if s.kind == "heading"] == ["CHAPTER 1. The Shelf.", "CHAPTER 2. The Kinds.",
                                                                 "CHAPTER 3. The End."]
    assert next(s for s in sentences if "empty" in s.text).section == "CHAPTER 3. The End."
