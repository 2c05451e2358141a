"""The ingestion report: documents, graph counts, GSV rates, fallbacks, LLM cost per line, failures."""

from __future__ import annotations

import time
from typing import Any

from karaka.services import Services
from karaka.state.ingest import IngestState, UnitStatus


def build_report(services: Services, state: IngestState) -> dict[str, Any]:
    """Summarise a run from the durable records (so a resumed run reports the whole run)."""
    records, ws = services.workspace.records, services.workspace
    doc_ids = state["doc_ids"]
    results = records.result_summary(doc_ids)
    loops = [r for r in results if r["attempts"] > 0 and r["status"] != UnitStatus.FALLBACK]
    accepted = [r for r in loops if r["status"] == UnitStatus.GOLDEN]
    line_calls: dict[tuple[str, int], float] = {}
    line_tokens: dict[tuple[str, int], float] = {}
    for row in results:
        width = row["last_line"] - row["first_line"] + 1
        for n in range(row["first_line"], row["last_line"] + 1):
            key = (row["doc_id"], n)
            line_calls[key] = line_calls.get(key, 0.0) + row["llm_calls"] / width
            line_tokens[key] = line_tokens.get(key, 0.0) + row["prompt_tokens"] / width
    n_lines = sum(state.get("doc_lines") or [(records.document(d) or {"n_lines": 0})["n_lines"] for d in doc_ids])
    failures = []
    for row in results:
        if row["status"] == UnitStatus.FAILED:
            stored = records.result(row["unit_id"]) or {"payload": {}}
            failures.append({"ref": _ref(services, row), "cause": stored["payload"].get("cause", "GSV-Retry exhausted")})
    failures += state.get("write_failures") or []
    post = records.decision_costs(state["run_id"])
    vetoes: dict[str, int] = {}
    changed = {"lines_as_parsed": 0, "lines_changed": 0, "roles_added": 0, "roles_relabelled": 0, "roles_removed": 0}
    for row in results:
        if row["attempts"] == 0:
            continue  # a loop ran: what the structural vetoes struck, and what the LLM changed
        payload = (records.result(row["unit_id"]) or {}).get("payload", {})
        for kind, n in (payload.get("vetoes") or {}).items():
            vetoes[kind] = vetoes.get(kind, 0) + int(n)
        diff = payload.get("changes")
        if diff:
            changed["lines_as_parsed" if diff["equal"] else "lines_changed"] += 1
            for what in ("added", "relabelled", "removed"):
                changed[f"roles_{what}"] += int(diff[what])
    elapsed = time.time() - state.get("started", time.time())
    ctx = services.ctx
    return {
        "run_id": state["run_id"],
        "settings": {"llm": ctx.llm, "extractor": ctx.extractor, "strategy": ctx.strategy, "window": ctx.window,
                     "fast_path": ctx.fast_path, "max_retries": ctx.max_retries,
                     "parser_candidate": ctx.parser_candidate},
        "documents": len(doc_ids), "lines": n_lines, "unchanged_documents": state.get("unchanged", []),
        "skipped_files": state.get("skipped", []), "warnings": state.get("warnings", []),
        "graph": ws.graph.stats(),
        "gsv": {
            "loops": len(loops), "accepted": len(accepted),
            "success_rate": round(len(accepted) / len(loops), 4) if loops else None,
            "fast_path_rate": round(sum(r["fast_path"] for r in accepted) / len(accepted), 4) if accepted else None,
            "parser_fallbacks": sum(r["status"] == UnitStatus.PARSER_FALLBACK for r in results),
            "fallback_windows": sum(r["status"] == UnitStatus.FALLBACK for r in results),
            "structural_vetoes": vetoes,
            "against_the_parser": changed,
        },
        "llm_calls": {
            "extraction": sum(r["llm_calls"] for r in results),
            "post_processing": sum(v["calls"] for v in post.values()),
            "per_line_mean": round(sum(line_calls.values()) / len(line_calls), 3) if line_calls else 0.0,
            "per_line_max": round(max(line_calls.values()), 3) if line_calls else 0.0,
            "prompt_tokens_per_line_mean": round(sum(line_tokens.values()) / len(line_tokens), 1) if line_tokens else 0.0,
            "post_processing_by_step": post,
        },
        "post_processing": (state.get("report") or {}).get("post_processing", {}),
        "failures": failures,
        "seconds": round(elapsed, 3),
        "seconds_per_line": round(elapsed / n_lines, 5) if n_lines else 0.0,
    }


def _ref(services: Services, row: dict[str, Any]) -> str:
    """A failure's place as a reader finds it: the document and its file line(s)."""
    first = services.workspace.records.line(row["doc_id"], row["first_line"])
    last = services.workspace.records.line(row["doc_id"], row["last_line"])
    if first is None or last is None:
        return f"{row['doc_id']}:{row['first_line']}"
    return f"{row['doc_id']}:{first.line}" + (f"-{last.line}" if last.line != first.line else "")
