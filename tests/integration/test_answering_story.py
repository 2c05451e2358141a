"""A made-up story read offline: who does what an infinitive says, and where a line places someone."""

import pytest

from karaka.app.runner import run_query
from tests.fakes import grounded, parsed_workspace

STORY = (
    "# The Kells of Harrowby",
    "",
    "Chapter 1",
    "",
    "Old Dario Kells kept the mill at Harrowby for forty years.",

    "",
    "Greta Holm refused to sign the lease for the granary.",
    "",
    "If the miller fails to deliver the flour within 12 days, the lease ends.",
    "",
    "Hanna Voss was eager to marry Piet Lund, and her choosing Karl Ebb had been spoken of as a lesser evil.",
    "",
    "Nils Harde, Ada Quist's brother, kept the old ferry below the mill through every winter the river did not freeze.",
    "",
    *[f"Nils Harde rowed {n} over." for n in "Aki Bo Cai Dag Eli Fen Gus Hal Ida Jon Kai Lev Mo Ned Ole Pia".split()],
    "",
    "In the spring Lena Marsh married Ivo Brandt.",
    "",
    "Tam Rolle kept the accounts of the mill, but Mrs. Tam Rolle was a strong likeness of her own mother.",
    "",
    "Lucy does not want sense, and after all, Oskar, after all that Greta Holm ever said, it is not possible that it should be so.-- Nina will marry Jonas; Jonas will marry a woman of sense.",
    "",
    "Petra would still be unable to marry Anselm Voight, and her choosing Dario Kells had been spoken of "
    "as a lesser evil.",
    "",
    "At Fernleigh the hills came close to the house, and Mara resolved to spend every hour of every day while she "
    "remained with the Ortons, in the pursuit of such solitary rambles.",
)


@pytest.fixture(scope="module")
def ctx(tmp_path_factory):
    return parsed_workspace(tmp_path_factory.mktemp("kells"), {"kells.md": STORY})


def test_an_infinitive_s_doer_is_the_subject_of_the_verb_it_depends_on(ctx):
    """Hanna is who would marry Piet; Karl Ebb, chosen in the same line, marries no one there."""
    result = run_query(ctx, "Whom did Karl Ebb marry?")
    assert result["status"] != "GROUNDED", result["answer"]


def test_a_named_place_answers_where_before_a_phrase_of_common_nouns(ctx):
    """"at Fernleigh" places the Ortons; "in the pursuit of such solitary rambles" says how the winter went."""
    assert grounded(ctx, "Where is the Ortons' house?") == ["At Fernleigh"]


def test_a_mutual_action_answers_either_way(ctx):
    """"Lena Marsh married Ivo Brandt" says whom Ivo married, as "meet" or "divorce" would; "sell" would not."""
    assert grounded(ctx, "Whom did Ivo Brandt marry?") == ["Lena Marsh"]
    assert grounded(ctx, "Whom did Lena Marsh marry?") == ["Ivo Brandt"]


def test_read_the_other_way_the_role_must_be_the_one_named(ctx):
    """Oskar and Greta stand in a long phrase the parse may take as the object; it names neither as married."""
    for who in ("Oskar", "Greta Holm"):
        result = run_query(ctx, f"Whom did {who} marry?")
        assert result["status"] != "GROUNDED", result["answer"]


def test_a_possessive_apposition_says_who_someone_is(ctx):
    """"Nils Harde, Ada Quist's brother," introduces him by whose brother he is, among lines of what he does."""
    assert grounded(ctx, "Who is Nils Harde?") == ["Ada Quist's brother"]


def test_mrs_before_a_man_s_full_name_is_his_wife(ctx):
    """"Mrs. Tam Rolle" is Tam Rolle's wife: what she was like says nothing of who he is."""
    result = run_query(ctx, "Who is Tam Rolle?")
    assert "likeness" not in result["answer"] or result["status"] != "GROUNDED", result["answer"]
    assert grounded(ctx, "Who is Mrs. Tam Rolle?") == ["a strong likeness of her own mother"]


def test_an_action_a_line_denies_did_not_happen(ctx):
    """"unable to marry", "refused to sign": the line says the action did not happen, as "did not" would."""
    for question in ("Who would marry Anselm Voight?", "Whom would Petra marry?", "What did Greta Holm sign?",
                     "Who signed the lease?"):
        result = run_query(ctx, question)
        assert result["status"] != "GROUNDED", (question, result["answer"])
    assert any("the lease" in a for a in grounded(ctx, "What did Greta Holm refuse to sign?"))  # the refusing is stated
    assert "the lease for the granary" in grounded(ctx, "What did Greta Holm not sign?")[0]


def test_a_denial_in_a_condition_sets_a_rule(ctx):
    """"If the miller fails to deliver the flour within 12 days, …" says within how long it must be delivered."""
    assert grounded(ctx, "Within how many days must the flour be delivered?") == ["12 days"]

