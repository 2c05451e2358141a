"""What a question asks, read from its parse (or, in French and German, from its words); made-up questions."""

import pytest

from karaka.answering import kinds as k
from karaka.answering.question import analyse
from karaka.answering.stems import key, same
from karaka.nlp.questions import question_plan


@pytest.mark.parametrize("question,kind,focus", [
    ("When did the ferry first sail?", k.DATE, ""),
    ("In which year was the lighthouse built?", k.DATE, "year"),
    ("Who painted the chapel ceiling?", k.NAME, ""),
    ("Which author wrote the field guide?", k.NAME, "author"),
    ("Where did the caravan stop?", k.PLACE, ""),
    ("Why did the orchard flood?", k.REASON, ""),
    ("How do you reset the counter?", k.MANNER, ""),
    ("How many rooms does the inn have?", k.QUANTITY, "rooms"),
    ("How long does the glaze take to dry?", k.QUANTITY, ""),
    ("What is the maximum size of an upload?", k.QUANTITY, "size"),
    ("Which version added the export button?", k.VERSION, "version"),
    ("Which flag disables the colour output?", k.CODE, "flag"),
    ("Which environment variable sets the cache directory?", k.CODE, "variable"),
    ("What is the default value of the retry setting?", k.VALUE, "value"),
    ("Which storage engine does the server use?", k.TERM, "engine"),
    ("Which environment variable changes where the tool keeps its data?", k.CODE, "variable"),
    ("Did the ferry sail at dawn?", k.POLAR, ""),
    ("Is the north gate guarded?", k.POLAR, ""),
    ("The ferry left at dawn. Did it reach the island?", k.POLAR, ""),
    ("Was the ferry or the barge built first?", k.TERM, ""),  # names its answers: not yes or no
])
def test_the_question_word_and_the_noun_asked_about_say_the_kind(question, kind, focus):
    asked = analyse(question)
    assert (asked.kind, asked.focus) == (kind, key(focus) if focus else "")


def test_an_artefact_noun_says_the_shape_of_its_name():
    assert analyse("Which option turns on verbose logging?").shape == "flag"
    assert analyse("Which environment variable names the proxy?").shape == "variable"
    assert analyse("Which file holds the settings?").shape == "path"
    assert analyse("Which address should bugs be sent to?").shape == "address"


def test_the_counted_noun_of_a_quantity():
    assert analyse("How many chairs stand in the hall?").counted == "chair"
    assert analyse("What is the largest number of files a folder may hold?").counted == "file"


def test_only_the_main_verb_is_required_and_a_causative_hands_it_on():
    asked = analyse("Which switch makes the printer use both sides of the paper?")
    verbs = [t for t in asked.terms if t.role == "verb"]
    assert [t.key for t in verbs] == [key("use")] and all(t.hard for t in verbs)
    asked = analyse("Which command does the guide recommend running after an upgrade?")
    assert asked.verb == key("recommend")
    assert not next(t for t in asked.terms if t.text == "running").hard


def test_a_verb_the_tagger_takes_for_a_noun_is_still_the_verb():
    asked = analyse("Which option prints the totals to the screen?")
    assert asked.focus == "option" and asked.verb == key("print")


def test_a_do_question_s_verb_is_the_word_after_its_subject_whatever_its_tag():
    """"What did Mara Holt lower into the well?": the tagger reads "lower" as an adverb; it stands where the
    base form goes. A function word there ("What does Bob do then?") is no verb."""
    assert analyse("What did Mara Holt lower into the well?").verb == "lower"
    assert analyse("What did the old crew lower?").verb == "lower"
    assert analyse("What does Bob do then?").verb == ""


def test_a_fronted_preposition_the_tagger_took_for_the_root_leaves_the_verb_its_complement():
    assert analyse("With what did the guards bar the gate?").verb == key("bar")


def test_what_was_x_done_with_asks_about_the_action_not_for_an_x():
    asked = analyse("What was the dog poisoned with?")
    assert asked.focus == "" and asked.verb == key("poison")
    assert analyse("What is the default line length?").focus == "length"


