"""A made-up storage format's specification, offline: abbreviations, purposes, conditions, frequencies."""

import pytest

from karaka.app.runner import run_query
from tests.fakes import grounded, parsed_workspace

SPEC = (
    "# Marl Storage Format", "",
    "## Overview", "",
    "Marl keeps readings in append-only chunk files. An MAC (message authentication code) seals every chunk.",
    "The journal records each change before it reaches a chunk; the write-ahead journal (WAJ) is replayed at start.",
    "The RPL (read-ahead page list) holds pages before they are read.", "",
    "## Chunks", "",
    "When a chunk reaches 16 MB, it is closed and a fresh chunk is started.",
    "If a chunk fails its MAC check, the loader drops the chunk and raises an alarm.", "",
    "## Merging", "",
    "Merging joins small chunks into bigger ones to keep the number of open files low.",
    "Merging runs twice a day.", "",
)


@pytest.fixture(scope="module")
def spec(tmp_path_factory):
    return parsed_workspace(tmp_path_factory.mktemp("spec"), {"marl-spec.md": SPEC})


def test_an_abbreviation_stands_for_the_words_in_brackets_whose_initials_spell_it(spec):
    assert grounded(spec, "What does MAC stand for?") == ["message authentication code"]
    assert grounded(spec, "What does WAJ stand for?") == ["write-ahead journal"]
    assert grounded(spec, "What is the RPL?") == ["read-ahead page list"]  # "The RPL (…)": one thing it is
    result = run_query(spec, "What does MARL stand for?")  # what Marl does is not what it stands for
    assert result["status"] != "GROUNDED" and not any("keeps" in a for a in result["answers"])


def test_what_a_thing_is_used_for_is_its_purpose(spec):
    assert grounded(spec, "What is merging used for?") == ["to keep the number of open files low"]
    assert grounded(spec, "What is the purpose of merging?") == ["to keep the number of open files low"]
    assert run_query(spec, "What is the journal used for?")["status"] != "GROUNDED"  # no purpose given


def test_what_happens_under_a_condition_is_the_clause_the_condition_governs(spec):
    assert grounded(spec, "What happens when a chunk reaches 16 MB?") == ["it is closed and a fresh chunk is started"]
    assert grounded(spec, "What happens if a chunk fails its MAC check?") == [
        "the loader drops the chunk and raises an alarm"]
    assert run_query(spec, "What happens if a chunk is too big?")["status"] != "GROUNDED"  # another condition


def test_how_often_is_answered_by_a_frequency(spec):
    assert grounded(spec, "How often does merging run?") == ["twice a day"]
    assert run_query(spec, "How often does the journal run?")["status"] != "GROUNDED"


def test_a_range_of_numbers_in_words_is_one_amount():
    """"three to five" is one amount, as "2 to 4 GB" is, not two numbers of which either might be shown."""
    from karaka.answering.spans import quantities
    from karaka.nlp import parse

    text = "Each nest holds three to five eggs, and two or three fledge."
    assert [s.text for s in quantities(text, parse(text))] == ["three to five eggs", "two or three"]


def test_what_a_defined_term_refers_to_may_name_the_term_s_own_word(tmp_path):
    """'"This Format" refers to version 2 of the Marl Storage Format': the answer holds "Format" and is no "This Format"."""
    ws = parsed_workspace(tmp_path, {"terms.md": ("# Definitions", "",
                                                  '"This Format" refers to version 2 of the Marl Storage Format.',
                                                  '"Reader" means any program that opens a chunk.', "")})
    assert grounded(ws, 'What does "This Format" refer to?') == ["to version 2 of the Marl Storage Format"]
