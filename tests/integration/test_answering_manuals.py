"""A made-up library's manual and licence, offline: what its lines prove for a user's questions."""

import pytest

from karaka.app.runner import run_query
from tests.fakes import grounded, parsed_workspace

MANUAL = (
    "# Wobble",
    "",
    "Wobble is a small HTTP client library for Python.",
    "",
    "## Configuration",
    "",
    "The `timeout` setting controls how long a request may take. It defaults to 30 seconds.",
    "",
    "The maximum number of retries is 5.",
    "",
    "Wobble runs on x86-64 CPUs with AVX2.",
    "",
    "Logs are written to /var/log/wobble.log.",
    "",
    "The `--depth` option limits recursion; the default is 3.",
    "",
    "Only administrators may delete a session.",
    "",
    "The `--retry` option sets how often a request is tried again; 0 makes wobble do no retries (the default).",
)
LICENCE = ("Permission is granted to copy this software, provided that the notice is kept.",
           "This licence is governed by the laws of the State of Oregon.")


@pytest.fixture(scope="module")
def ctx(tmp_path_factory):
    return parsed_workspace(tmp_path_factory.mktemp("manual"), {"wobble.md": MANUAL, "LICENCE.txt": LICENCE})


def test_a_default_is_read_from_the_sentence_after_the_one_that_names_the_setting(ctx):
    """"What is the default timeout?" has no word but its focus: the focus ties the line to it."""
    assert grounded(ctx, "What is the default timeout?") == ["30 seconds"]


def test_a_copula_says_a_bare_number_is_the_thing_asked_about(ctx):
    assert grounded(ctx, "What is the maximum number of retries?") == ["5"]


def test_a_bare_number_of_another_thing_is_not_proved(ctx):
    assert run_query(ctx, "What is the maximum number of connections?")["status"] != "GROUNDED"


def test_what_is_x_is_answered_by_what_the_line_says_x_is_whatever_the_tagger_made_of_x(ctx):
    assert "HTTP client library" in grounded(ctx, "What is wobble?")[0]


def test_an_acronym_s_plural_is_the_noun_asked_about(ctx):
    assert "x86-64" in grounded(ctx, "Which CPUs does wobble run on?")[0]


def test_a_span_headed_by_the_noun_asked_about_is_of_that_kind(ctx):
    assert "State of Oregon" in grounded(ctx, "Which laws govern the licence?")[0]


def test_where_is_answered_by_a_path(ctx):
    assert grounded(ctx, "Where are the logs written?") == ["/var/log/wobble.log"]


def test_a_bare_number_the_line_calls_the_default_of_what_it_names_answers_a_default_question(ctx):
    assert grounded(ctx, "What is the default depth?") == ["3"]


def test_a_number_the_default_is_said_of_only_further_on_stays_a_bare_number(ctx):
    """"0 makes wobble do no retries (the default)": the default is "no retries", not the bare 0."""
    result = run_query(ctx, "How many retries does wobble do by default?")
    assert result["answers"][:1] != ["0"]


def test_who_is_answered_by_the_doer_the_line_names_by_a_common_noun(ctx):
    assert grounded(ctx, "Who may delete a session?") == ["Only administrators"]


GERMAN = (
    "BESCHREIBUNG",
    "       frob verdichtet Dateien mit dem Verfahren LZ77.",
    "",
    "OPTIONEN",
    "       -l, --level=STUFE",
    "              Die Kompressionsstufe festlegen; die Voreinstellung ist 6.",
    "",
    "       -k, --kompakt",
    "              Leere Zeilen entfernen.",
    "",
    "UMGEBUNGSVARIABLEN",
    "       FROB_OPTS",
    "              Standardoptionen, die vor den Befehlszeilenoptionen gelesen werden.",
    "",
    "RÜCKGABEWERT",
    "       0      Erfolg.",
    "       2      Ungültige Option.",
    "",
    "AUTOREN",
    "       Geschrieben von Ilka Brandt und Tomasz Wierz.",
)


@pytest.fixture(scope="module")
def german(tmp_path_factory):
    return parsed_workspace(tmp_path_factory.mktemp("manpage"), {"frob.1.de.txt": GERMAN})


