"""Extraction workers: the GSV loop per window (with per-line fallback), batched, or parser."""

from __future__ import annotations

import json
import logging
import time
from typing import Any

from langgraph.runtime import Runtime

from karaka.analyzer import analyze_window
from karaka.config import Context
from karaka.graphs.gsv import run_gsv
from karaka.models.call import LLMCallError
from karaka.nodes.common import ask, emit, services_of
from karaka.nodes.units import numbered, unit_id
from karaka.services import Services
from karaka.state.ingest import UnitArgs
from karaka.tasks import get_task, kriya_checks

log = logging.getLogger("karaka.extract")


def _lines(services: Services, unit: dict[str, Any]) -> dict[int, str]:
    records = services.workspace.records
    out = {}
    for n in range(unit["first"], unit["last"] + 1):
        text = records.line(unit["doc_id"], n)
        if text is None:
            raise ValueError(f"{unit['doc_id']}: line {n} is missing from the records")
        out[n] = text
    return out


def _store(services: Services, unit: dict[str, Any], status: str, payload: Any, *, run_id: str,
           calls: int = 0, tokens: int = 0, attempts: int = 0, fast: bool = False,
           started: float) -> dict[str, Any]:
    services.workspace.records.put_result(
        unit["unit_id"], unit["doc_id"], unit["first"], unit["last"], status, payload,
        llm_calls=calls, prompt_tokens=tokens, attempts=attempts, fast_path=fast,
        seconds=time.perf_counter() - started, run_id=run_id,
    )
    return {"unit_id": unit["unit_id"], "status": status, "llm_calls": calls}


def _tag_lines(data: dict[str, Any], unit: dict[str, Any], extractor: str) -> dict[str, Any]:
    kriyas = []
    for item in data.get("kriyas", []):
        line = item.get("line") or (unit["first"] if unit["first"] == unit["last"] else None)
        kriyas.append({**item, "line": line, "extractor": extractor})
    return {"kriyas": kriyas}


def gsv_unit(services: Services, unit: dict[str, Any], run_id: str) -> dict[str, Any]:
    """Run the loop on one window; an exhausted window falls back to one loop per line."""
    started = time.perf_counter()
    ctx = services.ctx
    lines = _lines(services, unit)
    seed = analyze_window(lines) if ctx.parser_candidate else None
    ref = {"doc_id": unit["doc_id"], "first_line": unit["first"], "last_line": unit["last"],
           "text": " ".join(lines.values())[:500]}
    out = run_gsv({"task": "kriya", "source": numbered(lines), "ref": ref, "seed": seed}, ctx)
    cost: dict[str, Any] = {"calls": out["llm_calls"], "tokens": out["prompt_tokens"], "attempts": out["attempt"],
                            "fast": out["fast_path"]}
    if out["golden"] is not None:
        return _store(services, unit, "golden", _tag_lines(out["golden"], unit, "llm"), run_id=run_id,
                      started=started, **cost)
    if unit["first"] == unit["last"]:
        cause = (out["history"] or [{}])[-1].get("feedback", "exhausted")
        return _store(services, unit, "failed", {"cause": cause}, run_id=run_id, started=started, **cost)
    singles = []
    for n in lines:
        single = {"unit_id": unit_id(unit["doc_id"], n, n), "doc_id": unit["doc_id"], "first": n, "last": n}
        if services.workspace.records.result(single["unit_id"]) is None:
            gsv_unit(services, single, run_id)
        singles.append(single["unit_id"])
    return _store(services, unit, "fallback", {"lines": singles}, run_id=run_id, started=started, **cost)


def parser_unit(services: Services, unit: dict[str, Any], run_id: str) -> dict[str, Any]:
    """The analyzer's extraction, written without any LLM call."""
    started = time.perf_counter()
    data = _tag_lines(analyze_window(_lines(services, unit)), unit, "parser")
    status = "golden" if data["kriyas"] else "empty"
    return _store(services, unit, status, data, run_id=run_id, started=started)


