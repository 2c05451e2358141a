"""A GSV-Retry loop walked directly gives what the LangGraph child gives; ``auto`` picks by who watches."""

import json
from importlib.resources import files

import pytest

from karaka import walk, watch
from karaka.app.runner import run_ingest, run_query
from karaka.config import Context
from karaka.graphs import gsv
from karaka.services import get_services
from tests.fakes import fake_context
from tests.scripted import ScriptedChatModel

CORPUS = files("karaka") / "data" / "corpus"


def _ingest(tmp_path, steps):
    ctx = Context(workspace=str(tmp_path / steps), llm="simulated", loop_steps=steps, window=1)
    report = run_ingest(ctx, CORPUS)
    records = get_services(ctx).workspace.records
    units = {(r["unit_id"], r["status"], json.dumps(r["payload"], sort_keys=True), r["llm_calls"], r["prompt_tokens"])
             for r in records.results()}
    graph = json.loads((tmp_path / steps / "graph.json").read_text())
    return report, units, graph


def test_the_walk_and_the_graph_build_the_same_workspace(tmp_path):
    walked, graphed = _ingest(tmp_path, "direct"), _ingest(tmp_path, "graph")
    assert walked[1] == graphed[1] and len(walked[1]) > 20  # every unit: status, payload, calls, tokens
    assert walked[2] == graphed[2]  # the graph, attributes and all
    for key in ("gsv", "llm_calls", "post_processing", "lines"):
        assert walked[0][key] == graphed[0][key], key


def test_the_walk_keeps_the_graphs_results_on_every_path(tmp_path):
    """Fast path, full attempt, retries with feedback, exhaustion: the same output, history included."""
    source = "[L1] Rama gave the bow to Lakshmana."
    scripts = [  # scores 96 / 80 / 40 / unreadable against a verifier that agrees, disagrees or vetoes
        ('{"score": 96, "reasoning": "ok"}', '{"choice": "Candidate_A", "violations": [], "reasoning": "ok"}'),
        ('{"score": 80, "reasoning": "ok"}', '{"choice": "Candidate_B", "violations": [], "reasoning": "ok"}'),
        ('{"score": 40, "reasoning": "ok"}', '{"choice": "ALL_INVALID", "violations": ["bow"], "reasoning": "x"}'),
        ("no", '{"choice": "Candidate_C", "violations": [], "reasoning": "ok"}'),
    ]
    drafts = ['{"kriyas": [{"line": 1, "verb": "give", "karakas": {"KARTA": "Rama", "KARMA": "bow"}}]}',
              '{"kriyas": [{"line": 1, "verb": "give", "karakas": {"KARTA": "Rama", "SAMPRADANA": "Lakshmana"}}]}']
    for score, verdict in scripts:
        outs = []
        for steps in ("direct", "graph"):
            model = ScriptedChatModel({"kriya_extraction_prompt": drafts, "kriya_correction_prompt": drafts,
                                       "kriya_scoring_prompt": [score], "kriya_verification_prompt": [verdict]})
            ctx, _ = fake_context(tmp_path / steps, model, loop_steps=steps, max_retries=2)
            outs.append((gsv.run_gsv({"task": "kriya", "source": source, "ref": {"doc_id": "d"}}, ctx), model.calls))
        assert outs[0] == outs[1], (score, verdict)


@pytest.fixture
def spies(monkeypatch):
    seen = {"walk": 0, "graph": 0}
    real_walk, invoke = walk.Walk.run, type(gsv.loop).invoke

    def counted_walk(self, *args, **kwargs):
        seen["walk"] += 1
        return real_walk(self, *args, **kwargs)

    def counted_invoke(self, *args, **kwargs):
        seen["graph"] += self.name == "gsv"  # the loop, or its copy that keeps no checkpoint
        return invoke(self, *args, **kwargs)

    monkeypatch.setattr(walk.Walk, "run", counted_walk)
    monkeypatch.setattr(type(gsv.loop), "invoke", counted_invoke)
    return seen


def test_auto_walks_when_only_progress_is_streamed(tmp_path, spies):
    ctx = Context(workspace=str(tmp_path / "ws"), llm="simulated", window=1)
    events = []
    run_ingest(ctx, CORPUS / "ramayana.txt", on_event=events.append)
    assert spies["walk"] > 5 and spies["graph"] == 0
    assert any(e.get("event") == "gsv" and e["status"] == "accepted" for e in events)  # the loop's events still come


def test_auto_runs_the_child_graph_for_a_step_stream_or_a_tracer(tmp_path, spies, monkeypatch):
    ctx = Context(workspace=str(tmp_path / "ws"), llm="simulated", llm_plans="always")
    run_ingest(ctx, CORPUS / "ramayana.txt")
    walked = spies["walk"]
    run_query(ctx, "Who killed Ravana?")  # the query graph streams its values with subgraphs: a step stream
    assert spies["graph"] == 1 and spies["walk"] == walked
    monkeypatch.setenv("LANGSMITH_TRACING", "true")
    assert watch.watched()
    monkeypatch.setenv("LANGSMITH_TRACING", "false")
    assert not watch.watched()  # outside any graph, untraced


def test_a_graph_run_by_anyone_else_is_watched_and_its_loop_is_the_child_graph(tmp_path, spies):
    """Studio, ``langgraph dev`` or a user's own ``stream``: no progress-only mark, so the loop is LangGraph's."""
    from karaka.graphs.ingest import build_ingest_graph

    ctx = Context(workspace=str(tmp_path / "ws"), llm="simulated", window=1)
    graph = build_ingest_graph().compile()
    for _ in graph.stream({"path": str(CORPUS / "ramayana.txt")}, {}, context=ctx, stream_mode=["custom"]):
        pass
    assert spies["graph"] > 5 and spies["walk"] == 0


def test_a_routed_node_sharing_a_step_is_refused():
    class Sent:
        def __init__(self, node, arg):
            self.node, self.arg = node, arg

    table = walk.Walk(steps={"a": lambda s: {}, "b": lambda s: {}}, first="a", state=dict,
                       routes={"a": lambda s: [Sent("b", 1), Sent("b", 2)], "b": lambda s: "__end__"})
    with pytest.raises(RuntimeError, match="shares a step"):
        table.run({}, walk.DirectRuntime(Context()), limit=5)


def test_the_tasks_of_a_step_read_the_state_from_before_it():
    """As in Pregel: a node does not see what a node of the same step wrote."""
    table = walk.Walk(steps={"a": lambda s: {"x": 0}, "b": lambda s: {"x": 1}, "c": lambda s: {"y": s["x"]}},
                      routes={"a": lambda s: ["b", "c"], "b": "__end__", "c": "__end__"}, first="a", state=dict)
    assert table.run({}, walk.DirectRuntime(Context()), limit=5) == {"x": 1, "y": 0}
