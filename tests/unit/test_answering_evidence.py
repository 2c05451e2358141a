"""When a line proves a span answers a question, and when it only offers a candidate; made-up lines."""

from karaka.answering.evidence import weigh
from karaka.answering.line import Line, entry_of, line_words
from karaka.answering.naming import focus_near
from karaka.answering.other import does_another
from karaka.answering.question import Term, analyse
from karaka.answering.reader import document_name, read
from karaka.answering.roles import _role_fits
from karaka.answering.span import Span, span_tokens
from karaka.answering.spans import quantities, spans
from karaka.answering.stems import key
from karaka.nlp import parse


def proved(question, text, context="", previous="", following="", intro="", heading=""):
    """{span: why not proved} for the spans of one line (an English line is parsed)."""
    asked = analyse(question)
    doc = parse(text)
    words = line_words(text, doc, context, previous, following, intro, heading=heading)
    return {s.text: weigh(asked, s, words, doc).why_not for s in spans(asked, text, doc)}


def each(question, text, previous=""):
    """{candidate: why not proved} for one English line (its sentence before it: ``previous``)."""
    asked = analyse(question)
    doc = parse(text)
    line = Line("doc_L1", text, doc, line_words(text, doc, "", previous), 0, "", "")
    return {c.text: c.evidence.why_not for c in read(None, asked, None, [line])}  # type: ignore[arg-type]


def built(words, heads, deps, tags=None, pos=None):
    """A parse as the tagger once read a line (a reading this model version may no longer give)."""
    from spacy.tokens import Doc

    from karaka.nlp import nlp

    return Doc(nlp().vocab, words=words, heads=heads, deps=deps, tags=tags, pos=pos)


def best(question, *texts, intro="", kind=""):
    """The best candidate the lines give (read as the pool would read them), and why it is not proved."""
    asked = analyse(question)
    lines = []
    for rank, text in enumerate(texts):
        doc = parse(text) if kind != "code" else None
        lines.append(Line(f"doc_L{rank + 1}", text, doc, line_words(text, doc, "", intro=intro), rank,
                          intro="doc_L0" if intro else "", kind=kind))
    found = read(None, asked, None, lines)  # type: ignore[arg-type]  # no graph: typed spans only
    return (found[0].text, found[0].evidence.why_not) if found else (None, "")


def test_a_quantity_is_proved_by_a_line_that_holds_the_question():
    why = proved("How many beds does the north ward hold?", "The north ward holds 24 beds and two cots.")
    assert why["24 beds"] == ""


def test_a_number_of_another_thing_or_unit_is_no_answer():
    why = proved("How many beds does the north ward hold?", "The north ward holds 24 beds and two cots.")
    assert "counts" in why["two cots"]
    why = proved("How many metres is one yard?", "1 yard is equal to 0.9144 metres.")
    assert why["0.9144 metres"] == "" and why["1 yard"] != ""
    why = proved("How long does the kiln stay hot?", "The kiln runs at 1200 degrees and stays hot for 9 hours.")
    assert why["9 hours"] == ""


def test_how_long_an_action_lasts_is_a_time_and_how_long_a_thing_is_may_be_a_size():
    why = proved("How long does the upload take?", "The upload takes 4 seconds and sends 512 bytes.")
    assert why["4 seconds"] == "" and "measures no time" in why["512 bytes"]
    why = proved("How long is the upload header?", "The upload header is 64 bytes.")
    assert why["64 bytes"] == ""


def test_a_count_of_things_is_no_physical_measure_but_may_be_a_limit():
    why = proved("What was the top speed of the ferry Maren?", "The ferry Maren carried 14 passengers at 9 knots.")
    assert "counts passengers" in why["14 passengers"]  # 14 passengers is no speed
    why = proved("What is the passenger limit of the ferry Maren?", "The ferry Maren may carry up to 14 passengers.")
    assert "counts" not in why.get("14 passengers", "counts")  # a limit may count anything
    why = proved("What is the length of the ferry Maren?", "The ferry Maren is 40 metres long.")
    assert "counts" not in why["40 metres"]


def test_a_line_that_lacks_a_word_of_the_question_proves_nothing():
    why = proved("How many beds does the south ward hold?", "The north ward holds 24 beds.")
    assert "north ward" in why["24 beds"]


def test_the_default_is_the_value_said_to_be_the_default_not_the_name_of_the_setting():
    question = "What is the default timeout of the uploader?"
    why = proved(question, "The uploader's --timeout option defaults to 30 seconds.")
    assert why.get("30 seconds") == "" or why.get("30") == ""
    assert "--timeout" not in why or why["--timeout"] != ""
    why = proved(question, "The uploader stops after 30 seconds on a slow link.")
    assert all(reason for reason in why.values())  # a number, but not called the default


def test_a_value_given_with_what_overrides_it_is_the_default():
    why = proved("Which port does the tern daemon listen on by default?",
                 "The tern daemon listens on port 7070 unless TERN_PORT is set.")
    assert why["7070"] == "" and why["TERN_PORT"] != ""
    why = proved("Which option is on by default?", "The -q option hides the output unless --verbose is given.")
    assert why["-q"] != ""  # an option with a condition is no default value


def test_a_flag_answers_which_option_and_a_variable_answers_which_variable():
    text = "Set CACHE_HOME or pass --cache-dir to move the cache directory."
    assert proved("Which option moves the cache directory?", text).get("--cache-dir") == ""
    assert proved("Which environment variable moves the cache directory?", text).get("CACHE_HOME") == ""
    assert "--cache-dir" not in proved("Which environment variable moves the cache directory?", text)


def test_code_is_read_as_written_so_a_variable_named_like_its_program_answers():
    text = "Before it starts, frobz reads its options from the environment variable FROBZ."
    assert proved("Which environment variable does frobz read its options from?", text) == {"FROBZ": ""}
    said = text.replace("frobz", "FROBZ")  # the question names the very identifier: it is not the answer
    assert proved("Which environment variable does FROBZ read its options from?", said)["FROBZ"] != ""
    headed = "ENVIRONMENT  Set FROBZ_HOME to move the cache."  # a manual's heading is no variable's name
    assert proved("Which environment variable moves the cache?", headed) == \
        {"FROBZ_HOME": "", "ENVIRONMENT": "the question's own words"}


def test_the_question_s_own_words_are_never_its_answer():
    why = proved("When was the Harbour Bridge opened?", "The Harbour Bridge was opened in 1932.")
    assert why["in 1932"] == ""
    assert all(reason for text, reason in why.items() if "Harbour" in text)


def test_which_x_wants_a_span_the_line_calls_an_x():
    question = "Which glaze does the potter use for the blue bowls?"
    text = "For the blue bowls the potter uses celadon as the glaze, and fires them in a gas kiln."
    assert best(question, text) == ("celadon", "")
    text = "For the blue bowls the potter uses a gas kiln and a celadon glaze."
    found, why = best(question, text)
    assert found == "a celadon glaze" and why == ""
    found, why = best(question, "The potter uses clay from the river for the blue bowls.")
    assert why  # nothing there is called a glaze


def test_the_words_of_the_question_point_to_one_of_two_values_in_a_line():
    text = "On the short route the ride is 20 minutes, while on the coastal route, the ride is 45 minutes."
    assert best("How long is the ride on the coastal route?", text) == ("45 minutes", "")
    assert best("How long is the ride on the short route?", text) == ("20 minutes", "")


def test_a_list_of_names_is_one_answer():
    question = "Who are the authors of the parser?"
    found, why = best(question, "Mara Quist, Ivo Lang and Ben Ochs", intro="The parser was written by its authors:")
    assert found == "Mara Quist, Ivo Lang and Ben Ochs" and why == ""


def test_a_command_under_the_line_that_introduces_it_answers_how():
    found, why = best("How do you install the client on a server?", "apt install skiff-client",
                      intro="To install the client on a server, run:", kind="code")
    assert found == "apt install skiff-client" and why == ""


def test_what_an_option_does_is_the_rest_of_its_line():
    found, why = best("What does the --dry-run option of the packer do?",
                      "--dry-run  Print the files that would be packed, and pack nothing.")
    assert found == "Print the files that would be packed, and pack nothing" and why == ""


def test_a_bare_number_must_be_said_to_be_what_was_asked():
    found, why = best("What bit rate does the encoder use by default?", "Quality ranges from 0 to 10, default 8.")
    assert why  # 8 is a quality, not a bit rate


