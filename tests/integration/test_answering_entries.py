"""A made-up tool's manual read offline: entries whose parts are said in separate sentences or lines."""

import pytest

from karaka.app.runner import run_query
from tests.fakes import grounded, parsed_workspace

MANUAL = (
    "# Quillet",
    "",
    "Quillet is a command line tool for converting notebooks.",
    "",
    "## Options",
    "",
    "--maxdepth N",
    "",
    "Adjust the maximum depth of the include stack before the converter gives up. The default is 640.",
    "",
    "--maxfiles N",
    "",
    "Maximum number of open files. The default is 48.",
    "",
    "## Compiling quillet and libquill with Meson (usually for Windows)",
    "",
    "Quillet is compiled using Meson on Windows.",
    "",
    "Two good habits are to make sure that the notebook is closed and to keep a copy of it.",
    "",
    "The letter to be signed is first checked using a careful process, e.g. by hand or by machine.",
    "",
    "Each request carries a signed token, valid for at least ten minutes, to prove where it came from.",
    "",
    "A title must not contain any slashes. A notebook may contain pictures.",
    "",
    "## Exit status",
    "",
    "0",
    "",
    "No error at all",
    "",
    "3",
    "",
    "Could not open the notebook",
    "",
    "## Contacts",
    "",
    "You can report bugs at <https://example.org/quillet/issues>.",
    "",
    "## Soup",
    "",
    "For the hungry developer, here is a recipe for bean soup.",
    "",
    "6 servings.",
)


TUTORIAL = (
    "# The Quillet Tutorial",
    "",
    "## Introduction",
    "",
    "Quillet is a small converter written by Ada Quist for the Heron project.",
)


@pytest.fixture(scope="module")
def ctx(tmp_path_factory):
    return parsed_workspace(tmp_path_factory.mktemp("quillet"), {"quillet.md": MANUAL, "quillet-tutorial.md": TUTORIAL})


def test_a_sentence_that_names_only_a_value_is_said_of_the_sentence_before_it(ctx):
    """"The default is 640." names nothing but the default: it is the default of the depth just named."""
    assert grounded(ctx, "What is the default maximum depth of the include stack?") == ["640"]
    assert grounded(ctx, "How many servings does the bean soup recipe make?") == ["6 servings"]


def test_a_question_that_names_only_the_document_needs_the_rest_said_by_the_line(ctx):
    """"in quillet", asked of quillet's manual, names what the whole document is about."""
    assert grounded(ctx, "What is the default maximum number of open files in quillet?") == ["48"]
    assert run_query(ctx, "What is the default maximum number of open threads in quillet?")["status"] != "GROUNDED"


def test_a_role_cut_at_a_bracket_is_no_place_and_the_address_answers(ctx):
    assert grounded(ctx, "Where can you report quillet bugs?") == ["https://example.org/quillet/issues"]


def test_a_phrasal_verb_is_not_the_same_verb_without_its_particle(ctx):
    """"make up" is not the "make" of "make sure": what two habits make up is not said."""
    result = run_query(ctx, "What do two good habits make up?")
    assert result["status"] != "GROUNDED", result


def test_a_role_the_action_gives_must_still_stand_with_the_question_s_words(ctx):
    """"The letter to be signed" names no one who signed the example copyright disclaimer."""
    result = run_query(ctx, "Who signed the example copyright disclaimer?")
    assert result["status"] != "GROUNDED", result


def test_a_linking_verb_s_adjective_is_the_action_asked_about(ctx):
    """"stay valid": the line says "valid for", never "stay"."""
    assert grounded(ctx, "How long must a signed token stay valid?") == ["ten minutes"]


def test_an_entry_keyed_by_a_number_is_described_by_the_line_under_it(ctx):
    assert grounded(ctx, "What does quillet exit status 3 mean?") == ["Could not open the notebook"]


def test_a_question_that_asks_what_did_not_happen_is_answered_by_a_negated_action(ctx):
    assert grounded(ctx, "What must a title not contain?") == ["any slashes"]
    result = run_query(ctx, "What may a notebook not contain?")
    assert result["status"] != "GROUNDED", result


def test_a_name_set_before_the_noun_asked_about_is_not_that_noun(ctx):
    """"the Quillet Tutorial": a line that says who wrote Quillet says nothing of who wrote its tutorial."""
    assert grounded(ctx, "Who wrote Quillet?") == ["Ada Quist"]
    result = run_query(ctx, "Who wrote the Quillet Tutorial?")
    assert result["status"] != "GROUNDED", result


API = ("<html><body><h2>2.5 The Closure API</h2>", "<p>heron also provides a way to write a generic function.</p>",
       "<h3>Arguments</h3>", "<dl><dt>cif</dt><dd>The cif describing the function parameters.</dd>",
       "<dt>codeloc</dt><dd>The executable address returned by the allocator.</dd></dl></body></html>")


def test_a_line_under_a_document_named_by_every_word_of_the_question_must_still_say_something(tmp_path):
    """"heron-closure-api.html" holds "Closure", "API" and "heron": the bare entry "cif" says nothing of who wrote it."""
    ctx = parsed_workspace(tmp_path, {"heron-closure-api.html": API})
    result = run_query(ctx, "Who wrote the Closure API of heron?")
    assert result["status"] != "GROUNDED", result
