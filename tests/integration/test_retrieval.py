"""Line retrieval: a line is lifted by its neighbours' scores, and the index keeps them on disk."""

from karaka.app.runner import run_ingest
from karaka.config import Context
from karaka.kg import retrieval
from karaka.services import get_services
from tests.fakes import write_doc


def test_a_fragment_is_found_by_the_line_before_it(tmp_path):
    write_doc(tmp_path / "docs", "valves.txt", "The Zephyr valve guards the boiler room.", "It opens at forty bar.",
              "Coal is stored in the cellar.")
    write_doc(tmp_path / "docs", "gates.txt", "The garden gate opens at noon.")
    ctx = Context(workspace=str(tmp_path / "ws"), llm="none", extractor="parser")
    run_ingest(ctx, tmp_path / "docs")
    store = get_services(ctx).workspace
    with store.reading():
        ranked = [store.graph.node(node)["text"] for node, _ in retrieval.lexical(store, "Zephyr valve opens")]
    assert ranked[:2] == ["The Zephyr valve guards the boiler room.", "It opens at forty bar."]
    assert ranked.index("It opens at forty bar.") < ranked.index("The garden gate opens at noon.")
    assert "Coal is stored in the cellar." not in ranked  # a neighbour orders the lines that match, adds none


def test_the_saved_index_keeps_each_line_s_neighbours(tmp_path):
    write_doc(tmp_path / "docs", "a.txt", "First line here.", "Second line here.", "Third line here.")
    write_doc(tmp_path / "docs", "b.txt", "Only line of b.")
    ctx = Context(workspace=str(tmp_path / "ws"), llm="none", extractor="parser")
    run_ingest(ctx, tmp_path / "docs")
    store = get_services(ctx).workspace
    with store.reading():
        built = retrieval._bm25(store, retrieval.index_key(store))
        retrieval._cache.clear()
        loaded = retrieval._load_index(tmp_path / "ws" / retrieval.BM25_FOLDER, retrieval.index_key(store))
        texts = [store.graph.node(d)["text"] for d in built.docs]
    assert loaded is not None and loaded.docs == built.docs
    assert list(loaded.before) == list(built.before) and list(loaded.after) == list(built.after)
    second, only = texts.index("Second line here."), texts.index("Only line of b.")
    assert texts[built.before[second]] == "First line here." and texts[built.after[second]] == "Third line here."
    assert built.before[only] == -1 and built.after[only] == -1


def test_the_best_lines_are_those_a_full_stable_sort_gives_ties_in_order():
    import numpy as np

    rng = np.random.default_rng(7)
    for size in (3, 40, 2000):
        scores = np.round(rng.random(size) * 4) / 4 - 0.25  # many ties, some below zero
        for k in (1, 5, 20):
            assert list(retrieval._top(scores, k)) == list(np.argsort(-scores, kind="stable")[:k]), (size, k)


def test_an_index_is_kept_for_its_store_only_while_the_store_lives(tmp_path):
    """Keyed by the store itself, not its id(): a new store that gets a dead one's id must not get its index."""
    import gc

    from karaka.models import load_embeddings
    from karaka.store.embedded.workspace import Workspace

    write_doc(tmp_path / "docs", "a.txt", "The Zephyr valve guards the boiler room.")
    run_ingest(Context(workspace=str(tmp_path / "ws"), llm="none", extractor="parser"), tmp_path / "docs")
    store = Workspace(tmp_path / "ws", load_embeddings("wordllama", announce=False))
    with store.reading():
        assert retrieval.lexical(store, "Zephyr valve")
    assert store in retrieval._cache
    held = len(retrieval._cache)
    del store
    gc.collect()
    assert len(retrieval._cache) == held - 1


def test_bm25_leads_the_vectors_break_its_ties_and_add_what_it_cannot_find(tmp_path, monkeypatch):
    write_doc(tmp_path / "docs", "a.txt", "Line one.", "Line two.", "Line three.", "Line four.")
    ctx = Context(workspace=str(tmp_path / "ws"), llm="none", extractor="parser", mmr_lambda=1.0)
    run_ingest(ctx, tmp_path / "docs")
    services = get_services(ctx)
    with services.workspace.reading():
        one, two, three, four = [n for n in sorted(services.workspace.graph.nodes_of("Document"))][:4]
    monkeypatch.setattr(retrieval, "lexical", lambda store, q: [(one, 5.0), (two, 3.0), (three, 3.0)])
    monkeypatch.setattr(retrieval, "dense", lambda services, q: [(four, 0.9), (three, 0.8), (two, 0.7), (one, 0.6)])
    with services.workspace.reading():
        hits = retrieval.hybrid_search(services, "anything", k=4)
    # the vectors' best line (four) never rises above a line BM25 found; they order two and three, scored alike
    assert [h.document for h in hits] == [one, three, two, four]
    assert [h.score for h in hits] == sorted((h.score for h in hits), reverse=True)