def test_a_bare_number_written_in_words_must_be_said_to_be_what_was_asked_too():
    found, why = best("How many cannons did the brig carry?", "The brig carried its cannons; the crew numbered eight.")
    assert found == "eight" and why  # eight is the crew, not the cannons


def test_a_measure_counts_no_things_but_a_multiplier_and_a_mass_may_take_units():
    why = proved("What is the maximum number of hosts?", "The maximum number of hosts is 50 and the maximum file size 64 GB.")
    assert why["50"] == "" and "counts" in why["64 GB"]
    assert proved("How many people live in Harnby?", "About 2 million people live in Harnby.")["2 million"] == ""
    assert proved("How much memory does the cache use?", "The cache uses 256K bytes of memory.")["256K bytes"] == ""


def test_a_version_may_end_its_sentence():
    assert best("Which version does the guide cover?", "This guide covers version 3.2.") == ("3.2", "")


def test_a_version_without_a_dot_and_a_version_of_another_product():
    text = "Tern requires Python 3 and SQLite 3.35 or newer."
    assert best("Which Python version does Tern require?", text) == ("3", "")
    assert best("Which SQLite version does Tern require?", text) == ("3.35", "")
    assert best("Which version of the licence applies?", "The licence applies in version 2 only.") == ("2", "")


def test_where_may_be_answered_by_an_address():
    assert best("Where should bugs be reported?", "Report bugs to bugs@tern.example.org.") == ("bugs@tern.example.org", "")


def test_a_question_s_acronym_is_said_by_the_words_it_stands_for():
    assert best("Which version of the GPL covers Tern?",
                "Tern is covered by the GNU General Public License version 3.") == ("3", "")


def test_code_that_is_the_means_or_the_purpose_s_instrument_of_the_question_s_action_answers():
    """Bound to another verb, code still answers when that verb is the action's means or has it as purpose."""
    assert best("Which program activates the triggers?",
                "The triggers are activated by running trig-run at any time.") == ("trig-run", "")
    assert best("Which option changes the time?", "Use --at to change the time.") == ("--at", "")


def test_the_default_a_copula_names_is_a_value_whatever_its_shape():
    assert best("What is the default mode?", "The default mode is wideband, which samples audio at 16 kHz.") == \
        ("wideband", "")


def test_spans_of_one_list_are_one_answer():
    assert best("When was the mill rebuilt?", "The mill was rebuilt in 1820 and in 1902.") == ("in 1820 and in 1902", "")


def test_german_nouns_must_be_in_the_line_and_a_term_in_german_is_not_proved():
    why = proved("Welche Option schaltet die Farben ab?", "--no-color schaltet die Farben ab.")
    assert why.get("--no-color") == ""
    why = proved("Wofür steht der Name Kiste?", "Der Name Kiste steht für ein kleines Archiv.")
    assert all(reason for reason in why.values())


def test_a_program_is_named_by_its_word_not_by_an_option_or_a_folder():
    why = proved("Which script does the packager run after unpacking?",
                 "The packager runs the postfix script after unpacking, with --quiet, from /var/lib/packs/.")
    assert why.get("postfix") == ""
    assert "--quiet" not in why and "/var/lib/packs/" not in why
    assert "mkbundle" in proved("Which program builds the bundle?", "You build the bundle by running mkbundle.")
    assert "mk-bundle" in proved("Which program builds the bundle?", "You build the bundle by running mk-bundle.")


def test_what_is_run_is_the_whole_command_with_its_words_and_flags():
    why = proved("Which command rebuilds the index?", "To rebuild the index, run quill reindex --all after an upgrade.")
    assert why.get("quill reindex --all") == ""
    why = proved("Which command updates the copy?", "To update the copy, run git pull --rebase in the folder.")
    assert why.get("git pull --rebase") == ""


def test_an_option_s_argument_is_not_a_release():
    why = proved("Since which version does the lamp tool accept decimal values?",
                 "Since 3.14.2, the lamp tool accepts decimal values: lamp --wait 2.75 works.")
    assert why.get("3.14.2") == "" and "2.75" not in why


def test_a_dotted_configuration_name_answers_which_variable_or_option():
    text = "The merge commands learned to honor the merge.quiet configuration variable."
    assert proved("Which configuration variable do the merge commands honor?", text).get("merge.quiet") == ""
    assert proved("Which option do the merge commands honor?", text).get("merge.quiet") == ""
    assert "load()" not in proved("Which configuration variable is read?", "The loader calls load() once.")


def test_a_number_the_question_spells_out_is_its_own_word():
    why = proved("What are the two ferry routes?", "There are two ferry routes: the north loop and the bay line.")
    assert why.get("two", "own words") != ""


def test_the_entry_a_description_stands_under_answers_for_it():
    text = "the version of the lamp tool."
    asked = analyse("Which variable holds the version of the lamp tool?")
    line = Line("doc_L2", text, parse(text), line_words(text, parse(text), "ENVIRONMENT › LAMP_VERSION"), 0,
                kind="", section="LAMP_VERSION")
    found = read(None, asked, None, [line])  # type: ignore[arg-type]
    assert found and found[0].text == "LAMP_VERSION" and found[0].proved


def test_no_of_the_thing_counted_is_a_count_of_none():
    why = proved("How many refills does the lamp take by default?",
                 "Setting the count to 0 makes the lamp take no refills (which is the default).")
    assert why.get("no refills") == ""


def test_a_word_whose_lemma_ends_in_i_is_the_word_in_y():
    from karaka.answering.stems import same

    assert same("retri", "retry") and same("entri", "entry") and not same("retri", "retro")


def test_an_amount_with_a_magnitude_letter_is_a_quantity_of_its_unit():
    why = proved("How much memory does the lamp daemon reserve for its cache?",
                 "The lamp daemon will reserve on the order of 512K bytes for its cache.")
    assert why.get("512K bytes") == ""


def test_a_measure_of_the_thing_asked_about_answers_how_much_of_it():
    question = "How much flour did Hanna pour into the bowl?"
    why = proved(question, "Hanna poured three cups of flour into the bowl.")
    assert why["three cups"] == ""
    why = proved(question, "Hanna poured three cups of milk into the bowl.")
    assert why["three cups"] != ""  # a measure of something else


def test_a_model_answer_is_found_at_its_own_place_in_the_line_whatever_the_case():
    from karaka.answering.reader import span_in

    text = "İlke Sorn's ferry took berth 14 at Tolby."  # "İ" lower-cased is two characters
    found = span_in("BERTH 14", Line("doc_L1", text, None, line_words(text, None, ""), 0), "quantity")
    assert found is not None and text[found.start:found.end] == "berth 14" == found.text


def test_a_line_that_asks_proves_nothing_whatever_words_it_holds():
    assert best("Who is Garran?", "“How old do you think Garran is, Wessel?”") == (None, "")
    assert best("Who is Garran?", "Garran is a tinker from Ost.") == ("a tinker from Ost", "")


def test_who_is_x_is_said_by_a_phrase_headed_by_x_not_one_that_mentions_x():
    """"the only record of Tovin" is a record; "two carts, Ruud's and Lisa's" says no cart is Lisa."""
    assert best("Who is Tovin?", "Some songs are long; this small book is the only record of Tovin.")[1] != ""
    assert best("Who is Lisa?", "Two carts, Ruud's and Lisa's, were sent ahead.")[1] != ""
    assert best("Who is Tovin?", "Tovin, the miller's son, rowed across.") == ("the miller's son", "")


def test_an_apposition_never_crosses_a_quotation_mark():
    line = "“Well,” said Ruud, the ferryman, “Ansel, there, is as strong a rower as you will see.”"
    assert best("Who was the ferryman?", line) == ("Ruud", "")  # the parser made Ansel the ferryman's apposition


def test_a_first_person_possessive_is_not_the_third_person_the_question_names():
    line = "“The Heron is the name of my boat,” said the old fisherman to Ansel."
    assert best("What is the name of Ansel's boat?", line) == ("Heron", "the line speaks of my boat")
    assert best("What is the name of Ansel's boat?", "The name of Ansel's boat is the Heron.") == ("the Heron", "")


def test_a_bare_number_that_counts_another_noun_is_no_amount():
    why = proved("How much was the ring worth?", "The ring was worth forty crowns, and it lay in one small box.")
    assert why["forty crowns"] == "" and "counts box" in why["one"]
    assert proved("How many boxes did Ruud carry?", "Ruud carried one small box.") == {"one": ""}


