"""Extraction workers: GSV-Retry per window (per-line fallback), batched, or the parser alone.

Every unit's outcome is stored durably in the records before the worker returns, so a resumed
run redoes only the units that were in flight. On exhaustion a line falls back to the parser's
candidate when it passes the rule checks (``parser-fallback``); nothing is left silently empty.
"""

from __future__ import annotations

import json
import logging
import time
from collections.abc import Callable, Mapping
from typing import Any

from langgraph.runtime import Runtime

from karaka.config import Context
from karaka.gsv import get_task
from karaka.gsv.kriya import kriya_checks
from karaka.gsv.run import Loop, run_loop
from karaka.jsonparse import recover_json
from karaka.kg.units import extractable, numbered, sentences_of
from karaka.models.call import LLMCallError
from karaka.nlp import parse_many
from karaka.nlp.alternatives import for_loop
from karaka.nlp.roles import analyze_doc, analyze_window, seed_candidate
from karaka.nlp.rules import STRUCTURE_VETOES, mentions
from karaka.nodes.common import emit, services_of
from karaka.services import Services, ask
from karaka.state.gsv import GSVInput, GSVOutput
from karaka.state.ingest import Provenance, Unit, UnitArgs, UnitStatus

log = logging.getLogger("karaka.extract")
RunLoop = Callable[[GSVInput], GSVOutput]


def _lines(services: Services, unit: Unit) -> dict[int, str]:
    """The unit's sentences that go to the extractor (code, table rows and such are left out)."""
    found = services.workspace.records.lines(unit.doc_id, unit.first, unit.last)
    seqs = {s.seq for s in found}
    missing = [n for n in range(unit.first, unit.last + 1) if n not in seqs]
    if missing:
        raise ValueError(f"{unit.doc_id}: sentence {missing[0]} is missing from the records")
    return {s.seq: s.text for s in found if extractable(s, parser=services.ctx.extractor == "parser")}


def _store(services: Services, unit: Unit, status: UnitStatus, payload: Any, *, run_id: str, started: float,
           calls: int = 0, tokens: int = 0, attempts: int = 0, fast: bool = False) -> dict[str, Any]:
    services.workspace.records.put_result(
        unit.unit_id, unit.doc_id, unit.first, unit.last, status, payload, llm_calls=calls, prompt_tokens=tokens,
        attempts=attempts, fast_path=fast, seconds=time.perf_counter() - started, run_id=run_id)
    return {"unit_id": unit.unit_id, "status": str(status.value), "llm_calls": calls}


def _tag(data: dict[str, Any], unit: Unit, provenance: Provenance,
         analysis: dict[str, Any] | None = None) -> dict[str, Any]:
    """Kriyas with their line and provenance; parser extras (adjuncts, links) kept where the verb agrees."""
    extras: dict[tuple[Any, str], dict[str, Any]] = {}
    for item in (analysis or {}).get("kriyas", []):
        extras.setdefault((item["line"], item["verb"]), item)
    kriyas = []
    for item in data.get("kriyas", []):
        line = item.get("line") or (unit.first if unit.single else None)
        out = {**item, "line": line, "provenance": provenance.value}
        extra = extras.get((line, str(item.get("verb", "")).lower()))
        if extra is not None:
            for key in ("adjuncts", "links", "token", "char", "dep", "types", "shapes"):
                if key in extra and key not in out:
                    out[key] = extra[key]
        kriyas.append(out)
    return {"kriyas": kriyas}


def changes(parser: dict[str, Any], written: dict[str, Any], unit: Unit) -> dict[str, Any]:
    """What the LLM changed against the parser's analysis of a window: roles added, relabelled, removed.

    Roles are compared by their words (a span with the same words is the same participant), per
    line and verb; ``equal`` says the written Kriyās are the parser's.
    """
    def action(item: dict[str, Any]) -> tuple[Any, str]:
        return item.get("line") or (unit.first if unit.single else None), str(item.get("verb", "")).lower()

    def roles(data: dict[str, Any]) -> dict[tuple[Any, str, str], str]:
        return {(*action(item), " ".join(span.lower().split())): role for item in data.get("kriyas", [])
                for role, value in (item.get("karakas") or {}).items() for span in mentions(value)}

    before, after = roles(parser), roles(written)
    verbs = {action(i) for i in parser.get("kriyas", [])}
    kept = {action(i) for i in written.get("kriyas", [])}
    counts = {"added": sum(k not in before for k in after), "removed": sum(k not in after for k in before),
              "relabelled": sum(k in after and after[k] != before[k] for k in before)}
    return {**counts, "equal": verbs == kept and not any(counts.values())}


