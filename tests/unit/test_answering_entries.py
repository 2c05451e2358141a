"""Code a line names and what it names it as: entries and their aliases, dotfiles, names joined by underscores, clauses.

Every sentence here is made up for the rule it tests.
"""

from karaka.answering.clauses import other_clause
from karaka.answering.languages import denies
from karaka.answering.line import Line, line_words
from karaka.answering.question import Term, analyse, code_tokens
from karaka.answering.reader import read
from karaka.answering.shapes import called, code_shape, fits_shape
from karaka.answering.spans import spans
from karaka.nlp import parse
from karaka.nlp.questions import question_step


def _read(question: str, text: str, section: str = "") -> dict[str, str]:
    """{candidate: why not proved} for one English line under ``section`` (its headings joined by " › ")."""
    doc = parse(text)
    heading = section.split(" › ")[-1]
    line = Line("doc_L2", text, doc, line_words(text, doc, section, heading=heading), 0, kind="", section=section)
    return {c.text: c.evidence.why_not for c in read(None, analyse(question), None, [line])}  # type: ignore[arg-type]


def _entry(question: str, text: str, intro: str, section: str) -> dict[str, str]:
    """{candidate: why not proved} for an entry of a list that ``intro`` opens."""
    doc = parse(text)
    words = line_words(text, doc, section, intro=intro, heading=section.split(" › ")[-1])
    line = Line("doc_L2", text, doc, words, 0, kind="", section=section)
    return {c.text: c.evidence.why_not for c in read(None, analyse(question), None, [line])}  # type: ignore[arg-type]


def _clauses(question: str, text: str) -> dict[str, str]:
    asked, doc = analyse(question), parse(text)
    words = line_words(text, doc, "")
    return {s.text: other_clause(asked, s, words, doc) for s in spans(asked, text, doc)}


LINE = "The -Q flag to frobc tells it to print the queue, and the -W flag tells it where to write the log."


def test_a_span_answers_only_with_the_question_s_words_in_its_own_clause():
    first = _clauses("Which flag tells frobc to print the queue?", LINE)
    assert first["-Q"] == "" and "another clause" in first["-W"]
    second = _clauses("Which frobc flag tells it where to write the log?", LINE)
    assert second["-W"] == "" and "another clause" in second["-Q"]  # "it" may stand for frobc; nothing for "write"


def test_the_reader_proves_the_span_of_the_clause_that_holds_the_question_s_action():
    text = "The -Q flag to frobc tells it to print the log, and the -W flag tells it where to write them."
    found = _read("Which frobc flag tells it where to write the log?", text)
    assert found["-W"] == "" and "another clause" in found["-Q"]  # though "frobc" and "log" stand beside -Q


def test_a_line_of_one_clause_or_of_two_sentences_has_no_other_clause():
    assert _clauses("Which flag prints the queue?", "The -Q flag prints the queue and exits.")["-Q"] == ""
    assert set(_clauses("What does exit status 3 mean?", "3 The spool is locked.").values()) == {""}
    said_once = _clauses("Which program lists the spools with their owners?",
                         "The frobls program lists the spools, and the tool also shows their owners.")
    assert said_once["frobls"] == ""  # the action said once: the question's other words may stand in the next clause


def test_the_noun_which_opens_is_what_is_asked_even_with_a_name_before_it():
    step = question_step("Which gcc flag tells it where to write the log?")  # "which" read as gcc's
    assert step is not None and step["extract"] == "KARTA" and "KARTA" not in step["karakas"]


def test_a_wh_word_the_parse_makes_an_object_opens_no_noun_phrase():
    """The parse hangs "What" on "part" as its object: "does" between them says it opens no phrase."""
    step = question_step("What does the host part of an address give?")
    assert step is not None and step["karakas"].get("KARTA") == "the host part of an address"


def test_a_role_cut_inside_a_name_with_a_leading_underscore_is_the_whole_name():
    from karaka.answering.roles import _whole_code

    text = "When built for Frob, OPEN(Spool) becomes _FrobOpenSpool."
    assert code_tokens(text)[-1] == "_FrobOpenSpool" and "_all_" not in code_tokens("loads _all_ files")
    assert _whole_code(text, "FrobOpenSpool") == "_FrobOpenSpool" and _whole_code(text, "Frob") == "Frob"


