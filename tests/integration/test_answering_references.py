"""Made-up reference pages, offline: a German manual page, an HTML list of attributes, a build guide, a README.

Each answer is one a user of such a page would ask for; each wrong answer named here is of a kind the
twentieth session's held-out sets (shelf15, shelf16, shelf17) showed on real pages of these kinds,
written here in made-up words.
"""

import pytest

from karaka.app.runner import run_query
from tests.fakes import grounded, parsed_workspace

MANPAGE = (  # as groff renders a German page: sections in capitals, entries indented, a description below
    "frobsplit(1)                 Frob-Werkzeuge                 frobsplit(1)",
    "",
    "BEZEICHNUNG",
    "       frobsplit - zerteilt große Archive in kleinere Stücke",
    "",
    "BESCHREIBUNG",
    "       frobsplit zerteilt Archivdateien in kleinere Stücke und setzt diese",
    "       wieder zusammen, damit große Dateien auf kleinen Medien Platz finden.",
    "",
    "OPTIONEN",
    "       -k, --stueckgroesse Kibibyte",
    "           Bestimmt, wie viele Kibibyte die größte Stückgröße beim Zerteilen",
    "           hat. Standardmäßig gilt ein Wert von 320 kiB.",
    "",
    "       --lager Verzeichnis",
    "           Legt fest, wo die Stücke abgelegt werden.",
    "           Standardmäßig liegen sie in /var/lib/frob/lager.",
    "",
    "       --farbe Modus",
    "           Wählt den Farbmodus der Ausgabe (seit Frob 2.4). Erlaubt sind drei",
    "           Wörter: auto (Vorgabe), immer und nie.",
    "",
    "       -z, --zusammen Stück …",
    "           Fügt die Stücke zu einem Archiv. Jedes Stück wird Name.XvonY.frob",
    "           benannt; X zählt die Stücke, Y ist ihre Anzahl.",
    "",
    "       --probe",
    "           Probemodus, d.h. frobsplit ändert nichts und zeigt nur, was es täte.",
    "",
    "BEMERKUNGEN",
    "       Hinweis: frobsplit hebt ältere Stücke auf und hängt an ihre Namen die Endung -alt.",
    "",
    "       Verzeichnisse können mit frobsplit nicht zerteilt werden.",
    "",
    "RÜCKGABEWERT",
    "       Bei einem beschädigten Stück endet frobsplit mit Rückgabecode 3, bei",
    "       jedem anderen Fehler mit Rückgabecode 4.",
)
ATTRIBUTES = (  # an HTML reference: a table of contents of bare links, then one small-letter heading per keyword
    "<html><body><h1>Voice Files</h1>",
    "<ul><li><a href='#pitch'>pitch</a></li><li><a href='#rasp'>rasp</a></li>",
    "<li><a href='#owner'>owner</a></li></ul>",
    "<p>Each voice is kept in the quibble-data/ folder as one file.</p>",
    "<h2>Voice Attributes</h2>",
    "<h3>pitch</h3><pre>pitch &lt;base&gt;</pre>",
    "<p>Sets the base pitch of the voice in Hz.</p><p>Default value: 90</p>",
    "<h3>rasp</h3><pre>rasp &lt;value&gt;</pre>",
    "<p>Default value: 40.</p>",
    "<p>Adds a dry hiss to the breath for a hoarse sound.</p>",
    "<h3>voicing</h3><pre>voicing &lt;value&gt;</pre>",
    "<p>Default value: 100</p>",
    "<p>Sets the strength of the vowels.</p>",
    "<h3>owner</h3><pre>owner &lt;name&gt;</pre>",
    "<p>Names the person who looks after the voice. The owner may be any person or a team.</p>",
    "<h3>weight</h3><pre>weight &lt;number&gt;</pre>",
    "<p>The optional weight gives the preference of this voice over others. A low weight means a more",
    "preferred voice. The default value is 7.</p>",
    "<p>The following tags make the voice pause:</p>",
    "<ul><li><code>rule</code></li><li><code>gap</code></li></ul>",
    "</body></html>",
)
GUIDE = (
    "# Building Quibble",
    "",
    "## Running checks",
    "",
    "`make verify` checks the whole tree, including running linters and unit tests.",
    "",
    "To run the linter only, use `make lint`/`qbuild lint`.",
    "",
    "## Queue",
    "",
    "Sets the directory for the queue of parts waiting to be joined. The default is /var/spool/quibble.",
    "",
    "## Firewall",
    "",
    "Running the following script on macOS adds the proxy rules for the `quibble` daemon.",
    "",
    "```bash",
    "sudo ./tools/open-ports.sh",
    "```",
)
README = (
    "Zorp is a small pager for log files.",
    "",
    "A mirror may serve the pager with a signed pledge, valid for at least five years, to hand any visitor the",
    "source, to be served under the terms of Sections 1 and 2 above.",
    "",
    "For the build steps, read the file, \"BUILDING\".",
    "",
    "Quillco hereby gives up every claim on the program `Zorp' (a program to page through logs).",
    "",
    "Ada Quist, Mayor of Nowhere",
)


@pytest.fixture(scope="module")
def ctx(tmp_path_factory):
    return parsed_workspace(tmp_path_factory.mktemp("references"), {
        "frobsplit.de.1.txt": MANPAGE, "voices.html": ATTRIBUTES, "building.md": GUIDE, "README": README,
        "zorp.txt": ("This is the new version (2.3.1) of the log pager.", "", "It pages through logs of any size.")})


