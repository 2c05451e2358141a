"""A made-up library reference read offline: type names, calls the question writes, options with values, and doers
of other actions."""

import pytest

from karaka.app.runner import run_ingest, run_query
from karaka.config import Context
from tests.fakes import grounded, parsed_workspace, text_pdf

REFERENCE = (
    "# Kettle",
    "",
    "## `kettle.pour(cup)`",
    "",
    "Pours a `Brew` object made by `kettle.brew()`.",
    "",
    "* `vessel` {Cup} A `Cup` object as returned by `kettle.fetchCup()`.",
    "",
    "Pours a `Cup` object filled by `kettle.fill()`.",
    "",
    "Empties a `Pot` object made by `kettle.make()`.",
    "",
    "To let users pick a kettle easily, the package provides the `brewd` program, which reads the per-user "
    "configuration file and starts the right heater.",
    "",

    "If `cup` is not a `Cup`, a `SpillError` will be thrown. Non-ASCII labels are rewritten as ASCII.",
    "",
    "Calling `brewery.kettle.steep()` is equivalent to calling `brewery.kettle.pour()` with no arguments.",
    "## `kettle.fill(jug)`",
    "",
    "* `jug` {Jug} A jug of water drawn from the village well.",
    "",
    "## `kettle.info([data])`",
    "",
    "The `kettle.info()` function is an alias for `kettle.log()`.",
    "",
    "## `kettle.tailOf(path[, suffix])`",
    "",
    "The `kettle.tailOf()` method returns the last portion of a `path`.",
    "",
    "Brewd is a kettle tool for descaling pots in hard-water towns.",
    "",
    "The guild keeps strict rules for settling disputes to protect its smiths.",
    "",
    "Teabot is generally 3x as fast as Kettlebot. Teabot includes two APIs for brewing.",
    "",
)

DRAINS = (  # one entry of an API reference: a parameter, then what the call does
    "# Drains",
    "",
    "### `clearDrain(drain)`",
    "",
    "* `drain` {Drain} A `Drain` object as returned by `openDrain()`.",
    "",
    "Closes a `Drain` object created by `openDrain()`.",
    "",
    "## Seals",
    "",
    "A `Seal` object as returned by `openSeal()`.",
    "Breaks the `Seal` object.",
)

OPTIONS = (  # plain text, as a manual's option list reads
    "The brewing manual",
    "",
    "KETTLE OPTIONS",
    "",
    "-K<dir> --kettle-dir=<dir> [default: none]",
    "       Adds a directory to the list in which to search for kettles.",
    "",
    "--temperature=N [default: 90]",
    "       Sets how hot the water gets, in degrees.",
    "",
    "-C<size> --cap-size=<size>",
    "       Sets the size of a cap. Multiple -C/--cap-size options can be given to fit several lids.",
)


@pytest.fixture(scope="module")
def ctx(tmp_path_factory):
    return parsed_workspace(tmp_path_factory.mktemp("kettle"), {"kettle.md": REFERENCE, "options.txt": OPTIONS,
                                                                     "drains.md": DRAINS})


def test_a_type_named_after_its_kind_is_of_that_kind(ctx):
    """``SpillError`` is an error: its name's last word says so, as "the spill error" would."""
    assert grounded(ctx, "Which error is thrown if the cup is not a Cup?")[0] == "SpillError"


def test_the_call_a_question_writes_is_its_own_words_however_qualified(ctx):
    """"kettle.steep()" in the question is the line's `brewery.kettle.steep()`: not what it is equivalent to."""
    result = run_query(ctx, "Calling kettle.steep() is equivalent to calling which function?")
    assert not any("steep" in a for a in result["answers"][:1]), result["answer"]


def test_a_short_option_with_its_value_and_its_long_form_are_one_answer(ctx):
    """"-K<dir> --kettle-dir=<dir>" is one option, not two the line gives alike."""
    assert grounded(ctx, "Which option adds a directory to search for kettles?")[0].startswith("-K, --kettle-dir")


def test_a_long_option_after_a_slash_is_read_whole(ctx):
    """"-C/--cap-size" gives "--cap-size", never "-cap-size" (a flag does not start in the middle of "--")."""
    result = run_query(ctx, "Which option fits several lids?")
    assert all(not a.startswith("-cap") for a in result["answers"]), result["answer"]
    assert any("--cap-size" in a for a in result["answers"]), result["answer"]


def test_the_doer_of_a_clause_describing_the_object_does_not_do_the_action(ctx):
    """In "Pours a `Brew` object made by `kettle.brew()`", kettle.brew makes the brew; it pours nothing."""
    result = run_query(ctx, "Which function pours a Brew object?")
    assert not (result["status"] == "GROUNDED" and result["answers"][0] == "kettle.brew"), result["answer"]


def test_a_relative_clause_on_the_span_s_own_noun_says_what_it_does(ctx):
    """"provides the `brewd` program, which reads the … file": brewd is provided, and it is what reads."""
    assert grounded(ctx, "Which program reads the per-user configuration file?")[0] == "brewd"