def vetoes_of(out: Mapping[str, Any]) -> dict[str, int]:
    """How often each structural veto struck a candidate of a loop (``karaka.nlp.rules.STRUCTURE_VETOES``)."""
    counts: dict[str, int] = {}
    for attempt in out.get("history") or []:
        for candidate in attempt.get("candidates") or []:
            for error in candidate.get("errors") or []:
                for kind in STRUCTURE_VETOES:
                    if kind in error:
                        counts[kind] = counts.get(kind, 0) + 1
    return counts


def offered(ctx: Context, lines: dict[int, str], analysis: dict[str, Any], seed: dict[str, Any] | None,
            docs: dict[int, Any] | None = None) -> list[dict[str, Any]] | None:
    """The parser's other readings for the loop to choose among; None lets the LLM write (``llm_writes``, or no action found)."""
    if ctx.llm_writes or not seed or not seed["kriyas"]:
        return None
    return for_loop(lines, analysis, docs=docs)


def parser_fallback(analysis: dict[str, Any], source: str, rule_checks: bool) -> tuple[dict[str, Any] | None, list[str]]:
    """The parser's candidate for an exhausted line, when it found an action and passes the rule checks."""
    fallback = seed_candidate(analysis)
    problems = kriya_checks(fallback, source) if rule_checks else []
    if not fallback["kriyas"]:
        return None, ["no action found"]
    return (None, problems) if problems else (fallback, [])


def gsv_unit(services: Services, unit: Unit, run_id: str, run: RunLoop) -> dict[str, Any]:
    """Run the loop on one window, with fallbacks.

    An exhausted line falls back to the parser's candidate when it passes the rule checks; so does
    each line of an exhausted window (see ``after_window``).
    """
    started = time.perf_counter()
    ctx = services.ctx
    lines = _lines(services, unit)
    if not lines:  # code or table rows only: nothing for the loop to read
        return _store(services, unit, UnitStatus.EMPTY, {"kriyas": []}, run_id=run_id, started=started)
    analysis = analyze_window(lines)
    seed = seed_candidate(analysis) if ctx.parser_candidate else None
    ref = {"doc_id": unit.doc_id, "first_line": unit.first, "last_line": unit.last,
           "text": " ".join(lines.values())[:500]}
    out = run({"task": "kriya", "source": numbered(lines), "ref": ref, "seed": seed,
               "alternatives": offered(ctx, lines, analysis, seed)})
    cost: dict[str, Any] = {"calls": out["llm_calls"], "tokens": out["prompt_tokens"], "attempts": out["attempt"],
                            "fast": out["fast_path"]}
    vetoes = vetoes_of(out)
    if out["golden"] is not None:
        provenance = Provenance.GSV_FAST_PATH if out["fast_path"] else Provenance.GSV
        tagged = _tag(out["golden"], unit, provenance, analysis)
        return _store(services, unit, UnitStatus.GOLDEN,
                      {**tagged, "vetoes": vetoes, "changes": changes(seed_candidate(analysis), tagged, unit)},
                      run_id=run_id, started=started, **cost)
    if unit.single:
        fallback, problems = parser_fallback(analysis, numbered(lines), ctx.rule_checks)
        if fallback is not None:
            log.info("GSV exhausted at %s; the parser's candidate passed the rule checks: written as parser-fallback",
                     unit.unit_id)
            payload = {**_tag(fallback, unit, Provenance.PARSER_FALLBACK, analysis), "cause": out["cause"],
                       "vetoes": vetoes}
            return _store(services, unit, UnitStatus.PARSER_FALLBACK, payload, run_id=run_id, started=started, **cost)
        return _store(services, unit, UnitStatus.FAILED, {"cause": out["cause"] or "exhausted", "parser": problems,
                                                          "vetoes": vetoes},
                      run_id=run_id, started=started, **cost)
    singles = []
    for n in lines:
        single = Unit.of(unit.doc_id, n, n)
        if services.workspace.records.result(single.unit_id) is None:
            _line_after_window(services, single, lines[n], analysis, run_id, run, out["cause"])
        singles.append(single.unit_id)
    return _store(services, unit, UnitStatus.FALLBACK, {"lines": singles}, run_id=run_id, started=started, **cost)


