"""Answers against real questions: Karaka (parser mode, or LLM mode with --llm) beside plain bm25s.

    python benchmarks/qa.py [--set action|multihop|both] [--limit N] [--llm SPEC [--extract-with-llm]] [--data DIR] [--json OUT]

Action questions (QA-SRL GS dev, 300): the corpus is every dev sentence of both domains, one per
line. Multi-hop questions (2WikiMultihopQA dev, 100): one document per passage, its title the
first line. Metrics exactly as ../shared/data/qa/README.md defines them: SQuAD normalisation,
answer contains gold / exact match / token F1 on the answer text a user sees (the extracted spans
for extractive answers), gold line cited / cited first / cited lines, passage recall@2 and @5
(HippoRAG's definition), query latency p50/p95 and ingestion ms/line. The bm25s baseline ranks the
same lines (passages) with English stopwords; its answer is its top line.
"""

from __future__ import annotations

import argparse
import csv
import json
import re
import statistics
import sys
import tempfile
import time
from collections import Counter, defaultdict
from pathlib import Path
from typing import Any

from scoring import DATA, answer_figures, bm25_rank, calibration, contains, exact, f1, pct, percentile, shown_answer  # noqa: E402


def ingest(docs: Path, workspace: Path, llm: str | None, extract_with_llm: bool = False) -> tuple[Any, float, int]:
    """Ingest with the parser (or with the LLM too, ``extract_with_llm``); questions use ``llm``."""
    from karaka.app.runner import run_ingest
    from karaka.config import resolve_context

    with_llm = bool(llm and extract_with_llm)
    flags: dict[str, Any] = {"workspace": str(workspace), "llm": llm if with_llm else "none"}
    if not with_llm:
        flags["extractor"] = "parser"
    start = time.perf_counter()
    report = run_ingest(resolve_context(flags), docs)
    seconds = time.perf_counter() - start
    ctx = resolve_context({"workspace": str(workspace), "llm": llm or "none"})
    return ctx, seconds, int(report.get("lines") or 0)


def ask_all(ctx: Any, questions: list[str]) -> tuple[list[dict[str, Any]], list[float]]:
    from karaka.app.runner import run_query

    results, latency = [], []
    for question in questions:
        start = time.perf_counter()
        results.append(run_query(ctx, question))
        latency.append((time.perf_counter() - start) * 1000)
        if ctx.llm != "none":  # slow: show each answer as it comes
            result = results[-1]
            print(f"{latency[-1] / 1000:6.1f} s {result['llm_calls']:2d} calls {result['status']:9s} "
                  f"{result.get('answer_mode', '')}: {question} -> {result['answer'][:160]!r}", file=sys.stderr,
                  flush=True)
    return results, latency


_CITE = re.compile(r"\[[^\[\],]+,\s*(p\.\s*\d+,\s*)?[Ll]ine\s+\d+")


def llm_figures(results: list[dict[str, Any]], latency: list[float]) -> dict[str, Any]:
    """What an LLM run costs and shows: requests and seconds per question, answer modes, cited prose."""
    return {"llm_calls_per_question": round(statistics.mean(r["llm_calls"] for r in results), 2),
            "seconds_per_question": round(statistics.mean(latency) / 1000, 1),
            "errors": sum(r["status"] == "ERROR" for r in results),
            "answer_modes": dict(Counter(r.get("answer_mode", "") for r in results)),
            "with_citation": sum(bool(_CITE.search(r["answer"])) for r in results),
            "placeholder_or_json": sum("doc_id" in r["answer"] or r["answer"].lstrip().startswith("{")
                                       for r in results)}


