"""Score kāraka extraction against the QA-SRL Gold Standard (mapping in KARAKA_MAPPING.md).

Unmapped: why/how questions and clause-introducing preps. A ``to``/``for`` gap whose wh-word
is "what" (a destination or purpose, not a recipient) is left out, not scored as KARMA.
"""

from __future__ import annotations

import csv
import re
import time
from collections import defaultdict
from collections.abc import Callable
from pathlib import Path
from typing import Any

from karaka.config import Context
from karaka.state.gsv import Attempt

ROLES = ("KARTA", "KARMA", "KARANA", "SAMPRADANA", "APADANA", "ADHIKARANA_SPATIAL", "ADHIKARANA_TEMPORAL")
PREP_ROLE = {"to": "SAMPRADANA", "for": "SAMPRADANA", "from": "APADANA", "out of": "APADANA",
             "with": "KARANA", "using": "KARANA", "by": "KARANA"}


def gold_role(row: dict[str, str]) -> str | None:
    """The kāraka of a QA-SRL question's gap, or None when unmapped."""
    wh, subj, obj, obj2 = row["wh"].strip().lower(), row["subj"].strip(), row["obj"].strip(), row["obj2"].strip()
    prep = row["prep"].strip().lower()
    passive = row["is_passive"].strip() == "True"
    if wh == "where":
        return "ADHIKARANA_SPATIAL"
    if wh == "when":
        return "ADHIKARANA_TEMPORAL"
    if wh not in ("who", "what"):
        return None
    if not subj:
        return "KARMA" if passive else "KARTA"
    if not obj and not prep:
        return "KARMA"
    if prep and not obj2:
        if passive and prep == "by":
            return "KARTA"
        if prep in ("to", "for") and wh == "what":
            return None
        return PREP_ROLE.get(prep)
    if not obj:
        return "KARMA"
    return None


def _spans(answer_range: str, tokens: list[str]) -> list[list[str]]:
    out = []
    for part in answer_range.split("~!~"):
        if ":" in part:
            start, end = (int(x) for x in part.split(":"))
            out.append([t.lower() for t in tokens[start:end]])
    return out


def token_f1(predicted: list[str], gold: list[str]) -> float:
    """Token-overlap F1."""
    if not predicted or not gold:
        return 0.0
    common = sum(min(predicted.count(t), gold.count(t)) for t in set(predicted))
    if not common:
        return 0.0
    p, r = common / len(predicted), common / len(gold)
    return 2 * p * r / (p + r)


def load_gold(gold_csv: str | Path, sentences_csv: str | Path, limit: int | None = None) -> list[dict[str, Any]]:
    """Sentences with their gold predicates: {id, tokens, predicates: {verb_idx: {role: [spans...]}}}."""
    with open(sentences_csv, encoding="utf-8") as handle:
        sentences = {r["qasrl_id"]: r["tokens"].split(" ") for r in csv.DictReader(handle)}
    gold: dict[str, dict[int, dict[str, list[list[list[str]]]]]] = defaultdict(lambda: defaultdict(lambda: defaultdict(list)))
    with open(gold_csv, encoding="utf-8") as handle:
        for row in csv.DictReader(handle):
            role = gold_role(row)
            sid = row["qasrl_id"]
            if sid not in sentences:
                continue
            gold[sid][int(row["verb_idx"])]  # every annotated verb counts as a predicate
            if role is not None:
                gold[sid][int(row["verb_idx"])][role].append(_spans(row["answer_range"], sentences[sid]))
    ids = [sid for sid in sentences if sid in gold][: limit or None]
    return [{"id": sid, "tokens": sentences[sid], "predicates": gold[sid]} for sid in ids]


def _predict_parser(tokens: list[str]) -> list[dict[str, Any]]:
    from karaka.nlp import parse_tokens
    from karaka.nlp.roles import analyze_doc

    return analyze_doc(parse_tokens(tokens))