def _parsed(words, pos, deps, heads):
    from spacy.tokens import Doc

    from karaka.nlp import parse

    vocab = parse("x").vocab
    return Doc(vocab, words=words, pos=pos, deps=deps, heads=heads)


def test_the_verb_the_asking_words_hang_on_is_the_question_s_whatever_the_tagger_made_the_root():
    from karaka.answering.verbs import verb_of

    # "Who wrote the tarn walks guide?" read as "walks" the root with "wrote" its clausal subject
    doc = _parsed(["Who", "wrote", "the", "tarn", "walks", "guide", "?"],
                  ["PRON", "VERB", "DET", "NOUN", "VERB", "NOUN", "PUNCT"],
                  ["nsubj", "csubj", "det", "dobj", "ROOT", "dobj", "punct"], [1, 4, 3, 1, 4, 4, 4])
    assert verb_of(doc).text == "wrote"
    # "What does frob watch learn to print?" read as "frob" the root, "watch learn" a clause under it
    doc = _parsed(["What", "does", "frob", "watch", "learn", "to", "print", "?"],
                  ["PRON", "AUX", "VERB", "NOUN", "VERB", "PART", "VERB", "PUNCT"],
                  ["nsubj", "aux", "ROOT", "nsubj", "ccomp", "aux", "xcomp", "punct"], [2, 2, 2, 4, 2, 6, 4, 2])
    assert verb_of(doc).text == "learn"
    assert analyse("How long is the term of the steward who keeps the keys?").verb == ""  # "steward" is no verb


def test_what_the_answer_leaves_out_and_document_words_only_weigh():
    asked = analyse("How do you install the client without its graphical tools on a server?")
    soft = {t.text for t in asked.terms if not t.hard}
    assert {"graphical", "tools"} <= soft and "client" not in soft
    asked = analyse("Who maintains the parser according to its manual page?")
    assert not any(t.hard for t in asked.terms if t.text in ("manual", "page"))


def test_a_question_about_what_something_does_asks_for_its_description():
    assert analyse("What does the --dry-run flag do?").defines == "--dry-run flag"
    assert analyse("What happens to the queue when the server restarts?").defines == "queue"


def test_versions_names_and_quotes_the_documents_must_hold():
    assert analyse('When was release 4.2.1 of "Blue Kite" published?').required == ("4.2.1", "blue kite")


def test_french_and_german_questions_are_read_by_their_words():
    asked = analyse("Welche Umgebungsvariable enthält den Pfad zum Zwischenspeicher?")
    assert asked.lang == "de" and asked.kind == k.CODE and asked.shape == "variable"
    hard = {t.text for t in asked.terms if t.hard}
    assert hard == {"pfad", "zwischenspeicher"}  # German nouns have capitals; the verb only weighs
    asked = analyse("Combien de fichiers le programme crée-t-il ?")
    assert asked.lang == "fr" and asked.kind == k.QUANTITY


def test_what_a_thing_does_or_means_is_asked_in_german_french_and_spanish_too():
    asked = analyse("Was macht die Option -k?")  # "was" then a German verb: not English "Was the …?"
    assert asked.lang == "de" and asked.defines == "Option -k"
    assert {t.text for t in asked.terms if t.hard} == {"-k"}  # the code must be there; "Option" is its frame
    assert analyse("Was bedeutet der Rückgabewert 2?").defines == "Rückgabewert 2"  # an umlaut is German
    assert analyse("Que fait l'option --force ?").defines == "option --force"
    assert analyse("Qué significa el código 3?").defines == "código 3"
    assert analyse("Was the file read?").lang == "en"


def test_a_program_s_name_the_tagger_reads_as_a_preposition_is_a_word_of_the_question():
    asked = analyse("What frob exit code means that the disk is full?")  # "frob" tagged a preposition
    assert asked.focus_text == "code" and "frob" in {t.text for t in asked.terms}
    assert analyse("What about the dog?").focus_text == ""  # "about" is one