def action_set(args: argparse.Namespace, root: Path) -> dict[str, Any]:
    questions = json.loads((args.data / "qa" / "qa_srl_dev_questions.json").read_text())[: args.limit or None]
    sentences: dict[str, str] = {}
    for domain in ("wikinews", "wikipedia"):
        with open(args.data / "qasrl-gs" / f"{domain}.dev.full.csv", encoding="utf-8") as handle:
            for row in csv.DictReader(handle):
                sentences[row["qasrl_id"]] = row["sentence"].strip()
    docs = root / "docs"
    docs.mkdir()
    ids = list(sentences)
    (docs / "qasrl_dev.txt").write_text("\n\n".join(sentences[i] for i in ids) + "\n", encoding="utf-8")
    by_text: dict[str, list[str]] = defaultdict(list)
    for sid, text in sentences.items():
        by_text[" ".join(text.split())].append(sid)
    ctx, ingest_seconds, lines = ingest(docs, root / "ws", args.llm, args.extract_with_llm)
    results, latency = ask_all(ctx, [q["question"] for q in questions])
    texts = [sentences[i] for i in ids]
    top = bm25_rank(texts, [q["question"] for q in questions], k=5)
    rows = []
    for q, result, ranked in zip(questions, results, top, strict=True):
        cited = [sid for c in result.get("citations", []) for sid in by_text.get(" ".join(c["text"].split()), [])]
        answer = shown_answer(result)
        rows.append({
            "qid": q["qid"], "wh": q["wh"], "status": result.get("status"), "retrieval": result.get("retrieval"),
            "confidence": result.get("confidence", 0.0), "question": q["question"],
            "features": (result.get("evidence") or {}).get("features") or {},
            "why": (result.get("evidence") or {}).get("why", ""),
            "answer": answer, "gold": q["gold"], "contains": contains(answer, q["gold"]),
            "em": exact(answer, q["gold"]), "f1": f1(answer, q["gold"]),
            "cited": float(q["qasrl_id"] in cited), "cited_first": float(bool(cited) and cited[0] == q["qasrl_id"]),
            "n_cited": len(result.get("citations", [])),
            "bm25_contains": contains(texts[ranked[0]], q["gold"]), "bm25_top1": float(ids[ranked[0]] == q["qasrl_id"]),
            "bm25_top5": float(q["qasrl_id"] in [ids[i] for i in ranked]),
        })
    by_wh = {wh: {"n": len(r), "contains": pct([x["contains"] for x in r]), "em": pct([x["em"] for x in r]),
                  "f1": pct([x["f1"] for x in r]), "bm25_top1_contains": pct([x["bm25_contains"] for x in r])}
             for wh in sorted({x["wh"] for x in rows}) if (r := [x for x in rows if x["wh"] == wh])}
    graph_rows = [x for x in rows if x["retrieval"] == "graph" and x["status"] == "GROUNDED"]
    return {
        "set": "action", "questions": len(rows), "ingest_ms_per_line": round(1000 * ingest_seconds / max(lines, 1), 2),
        "karaka": {**answer_figures(rows), "contains": pct([x["contains"] for x in rows]),
                   "em": pct([x["em"] for x in rows]),
                   "f1": pct([x["f1"] for x in rows]), "gold_line_cited": pct([x["cited"] for x in rows]),
                   "gold_line_cited_first": pct([x["cited_first"] for x in rows]),
                   "mean_cited_lines": round(statistics.mean(x["n_cited"] for x in rows), 2),
                   "median_cited_lines_graph_answers": statistics.median([x["n_cited"] for x in graph_rows] or [0]),
                   "graph_answers": len(graph_rows), "fallback": sum(x["retrieval"] == "hybrid" for x in rows),
                   "latency_ms_p50": percentile(latency, 0.5), "latency_ms_p95": percentile(latency, 0.95),
                   **(llm_figures(results, latency) if args.llm else {})},
        "bm25": {"top1_line_contains": pct([x["bm25_contains"] for x in rows]),
                 "gold_line_top1": pct([x["bm25_top1"] for x in rows]), "gold_line_top5": pct([x["bm25_top5"] for x in rows])},
        "by_wh": by_wh, "rows": rows,
    }


