"""A made-up tool's manual read offline: two clauses of one line, lists that an earlier line introduces, entries."""

import pytest

from karaka.app.runner import run_query
from tests.fakes import grounded, parsed_workspace

MANUAL = (
    "# Frobc",
    "",
    "Frobc is a small queue runner.",
    "",
    "## Flags",
    "",
    "The -Q flag to frobc tells it to print the queue, and the -W flag tells it where to write the log.",
    "",
    "The -A flag to frobd tells it to show the spool, and the -B flag tells it where to keep them.",
    "",
    "The -M flag to gcc tells it to list the headers, and the -N flag tells it where to put them.",
    "",
    "The state is kept in the spool root in a file called .frobstate.",
    "",
    "## Units",
    "",
    'By default, Frobc uses "steps executed" as the unit of time.',
    "",
    "## Notes",
    "",
    "Frobc keeps no history.",
    "",
    "If nobody answers within a week, or if you cannot find a maintainer, you may escalate to the Frobnic Foundation CNA at `frob@example.org`.",
    "",
    "## Bytes",
    "",
    "The --tick-unit=B option makes frobc count bytes.",
)


PAGE = (  # a manual page as groff renders it: entries keyed by a number under a sentence that opens the list
    "FROBC(1)                     User Commands                     FROBC(1)",
    "",
    "NAME",
    "       frobc - run a small queue",
    "",
    "OPTIONS",
    "       -q, --quiet",
    "           Print nothing while the queue runs.",
    "",
    "EXIT VALUES",
    "       The frobc command exits with the following values:",
    "",
    "       0",
    "           all done",
    "",
    "       1",
    "           permission denied",
    "",
    "       2",
    "           spool missing",
    "",
    "frobc 1.0                        2024-01-01                    FROBC(1)",
)


@pytest.fixture(scope="module")
def ctx(tmp_path_factory):
    return parsed_workspace(tmp_path_factory.mktemp("frobc"), {"frobc.md": MANUAL, "frobc.1.txt": PAGE})


def test_each_clause_of_a_line_answers_for_its_own_subject(ctx):
    """"-W" stands in the line with every word of the first question, but in the other clause."""
    assert grounded(ctx, "Which flag tells frobc to print the queue?") == ["-Q"]
    assert grounded(ctx, "Which frobc flag tells it where to write the log?") == ["-W"]
    assert grounded(ctx, "Which frobd flag tells it where to keep the spool?") == ["-B"]  # "frobd", "spool" by -A


def test_a_role_that_only_mentions_the_thing_asked_of_is_not_the_question_s_own(ctx):
    """"The -M flag to gcc" names gcc, but is a flag: the doer of "tells", not the "gcc" the question names."""
    assert grounded(ctx, "Which flag tells gcc to list the headers?") == ["-M"]


def test_what_a_thing_is_called_is_the_name_after_called(ctx):
    assert grounded(ctx, "What is the frobc state file called?") == [".frobstate"]


def test_a_sentence_that_opens_a_list_introduces_every_entry(ctx):
    """"The frobc command exits with the following values:" says what "1" under its list is, not only "0"."""
    assert grounded(ctx, "Which exit value of frobc means permission denied?") == ["1"]
    result = run_query(ctx, "Which exit value of frobc means the disk is full?")
    assert result["status"] != "GROUNDED", result


def test_a_role_that_holds_the_question_s_words_proves_nothing_of_a_name_the_line_lacks(ctx):
    """The line says what Frobc uses by default; it never names --tick-unit=B."""
    result = run_query(ctx, "What does --tick-unit=B use as the unit of time?")
    assert result["status"] != "GROUNDED", result


def test_an_option_and_its_long_form_answer_together_cited_from_their_entry(ctx):
    result = run_query(ctx, "Which option prints nothing while the queue runs?")
    assert result["status"] == "GROUNDED" and result["answers"] == ["-q, --quiet"], result
    assert "-q" in result["citations"][0]["text"]  # the entry's own line first, then its description


def test_a_name_of_several_words_after_to_the_answers_to_whom(ctx):
    result = run_query(ctx, "To whom may you escalate if nobody answers within a week?")
    assert result["status"] == "GROUNDED" and "Frobnic Foundation CNA" in result["answers"][0], result