def _predict_llm(tokens: list[str], ctx: Context, full_loop: bool) -> tuple[list[dict[str, Any]], dict[str, Any]]:
    """One sentence through the single pass or the GSV loop (with ingestion's parser fallback); kriyas and costs."""
    from karaka.graphs.gsv import run_gsv
    from karaka.kg.calls import ask
    from karaka.models.call import LLMCallError
    from karaka.nlp import parse_tokens
    from karaka.nlp.roles import analyze_doc, seed_candidate
    from karaka.nodes.extract import offered, parser_fallback
    from karaka.services import get_services
    from karaka.tasks import get_task

    source = f"[L1] {' '.join(tokens)}"
    started = time.perf_counter()
    task = get_task("kriya")
    if not full_loop:
        try:
            schema = task.llm_schema(source)
            reply = ask(get_services(ctx), task.generate_key, lines=source, schema=schema,
                        max_tokens=task.budget(schema, ctx.max_tokens))
        except LLMCallError as exc:
            return [], {"outcome": "failed", "llm_calls": 1, "prompt_tokens": 0, "completion_tokens": 0,
                        "seconds": time.perf_counter() - started, "error": str(exc)}
        data, errors = task.parse(reply.text)
        outcome = "schema-invalid" if errors else "valid"
        return (data or {"kriyas": []})["kriyas"], {
            "outcome": outcome, "raw": reply.text[:400], "errors": errors, "llm_calls": 1, "prompt_tokens": reply.prompt_tokens,
            "completion_tokens": reply.completion_tokens, "seconds": time.perf_counter() - started}
    doc = parse_tokens(tokens)  # the parse the parser's own run scores: Candidate_A is exactly its analysis
    analysis = {"kriyas": [{**item, "line": 1} for item in analyze_doc(doc)]}
    seed = seed_candidate(analysis) if ctx.parser_candidate else None
    out = run_gsv({"task": "kriya", "source": source, "ref": {"eval": True}, "seed": seed,
                   "alternatives": offered(ctx, {1: " ".join(tokens)}, analysis, seed, docs={1: doc})}, ctx)
    golden = out["golden"]
    if golden is not None:
        outcome = "fast-path" if out["fast_path"] else "accepted"
    else:
        golden, _ = parser_fallback(analysis, source, ctx.rule_checks)
        outcome = "parser-fallback" if golden is not None else "failed"
    generated = [c for h in out["history"] for c in h["candidates"] if c.get("origin") == "llm"]
    stats = {"outcome": outcome, "origin": out["origin"], "attempts": out["attempt"], "llm_calls": out["llm_calls"],
             "prompt_tokens": out["prompt_tokens"], "completion_tokens": out["completion_tokens"],
             "generated": len(generated), "schema_valid": sum(1 for c in generated if c.get("data") is not None),
             "seconds": time.perf_counter() - started, "trace": [_trace(h) for h in out["history"]]}
    kriyas = [dict(k) for k in (golden or {"kriyas": []})["kriyas"]]
    unplaced = list(analysis["kriyas"])
    for kriya in kriyas:  # a Kriyā of the parser's analysis keeps the verb token the parser's own run scores
        same = next((p for p in unplaced if p["verb"] == str(kriya.get("verb", "")).lower()), None)
        if same is not None:
            unplaced.remove(same)
            kriya["token"] = same["token"]
    return kriyas, stats


def _trace(attempt: Attempt) -> dict[str, Any]:
    """One attempt, short: each candidate's origin, raw reply and errors, the mean scores, the verdict."""
    verdict: dict[str, Any] = dict(attempt.get("verdict") or {})
    return {"attempt": attempt["attempt"], "accepted": attempt.get("accepted"), "feedback": attempt["feedback"],
            "candidates": [{"label": c["label"], "origin": c.get("origin"), "raw": c["raw"][:400], "errors": c["errors"]}
                           for c in attempt["candidates"]],
            "scores": attempt["scores"], "verdict": {k: verdict.get(k) for k in ("choice", "violations", "reasoning",
                                                                                "confirmed", "asks")}}


def _locate(verb: str, tokens: list[str], taken: set[int]) -> int | None:
    from karaka.nlp import parse_tokens

    doc = parse_tokens(tokens)
    verb = verb.lower()
    hits = [t.i for t in doc if (t.lemma_.lower() == verb or t.lower_ == verb) and t.i not in taken]
    return hits[0] if hits else None