def test_a_german_default_is_called_voreinstellung(german):
    result = run_query(german, "Was ist die Voreinstellung der Kompressionsstufe?")
    assert result["status"] == "GROUNDED" and result["answers"] == ["6"]


def test_a_german_compound_with_standard_that_is_not_the_thing_asked_for_asks_no_default(german):
    result = run_query(german, "Welche Umgebungsvariable enthält Standardoptionen?")
    assert result["status"] == "GROUNDED" and result["answers"] == ["FROB_OPTS"]


def test_a_question_word_inside_a_german_question_says_its_language_and_a_shaped_name_after_the_noun_answers(german):
    from karaka.answering.languages import language

    assert language("Mit welchem Verfahren verdichtet frob Dateien?") == "de"
    result = run_query(german, "Mit welchem Verfahren verdichtet frob Dateien?")
    assert result["status"] == "GROUNDED" and result["answers"] == ["LZ77"]


def test_names_joined_by_a_german_und_are_one_list(german):
    assert grounded(german, "Wer sind die Autoren von frob?") == ["Ilka Brandt und Tomasz Wierz"]


def test_a_german_question_what_an_entry_does_or_means_is_answered_by_its_description(german):
    """"Was macht die Option -k?" asks what "What does the -k option do?" asks: the entry's own line says it."""
    result = run_query(german, "Was macht die Option -k?")
    assert result["status"] == "GROUNDED" and result["answers"] == ["Leere Zeilen entfernen"]
    result = run_query(german, "Was bedeutet der Rückgabewert 2?")
    assert result["status"] == "GROUNDED" and result["answers"] == ["Ungültige Option"]


@pytest.fixture(scope="module")
def handbook(tmp_path_factory):
    return parsed_workspace(tmp_path_factory.mktemp("handbook"), {
        "handbook.txt": ("The Quill Lantern Handbook", "Ada Marsh", "March 3, 2021", "",
                         "Lanterns hang from the ceiling of the hall."),
        "history.txt": ("The History of Lamp", "Cy Dunn", "", "Lamp was first released in 2019."),  # no PERSON for it
        "lamp.md": ("# Lamp", "", "The `--bright` option sets the brightness; the default is 7.", "",
                    "The `--dim` option lowers the brightness by two steps."),
        "CHANGELOG.md": ("# Changelog", "", "## 2.1.0 - 2022-05-04", "", "- Added the `--quiet` flag.", "",
                         "## 2.0.0 - 2021-11-30", "", "- The `--verbose` flag now prints timings."),
    })


def test_a_line_of_names_alone_says_who_wrote_a_document_and_no_other_action(handbook):
    assert grounded(handbook, "Who wrote the Quill Lantern Handbook?") == ["Ada Marsh"]  # a title page's byline
    assert grounded(handbook, "Who wrote the History of Lamp?") == ["Cy Dunn"]
    for question in ("Who translated the Quill Lantern Handbook?", "Who led the Quill Lantern Handbook?",
                     "Who maintains the History of Lamp?"):
        assert run_query(handbook, question)["status"] != "GROUNDED", question


def test_a_neighbour_names_no_option_for_a_line_that_names_another(handbook):
    assert grounded(handbook, "What is the default brightness?") == ["7"]
    assert run_query(handbook, "What does the --dim option default to?")["status"] != "GROUNDED"  # --bright's 7


def test_a_date_heading_dates_an_entry_only_for_the_action_the_entry_says(handbook):
    assert grounded(handbook, "When was the --quiet flag added?") == ["2022-05-04"]
    # "now prints" (a verb the tagger read as a plural noun) is no adding
    assert run_query(handbook, "When was the --verbose flag added?")["status"] != "GROUNDED"


