"""A user's folder of real documents: 40 questions over PDFs, a scan, Markdown, text, French, HTML.

    python benchmarks/docs.py [--corpus DIR] [--llm SPEC] [--limit N] [--json OUT]
    python benchmarks/qa.py --set docs [--llm SPEC] [--limit N]      # the same, from the QA benchmark

Without --corpus, ../shared/data/qa/docs_dev/make_corpus.sh builds it once into
~/.cache/karaka/docs_dev_corpus (it downloads pinned Debian and PyPI packages).

Metrics exactly as ../shared/data/qa/docs_dev/README.md defines them: answer right (SQuAD-normalised
gold contained, on word boundaries, in the answer a user sees; for an unanswerable question only a
refusal is right), citation right (a cited line holds the gold, in the gold's file; a PDF citation
counts only on the evidence page), cited first. Karaka ingests HTML and runs OCR, so the two
questions answered only by the HTML page and the two only by the scan count as answerable here
(``--strict`` scores them as the README's unanswerable ones).

It also checks the documents as loaded: every cited PDF line stands on the page it names (its
text is found in that page's text, read independently by pypdf), no stored PDF unit holds its
page's running header or footer (lines that pypdf reads at the top or bottom of two or more
pages, numbers aside), no ligature survives in the indexed text; and times loading (OCR's
seconds per page reported apart).
"""

from __future__ import annotations

import argparse
import json
import re
import statistics
import sys
import tempfile
import time
import unicodedata
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).parent))
from scoring import DATA, answer_figures, bm25_rank, contains, pct, shown_answer  # noqa: E402

LIGATURES = re.compile("[\ufb00-\ufb06]")
REFUSAL = re.compile(r"\b(no answer|not found|cannot answer|could not find|do(es)? not (say|contain|mention))\b",
                     re.IGNORECASE)


def squash(text: str) -> str:
    return " ".join(re.sub(r"[^\w]+", " ", unicodedata.normalize("NFKC", text).lower().replace("\u2010", "")).split())


def refused(result: dict[str, Any]) -> bool:
    """The system gives no answer it stands by: anything but GROUNDED, or words that say it found none."""
    if result["status"] != "GROUNDED":
        return True
    return bool(REFUSAL.search(result.get("answer", ""))) and not result.get("answers")


def doc_id_of(file: str) -> str:
    from karaka.loading import make_name

    return make_name(Path(file), None)


def pdf_pages(path: Path) -> list[str]:
    """Each page's text as pypdf reads it, squashed (an independent reader for the checks)."""
    import logging

    from pypdf import PdfReader

    logging.getLogger("pypdf").setLevel(logging.ERROR)
    return [squash(page.extract_text() or "") for page in PdfReader(str(path)).pages]


def furniture(path: Path) -> dict[int, set[str]]:
    """Per page, pypdf's first and last lines that recur (numbers aside) on two or more pages."""
    import logging
    from collections import Counter

    from pypdf import PdfReader

    logging.getLogger("pypdf").setLevel(logging.ERROR)
    ends: dict[int, list[str]] = {}
    for number, page in enumerate(PdfReader(str(path)).pages, 1):
        lines = [ln.strip() for ln in (page.extract_text() or "").splitlines() if ln.strip()]
        ends[number] = lines[:1] + lines[-1:]
    key = Counter(re.sub(r"\d+", "#", squash(x)) for lines in ends.values() for x in set(lines))
    return {n: {squash(x) for x in lines if key[re.sub(r"\d+", "#", squash(x))] >= 2 and len(squash(x)) >= 4
                and re.search(r"[^\W\d_]{3}", x)} for n, lines in ends.items()}


def citation_right(citation: dict[str, Any], question: dict[str, Any]) -> bool:
    if not question.get("file") or citation["doc_id"] != doc_id_of(question["file"]):
        return False
    text = f" {squash(citation['text'])} "
    if not any(squash(g) and f" {squash(g)} " in text for g in question["gold"]):
        return False
    pages = {e.get("page") for e in question["evidence"] if e["file"] == question["file"] and e.get("page")}
    return not pages or citation.get("page") in pages