def test_a_name_is_answered_by_a_name_not_by_a_description_of_it():
    line = "Ansel said nothing, because his boat has a wicked name."
    assert proved("What is the name of Ansel's boat?", line)["a wicked name"].startswith("says of what kind")
    assert proved("What is the name of Ansel's boat?", "The name of Ansel's boat is the Heron.")["the Heron"] == ""


def test_a_heading_tells_no_action():
    """"CHAPTER 12. The Door-Post." holds the question's noun, and no verb to miss, but says nobody nailed anything."""
    assert best("What did he nail to the door?", "CHAPTER 12. The Door-Post.", kind="heading")[1] != ""


def test_an_apposition_has_nothing_between_but_its_anchor_s_own_phrase():
    line = ("At last, Perth, withdrawing his iron from the fire, began hammering it upon the anvil—the red mass "
            "sending off the sparks in thick hovering flights.")
    assert best("Who was Perth?", line)[1] != ""  # the parser made the mass Perth's apposition
    assert best("Who was Perth?", "Perth, the old blacksmith, began hammering.") == ("the old blacksmith", "")


def test_a_clause_that_asks_proves_nothing_though_the_line_goes_on():
    assert best("Who was Perth?", "“Are these your hens, Perth? they follow you everywhere.”") == (None, "")
    assert proved("How many hens did Perth keep?", "Perth kept nine hens; who could blame him?")["nine hens"] == ""


def test_a_pronoun_alone_is_no_answer():
    assert proved("What did Ishmael throw over the bench?", "“It’s I—Ishmael.”")["I"].startswith("a pronoun")


def test_a_time_inside_the_action_dates_what_it_says_not_the_action():
    assert best("When did Tom say it?", "Tom said on Monday that Mara left in March.") == ("on Monday", "")
    assert best("When did the mill open?", "The mill, built in 1850, opened in 1852.") == ("in 1852", "")
    text, why = best("When did the mill open?", "The mill opened after the flood of 1850.")
    assert text == "1850" and "flood" in why


def test_a_time_of_a_participle_that_says_how_the_action_went_is_the_action_s():
    assert best("When did Ann defend the plan?", "Ann defended the plan, telling the council on Monday.") == (
        "on Monday", "")
    text, why = best("When did Ann defend the plan?", "Ann defended the plan after the council met on Monday.")
    assert "met" in why


def test_a_time_on_another_branch_or_over_a_describing_clause_is_not_the_action_s():
    why = each("When did ferries enter the bay?", "In 1921 the town passed the Harbour Act of 1887, which included a "
               "rule that ferries entering the bay be inspected by 1930.")
    assert "'Act'" in why["1887"] and "'passed'" in why["In 1921"] and "'inspected'" in why["by 1930"]
    why = each("When did the clerks make mistakes?", "In the report of 1812, the mayor listed five mistakes that he "
               "thought the clerks often made.")
    assert "'report'" in why["1812"]


def test_a_time_between_two_joined_actions_is_the_first_s_when_the_second_has_its_own_frame():
    why = each("When did Tom write poems?", "Tom first came to fame in 1990, and at his peak was writing poems daily.")
    assert "'came'" in why["in 1990"] and why["daily"] == ""
    assert each("When was Tom arrested?", "Tom appeared in court on Friday and was arrested.") == {"on Friday": ""}


def test_a_time_or_reason_is_said_by_the_line_that_says_the_action():
    why = each("Why did Ann sell the farm?", "Ann bought a van to sell the farm produce at the market.")
    assert why["to sell the farm produce at the market"].startswith("it holds the question's action")
    for question, answer in (("When did Ann paint the barn?", "in May"), ("Why did Ann paint the barn?",
                                                                          "because of the rain")):
        line = "Ann was at the barn in May." if answer == "in May" else "Ann was at the barn because of the rain."
        why = each(question, line, previous="Ann painted the barn.")
        assert why[answer].startswith("the sentences around the line say the question's action")


def test_a_small_number_is_no_date_and_an_aside_is_no_reason():
    assert "over 70" not in each("When did Ann paint the barn?", "Her cousin, over 70, painted the barn in May.")
    why = each("Why did the guards close the gate?", "The guards closed the gate, for example, to keep the goats in.")
    assert why == {"to keep the goats in": ""}


def test_a_year_of_an_era_and_a_season_of_a_year_are_one_time():
    assert list(each("When did the Gauls sack the town?", "The Gauls sacked the town in the spring of 56 BC.")) == [
        "in the spring of 56 BC"]
    assert "in AD 79" in each("When was the villa buried?", "The villa was buried in AD 79 and found in 1748.")


def test_whose_name_a_line_speaks_of_is_not_the_name():
    """"the ferryman's name" says he has one, not which; "a ferryman named Quill" says which."""
    found = each("What is the name of the ferryman's boat?",
                 "At the first mention of the old ferryman's name to another boat, Quill paused.")
    assert not any(why == "" for why in found.values()), found
    assert each("What is the name of the old ferryman?", "Near the weir lived an old ferryman named Quill.") \
        .get("Quill") == ""


def test_a_relative_named_in_the_passive_or_by_the_copula_is_who_the_question_asks_for():
    """"his wife was named Ilsa" and "Garrick's son was Hollis" say who the wife and the son are."""
    assert each("Who was Corvin's wife?", "Corvin's wife was named Dalla, and she kept bees.").get("Dalla") == ""
    assert each("Who was Bram's wife?", "Bram was a fisher of Lowmere, and his wife was named Ilsa.").get("Ilsa") == ""
    assert each("Who was Garrick's son?", "Garrick's son was Hollis, a boy of nine.").get("Hollis") == ""
    assert each("Who was Garrick's son?", "Garrick rode to the fair with Hollis.").get("Hollis") != ""


def test_a_verse_number_counts_nothing_and_a_tagger_s_noun_that_is_a_verb_s_past_is_no_missing_verb():
    why = each("How long did Tobin live?", "14 And Tobin lived after this an hundred and ten years.")
    assert "14" not in why and why["hundred and ten years"] == ""
    assert each("How many apples did Tobin eat?", "12 Apples were eaten by Tobin.") == {"12 Apples": ""}
    why = each("Who slew Orm?", "3 And Hale begat Tobin and Orm.")  # "begat" tagged a noun: the line has a verb
    assert why and all("lacks slew" in w for w in why.values() if w != "the question's own words")


def test_a_possessive_pronoun_stands_for_the_one_name_of_the_sentence_before():
    """"Maeve painted it blue. Her brother Tomas arrived": Maeve's brother; after "Ilsa met Maeve", whose is unsaid."""
    line = "Her brother Tomas arrived on Tuesday."
    assert each("Who is Maeve's brother?", line, previous="Maeve, who never liked the house, painted it blue.")[
        "Tomas"] == ""
    assert "lacks Maeve" in each("Who is Maeve's brother?", line, previous="Ilsa met Maeve at the gate.")["Tomas"]


def test_a_phrase_that_leaves_open_which_one_it_is_names_none():
    question = "Which slot does the loader fill first?"
    assert best(question, "The loader fills a 64K slot first, then the rest.")[1]  # one slot, not which
    assert best(question, "The loader fills slot 3 first, then the rest.") == ("slot 3", "")


def test_a_word_inside_an_identifier_does_not_say_what_a_span_is():
    why = each("Which port does the relay open?", "The relay opens `port_t -1` when no port is set.")
    assert all(reason for text, reason in why.items() if "port_t" in text)


def test_a_bare_kind_noun_before_a_word_names_it_and_a_path_holds_no_word_of_the_question():
    assert each("As which user does the relay run?", "The archive belongs to group ferry, and the relay runs as user "
                "gull.") == {"gull": ""}
    assert "gull" not in each("As which user does the relay run?", "The relay runs under the gull user account.")
    assert each("Which group owns the spools in /var/gull?", "Spools in /var/gull are owned by group gull.") \
        .get("gull") == ""


def test_the_name_a_line_gives_the_thing_asked_about_answers_what_it_is_called():
    assert each("What is the night watchman called?", "In the harbour the night watchman is called Ortolan.") \
        == {"Ortolan": ""}
    assert each("What is the night watchman called?", "In the harbour the day watchman is called Ortolan.")["Ortolan"]


def test_a_sentence_that_says_why_of_the_one_before_it_gives_its_reason():
    rule = "There is one rule, though: the ferry must have a spare rudder."
    why = each("Why must the ferry have a spare rudder?", "That's because the harbour master inspects it before each "
               "spring crossing.", previous=rule)
    assert list(why.values()) == [""]
    why = each("Why must the ferry have a spare rudder?", "That's because the harbour master inspects it before each "
               "spring crossing.", previous="The boats are painted blue.")
    assert all(why.values())