QUILL_PAGE = (
    "QUILL(1)                    User Commands                    QUILL(1)", "",
    "NAME", "       quill - index and search plain-text notes", "",
    "DESCRIPTION", "       quill builds a search index of the notes in DIRECTORY.",
    "       The index is stored in .quill/index.db and is updated incrementally.",
    "       The cache lives in /var/cache/quill and is rebuilt by /usr/sbin/quill-cache.",
    "       After an upgrade the cache «/var/cache/quill» should be rebuilt.", "",
    "OPTIONS", "       -r, --rebuild", "              Rebuild the index from scratch.", "",
    "       -q, --quiet", "              Print nothing but errors.", "",
    "       --max-size=BYTES", "              Skip files larger than BYTES. Defaults to 10485760 (10 MiB).", "",
    "ENVIRONMENT", "       QUILL_HOME", "              Where quill keeps its configuration; ~/.config/quill if unset.", "",
    "EXIT STATUS", "       0      Success.", "       2      The directory does not exist.",
    "       3      The index is locked by another process.", "",
    "AUTHORS", "       Written by Rhea Tolland and Marek Osti.", "",
    "quill 1.0                   2023-01-01                       QUILL(1)",
)


@pytest.fixture(scope="module")
def quill(tmp_path_factory):
    return parsed_workspace(tmp_path_factory.mktemp("quill"), {
        "quill.1.txt": QUILL_PAGE,
        "README.md": ("# Inkpot", "", "Inkpot converts Markdown notes to PDF.", ""),
        "LICENSE": ("Copyright 2021 Orla Venn", "", "Licensed under the Apache License, Version 2.0.", ""),
        "CHANGES.md": ("# Changes", "", "## 1.4.0 (2023-02-11)", "", "- Added the `--toc` option.", "",
                       "## 1.3.2 (2022-10-30)", "", "- Fixed a crash on empty notes.", ""),
    })


def test_a_manual_page_s_running_header_and_footer_are_no_content(quill, tmp_path):
    """"QUILL(1)   User Commands   QUILL(1)" once answered "Who wrote quill?" as a line of names alone."""
    from karaka.loading import load_file

    (tmp_path / "quill.1.txt").write_text("\n".join(QUILL_PAGE) + "\n")
    texts = [line.text for line in load_file(tmp_path / "quill.1.txt", 1000, [])]
    assert texts[0] == "NAME" and not any("QUILL(1)" in t for t in texts)
    assert "User Commands" not in run_query(quill, "Who wrote quill?")["answers"]


def test_a_path_is_one_token_and_a_data_path_is_no_program(quill):
    assert grounded(quill, "Where is the index stored?") == ["in .quill/index.db"]  # not "in quill"
    assert grounded(quill, "Which program rebuilds the cache?") == ["/usr/sbin/quill-cache"]  # not /var/cache/quill


def test_what_an_option_does_is_the_description_under_its_entry(quill):
    assert grounded(quill, "What does the -q option do?") == ["Print nothing but errors"]
    assert grounded(quill, "What does --rebuild do?") == ["Rebuild the index from scratch"]


def test_an_entry_s_key_under_its_heading_answers_what_the_heading_s_key_means(quill):
    assert grounded(quill, "What does exit status 3 mean?") == ["The index is locked by another process"]
    assert run_query(quill, "What does exit status 7 mean?")["status"] != "GROUNDED"


def test_a_file_with_no_suffix_is_read_and_a_present_tense_the_tagger_misreads_is_a_verb(quill):
    assert grounded(quill, "Who holds the copyright?") == ["Orla Venn"]  # LICENSE, no suffix
    assert grounded(quill, "What does Inkpot convert?") == ["Markdown notes to PDF"]  # "converts" tagged a noun
    result = run_query(quill, "What does Inkpot convert notes to?")
    assert result["status"] != "GROUNDED" or result["answers"] != ["Markdown"]


def test_the_noun_a_question_sets_before_a_name_is_said_by_the_name(quill):
    """"version 1.4.0": a heading "1.4.0 (2023-02-11)" need not say "version"."""
    assert grounded(quill, "When was version 1.4.0 released?") == ["2023-02-11"]
    assert run_query(quill, "When was version 1.5.0 released?")["status"] != "GROUNDED"



def test_what_a_program_does_is_its_manual_s_name_line_whatever_the_tagger_calls_its_name(quill):
    """"quill" is tagged an auxiliary in "What does quill do?"; "Where quill keeps …" says where, not what."""
    assert grounded(quill, "What does quill do?") in (["index and search plain-text notes"],
                                                      ["builds a search index of the notes in DIRECTORY"])