def test_an_english_noun_that_is_a_function_word_elsewhere_is_a_word_of_an_english_question():
    # French "son" (his), German "man" (one) and "die" (the) are stop words of those languages only
    assert {t.text for t in analyse("Who was Garrick's son?").terms} == {"Garrick", "son"}
    assert "man" in {t.text for t in analyse("Who rang the bell for the old man?").terms}
    asked = analyse("Welche Datei liest man, wenn die Option fehlt?")
    assert asked.lang == "de" and not {"man", "die"} & {t.text for t in asked.terms}


def test_word_forms_match():
    assert same(key("mapping"), key("map")) and same(key("released"), key("release"))
    assert same(key("compression"), key("compress")) and not same(key("general"), key("gear"))


def test_a_name_the_tagger_took_for_a_verb_is_part_of_which_thing_is_asked():
    asked = analyse("Which curl flag limits only the upload speed?")
    assert (asked.kind, asked.shape, asked.focus, asked.verb) == (k.CODE, "flag", "flag", "limit")
    asked = analyse("Which wget option retries only the failed downloads?")
    assert asked.focus == "option" and asked.verb == "retry"
    assert analyse("What took place at the harbour?").kind != k.PLACE  # "took" is the verb there


def test_a_plural_looking_word_before_a_question_word_is_the_verb_the_tagger_took_for_a_noun():
    asked = analyse("Which environment variable changes where the tool keeps its data?")
    assert asked.verb == key("changes") and asked.focus == key("variable")


@pytest.mark.parametrize("question,hard", [("What is wobble?", {"wobble"}), ("Who was Ada Quist?", {"ada", "quist"})])
def test_what_is_x_makes_x_required_whatever_its_tag(question, hard):
    asked = analyse(question)
    assert {t.key for t in asked.terms if t.hard} >= {key(w) for w in hard}


def test_a_question_of_its_focus_alone_keeps_the_focus_as_a_term():
    asked = analyse("What is the default timeout?")
    assert [t.key for t in asked.terms] == [key("timeout")] and not asked.terms[0].hard


def test_an_acronym_s_plural_keys_as_the_acronym():
    assert key("CPUs") == key("CPU") == "cpu" and key("status") != "statu"


def test_an_ordinal_adverb_is_an_order_not_a_number_the_line_must_hold():
    asked = analyse("Which file does the tool read first when it starts?")
    first = next(t for t in asked.terms if t.text == "first")
    assert not first.hard and first.role == "word"
    asked = analyse("Who was the second keeper of the lighthouse?")
    assert next(t for t in asked.terms if t.text == "second").hard  # an ordinal of a noun picks one of them


@pytest.mark.parametrize("question,kind,verb", [
    ("The guide warns about slow disks when copying. Which folder does it suggest instead?", k.CODE, "suggest"),
    ("When the kiln cools, which glaze does the potter apply?", k.TERM, "apply"),
    ("Where the trail ends, who built the hut?", k.NAME, "build"),
    ("When did the kiln crack?", k.DATE, "crack"),
])
def test_the_question_word_is_the_asking_sentences_not_a_clause_before_it(question, kind, verb):
    asked = analyse(question)
    assert (asked.kind, asked.verb) == (kind, key(verb))


def test_a_word_that_takes_did_is_the_question_s_verb_whatever_its_tag():
    """spaCy's small tagger reads "nail" in "What did Ruud nail …?" as a noun; a noun takes no "did"."""
    assert analyse("What did Ruud nail to the door?").verb == "nail"


@pytest.mark.parametrize(("question", "verb"), [
    ("When was a tall red barn painted?", "paint"),  # the tagger hangs the participle on the noun
    ("When is the old ferry leaving the harbour?", "leav"),
    ("When was Ann's garden being dug?", "dig"),  # a participle the tagger made the complement of "be"
    ("Who thought was the best singer in Oslo?", "think"),  # the clause that is the subject
])
def test_the_participle_under_be_is_the_question_s_verb(question, verb):
    assert analyse(question).verb == verb


