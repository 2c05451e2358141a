"""The offline reader's answer kinds, typed spans and refusal rule, on small examples."""

from karaka.kg import short
from karaka.nlp import parse_many


def test_the_question_says_what_kind_of_answer_it_wants():
    cases = {"How many Developers can the committee have at most?": short.QUANTITY,
             "When was version 1.9 ratified?": short.DATE, "In what year was X11 released?": short.DATE,
             "Who wrote the manual?": short.NAME, "Which X server command-line option restores the weave?": short.CODE,
             "What is logrotate's default state file?": short.CODE, "Why does dot reverse edges?": short.REASON,
             "How do you make dot lay out a graph from left to right?": short.MANNER,
             "Which version added Python 3.10 support?": short.VERSION, "Where did Hanuman find Sita?": short.PLACE,
             "What speech coding technique was chosen?": short.TERM}
    assert {q: short.expected_kind(q) for q in cases} == cases


def pick(question, lines):
    ranked, support, confidence, why = short.choose(question, lines, parse_many(lines), {})
    return (ranked[0].text if ranked else None), confidence


def test_typed_spans_are_read_from_the_lines():
    assert pick("How long is the algorithmic delay of Speex in wideband operation?",
                ["The algorithmic delay of Speex in wideband operation is 34 ms."])[0] == "34 ms"
    assert pick("When was python-dotenv 1.0.0 released?", ["python-dotenv 1.0.0 was released on 2023-02-24."])[0] \
        == "2023-02-24"
    assert pick("What is logrotate's default state file?",
                ["The default state file of logrotate is /var/lib/logrotate/status."])[0] == "/var/lib/logrotate/status"
    assert pick("Who are the authors of logrotate?", ["The authors of logrotate are Erik Troan, Preston Brown "
                                                     "and Jan Kaluza."])[0] == "Erik Troan, Preston Brown and Jan Kaluza"
    assert pick("How many Developers can the Technical Committee have at most?",
                ["The Technical Committee consists of up to 8 Developers, and should have at least 4 members."])[0] \
        == "8 Developers"  # the number that counts what was asked, though the question names its unit
    assert pick("Roughly how much slower is tabulate than joining lists?",
                ["Tabulate is two orders of magnitude slower than joining lists."])[0] == "two orders of magnitude"


def test_a_line_that_misses_the_question_answers_nothing():
    text, confidence = pick("Which colour did the volunteers wear at the parade?",
                            ["Inspector Andy Freeburn praised the volunteers."])
    assert confidence < short.THRESHOLD
    # a version the documents never mention is never answered from a line about another version
    ranked, _, confidence, why = short.choose("When was python-dotenv 1.1.0 released?",
                                              ["python-dotenv 1.0.0 was released on 2023-02-24."],
                                              parse_many(["x"]), {}, corpus_has=lambda word: word != "1.1.0")
    assert ranked == [] and confidence == 0.0 and "1.1.0" in why


def test_questions_in_french_and_german_ask_for_their_kind_and_are_read_without_the_parser():
    assert short.expected_kind("Qui détient le copyright de 1992 ?") == short.NAME
    assert short.expected_kind("Quel taux de compression gzip obtient-il ?") == short.QUANTITY
    assert short.expected_kind("Wann wurde die Datei geändert?") == short.DATE
    line = "Habituellement, des fichiers texte seront compressés à hauteur de 60-70 %."
    ranked, *_ = short.choose("Quel taux de compression obtient-on sur des fichiers texte ?", [line],
                              parse_many([""]), {})
    assert ranked[0].text == "60-70 %"
    ranked, *_ = short.choose("Qui détient le copyright de 1992 ?", ["Copyright © 1992, 1993 Jean-loup Gailly"],
                              parse_many([""]), {})
    assert ranked[0].text == "Jean-loup Gailly"


def test_a_changelog_entry_is_dated_by_its_heading():
    lines = ["Add support for Python 3.10. (#359)"]
    ranked, *_ = short.choose("On what date was the release that added support for Python 3.10 published?", lines,
                              parse_many(lines), {}, contexts=["0.19.1 - 2021-08-09 CHANGELOG"])
    assert ranked[0].text == "2021-08-09" and "heading" in ranked[0].notes


def test_who_is_the_role_holder_wants_a_person():
    lines = ["The Delegates are appointed by the Project Leader and may be replaced by the Leader."]
    ranked, *_ = short.choose("Who is the current Project Leader?", lines, parse_many(lines), {0: ["The Delegates"]})
    assert ranked == []
    lines = ["The current Project Leader is Andreas Tille, elected in April."]
    assert pick("Who is the current Project Leader?", lines)[0] == "Andreas Tille"


def test_a_graph_answer_of_the_wrong_kind_is_no_quantity():
    lines = ["Rama gave the bow to Lakshmana."]
    ranked, _, _, _ = short.choose("How old is Lakshmana?", lines, parse_many(lines), {0: ["the bow"]})
    assert all(c.text != "the bow" for c in ranked)
    ranked, _, _, _ = short.choose("What did Rama give?", lines, parse_many(lines), {0: ["the bow"]})
    assert ranked[0].text == "the bow"


