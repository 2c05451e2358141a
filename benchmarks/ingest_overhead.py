"""Framework overhead per line with the instant `simulated` LLM (no model time at all).

    python benchmarks/ingest_overhead.py --lines 1000 10000 [--window 1] [--score 96] [--extractor parser]
Prints ms/line of everything (the simulated model answers in microseconds; ``--extractor parser``:
no LLM at all), checkpoint size, peak RSS, and peak RSS less the models (spaCy and WordLlama,
loaded before the clock starts). Post-processing is off to isolate the extraction loop.
"""

import argparse
import resource
import shutil
import tempfile
import time
from pathlib import Path

from karaka.app.runner import run_ingest
from karaka.config import Context
from karaka.services import forget_workspace


def corpus(folder: Path, lines: int) -> None:
    folder.mkdir(parents=True)
    names = ["Rama", "Sita", "Hanuman", "Ravana", "Lakshmana", "Bharata"]
    objects = ["the bow", "the ring", "a letter", "the bridge", "the sword", "the boat"]
    per_doc = 500
    for d in range(0, lines, per_doc):
        text = "\n".join(f"{names[i % 6]} gave {objects[(i // 6) % 6]} to {names[(i + 1) % 6]} on day {i}."
                         for i in range(d, min(d + per_doc, lines)))
        (folder / f"doc{d // per_doc:04d}.txt").write_text(text)


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--lines", type=int, nargs="+", default=[1000])
    parser.add_argument("--window", type=int, default=1)
    parser.add_argument("--score", type=int, default=96)
    parser.add_argument("--extractor", choices=["llm", "parser"], default="llm")
    args = parser.parse_args()
    from karaka.models import load_embeddings
    from karaka.nlp import nlp

    nlp()
    load_embeddings("wordllama", announce=False).embed_query("warm up")
    models_mb = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    for lines in args.lines:
        root = Path(tempfile.mkdtemp())
        corpus(root / "docs", lines)
        llm = "none" if args.extractor == "parser" else f"simulated:score={args.score}"
        ctx = Context(workspace=str(root / "ws"), llm=llm, window=args.window, extractor=args.extractor,
                      coreference=False, metaphors=False, entity_types=False, causality=False, rule_checks=False)
        start = time.perf_counter()
        report = run_ingest(ctx, root / "docs")
        seconds = time.perf_counter() - start
        ckpt = (root / "ws" / "checkpoints.sqlite").stat().st_size
        wal = root / "ws" / "checkpoints.sqlite-wal"
        ckpt += wal.stat().st_size if wal.exists() else 0
        rss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
        print(f"lines={lines} extractor={args.extractor} window={args.window} ms/line={1000 * seconds / lines:.2f} "
              f"llm_calls/line={report['llm_calls']['per_line_mean']} "
              f"prompt_tokens/line={report['llm_calls']['prompt_tokens_per_line_mean']} "
              f"checkpoint_bytes={ckpt} peak_rss_mb={rss:.0f} less_models_mb={rss - models_mb:.0f}", flush=True)
        forget_workspace(root / "ws")
        shutil.rmtree(root)


if __name__ == "__main__":
    main()
