"""The ingestion report: documents, graph counts, GSV rates, LLM cost per line, failures."""

from __future__ import annotations

import time
from statistics import mean
from typing import Any

from karaka.services import Services
from karaka.state.ingest import IngestState


def _line_costs(results: list[dict[str, Any]]) -> tuple[dict[tuple[str, int], float], dict[tuple[str, int], float]]:
    calls: dict[tuple[str, int], float] = {}
    tokens: dict[tuple[str, int], float] = {}
    for row in results:
        span = range(row["first_line"], row["last_line"] + 1)
        for n in span:
            key = (row["doc_id"], n)
            calls[key] = calls.get(key, 0.0) + row["llm_calls"] / len(span)
            tokens[key] = tokens.get(key, 0.0) + row["prompt_tokens"] / len(span)
    return calls, tokens


def build_report(services: Services, state: IngestState) -> dict[str, Any]:
    """Summarise a run from the durable records (so a resumed run reports the whole run)."""
    records, ws = services.workspace.records, services.workspace
    doc_ids = state["doc_ids"]
    results = records.results(doc_ids)
    loops = [r for r in results if r["status"] in ("golden", "failed") and r["attempts"] > 0]
    accepted = [r for r in loops if r["status"] == "golden"]
    calls, tokens = _line_costs(results)
    n_lines = sum((records.document(d) or {"n_lines": 0})["n_lines"] for d in doc_ids)
    failures = [
        {"ref": f"{r['doc_id']}:{r['first_line']}" + (f"-{r['last_line']}" if r["last_line"] != r["first_line"] else ""),
         "cause": r["payload"].get("cause", "GSV-Retry exhausted")}
        for r in results if r["status"] == "failed"
    ]
    post = records.decision_costs(state["run_id"])
    post_calls = sum(v["calls"] for v in post.values())
    elapsed = time.time() - state.get("started", time.time())
    extraction_calls = sum(r["llm_calls"] for r in results)
    return {
        "run_id": state["run_id"],
        "settings": {"llm": services.ctx.llm, "extractor": services.ctx.extractor,
                     "strategy": services.ctx.strategy, "window": services.ctx.window,
                     "fast_path": services.ctx.fast_path, "max_retries": services.ctx.max_retries},
        "documents": len(doc_ids), "lines": n_lines,
        "unchanged_documents": state.get("unchanged", []),
        "skipped_files": state.get("skipped", []), "warnings": state.get("warnings", []),
        "graph": ws.graph.stats(),
        "gsv": {
            "loops": len(loops), "accepted": len(accepted),
            "success_rate": round(len(accepted) / len(loops), 4) if loops else None,
            "fast_path_rate": round(sum(r["fast_path"] for r in accepted) / len(accepted), 4) if accepted else None,
            "fallback_windows": sum(r["status"] == "fallback" for r in results),
        },
        "llm_calls": {
            "extraction": extraction_calls, "post_processing": post_calls,
            "per_line_mean": round(mean(calls.values()), 3) if calls else 0.0,
            "per_line_max": round(max(calls.values()), 3) if calls else 0.0,
            "prompt_tokens_per_line_mean": round(mean(tokens.values()), 1) if tokens else 0.0,
            "post_processing_by_step": post,
        },
        "post_processing": (state.get("report") or {}).get("post_processing", {}),
        "failures": failures,
        "seconds": round(elapsed, 3),
        "seconds_per_line": round(elapsed / n_lines, 5) if n_lines else 0.0,
    }
