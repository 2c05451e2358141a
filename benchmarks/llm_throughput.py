"""Tokens per second and lines per minute through the GSV loop, for local model settings side by side.

    python benchmarks/llm_throughput.py --llm huggingface:smollm2 --settings batch=1,batch=8 [--lines 24]
        [--workers 4] [--threads 1] [--json OUT]
    python benchmarks/llm_throughput.py --llm llamacpp:smollm2 --settings parallel=1,parallel=3

Each setting is appended to the spec (``huggingface:smollm2:batch=8``, ``llamacpp:smollm2:parallel=3``)
and runs the same first N QA-SRL wikinews dev sentences through the GSV loop with the parser's
reading as Candidate_A (ingestion's default), ``--workers`` lines in flight at once, as
ingestion's ``concurrency``. Printed per setting: wall seconds, lines per minute, LLM requests and
completion tokens per line, completion tokens per second, the batch sizes the transformers node
decoded, and whether every line's accepted extraction is the same as the first setting's
(greedy decoding must not change with the batch; llama.cpp samples its scores, so it may).
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import tempfile
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

DATA = Path(__file__).resolve().parents[2] / "shared" / "data" / "qasrl-gs"


def run_setting(spec: str, sentences: list[list[str]], workers: int, workspace: str) -> dict[str, Any]:
    from karaka.config import Context
    from karaka.evaluation import _predict_window
    from karaka.models import load_llm

    ctx = Context(workspace=workspace, llm=spec, extractor="llm", max_retries=1, max_tokens=256,
                  concurrency=workers, llm_concurrency=workers)
    llm = load_llm(spec, ctx.max_tokens, announce=False, timeout=ctx.llm_timeout, concurrency=workers)
    _predict_window([sentences[0]], ctx)  # warm-up: the first request pays for loading and compiling
    batcher = getattr(llm, "batcher", None)
    if batcher is not None:
        batcher.batches.clear()
    started = time.perf_counter()
    with ThreadPoolExecutor(max_workers=workers) as pool:
        results = list(pool.map(lambda tokens: _predict_window([tokens], ctx), sentences))
    seconds = time.perf_counter() - started
    calls = sum(stats["llm_calls"] for _, stats in results)
    completion = sum(stats["completion_tokens"] for _, stats in results)
    prompt = sum(stats["prompt_tokens"] for _, stats in results)
    batches = list(batcher.batches) if batcher is not None else []
    return {
        "spec": spec, "lines": len(sentences), "seconds": round(seconds, 2),
        "lines_per_minute": round(60 * len(sentences) / seconds, 2),
        "requests_per_line": round(calls / len(sentences), 2),
        "prompt_tokens_per_line": round(prompt / len(sentences)),
        "completion_tokens_per_line": round(completion / len(sentences)),
        "completion_tokens_per_second": round(completion / seconds, 1),
        "batches": len(batches), "median_batch": statistics.median(batches) if batches else None,
        "largest_batch": max(batches) if batches else None,
        "outputs": [json.dumps(kriyas, sort_keys=True) for kriyas, _ in results],
    }


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--llm", default="huggingface:smollm2", help="base spec, without options")
    parser.add_argument("--settings", default="batch=1,batch=8", help="comma-separated options, one run each")
    parser.add_argument("--lines", type=int, default=24)
    parser.add_argument("--workers", type=int, default=4, help="lines in flight at once")
    parser.add_argument("--threads", type=int, default=0, help="torch threads (0: torch's default)")
    parser.add_argument("--json", help="write the figures here")
    args = parser.parse_args()
    if args.threads:
        import torch

        torch.set_num_threads(args.threads)
    os.environ.setdefault("OMP_WAIT_POLICY", "PASSIVE")
    from karaka.evaluation import load_gold

    items = load_gold(DATA / "wikinews.dev.gold.csv", DATA / "wikinews.dev.full.csv", args.lines)
    sentences = [item["tokens"] for item in items]
    rows = []
    with tempfile.TemporaryDirectory(prefix="karaka-throughput-") as workspace:
        for setting in [s.strip() for s in args.settings.split(",") if s.strip()]:
            spec = f"{args.llm}:{setting}"
            print(f"running {spec} on {len(sentences)} lines ...", file=sys.stderr, flush=True)
            rows.append(run_setting(spec, sentences, args.workers, workspace))
    first = rows[0]["outputs"]
    print(f"{len(sentences)} QA-SRL wikinews dev lines, {args.workers} in flight, one run each")
    print(f"{'setting':42} {'s':>7} {'lines/min':>9} {'req/line':>8} {'tok/line':>8} {'tok/s':>6} "
          f"{'batch med/max':>13} {'same as first':>13}")
    for row in rows:
        same = sum(a == b for a, b in zip(first, row["outputs"], strict=True))
        batch = f"{row['median_batch']}/{row['largest_batch']}" if row["batches"] else "-"
        print(f"{row['spec']:42} {row['seconds']:7.1f} {row['lines_per_minute']:9.2f} {row['requests_per_line']:8.2f} "
              f"{row['completion_tokens_per_line']:8} {row['completion_tokens_per_second']:6.1f} {batch:>13} "
              f"{same:>6}/{len(first)}")
    if args.json:
        Path(args.json).write_text(json.dumps({"args": vars(args), "rows": rows}, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
