"""A made-up tool's guide and a device's leaflet, offline: inline code, defaults that are named, instructions."""

import pytest

from karaka.app.runner import run_query
from karaka.nlp import parse
from tests.fakes import grounded, parsed_workspace

GUIDE = (
    "# Pellet guide", "",
    "## Settings", "",
    "The `QUIET` flag marks a message that is never printed.",
    "The log level defaults to `warn`.",
    "The page size defaults to letter.",
    "The default shell is the login shell of the user.",
    "The timeout defaults to 30 seconds.", "",
    "## Tasks", "",
    "Run `pellet init` to create a project.",
)
LEAFLET = ("Hold the power button for five seconds to reset the device.",
           "To pair a headset, open the Bluetooth menu and choose Pair.")


@pytest.fixture(scope="module")
def guide(tmp_path_factory):
    return parsed_workspace(tmp_path_factory.mktemp("guide"), {"pellet.md": GUIDE, "leaflet.txt": LEAFLET})


def test_code_in_backticks_is_a_name_in_the_parse_and_its_words_are_one_phrase():
    """The backticks no longer break "The `QUIET` flag marks …" into a phrase with no verb."""
    doc = parse("The `QUIET` flag marks a message.")
    assert [t.text for t in doc] == ["The", "`", "QUIET", "`", "flag", "marks", "a", "message", "."]
    assert doc[5].pos_ == "VERB" and doc[4].dep_ == "nsubj" and doc[4].head.i == 5
    doc = parse("Run `make install` to build it.")  # the code's own "make" is no verb of the sentence
    assert doc[0].pos_ == "VERB" and doc[3].pos_ != "VERB" and doc[3].head.i == 2


def test_what_code_in_backticks_does_is_the_object_of_its_verb(guide):
    assert grounded(guide, "What does the QUIET flag mark?") == ["a message"]
    assert run_query(guide, "What does the QUIET flag print?")["status"] != "GROUNDED"


def test_a_default_of_a_measure_that_is_no_dimension_or_count_may_be_named(guide):
    """A level or a size may be named ("warn", "letter"); a timeout is measured, and a word is no timeout."""
    assert grounded(guide, "What is the default log level?") == ["warn"]
    assert grounded(guide, "What is the default page size?") == ["letter"]
    assert grounded(guide, "What is the default timeout?") == ["30 seconds"]


def test_a_default_said_by_a_copula_is_the_whole_noun_phrase(guide):
    assert grounded(guide, "What is the default shell?") == ["the login shell of the user"]
    assert run_query(guide, "What is the default editor?")["status"] != "GROUNDED"  # the line's default is a shell's


def test_an_instruction_given_for_the_question_s_action_says_how_it_is_done(guide):
    """"Hold … to reset the device" answers "how do I reset the device?" with the holding, not the resetting."""
    assert grounded(guide, "How do I reset the device?") == ["Hold the power button for five seconds"]
    assert grounded(guide, "How do I pair a headset?") == ["open the Bluetooth menu and choose Pair"]
    assert run_query(guide, "How do I reset the headset?")["status"] != "GROUNDED"
    assert run_query(guide, "How do I charge the device?")["status"] != "GROUNDED"
