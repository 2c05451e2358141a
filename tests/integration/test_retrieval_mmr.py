"""MMR over the retrieved lines' vectors: copies of one sentence give way to other lines."""

import dataclasses

from karaka.app.runner import run_ingest
from karaka.config import Context
from karaka.kg.retrieval import hybrid_search
from karaka.services import get_services
from tests.fakes import write_doc


def _texts(services, lam, k=4):
    tuned = dataclasses.replace(services, ctx=dataclasses.replace(services.ctx, mmr_lambda=lam))
    return [services.workspace.graph.node(h.document)["text"] for h in hybrid_search(tuned, "lantern harbour keeper", k=k)]


def test_mmr_drops_copies_and_keeps_the_best_line_first(tmp_path):
    copies = ["The keeper lit the lantern of the harbour at dusk."] * 4
    others = ["The keeper's daughter mended nets by the harbour.", "Fishermen sold mackerel in the market square.",
              "A lantern hung in the harbour keeper's window all winter."]
    write_doc(tmp_path / "docs", "harbour.txt", *(copies + others))
    ctx = Context(workspace=str(tmp_path / "ws"), llm="none", extractor="parser")
    run_ingest(ctx, tmp_path / "docs")
    services = get_services(ctx)
    with services.workspace.reading():
        plain, diverse = _texts(services, 1.0), _texts(services, 0.5)
    assert plain.count(copies[0]) >= 2  # the fused ranking, as it is by default
    assert diverse.count(copies[0]) == 1 and len(set(diverse)) == len(diverse)
    assert diverse[0] == plain[0]  # the most relevant line stays first