def multihop_set(args: argparse.Namespace, root: Path) -> dict[str, Any]:
    data = json.loads((args.data / "qa" / "2wiki_dev.json").read_text())
    questions = data["questions"][: args.limit or None]
    passages = data["passages"]
    docs = root / "docs"
    docs.mkdir()
    names: dict[str, str] = {}
    for i, passage in enumerate(passages):
        name = f"p{i:04d}"
        names[name] = passage["title"]
        (docs / f"{name}.txt").write_text(f"{passage['title']}\n{passage['text']}\n", encoding="utf-8")
    ctx, ingest_seconds, lines = ingest(docs, root / "ws", args.llm, args.extract_with_llm)
    results, latency = ask_all(ctx, [q["question"] for q in questions])
    top = bm25_rank([f"{p['title']} {p['text']}" for p in passages], [q["question"] for q in questions], k=5)
    rows = []
    for q, result, ranked in zip(questions, results, top, strict=True):
        titles = list(dict.fromkeys(names.get(c["doc_id"].split("-")[0], c["doc_id"]) for c in result.get("citations", [])))
        gold = set(q["supporting_titles"])
        answer = shown_answer(result)
        bm25_titles = [passages[i]["title"] for i in ranked]
        rows.append({
            "id": q["id"], "type": q["type"], "answer": answer, "gold": q["answer"], "status": result.get("status"),
            "confidence": result.get("confidence", 0.0), "question": q["question"],
            "features": (result.get("evidence") or {}).get("features") or {},
            "why": (result.get("evidence") or {}).get("why", ""),
            "contains": contains(answer, [q["answer"]]), "em": exact(answer, [q["answer"]]), "f1": f1(answer, [q["answer"]]),
            "recall2": len(gold & set(titles[:2])) / len(gold), "recall5": len(gold & set(titles[:5])) / len(gold),
            "bm25_recall2": len(gold & set(bm25_titles[:2])) / len(gold),
            "bm25_recall5": len(gold & set(bm25_titles[:5])) / len(gold), "n_cited": len(result.get("citations", [])),
        })
    by_type = {t: {"n": len(r), "contains": pct([x["contains"] for x in r]), "recall5": pct([x["recall5"] for x in r]),
                   "bm25_recall5": pct([x["bm25_recall5"] for x in r])}
               for t in sorted({x["type"] for x in rows}) if (r := [x for x in rows if x["type"] == t])}
    return {
        "set": "multihop", "questions": len(rows), "ingest_ms_per_line": round(1000 * ingest_seconds / max(lines, 1), 2),
        "karaka": {**answer_figures(rows), "contains": pct([x["contains"] for x in rows]),
                   "em": pct([x["em"] for x in rows]),
                   "f1": pct([x["f1"] for x in rows]), "recall@2": pct([x["recall2"] for x in rows]),
                   "recall@5": pct([x["recall5"] for x in rows]),
                   "mean_cited_lines": round(statistics.mean(x["n_cited"] for x in rows), 2),
                   "latency_ms_p50": percentile(latency, 0.5), "latency_ms_p95": percentile(latency, 0.95),
                   **(llm_figures(results, latency) if args.llm else {})},
        "bm25": {"recall@2": pct([x["bm25_recall2"] for x in rows]), "recall@5": pct([x["bm25_recall5"] for x in rows])},
        "by_type": by_type, "rows": rows,
    }