def test_code_in_backquotes_before_the_noun_asked_about_is_one():
    asked = analyse("Which target unit must the ferry service wait for?")
    text = "The ferry service waits until the `harbour-open.target` unit is reached."
    doc = parse(text)
    code = next(s for s in spans(asked, text, doc) if s.text == "harbour-open.target")
    assert focus_near(asked, code, line_words(text, doc, ""), doc)


def test_a_function_word_used_as_a_name_must_be_in_the_line():
    question = "Which port does the nobody account use?"
    assert proved(question, "The `nobody` account uses port 8131.")["8131"] == ""
    assert proved(question, "The guest account uses port 8131.")["8131"]


def test_an_arrow_entry_says_what_its_key_is():
    assert each("Which port is the spare port on the relay?", "7001 → The spare port, kept free for tests on the relay.") \
        .get("7001") == ""
    assert "7002" not in [text for text, why in each("Which port is the spare port on the relay?",
                                                    "7002 → The main port of the relay.").items() if not why]
    found = each("From which range are ports for guest relays taken?",
                 "7100…7199 → Ports for guest relays are taken from this range.")
    assert found["7100…7199"] == "" and all(why for text, why in found.items() if text != "7100…7199")
    assert each("Which slot is the nobody slot on the rack?", "12 → The `nobody` slot of the rack, kept free.") \
        .get("12") == ""  # "nobody", written as code, is the question's own word
    text = "7100...7199 → UIDs for guests of the relay."
    assert not any("→" in s.text for s in spans(analyse("Which UID range does the relay assign?"), text, parse(text)))


def test_a_heading_that_is_no_list_of_names_says_nobody_wrote_anything():
    assert best("Who wrote the Harbour Charter?", "Grant of the Harbour Charter.")[1]
    assert best("Who wrote the Harbour Charter?", "Ann Lee and Bo Chen", intro="The Harbour Charter") \
        == ("Ann Lee and Bo Chen", "")


def test_the_number_of_a_section_is_no_release():
    asked = analyse("Starting with which Ferry release was the old archive removed?")
    text = "Starting with the Ferry 9 release, the old archive is removed."
    doc = parse(text)
    line = Line("doc_L1", text, doc, line_words(text, doc, "4.2. Moving the archive"), 0, "", "",
                section="Contents › 4. Archives › 4.2. Moving the archive")
    assert "4.2" not in [c.text for c in read(None, asked, None, [line]) if c.proved]  # type: ignore[arg-type]
    heading = "4.2. Moving the archive"
    assert "4.2" not in [s.text for s in spans(asked, heading, parse(heading))]


def test_a_line_on_another_numbered_release_proves_nothing_of_the_one_asked_about():
    question = "Where are the maps of Ferry 3 kept?"
    assert proved(question, "The maps of Ferry 2 are kept in /srv/ferry2/maps.",
                  previous="The maps of Ferry 3 are kept in /srv/ferry3/maps.")["/srv/ferry2/maps"]
    assert proved(question, "The maps of Ferry 3 are kept in /srv/ferry3/maps.")["/srv/ferry3/maps"] == ""


def test_a_path_the_question_names_is_not_found_inside_a_longer_one():
    path = next(t for t in analyse("Who provides /usr/bin/gull?").terms if t.text == "/usr/bin/gull")
    for text, found in (("It provides /usr/bin/gull.", True), ("It provides /usr/bin/gull2.", False)):
        doc = parse(text)
        assert bool(line_words(text, doc, "").find(path)) is found
        assert line_words("", None, text).in_context(path) is found  # a heading or document name, too
    age = next(t for t in analyse("When was a 43-year-old man seen?").terms if t.text == "43")
    assert line_words("A 43-year-old man was seen.", None, "").find(age)  # a number before a hyphen is whole


def test_what_a_thing_does_on_a_condition_is_what_the_line_says_it_does_then():
    why = each("What does the ferry do when the harbour bell rings?",
               "When the harbour bell rings, the ferry leaves the pier at once.")
    assert any(reason == "" and "leaves the pier" in text for text, reason in why.items())


def test_a_command_line_is_no_variable():
    why = each("Which variable makes the tools print plain text?",
               "`$GULL_PLAIN=1` — if set, tools such as `gull-show status` print plain text instead of colours.")
    assert "gull-show status" not in why and why.get("$GULL_PLAIN=1") == ""



def test_an_address_is_no_verb_so_a_title_block_s_date_dates_its_version():
    why = proved("When was version 3.1 of the Gull Charter published?",
                 "Version 3.1, March 2011 http://www.gull.org/charters/", context="Gull Charter")
    assert why["March 2011"] == ""


def test_a_name_in_capitals_the_noun_asked_about_follows_is_one():
    question = "Which file's contents are for reference only?"
    assert each(question, "The contents of the HARBOUR file are for reference only and change nothing.") \
        == {"HARBOUR": ""}
    assert each(question, "The contents of the HARBOUR log are for reference only and change nothing.") == {}


def test_an_identifier_the_tagger_takes_for_a_verb_is_what_the_question_asks_about():
    asked = analyse("What does asn2Coding generate?")  # the tagger reads "-ing" as a verb
    assert asked.verb == key("generate") and any(t.text == "asn2Coding" and t.hard for t in asked.terms)


def test_a_name_glued_to_its_number_is_one_of_the_kind_it_spells():
    assert each("In which RFC is the Gull format documented?", "The Gull format is documented in RFC9999.") \
        == {"RFC9999": ""}


def test_a_count_of_things_named_with_a_slash_counts_each():
    question = "How many slots does the rack manager give each rack?"
    assert proved(question, "The rack manager gives each rack 48 slots/ports.")["48 slots/ports"] == ""
    assert proved(question, "The rack manager gives each rack 48 cables/ports.")["48 cables/ports"]


def test_an_acronym_of_the_question_written_out_is_the_question_s_own_words():
    """"the Lesser Quillet Public License" is the "Lesser QPL" the question names, not what it replaced."""
    why = each("Which license did the Lesser QPL replace?", "The Lesser QPL replaced the Lesser Quillet Public License.")
    assert "the Lesser Quillet Public License" not in why


def test_a_noun_the_noun_asked_about_classifies_or_a_verb_governs_names_no_command():
    """"command lines" are lines, "editing commands" the question's own words, "complete command names" an action."""
    why = each("Which editing commands does Quillet's line editing use?",
               "Quillet lets users edit command lines using familiar emacs or vi-style editing commands.")
    assert "lines" not in why and "editing" not in why
    why = each("Which editing commands does Quillet's line editing use?",
               "The editing facilities include a feature that allows users to complete command and file names.")
    assert "complete" not in why


def test_a_word_a_text_defines_in_quotes_after_an_article_is_no_name_of_code():
    """(each, a "Work"), an "owner": a licence's defined terms, not directives."""
    why = each("Under which directive do notebook rights arise?",
               'The laws confer Notebook Rights upon the subsequent owner(s) (each and all, an "owner") of a notebook '
               '(each, a "Work").')
    assert "owner" not in why and "Work" not in why


def test_a_clause_opened_by_by_default_says_all_of_it_holds_by_default():
    why = each("By default, which user owns the spool files?",
               "By default, the spool files of every printer queue on the host are owned by user lp.")
    assert why["lp"] == ""


def test_a_value_set_as_the_noun_asked_about_is_called_that_noun():
    """"proposed the root of the spool hierarchy as `/var/spool/quill`": the path is that root (no backquote)."""
    why = each("What is the root of the spool hierarchy?",
               "The standard proposed the root of the spool hierarchy as `/var/spool/quill` for all printers.")
    assert why["/var/spool/quill"] == ""


def test_a_label_before_a_colon_must_be_the_thing_asked_about():
    """"Version: quill version 1.01" says what quill's version is, not what quill is."""
    assert not any(why == "" for why in each("What is quill?", "Version: quill version 1.01").values())


def test_code_bound_to_another_verb_is_no_answer_when_the_question_s_verb_only_sets_the_time():
    """"Once you have allocated the memory, construct a heron_cif": the cif is constructed, it allocates nothing."""
    why = each("Which function allocates memory for a closure?",
               "Once you have allocated the memory for a closure, you must construct a heron_cif describing the call.")
    assert why.get("heron_cif", "no candidate: a value of a type") != ""  # "a heron_cif" is a value of a type too
    assert analyse("Which function allocates memory for a closure?").kind == "code"  # "function" tagged a verb


