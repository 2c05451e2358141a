"""CAUSES links earn their place: a cue in the text, one direction, no cycle."""

from karaka.kg.postprocess import _link
from karaka.runner import run_ingest
from karaka.services import get_services
from tests.fakes import fake_context, script, write_doc
from tests.scripted import ScriptedChatModel

LINES = ("The river flooded the valley because the dam broke.", "The farmers left the valley.",
         "So the village emptied.", "Rama took the bow and settled the dispute.")


def test_causes_need_a_cue_and_never_form_a_cycle(tmp_path):
    asked: list[str] = []

    def judge(user, n):  # a judge that says yes to everything it is asked
        asked.append(user)
        return '{"answer": "yes"}'

    write_doc(tmp_path / "docs", "flood.txt", *LINES)
    ctx, _ = fake_context(tmp_path / "ws", ScriptedChatModel(script(causality_prompt=judge)))
    run_ingest(ctx, tmp_path / "docs")
    services = get_services(ctx)
    graph = services.workspace.graph
    links = [(k, t) for k in graph.nodes_of("Kriya") for t in graph.neighbors(k, "CAUSES")]
    verbs = {(graph.node(a)["verb"], graph.node(b)["verb"]) for a, b in links}
    assert ("leave", "empty") in verbs  # "So …" links the adjacent sentence
    assert not any(("take", "settle") == pair or ("settle", "take") == pair for pair in verbs)  # no cue: not asked
    assert not any("settle" in a for a in asked)
    assert not {(b, a) for a, b in links} & set(links)  # no 2-cycle
    first, second = links[0]
    assert _link(services, second, first, "CAUSES", method="llm") is False  # the reverse would close a cycle
    assert second not in graph.neighbors(first, "CAUSES") or first not in graph.neighbors(second, "CAUSES")



def test_a_cue_links_two_actions_only_where_it_stands_between_them_and_says_which_way():
    from karaka.kg.postprocess import _cue

    cases = [  # (sentence, (first verb, as written), (second verb, as written), 1 / -1 / 0)
        ("The river flooded the valley because the dam broke.", ("flood", "flooded"), ("break", "broke"), -1),
        ("Because the dam broke, the river flooded the valley.", ("break", "broke"), ("flood", "flooded"), 1),
        ("The dam broke, so the river flooded the valley.", ("break", "broke"), ("flood", "flooded"), 1),
        ("He used the bow to kill Ravana.", ("use", "used"), ("kill", "kill"), 1),  # purpose
        ("He wanted to go home.", ("want", "wanted"), ("go", "go"), 0),  # what is wanted, not a purpose
        ("The reports indicate the cause of death to be unclear.", ("indicate", "indicate"), ("be", "be "), 0),
        ("Both were shot in the attack and have been recovering since May.", ("shoot", "shot"),
         ("recover", "recovering"), 0),  # the cue after both verbs links neither
        ("The minister is due to make a decision in May.", ("be", "is"), ("make", "make"), 0),  # a schedule
        ("The damage caused by the storm was not anticipated.", ("cause", "caused"), ("anticipate", "anticipated"), 0),
        ("Because you pay later when fixing and repairing it.", ("fix", "fixing"), ("repair", "repairing"), 0),
    ]
    for sentence, (first, first_word), (second, second_word), way in cases:
        a = {"verb": first, "char": sentence.index(first_word)}
        b = {"verb": second, "char": sentence.index(second_word)}
        assert _cue(sentence, a, b) == way, sentence
