"""A made-up tool's guide and a device's leaflet, offline: inline code, defaults that are named, instructions."""

import pytest

from karaka.app.runner import run_query
from karaka.nlp import parse
from karaka.nlp.questions import question_step
from tests.fakes import grounded, parsed_workspace

GUIDE = (
    "# Pellet guide", "",
    "Edited by Mara Quist. Published 3 May 2021.", "",
    "## Settings", "",
    "The `QUIET` flag marks a message that is never printed.",
    "The log level defaults to `warn`.",
    "The page size defaults to letter.",
    "The default shell is the login shell of the user.",
    "The timeout defaults to 30 seconds.", "",
    "Settings are read from `pellet.toml` in the project root.", "",
    "## Tasks", "",
    "Run `pellet init` to create a project.",
)
LEAFLET = ("Hold the power button for five seconds to reset the device.",
           "To pair a headset, open the Bluetooth menu and choose Pair.")
PAGE = ("TARN(1)              User Commands              TARN(1)", "",
        "NAME", "       tarn - mirror a folder to a remote host", "",
        "DESCRIPTION", "       tarn runs on Linux and FreeBSD.", "       tarn is a small mirroring tool written in Go.",
        "       Every copy is encrypted with ChaCha20 before it leaves the host.", "",
        "EXIT STATUS", "       0      Success.", "       4      The remote host refused the key.",
        "       5      The local file is not readable.", "",
        "AUTHORS", "       Written by Ilka Moran and Teo Vasek.", "",
        "HISTORY", "       An early version was written in a weekend.", "")


@pytest.fixture(scope="module")
def guide(tmp_path_factory):
    return parsed_workspace(tmp_path_factory.mktemp("guide"), {"pellet.md": GUIDE, "leaflet.txt": LEAFLET,
                                                               "tarn.1.txt": PAGE})


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


def test_a_heading_that_labels_its_entries_says_what_the_line_under_it_names(guide):
    """"AUTHORS" over "Written by …" says who the authors are; "EXIT STATUS" over "4  The remote host …" says
    4 is an exit status, which the layout, not a verb, says it means."""
    assert grounded(guide, "Who are the authors of tarn?") == ["Ilka Moran and Teo Vasek"]
    assert grounded(guide, "Which exit status means the remote host refused the key?") == ["4"]
    assert run_query(guide, "Which exit status means the disk is full?")["status"] != "GROUNDED"
    assert run_query(guide, "Which exit status means the remote host accepted the key?")["status"] != "GROUNDED"
    assert run_query(guide, "Who are the translators of tarn?")["status"] != "GROUNDED"


def test_the_noun_a_which_question_asks_for_is_no_constraint_and_a_name_may_be_of_its_class(guide):
    """"Which systems does tarn run on?": the systems are what is asked, and "Linux and FreeBSD", names, carry
    no class noun of their own; "which cipher encrypts …?" is answered by the means of a passive with no doer."""
    assert grounded(guide, "Which systems does tarn run on?") == ["on Linux and FreeBSD"]
    assert grounded(guide, "On which systems does tarn run?") == ["on Linux and FreeBSD"]
    assert grounded(guide, "Which cipher encrypts every copy?") == ["with ChaCha20"]
    assert grounded(guide, "What language is tarn written in?") == ["in Go"]
    step = question_step("What programming language is Tallow written in?")  # "in" ends it, parsed a particle
    assert step is not None and (step["extract"], step["prep"]) == ("ADHIKARANA_SPATIAL", "in")
    assert run_query(guide, "Who encrypts every copy?")["status"] != "GROUNDED"  # a means is no person


def test_a_name_shaped_answer_is_no_file_option_or_address(guide):
    """A file's name ("pellet.toml") is no format, however few words tie the question to its line."""
    result = run_query(guide, "Which format does pellet read its settings from?")
    assert result["status"] != "GROUNDED" or "pellet.toml" not in result["answers"]


def test_an_agent_noun_is_said_by_its_own_verb(guide):
    """"Edited by Mara Quist" names the guide's editor ("-or" of "edit": the word's own derivation, no synonym)."""
    assert grounded(guide, "Who are the editors of the Pellet guide?") == ["Mara Quist"]
    assert run_query(guide, "Who is the publisher of the Pellet guide?")["status"] != "GROUNDED"  # a date, no doer
    assert run_query(guide, "Who is the translator of the Pellet guide?")["status"] != "GROUNDED"
