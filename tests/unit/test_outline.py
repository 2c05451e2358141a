"""Option entries read off lines that carry no structure (a PDF's); made-up lines."""

from karaka.loading.outline import entry_line, outline
from karaka.loading.sentences import Raw


def test_an_entry_is_a_flag_s_signature_not_a_sentence_that_opens_with_it():
    assert entry_line("--pack-level=<low|high> [default: low]")
    assert entry_line("-c --stdout")
    assert not entry_line("--quiet makes frobz print nothing")
    assert not entry_line("-q Print nothing.")


def test_the_lines_after_an_entry_are_its_description_until_the_next_entry():
    texts = ["Packing options", "--pack-level=<low|high> [default: low]", "Sets how hard crates are packed.",
             "", "When high, nine passes are made.", "--pack-size=<n>", "Sets the crate size."]
    lines = outline([Raw(i + 1, text) for i, text in enumerate(texts)])
    assert lines[0].section == ""
    assert lines[4].section == "--pack-level=<low|high> [default: low]"
    assert lines[6].section == "--pack-size=<n>"


def test_a_description_runs_a_dozen_lines_at_most():
    lines = outline([Raw(1, "--pack-size=<n>")] + [Raw(i, f"Crate {i} ships on Monday.") for i in range(2, 30)])
    assert lines[12].section == "--pack-size=<n>" and lines[20].section == ""


def test_an_environment_variable_alone_on_its_line_ends_an_option_s_description():
    lines = outline([Raw(1, "--with-frobz"), Raw(2, "Builds frobz in."), Raw(3, "FROBZ_LEVEL=<n>"),
                     Raw(4, "Sets how hard crates are packed.")])
    assert lines[1].section == "--with-frobz" and lines[3].section == ""


def test_a_function_s_signature_alone_on_its_line_heads_an_entry():
    assert entry_line("kettle.pour(cup[, ...sugar])") and entry_line("new Kettle(options)")
    assert not entry_line("Call kettle.pour(cup) twice.") and not entry_line("kettle(1)")  # a sentence; a manual page
    lines = outline([Raw(1, "kettle.pour(cup[, ...sugar])"), Raw(2, "Fills one cup."), Raw(3, "kettle.steep(pot)"),
                     Raw(4, "Waits for the tea.")])
    assert lines[1].section == "kettle.pour(cup[, ...sugar])" and lines[3].section == "kettle.steep(pot)"
