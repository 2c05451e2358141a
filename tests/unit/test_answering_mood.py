"""A line that only supposes something proves nothing of it; made-up sentences."""

from karaka.answering.evidence import weigh
from karaka.answering.line import line_words
from karaka.answering.mood import supposed
from karaka.answering.question import analyse
from karaka.answering.spans import spans
from karaka.nlp import parse


def _supposed(text, word):
    doc = parse(text)
    return supposed(doc, next(t.i for t in doc if t.text == word))


def _why(question, text, span_text, context="", heading="", document=""):
    asked = analyse(question)
    doc = parse(text)
    words = line_words(text, doc, context, heading=heading, document=document)
    return {s.text: weigh(asked, s, words, doc).why_not for s in spans(asked, text, doc)}[span_text]


def test_a_condition_contrary_to_fact_and_a_wish_are_only_supposed():
    assert "contrary to fact" in _supposed("If Greta were a famous painter, the town might honour her.", "painter")
    assert "under 'wish'" in _supposed("I wish my cousin Edvin lived at Marsh End.", "End")
    assert "would have been" in _supposed("Had the ferry run, Lotte could have reached Vardø.", "Vardø")


def test_a_rule_a_fact_and_a_habit_are_stated():
    assert _supposed("If the lock file is stale, the daemon removes it.", "removes") == ""
    assert _supposed("I know my cousin Edvin lived at Marsh End.", "End") == ""
    assert _supposed("If Greta came late, she took the cart.", "cart") == ""
    assert _supposed("Greta would sit by the stove each evening.", "stove") == ""


def test_what_a_line_only_supposes_answers_nothing():
    assert _why("Who is Greta?", "Greta was a famous painter.", "a famous painter") == ""
    assert "supposes" in _why("Who is Greta?", "If Greta were a famous painter, the town might honour her.",
                              "a famous painter")
    assert _why("Who married Edvin?", "Hanna knew that Greta had married Edvin.", "Greta") == ""
    assert "supposes" in _why("Who married Edvin?", "Hanna wished that Greta had married Edvin.", "Greta")


def test_a_book_s_title_says_no_line_s_action():
    line = "The news of Mara's flight from the mill reached Tomas at noon."
    assert "lacks" in _why("Who tempted Mara to leave the mill?", line, "Tomas",
                           context="Temptation", document="Temptation")