def test_the_agent_of_another_verb_in_a_line_without_the_action_does_not_do_it(ctx):
    """"A `Seal` object as returned by `openSeal()`" says what returns the seal; it says nothing of breaking
    (the line after it does)."""
    result = run_query(ctx, "Which function breaks a Seal object?")
    assert not (result["status"] == "GROUNDED" and result["answers"][0] == "openSeal"), result["answer"]


def test_the_entry_a_description_stands_under_answers_which_function(ctx):
    """`clearDrain(drain)` heads the lines that say what it does; openDrain only creates the drain."""
    assert grounded(ctx, "Which function closes a Drain object?")[0].startswith("clearDrain")


def test_a_description_s_opening_verb_is_its_action_whatever_its_tag(ctx):
    """"Empties a `Pot` object made by `kettle.make()`": the tagger reads "Empties" as a noun; it is still the
    action the line describes, and kettle.make, which makes the pot, empties nothing."""
    result = run_query(ctx, "Which function empties a Pot object?")
    assert not (result["status"] == "GROUNDED" and result["answers"][0] == "kettle.make"), result["answer"]


def test_what_happens_to_a_thing_may_reuse_its_words(ctx):
    """"Non-ASCII labels are rewritten as ASCII": what happens to them says "ASCII" again, and answers."""
    assert grounded(ctx, "What happens to non-ASCII labels?")[0] == "rewritten as ASCII"


def test_a_line_naming_the_thing_whose_default_is_asked_answers_under_its_program_s_heading(ctx):
    """"--temperature=N [default: 90]" under "KETTLE OPTIONS": the heading names the program, the line the rest."""
    assert grounded(ctx, "What is the default temperature of kettle?")[0] == "90"


def test_a_printed_reference_s_signature_lines_head_the_lines_under_them(tmp_path):
    """A page printed to PDF keeps "kettle.steep(pot)" only as a line: the lines under it are its entry."""
    rows = [(72, 700, "kettle.pour(cup[, ...sugar])"), (72, 680, "Fills one cup with hot water."),
            (72, 660, "kettle.steep(pot)"), (72, 640, "Waits until the tea in the pot is strong."),
            (72, 620, "kettle.info([data][, ...args])"),
            (72, 600, "The `kettle.info()` function is an alias for `kettle.log()`."),
            (72, 580, "kettle.tailOf(path[, suffix])"),
            (72, 560, "The `kettle.tailOf()` method returns the last portion of a `path`.")]
    (tmp_path / "docs").mkdir()
    (tmp_path / "docs" / "printed.pdf").write_bytes(text_pdf([rows], fixed=True))
    ctx = Context(workspace=str(tmp_path / "ws"), llm="none", extractor="parser")
    run_ingest(ctx, tmp_path / "docs")
    assert grounded(ctx, "Which function waits until the tea is strong?")[0].startswith("kettle.steep")
    assert grounded(ctx, "Which function is kettle.info() an alias for?")[0] == "kettle.log"  # the entry is asked of
    assert grounded(ctx, "Which method returns the last portion of a path?")[0].startswith("kettle.tailOf")


def test_a_call_the_question_names_is_its_own_even_where_the_line_calls_it_by_the_noun_asked(ctx):
    """"The `kettle.info()` function is an alias for `kettle.log()`": kettle.info is the one asked of."""
    assert grounded(ctx, "Which function is kettle.info() an alias for?")[0] == "kettle.log"


def test_an_entry_s_function_called_by_name_is_the_entry(ctx):
    """Under `kettle.tailOf(path[, suffix])`, "The `kettle.tailOf()` method returns …" names the entry itself: the
    line that says it answers, in its words."""
    assert grounded(ctx, "Which method returns the last portion of a path?")[0] == "kettle.tailOf"


def test_what_a_thing_is_for_is_its_purpose(ctx):
    """"What is Brewd a kettle tool for?" asks a purpose: "for descaling pots …", not what Brewd is."""
    assert grounded(ctx, "What is Brewd a kettle tool for?")[0].startswith("for descaling pots")


def test_how_much_more_is_no_count_of_things(ctx):
    """"How much faster …?" asks a degree: "two APIs" counts APIs."""
    result = run_query(ctx, "How much faster than Kettlebot is Teabot?")
    assert "two APIs" not in result["answers"][:1], result["answer"]



def test_a_parameter_s_line_says_what_the_parameter_is_not_what_its_function_does(ctx):
    """"* `jug` {Jug} A jug of water drawn from the village well" under `kettle.fill(jug)` draws no water."""
    result = run_query(ctx, "Which function draws water from the village well?")
    assert not (result["status"] == "GROUNDED" and result["answers"][0].startswith("kettle.fill")), result["answer"]


def test_for_doing_answers_what_a_thing_is_for_not_why(ctx):
    """"rules for settling disputes" says what the rules are for; why the guild keeps them is "to protect …"."""
    result = run_query(ctx, "Why does the guild keep strict rules?")
    assert not result["answers"] or not result["answers"][0].startswith("for settling"), result["answer"]

