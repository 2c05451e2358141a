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


def _predict_single(tokens: list[str], ctx: Context) -> tuple[list[list[dict[str, Any]]], dict[str, Any]]:
    """One sentence through one unverified LLM pass; its kriyas and costs."""
    from karaka.gsv import get_task
    from karaka.models.call import LLMCallError
    from karaka.services import ask, get_services

    source = f"[L1] {' '.join(tokens)}"
    started = time.perf_counter()
    task = get_task("kriya")
    try:
        schema = task.llm_schema(source)
        reply = ask(get_services(ctx), task.generate_key, lines=source, schema=schema,
                    max_tokens=task.budget(schema, ctx.max_tokens))
    except LLMCallError as exc:
        return [[]], {"outcome": "failed", "llm_calls": 1, "prompt_tokens": 0, "completion_tokens": 0,
                      "seconds": time.perf_counter() - started, "error": str(exc)}
    data, errors = task.parse(reply.text)
    outcome = "schema-invalid" if errors else "valid"
    return [(data or {"kriyas": []})["kriyas"]], {
        "outcome": outcome, "raw": reply.text[:400], "errors": errors, "llm_calls": 1, "prompt_tokens": reply.prompt_tokens,
        "completion_tokens": reply.completion_tokens, "seconds": time.perf_counter() - started}


def _predict_window(window: list[list[str]], ctx: Context) -> tuple[list[list[dict[str, Any]]], dict[str, Any]]:
    """Sentences as one extraction unit through the GSV loop, as ingestion runs a window; kriyas and costs.

    Numbered lines, the parser's analysis as Candidate_A; a line of an exhausted window is the
    parser's reading when it passes the rule checks, empty when it has none, else a loop of its
    own; an exhausted sentence falls back to the parser's reading. Returns each sentence's kriyas and the unit's costs.
    """
    from karaka.graphs.gsv import run_gsv
    from karaka.kg.units import numbered
    from karaka.nlp import parse_tokens
    from karaka.nlp.roles import analyze_doc, seed_candidate
    from karaka.nodes.extract import after_window, offered, parser_fallback

    started = time.perf_counter()
    lines = {n: " ".join(tokens) for n, tokens in enumerate(window, 1)}
    docs = {n: parse_tokens(tokens) for n, tokens in enumerate(window, 1)}  # the parses the parser's own run scores
    analysis = {"kriyas": [{**item, "line": n} for n, doc in docs.items() for item in analyze_doc(doc)]}
    source = numbered(lines)
    seed = seed_candidate(analysis) if ctx.parser_candidate else None
    out = run_gsv({"task": "kriya", "source": source, "ref": {"eval": True}, "seed": seed,
                   "alternatives": offered(ctx, lines, analysis, seed, docs=docs)}, ctx)
    golden = out["golden"]
    generated = [c for h in out["history"] for c in h["candidates"] if c.get("origin") == "llm"]
    stats: dict[str, Any] = {"origin": out["origin"], "attempts": out["attempt"], "llm_calls": out["llm_calls"],
             "prompt_tokens": out["prompt_tokens"], "completion_tokens": out["completion_tokens"],
             "generated": len(generated), "schema_valid": sum(1 for c in generated if c.get("data") is not None),
             "trace": [_trace(h) for h in out["history"]]}
    if golden is not None:
        stats["outcome"] = "fast-path" if out["fast_path"] else "accepted"
    elif len(window) > 1:  # as ingestion: each line of an exhausted window is the parser's, or gets its own loop
        per_line: list[list[dict[str, Any]]] = []
        outcomes = []
        for n, tokens in enumerate(window, 1):
            reading = after_window(analysis, n, lines[n], ctx.rule_checks)
            if reading is not None:
                per_line.append(_placed(reading["kriyas"], analysis["kriyas"], n))
                outcomes.append("parser-fallback" if reading["kriyas"] else "empty")
                continue
            kriyas, single = _predict_window([tokens], ctx)
            per_line += kriyas
            outcomes.append(single["outcome"])
            for key in ("llm_calls", "prompt_tokens", "completion_tokens", "generated", "schema_valid"):
                stats[key] += single[key]
        stats.update(outcome="window-fallback", lines=outcomes, seconds=time.perf_counter() - started)
        return per_line, stats
    else:
        golden, _ = parser_fallback(analysis, source, ctx.rule_checks)
        stats["outcome"] = "parser-fallback" if golden is not None else "failed"
    stats["seconds"] = time.perf_counter() - started
    kriyas = (golden or {"kriyas": []})["kriyas"]
    return [_placed(kriyas, analysis["kriyas"], n) for n in docs], stats


def _placed(kriyas: list[dict[str, Any]], analysis: list[dict[str, Any]], n: int) -> list[dict[str, Any]]:
    """Line ``n``'s kriyas; one of the parser's analysis keeps the verb token the parser's own run scores."""
    out = [dict(k) for k in kriyas if int(k.get("line") or 1) == n]
    unplaced = [item for item in analysis if item["line"] == n]
    for kriya in out:
        same = next((p for p in unplaced if p["verb"] == str(kriya.get("verb", "")).lower()), None)
        if same is not None:
            unplaced.remove(same)
            kriya["token"] = same["token"]
    return out


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
             on_sentence: Callable[[dict[str, Any]], None] | None = None, window: int = 1) -> dict[str, Any]:
    """Precision, recall and F1 per kāraka and micro-averaged, with the counts behind them.

    ``on_sentence`` gets each LLM unit's record as soon as it is done (long runs report as they go);
    with ``window`` > 1 the GSV loop reads that many consecutive sentences as one unit, as ingestion does.
    """
    items = load_gold(gold_csv, sentences_csv, limit)
    predictions: dict[str, list[dict[str, Any]]] = {}
    runs: list[dict[str, Any]] = []
    if extractor == "parser":
        for item in items:
            started = time.perf_counter()
            predictions[item["id"]] = _predict_parser(item["tokens"])
            runs.append({"outcome": "parser", "llm_calls": 0, "seconds": time.perf_counter() - started})
    size = max(1, window) if extractor == "gsv" else 1
    for first in range(0, len(items) if extractor != "parser" else 0, size):
        chunk = items[first:first + size]
        if extractor == "gsv":
            per_sentence, stats = _predict_window([item["tokens"] for item in chunk], ctx or Context())
        else:
            per_sentence, stats = _predict_single(chunk[0]["tokens"], ctx or Context())
        runs.append({"id": chunk[0]["id"], "sentences": len(chunk), **stats})
        if on_sentence is not None:
            on_sentence({**runs[-1], "predicted": per_sentence})
        for item, predicted in zip(chunk, per_sentence, strict=True):
            taken: set[int] = {k["token"] for k in predicted if k.get("token") is not None}
            for kriya in predicted:
                if kriya.get("token") is None:
                    kriya["token"] = _locate(str(kriya.get("verb", "")), item["tokens"], taken)
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


def word_error_rate(said: str, heard: str) -> float:
    """Word-level edit distance over the number of words said (case and punctuation folded): speech recognition."""
    ref, hyp = ([w.strip(".,;:?!").lower() for w in text.split()] for text in (said, heard))
    row = list(range(len(hyp) + 1))
    for i, word in enumerate(ref, 1):
        prev, row[0] = row[0], i
        for j, other in enumerate(hyp, 1):
            prev, row[j] = row[j], min(row[j] + 1, row[j - 1] + 1, prev + (word != other))
    return row[-1] / max(1, len(ref))
