"""How lines and questions are split into the words BM25 finds them by; made-up sentences."""

from karaka.kg.retrieval import tokens


def test_a_version_is_one_word_also_where_it_ends_the_sentence():
    assert "3.2" in tokens("This guide covers version 3.2.")
    assert "3.2" in tokens("Which version is 3.2 about?")
    assert "3.2.1" in tokens("See release 3.2.1.")


def test_stop_words_go_and_words_are_lower_cased():
    assert tokens("The Guide covers it") == ["guide", "covers"]


def test_a_flag_of_several_words_is_one_word_as_well_so_a_longer_flag_is_another():
    line = tokens("--frob-level=<1|2> [default: 2]")
    assert "--frob-level" in line and "frob" in line and "level" in line
    assert "--frob-level" not in tokens("--frob-level-max=<n>")
    assert not any(t.startswith("-") for t in tokens("-q, --quiet and a non-trivial e-mail"))  # words already