def docs_summary(args: argparse.Namespace, root: Path) -> dict[str, Any]:
    """The docs dev set (benchmarks/docs.py), as one more set of this benchmark."""
    from docs import docs_set

    summary, rows = docs_set(argparse.Namespace(**{**vars(args), "corpus": None, "workspace": root / "ws"}))
    return {"set": "docs", **summary, "rows": rows}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--set", choices=["action", "multihop", "docs", "both", "all"], default="both",
                        help="both: action and multihop; all: the three (docs: benchmarks/docs.py's set)")
    parser.add_argument("--limit", type=int, help="first N questions of each set")
    parser.add_argument("--llm", help="LLM spec for the questions (default: parser mode, no LLM)")
    parser.add_argument("--extract-with-llm", action="store_true",
                        help="also ingest with the LLM (GSV); by default the parser ingests and the LLM only answers")
    parser.add_argument("--data", type=Path, default=DATA, help="the shared data folder")
    parser.add_argument("--json", type=Path, help="also write every row to this JSON file")
    parser.add_argument("--folds", action="store_true",
                        help="fit the confidence on two set families, measure on the third, all three ways; "
                             "with --fit also write the weights fitted on all three to answering/calibration.json")
    parser.add_argument("--fit", action="store_true", help="with --folds: write answering/calibration.json")
    parser.add_argument("--rows", type=Path, help="with --folds: read the rows of an earlier --json run instead")
    args = parser.parse_args()
    out = []
    if args.rows:
        out = json.loads(args.rows.read_text())
    else:
        for name, run in (("action", action_set), ("multihop", multihop_set), ("docs", docs_summary)):
            if args.set == name or args.set == "all" or args.folds or (args.set == "both" and name != "docs"):
                with tempfile.TemporaryDirectory() as tmp:
                    result = run(args, Path(tmp))
                out.append(result)
                print(json.dumps({k: v for k, v in result.items() if k != "rows"}, indent=1))
    if args.json:
        args.json.write_text(json.dumps(out, indent=1, ensure_ascii=False))
    if args.folds:
        print(json.dumps(folds(out, write=args.fit), indent=1))
    sys.exit(0)


def fit_rows(result: dict[str, Any]) -> list[tuple[dict[str, float], bool]]:
    """(features, right) of every question of a set: an answer shown is right when it holds the gold; a refusal
    (no features) when the question had no answer."""
    out = []
    for row in result["rows"]:
        shown = row["status"] in ("GROUNDED", "UNCERTAIN")
        out.append((row.get("features") or {} if shown else {},
                    bool(row["contains"]) if shown else not row.get("answerable", True)))
    return out


def folds(results: list[dict[str, Any]], write: bool = False) -> dict[str, Any]:
    """Out-of-fold calibration: for each set family, the weights fitted on the other two, measured on it."""
    sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "src"))
    from karaka.answering import confidence

    by_set = {r["set"]: fit_rows(r) for r in results}
    report: dict[str, Any] = {}
    for held in by_set:
        train = [row for name, rows in by_set.items() if name != held for row in rows]
        weights = confidence.fit([row for row in train if row[0]])
        refusals = [ok for features, ok in train if not features]
        no_answer = sum(refusals) / len(refusals) if refusals else 0.1
        scored = [{"confidence": confidence.predict(weights, f), "right": ok} for f, ok in by_set[held] if f]
        refused = [ok for f, ok in by_set[held] if not f]
        report[held] = {"fitted_on": sorted(set(by_set) - {held}), **calibration(scored),
                        "refusals": len(refused), "refusals_right_stated": round(no_answer, 3),
                        "refusals_right": round(sum(refused) / len(refused), 3) if refused else None}
    report["out_of_fold_ece"] = {name: report[name]["ece"] for name in by_set}
    if write:
        everything = [row for rows in by_set.values() for row in rows]
        weights = confidence.fit([row for row in everything if row[0]])
        refusals = [ok for features, ok in everything if not features]
        table = {"features": list(confidence.FEATURES), "weights": weights,
                 "no_answer_right": round(sum(refusals) / len(refusals), 3) if refusals else 0.1,
                 "fitted_on": sorted(by_set), "out_of_fold_ece": report["out_of_fold_ece"]}
        path = Path(__file__).resolve().parents[1] / "src" / "karaka" / "answering" / "calibration.json"
        path.write_text(json.dumps(table, indent=1) + "\n", encoding="utf-8")
        report["written"] = str(path)
    return report


if __name__ == "__main__":
    main()