def after_window(analysis: dict[str, Any], line: int, text: str, rule_checks: bool) -> dict[str, Any] | None:
    """What a line of an exhausted window becomes, without another loop where the parser can say.

    The window's loop already showed the model this line among its neighbours and found no reading
    both judges accept; a second loop per line would ask again what was just asked (with small
    models it ends as the parser's reading nine times in ten, at three requests a line). So: no
    kriyas when the parser's reading has no action either, the parser's reading when it passes the
    rule checks, and None (a loop of its own) when the checks reject it.
    """
    own = {"kriyas": [k for k in analysis["kriyas"] if k["line"] == line]}
    if not own["kriyas"]:
        return own
    return parser_fallback(own, numbered({line: text}), rule_checks)[0]


def _line_after_window(services: Services, single: Unit, text: str, analysis: dict[str, Any], run_id: str,
                       run: RunLoop, cause: str | None) -> None:
    """Store a line of an exhausted window as ``after_window`` says, or run its own loop."""
    reading = after_window(analysis, single.first, text, services.ctx.rule_checks)
    if reading is None:
        gsv_unit(services, single, run_id, run)
        return
    status = UnitStatus.PARSER_FALLBACK if reading["kriyas"] else UnitStatus.EMPTY
    tagged = _tag(reading, single, Provenance.PARSER_FALLBACK, analysis) if reading["kriyas"] else reading
    _store(services, single, status, {**tagged, "cause": cause or "window exhausted"}, run_id=run_id,
           started=time.perf_counter())


def parser_units(services: Services, units: list[Unit], run_id: str) -> list[dict[str, Any]]:
    """The analyzer's extraction of one-sentence units: one read, one parse batch, one write, no LLM."""
    started = time.perf_counter()
    records = services.workspace.records
    texts = sentences_of(records, units)
    missing = [u for u in units if (u.doc_id, u.first) not in texts]
    if missing:
        raise ValueError(f"{missing[0].doc_id}: sentence {missing[0].first} is missing from the records")
    rows, outcomes = [], []
    docs = parse_many(texts[(u.doc_id, u.first)] for u in units)
    seconds = (time.perf_counter() - started) / max(len(units), 1)
    for unit, doc in zip(units, docs, strict=True):
        data = {"kriyas": [{**item, "line": unit.first, "provenance": Provenance.PARSER.value}
                           for item in analyze_doc(doc)]}
        status = UnitStatus.GOLDEN if data["kriyas"] else UnitStatus.EMPTY
        rows.append((unit.unit_id, unit.doc_id, unit.first, unit.last, status, data, 0, 0, 0, False, seconds, run_id))
        outcomes.append({"unit_id": unit.unit_id, "status": str(status.value), "llm_calls": 0})
    records.put_results(rows)
    return outcomes