def test_what_a_file_is_called_is_the_dotfile_the_line_calls_a_file():
    found = _read("What is the frobc state file called?", "The state is kept in the spool root in a file called .frobstate.")
    assert found[".frobstate"] == ""
    assert found["the spool root"] != ""  # never called a file


def test_a_dotfile_is_one_token_shaped_as_a_path():
    assert code_tokens("Keep it in .frobrc. Wait... and see .frob.d later") == [".frobrc", ".frob.d"]
    assert code_tokens("komprimiert .xz-Dateien") == []  # a German compound, no file
    assert code_shape(".frobrc") == "path"
    assert not fits_shape("flag", "path", ".frobx") and not fits_shape("variable", "path", ".frobx")  # a file, not
    # a dotted option ("fetch.depth")


def test_the_question_s_verb_inside_a_name_joined_by_underscores_is_not_the_line_s():
    found = _read("Which file is required by frobd?", "frobd reads frob.conf and frob_required_list.")
    assert found.get("frob.conf") != ""  # "required" is a piece of a name, not said of frob.conf


def test_a_name_joined_by_underscores_that_the_tagger_read_as_a_verb_is_found_whole():
    from karaka.answering.line import named_inside
    from karaka.answering.question import Term
    from karaka.answering.span import Span

    doc = parse("If FROB_SPOOL_BYTES is not defined, frobd returns NULL.")
    span = Span("NULL", "term", 48, 52, 10, 10)
    assert not named_inside(Term("frob_spool_bytes", True, "FROB_SPOOL_BYTES", "verb"), doc, 1, span)
    assert named_inside(Term("spool", True, "spool", "verb"), doc, 1, span)  # a piece of the name is no verb


def test_a_line_that_calls_one_token_the_noun_asked_proves_no_other():
    found = _read("Which variable sets the spool level?",
                  "Your frob.conf may declare a variable named frob_spool_level that sets the spool level.")
    assert found["frob_spool_level"] == "" and found["frob.conf"].startswith("the line calls 'frob_spool_level'")


def test_code_the_line_calls_another_kind_of_thing_is_not_the_kind_asked():
    found = _read("Which function frees the spool?", "Each daemon should have a new file called frobfree.c that frees the spool.")
    assert found["frobfree.c"].startswith("the line calls 'frobfree.c' a file")
    assert _read("Which function frees the spool?", "The `frob_free()` method frees the spool.")["frob_free"] == ""


def test_whom_a_line_thanks_for_doing_something_did_it():
    line = "Thanks to Ada Quist for porting frobc to Windows."
    assert _read("Who ported frobc to Windows?", line)["Ada Quist"] == ""
    assert _read("Who tested frobc on Windows?", line).get("Ada Quist") != ""  # thanked for another action


def test_an_answer_whose_line_lacks_a_word_another_answer_s_line_holds_gives_way():
    asked, lines = analyse("Which file holds the secure spool settings?"), []
    for i, text in enumerate(["frob.conf holds the spool settings.", "frob.vault holds the secure spool settings."]):
        doc = parse(text)
        lines.append(Line(f"doc_L{i + 1}", text, doc, line_words(text, doc, ""), i))
    found = {c.text: c.evidence.why_not for c in read(None, asked, None, lines)}  # type: ignore[arg-type]
    assert found["frob.vault"] == "" and "holds more of the question (secur)" in found["frob.conf"]
    for line in lines:  # in a document named for it, "secure" tells no line of it from another
        line.words = line_words(line.text, line.doc, "", document="secure spool notes")
    assert "holds more" not in read(None, asked, None, lines)[-1].evidence.why_not  # type: ignore[arg-type]