def test_an_argument_of_the_call_the_question_names_is_no_answer():
    why = each("Which function frees memory allocated using heron_alloc?",
               "Memory: void *heron_alloc (size_t size, void **code)")
    assert why["size_t"].startswith("an argument of heron_alloc")


def test_a_default_is_of_the_noun_asked_about():
    """"By default, quill uses the servers X": X is the servers' default, not the port's."""
    line = "By default, quill uses the public time servers `time.example.org`, if no other configuration is set."
    assert each("What is the default port of quill?", line)["time.example.org"].startswith("the line gives a default")
    assert each("Which time servers does quill use by default?", line)["time.example.org"] == ""


def test_a_field_under_a_heading_is_said_of_what_the_heading_names():
    assert proved("Who is the author of Quarry Lint?", "Author: Mirela Ostrova",
                  context="Quarry Lint version 2.4")["Mirela Ostrova"] == ""
    assert proved("Who is the author of Quarry Lint?", "Mirela Ostrova and the team thank you.",
                  context="Quarry Lint version 2.4")["Mirela Ostrova"] != ""  # no field of authors


def test_a_quoted_term_is_read_with_the_sentence_that_describes_it():
    said = proved("Which configure option builds the tiny parser?", "‘--small-grammar’",
                  following="Build the tiny parser instead of the full one.")
    assert said["--small-grammar"] == ""



def test_a_german_compound_with_a_hyphen_is_one_word_the_line_must_hold_whole():
    said = proved("Welche Datei enthält die Liste der erlaubten Anmelde-Shells?", "/etc/okshells",
                  following="Liste der erlaubten Anmelde-Shells")
    assert said["/etc/okshells"] == ""


def test_a_term_of_a_list_is_read_with_its_own_description_not_the_entry_before():
    words = line_words("/etc/b", None, "", previous="Liste A", following="Beschreibung B", intro="Liste A")
    assert words.intro_text == "Beschreibung B"
    assert line_words("/etc/b", None, "", following="Beschreibung B", intro="Dateien:").intro_text == \
        "Dateien: Beschreibung B"  # a line that introduces the list does


def test_a_german_default_is_named_by_its_compound():
    assert proved("Was ist das Standardsignal für zap?", "Das Standardsignal für zap ist HUP.") == {"HUP": ""}


def test_the_counted_noun_right_after_a_number_in_an_unparsed_line_says_what_it_counts():
    asked = analyse("Wie viele Zeichen darf ein Name höchstens haben?")
    text = "Falls der Name länger als 12 Zeichen ist, wird er gekürzt."
    at = text.find("12")
    assert focus_near(asked, Span("12", "quantity", at, at + 2), line_words(text, None, ""), None)
    at = text.find("Name")
    assert not focus_near(asked, Span("Name", "term", at, at + 4), line_words(text, None, ""), None)


def test_an_entry_asked_of_with_its_program_is_keyed_by_its_number():
    assert proved("Was bedeutet der Rückgabewert 3 von zap?", "3 bad option", context="RÜCKGABEWERTE") == \
        {"bad option": ""}


def test_a_flag_named_after_what_it_does_is_no_word_of_the_question():
    assert proved("Which option makes a test run?", "Use --test to make a test run.") == {"--test": ""}
    assert "--test" not in proved("What does the --test option do?", "Use --test to make a test run.")


def test_a_command_in_backquotes_gives_the_option_the_question_names():
    found = proved("Which option of quill makes a test run?", "`quill --test --user` for a test run of quill.")
    assert found == {"--test": ""}  # --user is not what the question names


def test_a_key_combination_matches_with_spaces_round_its_plus_signs():
    combination = Term("control+alt+backspace", True, "Control+Alt+Backspace", "name")
    words = line_words("The server quits when you press Control + Alt + Backspace.", None, "")
    assert words.find(combination) and not line_words("Press Control + Alt to quit.", None, "").find(combination)


def test_code_joined_to_the_doer_of_a_passive_does_that_action():
    asked = analyse("Which function frees the pool?")
    text = "Memory allocated by zz_alloc or zz_grow must be returned."
    doc, at = parse(text), text.find("zz_grow")
    assert does_another(asked, Span("zz_grow", "code", at, at + 7, *span_tokens(doc, at, at + 7)), doc)


def test_a_description_under_an_entry_says_the_entry_does_its_own_main_verb():
    asked = analyse("Which function frees the pool?")
    under = Span("zz_grow", "code", -1, -1, -1, -1)  # the entry's name, from the line above the description
    assert does_another(asked, under, parse("Allocate a block of the pool."))
    assert not does_another(asked, under, parse("Free the pool and its blocks."))


def test_the_noun_asked_about_before_a_name_in_capitals_calls_it_one():
    assert proved("Which file explains how to report bugs?", "Read the file HACKING before you report bugs.") == \
        {"HACKING": ""}


def test_a_german_question_asks_for_its_noun_and_a_decimal_comma_is_one_number():
    asked = analyse("Welches kleinste Intervall erlaubt zap?")
    assert (asked.kind, asked.focus) == ("quantity", "intervall")  # the capitalised noun, not the adjective
    found = spans(asked, "Der Befehl erlaubt kein Intervall kleiner als 0,5 Sekunden.", None)
    assert [s.text for s in found] == ["0,5 Sekunden"]


def test_how_often_is_answered_in_german_by_every_so_many_units():
    assert proved("Wie oft läuft zap standardmäßig?", "Standardmäßig läuft zap alle drei Minuten.") == \
        {"alle drei Minuten": ""}


def test_a_sentence_whose_subject_is_this_goes_on_from_the_one_before():
    def intro(text):
        return line_words(text, parse(text), "", previous="Link the program against foo.").intro_text
    assert intro("On Unix, this is done with the -lfoo flag.") == "Link the program against foo."
    assert intro("If this is not set, the -lfoo flag is used.") == ""  # a condition's subject


def test_a_description_is_read_with_the_bare_entry_name_above_it():
    words = line_words("If defined, the parser keeps comments.", None, "", previous="ZZ_KEEP_COMMENTS")
    assert words.intro_text == "ZZ_KEEP_COMMENTS"
    assert line_words("If defined, the parser keeps comments.", None, "", previous="Read on.").intro_text == ""


def test_a_unit_may_follow_its_figure_without_a_space_but_an_ordinal_is_no_amount():
    found = [s.text for s in quantities("Wait 30s, send 10MB in .5s; the 4th try and the ones after fail.", None)]
    assert found == ["30s", "10MB", ".5s"]


def test_an_amount_without_bound_answers_how_much():
    assert proved("What size may the log list have?", "The log list may be of unlimited size.") == {"unlimited": ""}


def test_the_kind_noun_of_the_question_is_no_answer():
    said = proved("What kind of licence is the Quill Licence?", "The Quill Licence is a kind of permissive licence.")
    assert said.get("a kind", "own") != ""


def test_a_default_in_brackets_after_an_option_is_its_value_whole():
    said = proved("What is the default name of the output file?",
                  "--out-file=<name> [default: zap.out.%p] names the output file.")
    assert said.get("zap.out.%p") == ""


def test_words_inside_a_flag_are_no_verb_of_its_line():
    text = "--instr-count-only [default: no]"
    assert line_words(text, parse(text), "").verbless


def test_a_list_of_names_goes_on_past_their_addresses():
    found = spans(analyse("Who wrote zap?"), "zap was written by Ada Quist <ada@example.org> and Ivo Lang.", None)
    assert "Ada Quist <ada@example.org> and Ivo Lang" in [s.text for s in found]


def test_time_of_from_time_to_time_is_no_date():
    asked = analyse("When was the bridge built?")
    assert not _role_fits(asked, "ADHIKARANA_TEMPORAL", "to time", None, None)  # type: ignore[arg-type]
    assert _role_fits(asked, "ADHIKARANA_TEMPORAL", "in 1921", None, None)  # type: ignore[arg-type]


def test_a_document_name_keeps_its_version():
    assert (document_name("MPL-1.1"), document_name("chage.de.1")) == ("MPL 1.1", "chage de 1")


def test_an_adverb_of_frequency_says_no_time():
    asked = analyse("When was the bridge rebuilt?")
    assert not _role_fits(asked, "TIME", "ever", None, None)  # type: ignore[arg-type]
    assert _role_fits(asked, "TIME", "recently", None, None)  # type: ignore[arg-type]


