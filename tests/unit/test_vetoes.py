"""The structural vetoes of the rule checker, each on a small real sentence, and the parser passes them."""

import csv
from pathlib import Path

from karaka.gsv.kriya import kriya_checks
from karaka.nlp.roles import analyze
from karaka.nlp.rules import shared_problems, structure_problems

SCORED = "Kosmala scored 98 out of 100 possible points and went home."


def test_a_span_never_contains_its_own_verb():
    line = "Grudzien lost in straight sets to the champion."
    problems = structure_problems({"verb": "lose", "karakas": {"KARMA": "Grudzien lost in straight sets"}}, line)
    assert problems == ["KARMA 'Grudzien lost in straight sets' contains its own verb 'lost'"]


def test_a_role_lies_in_its_verbs_clause():
    copied = structure_problems({"verb": "go", "karakas": {"KARTA": "Kosmala", "KARMA": "98"}}, SCORED)
    assert copied == ["KARMA '98' lies outside the clause of 'go' (it belongs to 'scored')"]
    assert structure_problems({"verb": "score", "karakas": {"KARTA": "Kosmala", "KARMA": "98"}}, SCORED) == []
    # a conjunct shares its subject; a relative clause the noun it describes
    assert structure_problems({"verb": "see", "karakas": {"KARTA": "Rama", "KARMA": "Sita"}},
                              "Rama came and saw Sita.") == []
    assert structure_problems({"verb": "strike", "karakas": {"KARTA": "the hurricane", "KARMA": "Charleston"}},
                              "The best analogy is the hurricane that struck Charleston in 1989.") == []


def test_a_place_is_not_a_body_part_without_a_locative_preposition():
    line = "He played with his left arm in the garden."
    assert structure_problems({"verb": "play", "karakas": {"ADHIKARANA_SPATIAL": "his left arm"}}, line) == \
        ["ADHIKARANA_SPATIAL 'his left arm' names a body part, not a place (no locative preposition)"]
    assert structure_problems({"verb": "put", "karakas": {"ADHIKARANA_SPATIAL": "in his arm"}},
                              "The nurse put the needle in his arm.") == []


def test_a_span_is_shared_only_by_linked_clauses():
    line = "Kosmala scored 98 points. The crowd went home."
    items = [{"verb": "score", "karakas": {"KARMA": "98 points"}}, {"verb": "go", "karakas": {"KARMA": "98 points"}}]
    assert shared_problems(items, line) == ["'98 points' is shared by 'score' and 'go', whose clauses the parse "
                                            "does not link"]
    both = [{"verb": "come", "karakas": {"KARTA": "Rama"}}, {"verb": "see", "karakas": {"KARTA": "Rama"}}]
    assert shared_problems(both, "Rama came and saw Sita.") == []
    problems = kriya_checks({"kriyas": [{**item, "line": 1} for item in items]}, f"[L1] {line}")
    assert any("is shared by" in p for p in problems) and any("outside the clause" in p for p in problems)


def _sentences() -> list[str]:
    """The packaged demo corpus, and the shared QA-SRL dev sentences where this checkout has them."""
    from importlib.resources import files

    from karaka.loading import load_file

    corpus = files("karaka") / "data" / "corpus"
    found = [s.text for path in sorted(corpus.iterdir(), key=str) for s in load_file(Path(str(path)), 1000, [])]
    data = Path(__file__).resolve().parents[3] / "shared" / "data" / "qasrl-gs" / "wikinews.dev.full.csv"
    if data.exists():
        found += list(dict.fromkeys(row["sentence"] for row in csv.DictReader(data.open(encoding="utf-8"))))[:120]
    return found


def test_the_parsers_own_analyses_pass_the_vetoes():
    sentences = _sentences()
    assert len(sentences) >= 50
    struck = [(s, p) for s in sentences for item in analyze(s) for p in structure_problems(item, s)]
    struck += [(s, p) for s in sentences for p in shared_problems(analyze(s), s)]
    assert struck == []


def test_what_the_llm_changed_against_the_parser_is_counted():
    from karaka.nodes.extract import changes
    from karaka.state.ingest import Unit

    unit = Unit.of("d", 1, 1)
    parser = {"kriyas": [{"line": 1, "verb": "give", "karakas": {"KARTA": "Rama", "KARMA": "the bow",
                                                                  "SAMPRADANA": "Lakshmana"}}]}
    assert changes(parser, parser, unit) == {"added": 0, "removed": 0, "relabelled": 0, "equal": True}
    llm = {"kriyas": [{"line": 1, "verb": "give", "karakas": {"KARTA": "Rama", "KARMA": "Lakshmana",
                                                               "ADHIKARANA_SPATIAL": "the forest"}}]}
    assert changes(parser, llm, unit) == {"added": 1, "removed": 1, "relabelled": 1, "equal": False}