def test_an_option_a_description_names_in_passing_is_not_the_option_it_describes():
    text = "This option can be used only with -V and prints the version briefly."
    found = _read("Which option prints the version briefly?", text, "OPTIONS › -b, --brief")
    assert found["-b, --brief"] == "" and "in passing" in found["-V"]
    asked_of_it = _read("Which option must -b be used with?", text, "OPTIONS › -b, --brief")
    assert "in passing" not in asked_of_it["-V"]  # the question names the entry: its description answers of it


def test_a_short_option_and_its_long_form_are_one_answer():
    found = _read("Which option unfreezes the queue?", "Unfreeze the queue of the named spool.", "OPTIONS › -u, --unfreeze")
    assert found["-u, --unfreeze"] == "" and found["--unfreeze"].startswith("one of")


def test_the_key_of_an_entry_is_the_answer_not_the_key_glued_to_its_description():
    intro = "The frobd command exits with the following values:"
    found = _entry("Which exit value of frobd means permission denied?", "1 permission denied", intro, "EXIT VALUES › 1")
    assert found == {"1": ""}  # never "1 permission", a count of permissions
    found = _entry("Which exit value of frobd means permission denied?", "0 all done", intro, "EXIT VALUES › 0")
    assert found["0"] != ""


def test_a_question_that_asks_what_is_not_done_needs_a_line_that_denies():
    assert denies("Was kann nicht zerteilt werden?") and denies("It won't run.") and not denies("Notes on nothing")
    found = _read("Welche Option kann nicht zerteilt werden?", "-k: zerteilt die Archive.")
    assert found["-k"].startswith("the question asks what is not done")


def test_a_plain_word_before_the_noun_asked_describes_it_and_is_not_called_so():
    """"lpq and similar programs" calls nothing "similar"; "the spoolq program" calls spoolq a program."""
    asked = analyse("Which program prints the spool report?")
    line = "The spool report is printed by lpq and similar programs, or by the spoolq program."
    assert not called(asked, line, line.index("similar"), line.index("similar") + len("similar"))
    assert called(asked, line, line.index("spoolq"), line.index("spoolq") + len("spoolq"))


def test_a_question_word_is_found_as_written_when_its_parse_read_it_as_another_word():
    """A question's "med" the parser lemmatised as "me" is still the "med" of "When `med`, four passes run."."""
    text = "When `med`, four passes run."
    assert line_words(text, parse(text), "").find(Term("me", False, "med", "word"))


def test_what_can_be_used_to_do_two_things_answers_either():
    """"can be used to build and pack" joins the packing to the using: frob wheel does it, not another action."""
    found = _read("Which command can pack all of a crate's parts into one folder?",
                  "`frob wheel` can be used to build and pack all of a crate's parts into one folder.")
    assert found["frob wheel"] == ""


def test_a_short_unknown_word_the_tagger_took_for_a_particle_is_the_question_s_subject():
    """"sq" between "does" and the verb is a program's name, whatever its tag."""
    assert "sq" in [t.text for t in analyse("Which command does sq work like?").terms]


def test_a_quoted_number_is_a_value_not_the_name_asked_for():
    found = _read("Which environment variable makes frob run until the first stop?",
                  "To instead run until the first stop (given by a `halt` statement), set the `FROB_RESUME` environment "
                  "variable to `1`.")
    assert "FROB_RESUME" in found and "1" not in found


def test_a_command_typed_at_a_prompt_goes_on_from_no_sentence():
    """"$ cat frobscript.js" is no elliptic sentence like "The default is 3000.": the line before does not introduce it."""
    previous = "To skip the spool, set the FROB_SKIP variable to 1."
    assert line_words("$ cat frobscript.js", parse("$ cat frobscript.js"), "", previous=previous).intro_text == ""
    assert line_words("The default is 3000.", parse("The default is 3000."), "", previous=previous).intro_text


def test_a_capitalised_name_the_line_calls_by_the_noun_asked_is_a_candidate():
    """"the Frobentry package" names a package, though "Frobentry" has no shape of code."""
    found = _read("Which package is needed for most spool functions?",
                  "You also need the Frobentry package for most spool functions; however it is not a build requirement.")
    assert found.get("Frobentry") == ""