def test_a_shaped_name_before_the_noun_asked_about_is_the_default_one():
    found = each("Which cipher does quux use by default?", "quux uses by default the XR42 cipher shipped in tarp 2.5.")
    assert found["XR42"] == ""
    assert found["2.5"] != ""  # a version is no cipher


def test_what_is_x_is_not_answered_by_code_that_names_x():
    found = proved("What is Frobnic?", "frobnic --mode=frobnic input.txt", context="Running Frobnic")
    assert found.get("--mode=frobnic", "") != ""


def test_what_is_x_is_answered_by_the_description_after_the_copula_whole():
    found = proved("What is a Marrow Cell?", 'A "Marrow Cell" is a cell grown by splicing a Root with the Cortex.')
    assert found["a cell grown by splicing a Root with the Cortex"] == ""
    assert found["a cell"] != ""


def test_a_phrase_only_of_the_noun_asked_about_does_not_say_what_a_named_term_is():
    found = proved("What is a Derived Work?", "You may ship a derived tarball with any covered work under these terms.")
    assert found["any covered work"] != ""


def test_a_file_name_ending_written_alone_answers_which_extension():
    assert each("Which extension did older releases of quux use?",
                "Older releases of quux used the .q extension, which pack used as well.") == {".q": ""}


def test_what_a_thing_is_called_is_a_name_whatever_the_noun_asked_about():
    assert analyse("What is the older version of the engine called?").kind == "term"  # a name, no version number
    found = proved("What is the older version of the engine called?", 'The older version of the engine is called "Grey Heron".')
    assert found["Grey Heron"] == ""


def test_an_entry_is_proved_by_the_description_below_it_as_by_its_own_words():
    found = proved("What is the default depth of the frob tree?", "--depth=<n> [default: 12]",
                   context="frob Command-line Options", following="Depth of the tree, in levels.")
    assert found["12"] == ""


def test_a_file_name_with_a_placeholder_is_one_value_and_a_default_name_needs_no_word_name():
    found = proved("What is the default name of the quux log file?",
                   "By default, quux writes its log to the file quux.log.<pid> in the current directory.")
    assert found["quux.log.<pid>"] == ""


def test_whose_asks_of_the_noun_after_its_adjectives_and_a_common_noun_may_own_it():
    found = each("Whose signed letter of thanks is kept in the hall?",
                 "If the guild agrees, that proxy's signed letter of thanks is kept in the hall.")
    assert found["proxy"] == ""  # a common noun, no name, owns it


def test_a_german_entry_key_under_a_hyphenated_heading_is_proved():
    from karaka.answering.entries import entry_key

    asked = analyse("Welcher Exit-Status von zapf bedeutet, dass keine Dateien gefunden wurden?")
    text = "3      Keine Dateien wurden gefunden."
    words = line_words(text, None, "zapf EXIT-STATUS", heading="EXIT-STATUS")
    [key_span] = entry_key(asked, text, words, None)
    assert key_span.text == "3" and weigh(asked, key_span, words, None).why_not == ""


def test_a_role_made_only_of_words_the_question_writes_is_its_own():
    from karaka.answering.roles import _all_asked

    assert _all_asked(analyse("Where should faults in Quux.io be filed?"), "in Quux.io")
    assert not _all_asked(analyse("Where should faults in Quux.io be filed?"), "in the tracker")


def test_the_description_under_an_entry_with_a_default_answers_with_the_entry():
    asked = analyse("Which option changes the colour of the prompt?")
    text = "Changes the colour of the prompt when --plain=no is given."
    doc = parse(text)
    line = Line("doc_L2", text, doc, line_words(text, doc, "", previous="--tint=<colour> [default: blue]"), 0, "doc_L1")
    found = {c.text: c.evidence.why_not for c in read(None, asked, None, [line])}  # type: ignore[arg-type]
    assert found["--tint=<colour>"] == ""
    assert "specified" in found["--plain=no"] or "given" in found["--plain=no"]  # a condition, not the doer


def test_a_demonstrative_and_a_bare_noun_name_no_one():
    from karaka.answering.typed import typed

    assert typed(analyse("Who checks the ledger?"), Span("This clerk", "name", 0, 10)) == (
        False, "points back to what the line does not name")  # "This clerk checks the ledger": the role says it
    assert typed(analyse("Who checks the ledger?"), Span("Tam Orrin", "name", 0, 9))[0]


def test_what_is_x_is_answered_after_the_colon_of_a_glossary_entry():
    found = proved("What is Frobscript?", "Frobscript: A language for scripting looms, including Weft.")
    assert found["A language for scripting looms, including Weft"] == ""


def test_a_parsed_glossary_line_says_what_its_label_is():
    found = proved("What is ZAP?", "ZAP: Zone Access Protocol - A protocol that opens locked zones over the wire.")
    assert found["Zone Access Protocol - A protocol that opens locked zones over the wire"] == ""
    assert proved("What is ZAP?", "Note: a protocol opens locked zones over the wire.")["a protocol"] != ""


def test_a_default_in_brackets_may_be_worded_by_default_in_any_tongue():
    assert each("Which signal does zapd send by default?",
                "zapd sends the given signal (by default SIGHUP) to each worker.").get("SIGHUP") == ""
    assert each("Welches Signal sendet zapd per Vorgabe?",
                "zapd sendet das angegebene Signal (per Vorgabe SIGHUP) an jeden Prozess.").get("SIGHUP") == ""


def test_a_line_that_is_a_name_and_its_address_is_read_as_a_name_unparsed():
    found = spans(analyse("Wer ist der Autor von zapf?"), "Ilse Marr Quist ⟨ilse@example.org⟩", None)
    assert "Ilse Marr Quist" in [s.text for s in found]
    assert "Die Optionen" not in [s.text for s in spans(analyse("Wer ist der Autor?"), "Die Optionen Sind Hier frei", None)]


def test_a_quoted_word_beside_the_noun_asked_about_is_code_of_that_kind():
    assert each("Which script should you run every night?",
                "You should run the included ‘sweepdb’ script every night.").get("sweepdb") == ""


def test_a_name_an_apostrophe_alone_makes_possessive_owns_the_thing():
    from karaka.answering.identity import _owns

    words = ["from", "Rhys", "Jones", "’", "search", "code"]  # the parse may make "Jones" a modifier, not a possessive
    doc = built(words, [0, 2, 5, 2, 5, 0], ["ROOT", "compound", "nmod", "punct", "compound", "pobj"])
    assert _owns(doc[2]) and not _owns(doc[4])


def test_standard_before_another_noun_than_the_one_asked_is_a_term_not_a_default():
    assert not analyse("To which program is the standard output piped on Arch?").default
    assert analyse("What is the standard port of zapd?").default


def test_a_name_inside_another_word_is_no_part_of_it():
    found = each("To which program is the output piped on Arch?",
                 "Pipe the output to `aplay` (Arch) or `paplay` (Mint) instead.")
    assert found["aplay"] == "" and found["paplay"] != ""


def test_what_a_thing_is_called_needs_no_role_of_the_action_that_describes_it():
    found = each("What is the person signing the deed called?",
                 'The person signing the deed (the "Grantor") keeps one copy of it.')
    assert found.get('the "Grantor') == ""  # the chunk as the parse cuts it


def test_bare_names_side_by_side_are_a_list_not_an_apposition():
    found = proved("Who was Tobin?", "Think of the old halls of Orm, Tobin, Hale; all of them are gone.")
    assert found["Hale"] != ""
    assert proved("Who was Tobin?", "Think of Tobin, the cooper, and his hall.")["the cooper"] == ""


def test_who_does_an_action_named_as_a_noun_is_the_object_of_its_by():
    found = each("Who must approve every change to the Charter?",
                 "Every change to the Charter needs approval by the Harbour Council (HC).")
    assert "" in found.values()  # the council (or its initials), the doer of "approval"
    assert all(why for text, why in found.items() if "Charter" in text)


def test_a_flag_is_not_found_inside_a_longer_flag():
    why = proved("What is the default value of --frob-level?", "--frob-level-max=<n> [default: 8]")
    assert why["8"].startswith("the line lacks --frob-level")
    assert proved("What is the default value of --frob-level?", "--frob-level=<n> [default: 2]")["2"] == ""


def test_a_name_the_question_s_action_is_asked_of_must_be_in_its_line_not_the_one_beside_it():
    asked = analyse("What does Brindle open?")
    text = "Only the spool files are opened at start."
    doc = parse(text)
    words = line_words(text, doc, "", "Brindle reads its queue.")
    span = Span("the spool files", "term", 5, 20, *span_tokens(doc, 5, 20))
    assert weigh(asked, span, words, doc, role=True).why_not == "the line lacks Brindle"  # the action's role
    assert not weigh(asked, span, words, doc).missing  # a typed span: the sentence around counts, partly


