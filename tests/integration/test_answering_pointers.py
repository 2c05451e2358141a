"""A made-up tool's guide read offline: what "this …" points back to, a list of defaults, a command's whole name."""

import pytest

from karaka.app.runner import run_query
from tests.fakes import grounded, parsed_workspace

GUIDE = (
    "# Spoolit",
    "",
    "Spoolit is a small spool keeper.",
    "",
    "## Setup",
    "",
    "Despite Spoolit being shipped with Kit.js, the indexes are not part of Kit.js and: "
    "upon first use, Spoolit fetches the newest index from the mirror.",
    "",
    "The Spoolit helpers will find the nearest spool.toml in the current folder to read its spool table.",
    "",
    "To work away from the mirror, call the spoolit seal command while the mirror is still reachable.",
    "",
    "## Places",
    "",
    "The default drop folder is:",
    "",
    "- `<home>/inbox` on desktops",
    "- `/srv/inbox` on servers",
    "",
    "The {ref}`--spool <opt-spool>` option can be used to change this folder.",
    "",
    "The --trace option can be used to change the log level.",
    "",
    "## Silent spooling",
    "",
    "Added in version 3.4.",
    "",
    "Spoolit can keep the spool without printing anything.",
    "",
    "## Getting it",
    "",
    "See the file CHANGES for what is new.",
    "If you got this file from a clone, all of it is already built.",
    "If this file came in a tarball, then read the file BUILDING for how to build it.",
)


@pytest.fixture(scope="module")
def ctx(tmp_path_factory):
    return parsed_workspace(tmp_path_factory.mktemp("spoolit"), {"spoolit.md": GUIDE})


def test_a_command_called_so_answers_by_its_whole_name(ctx):
    """"the spoolit seal command" calls "seal" a command, and "spoolit seal" is all of its name."""
    assert grounded(ctx, "Which command should be called while the mirror is still reachable?") == [
        "spoolit seal command"]


def test_code_outside_the_action_s_own_role_answers_no_other_question(ctx):
    """"Kit.js" stands in the line that says what Spoolit fetches, but the fetching's object is the index."""
    result = run_query(ctx, "What does Spoolit fetch upon first use?")
    assert "Kit.js" not in result["answers"][0] if result["status"] == "GROUNDED" else True, result
    assert result["status"] == "GROUNDED" and "newest index" in result["answers"][0], result


def test_each_entry_of_a_list_of_defaults_is_a_default(ctx):
    """"The default drop folder is:" makes the entry right under it a default."""
    assert grounded(ctx, "What is the default drop folder on desktops?") == ["<home>/inbox"]


def test_this_noun_takes_the_words_of_the_line_above_that_named_it(ctx):
    """"this folder" is the drop folder three lines above; "the log level" is no folder at all."""
    assert grounded(ctx, "Which option can be used to change the drop folder?") == ["--spool"]


def test_a_this_noun_the_question_names_with_no_word_of_its_own_points_nowhere(ctx):
    """"this file" may be the document itself: the clone of the line above is not the tarball's."""
    result = run_query(ctx, "Which file should you read after a clone?")
    assert not (result["status"] == "GROUNDED" and "BUILDING" in result["answers"]), result


def test_a_version_note_first_under_a_heading_says_when_what_the_heading_names_came(ctx):
    """"Added in version 3.4." has no subject: it speaks of silent spooling, the heading right above it."""
    assert grounded(ctx, "In which version of Spoolit was silent spooling added?") == ["3.4"]
