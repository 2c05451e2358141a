"""Facts read off one line of an entity's own document: kin, places, and the title a name is found by."""

from karaka.kg import fact_patterns, fact_text


def test_a_describing_word_before_a_name_is_not_the_name():
    line = "Harbour Lights is a song recorded by Norwegian recording artist Ingrid Vale for her third album."
    assert fact_text.name_after(r"\brecorded\s+by\s+(?:[a-z]+\s+)*?", line) == "Ingrid Vale"
    assert fact_patterns.kin("He was the son of Chilean pioneer film director Tomás Rivas Ortega, with whom he worked.",
                      "father") == "Tomás Rivas Ortega"


def test_names_keep_initials_particles_and_accented_capitals():
    assert fact_text.name_after(r"\bdirected\s+by\s+", "A 1931 film directed by Paul K. Brenner and Ida Holm.") == "Paul K. Brenner"
    assert fact_patterns.kin("Aed was the son of Domnall mac Áedo Sláine.", "father").rstrip(".") == "Domnall mac Áedo Sláine"
    assert fact_patterns.kin("A younger son of Sultan Ahmad al-Mansur, he ruled Fez.", "father") == "Sultan Ahmad al-Mansur"


def test_a_mother_named_as_the_fathers_wife_is_the_mother():
    line = "Urraca was the daughter of Ramiro II of Aragon and Navarre and his wife Agnes of Poitou."
    assert fact_patterns.kin(line, "father") == "Ramiro II of Aragon"
    assert fact_patterns.kin(line, "mother").rstrip(".") == "Agnes of Poitou"


def test_a_spouse_is_read_from_wife_to_and_future_husband():
    assert fact_patterns.kin("She was the wife and assistant to the Danish chemist Niels Brandt.", "spouse").rstrip(".") \
        == "Niels Brandt"
    assert fact_patterns.kin("In Lyon she met her future husband, French painter Louis Moreau, who taught there.",
                      "spouse") == "Louis Moreau"


def test_places_are_read_from_the_life_span_and_after_died_in():
    line = "Walter Price (March 3, 1880, in Camden, New Jersey – May 9, 1951, in Scranton, Pennsylvania) was a pianist."
    assert fact_patterns.attribute(line, "birth_place", first=True) == "Camden, New Jersey"
    assert fact_patterns.attribute(line, "death_place", first=True) == "Scranton, Pennsylvania"
    assert fact_patterns.attribute("She died in Palencia, and was buried at the Cathedral of Leon.", "death_place",
                            first=False) == "Palencia"
    assert fact_patterns.attribute("He was born in February 1901 in Leeds.", "birth_place", first=False) == "Leeds"


def test_a_name_with_a_rank_an_initial_or_a_realm_finds_its_plain_title():
    assert "George VII of Imereti" in fact_text._name_variants("King George VII of Imereti")
    assert "Oswiu" in fact_text._name_variants("King Oswiu of Northumbria")
    assert "William Bell" in fact_text._name_variants("William E. Bell")
    assert fact_text._name_variants("Bert Nelson (publisher)")[:2] == ["Bert Nelson (publisher)", "Bert Nelson"]


def test_a_fact_not_of_the_form_the_question_asks_for_is_not_proved():
    from karaka.answering.answer import _facts
    from karaka.answering.question import analyse

    asked = analyse("Do Ann Vale and Bo Lund have the same nationality?")
    assert [c.proved for c in _facts([("American", "a_L1"), ("yes", "a_L1")], asked)] == [False, True]
    asked = analyse("Which film came out first, Harbour Lights or The Grey Mill?")
    found = _facts([("Ida Holm", "f_L1"), ("The Grey Mill", "f_L2")], asked)
    assert [c.proved for c in found] == [False, True]