def test_a_verbless_line_that_names_no_action_of_the_question_s_verb_answers_nothing():
    why = each("What does Fizzgrind simulate?", "Fizzgrind output: traces and logs")
    assert why["traces"] == why["logs"] == "the line names no action of the question's verb"
    assert why["Fizzgrind output"] == "a field's label, not its value"


def test_code_that_writes_the_name_asked_about_is_the_question_s_own_words():
    assert best("What does Fizzgrind model?", "Run valgrind --tool=fizzgrind to start it.")[0] != "--tool=fizzgrind"


def test_a_copula_that_calls_its_subject_the_default_names_the_default_whatever_its_shape():
    assert proved("What is the default tool of Frobz?", "In Frobz, Crateck is the default tool.")["Crateck"] == ""
    assert proved("What is the default mode of Frobz?", "In Frobz, Crateck is the default tool.").get("Crateck", "no") != ""


def test_an_abbreviation_and_its_expansion_may_stand_in_quotation_marks_or_backquotes():
    assert best("What does PTAL stand for?", "Reviewers often write `PTAL` (“Please Take A Look”).") \
        == ("Please Take A Look", "")
    assert best("What does RFD stand for?", "Ask for a request for discussion (`RFD`) first.")[0] \
        == "request for discussion"
    assert best("What does WFM stand for?", "A tester may just write `WFM` (“Works For Me”).") \
        == ("Works For Me", "")  # an expansion spells the question's abbreviation: it is no own word of it


def test_a_command_answers_how_only_where_it_or_the_sentence_introducing_it_says_the_action():
    asked = "How are the crates labelled?"
    assert best(asked, "frobz pack --crate 3", intro="To ship the crates, run:", kind="code")[1]
    assert best(asked, "frobz tag --crate 3", intro="To label the crates, run:", kind="code") \
        == ("frobz tag --crate 3", "")
    assert best("How are the crates named?", "frobz pack --crate 3", intro="To ship the crates, run:", kind="code")[1]
    # "how … named?" asks how the naming is done, not what a thing is called
    assert best("Which command lists other available crates?", "Available crates are in `frobz`.")[1]  # no listing


def test_where_is_x_is_answered_by_a_line_that_names_x_not_only_the_line_beside_it():
    why = proved("Where is the ladder of Frobz?", "Frobz is kept in the top barn.",
                 following="The ladder is two metres long.")
    assert why["in the top barn"] == "the line lacks ladder"
    assert proved("Where is the ladder of Frobz?", "The ladder of Frobz is kept in the top barn.")[
        "in the top barn"] == ""


def test_an_e_mail_question_wants_a_mailbox_and_a_web_question_a_web_address():
    text = "Report bugs in the tracker at <https://bugs.example.org/frobz> or by email to <bug-frobz@example.org>."
    found = {q: [s.text for s in spans(analyse(q), text, None)] for q in (
        "To which email address can bugs in frobz be reported?", "Which URL is the bug tracker of frobz?",
        "Where can bugs in frobz be reported?")}
    assert list(found.values()) == [["bug-frobz@example.org"], ["https://bugs.example.org/frobz"],
                                    ["https://bugs.example.org/frobz", "bug-frobz@example.org"]]


def test_a_heading_in_small_letters_is_an_entry_its_description_is_said_of():
    """"rasp" over "Adds a dry hiss." names a keyword (its lines' introduction); "Rasp settings" is a topic."""
    assert entry_of("Voice Files › Voice Attributes › rasp") == "rasp"
    assert entry_of("Voice Files › Voice Attributes") == entry_of("Voice Files › Rasp settings") == ""
    assert entry_of("Options › -r, --rasp") == "-r, --rasp"


def test_a_number_joined_to_a_numbered_noun_numbers_it_too():
    """"Sections 1 and 2": the 2 is a section's number, no amount of copies."""
    why = proved("How many copies may you hand on?", "You may hand on copies under the terms of Sections 1 and 2 above.")
    assert "counts Sections" in why["2"] and "counts Sections" in why["1"]


def test_a_program_named_by_its_own_page_ties_no_line_to_a_german_question():
    """"frob-split" stands in every line of frob-split's page: "-alt" of a line without "zerteilt" answers nothing."""
    asked = analyse("Was kann mit frob-split nicht zerteilt werden?")
    text = "Hinweis: frob-split behält die alte Kopie, mit der Endung -alt."
    span = next(s for s in spans(asked, text, None) if s.text == "-alt")
    own_page = line_words(text, None, "", document="frob split de 1")
    other_page = line_words(text, None, "", document="notes")
    assert weigh(asked, span, own_page, None).why_not == "the line says too little of what is asked of the document"
    assert weigh(asked, span, other_page, None).why_not != weigh(asked, span, own_page, None).why_not


def test_a_noun_picked_by_where_the_text_puts_it_names_nothing():
    why = proved("Which tags end a stanza?", "The following tags end a stanza: hr and br.")
    assert why["The following tags"] == "points to where the text names it"


def test_a_noun_and_a_year_is_no_one_s_name():
    """"… schrieb frobsplit im Jahre 2011": a German noun has a capital, as a name has, but a year is no one."""
    from karaka.answering.typed import typed

    asked = analyse("Wer schrieb frobsplit?")
    assert typed(asked, Span("Jahre 2011", "name", 30, 40))[0] is False
    assert typed(asked, Span("Ada Quist", "name", 0, 9))[0] is True


def test_a_quotation_said_aloud_is_the_words_not_the_one_they_name():
    assert best("Who is Vera Holm?", '"Vera Holm, Vera Holm!" was the glad cry from the quay.')[1] != ""
    assert best("Who is Vera Holm?", "Vera Holm was the harbour pilot.") == ("the harbour pilot", "")


def test_a_long_clause_before_a_colon_is_no_label_and_a_list_no_apposition():
    assert best("Who is Vera?", "The boats were in, for Vera was at the quay: her brother had rowed her over.")[1] != ""
    assert best("Who is Vera?", "Vera: the harbour pilot.") == ("the harbour pilot", "")
    asked, text = analyse("Who is Vera?"), "The rain came; she, Ida, and Mrs Roe, therefore, went in."
    doc = parse(text)
    words = line_words(text, doc, "")
    words.doers = "Vera"  # the graph's "she" is Vera
    assert weigh(asked, next(s for s in spans(asked, text, doc) if s.text == "Ida"), words, doc).why_not != ""


def test_a_root_with_a_subject_is_a_verb_whatever_its_tag():
    words = ["The", "news", "burst", "on", "Tomas", "."]  # the tagger's reading of a book's line: "burst" a noun
    doc = built(words, [1, 2, 2, 2, 3, 2], ["det", "nsubj", "ROOT", "prep", "pobj", "punct"],
                pos=["DET", "NOUN", "NOUN", "ADP", "PROPN", "PUNCT"])
    assert not line_words("The news burst on Tomas.", doc, "").verbless
    doc = built(["Version", "2.0", "."], [0, 0, 0], ["ROOT", "nummod", "punct"], pos=["NOUN", "NUM", "PUNCT"])
    assert line_words("Version 2.0.", doc, "").verbless


def test_an_older_english_number_joined_by_and_is_one_number():
    why = proved("How old was Greta Lind?", "But Greta Lind, at four-and-thirty, laughed at the notion.")
    assert why.get("four-and-thirty") == ""


def test_a_speaker_s_my_in_a_quotation_says_not_whose():
    assert best("Who is Ida Roe?", '"It was my friend Ida Roe who told me," said she.')[1] != ""
    assert best("Who is Ida Roe?", "It was my friend Ida Roe who told me so.") == ("my friend", "")


def test_a_generic_person_with_adjectives_says_what_one_is_like_not_who():
    assert best("Who is Ilse Varga?", "Ilse Varga was a very fine young woman.")[1] != ""
    assert best("Who is Ilse Varga?", "Ilse Varga was the woman who kept the ferry inn.")[1] == ""
    assert best("Who is Ilse Varga?", "Ilse Varga was a ferry pilot.") == ("a ferry pilot", "")
    assert best("Who is Ilse Varga?", "Ilse Varga was no fonder of the ferry than of the inn.")[1] != ""