def check_units(ws: Any, corpus: Path) -> dict[str, Any]:
    """Ligatures in indexed text; PDF units holding their page's header or footer."""
    graph = ws.graph
    texts = [graph.node(d) or {} for d in graph.nodes_of("Document")]
    by_doc: dict[str, Path] = {doc_id_of(p.name): p for p in corpus.iterdir() if p.suffix == ".pdf"}
    marks: dict[str, dict[int, set[str]]] = {d: furniture(p) for d, p in by_doc.items()}
    holding = []
    for node in texts:
        doc = node.get("doc_id")
        if doc in marks and node.get("page") and node.get("method") != "ocr":
            unit = f" {squash(node['text'])} "
            for mark in marks[doc].get(node["page"], ()):
                if f" {mark} " in unit and unit.strip() != mark:
                    holding.append({"doc": doc, "page": node["page"], "furniture": mark, "unit": node["text"][:120]})
    return {"ligatures": sum(bool(LIGATURES.search(n.get("text", ""))) for n in texts),
            "units_with_furniture": len(holding), "furniture_examples": holding[:5]}


def page_check(citations: list[dict[str, Any]], corpus: Path) -> dict[str, int]:
    """Every cited PDF line against pypdf's text of the page it names."""
    pages: dict[str, list[str]] = {}
    right = wrong = 0
    for c in citations:
        if not c.get("page"):
            continue
        path = next((p for p in corpus.iterdir() if doc_id_of(p.name) == c["doc_id"]), None)
        if path is None:
            continue
        if c["doc_id"] not in pages:
            pages[c["doc_id"]] = pdf_pages(path)
        text = pages[c["doc_id"]]
        if not any(text):  # a scan: pypdf has no text to compare with
            continue
        # the sentence's start (it may run over a page break) is on the page it names
        here = 0 < c["page"] <= len(text) and squash(c["text"])[:20] in text[c["page"] - 1]
        right += here
        wrong += not here
    return {"pdf_citations": right + wrong, "on_the_named_page": right}


CORPUS = Path.home() / ".cache" / "karaka" / "docs_dev_corpus"


def corpus(path: Path | None, data: Path) -> Path:
    """The docs dev corpus: the folder given, or one built once with make_corpus.sh (needs the package registries)."""
    import subprocess

    if path is not None:
        return path
    if not (CORPUS.is_dir() and any(CORPUS.iterdir())):
        script = data / "qa" / "docs_dev" / "make_corpus.sh"
        subprocess.run(["bash", str(script), str(CORPUS), sys.executable], check=True)
    return CORPUS


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--corpus", type=Path, help=f"the folder make_corpus.sh wrote (default: build {CORPUS} once)")
    parser.add_argument("--llm", help="LLM spec for the questions (default: parser mode, no LLM)")
    parser.add_argument("--limit", type=int)
    parser.add_argument("--strict", action="store_true", help="HTML- and scan-only questions count as unanswerable")
    parser.add_argument("--data", type=Path, default=DATA)
    parser.add_argument("--json", type=Path)
    parser.add_argument("--workspace", type=Path, help="keep the workspace here (an existing one is reused)")
    args = parser.parse_args()
    summary, rows = docs_set(args)
    print(json.dumps(summary, indent=1, ensure_ascii=False))
    if args.json:
        args.json.write_text(json.dumps({"summary": summary, "rows": rows}, indent=1, ensure_ascii=False))