def test_the_noun_asked_about_comes_with_its_number():
    lines = ["The format is specified in GZIP file format specification version 4.3,",
             "<https://www.ietf.org/rfc/rfc1952.txt>, RFC Internet 1952 (May 1996)."]
    ranked, _, _, _ = short.choose("In which RFC is the gzip file format specified?", lines, parse_many(lines), {},
                                   follows={1: 0})
    assert ranked[0].text == "RFC Internet 1952"


def test_a_question_that_names_a_document_prefers_lines_about_it():
    named = short.named_lines("Who are the authors of logrotate according to its manual page?",
                              ["logrotate.8", "speex-manual", "notes"],
                              ["AUTHORS", "List on the Title Page, as authors, the manual", "logrotate was written"])
    assert named == [True, False, True]
    assert short.named_lines("Who wrote it?", ["logrotate.8"], ["AUTHORS"]) == [False]


def test_words_match_across_their_forms():
    assert short.words("stopped mapping") == short.words("stop map") == ["stop", "map"]


def test_an_answer_must_state_the_kind_asked_for_beyond_the_question():
    def states(question, answer):
        return short.states_kind(question, answer, parse_many([answer])[0])

    assert not states("Who is the current Debian Project Leader?",
                      "The current Debian Project Leader is the one appointed by the Project Leader.")
    assert states("Who wrote logrotate?", "Erik Troan wrote it.")
    assert not states("Who is the current Debian Project Leader?",
                      "The current Debian Project Leader is appointed by the current Project Secretary.")
    assert states("Who is the current Debian Project Leader?", "The current leader is Andreas Tille.")
    assert states("How long is the term of office?", "The term of office is one year.")
    assert not states("Why did Rama give the bow?", "Rama gave the bow.")
    assert states("Why did Rama give the bow?", "Rama gave the bow to kill Ravana.")


def test_a_bare_noun_phrase_tells_no_manner():
    line = "The Xorg server has previously allowed users to exit the server by pressing the keys."
    doc = parse_many([line])[0]
    assert [c.text for c in short.candidates(short.MANNER, line, doc, 0)] == []
    assert short.candidates(short.TERM, line, doc, 0)  # a term may still be one


def test_the_name_of_the_thing_asked_for_is_not_its_value():
    question = "What output format does the markdown function produce by default?"
    lines = ["The output_format setting gives the format of output.", 'The default output format is "xhtml".']
    text, _ = pick(question, lines)
    assert text == "xhtml"  # not "output_format", the question's own words joined
    assert pick(question, lines[:1])[0] != "output_format"


def test_a_noun_phrase_from_a_line_that_never_names_what_is_asked_for_is_not_an_answer():
    question = "Which compression algorithm does the rotation tool use by default?"
    text, confidence = pick(question, ["It allows automatic rotation, compression, removal, and mailing of log files."])
    assert confidence < short.THRESHOLD
    text, confidence = pick(question, ["The rotation tool uses the Lempel-Ziv algorithm for compression by default."])
    assert "Lempel-Ziv" in str(text) and confidence >= short.THRESHOLD


def test_a_question_about_one_thing_gets_one_answer_and_a_plural_one_may_get_several():
    assert not short.asks_many("Which compression algorithm is used by gzip?")
    assert short.asks_many("Which options are deprecated?") and short.asks_many("What did Rama give?")


def test_how_long_is_not_answered_by_a_quantity_of_another_measure():
    line = "In narrowband operation (8 kHz), the delay is 30 ms, while for wideband (16 kHz), the delay is 34 ms."
    assert pick("How long is the delay in wideband (16 kHz) operation?", [line])[0] == "34 ms"  # its clause, not the first
    assert short._wrong_unit("How long is the delay?", "8 kHz") and not short._wrong_unit("How long is it?", "34 ms")
    assert not short._wrong_unit("How many kHz does it sample at?", "8 kHz")


def test_a_list_under_the_heading_the_question_names_answers_it():
    question = "Who are the maintainers of quux according to its manual page?"
    lines = ["Ada Lovelace, Alan Turing.", "Linux 3.21.0 QUUX(1)"]
    args = (question, lines, parse_many(lines), {}, None, ["MAINTAINERS quux", "quux"], None, [True, True])
    ranked, _, confidence, _ = short.choose(*args, headings=["MAINTAINERS", ""])
    assert ranked[0].text == "Ada Lovelace, Alan Turing" and confidence >= short.THRESHOLD
    assert all(c.text != "Linux 3.21.0" for c in ranked)  # a footer with a version names no one
    _, _, unheaded, _ = short.choose(*args)
    assert unheaded < confidence  # the heading stands over the whole line: its names are near the asked words