def batched_units(services: Services, units: list[dict[str, Any]], run_id: str) -> list[dict[str, Any]]:
    """The design's batched strategy: one pass, one validation call, full loop on failures."""
    task = get_task("kriya")
    drafts: dict[str, dict[str, Any]] = {}
    calls: dict[str, float] = {}
    tokens: dict[str, int] = {}
    started = time.perf_counter()
    for unit in units:
        lines = _lines(services, unit)
        calls[unit["unit_id"]], tokens[unit["unit_id"]] = 1, 0
        try:
            reply = ask(services, task.generate_key, lines=numbered(lines))
        except LLMCallError as exc:
            log.warning("batched generation failed for %s: %s", unit["unit_id"], exc)
            continue
        tokens[unit["unit_id"]] = reply.prompt_tokens
        data, errors = task.parse(reply.text)
        if data is not None and not errors and services.ctx.rule_checks:
            errors = kriya_checks(data, numbered(lines))
        if data is not None and not errors:
            drafts[unit["unit_id"]] = {"unit": unit, "data": data, "source": numbered(lines)}
    invalid_lines: set[int] = set()
    if drafts:
        items = "\n\n".join(
            f"{d['source']}\nExtraction: {json.dumps(d['data'], ensure_ascii=False)}" for d in drafts.values()
        )
        share = 1 / len(drafts)
        try:
            reply = ask(services, "kriya_batch_validation_prompt", items=items)
            verdict = task_safe(reply.text)
            invalid_lines = {int(x) for x in verdict.get("invalid_lines", []) if str(x).isdigit()}
        except (LLMCallError, ValueError):  # unreadable verdict: trust nothing
            invalid_lines = {n for d in drafts.values() for n in range(d["unit"]["first"], d["unit"]["last"] + 1)}
        for key in drafts:
            calls[key] += share
    outcomes = []
    for unit in units:
        key = unit["unit_id"]
        draft = drafts.get(key)
        span = set(range(unit["first"], unit["last"] + 1))
        if draft is not None and not span & invalid_lines:
            outcomes.append(_store(services, unit, "golden", _tag_lines(draft["data"], unit, "llm"),
                                   run_id=run_id, calls=round(calls[key]), tokens=tokens[key],
                                   attempts=0, started=started))
        else:
            outcome = gsv_unit(services, unit, run_id)
            row = services.workspace.records.result(key)
            if row is not None:  # fold the first pass's cost into the unit's record
                services.workspace.records.put_result(
                    key, unit["doc_id"], unit["first"], unit["last"], row["status"], row["payload"],
                    llm_calls=row["llm_calls"] + round(calls[key]), prompt_tokens=row["prompt_tokens"] + tokens[key],
                    attempts=row["attempts"], fast_path=bool(row["fast_path"]), seconds=row["seconds"], run_id=run_id,
                )
            outcomes.append(outcome)
    return outcomes


def task_safe(text: str) -> dict[str, Any]:
    """Recover a JSON object from a validation reply."""
    from karaka.jsonparse import recover_json

    value = recover_json(text)
    if not isinstance(value, dict):
        raise ValueError("validation reply is not an object")
    return value


def extract_units(args: UnitArgs, runtime: Runtime[Context]) -> dict[str, Any]:
    """Worker node: process the units it was sent and store each result durably."""
    services = services_of(runtime)
    ctx = services.ctx
    records = services.workspace.records
    # A task replayed after a crash finds its units' results already stored: no LLM work again.
    stored = {u["unit_id"]: records.result(u["unit_id"]) for u in args["units"]}
    units = [u for u in args["units"] if stored[u["unit_id"]] is None]
    outcomes = [{"unit_id": uid, "status": row["status"], "reused": True} for uid, row in stored.items() if row]
    if ctx.extractor == "parser":
        outcomes += [parser_unit(services, u, args["run_id"]) for u in units]
    elif ctx.strategy == "batched":
        outcomes += batched_units(services, units, args["run_id"]) if units else []
    else:
        outcomes += [gsv_unit(services, u, args["run_id"]) for u in units]
    for outcome in outcomes:
        emit(runtime, {"event": "unit", **outcome})
    return {"units_done": len(args["units"])}