def test_every_sentence_under_an_option_s_entry_is_said_of_it_and_a_value_restated_in_brackets_is_one(quill):
    """"Defaults to 10485760 (10 MiB)." is the second sentence under "--max-size=BYTES": said of --max-size,
    and "10 MiB" in brackets is the same value again, no second answer that leaves the first unproved."""
    assert grounded(quill, "What does --max-size default to?") == ["10485760"]
    assert grounded(quill, "What is the default value of --max-size?") == ["10485760"]



@pytest.fixture(scope="module")
def tallow(tmp_path_factory):
    return parsed_workspace(tmp_path_factory.mktemp("tallow"), {"README.md": (
        "# Tallow", "", "Tallow is a static site generator written in Rust.", "",
        "## Quick start", "", "Create a site with `tallow new mysite`, then run `tallow serve` to preview it.", "",
        "## Configuration", "", "| Key | Default | Meaning |", "|---|---|---|",
        "| `base_url` | `/` | The URL the site is served from |", "| `theme` | `plain` | The theme to use |", "")})


def test_the_question_s_action_tells_two_commands_of_one_line_apart(tallow):
    assert grounded(tallow, "Which command previews the site?") == ["tallow serve"]


def test_a_table_row_that_names_a_key_is_no_entry_over_the_next_row(tallow):
    """The `base_url` row brings the `theme` row with it; the theme's row says nothing of what base_url means."""
    result = run_query(tallow, "What does base_url mean?")
    assert result["status"] != "GROUNDED" or "theme" not in result["answers"][0]


@pytest.fixture(scope="module")
def kestrel(tmp_path_factory):
    return parsed_workspace(tmp_path_factory.mktemp("kestrel"), {"notes.md": (
        "# Kestrel", "", "The `purge` command deletes every cached page.", "")})


def test_code_that_does_another_action_than_the_question_s_is_no_answer_and_the_action_is_no_name(kestrel):
    """The question's verb may be missing from a line that only names the code; not from one that says what it does."""
    assert grounded(kestrel, "Which command deletes cached pages?") == ["purge"]
    result = run_query(kestrel, "Which command adds cached pages?")
    assert result["status"] != "GROUNDED" and "deletes" not in result["answers"]  # "command deletes" names no command


@pytest.fixture(scope="module")
def spec(tmp_path_factory):
    return parsed_workspace(tmp_path_factory.mktemp("spec"), {"wren-protocol.md": (
        "# The Wren Transfer Protocol", "", "Edited by Sunniva Dahl. Published 14 March 2022.", "",
        "## Frame Format", "", "Every frame starts with a 12-byte header followed by the payload.", "",
        "## Flags", "", "The `FIN` flag ends a session.", "")})


def test_code_the_line_calls_by_the_noun_asked_about_is_one_whatever_its_shape(spec):
    """"Which flag …?" wants a dash-led flag, but "the `FIN` flag" is called a flag by its line."""
    assert grounded(spec, "Which flag ends a session?") == ["FIN"]


def test_a_number_joined_to_its_unit_is_an_amount_and_how_long_a_thing_is_may_be_a_size(spec):
    """"a 12-byte header": "How long is the header?" asks its size; "how long does it wait?" a time."""
    assert grounded(spec, "How long is the frame header?") == ["12-byte"]


def test_a_line_under_the_title_before_any_part_speaks_of_the_document(spec):
    """"Published 14 March 2022." under "The Wren Transfer Protocol" says when the protocol was published."""
    assert grounded(spec, "When was the Wren protocol published?") == ["14 March 2022"]
    assert run_query(spec, "When was the Wren protocol revised?")["status"] != "GROUNDED"


@pytest.fixture(scope="module")
def brindle(tmp_path_factory):
    page = ("<html><body><h1>Brindle Manual</h1>", "<p>This manual covers version 3.2.</p>",
            "<h2>Limits</h2>", "<table><tr><th>Limit</th><th>Value</th></tr>",
            "<tr><td>Maximum file size</td><td>64 GB</td></tr>",
            "<tr><td>Maximum number of hosts</td><td>50</td></tr></table>", "</body></html>")
    licence = ("The Quillon Public License", "", "4. Disclaimer. The Work is provided as is, without warranty of any kind.")
    return parsed_workspace(tmp_path_factory.mktemp("brindle"), {"brindle.html": page, "LICENSE": licence})