def test_a_german_size_question_is_answered_in_any_unit_by_the_default_after_its_description(ctx):
    """"Wie groß" measures (kiB is no count of Stückgröße); "standardmäßig" asks the default."""
    assert grounded(ctx, "Wie groß ist standardmäßig die größte Stückgröße?") == ["320 kiB"]


def test_a_number_right_after_the_noun_asked_about_is_its_value_in_any_language(ctx):
    assert grounded(ctx, "Mit welchem Rückgabecode endet frobsplit bei einem beschädigten Stück?") == ["3"]


def test_how_a_german_page_names_a_thing_asks_for_the_name_not_an_option(ctx):
    answers = grounded(ctx, "Wie heißen die Stücke?")
    assert answers and "XvonY.frob" in answers[0]


def test_a_german_sentence_wrapped_before_a_capitalised_noun_goes_on(ctx):
    """"Erlaubt sind drei / Wörter: …": a German noun's capital starts no new line of the text."""
    result = run_query(ctx, "Welche Wörter erlaubt --farbe?")
    assert any("Erlaubt sind drei Wörter" in str(c.get("text")) for c in result["citations"]), result


def test_a_small_letter_heading_is_the_keyword_its_description_speaks_of(ctx):
    assert "dry hiss" in grounded(ctx, "What does the rasp attribute add?")[0]
    assert grounded(ctx, "Which attribute adds a dry hiss?") == ["rasp"]


def test_a_default_of_a_generic_noun_is_the_default_of_the_word_before_it(ctx):
    """"Default value: 100" under voicing is no default weight value of a voice: "value" is any value."""
    assert run_query(ctx, "What is the default weight value of a voice?")["status"] != "GROUNDED"
    assert grounded(ctx, "What is the default pitch value?") == ["90"]


def test_two_bare_links_in_a_row_are_a_list_and_a_field_s_label_is_no_description(ctx):
    """"rasp" over "owner" in a list of links says nothing of the rasp, nor does "Default value: 40" under it."""
    assert run_query(ctx, "What may the rasp be?")["status"] != "GROUNDED"


def test_a_word_ending_in_a_slash_is_a_directory(ctx):
    assert grounded(ctx, "In which folder is each voice kept?") == ["quibble-data/"]


def test_two_commands_written_as_one_choice_answer_together_and_a_plural_run_names_no_program(ctx):
    assert grounded(ctx, "Which command runs the linter only?") == ["make lint/qbuild lint"]


def test_the_following_script_is_the_code_below_it(ctx):
    assert grounded(ctx, "Which script adds the proxy rules on macOS?") == ["./tools/open-ports.sh"]


def test_the_number_of_a_section_is_no_amount(ctx):
    assert grounded(ctx, "For how long must the signed pledge to hand over the source be valid?") == ["five years"]


def test_a_file_named_after_a_comma_is_the_file(ctx):
    assert grounded(ctx, "Which file gives the build steps?") == ["BUILDING"]


def test_a_description_brings_the_sentence_after_it_that_gives_the_default(ctx):
    """"Sets the queue's directory." over "The default is /var/spool/quibble.": read together for a default."""
    from karaka.answering.pooling import pool
    from karaka.answering.question import analyse
    from karaka.services import get_services

    store = get_services(ctx).workspace
    with store.reading():
        description = next(node for node, text in _lines(store, "building") if text.startswith("Sets the directory"))
        asked = analyse("What is the default directory for the queue of parts?")
        brought = [(line, intro) for line, _, intro in pool(store, asked, [description])]
        assert len(brought) == 2 and brought[1][1] == description
        assert pool(store, analyse("Which directory holds the queue of parts?"), [description]) == [(description, 0, "")]


def _lines(store, doc_id):
    from karaka.store.ids import document_node

    return [(document_node(doc_id, r.line, r.sentence), r.text) for r in store.records.lines(doc_id, 1, 200)]


def test_a_german_abbreviation_of_single_letters_is_no_code(ctx):
    assert grounded(ctx, "Welche Option schaltet den Probemodus ein?") == ["--probe"]


def test_a_german_question_whose_only_name_is_the_page_s_program_needs_its_other_words_in_the_line(ctx):
    """"frobsplit" stands in every line of its own page: "-alt" of a line without "zerteilt" answers nothing."""
    assert run_query(ctx, "Was kann mit frobsplit nicht zerteilt werden?")["status"] != "GROUNDED"


def test_what_a_thing_does_somewhere_is_what_it_does_not_what_another_does_to_it(ctx):
    """"What does Zorp do in the notice?" is not answered by what Quillco gives up."""
    result = run_query(ctx, "What does Zorp do in the notice?")
    assert result["status"] != "GROUNDED" or "claim" not in result["answers"][0], result


def test_a_name_and_its_title_side_by_side_say_who_holds_the_title(ctx):
    assert grounded(ctx, "Who is the Mayor of Nowhere?") == ["Ada Quist"]


def test_an_item_under_a_line_that_says_what_its_items_are_is_one_of_them(ctx):
    """"The following tags make the voice pause:" over "rule": rule is such a tag; "the following tags" names none."""
    assert grounded(ctx, "Which tags make the voice pause?") == ["rule"]


def test_a_question_that_names_only_its_document_is_answered_by_a_line_that_names_what_it_asks(ctx):
    """"Which version of zorp is this?", asked of zorp.txt: "the new version (2.3.1)" names the version."""
    assert grounded(ctx, "Which version of zorp is this?") == ["2.3.1"]

