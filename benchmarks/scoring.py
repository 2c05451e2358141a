"""The exact metrics of ../shared/data/qa/README.md, shared by the QA and docs benchmarks: SQuAD
normalisation, contains / exact / F1, the answer a user sees, answer figures and calibration, the
bm25s baseline."""

from __future__ import annotations

import re
import statistics
import string
from pathlib import Path
from typing import Any

DATA = Path(__file__).resolve().parents[2] / "shared" / "data"
ARTICLES = re.compile(r"\b(a|an|the)\b")


def normalize(text: str) -> str:
    """SQuAD normalisation: lowercase, punctuation to spaces, no articles, single spaces."""
    text = text.lower()
    text = "".join(" " if ch in string.punctuation else ch for ch in text)
    return " ".join(ARTICLES.sub(" ", text).split())


def contains(answer: str, golds: list[str]) -> float:
    norm = f" {normalize(answer)} "
    return float(any(normalize(g) and f" {normalize(g)} " in norm for g in golds))


def exact(answer: str, golds: list[str]) -> float:
    return float(any(normalize(answer) == normalize(g) for g in golds))


def f1(answer: str, golds: list[str]) -> float:
    best = 0.0
    pred = normalize(answer).split()
    for gold in golds:
        ref = normalize(gold).split()
        common = sum(min(pred.count(w), ref.count(w)) for w in set(pred))
        if common:
            p, r = common / len(pred), common / len(ref)
            best = max(best, 2 * p * r / (p + r))
    return best


def shown_answer(result: dict[str, Any]) -> str:
    """The answer a user sees: the spans (proved, or the candidate of an UNCERTAIN result), else the answer text."""
    if result.get("answers"):
        return "; ".join(result["answers"])
    return str(result.get("answer", "")) if result.get("status") == "GROUNDED" else ""


def answer_figures(rows: list[dict[str, Any]]) -> dict[str, Any]:
    """What every set reports alike: right (GROUNDED and holding the gold), GROUNDED precision, the statuses.

    A row needs ``status``, ``contains`` (the answer shown holds the gold), ``answerable`` and
    ``confidence``. The calibration is that of the answers shown (GROUNDED or UNCERTAIN): the
    chance stated against how often the answer shown held the gold.
    """
    grounded = [x for x in rows if x["status"] == "GROUNDED"]
    right = [x for x in grounded if x["contains"] and x.get("answerable", True)]
    uncertain = [x for x in rows if x["status"] == "UNCERTAIN"]
    shown = [{**x, "right": bool(x["contains"])} for x in rows if x["status"] in ("GROUNDED", "UNCERTAIN")]
    answerable = [x for x in rows if x.get("answerable", True)]
    return {"right": pct([float(x in right) for x in answerable]), "right_n": len(right), "answerable": len(answerable),
            "grounded": len(grounded), "grounded_wrong": len(grounded) - len(right),
            "grounded_precision": pct([float(x in right) for x in grounded]),
            "uncertain": len(uncertain), "uncertain_candidate_right": sum(bool(x["contains"]) for x in uncertain),
            "refused_unanswerable": sum(x["status"] != "GROUNDED" for x in rows if not x.get("answerable", True)),
            "unanswerable": sum(not x.get("answerable", True) for x in rows),
            "status": {st: sum(x["status"] == st for x in rows) for st in sorted({x["status"] for x in rows})},
            "calibration": calibration(shown)}


def calibration(rows: list[dict[str, Any]], bins: int = 5) -> dict[str, Any]:
    """Reliability of the stated confidence: per bin, how often a result given with it was right; and the ECE.

    The confidence is the chance that the result is right: an answer's that it holds the gold, a
    refusal's that there was nothing to find. Rows need ``confidence`` and ``right``.
    """
    points = [(r["confidence"], r["right"]) for r in rows]
    table, ece = [], 0.0
    for b in range(bins):
        low, high = b / bins, (b + 1) / bins
        inside = [(c, ok) for c, ok in points if low <= c < high or (b == bins - 1 and c == 1.0)]
        if not inside:
            continue
        conf = statistics.mean(c for c, _ in inside)
        acc = statistics.mean(float(ok) for _, ok in inside)
        ece += abs(acc - conf) * len(inside) / len(points)
        table.append({"bin": f"{low:.1f}-{high:.1f}", "n": len(inside), "confidence": round(conf, 2),
                      "right": round(acc, 2)})
    return {"ece": round(ece, 3), "reliability": table}


def pct(values: list[float]) -> float:
    return round(100 * sum(values) / len(values), 1) if values else 0.0


def percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return round(ordered[min(len(ordered) - 1, int(q * (len(ordered) - 1)))], 1) if ordered else 0.0


def bm25_rank(texts: list[str], queries: list[str], k: int) -> list[list[int]]:
    """bm25s over ``texts`` with English stopwords: the top ``k`` indices per query."""
    import bm25s

    retriever = bm25s.BM25()
    retriever.index(bm25s.tokenize(texts, stopwords="en", show_progress=False), show_progress=False)
    ids, _ = retriever.retrieve(bm25s.tokenize(queries, stopwords="en", show_progress=False), k=k,
                                show_progress=False)
    return [list(map(int, row)) for row in ids]
