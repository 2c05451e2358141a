"""Retrieval recall@5 with and without MMR (maximal marginal relevance) on the dev sets.

    python benchmarks/mmr.py [--docs-workspace WS] [--lambdas 1.0 0.7 0.5]

Multi-hop (2Wiki dev): the share of gold supporting passages among the documents of the first 5
lines hybrid retrieval returns (the passages are ingested with the parser into a temporary
workspace). Docs dev: the share of questions one of whose first 5 lines holds a gold answer (a
workspace of the docs dev corpus, as ``benchmarks/docs.py`` builds it). Also the lines among the
first 5 that repeat another's text. Nothing here is fitted: it chooses between a few settings.
"""

from __future__ import annotations

import argparse
import ast
import dataclasses
import json
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from karaka.app.runner import run_ingest  # noqa: E402
from karaka.config import Context  # noqa: E402
from karaka.kg.retrieval import hybrid_search  # noqa: E402
from karaka.services import Services, get_services  # noqa: E402

DATA = Path(__file__).resolve().parents[2] / "shared" / "data" / "qa"


def _top(services: Services, question: str, lam: float) -> list[dict]:
    tuned = dataclasses.replace(services, ctx=dataclasses.replace(services.ctx, mmr_lambda=lam))
    graph = services.workspace.graph
    return [graph.node(h.document) or {} for h in hybrid_search(tuned, question, k=5)]


def _repeats(lines: list[dict]) -> int:
    texts = [" ".join(str(a.get("text", "")).lower().split()) for a in lines]
    return len(texts) - len(set(texts))


def multihop(lambdas: list[float]) -> dict[float, tuple[float, float]]:
    data = json.loads((DATA / "2wiki_dev.json").read_text())
    root = Path(tempfile.mkdtemp(prefix="karaka-mmr-"))
    titles = {}
    for i, passage in enumerate(data["passages"]):
        (root / "docs").mkdir(exist_ok=True)
        (root / "docs" / f"p{i:04d}.txt").write_text(f"{passage['title']}\n{passage['text']}\n", encoding="utf-8")
        titles[f"p{i:04d}"] = passage["title"]
    ctx = Context(workspace=str(root / "ws"), llm="none", extractor="parser")
    run_ingest(ctx, root / "docs")
    services = get_services(ctx)
    out = {}
    with services.workspace.reading():
        for lam in lambdas:
            recall, repeats = [], 0
            for q in data["questions"]:
                lines = _top(services, q["question"], lam)
                found = {titles.get(str(a.get("doc_id", ""))) for a in lines}
                gold = set(q["supporting_titles"])
                recall.append(len(gold & found) / len(gold))
                repeats += _repeats(lines)
            out[lam] = (100 * sum(recall) / len(recall), repeats)
    return out


def docs(workspace: Path, lambdas: list[float]) -> dict[float, tuple[float, float]]:
    questions = [q for q in json.loads((DATA / "docs_dev" / "questions.json").read_text())
                 if str(q.get("answerable")) == "True"]
    services = get_services(Context(workspace=str(workspace), llm="none"))
    out = {}
    with services.workspace.reading():
        for lam in lambdas:
            hits, repeats = 0, 0
            for q in questions:
                raw = q["gold"] if isinstance(q["gold"], list) else ast.literal_eval(q["gold"])
                gold = [str(g).lower() for g in raw]
                lines = _top(services, q["question"], lam)
                hits += any(g in str(a.get("text", "")).lower() for a in lines for g in gold)
                repeats += _repeats(lines)
            out[lam] = (100 * hits / len(questions), repeats)
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--docs-workspace", type=Path, help="a workspace of the docs dev corpus")
    parser.add_argument("--lambdas", type=float, nargs="+", default=[1.0, 0.7, 0.5])
    args = parser.parse_args()
    for name, figures in (("multi-hop", multihop(args.lambdas)),
                          ("docs dev", docs(args.docs_workspace, args.lambdas) if args.docs_workspace else {})):
        for lam, (recall, repeats) in figures.items():
            print(f"{name:>9} λ={lam:.1f}: recall@5 {recall:.1f} % · repeated lines in the first 5: {repeats}",
                  flush=True)


if __name__ == "__main__":
    main()