def test_one_and_many_are_no_apposition_and_a_plural_says_not_who_one_is():
    found = each("Who is Ida Roe?", "She longed to see Ida Roe, the Holms, and all their other friends.")
    assert found["the Holms"] != ""
    found = each("Who is Ida Roe?", "You know that Ida Roe and Vera Holm were sisters; so she is aunt to young Tom.")
    assert found["sisters"] != ""
    assert each("Who is Ida Roe?", "Ida Roe, the ferry pilot, came in.")["the ferry pilot"] == ""


def test_a_list_after_a_name_is_no_apposition_to_it():
    from karaka.answering.identity import _apposed

    # the tagger's reading of a novel's line: "the Holm" apposed to "Roe", "friends" conjoined to it
    words = ["She", "saw", "Ida", "Roe", ",", "the", "Holm", ",", "and", "all", "their", "friends", "."]
    heads = [1, 1, 3, 1, 3, 6, 3, 6, 6, 11, 11, 6, 1]
    deps = ["nsubj", "ROOT", "compound", "dobj", "punct", "det", "appos", "punct", "cc", "predet", "poss", "conj",
            "punct"]
    tags = ["PRP", "VBD", "NNP", "NNP", ",", "DT", "NNP", ",", "CC", "PDT", "PRP$", "NNS", "."]
    pos = ["PRON", "VERB", "PROPN", "PROPN", "PUNCT", "DET", "PROPN", "PUNCT", "CCONJ", "DET", "PRON", "NOUN", "PUNCT"]
    doc = built(words, heads, deps, tags, pos)
    assert not _apposed(doc, doc[3], doc[6])  # a list: ", and" goes on from the appositive

    def short(noun, tag):  # "She saw Ida Roe, the Holm." with no list after it
        return built(words[:6] + [noun, "."], heads[:7] + [1], deps[:7] + ["punct"], tags[:6] + [tag, "."],
                     pos[:7] + ["PUNCT"])

    one = short("Holm", "NNP")
    assert _apposed(one, one[3], one[6])  # one name beside one
    many = short("Holms", "NNPS")
    assert not _apposed(many, many[3], many[6])  # one name beside many people
    words = ["Ida", "Roe", ",", "the", "pilot", ",", "came", "in", "."]
    doc = built(words, [1, 6, 1, 4, 1, 1, 6, 6, 6],
                ["compound", "nsubj", "punct", "det", "appos", "punct", "ROOT", "prt", "punct"],
                ["NNP", "NNP", ",", "DT", "NN", ",", "VBD", "RP", "."],
                ["PROPN", "PROPN", "PUNCT", "DET", "NOUN", "PUNCT", "VERB", "ADP", "PUNCT"])
    assert _apposed(doc, doc[1], doc[4])


def test_a_title_alone_is_no_one():
    line = "Mrs. Tolland, who was younger than Mrs. Brek and Mrs. Roe, was a clever, kind woman, and a great favourite."
    assert all(why != "" for why in each("Who is Mrs. Roe?", line).values())
    assert each("Who is Mrs. Roe?", "Mrs. Roe was the ferry pilot.")["the ferry pilot"] == ""


def test_a_number_alone_in_brackets_labels_an_item_and_measures_nothing():
    why = proved("How long must the voucher stay valid?",
                 "Send a voucher, valid for at least two years, that gives the buyer either (1) a refund or (2) a new kettle.")
    assert why["two years"] == "" and "labels an item" in why["1"] and "labels an item" in why["2"]


def test_a_line_under_a_question_answers_it_with_the_question_s_words():
    """A FAQ's answer says "in this case" of the situation its heading asks about; another heading lends nothing."""
    asked = "I glazed a pot and the kiln cracked it while it cooled. What can I do?"
    line = "You should try the Ember glaze in this case."
    question = "Which glaze should you try when the kiln cracks a pot?"
    assert proved(question, line, context=asked, heading=asked)["the Ember glaze"] == ""
    assert "most of the question's words" in proved(question, line, context="Glazes and kilns: a pot cracked",
                                                    heading="Glazes and kilns: a pot cracked")["the Ember glaze"]


def test_what_makes_an_action_happen_is_the_condition_it_happens_on():
    line = "If you use the option --keep-heat=yes, then the kettle will keep the water warm in order to serve tea."
    assert proved("Which option makes the kettle keep the water warm?", line)["--keep-heat=yes"] == ""
    assert "in the action of" in proved("Which option keeps the water warm?",
                                        "The water is kept warm when --warm is given.")["--warm"]


def test_an_answer_to_the_text_s_own_question_answers_only_that_question():
    """"From an old Welsh legend." under "Where does the name Brisk come from?" says where from, not what Brisk names."""
    asks = "Where does the name Brisk come from?"
    assert "lacks" in proved("What is Brisk the name of?", "From an old Welsh legend.", intro=asks)["an old Welsh legend"]
    assert proved("Which legend does the name Brisk come from?", "From an old Welsh legend.",
                  intro=asks)["an old Welsh legend"] == ""


def test_a_role_is_the_argument_a_question_names_only_when_headed_by_it():
    """"on a pupil's ability as judged by marks" is the question's "a pupil's ability"; "to version 2 of the Marl
    Format" only mentions the "This Format" it is asked of."""
    from karaka.answering.roles import _headed_by

    def line(text):
        doc = parse(text)
        return Line("doc_L1", text, doc, line_words(text, doc, ""), 0, "", "")

    schooling = line("Schooling is based on a pupil's ability as judged by marks from the first school.")
    assert _headed_by("a pupil's ability", "on a pupil's ability as judged by marks from the first school", schooling)
    terms = line('"This Format" refers to version 2 of the Marl Format.')
    assert not _headed_by("This Format", "to version 2 of the Marl Format", terms)
    heat = line("We use the --heat-unit=C option to say that the heat unit is a calorie.")  # the option is the unit
    assert _headed_by("the unit of heat", "the --heat-unit=C option to say that the heat unit is a calorie", heat)


def test_the_text_a_question_asks_of_is_its_document():
    """"the licence text" is the document the line is in, as "the manual" is; the notice need not say "text"."""
    assert proved("Who holds the copyright of the licence text?", "Copyright (C) 2019 Tern Works, Inc.",
                  context="TERN PUBLIC LICENCE")["Tern Works, Inc."] == ""


def test_the_mark_that_ends_a_question_is_not_part_of_its_code():
    why = proved("As of which release can you use --keep-warm=yes?", "As of 2.4.0, try using the --keep-warm=yes option.")
    assert why["2.4.0"] == ""


def test_a_bibliography_credits_a_work_to_its_owner_or_to_whom_it_is_by():
    """No verb says who wrote it: "Ada Quist and Bo Lind's book "…"", "the paper "…" by R. Holm, T. Vik, and L. Aas"."""
    book = 'For the history of the port, see Ada Quist and Bo Lind’s book "Tides of Varna", Harbour Press, 1984.'
    paper = 'A fuller account can be found in the paper "Counting Small Boats" by R. Holm, T. Vik, and L. Aas.'
    assert proved("Who wrote the book Tides of Varna?", book)["Ada Quist and Bo Lind’s"] == ""
    assert proved("Who wrote the paper Counting Small Boats?", paper)["R. Holm, T. Vik, and L. Aas"] == ""
    assert "lacks read" in proved("Who read the paper Counting Small Boats?", paper)["R. Holm"]  # no reading said
    assert "lacks wrote" in proved("Who wrote the book Tides of Varna?",
                                   'Ada Quist reviewed the book "Tides of Varna" for a magazine.')["Ada Quist"]
    assert best("Who wrote the paper Counting Small Boats?", paper)[1] == ""  # as the reader reads the line


def test_a_question_whose_verb_is_written_otherwise_asks_no_cause():
    """"written" keys as "writ", no word of the question: no causative is looked for, and nothing fails."""
    from karaka.answering.other import _caused

    assert not _caused(analyse("When was the kettle manual written?"))
    assert _caused(analyse("Which option makes the kettle keep the water warm?"))


def test_an_option_entry_that_holds_its_description_takes_none_from_the_next_line():
    """Unparsed German: "-l, --liste listet alle Farben auf." is a key with its description, not a key alone."""
    alone = line_words("-T, --tabelle", None, "", following="listet alle Farben in einer Tabelle auf.")
    assert alone.entry and "Tabelle" in alone.intro_text  # a key alone: the line after it describes it
    held = line_words("-l, --liste listet alle Farben auf.", None, "",
                      following="-T, --tabelle listet alle Farben in einer Tabelle auf.")
    assert not held.entry and "Tabelle" not in held.intro_text
