"""A made-up API reference read offline: which code a line names, and which of it answers "which method/variable"."""

import pytest

from karaka.app.runner import run_query
from tests.fakes import parsed_workspace

REFERENCE = (
    "# Spool",
    "",
    "## Class: `spool.Reader`",
    "",
    "Represents the readable end of a spool.",
    "In normal use `proc.input` will be the only `spool.Reader` instance in a program.",
    "",
    "### `reader.setRaw(mode)`",
    "",
    "A `boolean` that is `true` if the spool is currently configured to operate as a raw pipe.",
    "",
    "* `mode <boolean>` If `true`, configures the `spool.Reader` to operate as a raw pipe.",
    "",
    "## Inks",
    "",
    "To flush the inks, run a `spoolctl` command.",
    "",
    "To enforce a specific ink support, set `INKY_LEVEL` in the environment.",
    "",
    "```js",
    "proc.out.hasInk(2, { INKY: '1' }); // Returns false (the environment setting pretends to support 8 inks).",
    "```",
)


PRINTED = (  # as a page printed to PDF reads: no headings, code in backquotes
    "Spool printed",
    "",
    "mode <boolean> If `true`, configures the `spool.ReadPipe` to operate as a raw pipe.",
    "",
    "proc.out.hasInk(2, { INKY: '1' }); // Returns false (the environment setting pretends to support 8 inks).",
)


@pytest.fixture(scope="module")
def ctx(tmp_path_factory):
    return parsed_workspace(tmp_path_factory.mktemp("spool"), {"spool.md": REFERENCE, "printed.txt": PRINTED})


def test_a_neighbour_that_qualifies_the_noun_otherwise_lends_no_words(ctx):
    """"the readable end" in the sentence before says nothing of "the writable end"."""
    result = run_query(ctx, "Which class represents the writable end of a spool?")
    assert result["status"] != "GROUNDED", result["answer"]


def test_the_class_a_question_names_literals_and_a_parameter_answer_no_which_method(ctx):
    """"spool.Reader" is the Reader asked about; `true`, "a `boolean`" and "mode <boolean>" name no method."""
    result = run_query(ctx, "Which method configures a Reader to operate as a raw pipe?")
    if result["status"] == "GROUNDED":
        assert result["answers"][0] not in ("spool.Reader", "true", "boolean", "mode <boolean>"), result["answer"]


def test_a_module_s_name_before_the_class_asked_leaves_it_the_question_s_own(ctx):
    """"spool.ReadPipe" is the ReadPipe the question names: no answer to which method configures it."""
    result = run_query(ctx, "Which method configures a ReadPipe to operate as a raw pipe?")
    assert not (result["status"] == "GROUNDED" and "ReadPipe" in result["answers"][0]), result["answer"]


def test_code_after_a_is_a_command_where_the_line_calls_it_one(ctx):
    """"a `spoolctl` command" calls it a command: the article does not make it a value of a type."""
    result = run_query(ctx, "Which command flushes the inks?")
    assert result["status"] == "GROUNDED" and result["answers"][0] == "spoolctl", result["answer"]


def test_code_called_with_brackets_is_no_variable(ctx):
    """"proc.out.hasInk(2, …)" calls a function, though the line speaks of the environment and support."""
    result = run_query(ctx, "Which environment variable pretends to support 8 inks?")
    assert not (result["status"] == "GROUNDED" and "hasInk" in result["answers"][0]), result["answer"]

