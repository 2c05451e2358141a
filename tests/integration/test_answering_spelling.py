"""A question's slips of the keyboard read as the documents' words; a made-up story."""

import pytest

from karaka.answering.spelling import corrected, edits
from karaka.app.runner import run_query
from karaka.services import get_services
from tests.fakes import parsed_workspace

LINES = ("Orin killed the wolf with a spear.", "Bela waited in the orchard of Tamsk.",
         "The printer inverted the colors of the page.")


@pytest.fixture(scope="module")
def ctx(tmp_path_factory):
    return parsed_workspace(tmp_path_factory.mktemp("slips"), {"tale.txt": LINES})


@pytest.mark.parametrize(("a", "b", "n"), [("killd", "killed", 1), ("wiat", "wait", 1), ("recieve", "receive", 1),
                                          ("orchard", "orchard", 0), ("wolf", "golf", 1), ("spear", "pears", 2)])
def test_edits_count_added_dropped_changed_and_swapped_letters(a, b, n):
    assert edits(a, b) == n


def test_a_slipped_verb_is_read_as_the_documents_word_and_the_answer_says_so(ctx):
    result = run_query(ctx, "Who killd the wolf?")
    assert result["status"] == "GROUNDED" and result["answers"] == ["Orin"]
    assert "spelling: 'killd' read as 'killed'" in result["warnings"]
    assert run_query(ctx, "Where did Bela wiat?")["answers"] == ["in the orchard of Tamsk"]


def test_an_english_word_the_documents_lack_is_never_changed(ctx):
    """"invented" is one letter from the documents' "inverted", and a question the documents cannot answer."""
    store = get_services(ctx).workspace
    assert corrected(store, "Who invented the printer?") == ("Who invented the printer?", [])
    assert run_query(ctx, "Who invented the printer?")["status"] != "GROUNDED"


def test_names_and_code_are_left_as_written(ctx):
    store = get_services(ctx).workspace
    assert corrected(store, "Did Orni use a spaer?")[1] == [("spaer", "spear")]  # "Orni" is a name: not changed
    assert corrected(store, "What does --spaer do?")[1] == []
