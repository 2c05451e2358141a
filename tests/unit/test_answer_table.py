"""Which questions ask for a table, and how a table row's fields are read (sentences made up here)."""

import pytest

from karaka.answering.table import _fields, _stem, _value, asked_columns


@pytest.mark.parametrize(("question", "columns"), [
    ("What are the planets and their moons?", ("planets", "moons")),
    ("List each tool with its price.", ("tool", "price")),
    ("Show me the rivers along with their lengths", ("rivers", "lengths")),
    ("Which gates and their keepers", ("gates", "keepers")),
    ("Name every bridge and its builder?", ("bridge", "builder")),
])
def test_questions_that_ask_for_things_and_a_property(question, columns):
    assert asked_columns(question) == columns


@pytest.mark.parametrize("question", ["Who gave the lamp and the rope to the miller?",
                                      "What did the miller do with his rope?", "How long is the river?"])
def test_questions_that_do_not(question):
    assert asked_columns(question) is None


def test_a_row_sentence_gives_the_value_after_the_property():
    first, fields = _fields("Planet Mars: Moon count 2, Colour red")
    assert first == "Planet Mars" and fields == ["Moon count 2", "Colour red"]
    assert _value(fields, [_stem("moon"), _stem("counts")]) == "2"
    assert _value(fields, ["colour"]) == "red" and _value(fields, ["mass"]) is None
    assert [_stem(w) for w in ("cities", "boxes", "glass", "sizes")] == ["city", "box", "glass", "size"]


def test_prose_rows_need_a_named_thing_and_its_value_and_drop_a_thing_given_two_values():
    from karaka.answering.line import Line
    from karaka.answering.prose_table import prose_table
    from karaka.nlp import parse

    texts = ["Gate 1 has a width of 3 metres.", "Gate 2 has a width of 5 metres.", "Gate 3 has a width of 4 metres.",
             "Gate 3 has a width of 6 metres.", "The old gate has a width of 9 metres.",
             "Gate 4 was painted red."]
    lines = [Line(f"doc_L{n}", t, parse(t), None, n) for n, t in enumerate(texts, 1)]  # type: ignore[arg-type]
    table = prose_table(("gates", "widths"), lines)
    assert table is not None and not table.from_table
    assert table.rows == [("Gate 1", "3 metres", "doc_L1"), ("Gate 2", "5 metres", "doc_L2")]
    assert prose_table(("gates", "colours"), lines) is None  # one row is no table
