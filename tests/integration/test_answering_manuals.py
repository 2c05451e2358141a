"""A made-up library's manual and licence, offline: what its lines prove for a user's questions."""

import pytest

from karaka.app.runner import run_query
from tests.fakes import grounded, parsed_workspace

MANUAL = (
    "# Wobble",
    "",
    "Wobble is a small HTTP client library for Python.",
    "",
    "## Configuration",
    "",
    "The `timeout` setting controls how long a request may take. It defaults to 30 seconds.",
    "",
    "The maximum number of retries is 5.",
    "",
    "Wobble runs on x86-64 CPUs with AVX2.",
    "",
    "Logs are written to /var/log/wobble.log.",
    "",
    "The `--depth` option limits recursion; the default is 3.",
    "",
    "Only administrators may delete a session.",
    "",
    "The `--retry` option sets how often a request is tried again; 0 makes wobble do no retries (the default).",
)
LICENCE = ("Permission is granted to copy this software, provided that the notice is kept.",
           "This licence is governed by the laws of the State of Oregon.")


@pytest.fixture(scope="module")
def ctx(tmp_path_factory):
    return parsed_workspace(tmp_path_factory.mktemp("manual"), {"wobble.md": MANUAL, "LICENCE.txt": LICENCE})


def test_a_default_is_read_from_the_sentence_after_the_one_that_names_the_setting(ctx):
    """"What is the default timeout?" has no word but its focus: the focus ties the line to it."""
    assert grounded(ctx, "What is the default timeout?") == ["30 seconds"]


def test_a_copula_says_a_bare_number_is_the_thing_asked_about(ctx):
    assert grounded(ctx, "What is the maximum number of retries?") == ["5"]


def test_a_bare_number_of_another_thing_is_not_proved(ctx):
    assert run_query(ctx, "What is the maximum number of connections?")["status"] != "GROUNDED"


def test_what_is_x_is_answered_by_what_the_line_says_x_is_whatever_the_tagger_made_of_x(ctx):
    assert "HTTP client library" in grounded(ctx, "What is wobble?")[0]


def test_an_acronym_s_plural_is_the_noun_asked_about(ctx):
    assert "x86-64" in grounded(ctx, "Which CPUs does wobble run on?")[0]


def test_a_span_headed_by_the_noun_asked_about_is_of_that_kind(ctx):
    assert "State of Oregon" in grounded(ctx, "Which laws govern the licence?")[0]


def test_where_is_answered_by_a_path(ctx):
    assert grounded(ctx, "Where are the logs written?") == ["/var/log/wobble.log"]


def test_a_bare_number_the_line_calls_the_default_of_what_it_names_answers_a_default_question(ctx):
    assert grounded(ctx, "What is the default depth?") == ["3"]


def test_a_number_the_default_is_said_of_only_further_on_stays_a_bare_number(ctx):
    """"0 makes wobble do no retries (the default)": the default is "no retries", not the bare 0."""
    result = run_query(ctx, "How many retries does wobble do by default?")
    assert result["answers"][:1] != ["0"]


def test_who_is_answered_by_the_doer_the_line_names_by_a_common_noun(ctx):
    assert grounded(ctx, "Who may delete a session?") == ["Only administrators"]


GERMAN = (
    "BESCHREIBUNG",
    "       frob verdichtet Dateien mit dem Verfahren LZ77.",
    "",
    "OPTIONEN",
    "       -l, --level=STUFE",
    "              Die Kompressionsstufe festlegen; die Voreinstellung ist 6.",
    "",
    "UMGEBUNGSVARIABLEN",
    "       FROB_OPTS",
    "              Standardoptionen, die vor den Befehlszeilenoptionen gelesen werden.",
)


@pytest.fixture(scope="module")
def german(tmp_path_factory):
    return parsed_workspace(tmp_path_factory.mktemp("manpage"), {"frob.1.de.txt": GERMAN})


def test_a_german_default_is_called_voreinstellung(german):
    result = run_query(german, "Was ist die Voreinstellung der Kompressionsstufe?")
    assert result["status"] == "GROUNDED" and result["answers"] == ["6"]


def test_a_german_compound_with_standard_that_is_not_the_thing_asked_for_asks_no_default(german):
    result = run_query(german, "Welche Umgebungsvariable enthält Standardoptionen?")
    assert result["status"] == "GROUNDED" and result["answers"] == ["FROB_OPTS"]


def test_a_question_word_inside_a_german_question_says_its_language_and_a_shaped_name_after_the_noun_answers(german):
    from karaka.answering.question import language

    assert language("Mit welchem Verfahren verdichtet frob Dateien?") == "de"
    result = run_query(german, "Mit welchem Verfahren verdichtet frob Dateien?")
    assert result["status"] == "GROUNDED" and result["answers"] == ["LZ77"]


@pytest.fixture(scope="module")
def handbook(tmp_path_factory):
    return parsed_workspace(tmp_path_factory.mktemp("handbook"), {
        "handbook.txt": ("The Quill Lantern Handbook", "Ada Marsh", "March 3, 2021", "",
                         "Lanterns hang from the ceiling of the hall."),
        "history.txt": ("The History of Lamp", "Cy Dunn", "", "Lamp was first released in 2019."),  # no PERSON for it
        "lamp.md": ("# Lamp", "", "The `--bright` option sets the brightness; the default is 7.", "",
                    "The `--dim` option lowers the brightness by two steps."),
        "CHANGELOG.md": ("# Changelog", "", "## 2.1.0 - 2022-05-04", "", "- Added the `--quiet` flag.", "",
                         "## 2.0.0 - 2021-11-30", "", "- The `--verbose` flag now prints timings."),
    })


def test_a_line_of_names_alone_says_who_wrote_a_document_and_no_other_action(handbook):
    assert grounded(handbook, "Who wrote the Quill Lantern Handbook?") == ["Ada Marsh"]  # a title page's byline
    assert grounded(handbook, "Who wrote the History of Lamp?") == ["Cy Dunn"]
    for question in ("Who translated the Quill Lantern Handbook?", "Who led the Quill Lantern Handbook?",
                     "Who maintains the History of Lamp?"):
        assert run_query(handbook, question)["status"] != "GROUNDED", question


def test_a_neighbour_names_no_option_for_a_line_that_names_another(handbook):
    assert grounded(handbook, "What is the default brightness?") == ["7"]
    assert run_query(handbook, "What does the --dim option default to?")["status"] != "GROUNDED"  # --bright's 7


def test_a_date_heading_dates_an_entry_only_for_the_action_the_entry_says(handbook):
    assert grounded(handbook, "When was the --quiet flag added?") == ["2022-05-04"]
    # "now prints" (a verb the tagger read as a plural noun) is no adding
    assert run_query(handbook, "When was the --verbose flag added?")["status"] != "GROUNDED"