@pytest.mark.parametrize(("question", "verb"), [
    ("What is the Korvel engine based on?", "base"),  # the tagger hangs "based on" on the subject after "what is"
    ("What was the old barn made of?", "make"),
    ("What is the spare drawer used to hold?", "use"),
])
def test_a_participle_left_waiting_for_the_wh_word_is_the_question_s_verb(question, verb):
    assert analyse(question).verb == verb


def test_a_participle_with_its_own_object_describes_the_noun_it_follows():
    assert analyse("Who is the man named Ishmael Brook?").verb == ""  # who he is, not a naming


def test_a_subject_the_tagger_took_for_a_verb_is_a_noun_the_line_must_hold():
    terms = {t.text: (t.role, t.hard) for t in analyse("Why should hens sleep?").terms}
    assert terms["hens"] == ("noun", True) and analyse("Why should hens sleep?").verb == "sleep"
    terms = {t.text: (t.role, t.hard) for t in analyse("What can otters be fed?").terms}  # parsed as a clause
    assert terms["otters"] == ("noun", True)


def test_which_x_of_y_asks_for_an_x():
    assert analyse("Which option of quill may an ordinary user use?").focus == "option"


def test_a_noun_before_the_noun_asked_about_is_no_verb_however_the_tagger_read_it():
    """"Which build system compiles …?" asks what compiles (its doer), not what builds a system."""
    question = "Which build system compiles the converter on Windows?"
    asked = analyse(question)
    assert (asked.focus, asked.verb) == ("system", "compil")
    step = question_plan(question)["steps"][0]
    assert (step["verb"], step["extract"], list(step["karakas"])) == ("compile", "KARTA", ["KARMA"])


def test_a_phrasal_verb_keeps_its_particle():
    assert analyse("What do two good habits make up?").particle == "up"
    assert analyse("What did the crew make?").particle == ""


def test_a_linking_verb_leaves_the_action_to_its_adjective():
    terms = {t.text: t.hard for t in analyse("How long must a signed token stay valid?").terms}
    assert terms == {"signed": False, "token": True, "stay": False, "valid": True}


def test_the_doer_and_the_receiver_of_an_action_are_two_words():
    assert not same(key("employer"), key("employee")) and not same(key("lessor"), key("lessee"))
    assert same(key("employees"), key("employee")) and same(key("degrees"), key("degree"))


def test_the_noun_standard_is_a_norm_and_the_adjective_a_default():
    assert not analyse("Which standard does the converter conform to?").default
    assert analyse("Which standard does the converter conform to?").kind == "term"
    assert analyse("What is the standard port of the converter?").default


def test_german_modal_verbs_and_conjunctions_are_no_words_a_line_must_hold():
    assert [t.text for t in analyse("Wie viele Zeichen darf ein Name haben, damit er passt?").terms] == ["name", "passt"]


def test_a_plural_noun_the_parse_gives_a_subject_and_an_object_is_the_question_s_verb():
    asked = analyse("Which environment variable lists host names that should skip the cache?")
    assert (asked.verb, asked.focus) == ("list", "variabl")


def test_the_verb_after_a_do_read_as_the_root_is_the_question_s_not_the_one_of_its_when_clause():
    assert analyse("What exit code does frobz return when it cannot open the lock file?").verb == "return"
    assert analyse("Which status does vipwx return when the file is locked?").verb == "return"
    asked = analyse("What exit value does chmodx return when it cannot find the group file?")  # "chmodx" tagged a verb
    assert asked.verb == "return" and any(t.text == "chmodx" for t in asked.terms)
    asked = analyse("How does ZORB measure program progress?")  # "measure" tagged a noun, "progress" the verb
    assert asked.verb == "measur" and [t.role for t in asked.terms if t.text == "ZORB"] == ["name"]


def test_an_empty_line_parses_to_nothing():
    from karaka.nlp import parse

    assert len(parse("")) == 0 and len(parse("   ")) <= 1