def test_a_table_row_s_number_is_the_value_of_what_its_cells_name_and_a_size_counts_no_hosts(brindle):
    assert grounded(brindle, "What is the maximum number of hosts?") == ["50"]  # was "64 GB", the row above


def test_a_version_that_ends_its_sentence_is_found_and_read(brindle):
    assert grounded(brindle, "Which version does the manual cover?") == ["3.2"]


def test_a_line_that_says_the_thing_asked_about_is_absent_answers_no(brindle):
    assert grounded(brindle, "Is the Work provided with a warranty?") == ["No"]
    assert grounded(brindle, "Is the Work provided without warranty?") == ["Yes"]


@pytest.fixture(scope="module")
def api(tmp_path_factory):
    return parsed_workspace(tmp_path_factory.mktemp("api"), {"heron-api.md": (
        "# Heron API reference", "", "## heron.load(path, strict=False)", "",
        "Reads a Heron file and returns a `Document`.", "", "Raises `FileNotFoundError` if the file does not exist.", "",
        "## heron.dump(doc, path, indent=2)", "", "Writes a `Document` to `path`.", "",
        "## heron.Document", "", "A parsed file. Its `keys()` method returns the top-level keys in file order.", "",
        "The `encoding` attribute holds the file's character encoding, `utf-8` unless the file says otherwise.", "")})


def test_an_exception_is_asked_by_its_noun_and_code_called_by_the_noun_asked_may_share_the_question_s_words(api):
    assert grounded(api, "Which exception does load raise when the file does not exist?") == ["FileNotFoundError"]
    assert grounded(api, "Which method returns the top-level keys?") == ["keys"]  # "keys" is also the question's
    assert grounded(api, "Which attribute holds the character encoding?") == ["encoding"]  # not the value utf-8


def test_a_signature_s_parameters_say_nothing_of_what_it_does_and_a_dotted_name_may_be_a_function(api):
    assert grounded(api, "What does heron.dump do?") == ["Writes a `Document` to `path`"]  # not "(doc, path, indent=2)"
    assert grounded(api, "Which function writes a Document to a path?") == ["heron.dump"]  # not a file "x.dump"


def test_code_another_action_of_the_line_binds_answers_nothing_of_the_question_s_action(api):
    """"Reads a Heron file and returns a `Document`": the Document is what is returned, not what reads."""
    assert "Document" not in run_query(api, "Which function reads a Heron file?")["answers"]


def test_the_lines_under_a_pdf_s_title_before_its_first_part_are_its_title_page(tmp_path):
    """"Lena Varga" under "Osprey Codec Manual" wrote it, she is its author; who edited or translated it the title
    page does not say."""
    from karaka.app.runner import run_ingest
    from karaka.config import Context
    from tests.fakes import text_pdf

    lines = ["Osprey Codec Manual", "Version 1.4", "Lena Varga", "1 Introduction",
             "Osprey is a speech codec for radio links.", "It was designed at Nordlys Labs in 2011."]
    (tmp_path / "docs").mkdir()
    (tmp_path / "docs" / "osprey-manual.pdf").write_bytes(text_pdf([[(72, 740 - 14 * i, t) for i, t in enumerate(lines)]]))
    ctx = Context(workspace=str(tmp_path / "ws"), llm="none", extractor="parser")
    run_ingest(ctx, tmp_path / "docs")
    assert grounded(ctx, "Who wrote the Osprey Codec Manual?") == ["Lena Varga"]
    assert grounded(ctx, "Who is the author of the Osprey Codec Manual?") == ["Lena Varga"]  # after "Version 1.4"
    assert run_query(ctx, "Who edited the Osprey Codec Manual?")["status"] != "GROUNDED"
    assert run_query(ctx, "Who is the translator of the Osprey Codec Manual?")["status"] != "GROUNDED"


def test_a_disclaimer_in_capitals_is_read_as_a_sentence(tmp_path):
    ctx = parsed_workspace(tmp_path, {"LICENSE": ("Copyright 2020 Iris Vale", "",
                                                  'THE SOFTWARE IS PROVIDED "AS IS", WITHOUT WARRANTY OF ANY KIND.')})
    assert grounded(ctx, "Is the software provided with a warranty?") == ["No"]