def batched_units(services: Services, units: list[Unit], run_id: str, run: RunLoop) -> list[dict[str, Any]]:
    """The design's batched strategy: one pass, one validation call, the full loop on failures."""
    task = get_task("kriya")
    drafts: dict[str, dict[str, Any]] = {}
    calls: dict[str, float] = {}
    tokens: dict[str, int] = {}
    started = time.perf_counter()
    for unit in units:
        lines = _lines(services, unit)
        if not lines:  # code or table rows only: gsv_unit stores it as empty, with no call
            continue
        calls[unit.unit_id], tokens[unit.unit_id] = 1, 0
        try:
            schema = task.llm_schema(numbered(lines))
            reply = ask(services, task.generate_key, lines=numbered(lines), schema=schema,
                        max_tokens=task.budget(schema, services.ctx.max_tokens))
        except LLMCallError as exc:
            log.warning("batched generation failed for %s: %s", unit.unit_id, exc)
            continue
        tokens[unit.unit_id] = reply.prompt_tokens
        data, errors = task.parse(reply.text)
        if data is not None and not errors and services.ctx.rule_checks:
            errors = kriya_checks(data, numbered(lines))
        if data is not None and not errors:
            drafts[unit.unit_id] = {"unit": unit, "data": data, "source": numbered(lines)}
    invalid_lines: set[int] = set()
    if drafts:
        items = "\n\n".join(f"{d['source']}\nExtraction: {json.dumps(d['data'], ensure_ascii=False)}"
                            for d in drafts.values())
        try:
            verdict = recover_json(ask(services, "kriya_batch_validation_prompt", items=items).text)
            if not isinstance(verdict, dict):
                raise ValueError("validation reply is not an object")
            invalid_lines = {int(x) for x in verdict.get("invalid_lines", []) if str(x).isdigit()}
        except (LLMCallError, ValueError):  # unreadable verdict: trust nothing
            invalid_lines = {n for d in drafts.values() for n in range(d["unit"].first, d["unit"].last + 1)}
        for key in drafts:
            calls[key] += 1 / len(drafts)
    outcomes = []
    calls = {unit.unit_id: calls.get(unit.unit_id, 0) for unit in units}
    tokens = {unit.unit_id: tokens.get(unit.unit_id, 0) for unit in units}
    for unit in units:
        draft = drafts.get(unit.unit_id)
        if draft is not None and not set(range(unit.first, unit.last + 1)) & invalid_lines:
            outcomes.append(_store(services, unit, UnitStatus.GOLDEN, _tag(draft["data"], unit, Provenance.BATCHED),
                                   run_id=run_id, calls=round(calls[unit.unit_id]), tokens=tokens[unit.unit_id],
                                   started=started))
            continue
        outcome = gsv_unit(services, unit, run_id, run)
        row = services.workspace.records.result(unit.unit_id)
        if row is not None:  # fold the first pass's cost into the unit's record
            services.workspace.records.put_result(
                unit.unit_id, unit.doc_id, unit.first, unit.last, row["status"], row["payload"],
                llm_calls=row["llm_calls"] + round(calls[unit.unit_id]),
                prompt_tokens=row["prompt_tokens"] + tokens[unit.unit_id], attempts=row["attempts"],
                fast_path=bool(row["fast_path"]), seconds=row["seconds"], run_id=run_id)
        outcomes.append(outcome)
    return outcomes


def make_extract(loop: Loop) -> Callable[[UnitArgs, Runtime[Context]], dict[str, Any]]:
    """The worker node; GSV-Retry runs as the ``loop`` subgraph it is given (drawn inside it)."""

    def extract(args: UnitArgs, runtime: Runtime[Context]) -> dict[str, Any]:
        """Process the units this worker was sent and store each result durably."""
        services = services_of(runtime)
        ctx = services.ctx

        def run(inputs: GSVInput) -> GSVOutput:
            return run_loop(loop, inputs, ctx)

        records = services.workspace.records
        units = [Unit.from_id(u) for u in args["units"]]
        # A task replayed after a crash finds its units' results already stored: no work again.
        stored = {u.unit_id: records.result(u.unit_id) for u in units}
        outcomes = [{"unit_id": uid, "status": row["status"], "reused": True} for uid, row in stored.items() if row]
        waiting = bool(args.get("wait"))
        with services.workspace.claim([u.unit_id for u in units if stored[u.unit_id] is None], waiting) as mine:
            # another worker may have finished a unit between the read above and its claim
            todo = [u for u in units if u.unit_id in mine and records.result(u.unit_id) is None]
            outcomes += [{"unit_id": u.unit_id, "status": "done elsewhere", "reused": True}
                         for u in units if u.unit_id in mine and u not in todo]
            outcomes += [{"unit_id": u, "status": "claimed by another worker", "reused": True}
                         for u in set(stored) - set(mine) if stored[u] is None]
            if todo and ctx.extractor == "parser":
                outcomes += parser_units(services, todo, args["run_id"])
            elif todo and ctx.strategy == "batched":
                outcomes += batched_units(services, todo, args["run_id"], run)
            else:
                outcomes += [gsv_unit(services, u, args["run_id"], run) for u in todo]
        for outcome in outcomes:
            emit(runtime, {"event": "unit", **outcome})
        return {"units_done": (0 if waiting else len(units)) + args.get("skipped", 0),
                "scanned": args.get("scanned", 0)}

    return extract