def test_which_file_asks_a_file_s_name_unless_it_asks_what_speaks_of_something():
    from karaka.nodes.query import _WHICH

    assert not _WHICH.match("Which file is loaded in a web browser to run the viewer?")
    assert not _WHICH.match("Which file contains the list of login shells?")
    assert _WHICH.match("Which file mentions the storm?") and _WHICH.match("Which chapter is about the whale?")


def test_what_kind_of_a_people_noun_asks_a_kind_not_a_name():
    assert analyse("What kind of text editor is zed?").kind == "term"
    assert analyse("Which editor wrote the preface?").kind == "name"


def test_a_capitalised_word_inside_a_question_tagged_as_a_verb_is_a_name_the_line_must_hold():
    asked = analyse("What does Fizzgrind model?")  # the tagger reads the unknown name as a verb
    named = [t for t in asked.terms if t.text == "Fizzgrind"]
    assert named and named[0].hard and named[0].role == "name"


def test_a_plural_noun_a_relative_pronoun_follows_is_no_verb_and_a_passive_s_participle_is():
    asked = analyse("How are the Frobz crates which hold apples labelled?")
    assert asked.verb == key("labelled") or asked.verb == key("label")
    assert [t.role for t in asked.terms if t.text == "crates"] == ["noun"]


def test_a_german_amount_question_counts_only_after_viele_and_its_noun_is_the_capitalised_word():
    """"Wie groß ist die größte Stückgröße?" measures the Stückgröße (any unit answers); "wie viele Stücke" counts."""
    size = analyse("Wie groß ist die größte Stückgröße standardmäßig?")
    assert (size.kind, size.focus, size.counted, size.default) == (k.QUANTITY, key("Stückgröße"), "", True)
    assert analyse("Wie viele Stücke gibt es?").counted == key("Stücke")
    assert analyse("Wie heißt die Ausgabedatei?").kind == k.TERM  # the name, not a way
    assert analyse("How is the frobnicate function called?").kind == k.MANNER  # English: may ask how it is invoked


def test_a_hyphenated_word_in_small_letters_names_a_program_in_a_question_the_parser_does_not_read():
    terms = {t.text: (t.role, t.hard) for t in analyse("Was kann mit frob-split nicht zerteilt werden?").terms}
    assert terms["frob-split"] == ("name", True) and terms["zerteilt"] == ("word", False)
    french = {t.text: t.hard for t in analyse("Quel taux de compression frob obtient-il sur des fichiers ?").terms}
    assert french["obtient-il"] is False  # a verb with its pronoun


def test_what_a_thing_does_in_a_place_asks_what_it_does():
    assert analyse("What does Zorp do in the sample disclaimer?").defines == "Zorp"


def test_a_foreign_word_for_a_time_asks_a_time_only_in_its_own_language():
    assert analyse("Text between which tags is skipped?").kind == k.TERM  # English tags, no German days
    assert analyse("An welchem Tag erschien die Version?").kind == k.DATE


def test_the_word_after_do_support_is_the_verb_whatever_its_tag():
    asked = analyse("Where did Mr. and Mrs. Varga live?")  # the tagger reads "live" as an adverb here
    assert asked.verb == "live" and any(t.role == "verb" and t.hard for t in asked.terms)


def test_the_text_of_a_document_is_the_document_and_other_text_is_asked_about():
    soft = {q: [t.hard for t in analyse(q).terms if t.text.lower() == "text"] for q in (
        "Who holds the copyright of the Tern licence text?", "Who wrote the text of the Tern licence?",
        "Text between which brackets is skipped?", "Which flag sets the text colour?", "Which flag wraps the long text?")}
    assert soft == {"Who holds the copyright of the Tern licence text?": [False],
                    "Who wrote the text of the Tern licence?": [False],
                    "Text between which brackets is skipped?": [True], "Which flag sets the text colour?": [True],
                    "Which flag wraps the long text?": [True]}
