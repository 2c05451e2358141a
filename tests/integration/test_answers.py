"""Answers without an LLM: each class of question the parser route once got wrong, on a small corpus."""

import json
import subprocess
import sys

import pytest

from karaka.app.runner import run_query
from karaka.config import Context
from tests.fakes import parsed_workspace

NEWS = (
    "The novel was published in 1851 by Herman Melville.",
    "North Belfast Area Commander Chief Inspector Andy Freeburn praised the volunteers.",
    "The man who arrested the thief received a medal.",
    "The town flooded because the river burst its banks.",
    "The masons cut the stones with chisels.",
    "Ada carried the bread in a basket to the market.",
    "The council closed the bridge to protect the walkers.",
)


@pytest.fixture(scope="module")
def ctx(tmp_path_factory):
    return parsed_workspace(tmp_path_factory.mktemp("answers"), {
        "news.txt": NEWS,
        "blood_street.txt": ("Blood Street", "Blood Street is a 1988 film directed by Leon Ichaso."),
        "leon_ichaso.txt": ("Leon Ichaso", "Leon Ichaso (born 3 August 1948) is a Cuban film director."),
        "dusk_road.txt": ("Dusk Road", "Dusk Road is a 1961 film directed by Ana Ruiz."),
        "ana_ruiz.txt": ("Ana Ruiz", "Ana Ruiz (12 May 1930 – 1 June 2001) was a Spanish film director.")})


def ask(ctx, question):
    result = run_query(ctx, question)
    return result, "; ".join(result["answers"])


def test_passive_question_maps_the_named_argument_to_the_karma(ctx):
    result, answer = ask(ctx, "When was the novel published?")
    assert answer == "in 1851" and result["status"] == "GROUNDED"
    assert ask(ctx, "Who published the novel?")[1] == "Herman Melville"


def test_short_name_meets_the_long_one_through_the_alias_index(ctx):
    result, answer = ask(ctx, "Who did Andy Freeburn praise?")
    assert answer == "the volunteers" and result["retrieval"] == "graph"


def test_relative_pronoun_is_replaced_by_the_noun_it_modifies(ctx):
    result, answer = ask(ctx, "Who arrested the thief?")
    assert answer == "The man" and "who" not in answer.lower().split()


def test_why_reaches_the_cause_clause(ctx):
    assert ask(ctx, "Why did the town flood?")[1] == "because the river burst its banks"
    assert ask(ctx, "Why did the council close the bridge?")[1] == "to protect the walkers"


def test_never_answers_with_what_the_question_names(ctx):
    result, answer = ask(ctx, "With what did the masons cut the stones?")
    assert answer == "with chisels"
    assert ask(ctx, "Where did Ada carry the bread?")[1] != "the bread"


def test_two_hop_relation_plan_cites_both_hops(ctx):
    result, answer = ask(ctx, "What nationality is the director of film Blood Street?")
    assert answer == "Cuban" and [s["relation"] for s in result["plan"]["steps"]] == ["director", "nationality"]
    cited = [c["doc_id"] for c in result["citations"]]
    assert cited[:2] == ["blood_street", "leon_ichaso"] or cited.index("leon_ichaso") < 4


def test_comparison_reads_both_options_and_picks(ctx):
    result, answer = ask(ctx, "Which film came out first, Blood Street or Dusk Road?")
    assert answer == "Dusk Road" and result["plan"]["compare"]["pick"] == "earliest"
    result, answer = ask(ctx, "Which film has the director who was born later, Blood Street or Dusk Road?")
    assert answer == "Blood Street"
    assert {"leon_ichaso", "ana_ruiz"} <= {c["doc_id"] for c in result["citations"]}


def test_citations_are_few_and_the_supporting_line_comes_first(ctx):
    result, _ = ask(ctx, "What did the masons cut?")
    assert result["citations"][0]["text"] == NEWS[4] and len(result["citations"]) <= 2


def test_no_span_is_said_honestly(ctx):
    result = run_query(ctx, "Which colour did the volunteers wear?")
    assert result["status"] != "GROUNDED"
    assert result["status"] in ("NO_ANSWER", "NO_MATCH") or result["answer"].startswith("Not proved")


QUESTIONS = [  # graph, passive, two hops, comparison, hybrid fallback, find, nothing, empty-ish
    "Who published the novel?", "When was the novel published?",
    "What nationality is the director of film Blood Street?",
    "Which film came out first, Blood Street or Dusk Road?", "Which colour did the volunteers wear?",
    "Find documents about the river", "What did the astronaut eat?", "Why did the town flood?",
]


@pytest.mark.parametrize("question", QUESTIONS)
def test_direct_walk_returns_what_the_query_graph_returns(ctx, question):
    assert run_query(ctx, question, direct=True) == run_query(ctx, question)


def test_cli_ask_answers_without_importing_langgraph(ctx):
    script = ("import sys; from karaka.app.cli import main; "
              f"code = main(['ask', '--workspace', {ctx.workspace!r}, 'Who published the novel?']); "
              "print('langgraph loaded:', 'langgraph' in sys.modules, 'langchain_core' in sys.modules); "
              "sys.exit(code)")
    out = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr
    assert "Herman Melville" in out.stdout and "langgraph loaded: False False" in out.stdout


def test_with_a_model_a_multi_hop_answer_read_off_facts_is_checked_like_any_other(ctx, tmp_path):
    from karaka.models import register
    from tests.fakes import script
    from tests.scripted import ScriptedChatModel

    def ask_with(reply):
        model = ScriptedChatModel(script(answer_read_prompt=reply))
        spec = register(f"fake-facts-{len(reply.__name__)}-{id(model)}", model)
        return run_query(Context(**{**ctx.__dict__, "llm": spec}), "What nationality is the director of film Blood "
                                                                    "Street?"), model

    def agrees(user, n):
        line = next(int(x.split(".")[0]) for x in user.splitlines() if "Cuban" in x and x[:1].isdigit())
        return json.dumps({"line": line, "quote": "a Cuban film director", "answer": "Cuban"})

    def finds_nothing(user, n):
        return json.dumps({"line": 0, "quote": "", "answer": ""})

    agreed, model = ask_with(agrees)
    assert agreed["status"] == "GROUNDED" and "Cuban" in agreed["answer"] and agreed["llm_calls"] == 1
    refused, _ = ask_with(finds_nothing)
    assert refused["status"] == "GROUNDED" and "Cuban" in refused["answer"]  # the facts' proved answer stands