def docs_set(args: argparse.Namespace) -> tuple[dict[str, Any], list[dict[str, Any]]]:
    """Ingest the corpus, ask the questions, score them; the summary and the rows."""
    args.corpus = corpus(getattr(args, "corpus", None), args.data)
    args.strict = getattr(args, "strict", False)
    args.workspace = getattr(args, "workspace", None)

    from karaka.app.runner import run_ingest, run_query
    from karaka.config import resolve_context
    from karaka.loading import load_file
    from karaka.services import get_services

    questions = json.loads((args.data / "qa" / "docs_dev" / "questions.json").read_text())[: args.limit or None]
    load_seconds: dict[str, float] = {}
    for path in sorted(args.corpus.iterdir()):
        start = time.perf_counter()
        lines = load_file(path, 1000, [])
        load_seconds[path.name] = time.perf_counter() - start
        if any(s.method == "ocr" for s in lines):
            load_seconds[path.name + " (OCR, s/page)"] = load_seconds[path.name] / max(s.page for s in lines)
    with tempfile.TemporaryDirectory() as scratch:
        tmp = str(args.workspace or scratch)
        start = time.perf_counter()
        report = run_ingest(resolve_context({"workspace": tmp, "llm": "none", "extractor": "parser"}), args.corpus)
        ingest_s = time.perf_counter() - start
        ctx = resolve_context({"workspace": tmp, "llm": args.llm or "none"})
        rows, latency = [], []
        for q in questions:
            start = time.perf_counter()
            result = run_query(ctx, q["question"])
            latency.append(time.perf_counter() - start)
            answerable = q["answerable"] or (not args.strict and q.get("only_in") in ("HTML", "image-only PDF"))
            shown = shown_answer(result)
            right = (not refused(result) and bool(contains(shown, q["gold"]))) if answerable else refused(result)
            cites = [citation_right(c, q) for c in result["citations"]]
            rows.append({"id": q["id"], "kind": q["kind"], "answerable": answerable, "right": right,
                         "contains": bool(contains(shown, q["gold"])),
                         "features": (result.get("evidence") or {}).get("features") or {},
                         "why": (result.get("evidence") or {}).get("why", ""),
                         "cited": any(cites), "cited_first": bool(cites and cites[0]), "status": result["status"],
                         "confidence": result.get("confidence", 0.0), "llm_calls": result["llm_calls"],
                         "seconds": round(latency[-1], 1), "mode": result.get("answer_mode"),
                         "shown": shown[:200], "question": q["question"], "gold": q["gold"][:2],
                         "citations": result["citations"]})
            print(f"{q['id']} {'RIGHT' if right else 'wrong'} {result['status']:9s} {q['question'][:70]!r} -> "
                  f"{shown[:100]!r}", file=sys.stderr, flush=True)
        ws = get_services(ctx).workspace
        units = check_units(ws, args.corpus)
        nodes = [ws.graph.node(d) or {} for d in ws.graph.nodes_of("Document")]
        tops = bm25_rank([str(n.get("text", "")) for n in nodes], [q["question"] for q in questions], 1)
        for row, q, top in zip(rows, questions, tops, strict=True):
            row["bm25_top_right"] = citation_right(nodes[top[0]], q) if top else False
    answerable_rows = [r for r in rows if r["answerable"]]
    summary = {
        "questions": len(rows), "llm": args.llm or "none",
        "answer_right": pct([r["right"] for r in rows]),
        "answerable_right": pct([r["right"] for r in answerable_rows]),
        "unanswerable_refused": pct([r["right"] for r in rows if not r["answerable"]]),
        "citation_right": pct([r["cited"] for r in answerable_rows]),
        "cited_first": pct([r["cited_first"] for r in answerable_rows]),
        "bm25_top_line_holds_answer": pct([r["bm25_top_right"] for r in answerable_rows]),
        "by_kind": {k: pct([r["right"] for r in rows if r["kind"] == k]) for k in sorted({r["kind"] for r in rows})},
        **{k: v for k, v in answer_figures(rows).items() if k != "right"},
        **page_check([c for r in rows for c in r["citations"]], args.corpus),
        **units,
        "query_s_median": round(statistics.median(latency), 2), "query_s_max": round(max(latency), 1),
        "requests_median": statistics.median(r["llm_calls"] for r in rows),
        "requests_max": max(r["llm_calls"] for r in rows),
        "uncited_grounded": sum(r["status"] == "GROUNDED" and not r["citations"] for r in rows),
        "ingest_s": round(ingest_s, 1), "sentences": report.get("lines"),
        "load_s": {k: round(v, 2) for k, v in load_seconds.items()},
        "warnings": [w for w in report.get("warnings", []) if "not parsed" in w],
    }
    return summary, rows


if __name__ == "__main__":
    main()