def evaluate(gold_csv: str | Path, sentences_csv: str | Path, *, extractor: str = "parser",
             ctx: Context | None = None, limit: int | None = None,
             on_sentence: Callable[[dict[str, Any]], None] | None = None) -> dict[str, Any]:
    """Precision, recall and F1 per kāraka and micro-averaged, with the counts behind them.

    ``on_sentence`` gets each LLM sentence's record as soon as it is done (long runs report as they go).
    """
    items = load_gold(gold_csv, sentences_csv, limit)
    predictions: dict[str, list[dict[str, Any]]] = {}
    runs: list[dict[str, Any]] = []
    for item in items:
        tokens = item["tokens"]
        if extractor == "parser":
            started = time.perf_counter()
            predictions[item["id"]] = _predict_parser(tokens)
            runs.append({"outcome": "parser", "llm_calls": 0, "seconds": time.perf_counter() - started})
            continue
        predicted, stats = _predict_llm(tokens, ctx or Context(), extractor == "gsv")
        runs.append({"id": item["id"], **stats})
        if on_sentence is not None:
            on_sentence({**runs[-1], "predicted": predicted})
        taken: set[int] = {k["token"] for k in predicted if k.get("token") is not None}
        for kriya in predicted:
            if kriya.get("token") is None:
                kriya["token"] = _locate(str(kriya.get("verb", "")), tokens, taken)
            if kriya["token"] is not None:
                taken.add(kriya["token"])
        predictions[item["id"]] = predicted
    scores = score(items, predictions)
    calls = sum(r["llm_calls"] for r in runs)
    scores.update(extractor=extractor, llm_calls_per_sentence=round(calls / len(items), 3) if items else 0.0,
                  runs=runs)
    scores["counts"]["llm_calls"] = calls
    return scores


def score(items: list[dict[str, Any]], predictions: dict[str, list[dict[str, Any]]]) -> dict[str, Any]:
    """Score predicted kriyas (``{verb, karakas, token}`` per sentence id) against the gold items."""
    counts = {role: {"tp": 0, "fp": 0, "fn": 0} for role in ROLES}
    seen = {"sentences": len(items), "gold_predicates": 0, "matched_predicates": 0, "gold_arguments": 0}
    for item in items:
        by_token = {k["token"]: k for k in predictions.get(item["id"], []) if k.get("token") is not None}
        for verb_idx, roles in item["predicates"].items():
            seen["gold_predicates"] += 1
            match: dict[str, Any] | None = by_token.get(verb_idx)
            if match is not None:
                seen["matched_predicates"] += 1
            for role in ROLES:
                golds = roles.get(role, [])
                seen["gold_arguments"] += len(golds)
                preds = []
                if match is not None:
                    value = match["karakas"].get(role)
                    preds = value if isinstance(value, list) else ([value] if value else [])
                used: set[int] = set()
                for pred in preds:
                    words = [w.lower() for w in re.findall(r"\S+", str(pred))]
                    hit = next((i for i, answers in enumerate(golds) if i not in used
                                and any(token_f1(words, span) >= 0.5 for span in answers)), None)
                    if hit is None:
                        counts[role]["fp"] += 1
                    else:
                        used.add(hit)
                        counts[role]["tp"] += 1
                counts[role]["fn"] += len(golds) - len(used)
    return {"counts": seen, "roles": {r: _prf(c) for r, c in counts.items()},
            "micro": _prf({k: sum(c[k] for c in counts.values()) for k in ("tp", "fp", "fn")}),
            "unscored": "why/how questions; to/for gaps asked with 'what' (destinations) are left out"}


def _prf(c: dict[str, int]) -> dict[str, Any]:
    p = c["tp"] / (c["tp"] + c["fp"]) if c["tp"] + c["fp"] else 0.0
    r = c["tp"] / (c["tp"] + c["fn"]) if c["tp"] + c["fn"] else 0.0
    f = 2 * p * r / (p + r) if p + r else 0.0
    return {**c, "precision": round(p, 4), "recall": round(r, 4), "f1": round(f, 4)}


def format_table(scores: dict[str, Any]) -> str:
    """A plain-text table."""
    lines = [f"extractor {scores['extractor']} · {scores['counts']}",
             f"{'role':22} {'P':>6} {'R':>6} {'F1':>6} {'tp':>5} {'fp':>5} {'fn':>5}"]
    for role, v in [*scores["roles"].items(), ("MICRO", scores["micro"])]:
        lines.append(f"{role:22} {v['precision']:6.3f} {v['recall']:6.3f} {v['f1']:6.3f} {v['tp']:5} {v['fp']:5} {v['fn']:5}")
    return "\n".join(lines)
